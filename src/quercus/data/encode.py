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
    _as_number,
    _check_finite,
    _clean_object_column,
    _warn_if_all_missing,
    check_column_names,
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
            _check_finite(name, column)
            _warn_if_all_missing(name, column)
    return typed, Schema(tuple(Feature(name, NUMERIC_KIND) for name in names))


def align_column(feature: Feature, values: pd.Series) -> tuple[pd.Series | pd.Categorical, int]:
    """One column converted to the training kind of ``feature``.

    Returns the typed column and the number of values that were unseen categories (made
    missing).
    """
    name = feature.name
    if feature.kind == NUMERIC_KIND:
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype
        ):
            numeric = values.astype(np.float64)
        else:
            cleaned = _clean_object_column(values)
            numbers = cleaned.map(lambda v: np.nan if pd.isna(v) else _as_number(v))
            bad = cleaned.notna() & numbers.isna()
            if bad.any():
                raise DataError(
                    f"column {name!r} was numeric in training but holds {cleaned[bad].iloc[0]!r}",
                    column=name,
                )
            numeric = numbers.astype(np.float64)
        _check_finite(name, numeric)
        return numeric, 0
    categories = list(feature.categories)
    cleaned = _clean_object_column(values)
    if all(isinstance(c, str) for c in categories):
        known = set(categories)
        cleaned = cleaned.map(lambda v: v if pd.isna(v) else _category_text(v, known))
    seen = cleaned.isin(categories)
    unseen = int((cleaned.notna() & ~seen).sum())
    cat = pd.Categorical(
        cleaned.where(seen), categories=categories, ordered=feature.kind == ORDINAL_KIND
    )
    return cat, unseen


def _category_text(value, known: set) -> str:
    """A value as the text of a category: a file whose column holds only numbers reads
    ``2`` as the number 2.0, which is the category ``"2"`` of training."""
    text = str(value)
    if text not in known and isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return text


def align_frame(X, schema: Schema) -> pd.DataFrame:
    """``X`` matched to ``schema`` by column name, typed as in training.

    A column of the schema that ``X`` lacks is an error naming it; extra columns are ignored
    (logged); categories not seen in training become missing values (logged with a count).
    An array without names must have the schema's columns in order.
    """
    frame = as_frame(X, schema.names if not isinstance(X, pd.DataFrame) else None)
    frame.columns = [str(c) for c in frame.columns]
    missing = [n for n in schema.names if n not in frame.columns]
    if missing:
        raise DataError(
            f"column {missing[0]!r} is missing from the data (the model was trained on "
            f"{schema.names})",
            column=missing[0],
        )
    extra = [c for c in frame.columns if c not in schema.names]
    if extra:
        logger.info("ignoring columns not used by the model: %s", extra)
    columns = {}
    for feature in schema.features:
        columns[feature.name], unseen = align_column(feature, frame[feature.name])
        if unseen:
            logger.info(
                "column %r: %d value(s) of categories not seen in training treated as missing",
                feature.name,
                unseen,
            )
    return pd.DataFrame(columns, index=frame.index)


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
