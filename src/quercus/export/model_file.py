"""Model files: a fitted tree estimator as versioned JSON, and back (never running code).

The layout is described in ``docs/model-format.md``. Loading checks the format name and
version, the shapes and ranges of the tree arrays and the schema, and rebuilds the
estimator from an allow-list of quercus classes: a file can describe a model, never make
Python do anything else. Writing goes to a temporary file that replaces the target only when
complete, so a failed save never leaves a truncated file or loses the old one.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import warnings
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from sklearn.exceptions import NotFittedError

from .._config import LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, SUBSET_SPLIT
from ..data.schema import NOMINAL, NUMERIC, ORDINAL, Feature, Schema
from ..tree import Tree
from ..tree.conditions import Condition

FORMAT = "quercus-model"
FORMAT_VERSION = 1

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


def _estimator_classes() -> dict:
    from .. import estimators

    return {name: getattr(estimators, name) for name in estimators.__all__}


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
            return np.asarray(_unplain(value["array"]), dtype=np.dtype(value["dtype"]))
        raise ValueError(f"unknown tagged value {sorted(value)}")
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _floats(array: np.ndarray) -> list:
    """Floats with NaN as null (JSON has no NaN); float64 values round-trip exactly."""
    return [None if math.isnan(v) else v for v in np.asarray(array, dtype=np.float64).tolist()]


def _unfloats(values) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


# -- writing -------------------------------------------------------------------------------


def model_to_dict(estimator) -> dict:
    """The JSON document of a fitted estimator (see ``docs/model-format.md``)."""
    from .. import __version__

    classes = _estimator_classes()
    name = type(estimator).__name__
    if classes.get(name) is not type(estimator):
        raise TypeError(f"only quercus tree estimators can be saved, got {name}")
    if not hasattr(estimator, "tree_"):
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
    tree = estimator.tree_
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
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
    out["median"] = None if tree.median is None else _floats(tree.median)
    return out


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
    path = Path(path)
    text = json.dumps(model_to_dict(estimator), ensure_ascii=False, allow_nan=False)
    # A new file beside the target ("x": never an existing one), created with the usual
    # permissions (0666 less the umask; tempfile.mkstemp would make it private, 0600).
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    out = open(tmp, "x", encoding="utf-8")  # outside the try: a name taken is not ours to remove
    try:
        with out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


# -- reading -------------------------------------------------------------------------------

# What a malformed document raises while it is read (a wrong type, a missing key, a value
# out of range for its dtype, nesting too deep): all reported as a ModelError.
_MALFORMED = (
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    OverflowError,
    RecursionError,
)


def load_model(path):
    """The estimator saved in ``path`` by :func:`save_model` (``quercus.load``).

    Raises :class:`ModelError`, with a message naming the file, when the file is missing or
    unreadable, not JSON (truncated or corrupt), of another format or version, or
    inconsistent.
    """
    path = Path(path)
    from .forest_file import is_forest_file, load_forest

    if is_forest_file(path):  # a zip archive: a forest's arrays
        return load_forest(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"model file {str(path)!r} not found") from None
    except UnicodeDecodeError:
        raise ModelError(
            f"model file {str(path)!r} is not UTF-8 text: not a quercus model"
        ) from None
    except OSError as exc:
        raise ModelError(f"model file {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ModelError(
            f"model file {str(path)!r} is not valid JSON (truncated or corrupt?): {exc}"
        ) from None
    try:
        return model_from_dict(doc)
    except ModelError as exc:
        raise ModelError(f"model file {str(path)!r}: {exc}") from None


def model_from_dict(doc: dict):
    """The estimator described by a model document, after checking it (:class:`ModelError`
    when it is not a quercus model of this format version, or is inconsistent)."""
    try:
        return _model_from_dict(doc)
    except ModelError:
        raise
    except _MALFORMED as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(f"inconsistent contents: {detail}") from None


def _model_from_dict(doc: dict):
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelError(f'not a quercus model (no "format": "{FORMAT}" entry)')
    version = doc.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        newer = type(version) is int and version > FORMAT_VERSION
        raise ModelError(
            f"format version {version!r} is not supported: this quercus "
            f"reads version {FORMAT_VERSION}"
            + (
                f"; the file was written by a newer quercus "
                f"({doc.get('quercus_version', '?')}): upgrade quercus to load it"
                if newer
                else ""
            )
        )
    estimator = estimator_from(doc, _estimator_classes())
    cls, name = type(estimator), doc["estimator"]

    schema = _schema_from_dict(doc["schema"])
    training = doc["training"]
    n_features = int(training["n_features"])
    if n_features != len(schema.features):
        raise ModelError(f"n_features {n_features} but the schema has {len(schema.features)}")
    regression = doc["tree"]["regression"]
    if not isinstance(regression, bool):
        raise ModelError(f"'regression' must be true or false, not {regression!r}")
    if regression != bool(getattr(cls, "_regression", False)):
        raise ModelError(
            f"a {'regression' if regression else 'classification'} tree in a model of {name}"
        )
    n_classes = None
    if not regression:
        estimator.classes_ = _classes_from_dict(doc["classes"])
        n_classes = estimator.classes_.shape[0]
        estimator.n_classes_ = n_classes
    tree = _tree_from_dict(doc["tree"], schema, n_classes)
    estimator.tree_ = tree
    estimator.schema_ = schema
    estimator.n_features_in_ = n_features
    if training.get("feature_names_in") is not None:
        names = training["feature_names_in"]
        if names != schema.names:
            raise ModelError(
                f"feature_names_in {names} are not the schema's feature names {schema.names}"
            )
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    for key, value in doc.get("fitted", {}).items():
        if key not in _SCALARS:
            raise ModelError(f"unknown fitted attribute {key!r}")
        setattr(estimator, key, _unplain(value))
    if ("rules" in doc) != hasattr(cls, "apply_rules"):
        raise ModelError(f"a model of {name} {'with' if 'rules' in doc else 'without'} rules")
    if "rules" in doc:
        _rules_from_dict(estimator, doc["rules"], schema, n_classes)
    return estimator


def estimator_from(doc: dict, classes: dict):
    """A new estimator of the allow-listed class that ``doc["estimator"]`` names, built with
    ``doc["params"]`` (a :class:`ModelError` for an unknown class or parameter)."""
    name = doc["estimator"]
    if not isinstance(name, str) or name not in classes:
        raise ModelError(f"unknown estimator {name!r}; expected one of {sorted(classes)}")
    cls = classes[name]
    params = {str(key): _unplain(value) for key, value in doc["params"].items()}
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        raise ModelError(f"parameters {sorted(unknown)} are not parameters of {name}")
    return cls(**params)


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
        raise ModelError("the class labels must be a non-empty list of distinct values")
    dtype = np.dtype(object) if doc["dtype"] == "O" else np.dtype(doc["dtype"])
    if dtype.kind not in "biufUO":
        raise ModelError(f"class labels of dtype {doc['dtype']!r}")
    labels = np.empty(len(values), dtype=dtype)
    labels[:] = values
    if labels.tolist() != values:
        raise ModelError(f"the class labels {values} do not fit their dtype {doc['dtype']!r}")
    return labels


def _schema_from_dict(doc: dict) -> Schema:
    features = []
    for f in doc["features"]:
        name, kind = f["name"], f["kind"]
        if not isinstance(name, str):
            raise ModelError(f"feature name {name!r} is not a string")
        if kind not in (NUMERIC, NOMINAL, ORDINAL):
            raise ModelError(f"feature {name!r} has an unknown kind {kind!r}")
        categories = f["categories"]
        if (categories is None) != (kind == NUMERIC):
            raise ModelError(f"feature {name!r}: categories do not match its kind {kind}")
        if categories is not None:
            categories = _unplain(categories)
            if not isinstance(categories, list) or not all(_is_label(c) for c in categories):
                raise ModelError(f"feature {name!r}: categories must be a list of values")
            categories = tuple(categories)
            if len(set(categories)) != len(categories):
                raise ModelError(f"feature {name!r} repeats a category")
        features.append(Feature(name, kind, categories))
    names = [f.name for f in features]
    if not features or len(set(names)) != len(names):
        raise ModelError(f"the feature names must be present and distinct: {names}")
    target = doc.get("target")
    return Schema(tuple(features), target=None if target is None else str(target))


def _ints(values, dtype, what: str) -> np.ndarray:
    """A JSON list of integers as an array of ``dtype``; anything else is a ModelError."""
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise ModelError(f"tree array {what!r} must be a list of integers")
    info = np.iinfo(dtype)
    if values and not info.min <= min(values) <= max(values) <= info.max:
        raise ModelError(f"tree array {what!r} has a value out of range for {np.dtype(dtype)}")
    return np.asarray(values, dtype=dtype).reshape(-1)


def _tree_from_dict(doc: dict, schema: Schema, n_classes: int | None) -> Tree:
    n = doc["n_nodes"]
    if type(n) is not int or n < 1:
        raise ModelError(f"the tree must have at least one node, n_nodes is {n!r}")
    arrays = {}
    for key, dtype in _NODE_ARRAYS.items():
        values = doc[key]
        if not isinstance(values, list) or len(values) != n:
            size = len(values) if isinstance(values, list) else "no list of"
            raise ModelError(f"tree array {key!r} has {size} entries for {n} nodes")
        arrays[key] = _unfloats(values) if dtype is np.float64 else _ints(values, dtype, key)
    for key, dtype in _FLAT_ARRAYS.items():
        arrays[key] = _ints(doc[key], dtype, key)
    regression = doc["regression"]
    value = np.asarray([_unfloats(row) for row in doc["value"]], dtype=np.float64)
    n_stats = 3 if regression else n_classes
    if value.shape != (n, n_stats):
        raise ModelError(f"tree values have shape {value.shape}, expected {(n, n_stats)}")
    median = None if doc["median"] is None else _unfloats(doc["median"])
    if median is not None and (
        not regression or median.shape != (n,) or not np.isfinite(median).all()
    ):
        raise ModelError("tree medians must be finite, one per node, in a regression tree")
    fractional = doc["fractional"]
    if not isinstance(fractional, bool):
        raise ModelError(f"'fractional' must be true or false, not {fractional!r}")
    _check_structure(arrays, value, schema)
    known = {f.name for f in fields(Tree)}
    return Tree(
        **{k: v for k, v in arrays.items() if k in known},
        value=value,
        median=median,
        regression=regression,
        fractional=fractional,
    )


def _check_structure(a: dict, value: np.ndarray, schema: Schema) -> None:
    """Every node reachable once from the root, children after their parent, depths that
    count the steps from the root, splits that fit their features: what prediction relies on
    to end and to index within bounds (the routing kernels do not check bounds). Vectorised:
    a forest's trees have millions of nodes."""
    n = len(a["kind"])
    kind = a["kind"]
    if not np.isin(kind, (LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT)).all():
        raise ModelError("a node has an unknown kind")
    if not (np.isfinite(value).all() and np.isfinite(a["weighted_n_node_samples"]).all()):
        raise ModelError("tree statistics must be finite")
    leaves = kind == LEAF
    # Routing takes a node whose feature is -1 for a leaf, and export walks n_children.
    if (a["feature"][leaves] != -1).any() or (a["n_children"][leaves] != 0).any():
        raise ModelError("a leaf has a feature or children")
    if a["depth"][0] != 0:
        raise ModelError("the root is not at depth 0")

    def first_bad(mask, nodes) -> int:
        return int(nodes[np.flatnonzero(mask)[0]])

    nodes = np.flatnonzero(~leaves)
    f = a["feature"][nodes].astype(np.int64)
    first = a["child_start"][nodes].astype(np.int64)
    count = a["n_children"][nodes].astype(np.int64)
    children, cat_table = a["children"].astype(np.int64), a["cat_table"].astype(np.int64)
    bad = (f < 0) | (f >= len(schema.features))
    if bad.any():
        node = first_bad(bad, nodes)
        raise ModelError(f"node {node} tests feature {a['feature'][node]}, which does not exist")
    bad = (count < 2) | (first < 0) | (first + count > len(children))
    if bad.any():
        raise ModelError(f"node {first_bad(bad, nodes)} has children out of range")
    offsets = np.cumsum(count) - count
    slots = np.repeat(first - offsets, count) + np.arange(count.sum())
    kids = children[slots]
    parents = np.repeat(nodes, count)
    bad = (kids <= parents) | (kids >= n)
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise ModelError(f"node {node} has a child that is not a later node")
    # decision_path sizes its output by the largest depth.
    bad = a["depth"][kids] != a["depth"][parents] + 1
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise ModelError(f"node {node} has a child whose depth is not one more than its own")
    missing = a["missing_child"][nodes]
    bad = (missing < 0) | (missing >= count)
    if bad.any():
        raise ModelError(f"node {first_bad(bad, nodes)} sends missing values to no branch")
    nominal_feature = np.array([ft.kind == NOMINAL for ft in schema.features], dtype=bool)
    n_categories = np.array([ft.n_categories for ft in schema.features], dtype=np.int64)
    numeric = kind[nodes] == NUMERIC_SPLIT
    bad = numeric & ((count != 2) | ~np.isfinite(a["threshold"][nodes]) | nominal_feature[f])
    if bad.any():
        node = first_bad(bad, nodes)
        name = schema.features[a["feature"][node]].name
        raise ModelError(f"node {node} is a threshold split that does not fit {name!r}")
    cat_nodes, cat_f, cat_count = nodes[~numeric], f[~numeric], count[~numeric]
    start = a["cat_start"][cat_nodes].astype(np.int64)
    size = n_categories[cat_f]
    bad = ~nominal_feature[cat_f] | (start < 0) | (start + size > len(cat_table))
    if bad.any():
        node = first_bad(bad, cat_nodes)
        name = schema.features[a["feature"][node]].name
        raise ModelError(f"node {node}: a category split on {name!r} out of range")
    cat_offsets = np.cumsum(size) - size
    entries = cat_table[np.repeat(start - cat_offsets, size) + np.arange(size.sum())]
    bad = (entries < 0) | (entries >= np.repeat(cat_count, size))
    if bad.any():
        node = int(np.repeat(cat_nodes, size)[np.flatnonzero(bad)[0]])
        raise ModelError(f"node {node} maps a category to no branch")
    parent_count = np.bincount(kids, minlength=n)
    if parent_count[0] != 0 or (parent_count[1:] != 1).any():
        raise ModelError("the nodes do not form one tree")


def _rules_from_dict(estimator, doc: dict, schema: Schema, n_classes: int) -> None:
    from ..pruning.rules import Rule

    rules = []
    for r in doc["rules"]:
        conditions = []
        for c in r["conditions"]:
            f, op, threshold, codes = c["feature"], c["op"], c["threshold"], c["codes"]
            if type(f) is not int or not 0 <= f < len(schema.features):
                raise ModelError(f"a rule has a condition on feature {f!r}, which does not exist")
            if op in ("<=", ">"):
                if not isinstance(threshold, int | float) or not math.isfinite(threshold):
                    raise ModelError(f"a rule compares with {threshold!r}, not a number")
            elif op in ("=", "in"):
                n_categories = schema.features[f].n_categories
                if not all(type(k) is int and 0 <= k < n_categories for k in codes):
                    raise ModelError("a rule tests a category that does not exist")
            else:
                raise ModelError(f"a rule has an unknown test {op!r}")
            conditions.append(
                Condition(
                    f,
                    str(c["name"]),
                    op,
                    None if threshold is None else float(threshold),
                    frozenset(int(x) for x in codes),
                    str(c["text"]),
                )
            )
        k = r["class_index"]
        if type(k) is not int or not 0 <= k < n_classes:
            raise ModelError("a rule predicts a class that does not exist")
        distribution = _unfloats(r["distribution"])
        if distribution.shape != (n_classes,):
            raise ModelError("a rule's class distribution does not match the classes")
        rules.append(
            Rule(
                conditions=tuple(conditions),
                class_index=k,
                label=estimator.classes_[k],
                covered=float(r["covered"]),
                errors=float(r["errors"]),
                accuracy=float(r["accuracy"]),
                leaf=int(r["leaf"]),
                distribution=distribution,
            )
        )
    proba = np.asarray([_unfloats(row) for row in doc["rule_proba"]], dtype=np.float64)
    if proba.shape != (len(rules) + 1, n_classes) or not np.isfinite(proba).all():
        raise ModelError("rule probabilities do not match the rules")
    default = doc["default_class"]
    if type(default) is not int or not 0 <= default < n_classes:
        raise ModelError("the default class does not exist")
    estimator.rules_, estimator.default_class_, estimator.rule_proba_ = rules, default, proba
