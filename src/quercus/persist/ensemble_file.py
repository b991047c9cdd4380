"""Ensemble files: many trees (a forest's, a booster's) as a zip of JSON metadata and NumPy
arrays, read without pickle.

An ensemble of many deep trees holds millions of nodes: as JSON text it would be several
times larger and slower to read than as binary arrays. So an ensemble file is a zip archive
(stored, not compressed: the arrays are mostly small integers and floats that deflate
little for the time it costs) with

- ``ensemble.json``: format name and version, quercus version, date, estimator,
  parameters, schema, classes, training metadata, the ensemble's own fields (a forest's
  seeds; :class:`EnsembleKind`), and the list of arrays;
- ``arrays/<name>.npy``: every tree's arrays laid end to end (``node_offsets``,
  ``child_offsets`` and ``cat_offsets`` give where each tree starts) and each tree's
  weight in the ensemble (``tree_weights``), read back without pickle and without
  evaluating their headers (compared as text with the header NumPy writes for the dtype
  and shape that ``ensemble.json`` gives).

Files of the forest format that came before (``quercus-forest``, versions 1 to 3: the same
archive with ``forest.json``, the forest's fields in its ``training``, no tree weights)
load as they are.

Loading never allocates more than the checked metadata announces, and the metadata
cannot announce more than the file holds: every entry must be stored (a compressed entry
could inflate a small file into gigabytes), the entries must be exactly the metadata and the
arrays it lists, each array's dtype is the one its name calls for and its shape agrees
with the others', and each entry's size is its ``.npy`` header plus exactly those bytes,
which the header must confirm before any data is read. Then every tree is checked as a
single-tree model file is (``checks.check_tree``).

Like ``model_document``, this module reads a fitted ensemble's attributes and never imports
the ensembles: :mod:`quercus.persist.loader` passes in the classes it may build and their
:class:`EnsembleKind` (``forest_file.FOREST``).

The same ensemble gives the same bytes, but for the ``created`` date (``SOURCE_DATE_EPOCH``
fixes it): the archive's entries carry a fixed time and fixed attributes.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import struct
import zipfile
from collections.abc import Callable
from dataclasses import fields, replace
from typing import NamedTuple

import numpy as np

from .._config import LEAF, SUBSET_SPLIT
from .._files import write_file
from .._version import __version__
from ..tree import Tree, leaves
from ..tree.arrays import PER_NODE
from ..tree.stack import TreeStack, make_global
from .checks import TreeBounds, check_statistics_finite, check_tree
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
    leaf_fields,
    parse_json,
    plain,
    schema_from_dict,
    schema_to_dict,
)
from .errors import MALFORMED, ModelError
from .tables import HEADED, compact_categories, converted_tables, tables_of

FORMAT = "quercus-ensemble"
FORMAT_VERSION = 1
#: The archive's entry of the metadata document (the arrays are ``arrays/<name>.npy``).
META_ENTRY = "ensemble.json"
#: The forest files before the ensemble format: the same archive, read as they are.
FOREST_FORMAT = "quercus-forest"
# 2: subset splits keep bitsets, multiway splits no table; 3: a subset split's table is a
# header and a bitset or a list of codes (``splitting/category_sets.py``).
FOREST_FORMAT_VERSION = 3
#: The last forest format version whose trees keep a branch number for every category of
#: every nominal split (converted as they are read).
FULL_TABLES_VERSION = 1
#: The last forest format version whose subset splits keep a bare bitset (given headers).
BITSETS_VERSION = 2
#: The metadata entry of a forest file.
FOREST_META_ENTRY = "forest.json"
_OFFSETS = {"node_offsets": "kind", "child_offsets": "children", "cat_offsets": "cat_table"}
#: The optional arrays of a one-parameter leaf model (at most one of them).
_LEAF_PARAMS = ("median", "step")
# Every array an ensemble file may hold, with the one dtype it must have: the tree's arrays
# as a model file keeps them (``document.NODE_ARRAYS``, ``value``, ``median`` or ``step``
# for the ``leaf_params`` of median or step leaves, ``document.FLAT_ARRAYS``), then where
# each tree starts, and each tree's weight.
_DTYPES = {
    key: np.dtype(dtype)
    for key, dtype in {
        **NODE_ARRAYS,
        "value": PER_NODE["value"],
        "median": PER_NODE["leaf_params"],
        "step": PER_NODE["leaf_params"],
        **FLAT_ARRAYS,
        **dict.fromkeys(_OFFSETS, np.int64),
        "tree_weights": np.float64,
    }.items()
}
_MAX_META_BYTES = 64 << 20  # the metadata of a million trees' seeds is about 20 MB
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry
_MAX_NPY_HEADER = 4096  # NumPy writes quercus's .npy headers in 118 bytes


class EnsembleKind(NamedTuple):
    """What an ensemble's file holds of its own, besides its trees: ``estimators``, the class
    names of the kind (the public names of their module); ``fields(model)``, its fields of
    ``ensemble.json`` (plain JSON values); ``tree_weights(model)``, each tree's weight;
    ``restore(model, fields, weights)``, which checks the fields read (a
    :class:`ModelError` naming the one at fault) and sets the attributes they give. The
    JSON Schema's ``ensemble_fields`` lists each kind's fields."""

    estimators: tuple[str, ...]
    fields: Callable[[object], dict]
    tree_weights: Callable[[object], np.ndarray]
    restore: Callable[[object, dict, np.ndarray], None]
    #: The trees' task when it is not the estimator's (a booster of classes grows
    #: regression trees on its working targets); None: the estimator's.
    regression_trees: bool | None = None


# -- writing -------------------------------------------------------------------------------


def save_ensemble(model, path, kind: EnsembleKind):
    """Write the fitted ensemble ``model`` of ``kind`` to ``path`` (written beside it, then
    renamed)."""
    class_name(model, kind.estimators, "quercus.ensemble", "ensembles")
    meta, arrays = ensemble_to_dict(model, kind)
    text = json.dumps(meta, ensure_ascii=False, allow_nan=False)
    return write_file(path, lambda out: _write_archive(out, text, arrays))


def ensemble_to_dict(model, kind: EnsembleKind) -> tuple[dict, dict]:
    """The metadata document and the arrays of ``model``'s file."""
    trees = _compact_categories(model.trees_, model.schema_)
    merged = trees.merged
    check_statistics_finite(merged, bounds=_bounds(trees))
    arrays = {
        key: getattr(merged, key).astype(dtype)
        for key, dtype in _DTYPES.items()
        if key not in _OFFSETS and key not in (*_LEAF_PARAMS, "tree_weights")
    }
    arrays |= trees.local_indexes()
    for key, values in leaves.to_file(merged.leaf_model, merged.leaf_params).items():
        arrays[key] = values.astype(_DTYPES[key])
    arrays |= {key: getattr(trees, key).astype(np.int64) for key in _OFFSETS}
    arrays["tree_weights"] = np.asarray(kind.tree_weights(model), dtype=np.float64)
    params = {}
    for key, value in model.get_params(deep=False).items():
        params[key] = None if isinstance(value, np.random.RandomState) else plain(value, key)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "quercus_version": __version__,
        "created": creation_time().isoformat(timespec="seconds"),
        "estimator": type(model).__name__,
        "params": params,
        "training": {
            "n_features": int(model.n_features_in_),
            "feature_names_in": (
                [str(n) for n in model.feature_names_in_]
                if hasattr(model, "feature_names_in_")
                else None
            ),
            "n_trees": len(trees),
            "regression": bool(merged.regression),
            "fractional": bool(merged.fractional),
        },
        "ensemble": kind.fields(model),
        "schema": schema_to_dict(model.schema_),
        "arrays": {key: [str(a.dtype), list(a.shape)] for key, a in arrays.items()},
    }
    if hasattr(model, "classes_"):
        meta["classes"] = classes_to_dict(model.classes_)
    return meta, arrays


def _bounds(trees: TreeStack) -> TreeBounds:
    return TreeBounds(trees.node_offsets, trees.child_offsets, trees.cat_offsets)


def _compact_categories(trees: TreeStack, schema) -> TreeStack:
    """``trees`` with a category table that holds only their subset splits' tables, in
    node order (:func:`~quercus.persist.tables.compact_categories` of the stack's nodes,
    each tree's words counted again)."""
    merged = compact_categories(trees.merged, schema)
    if merged is trees.merged:
        return trees
    cat_offsets = _word_offsets(merged, trees.node_offsets)
    return replace(trees, merged=merged, cat_offsets=cat_offsets)


def _word_offsets(a, node_offsets: np.ndarray) -> np.ndarray:
    """Where each tree's category words start (and the last one ends), of trees whose
    arrays ``a`` (a Tree, or a dict of its arrays) lay the subset splits' tables end to end
    in node order from word 0; ``node_offsets``: where each tree's nodes start."""
    kind, cat_start, table = (a[k] if isinstance(a, dict) else getattr(a, k) for k in _TABLE)
    nodes = np.flatnonzero(kind == SUBSET_SPLIT)
    sizes = np.diff(np.append(cat_start[nodes], len(table)))
    tree = np.searchsorted(node_offsets, nodes, side="right") - 1
    words = np.bincount(tree, weights=sizes, minlength=len(node_offsets) - 1)
    return np.concatenate([[0], np.cumsum(words)]).astype(np.int64)


_TABLE = ("kind", "cat_start", "cat_table")


def _write_archive(out, text: str, arrays: dict) -> None:
    def entry(name: str) -> zipfile.ZipInfo:
        # A fixed time: the date is forest.json's "created", the one field that may differ.
        info = zipfile.ZipInfo(name, date_time=_ZIP_EPOCH)
        info.compress_type = zipfile.ZIP_STORED
        info.create_system = 3  # Unix, whichever system writes it
        info.external_attr = 0o644 << 16
        return info

    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(entry(META_ENTRY), text.encode("utf-8"))
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            archive.writestr(entry(f"arrays/{key}.npy"), buffer.getbuffer())


# -- reading -------------------------------------------------------------------------------


def is_ensemble_file(path) -> bool:
    """Whether ``path`` is a zip archive (an ensemble file, or nothing quercus reads)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def read_ensemble(path, classes: dict, kinds: dict):
    """The ensemble saved in ``path`` by :func:`save_ensemble` (or a forest file of the
    format before), built from ``classes`` (the allow-list: class name -> class; its kind
    in ``kinds``; ``quercus.load`` dispatches here for zip files). Raises
    :class:`ModelError` naming the file when it cannot be used."""
    where = f"ensemble file {str(path)!r}"
    try:
        size = os.stat(path).st_size
        with zipfile.ZipFile(path) as archive:
            entries = _check_entries(archive, size)
            meta, tables = _read_meta(archive, entries, where)
            arrays = _read_arrays(archive, entries, _array_specs(meta, entries))
        if "tree_weights" not in arrays:  # a forest file: its trees are averaged
            arrays["tree_weights"] = np.ones(meta["training"]["n_trees"])
        return _ensemble_from(meta, arrays, classes, kinds, tables)
    except ModelError as exc:
        message = str(exc)
        raise ModelError(message if message.startswith(where) else f"{where}: {message}") from None
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"{where} is truncated or corrupt: {exc}") from None
    except NotImplementedError as exc:  # zipfile: a zip version or method it cannot read
        raise ModelError(f"{where} is corrupt or not written by quercus: {exc}") from None
    except OSError as exc:
        if exc.errno == errno.EINVAL:  # zipfile seeking to an offset the file cannot have
            raise ModelError(f"{where} is truncated or corrupt: bad offsets") from None
        raise ModelError(f"{where} cannot be read: {exc.strerror or exc}") from None
    except MALFORMED as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(f"{where} is inconsistent: {detail}") from None


def metadata_entry(names) -> str:
    """The metadata entry among the archive's entry ``names``: ``ensemble.json``, or a
    forest file's ``forest.json``."""
    return FOREST_META_ENTRY if FOREST_META_ENTRY in names else META_ENTRY


def _check_entries(archive: zipfile.ZipFile, size: int) -> dict:
    """The archive's entries by name, each stored as it is (never compressed, never
    encrypted) and all of them together within the file's size."""
    infos = archive.infolist()
    if len(infos) > len(_DTYPES) + 1:
        raise ModelError(f"{len(infos)} entries: more than an ensemble file has")
    entries = {info.filename: info for info in infos}
    if len(entries) != len(infos):
        raise ModelError("an entry name appears twice")
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise ModelError(f"entry {info.filename!r} is compressed; quercus writes none")
        if info.flag_bits & 0x1:
            raise ModelError(f"entry {info.filename!r} is encrypted")
    if sum(info.compress_size for info in infos) > size:
        raise ModelError("its entries claim more bytes than the file has")
    if META_ENTRY not in entries and FOREST_META_ENTRY not in entries:
        raise ModelError(f"no {META_ENTRY} entry: not a quercus ensemble")
    return entries


def _read_meta(archive: zipfile.ZipFile, entries: dict, where: str) -> tuple[dict, str]:
    """The metadata document, checked, in the ensemble format's layout (a forest file's
    converted), and how its trees keep their category tables."""
    entry = metadata_entry(entries)
    if entries[entry].file_size > _MAX_META_BYTES:
        raise ModelError(f"{entry} is larger than any ensemble's metadata")
    try:
        text = archive.read(entry).decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError(f"{entry} is not UTF-8 text") from None
    meta = parse_json(text, f"{where} ({entry})")
    if entry == META_ENTRY:
        check_format(meta, FORMAT, FORMAT_VERSION, "ensemble", 1)
        check_document(meta, "ensemble")
        return meta, HEADED
    check_format(meta, FOREST_FORMAT, FOREST_FORMAT_VERSION, "forest", 1)
    check_document(meta, "forest")
    tables = tables_of(meta["format_version"], FULL_TABLES_VERSION, BITSETS_VERSION)
    return _forest_as_ensemble(meta), tables


def _forest_as_ensemble(meta: dict) -> dict:
    """A forest file's metadata in the ensemble format's layout: the forest's own fields
    (seeds, ``max_features``, the out-of-bag score) under ``ensemble``."""
    training = dict(meta["training"])
    fields = {key: training.pop(key) for key in ("base_seed", "seeds", "max_features")}
    meta = dict(meta)
    if "oob_score" in meta:
        fields["oob_score"] = meta.pop("oob_score")
    return {**meta, "training": training, "ensemble": fields}


def _array_specs(meta: dict, entries: dict) -> dict:
    """Each array's dtype and shape from the metadata, checked against each other and
    against the archive's entries before anything is read."""
    listed = meta["arrays"]
    required = set(_DTYPES) - set(_LEAF_PARAMS)
    if len(set(listed) & set(_LEAF_PARAMS)) > 1:
        raise ModelError(f"field arrays: more than one of {list(_LEAF_PARAMS)}")
    entry = metadata_entry(entries)
    if entry == FOREST_META_ENTRY:
        required.discard("tree_weights")
    if not required <= set(listed):
        raise ModelError(f"field arrays: missing {sorted(required - set(listed))}")
    names = {entry} | {f"arrays/{key}.npy" for key in listed}
    if set(entries) != names:
        odd = sorted(set(entries) ^ names)
        raise ModelError(f"the entries {odd} do not match the arrays {entry} lists")
    specs = {}
    for key, (dtype, shape) in listed.items():
        if dtype != str(_DTYPES[key]):
            raise ModelError(f"field arrays.{key}: dtype {dtype!r}, expected {_DTYPES[key]}")
        specs[key] = (_DTYPES[key], tuple(shape))
    n_nodes = specs["kind"][1]
    training = meta["training"]
    n_stats = 3 if training["regression"] else len(meta.get("classes", {}).get("values", []))
    n_trees = training["n_trees"]
    expected = {key: n_nodes for key in NODE_ARRAYS}
    expected |= {key: (n_trees + 1,) for key in _OFFSETS}
    expected |= {"value": (*n_nodes, n_stats), "tree_weights": (n_trees,)}
    expected |= dict.fromkeys(_LEAF_PARAMS, n_nodes)
    expected |= {"children": specs["children"][1][:1], "cat_table": specs["cat_table"][1][:1]}
    for key, (_, shape) in specs.items():
        if shape != expected[key] or len(shape) != (2 if key == "value" else 1):
            raise ModelError(f"field arrays.{key}: shape {list(shape)}, expected {expected[key]}")
    return specs


def _read_arrays(archive: zipfile.ZipFile, entries: dict, specs: dict) -> dict:
    return {
        key: _read_array(archive, entries[f"arrays/{key}.npy"], dtype, shape)
        for key, (dtype, shape) in specs.items()
    }


def _read_array(archive, info: zipfile.ZipInfo, dtype: np.dtype, shape: tuple) -> np.ndarray:
    """One ``.npy`` entry, its header checked against the metadata before its data are read
    into a buffer of exactly the announced size."""
    where = f"entry {info.filename!r}"
    nbytes = math.prod(shape) * dtype.itemsize
    with archive.open(info) as member:
        _check_npy_header(member, where, dtype, shape)
        if info.file_size != member.tell() + nbytes:
            raise ModelError(f"{where}: {info.file_size} bytes for {nbytes} bytes of data")
        buffer = bytearray(nbytes)
        view, filled = memoryview(buffer), 0
        while filled < nbytes:
            got = member.readinto(view[filled:])
            if not got:
                raise ModelError(f"{where} is truncated")
            filled += got
    return np.frombuffer(buffer, dtype=dtype).reshape(shape)


def _check_npy_header(member, where: str, dtype: np.dtype, shape: tuple) -> None:
    """Read the header of a ``.npy`` entry (version 1.0 or 2.0) and check that it is the one
    NumPy writes for ``dtype`` and ``shape``, padding aside.

    The header is compared as text, never evaluated: NumPy's reader evaluates it as a Python
    literal, which on damaged text can warn (a compiler warning, or NumPy's own when it
    retries the text as a header written by Python 2) or raise ``tokenize.TokenError``."""
    magic = member.read(8)
    if magic[:6] != b"\x93NUMPY" or len(magic) != 8:
        raise ModelError(f"{where}: not a .npy array")
    version = (magic[6], magic[7])
    if version not in ((1, 0), (2, 0)):
        raise ModelError(f"{where}: .npy version {version} is not one quercus writes")
    length_format = "<H" if version == (1, 0) else "<I"
    raw = member.read(struct.calcsize(length_format))
    if len(raw) != struct.calcsize(length_format):
        raise ModelError(f"{where} is truncated")
    (length,) = struct.unpack(length_format, raw)
    if length > _MAX_NPY_HEADER:
        raise ModelError(f"{where}: a .npy header of {length} bytes, longer than quercus writes")
    text = member.read(length).decode("latin1").rstrip(" \n")
    if text != f"{{'descr': {dtype.str!r}, 'fortran_order': False, 'shape': {shape!r}, }}":
        raise ModelError(f"{where}: its header does not match the metadata")


def _ensemble_from(meta: dict, arrays: dict, classes: dict, kinds: dict, tables: str):
    model = estimator_from(meta, classes)
    cls, name = type(model), meta["estimator"]
    schema = schema_from_dict(meta["schema"])
    training = meta["training"]
    regression = training["regression"]
    kind = kinds[name]
    trees_task = cls.regression if kind.regression_trees is None else kind.regression_trees
    if regression is not trees_task:
        raise ModelError(
            f"field training.regression: {'regression' if regression else 'classification'} "
            f"trees in {name}"
        )
    regression = cls.regression
    if regression != ("classes" not in meta):
        raise ModelError(f"field classes: {'present in' if regression else 'missing from'} {name}")
    model.schema_ = schema
    model.n_features_in_ = training["n_features"]
    if model.n_features_in_ != len(schema.features):
        raise ModelError("field training.n_features: does not match the schema")
    if training["feature_names_in"] is not None:
        if training["feature_names_in"] != schema.names:
            raise ModelError("field training.feature_names_in: not the schema's feature names")
        model.feature_names_in_ = np.asarray(training["feature_names_in"], dtype=object)
    if not regression:
        model.classes_ = classes_from_dict(meta["classes"])
        model.n_classes_ = len(model.classes_)
    n_trees = training["n_trees"]
    for key, cut in _OFFSETS.items():
        off, total = arrays[key], len(arrays[cut])
        if off[0] != 0 or off[-1] != total or (np.diff(off) < 0).any():
            raise ModelError(f"field arrays.{key}: does not cut the arrays into {n_trees} trees")
    weights = arrays.pop("tree_weights")
    if not np.isfinite(weights).all():
        raise ModelError("field arrays.tree_weights: a weight that is not finite")
    model.trees_ = _stack(arrays, schema, training, tables)
    kind.restore(model, meta["ensemble"], weights)
    return model


def _check_local_indexes(a: dict, offsets: tuple) -> None:
    """Each tree's indexes within its own part of the arrays: a split's first child slot
    among its tree's slots, a table's start among its tree's words, a child among its
    tree's nodes (so that they can be made to point across the trees in int32; then
    :func:`~quercus.persist.checks.check_tree` checks the rest)."""
    node_offsets, child_offsets, cat_offsets = offsets
    n_trees = len(node_offsets) - 1
    tree = np.repeat(np.arange(n_trees, dtype=np.int32), np.diff(node_offsets))
    inner = a["kind"] != LEAF
    slots = np.diff(child_offsets)[tree]
    bad = inner & ((a["child_start"] < 0) | (a["child_start"] >= slots))
    tabled = a["cat_start"] >= 0
    bad |= tabled & (a["cat_start"] >= np.diff(cat_offsets)[tree])
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        t = int(tree[node])
        raise ModelError(
            f"arrays, tree {t}: node {node - int(node_offsets[t])}'s children or category "
            "table out of range"
        )
    slot_tree = np.repeat(np.arange(n_trees, dtype=np.int32), np.diff(child_offsets))
    children = a["children"]
    bad = (children < 0) | (children >= np.diff(node_offsets)[slot_tree])
    if bad.any():
        slot = int(np.flatnonzero(bad)[0])
        t = int(slot_tree[slot])
        raise ModelError(f"arrays, tree {t}: a child out of range (slot {slot - child_offsets[t]})")


def _stack(arrays: dict, schema, training: dict, tables: str) -> TreeStack:
    """The trees of the forest's arrays, checked all at once and stacked (their category
    tables kept as ``tables`` says, converted if they are of an older version)."""
    offsets = tuple(arrays[key] for key in _OFFSETS)
    if offsets[0][-1] >= 2**31 or offsets[1][-1] >= 2**31 or offsets[2][-1] >= 2**31:
        raise ModelError("arrays: 2**31 nodes, children or category words or more")
    part = {key: arrays.pop(key) for key in (*NODE_ARRAYS, *FLAT_ARRAYS)}
    _check_local_indexes(part, offsets)
    make_global(part["kind"], part, offsets)
    value, median, step = arrays["value"], arrays.get("median"), arrays.get("step")
    for name, params in (("median", median), ("step", step)):
        if params is not None and not np.isfinite(params).all():
            raise ModelError(f"arrays: a {name} that is not finite")
    try:
        check_tree(part, value, schema, training["regression"], tables, TreeBounds(*offsets))
    except ModelError as exc:
        text = str(exc)
        raise ModelError(
            f"arrays, {text}" if text.startswith("tree ") else f"arrays: {text}"
        ) from None
    if tables != HEADED:
        part = converted_tables(part, schema, tables)
        offsets = (*offsets[:2], _word_offsets(part, offsets[0]))
    tree_fields = {f.name for f in fields(Tree)}
    merged = Tree(
        **{k: v for k, v in part.items() if k in tree_fields},
        value=value,
        **leaf_fields(median, training["regression"], step=step),
        regression=training["regression"],
        fractional=training["fractional"],
    )
    return TreeStack(merged, *offsets)


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "META_ENTRY",
    "EnsembleKind",
    "ensemble_to_dict",
    "is_ensemble_file",
    "metadata_entry",
    "read_ensemble",
    "save_ensemble",
]
