"""A partition of the user's Dask collections read as a local fit reads its rows.

What every pass over the partitions starts from: how a partition of ``X`` (a Dask DataFrame
or a 2-D Dask array) becomes a frame of ``X``'s columns (:class:`Source`,
:func:`partition_frame`), its class labels or targets (:func:`partition_labels`) and its
sample weights (:func:`partition_weights`), each checked as a local fit checks them, with
errors naming the partition at fault; the checks of the collections themselves
(:func:`x_source`, :func:`check_companion`); and a column's numbers as column typing reads
them (:func:`column_numbers`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data.errors import DataError
from ..data.schema import check_column_names, clean_object_column
from ..estimators.validate import TARGET_LIMIT, as_1d

__all__ = [
    "Source",
    "check_companion",
    "column_numbers",
    "delayed_parts",
    "is_dask_series",
    "is_number_dtype",
    "n_partitions",
    "partition_frame",
    "partition_labels",
    "partition_weights",
    "x_source",
]


class Source(NamedTuple):
    """How a partition of ``X`` becomes a frame of named columns."""

    labels: list  # X's column labels, in order
    names: list[str]  # the labels as strings
    dtypes: list  # X's dtypes (its metadata's)
    array: bool  # X is a dask array: a block becomes a frame of columns x0, x1, ...
    as_float: bool  # an object array that converts to float64 (the local path converts it)

    def as_float64(self) -> Source:
        """This source of an object array whose every block converts to float64, read as
        float64 (as the local path reads it)."""
        return self._replace(as_float=True, dtypes=[np.dtype(np.float64)] * len(self.names))


def x_source(X) -> tuple[object, Source]:
    """``X`` with its partitions in whole rows, and its :class:`Source`; a clear error for
    anything but a Dask DataFrame or 2-D array."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        labels = list(X.columns)
        if not labels:
            raise DataError("X has no columns (a table needs at least one attribute column)")
        names = check_column_names(labels)
        return X, Source(labels, names, list(X.dtypes), False, False)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(
                f"X must be a 2-D dask array (rows x features), got {X.ndim} dimension(s)"
            )
        if np.issubdtype(X.dtype, np.complexfloating):
            raise ValueError("Complex data not supported")
        if X.shape[1] == 0:
            raise ValueError(f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
        if X.numblocks[1] != 1:  # a partition is a block of whole rows
            X = X.rechunk({1: -1})
        names = [f"x{i}" for i in range(X.shape[1])]
        return X, Source(names, names, [X.dtype] * X.shape[1], True, False)
    raise TypeError(
        f"X must be a Dask collection (a dask.dataframe.DataFrame or a 2-D dask.array.Array),"
        f" got {type(X).__module__}.{type(X).__qualname__}: fit data in memory with the"
        " ordinary quercus estimators"
    )


def n_partitions(collection) -> int:
    """The partitions of a Dask frame or series, the blocks of rows of a Dask array."""
    if hasattr(collection, "npartitions"):
        return int(collection.npartitions)
    return int(collection.numblocks[0])


def check_companion(value, what: str, n_parts: int, allow_frame: bool) -> None:
    """``y`` or ``sample_weight``: a Dask Series (or one-column DataFrame for ``y``) or a
    1-D Dask array, with as many partitions as ``X``."""
    import dask.array as da
    import dask.dataframe as dd

    accepted = "a dask Series or a 1-D dask array"
    if allow_frame:
        accepted = "a dask Series, a one-column dask DataFrame or a 1-D dask array"
    if isinstance(value, dd.DataFrame) and allow_frame:
        if len(value.columns) != 1:
            raise ValueError(f"{what} has {len(value.columns)} columns; it must have one")
    elif isinstance(value, da.Array):
        if value.ndim != 1:
            raise ValueError(f"{what} must be a 1-D dask array, got {value.ndim} dimensions")
    elif not isinstance(value, dd.Series):
        raise TypeError(
            f"{what} must be {accepted} partitioned as X, got "
            f"{type(value).__module__}.{type(value).__qualname__}"
        )
    if n_partitions(value) != n_parts:
        raise ValueError(
            f"X has {n_parts} partitions but {what} has {n_partitions(value)}: X, y and"
            " sample_weight must be partitioned alike (the same rows in each partition)"
        )


def delayed_parts(collections) -> list[list]:
    """The partitions of each collection as Delayed objects. The graphs are left
    unoptimised, so that partitions of ``X`` and ``y`` taken from the same frame share the
    keys of its partitions: computed together, each partition is read once."""
    return [
        list(np.asarray(c.to_delayed(optimize_graph=False), dtype=object).ravel())
        for c in collections
    ]


def is_dask_series(value) -> bool:
    """Whether ``value`` is a Dask Series (whose name a fit gives the target)."""
    import dask.dataframe as dd

    return isinstance(value, dd.Series)


def partition_frame(x_part, source: Source, index: int) -> pd.DataFrame:
    """A partition of ``X`` as a frame of ``X``'s columns, in order."""
    if source.array:
        block = np.asarray(x_part, dtype=np.float64 if source.as_float else None)
        return pd.DataFrame(block, columns=source.names)
    columns = list(x_part.columns)
    if columns == source.labels:
        return x_part
    absent = [c for c in source.labels if c not in columns]
    if absent:
        raise DataError(
            f"column {str(absent[0])!r} is missing from partition {index} of X (its columns:"
            f" {[str(c) for c in columns]})",
            column=str(absent[0]),
        )
    extra = [c for c in columns if c not in source.labels]
    if extra:
        raise DataError(
            f"partition {index} of X has a column {str(extra[0])!r} that X's columns"
            f" {source.names} do not list",
            column=str(extra[0]),
        )
    return x_part[source.labels]


def _check_length(n_x: int, part, what: str, index: int) -> None:
    if len(part) != n_x:
        raise ValueError(
            f"partition {index}: X has {n_x} rows but {what} has {len(part)}: X, y and"
            " sample_weight must be partitioned alike"
        )


def partition_weights(w_part, n: int, index: int) -> np.ndarray:
    """The sample weights of a partition, checked as a local fit checks them."""
    if w_part is None:
        return np.ones(n, dtype=np.float64)
    _check_length(n, w_part, "sample_weight", index)
    w = np.asarray(w_part, dtype=np.float64)
    if not np.isfinite(w).all():
        raise ValueError(f"sample_weight must be finite (partition {index} is not)")
    if (w < 0).any():
        raise ValueError(f"Negative values in data passed to sample_weight (partition {index})")
    return w


def partition_labels(y_part, n: int, index: int, regression: bool) -> np.ndarray:
    """A partition's targets as a local fit reads them (missing labels refused)."""
    _check_length(n, y_part, "y", index)
    try:
        labels = as_1d(y_part, n)
    except ValueError as exc:
        raise ValueError(f"partition {index} of y: {exc}") from None
    if regression:
        try:
            labels = np.asarray(labels, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"partition {index} of y: a regression needs numeric targets y"
            ) from None
        if not np.isfinite(labels).all():
            raise ValueError(f"partition {index} of y: Input y contains NaN or infinity.")
        if len(labels) and np.abs(labels).max() > TARGET_LIMIT:  # as a local fit refuses
            row = int(np.argmax(np.abs(labels) > TARGET_LIMIT))
            raise DataError(
                f"partition {index} of y holds {labels[row]:.3g} in row {row}, beyond "
                f"{TARGET_LIMIT:.0e} in size, the largest regression target quercus sums "
                "without overflow: express the target in a larger unit"
            )
    elif labels.dtype.kind == "f" and not np.isfinite(labels).all():
        raise ValueError(
            f"partition {index} of y: Input y contains NaN or infinity (missing labels): drop"
            " those rows first"
        )
    return labels


def is_number_dtype(dtype) -> bool:
    """Whether ``dtype`` holds numbers that type_column makes numeric (not booleans)."""
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def column_numbers(values: pd.Series) -> np.ndarray:
    """A column that type_column makes numeric, as its float64 values (its two ways)."""
    if is_number_dtype(values.dtype):
        return values.astype(np.float64).to_numpy()
    return clean_object_column(values).astype(np.float64).to_numpy()
