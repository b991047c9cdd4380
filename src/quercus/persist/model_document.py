"""A tree estimator's model document: the fitted estimator as JSON data, and back.

The layout is described in ``docs/model-format.md``. :func:`model_to_dict` makes the
document of a fitted tree estimator; :func:`model_from_document` checks a document (the
format name and version, then its shape against the JSON Schema
``schemas/model-files-v1.json``, then what a schema cannot say: the parameters' values, the
tree arrays, consistent with the features and classes, and the rules) and rebuilds the
estimator from an allow-list of quercus classes (:data:`MODEL_ESTIMATORS`): a file can
describe a model, never make Python do anything else.

The parts a forest file's document shares (schema, classes, parameters, values in JSON) are
in ``document``, the tree arrays' checks in ``checks``; ``model_file`` reads and writes the
document as a file. Like them, this module reads a fitted estimator's attributes and never
imports the estimators: the classes it builds are passed in by :mod:`quercus.persist.loader`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import fields

import numpy as np

from .._config import OBLIQUE_SPLIT
from .._version import __version__
from ..data.schema import NUMERIC_KIND, Schema
from ..tree import Tree, leaves
from ..tree.conditions import Condition
from .checks import check_statistics_finite, check_tree
from .document import (
    FLAT_ARRAYS,
    NODE_ARRAYS,
    check_document,
    check_format,
    class_name,
    classes_from_dict,
    classes_to_dict,
    creation_time,
    estimator_from,
    floats_from_json,
    floats_to_json,
    leaf_fields,
    plain,
    schema_from_dict,
    schema_to_dict,
)
from .errors import MALFORMED, ModelError
from .tables import HEADED, compact_categories, converted_tables, tables_of

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
# Fitted attributes besides the tree, schema and classes, kept when the estimator has them.
_SCALARS = ("max_features_", "ccp_alpha_")


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
        params[key] = plain(value, f"parameter {key}")
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
        "schema": schema_to_dict(estimator.schema_),
        "tree": _tree_to_dict(tree),
        "fitted": {
            key: plain(getattr(estimator, key), key) for key in _SCALARS if hasattr(estimator, key)
        },
    }
    if hasattr(estimator, "classes_"):
        doc["classes"] = classes_to_dict(estimator.classes_)
    if hasattr(estimator, "rules_"):
        doc["rules"] = _rules_to_dict(estimator)
    if hasattr(estimator, "terms_"):
        doc["terms"] = {
            "fill": floats_to_json(estimator.terms_.fill),
            "ranks": [None if r is None else r.tolist() for r in estimator.terms_.ranks],
        }
    return doc


def _tree_to_dict(tree: Tree) -> dict:
    out = {
        "n_nodes": tree.node_count,
        "regression": bool(tree.regression),
        "fractional": bool(tree.fractional),
    }
    for key, dtype in NODE_ARRAYS.items():
        array = getattr(tree, key)
        out[key] = floats_to_json(array) if dtype is np.float64 else array.astype(np.int64).tolist()
    for key in FLAT_ARRAYS:
        out[key] = getattr(tree, key).astype(np.int64).tolist()
    out["value"] = [floats_to_json(row) for row in tree.value]
    out["median"] = None  # the leaf model's parameters, when it has any (tree/leaves.py)
    for key, params in leaves.to_file(tree.leaf_model, tree.leaf_params).items():
        out[key] = (
            floats_to_json(params) if params.ndim == 1 else [floats_to_json(row) for row in params]
        )
    if tree.oblique is not None:
        out["oblique"] = {
            "nodes": np.flatnonzero(tree.kind == OBLIQUE_SPLIT).tolist(),
            "weights": [floats_to_json(row) for row in tree.oblique],
        }
    return out


def _rules_to_dict(estimator) -> dict:
    return {
        "default_class": int(estimator.default_class_),
        "rule_proba": [floats_to_json(row) for row in estimator.rule_proba_],
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
                "distribution": floats_to_json(rule.distribution),
            }
            for rule in estimator.rules_
        ],
    }


# -- reading -------------------------------------------------------------------------------


def model_from_document(doc: dict, classes: dict):
    """The estimator described by a model document, built from ``classes`` (class name ->
    class), after checking it (:class:`ModelError` when it is not a quercus model of this
    format version, or is inconsistent)."""
    try:
        return _model_from_dict(doc, classes)
    except ModelError:
        raise
    except MALFORMED as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(f"inconsistent contents: {detail}") from None


def _model_from_dict(doc: dict, classes: dict):
    check_format(doc, FORMAT, FORMAT_VERSION, "model", OLDEST_FORMAT_VERSION)
    check_document(doc, "model")
    estimator = estimator_from(doc, classes)
    cls, name = type(estimator), doc["estimator"]

    schema = schema_from_dict(doc["schema"])
    training = doc["training"]
    n_features = training["n_features"]
    if n_features != len(schema.features):
        raise ModelError(
            f"field training.n_features: {n_features}, but the schema has "
            f"{len(schema.features)} features"
        )
    regression = doc["tree"]["regression"]
    if regression != bool(getattr(cls, "regression", False)):
        raise ModelError(
            f"field tree.regression: a {'regression' if regression else 'classification'} "
            f"tree in a model of {name}"
        )
    n_classes = None
    if regression != ("classes" not in doc):
        raise ModelError(f"field classes: {'present in' if regression else 'missing from'} {name}")
    if not regression:
        estimator.classes_ = classes_from_dict(doc["classes"])
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


def _terms_from_dict(doc: dict, schema: Schema, linear: bool):
    """The :class:`~quercus.tree.terms.TermEncoding` of a tree with linear leaves (field
    ``terms``; ``linear``: whether the estimator has them)."""
    from ..tree.terms import encoding_of

    if not linear or "terms" not in doc:
        raise ModelError(
            f"field terms: {'missing from' if 'terms' not in doc else 'present in'} a model of "
            f"{doc['estimator']}"
        )
    fill = floats_from_json(doc["terms"]["fill"], "terms.fill")
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
    for key, dtype in NODE_ARRAYS.items():
        values = doc[key]
        if len(values) != n:
            raise ModelError(f"field tree.{key}: {len(values)} entries for {n} nodes")
        arrays[key] = (
            floats_from_json(values, f"tree.{key}")
            if dtype is np.float64
            else (_ints(values, dtype, key))
        )
    for key, dtype in FLAT_ARRAYS.items():
        arrays[key] = _ints(doc[key], dtype, key)
    n_stats = 3 if regression else n_classes
    rows = doc["value"]
    if len(rows) != n or not all(isinstance(r, list) and len(r) == n_stats for r in rows):
        raise ModelError(f"field tree.value: not {n} rows of {n_stats} numbers")
    value = floats_from_json([v for row in rows for v in row], "tree.value").reshape(n, n_stats)
    median = None if doc["median"] is None else floats_from_json(doc["median"], "tree.median")
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
        **leaf_fields(median, regression, linear),
        oblique=oblique,
        regression=regression,
        fractional=doc["fractional"],
    )
    return compact_categories(tree, schema)


def _ints(values, dtype, what: str) -> np.ndarray:
    """A JSON list of integers as an array of ``dtype``; anything else is a ModelError."""
    if not all(type(v) is int for v in values):
        raise ModelError(f"field tree.{what}: must be a list of integers")
    info = np.iinfo(dtype)
    if values and not info.min <= min(values) <= max(values) <= info.max:
        raise ModelError(f"field tree.{what}: a value out of range for {np.dtype(dtype)}")
    return np.asarray(values, dtype=dtype).reshape(-1)


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
    weights = floats_from_json([v for r in rows for v in r], "oblique.weights").reshape(-1, p)
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
    out = floats_from_json([v for row in rows for v in row], "tree.linear").reshape(n, width)
    if not np.isfinite(out).all() or (out[:, -1] < 0).any():
        raise ModelError("field tree.linear: the models must be finite, their errors >= 0")
    return out


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
        distribution = floats_from_json(r["distribution"], f"{where}.distribution")
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
    proba = floats_from_json([p for row in proba for p in row], "rules.rule_proba")
    proba = proba.reshape(len(rules) + 1, n_classes)
    if not ((proba >= 0) & (proba <= 1)).all():
        raise ModelError("field rules.rule_proba: not probabilities")
    default = doc["default_class"]
    if default >= n_classes:
        raise ModelError(f"field rules.default_class: class {default} does not exist")
    estimator.rules_, estimator.default_class_, estimator.rule_proba_ = rules, default, proba
