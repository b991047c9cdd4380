"""Forest files: a zip of JSON metadata and NumPy arrays, read without pickle.

A forest of many deep trees holds millions of nodes: as JSON text it would be several
times larger and slower to read than as binary arrays. So a forest file is a zip archive
(stored, not compressed: the arrays are mostly small integers and floats that deflate
little for the time it costs) with

- ``forest.json``: format name and version, quercus version, date, estimator, parameters,
  schema, classes, training metadata, the trees' seeds, and the list of arrays;
- ``arrays/<name>.npy``: every tree's arrays laid end to end (``node_offsets``,
  ``child_offsets`` and ``cat_offsets`` give where each tree starts), read back with
  ``numpy.load(..., allow_pickle=False)``.

Loading checks the format and version, the arrays' dtypes and shapes, and every tree's
structure as a single-tree model file is checked (``model_file._check_structure``).
"""

from __future__ import annotations

import io
import json
import os
import secrets
import zipfile
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..tree import Tree
from .model_file import (
    _MALFORMED,
    _NODE_ARRAYS,
    ModelError,
    _check_structure,
    _classes_from_dict,
    _plain,
    _schema_from_dict,
    _schema_to_dict,
    estimator_from,
)

FORMAT = "quercus-forest"
FORMAT_VERSION = 1
_META = "forest.json"


def _forest_classes() -> dict:
    from .. import ensemble

    return {name: getattr(ensemble, name) for name in ensemble.__all__}


def save_forest(forest, path) -> Path:
    """Write a fitted random forest to ``path`` (written beside it, then renamed)."""
    from .. import __version__

    name = type(forest).__name__
    if _forest_classes().get(name) is not type(forest):
        raise TypeError(f"only quercus forests are saved as forest files, got {name}")
    check_is_fitted(forest, "estimators_")
    trees = [e.tree_ for e in forest.estimators_]
    arrays = {
        key: np.concatenate([getattr(t, key) for t in trees]).astype(dtype)
        for key, dtype in _NODE_ARRAYS.items()
    }
    arrays["value"] = np.concatenate([t.value for t in trees])
    arrays["children"] = np.concatenate([t.children for t in trees]).astype(np.int32)
    arrays["cat_table"] = np.concatenate([t.cat_table for t in trees]).astype(np.int32)
    if trees[0].median is not None:
        arrays["median"] = np.concatenate([t.median for t in trees])
    for key, sizes in (
        ("node_offsets", [t.node_count for t in trees]),
        ("child_offsets", [len(t.children) for t in trees]),
        ("cat_offsets", [len(t.cat_table) for t in trees]),
    ):
        arrays[key] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    params = {}
    for key, value in forest.get_params(deep=False).items():
        params[key] = None if isinstance(value, np.random.RandomState) else _plain(value, key)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "estimator": name,
        "params": params,
        "training": {
            "n_features": int(forest.n_features_in_),
            "feature_names_in": (
                [str(n) for n in forest.feature_names_in_]
                if hasattr(forest, "feature_names_in_")
                else None
            ),
            "n_trees": len(trees),
            "regression": bool(trees[0].regression),
            "fractional": bool(trees[0].fractional),
            "base_seed": int(forest._base_seed),
            "seeds": [int(s) for s in forest._seeds],
            "max_features": int(forest.estimators_[0].max_features_),
        },
        "schema": _schema_to_dict(forest.schema_),
        "arrays": {key: [str(a.dtype), list(a.shape)] for key, a in arrays.items()},
    }
    if hasattr(forest, "classes_"):
        meta["classes"] = {
            "dtype": forest.classes_.dtype.str if forest.classes_.dtype != object else "O",
            "values": _plain(forest.classes_.tolist(), "classes_"),
        }
    if hasattr(forest, "oob_score_"):
        meta["oob_score"] = float(forest.oob_score_)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with zipfile.ZipFile(tmp, "x", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(_META, json.dumps(meta, ensure_ascii=False, allow_nan=False))
            for key, array in arrays.items():
                buffer = io.BytesIO()
                np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
                archive.writestr(f"arrays/{key}.npy", buffer.getvalue())
        with open(tmp, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def is_forest_file(path) -> bool:
    """Whether ``path`` is a zip archive (a forest file, or nothing quercus reads)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def load_forest(path):
    """The forest saved in ``path`` by :func:`save_forest` (``quercus.load`` dispatches here
    for zip files). Raises :class:`ModelError` naming the file when it cannot be used."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read(_META).decode("utf-8"))
            arrays = _read_arrays(archive, meta)
        return _forest_from(meta, arrays)
    except ModelError as exc:
        raise ModelError(f"forest file {str(path)!r}: {exc}") from None
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, EOFError) as exc:
        raise ModelError(f"forest file {str(path)!r} is truncated or corrupt: {exc}") from None
    except OSError as exc:
        raise ModelError(f"forest file {str(path)!r} cannot be read: {exc}") from None
    except _MALFORMED as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(f"forest file {str(path)!r} is inconsistent: {detail}") from None


def _read_arrays(archive: zipfile.ZipFile, meta: dict) -> dict:
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelError(f'not a quercus forest (no "format": "{FORMAT}" entry)')
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelError(
            f"format version {meta.get('format_version')!r} is not supported: this quercus "
            f"reads version {FORMAT_VERSION}"
        )
    arrays = {}
    for key, (dtype, shape) in meta["arrays"].items():
        array = np.load(io.BytesIO(archive.read(f"arrays/{key}.npy")), allow_pickle=False)
        if str(array.dtype) != dtype or list(array.shape) != shape:
            raise ModelError(f"array {key!r} is not the {dtype} {shape} the metadata lists")
        arrays[key] = array
    return arrays


def _forest_from(meta: dict, arrays: dict):
    forest = estimator_from(meta, _forest_classes())
    cls, name = type(forest), meta["estimator"]
    schema = _schema_from_dict(meta["schema"])
    training = meta["training"]
    regression = training["regression"]
    if regression is not cls._regression:
        raise ModelError(f"a {'regression' if regression else 'classification'} forest in {name}")
    forest.schema_ = schema
    forest.n_features_in_ = int(training["n_features"])
    if forest.n_features_in_ != len(schema.features):
        raise ModelError("n_features does not match the schema")
    if training.get("feature_names_in") is not None:
        if training["feature_names_in"] != schema.names:
            raise ModelError("feature_names_in are not the schema's feature names")
        forest.feature_names_in_ = np.asarray(training["feature_names_in"], dtype=object)
    n_stats = 3
    if not regression:
        forest.classes_ = _classes_from_dict(meta["classes"])
        forest.n_classes_ = n_stats = len(forest.classes_)
    n_trees = int(training["n_trees"])
    offsets = {k: arrays[k] for k in ("node_offsets", "child_offsets", "cat_offsets")}
    for key, cut in (
        ("node_offsets", "kind"),
        ("child_offsets", "children"),
        ("cat_offsets", "cat_table"),
    ):
        off, total = offsets[key], len(arrays[cut])
        if len(off) != n_trees + 1 or off[0] != 0 or off[-1] != total or (np.diff(off) < 0).any():
            raise ModelError(f"{key} do not cut the arrays into {n_trees} trees")
    if arrays["value"].shape[1:] != (n_stats,):
        raise ModelError(f"values have {arrays['value'].shape[1:]} columns, expected {n_stats}")
    template = forest._tree_template()
    tree_fields = {f.name for f in fields(Tree)}
    estimators = []
    for t in range(n_trees):
        lo, hi = offsets["node_offsets"][t : t + 2]
        c_lo, c_hi = offsets["child_offsets"][t : t + 2]
        k_lo, k_hi = offsets["cat_offsets"][t : t + 2]
        part = {key: arrays[key][lo:hi] for key in _NODE_ARRAYS}
        part["children"] = arrays["children"][c_lo:c_hi]
        part["cat_table"] = arrays["cat_table"][k_lo:k_hi]
        value = arrays["value"][lo:hi]
        _check_structure(part, value, schema)
        tree = Tree(
            **{k: v for k, v in part.items() if k in tree_fields},
            value=value,
            median=arrays["median"][lo:hi] if "median" in arrays else None,
            regression=regression,
            fractional=bool(training["fractional"]),
        )
        estimators.append(forest._tree_estimator(template, tree, int(training["max_features"])))
    forest.estimators_ = estimators
    forest._seeds = [int(s) for s in training["seeds"]]
    forest._base_seed = int(training["base_seed"])
    if len(forest._seeds) != n_trees:
        raise ModelError("the seeds do not match the trees")
    if "oob_score" in meta:
        forest.oob_score_ = float(meta["oob_score"])
    forest._pack()
    return forest
