"""Model files: a fitted tree estimator as versioned JSON, and back (never running code).

The layout is described in ``docs/model-format.md``. Loading checks the format name and
version, then the document's shape against the JSON Schema ``schemas/model-files-v1.json``
(every field's type and range), then what a schema cannot say: the parameters' values, the
tree arrays (one tree that prediction can walk, consistent with the features and classes)
and the rules. It rebuilds the estimator from an allow-list of quercus classes
(:data:`MODEL_ESTIMATORS`): a file can describe a model, never make Python do anything else.

This module reads a fitted estimator's attributes and never imports the estimators: they
call it to save themselves. The classes it builds when loading are passed in by
:mod:`quercus.persist.loader`, which sits above the estimators and forests.

Writing goes to a temporary file that replaces the target only when complete
(``quercus._files``), so a failed save never leaves a truncated file or loses the old one.
The same model gives the same bytes, but for the ``created`` date, which
``SOURCE_DATE_EPOCH`` fixes.
"""

from __future__ import annotations

import functools
import json
import math
import os
import warnings
from dataclasses import fields, replace
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._config import LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, OBLIQUE_SPLIT, SUBSET_SPLIT
from .._files import write_file
from .._version import __version__
from ..data.schema import NOMINAL_KIND, NUMERIC_KIND, Feature, Schema
from ..estimators.params import InvalidParameterError, check_params
from ..splitting.category_sets import BITSET, WORD_BITS, subset_table, table_sizes
from ..tree import Tree, leaves
from ..tree.conditions import Condition

FORMAT = "quercus-model"
# 2: model trees (``linear`` leaf models and ``terms``); 3: ``oblique``; 4: a subset split
# keeps a bitset of its categories, a multiway split no table (``tree.cat_table``); 5: a
# subset split's table is a header and a bitset or a list of codes (``category_sets.py``).
FORMAT_VERSION = 5
#: The last version whose files keep a branch number for every category of every nominal
#: split (read, then converted).
FULL_TABLES_VERSION = 3
#: The last version whose subset splits keep a bare bitset (read, then given headers).
BITSETS_VERSION = 4
#: How a file's trees keep their category tables: a branch number per category of every
#: nominal split, a bare bitset per subset split, or a header and a bitset or a list.
FULL_TABLES, BITSETS, HEADED = "full tables", "bitsets", "headed"


def tables_of(version: int, full_tables_version: int, bitsets_version: int) -> str:
    """How the trees of a file of ``version`` keep their category tables (the last
    versions of each old form given)."""
    if version <= full_tables_version:
        return FULL_TABLES
    return BITSETS if version <= bitsets_version else HEADED


#: The oldest version this quercus still reads (its files are read as they were written).
OLDEST_FORMAT_VERSION = 1
#: The estimators a model file can hold, by the class name it records (the public names of
#: ``quercus.estimators``).
MODEL_ESTIMATORS = (
    "C45Classifier",
    "C45RulesClassifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "ModelTreeRegressor",
)

# Per-node arrays of the flat tree and their dtypes (``value`` is 2-D, ``median`` optional).
_NODE_ARRAYS = {
    "kind": np.int8,
    "feature": np.int32,
    "threshold": np.float64,
    "child_start": np.int32,
    "n_children": np.int32,
    "cat_start": np.int32,
    "missing_child": np.int32,
    "impurity": np.float64,
    "n_node_samples": np.int32,
    "weighted_n_node_samples": np.float64,
    "depth": np.int32,
}
_FLAT_ARRAYS = {"children": np.int32, "cat_table": np.int32}
# Fitted attributes besides the tree, schema and classes, kept when the estimator has them.
_SCALARS = ("max_features_", "ccp_alpha_")


class ModelError(ValueError):
    """A model file that cannot be loaded: not JSON, truncated, of another format or
    version, or with inconsistent contents. The message names the file."""


def creation_time() -> datetime:
    """When a file is written: now, or ``SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) when
    it is set, so that a build that saves a model can give the same bytes every time."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH")
    if fixed is None:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        return datetime.fromtimestamp(int(fixed), timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise ValueError(
            f"SOURCE_DATE_EPOCH={fixed!r} is not a number of seconds since 1970-01-01"
        ) from None


def class_name(obj, names: tuple, package: str, what: str) -> str:
    """The name a file records for ``obj``'s class: one of ``names``, and a class that
    ``package`` defines (a class of another library, or a subclass of the user's, with the
    same name is not the one a file would load). A TypeError otherwise."""
    cls = type(obj)
    if cls.__name__ not in names or not cls.__module__.startswith(package + "."):
        raise TypeError(f"only quercus {what} can be saved, got {cls.__name__}")
    return cls.__name__


# -- values in JSON ------------------------------------------------------------------------


def _plain(value, where: str):
    """``value`` as JSON data; dicts, non-finite floats and tuples are tagged so that they
    come back as they were. Anything else is an error naming ``where``."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, list | tuple):
        items = [_plain(v, where) for v in value]
        return items if isinstance(value, list) else {"tuple": items}
    if isinstance(value, dict):
        return {"dict": [[_plain(k, where), _plain(v, where)] for k, v in value.items()]}
    if isinstance(value, np.ndarray):
        return {"array": _plain(value.tolist(), where), "dtype": str(value.dtype)}
    raise TypeError(f"{where}: cannot store a {type(value).__name__} in a model file")


def _unplain(value):
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "tuple" in value:
            return tuple(_unplain(v) for v in value["tuple"])
        if "dict" in value:
            return {_hashable(_unplain(k)): _unplain(v) for k, v in value["dict"]}
        if "array" in value:
            return _array(_unplain(value["array"]), value["dtype"])
        raise ValueError(f"unknown tagged value {sorted(value)}")
    return value


def _checked_dtype(name: str, values: list, where: str) -> np.dtype:
    """The dtype ``name`` of an array of ``values`` from a file: a number, boolean, text or
    object dtype, and no wider than the values need (a text dtype of a billion characters
    per item would allocate gigabytes for one value)."""
    try:
        dtype = np.dtype("O" if name == "O" else name)
    except TypeError:
        raise ModelError(f"{where}: unknown dtype {name!r}") from None
    if dtype.kind not in "biufUO" or (dtype.kind != "U" and dtype.itemsize > 8):
        raise ModelError(f"{where}: dtype {name!r} is not a dtype of labels or parameters")
    if dtype.kind == "U":
        longest = max((len(v) for v in values if isinstance(v, str)), default=0)
        if dtype.itemsize // 4 > max(longest, 1):
            raise ModelError(f"{where}: dtype {name!r} is wider than its values")
    return dtype


def _array(values, dtype: str) -> np.ndarray:
    """A tagged array, built only after its dtype is checked."""
    if not isinstance(values, list):
        raise ModelError("a tagged array holds no list")
    return np.asarray(values, dtype=_checked_dtype(dtype, values, "a tagged array"))


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def check_statistics_finite(tree: Tree, bounds: TreeBounds | None = None) -> None:
    """A ValueError naming the node when a statistic of ``tree`` that a model file must
    hold finite (class weights or regression sums, node weights, leaf models) is NaN or
    infinite: it would be saved as a model that loading refuses, or not at all.
    ``bounds``: ``tree`` holds stacked trees (``tree/stack.py``), named by tree and node."""
    arrays = {"value": tree.value, "weighted_n_node_samples": tree.weighted_n_node_samples}
    if tree.leaf_params is not None:
        arrays["leaf_params"] = tree.leaf_params
    for name, array in arrays.items():
        bad = ~np.isfinite(np.asarray(array, dtype=np.float64))
        if bad.any():
            node = int(np.flatnonzero(bad.reshape(len(bad), -1).any(axis=1))[0])
            raise ValueError(
                f"{_node_name(node, bounds)}'s {name} is not finite: the model is not saved "
                "(the fit met numbers too large to sum)"
            )


def _node_name(node: int, bounds: TreeBounds | None) -> str:
    """``node N``, or in stacked trees ``tree T, node N`` (N numbered within tree T)."""
    if bounds is None:
        return f"node {node}"
    t = int(np.searchsorted(bounds.node_offsets, node, side="right")) - 1
    return f"tree {t}, node {node - int(bounds.node_offsets[t])}"


def _floats(array: np.ndarray) -> list:
    """Floats with NaN as null (JSON has no NaN); float64 values round-trip exactly."""
    return [None if math.isnan(v) else v for v in np.asarray(array, dtype=np.float64).tolist()]


def _unfloats(values) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


# -- writing -------------------------------------------------------------------------------


def model_to_dict(estimator) -> dict:
    """The JSON document of a fitted estimator (see ``docs/model-format.md``)."""
    name = class_name(estimator, MODEL_ESTIMATORS, "quercus.estimators", "tree estimators")
    if not hasattr(estimator, "tree_"):
        from sklearn.exceptions import NotFittedError  # an estimator: sklearn is loaded

        raise NotFittedError(f"this {name} is not fitted yet: call fit before save")
    params, skipped = {}, []
    for key, value in estimator.get_params(deep=False).items():
        if isinstance(value, np.random.RandomState):
            params[key], skipped = None, [*skipped, key]  # the fitted model does not need it
            continue
        params[key] = _plain(value, f"parameter {key}")
    if skipped:
        warnings.warn(
            f"parameters {skipped} hold a RandomState, which a model file cannot store: "
            "saved as None (predictions do not depend on them)",
            UserWarning,
            stacklevel=3,
        )
    tree = compact_categories(estimator.tree_, estimator.schema_)
    check_statistics_finite(tree)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": __version__,
        "created": creation_time().isoformat(timespec="seconds"),
        "estimator": name,
        "params": params,
        "training": {
            "n_samples": int(tree.n_node_samples[0]),
            "sum_of_weights": float(tree.weighted_n_node_samples[0]),
            "n_features": int(estimator.n_features_in_),
            "feature_names_in": (
                [str(n) for n in estimator.feature_names_in_]
                if hasattr(estimator, "feature_names_in_")
                else None
            ),
        },
        "schema": _schema_to_dict(estimator.schema_),
        "tree": _tree_to_dict(tree),
        "fitted": {
            key: _plain(getattr(estimator, key), key) for key in _SCALARS if hasattr(estimator, key)
        },
    }
    if hasattr(estimator, "classes_"):
        doc["classes"] = {
            "dtype": estimator.classes_.dtype.str if estimator.classes_.dtype != object else "O",
            "values": _plain(estimator.classes_.tolist(), "classes_"),
        }
    if hasattr(estimator, "rules_"):
        doc["rules"] = _rules_to_dict(estimator)
    if hasattr(estimator, "terms_"):
        doc["terms"] = {
            "fill": _floats(estimator.terms_.fill),
            "ranks": [None if r is None else r.tolist() for r in estimator.terms_.ranks],
        }
    return doc


def _schema_to_dict(schema: Schema) -> dict:
    return {
        "features": [
            {
                "name": f.name,
                "kind": f.kind,
                "categories": None
                if f.categories is None
                else _plain(list(f.categories), f"categories of {f.name!r}"),
            }
            for f in schema.features
        ],
        "target": schema.target,
    }


def _tree_to_dict(tree: Tree) -> dict:
    out = {
        "n_nodes": tree.node_count,
        "regression": bool(tree.regression),
        "fractional": bool(tree.fractional),
    }
    for key, dtype in _NODE_ARRAYS.items():
        array = getattr(tree, key)
        out[key] = _floats(array) if dtype is np.float64 else array.astype(np.int64).tolist()
    for key in _FLAT_ARRAYS:
        out[key] = getattr(tree, key).astype(np.int64).tolist()
    out["value"] = [_floats(row) for row in tree.value]
    out["median"] = None  # the leaf model's parameters, when it has any (tree/leaves.py)
    for key, params in leaves.to_file(tree.leaf_model, tree.leaf_params).items():
        out[key] = _floats(params) if params.ndim == 1 else [_floats(row) for row in params]
    if tree.oblique is not None:
        out["oblique"] = {
            "nodes": np.flatnonzero(tree.kind == OBLIQUE_SPLIT).tolist(),
            "weights": [_floats(row) for row in tree.oblique],
        }
    return out


def _leaf_fields(median, regression: bool, linear=None) -> dict:
    """The :class:`Tree` fields of a file's leaf model (tree/leaves.py)."""
    leaf_model, leaf_params = leaves.from_file(median, regression, linear)
    return {"leaf_model": leaf_model, "leaf_params": leaf_params}


def _rules_to_dict(estimator) -> dict:
    return {
        "default_class": int(estimator.default_class_),
        "rule_proba": [_floats(row) for row in estimator.rule_proba_],
        "rules": [
            {
                "conditions": [
                    {
                        "feature": int(c.feature),
                        "name": str(c.name),
                        "op": c.op,
                        "threshold": None if c.threshold is None else float(c.threshold),
                        "codes": sorted(int(code) for code in c.codes),
                        "text": str(c.text),
                    }
                    for c in rule.conditions
                ],
                "class_index": int(rule.class_index),
                "covered": float(rule.covered),
                "errors": float(rule.errors),
                "accuracy": float(rule.accuracy),
                "leaf": int(rule.leaf),
                "distribution": _floats(rule.distribution),
            }
            for rule in estimator.rules_
        ],
    }


def save_model(estimator, path) -> Path:
    """Write ``estimator`` to ``path`` as a JSON model file; returns the path."""
    text = json.dumps(model_to_dict(estimator), ensure_ascii=False, allow_nan=False)
    return write_file(path, lambda out: out.write(text.encode("utf-8")))


def compact_categories(tree: Tree, schema: Schema) -> Tree:
    """``tree`` with a category table that holds only its subset splits' tables, in node
    order (pruning leaves the tables of removed splits behind)."""
    nodes = np.flatnonzero(tree.kind == SUBSET_SPLIT)
    n_categories = np.array([f.n_categories or 0 for f in schema.features], dtype=np.int64)
    sizes = table_sizes(tree.cat_table, tree.cat_start[nodes], n_categories[tree.feature[nodes]])
    cat_start = np.full(tree.node_count, -1, dtype=np.int32)
    cat_start[nodes] = np.cumsum(sizes) - sizes
    if sizes.sum() == len(tree.cat_table) and (cat_start == tree.cat_start).all():
        return tree
    starts = tree.cat_start[nodes].astype(np.int64)
    picked = np.repeat(starts - cat_start[nodes], sizes) + np.arange(sizes.sum())
    return replace(tree, cat_start=cat_start, cat_table=tree.cat_table[picked].astype(np.int32))


def converted_tables(a: dict, schema: Schema, tables: str) -> dict:
    """The arrays ``a`` of a tree read from an older file (checked by :func:`check_tree`
    with its ``tables``) with the category tables of today (``category_sets.py``): a full
    table per nominal split (version 3 and older) made the smaller of a bitset and a list,
    the multiway splits' tables dropped; a bare bitset (version 4) given its header. The
    tables are laid in node order from 0 (of stacked trees: of the whole stack)."""
    if tables == HEADED:
        return a
    subset = np.flatnonzero(a["kind"] == SUBSET_SPLIT)
    n_categories = np.array([f.n_categories or 0 for f in schema.features], dtype=np.int64)
    size = n_categories[a["feature"][subset]]
    start = a["cat_start"][subset].astype(np.int64)
    if tables == BITSETS:
        words = -(-size // WORD_BITS)
        new_start = np.cumsum(words + 1) - (words + 1)
        table = np.full(int((words + 1).sum()), BITSET, dtype=np.int32)
        within = np.arange(words.sum()) - np.repeat(np.cumsum(words) - words, words)
        table[np.repeat(new_start + 1, words) + within] = a["cat_table"][
            np.repeat(start, words) + within
        ]
    else:
        parts = [
            subset_table(a["cat_table"][lo : lo + n] == 1)
            for lo, n in zip(start.tolist(), size.tolist(), strict=True)
        ]
        lengths = np.array([len(p) for p in parts], dtype=np.int64)
        new_start = np.cumsum(lengths) - lengths
        table = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    cat_start = np.full(len(a["kind"]), -1, dtype=np.int32)
    cat_start[subset] = new_start
    return {**a, "cat_start": cat_start, "cat_table": table.astype(np.int32)}


# -- reading -------------------------------------------------------------------------------

# What a malformed document raises while it is read, should a check be missing: reported as
# a ModelError all the same.
_MALFORMED = (
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    OverflowError,
    RecursionError,
)


@functools.cache
def _validator(document: str):
    """The JSON Schema validator of a ``"model"`` or a ``"forest"`` document (jsonschema is
    imported here, when a file is loaded, not with quercus: it takes 65 ms)."""
    from jsonschema import Draft202012Validator

    text = resources.files(__package__).joinpath("schemas/model-files-v1.json").read_text()
    definitions = json.loads(text)["$defs"]
    return Draft202012Validator({"$ref": f"#/$defs/{document}", "$defs": definitions})


def field_name(path) -> str:
    """A JSON path as a field name: ``tree.children``, ``rules.rules[2].op``."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else f".{part}" if name else str(part)
    return name or "the document"


def check_document(doc, document: str) -> None:
    """A :class:`ModelError` naming the field when ``doc`` is not of the shape the JSON
    Schema gives a ``document`` ("model" or "forest")."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(document).iter_errors(doc))
    if error is None:
        return
    message = error.message
    if len(message) > 200:
        message = message[:150] + " ... " + message[-40:]
    raise ModelError(f"field {field_name(error.absolute_path)}: {message}")


def _parse_json(text: str, what: str):
    """``text`` as JSON, or a ModelError saying why not (``what``: the file, for messages)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{what} is not valid JSON (truncated or corrupt?): {exc}") from None
    except RecursionError:
        raise ModelError(f"{what} nests its JSON too deeply for a model file") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise ModelError(f"{what} holds a value no model file has: {exc}") from None


def read_model(path, classes: dict):
    """The estimator saved in the model file ``path`` by :func:`save_model`, built from
    ``classes`` (the allow-list: class name -> class).

    Raises :class:`ModelError`, with a message naming the file, when the file is missing or
    unreadable, not JSON (truncated or corrupt), of another format or version, or
    inconsistent.
    """
    path = Path(path)
    where = f"model file {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"{where} not found") from None
    except UnicodeDecodeError:
        raise ModelError(f"{where} is not UTF-8 text: not a quercus model") from None
    except OSError as exc:
        raise ModelError(f"{where} cannot be read: {exc.strerror or exc}") from None
    try:
        return model_from_document(_parse_json(text, where), classes)
    except ModelError as exc:
        message = str(exc)
        raise ModelError(message if message.startswith(where) else f"{where}: {message}") from None


def model_from_document(doc: dict, classes: dict):
    """The estimator described by a model document, built from ``classes`` (class name ->
    class), after checking it (:class:`ModelError` when it is not a quercus model of this
    format version, or is inconsistent)."""
    try:
        return _model_from_dict(doc, classes)
    except ModelError:
        raise
    except _MALFORMED as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(f"inconsistent contents: {detail}") from None


def check_format(doc, name: str, version: int, what: str, oldest: int | None = None) -> None:
    """The format name and version (from ``oldest`` to ``version``), checked first: a foreign
    or newer file is told so."""
    if not isinstance(doc, dict) or doc.get("format") != name:
        raise ModelError(f'not a quercus {what} (no "format": "{name}" entry)')
    found = doc.get("format_version")
    if type(found) is not int or not (oldest or version) <= found <= version:
        newer = type(found) is int and found > version
        writer = doc.get("quercus_version", "?")
        raise ModelError(
            f"format version {found!r} is not supported: this quercus reads "
            + (
                f"versions {oldest} to {version}"
                if oldest and oldest < version
                else f"version {version}"
            )
            + (
                f"; the file was written by a newer quercus ({str(writer)[:40]}): "
                "upgrade quercus to load it"
                if newer
                else ""
            )
        )


def _model_from_dict(doc: dict, classes: dict):
    check_format(doc, FORMAT, FORMAT_VERSION, "model", OLDEST_FORMAT_VERSION)
    check_document(doc, "model")
    estimator = estimator_from(doc, classes)
    cls, name = type(estimator), doc["estimator"]

    schema = _schema_from_dict(doc["schema"])
    training = doc["training"]
    n_features = training["n_features"]
    if n_features != len(schema.features):
        raise ModelError(
            f"field training.n_features: {n_features}, but the schema has "
            f"{len(schema.features)} features"
        )
    regression = doc["tree"]["regression"]
    if regression != bool(getattr(cls, "_regression", False)):
        raise ModelError(
            f"field tree.regression: a {'regression' if regression else 'classification'} "
            f"tree in a model of {name}"
        )
    n_classes = None
    if regression != ("classes" not in doc):
        raise ModelError(f"field classes: {'present in' if regression else 'missing from'} {name}")
    if not regression:
        estimator.classes_ = _classes_from_dict(doc["classes"])
        n_classes = estimator.classes_.shape[0]
        estimator.n_classes_ = n_classes
    linear = hasattr(cls, "_m5") or doc["params"].get("leaf_model") == "linear"
    terms = _terms_from_dict(doc, schema, linear) if "terms" in doc or linear else None
    n_terms = None if terms is None else terms.n_terms
    tables = tables_of(doc["format_version"], FULL_TABLES_VERSION, BITSETS_VERSION)
    tree = _tree_from_dict(doc["tree"], schema, n_classes, n_terms, tables)
    if terms is not None:
        estimator.terms_ = terms
    if tree.n_node_samples[0] != training["n_samples"]:
        raise ModelError("field training.n_samples: not the root's n_node_samples")
    if not math.isclose(tree.weighted_n_node_samples[0], training["sum_of_weights"]):
        raise ModelError("field training.sum_of_weights: not the root's weighted_n_node_samples")
    estimator.tree_ = tree
    estimator.schema_ = schema
    estimator.n_features_in_ = n_features
    if training["feature_names_in"] is not None:
        names = training["feature_names_in"]
        if names != schema.names:
            raise ModelError("field training.feature_names_in: not the schema's feature names")
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    fitted = doc["fitted"]
    if fitted.get("max_features_", 1) > n_features:
        raise ModelError("field fitted.max_features_: more than the number of features")
    for key, value in fitted.items():
        setattr(estimator, key, value)
    if ("rules" in doc) != bool(getattr(cls, "_has_rules", False)):
        raise ModelError(
            f"field rules: a model of {name} {'with' if 'rules' in doc else 'without'} rules"
        )
    if "rules" in doc:
        _rules_from_dict(estimator, doc["rules"], schema, n_classes)
    return estimator


def estimator_from(doc: dict, classes: dict):
    """A new estimator of the allow-listed class that ``doc["estimator"]`` names, built with
    ``doc["params"]`` (a :class:`ModelError` for an unknown class, or a parameter that the
    class does not have or whose value it does not take)."""
    name = doc["estimator"]
    if not isinstance(name, str) or name not in classes:
        raise ModelError(
            f"field estimator: unknown estimator {name!r}; expected one of {sorted(classes)}"
        )
    cls = classes[name]
    params = {str(key): _unplain(value) for key, value in doc["params"].items()}
    unknown = set(params) - set(cls._get_param_names())
    if unknown:
        raise ModelError(f"field params: {sorted(unknown)} are not parameters of {name}")
    estimator = cls(**params)
    try:
        check_params(estimator)
    except InvalidParameterError as exc:
        raise ModelError(f"field params.{exc.name}: {exc}") from None
    return estimator


def _is_label(value) -> bool:
    """A class label or category as a model file holds it: a string, integer, boolean or
    finite float."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int)  # bool is an int


def _classes_from_dict(doc: dict) -> np.ndarray:
    values = _unplain(doc["values"])
    if (
        not isinstance(values, list)
        or not values
        or not all(_is_label(v) for v in values)
        or len(set(values)) != len(values)
    ):
        raise ModelError("field classes.values: labels must be distinct finite values")
    dtype = _checked_dtype(doc["dtype"], values, "field classes.dtype")
    labels = np.empty(len(values), dtype=dtype)
    labels[:] = values
    if labels.tolist() != values:
        raise ModelError(f"field classes: the labels do not fit their dtype {doc['dtype']!r}")
    return labels


def _schema_from_dict(doc: dict) -> Schema:
    features = []
    for i, f in enumerate(doc["features"]):
        name, kind, categories = f["name"], f["kind"], f["categories"]
        where = f"field schema.features[{i}] ({name!r})"
        if (categories is None) != (kind == NUMERIC_KIND):
            raise ModelError(f"{where}: categories do not match its kind {kind}")
        if categories is not None:
            if not all(_is_label(c) for c in categories):
                raise ModelError(f"{where}: categories must be finite values")
            categories = tuple(categories)
            if len(set(categories)) != len(categories):
                raise ModelError(f"{where}: a category is repeated")
        features.append(Feature(name, kind, categories))
    names = [f.name for f in features]
    if len(set(names)) != len(names):
        raise ModelError(f"field schema.features: feature names repeat: {names}")
    return Schema(tuple(features), target=doc.get("target"))


def _ints(values, dtype, what: str) -> np.ndarray:
    """A JSON list of integers as an array of ``dtype``; anything else is a ModelError."""
    if not all(type(v) is int for v in values):
        raise ModelError(f"field tree.{what}: must be a list of integers")
    info = np.iinfo(dtype)
    if values and not info.min <= min(values) <= max(values) <= info.max:
        raise ModelError(f"field tree.{what}: a value out of range for {np.dtype(dtype)}")
    return np.asarray(values, dtype=dtype).reshape(-1)


def _floats_of(values, what: str) -> np.ndarray:
    """A JSON list of numbers (``null``: NaN) as float64; anything else is a ModelError."""
    if not isinstance(values, list) or not all(
        v is None or (type(v) in (int, float)) for v in values
    ):
        raise ModelError(f"field {what}: must be a list of numbers")
    try:
        return _unfloats(values)
    except OverflowError:  # an integer beyond float64
        raise ModelError(f"field {what}: a number out of range for float64") from None


def _terms_from_dict(doc: dict, schema: Schema, linear: bool):
    """The :class:`~quercus.tree.terms.TermEncoding` of a tree with linear leaves (field
    ``terms``; ``linear``: whether the estimator has them)."""
    from ..tree.terms import encoding_of

    if not linear or "terms" not in doc:
        raise ModelError(
            f"field terms: {'missing from' if 'terms' not in doc else 'present in'} a model of "
            f"{doc['estimator']}"
        )
    fill = _floats_of(doc["terms"]["fill"], "terms.fill")
    ranks = doc["terms"]["ranks"]
    if len(fill) != len(schema.features) or len(ranks) != len(schema.features):
        raise ModelError("field terms: not one fill value and one ranking per feature")
    checked = []
    for f, (feature, rank) in enumerate(zip(schema.features, ranks, strict=True)):
        where = f"field terms: feature {feature.name!r}"
        if (rank is None) != (feature.kind == NUMERIC_KIND):
            raise ModelError(f"{where}: a ranking must be given for categories only")
        if not math.isfinite(fill[f]):
            raise ModelError(f"{where}: its fill value is not finite")
        if rank is None:
            checked.append(None)
            continue
        k = feature.n_categories
        if sorted(rank) != list(range(k)) or not all(type(r) is int for r in rank):
            raise ModelError(f"{where}: the ranking is not one rank per category")
        if fill[f] != int(fill[f]) or not 0 <= fill[f] < k:
            raise ModelError(f"{where}: its fill value is not a category code")
        checked.append(np.asarray(rank, dtype=np.int64))
    return encoding_of(fill, tuple(checked), schema)


def _tree_from_dict(
    doc: dict,
    schema: Schema,
    n_classes: int | None,
    n_terms: int | None = None,
    tables: str = HEADED,
) -> Tree:
    n, regression = doc["n_nodes"], doc["regression"]
    arrays = {}
    for key, dtype in _NODE_ARRAYS.items():
        values = doc[key]
        if len(values) != n:
            raise ModelError(f"field tree.{key}: {len(values)} entries for {n} nodes")
        arrays[key] = (
            _floats_of(values, f"tree.{key}")
            if dtype is np.float64
            else (_ints(values, dtype, key))
        )
    for key, dtype in _FLAT_ARRAYS.items():
        arrays[key] = _ints(doc[key], dtype, key)
    n_stats = 3 if regression else n_classes
    rows = doc["value"]
    if len(rows) != n or not all(isinstance(r, list) and len(r) == n_stats for r in rows):
        raise ModelError(f"field tree.value: not {n} rows of {n_stats} numbers")
    value = _floats_of([v for row in rows for v in row], "tree.value").reshape(n, n_stats)
    median = None if doc["median"] is None else _floats_of(doc["median"], "tree.median")
    if median is not None and (
        not regression or median.shape != (n,) or not np.isfinite(median).all()
    ):
        raise ModelError("field tree.median: must be finite, one per node, in a regression tree")
    linear = _linear_of(doc.get("linear"), n, n_terms)
    try:
        check_tree(arrays, value, schema, regression, tables)
        oblique = _oblique_of(doc.get("oblique"), arrays, schema)
    except ModelError as exc:
        raise ModelError(f"field tree: {exc}") from None
    arrays = converted_tables(arrays, schema, tables)
    known = {f.name for f in fields(Tree)}
    tree = Tree(
        **{k: v for k, v in arrays.items() if k in known},
        value=value,
        **_leaf_fields(median, regression, linear),
        oblique=oblique,
        regression=regression,
        fractional=doc["fractional"],
    )
    return compact_categories(tree, schema)


def _oblique_of(field, a: dict, schema: Schema) -> np.ndarray | None:
    """The oblique splits' weights of a file's tree (``tree.oblique``), one row per oblique
    split in node order; None for a tree without oblique splits. Each oblique
    split weighs numeric features only, finite and not all zero, its ``feature`` among
    them, and the field names exactly the tree's oblique splits."""
    splits = np.flatnonzero(a["kind"] == OBLIQUE_SPLIT)
    if field is None:
        if len(splits):
            raise ModelError(f"node {splits[0]} is an oblique split without its weights")
        return None
    nodes, rows = field["nodes"], field["weights"]
    if nodes != splits.tolist() or len(rows) != len(nodes):
        raise ModelError("oblique: its nodes are not the tree's oblique splits")
    p = len(schema.features)
    if not all(isinstance(r, list) and len(r) == p for r in rows):
        raise ModelError(f"oblique: not one weight per feature ({p}) per split")
    weights = _floats_of([v for r in rows for v in r], "oblique.weights").reshape(-1, p)
    numeric = np.array([f.kind == NUMERIC_KIND for f in schema.features], dtype=bool)
    used = weights != 0
    own = used[np.arange(len(splits)), a["feature"][splits]] if len(splits) else used[:, 0]
    bad = ~np.isfinite(weights).all(axis=1) | (used & ~numeric).any(axis=1) | ~own
    if bad.any():
        node = int(splits[np.flatnonzero(bad)[0]])
        raise ModelError(
            f"node {node}: an oblique split's weights must be finite, on numeric features "
            "only, and weigh the feature it names"
        )
    return weights


def _linear_of(rows, n: int, n_terms: int | None) -> np.ndarray | None:
    """The linear leaf models of a model tree's file (``tree.linear``): per node, the
    coefficients of the terms, the intercept and the RMSE; None for other trees."""
    if (rows is None) != (n_terms is None):
        raise ModelError(
            "field tree.linear: "
            + ("missing from a model tree" if rows is None else "only for a model tree")
        )
    if rows is None:
        return None
    width = n_terms + 2
    if len(rows) != n or not all(isinstance(r, list) and len(r) == width for r in rows):
        raise ModelError(f"field tree.linear: not {n} rows of {width} numbers")
    out = _floats_of([v for row in rows for v in row], "tree.linear").reshape(n, width)
    if not np.isfinite(out).all() or (out[:, -1] < 0).any():
        raise ModelError("field tree.linear: the models must be finite, their errors >= 0")
    return out


class TreeBounds(NamedTuple):
    """Where each tree of stacked arrays starts (``tree/stack.py``): its first node, child
    slot and category word, and one past the last tree's (int64 arrays of n_trees + 1)."""

    node_offsets: np.ndarray
    child_offsets: np.ndarray
    cat_offsets: np.ndarray

    @classmethod
    def of_one_tree(cls, a: dict) -> TreeBounds:
        return cls(
            np.array([0, len(a["kind"])], dtype=np.int64),
            np.array([0, len(a["children"])], dtype=np.int64),
            np.array([0, len(a["cat_table"])], dtype=np.int64),
        )


class _NodeError(Exception):
    """A check failed at a node: the message says ``{node}`` where the node is named
    (``node 4``; in stacked trees ``node 4`` of its tree, after ``tree 2: ``)."""

    def __init__(self, node, message: str):
        super().__init__(message)
        self.node, self.message = int(node), message


def _check_statistics(a: dict, value: np.ndarray, regression: bool) -> None:
    """Weights and counts that are finite and not negative (a class weight below zero
    would make probabilities that are not probabilities)."""
    if not (np.isfinite(value).all() and np.isfinite(a["weighted_n_node_samples"]).all()):
        raise ModelError("the node statistics (value, weights) must be finite")
    weights = value[:, [0, 2]] if regression else value
    if (weights < 0).any() or (a["weighted_n_node_samples"] < 0).any():
        raise ModelError("a node has a negative weight or class count")
    if (a["n_node_samples"] < 0).any():
        raise ModelError("a node has a negative number of samples")
    if (a["impurity"] < 0).any():
        raise ModelError("a node has a negative impurity")
    # Prediction divides a node's class weights by their sum, a regression node's sum of
    # targets by its weight: finite values whose sum or mean is not finite (1e308 twice, a
    # weight of 5e-324) would give inf or NaN, with NumPy's overflow warning.
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if regression:
            weight = value[:, 0]
            scale = value[:, 1] / np.where(weight > 0, weight, 1.0)
        else:
            scale = value.sum(axis=1)
    bad = ~np.isfinite(scale)
    if bad.any():
        what = "mean target (value[1] / value[0])" if regression else "sum of class weights"
        raise _NodeError(
            np.flatnonzero(bad)[0], f"value of {{node}}: its {what} is beyond the range of float64"
        )


def check_tree(
    a: dict,
    value: np.ndarray,
    schema: Schema,
    regression: bool,
    tables: str = HEADED,
    bounds: TreeBounds | None = None,
) -> None:
    """Every node reachable once from the root, children after their parent, depths that
    count the steps from the root, splits that fit their features, every child slot used
    once, statistics that are weights: what prediction relies on to end and to index within
    bounds (the routing kernels do not check bounds). Vectorised: a forest's trees have
    millions of nodes. ``tables``: how the category tables are kept (:data:`HEADED`, or
    the :data:`BITSETS` of version 4, the :data:`FULL_TABLES` of version 3 and older).
    ``bounds``: the arrays are many trees laid end to end, their indexes pointing across
    them (``tree/stack.py``); each tree's nodes, slots and words must then lie within its
    own bounds."""
    one_tree = bounds is None
    bounds = TreeBounds.of_one_tree(a) if one_tree else bounds
    try:
        _check_nodes(a, value, schema, regression, tables, bounds)
    except _NodeError as exc:
        if one_tree:
            raise ModelError(exc.message.format(node=f"node {exc.node}")) from None
        tree, node = _node_name(exc.node, bounds).split(", ")
        raise ModelError(f"{tree}: " + exc.message.format(node=node)) from None


def _check_nodes(a, value, schema, regression: bool, tables: str, bounds: TreeBounds):
    n = len(a["kind"])
    kind = a["kind"]
    if not np.isin(kind, (LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT, OBLIQUE_SPLIT)).all():
        raise ModelError("a node has an unknown kind")
    _check_statistics(a, value, regression)
    leaves = kind == LEAF
    # Routing takes a node whose feature is -1 for a leaf, and export walks n_children.
    if (a["feature"][leaves] != -1).any() or (a["n_children"][leaves] != 0).any():
        raise ModelError("a leaf has a feature or children")
    roots = bounds.node_offsets[:-1]
    if (np.diff(bounds.node_offsets) <= 0).any() or bounds.node_offsets[-1] != n:
        raise ModelError("the trees' nodes do not cut the arrays into trees of one node or more")
    bad = a["depth"][roots] != 0
    if bad.any():
        raise _NodeError(roots[np.flatnonzero(bad)[0]], "the root ({node}) is not at depth 0")
    tree_of_node = np.repeat(np.arange(len(roots), dtype=np.int32), np.diff(bounds.node_offsets))

    def first_bad(mask, nodes) -> int:
        return int(nodes[np.flatnonzero(mask)[0]])

    nodes = np.flatnonzero(~leaves)
    tree = tree_of_node[nodes]
    f = a["feature"][nodes].astype(np.int64)
    first = a["child_start"][nodes].astype(np.int64)
    count = a["n_children"][nodes].astype(np.int64)
    children = a["children"]
    cat_table = np.asarray(a["cat_table"], dtype=np.int64)
    bad = (f < 0) | (f >= len(schema.features))
    if bad.any():
        node = first_bad(bad, nodes)
        raise _NodeError(node, f"{{node}} tests feature {a['feature'][node]}, which does not exist")
    slots = bounds.child_offsets
    bad = (count < 2) | (first < slots[tree]) | (first + count > slots[tree + 1])
    if bad.any():
        raise _NodeError(first_bad(bad, nodes), "{node} has children out of range")
    if count.sum() != len(children):
        # With one parent per node (below), the splits then use every slot exactly once.
        raise ModelError(
            f"children has {len(children)} entries, but the splits have {count.sum()} children"
        )
    offsets = np.cumsum(count) - count
    kids = children[np.repeat(first - offsets, count) + np.arange(count.sum())]
    parents = np.repeat(nodes.astype(np.int32), count)
    ends = np.repeat(bounds.node_offsets[1:][tree], count)  # each parent's tree's end
    bad = (kids <= parents) | (kids >= ends)
    del ends
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} has a child that is not a later node")
    # decision_path sizes its output by the largest depth.
    bad = a["depth"][kids] != a["depth"][parents] + 1
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} has a child whose depth is not one more than its own")
    del parents
    missing = a["missing_child"][nodes]
    bad = (missing < 0) | (missing >= count)
    if bad.any():
        raise _NodeError(first_bad(bad, nodes), "{node} sends missing values to no branch")
    nominal_feature = np.array([ft.kind == NOMINAL_KIND for ft in schema.features], dtype=bool)
    n_categories = np.array([ft.n_categories for ft in schema.features], dtype=np.int64)
    numeric = np.isin(kind[nodes], (NUMERIC_SPLIT, OBLIQUE_SPLIT))
    bad = numeric & ((count != 2) | ~np.isfinite(a["threshold"][nodes]) | nominal_feature[f])
    if bad.any():
        node = first_bad(bad, nodes)
        name = schema.features[a["feature"][node]].name
        raise _NodeError(node, f"{{node}} is a threshold split that does not fit {name!r}")
    categories = _CategorySplits(
        nodes[~numeric],
        f[~numeric],
        count[~numeric],
        kind[nodes[~numeric]] == MULTIWAY_SPLIT,
        bounds.cat_offsets[tree[~numeric]],
        bounds.cat_offsets[tree[~numeric] + 1],
    )
    bad = ~nominal_feature[categories.feature]
    if bad.any():
        node = first_bad(bad, categories.nodes)
        name = schema.features[a["feature"][node]].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r}, which is not nominal")
    check_categories = {
        FULL_TABLES: _check_full_tables,
        BITSETS: _check_bitsets,
        HEADED: _check_headed_tables,
    }[tables]
    check_categories(categories, a["cat_start"], cat_table, n_categories, schema)
    parents = np.bincount(kids, minlength=n)
    parents[roots] += 1  # a root has none: counted as one, as every other node must have
    if (parents != 1).any():
        raise ModelError("the nodes do not form " + ("one tree" if len(roots) == 1 else "trees"))


class _CategorySplits(NamedTuple):
    """The nominal splits of a tree being checked: their nodes, features, numbers of
    children and whether each is multiway, and the category words of their tree (from
    ``lo`` to before ``hi``)."""

    nodes: np.ndarray
    feature: np.ndarray
    count: np.ndarray
    multiway: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def _check_bitsets(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """A multiway split has a child per category of its feature (category ``c`` takes
    child ``c``) and no table; a subset split two children and its bitset within its
    tree's words of ``cat_table``."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    words = -(-size // WORD_BITS)
    bad = np.where(
        splits.multiway,
        (splits.count != size) | (start != -1),
        (splits.count != 2) | (start < splits.lo) | (start + words > splits.hi),
    )
    if bad.any():
        node = int(splits.nodes[np.flatnonzero(bad)[0]])
        name = schema.features[int(splits.feature[np.flatnonzero(bad)[0]])].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")


def _check_headed_tables(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """A multiway split has a child per category of its feature and no table; a subset
    split two children and its table within its tree's words of ``cat_table``: a header
    of -1 and a bitset, or a header ``2 m + side`` and ``m`` codes of its feature, in
    increasing order (the binary search of routing relies on it)."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    subset = ~splits.multiway

    def refuse(bad):
        at = np.flatnonzero(bad)[0]
        name = schema.features[int(splits.feature[at])].name
        node = int(splits.nodes[at])
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")

    bad = np.where(subset, splits.count != 2, (splits.count != size) | (start != -1))
    bad |= subset & ((start < splits.lo) | (start >= splits.hi))
    if bad.any():
        refuse(bad)
    header = np.full(len(start), BITSET, dtype=np.int64)
    header[subset] = cat_table[start[subset]]  # within the table: checked above
    listed = np.where(subset & (header >= 0), header >> 1, 0)
    words = np.where(header == BITSET, -(-size // WORD_BITS), listed)
    bad = subset & ((header < BITSET) | (listed > size) | (start + 1 + words > splits.hi))
    if bad.any():
        refuse(bad)
    first = np.cumsum(listed) - listed
    within = np.arange(listed.sum()) - np.repeat(first, listed)
    codes = cat_table[np.repeat(start + 1, listed) + within]
    bad = (codes < 0) | (codes >= np.repeat(size, listed))
    bad[1:] |= (within[1:] > 0) & (codes[1:] <= codes[:-1])
    if bad.any():
        node = int(np.repeat(splits.nodes, listed)[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} lists categories out of range or out of order")


def _check_full_tables(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """Format version 3 and older: each nominal split's table gives every category of its
    feature a branch; a multiway split's gives category ``c`` branch ``c`` (as every
    quercus wrote it: what the bitsets it is converted to can say)."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    bad = (start < splits.lo) | (start + size > splits.hi)
    bad |= np.where(splits.multiway, splits.count != size, splits.count != 2)
    if bad.any():
        node = int(splits.nodes[np.flatnonzero(bad)[0]])
        name = schema.features[int(splits.feature[np.flatnonzero(bad)[0]])].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")
    offsets = np.cumsum(size) - size
    entries = cat_table[np.repeat(start - offsets, size) + np.arange(size.sum())]
    code = np.arange(size.sum()) - np.repeat(offsets, size)
    bad = (entries < 0) | (entries >= np.repeat(splits.count, size))
    bad |= np.repeat(splits.multiway, size) & (entries != code)
    if bad.any():
        node = int(np.repeat(splits.nodes, size)[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} maps a category to no branch, or not to its own")


def _condition(c: dict, schema: Schema, where: str) -> Condition:
    f, op, threshold, codes = c["feature"], c["op"], c["threshold"], c["codes"]
    if f >= len(schema.features):
        raise ModelError(f"{where}.feature: feature {f} does not exist")
    if op in ("<=", ">"):
        if threshold is None or not math.isfinite(threshold) or codes:
            raise ModelError(f"{where}: a comparison needs a finite threshold and no codes")
    else:
        n_categories = schema.features[f].n_categories
        if threshold is not None or not codes or (op == "=" and len(codes) != 1):
            raise ModelError(f"{where}: a category test needs its codes and no threshold")
        if max(codes) >= n_categories:
            raise ModelError(f"{where}.codes: a category that does not exist")
    return Condition(
        f,
        c["name"],
        op,
        None if threshold is None else float(threshold),
        frozenset(codes),
        c["text"],
    )


def _rules_from_dict(estimator, doc: dict, schema: Schema, n_classes: int) -> None:
    from ..pruning.c45rules import Rule  # a rules model's file only (SciPy comes with it)

    rules = []
    for i, r in enumerate(doc["rules"]):
        where = f"field rules.rules[{i}]"
        conditions = tuple(
            _condition(c, schema, f"{where}.conditions[{j}]") for j, c in enumerate(r["conditions"])
        )
        k = r["class_index"]
        if k >= n_classes:
            raise ModelError(f"{where}.class_index: class {k} does not exist")
        distribution = _floats_of(r["distribution"], f"{where}.distribution")
        if distribution.shape != (n_classes,) or not (distribution >= 0).all():
            raise ModelError(f"{where}.distribution: not {n_classes} class weights")
        if r["errors"] > r["covered"] * (1 + 1e-9):
            raise ModelError(f"{where}.errors: more errors than covered cases")
        rules.append(
            Rule(
                conditions=conditions,
                class_index=k,
                label=estimator.classes_[k],
                covered=float(r["covered"]),
                errors=float(r["errors"]),
                accuracy=float(r["accuracy"]),
                leaf=r["leaf"],
                distribution=distribution,
            )
        )
    proba = doc["rule_proba"]
    if len(proba) != len(rules) + 1 or not all(len(row) == n_classes for row in proba):
        raise ModelError(f"field rules.rule_proba: not {len(rules) + 1} rows of {n_classes}")
    proba = _floats_of([p for row in proba for p in row], "rules.rule_proba")
    proba = proba.reshape(len(rules) + 1, n_classes)
    if not ((proba >= 0) & (proba <= 1)).all():
        raise ModelError("field rules.rule_proba: not probabilities")
    default = doc["default_class"]
    if default >= n_classes:
        raise ModelError(f"field rules.default_class: class {default} does not exist")
    estimator.rules_, estimator.default_class_, estimator.rule_proba_ = rules, default, proba
