"""What a model file and a forest file have in common: their documents' parts, both ways.

A model file is one JSON document; a forest file's ``forest.json`` is another, beside its
arrays. Both record when and by what they were written, the estimator's parameters, its
schema and classes, and the per-node arrays of trees; both are read by parsing JSON, then
checking the format name and version, then the JSON Schema
(``schemas/model-files-v1.json``), then building the estimator of an allow-listed class from
the parameters. This module holds those parts, in both directions (to the document when
writing, from it when reading), and the values of parameters and labels as JSON (tagged, so
that tuples, dicts, arrays and non-finite floats come back as they were).

The parts that only one format has are in ``model_document`` (a tree estimator's document)
and ``forest_file``; the tree's arrays are checked in ``checks``.
"""

from __future__ import annotations

import functools
import json
import math
import os
from datetime import datetime, timezone
from importlib import resources

import numpy as np

from ..data.schema import NUMERIC_KIND, Feature, Schema
from ..estimators.params import InvalidParameterError, check_params
from ..tree import leaves
from ..tree.arrays import PER_NODE
from .errors import ModelError

#: The per-node arrays a file keeps as they are, one number a node, and their dtypes: those
#: of ``tree.arrays.PER_NODE`` but the two of a row a node, which a file keeps in fields of
#: their own: ``value`` (the node's statistics) and ``leaf_params`` (the leaf model's
#: parameters, in the fields ``leaves.to_file`` names: ``median``, ``linear``).
NODE_ARRAYS = {key: dtype for key, dtype in PER_NODE.items() if key not in ("value", "leaf_params")}
#: The tree's arrays that are not per node: the children's slots and the category words.
FLAT_ARRAYS = {"children": np.int32, "cat_table": np.int32}

# -- when and by what a file is written ----------------------------------------------------


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


def plain(value, where: str):
    """``value`` as JSON data; dicts, non-finite floats and tuples are tagged so that they
    come back as they were. Anything else is an error naming ``where``."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, list | tuple):
        items = [plain(v, where) for v in value]
        return items if isinstance(value, list) else {"tuple": items}
    if isinstance(value, dict):
        return {"dict": [[plain(k, where), plain(v, where)] for k, v in value.items()]}
    if isinstance(value, np.ndarray):
        return {"array": plain(value.tolist(), where), "dtype": str(value.dtype)}
    raise TypeError(f"{where}: cannot store a {type(value).__name__} in a model file")


def unplain(value):
    if isinstance(value, list):
        return [unplain(v) for v in value]
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "tuple" in value:
            return tuple(unplain(v) for v in value["tuple"])
        if "dict" in value:
            return {_hashable(unplain(k)): unplain(v) for k, v in value["dict"]}
        if "array" in value:
            return _array(unplain(value["array"]), value["dtype"])
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


def floats_to_json(array: np.ndarray) -> list:
    """Floats with NaN as null (JSON has no NaN); float64 values round-trip exactly."""
    return [None if math.isnan(v) else v for v in np.asarray(array, dtype=np.float64).tolist()]


def _unfloats(values) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


def floats_from_json(values, what: str) -> np.ndarray:
    """A JSON list of numbers (``null``: NaN) as float64; anything else is a ModelError."""
    if not isinstance(values, list) or not all(
        v is None or (type(v) in (int, float)) for v in values
    ):
        raise ModelError(f"field {what}: must be a list of numbers")
    try:
        return _unfloats(values)
    except OverflowError:  # an integer beyond float64
        raise ModelError(f"field {what}: a number out of range for float64") from None


# -- schema, classes and leaf models -------------------------------------------------------


def schema_to_dict(schema: Schema) -> dict:
    return {
        "features": [
            {
                "name": f.name,
                "kind": f.kind,
                "categories": None
                if f.categories is None
                else plain(list(f.categories), f"categories of {f.name!r}"),
            }
            for f in schema.features
        ],
        "target": schema.target,
    }


def schema_from_dict(doc: dict) -> Schema:
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


def _is_label(value) -> bool:
    """A class label or category as a model file holds it: a string, integer, boolean or
    finite float."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int)  # bool is an int


def classes_to_dict(classes: np.ndarray) -> dict:
    """The ``classes`` field of a classifier's labels: their dtype and values."""
    return {
        "dtype": classes.dtype.str if classes.dtype != object else "O",
        "values": plain(classes.tolist(), "classes_"),
    }


def classes_from_dict(doc: dict) -> np.ndarray:
    values = unplain(doc["values"])
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


def leaf_fields(median, regression: bool, linear=None, step=None) -> dict:
    """The :class:`Tree` fields of a file's leaf model (tree/leaves.py)."""
    leaf_model, leaf_params = leaves.from_file(median, regression, linear, step)
    return {"leaf_model": leaf_model, "leaf_params": leaf_params}


# -- reading -------------------------------------------------------------------------------


def parse_json(text: str, what: str):
    """``text`` as JSON, or a ModelError saying why not (``what``: the file, for messages)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"{what} is not valid JSON (truncated or corrupt?): {exc}") from None
    except RecursionError:
        raise ModelError(f"{what} nests its JSON too deeply for a model file") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise ModelError(f"{what} holds a value no model file has: {exc}") from None


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


def check_document(doc, document: str) -> None:
    """A :class:`ModelError` naming the field when ``doc`` is not of the shape the JSON
    Schema gives a ``document`` ("model", "ensemble" or "forest")."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(document).iter_errors(doc))
    if error is None:
        return
    message = error.message
    if len(message) > 200:
        message = message[:150] + " ... " + message[-40:]
    raise ModelError(f"field {field_name(error.absolute_path)}: {message}")


def field_name(path) -> str:
    """A JSON path as a field name: ``tree.children``, ``rules.rules[2].op``."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else f".{part}" if name else str(part)
    return name or "the document"


@functools.cache
def _validator(document: str):
    """The JSON Schema validator of a ``"model"``, ``"ensemble"`` or ``"forest"`` document
    (jsonschema is imported here, when a file is loaded, not with quercus: it takes 65 ms)."""
    from jsonschema import Draft202012Validator

    text = resources.files(__package__).joinpath("schemas/model-files-v1.json").read_text()
    definitions = json.loads(text)["$defs"]
    return Draft202012Validator({"$ref": f"#/$defs/{document}", "$defs": definitions})


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
    params = {str(key): unplain(value) for key, value in doc["params"].items()}
    unknown = set(params) - set(cls._get_param_names())
    if unknown:
        raise ModelError(f"field params: {sorted(unknown)} are not parameters of {name}")
    estimator = cls(**params)
    try:
        check_params(estimator)
    except InvalidParameterError as exc:
        raise ModelError(f"field params.{exc.name}: {exc}") from None
    return estimator
