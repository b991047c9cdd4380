"""Matching data to a fitted schema, and codes for categories and classes.

Used at prediction time (and by every function that takes raw data): columns are found by
name, numbers stay numbers, and a category never seen in training becomes missing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .errors import DataError
from .read import read_table
from .schema import (
    NUMERIC_KIND,
    ORDINAL_KIND,
    Feature,
    Schema,
    as_number,
    category_dtype,
    check_column_names,
    check_finite,
    clean_object_column,
    is_missing_value,
    warn_if_all_missing,
)

logger = logging.getLogger(__name__)


def as_frame(X, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """``X`` (DataFrame, array, list of rows) as a DataFrame with string column names."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame()
    array = np.asarray(X, dtype=object if not isinstance(X, np.ndarray) else None)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise DataError(f"expected a 2-dimensional table, got shape {array.shape}")
    names = list(feature_names) if feature_names is not None else None
    if names is not None and len(names) != array.shape[1]:
        raise DataError(f"expected {len(names)} columns, got {array.shape[1]}")
    return pd.DataFrame(array, columns=names or [f"x{i}" for i in range(array.shape[1])])


def infer_schema(X, nominal=None, ordinal=None) -> tuple[pd.DataFrame, Schema]:
    """Type the feature table ``X`` and return it with its schema (no target)."""
    table = read_table(as_frame(X), target=False, nominal=nominal, ordinal=ordinal)
    return table.X, table.schema


def is_numeric_array(X) -> bool:
    """Whether ``X`` is a plain 2-d NumPy array of real numbers (integer or floating dtype,
    not booleans, not a subclass such as a masked array): :func:`infer_numeric_schema`
    types it as :func:`infer_schema` would, every column numeric."""
    return type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind in "fiu"


def infer_numeric_schema(array: np.ndarray, names: Sequence[str]) -> tuple[pd.DataFrame, Schema]:
    """:func:`infer_schema` of an array of real numbers (:func:`is_numeric_array`) whose
    columns are ``names``, without a nominal or ordinal selection: the same typed frame,
    schema, errors (an infinite value) and warnings (a column entirely missing).

    A float64 array is not copied: the typed frame is a view of it (the typed frame is
    read, never written). Another dtype is converted to float64 once, as the per-column
    typing of :func:`infer_schema` converts it. The inference through pandas
    (:func:`~quercus.data.read.read_table`) copies the whole table three times: into a
    frame, a copy of that frame, and the frame of the typed columns.

    Parameters
    ----------
    array : ndarray of shape (n_samples, n_features)
    names : sequence of str, length n_features

    Returns
    -------
    typed : DataFrame of shape (n_samples, n_features), float64 columns ``names``
    schema : Schema, every feature numeric, no target
    """
    names = check_column_names(names)
    values = array if array.dtype == np.float64 else array.astype(np.float64)
    typed = pd.DataFrame(values, columns=names, copy=False)
    # Column by column, the checks read the array across its rows (a stride of a row per
    # value); one contiguous pass says whether any check can fire.
    if not np.isfinite(values).all():
        for name in names:
            column = typed[name]
            check_finite(name, column)
            warn_if_all_missing(name, column)
    return typed, Schema(tuple(Feature(name, NUMERIC_KIND) for name in names))


def align_column(feature: Feature, values: pd.Series) -> tuple[pd.Series | pd.Categorical, int]:
    """One column converted to the training kind of ``feature``.

    Returns the typed column and the number of values that were unseen categories (made
    missing).
    """
    if feature.kind == NUMERIC_KIND:
        return align_numbers(feature, values), 0
    codes, unseen = align_codes(feature, values)
    dtype = category_dtype(tuple(feature.categories), feature.kind == ORDINAL_KIND)
    return pd.Categorical.from_codes(codes, dtype=dtype), unseen


def align_numbers(feature: Feature, values: pd.Series) -> pd.Series:
    """A column of the numeric ``feature`` as float64 (numbers written as text read as
    numbers); a value that is not a number, or an infinite one, is an error naming it."""
    name = feature.name
    written = None  # the values as written, where they were not numbers already
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        numeric = values.astype(np.float64)
    else:
        cleaned = clean_object_column(values)
        numbers = cleaned.map(lambda v: np.nan if pd.isna(v) else as_number(v))
        bad = cleaned.notna() & numbers.isna()
        if bad.any():
            raise DataError(
                f"column {name!r} was numeric in training but holds {cleaned[bad].iloc[0]!r}",
                column=name,
            )
        numeric, written = numbers.astype(np.float64), cleaned
    check_finite(name, numeric, written)
    return numeric


def align_codes(feature: Feature, values: pd.Series) -> tuple[np.ndarray, int]:
    """The category codes (int64, -1 for a missing value) of a column of the nominal or
    ordinal ``feature``, and how many values were categories unseen in training (made
    missing)."""
    categories = list(feature.categories)
    if all(isinstance(c, str) for c in categories) and _read_alike(values):
        return _codes_by_distinct_values(feature, values)
    cleaned = clean_object_column(values)
    if all(isinstance(c, str) for c in categories):
        known = set(categories)
        cleaned = cleaned.map(lambda v: v if pd.isna(v) else _category_text(v, known))
    seen = cleaned.isin(categories)
    unseen = int((cleaned.notna() & ~seen).sum())
    codes = pd.Categorical(cleaned.where(seen), categories=categories).codes
    return codes.astype(np.int64), unseen


#: Kinds of column (pandas' ``infer_dtype``) whose equal values are read alike: for them,
#: reading each distinct value once gives what reading every value gives. (In a column of
#: other mixtures, ``1``, ``1.0`` and ``True`` are equal but read as "1", "1" and "True".)
_READ_ALIKE = frozenset({"string", "empty", "integer", "floating", "mixed-integer-float"})


def _read_alike(values: pd.Series) -> bool:
    """Whether equal values of ``values`` are read alike (see :data:`_READ_ALIKE`)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = pd.Series(values.cat.categories)
    elif not pd.api.types.is_object_dtype(values.dtype):
        return not pd.api.types.is_bool_dtype(values.dtype)
    return pd.api.types.infer_dtype(values, skipna=True) in _READ_ALIKE


def _codes_by_distinct_values(feature: Feature, values: pd.Series) -> tuple[np.ndarray, int]:
    """:func:`align_codes` reading each distinct value once: prediction on small data spent
    most of its time reading every value in Python. The values are factorized, each
    distinct one cleaned and matched to a category, and the codes taken through that table."""
    if isinstance(values.dtype, pd.StringDtype):
        values = values.to_numpy(dtype=object)  # factorized twice as fast as pandas' strings
    codes, distinct = pd.factorize(values, use_na_sentinel=True)
    position = {c: i for i, c in enumerate(feature.categories)}
    known = set(position)
    table = np.full(len(distinct) + 1, -1, dtype=np.int64)  # the last: a missing value's
    unseen = np.zeros(len(distinct) + 1, dtype=bool)
    for k, value in enumerate(np.asarray(distinct, dtype=object).tolist()):
        if is_missing_value(value):
            continue
        text = _category_text(value, known)
        table[k] = position.get(text, -1)
        unseen[k] = text not in position
    return table[codes], int(unseen[codes].sum())


def _category_text(value, known: set) -> str:
    """A value as the text of a category: a file whose column holds only numbers reads
    ``2`` as the number 2.0, which is the category ``"2"`` of training."""
    text = str(value)
    if text not in known and isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return text


def _matched_frame(X, schema: Schema) -> pd.DataFrame:
    """``X`` as a frame with string column names holding every column of ``schema``: a
    missing column is an error naming it; extra columns are ignored (logged)."""
    frame = as_frame(X, schema.names if not isinstance(X, pd.DataFrame) else None)
    if not all(isinstance(c, str) for c in frame.columns):  # a new frame: X stays as it is
        frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
    missing = [n for n in schema.names if n not in frame.columns]
    if missing:
        raise DataError(
            f"column {missing[0]!r} is missing from the data (the model was trained on "
            f"{schema.names})",
            column=missing[0],
        )
    doubled = [c for c in frame.columns[frame.columns.duplicated()] if c in schema.names]
    if doubled:
        raise DataError(
            f"column {doubled[0]!r} appears more than once in the data: which one the model "
            "reads would be a guess",
            column=doubled[0],
        )
    extra = [c for c in frame.columns if c not in schema.names]
    if extra:
        logger.info("ignoring columns not used by the model: %s", extra)
    return frame


def _log_unseen(name: str, unseen: int) -> None:
    if unseen:
        logger.info(
            "column %r: %d value(s) of categories not seen in training treated as missing",
            name,
            unseen,
        )


def align_frame(X, schema: Schema) -> pd.DataFrame:
    """``X`` matched to ``schema`` by column name, typed as in training.

    A column of the schema that ``X`` lacks is an error naming it; extra columns are ignored
    (logged); categories not seen in training become missing values (logged with a count).
    An array without names must have the schema's columns in order.
    """
    frame = _matched_frame(X, schema)
    columns = {}
    for feature in schema.features:
        columns[feature.name], unseen = align_column(feature, frame[feature.name])
        _log_unseen(feature.name, unseen)
    return pd.DataFrame(columns, index=frame.index)


def align_matrix(X, schema: Schema) -> np.ndarray:
    """``X`` matched to ``schema`` as :func:`align_frame` matches it, as the float64 matrix
    that routing reads: numbers, and category codes with NaN for a missing value (unseen
    categories included). Prediction goes this way, without typed columns in between."""
    frame = _matched_frame(X, schema)
    out = np.empty((len(frame), len(schema.features)), dtype=np.float64)
    columns = dict(frame.items())  # several times faster than a lookup per column
    for j, feature in enumerate(schema.features):
        values = columns[feature.name]
        if feature.kind == NUMERIC_KIND:
            out[:, j] = align_numbers(feature, values).to_numpy(dtype=np.float64)
            continue
        codes, unseen = align_codes(feature, values)
        _log_unseen(feature.name, unseen)
        column = codes.astype(np.float64)
        column[codes < 0] = np.nan
        out[:, j] = column
    return out


def encode_classes(y, classes: Sequence | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Class labels as int32 codes into ``classes`` (sorted unique labels when None).

    Returns ``(codes, classes)``. A label not among ``classes`` is an error naming it.
    """
    values = y.to_numpy() if isinstance(y, pd.Series | pd.Categorical) else np.asarray(y)
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
        values = np.asarray(y.astype(object))
    if classes is None:
        classes = np.unique(values)
    classes = np.asarray(classes)
    index = {c: i for i, c in enumerate(classes.tolist())}
    try:
        codes = np.fromiter((index[v] for v in values.tolist()), dtype=np.int32, count=len(values))
    except KeyError as exc:
        raise DataError(f"class label {exc.args[0]!r} is not one of {classes.tolist()}") from None
    return codes, classes
