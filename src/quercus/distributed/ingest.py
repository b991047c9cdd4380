"""Training rows of a Dask collection, typed, binned and kept on the workers.

:func:`ingest` turns the user's Dask collections (``X`` a ``dask.dataframe.DataFrame`` or a
2-D ``dask.array.Array``, ``y`` and the sample weights partitioned alike) into the row
partitions the level-wise grower reads (``distributed/dask_statistics.py``): one
``(binned, y_class, y_value, w)`` per partition, held by a worker as a future. No row is
gathered to the client but a sample of numbers above ``BIN_SAMPLE_ROWS`` rows; the data are
read twice, in two passes of one task per partition (three times with the sample).

**First pass: summaries.** Each partition reports, for every column, what the typing of the
whole column depends on: for a numeric column a present and a missing value (its dtype), for
the others its distinct values (at most :data:`MAX_VALUES` of them are kept). A column
that may be numeric also gets the mergeable summary of its kept rows
(:func:`quercus.distributed.summaries.summarize`). The partition adds its distinct class
labels, its counts of rows and the exact sum of its weights. The reports are merged two by
two up a tree of tasks, and the client types the union of the distinct values with the very
function a local fit types the whole column with (:func:`quercus.data.infer_schema`), so
kinds, categories, warnings and errors are the local ones; the class labels are
:func:`~quercus.estimators.validate.classes_and_codes`'s of the union of the labels.

**Second pass: binning.** Each partition with rows to keep drops the others (the rows of
weight 0, an absent row to a local tree, unless ``keep_zero_weight`` keeps them as a local
forest does), types its columns to the schema, bins them with the mapper made from the
merged summaries and keeps the result on its worker: the binned codes in padded rows
(:func:`~quercus.binning.binned.bin_rows`), the class codes, the targets and the weights
after :func:`~quercus.estimators.validate.as_counts`. A feature
whose summary was compressed, or whose edges came from a sample, also reports the smallest
and largest value of each of its bins
(:func:`~quercus.distributed.summaries.bin_extremes`), which the split thresholds are placed
between.

**Above BIN_SAMPLE_ROWS kept rows: the sample.** A local fit of more than
:data:`quercus.binning.BIN_SAMPLE_ROWS` rows with a bin budget (``max_bins`` not None)
places every numeric feature's edges by a seeded sample of that many rows
(:func:`quercus.binning.bin_sample`). The first pass counts each partition's kept rows, so
the client draws the same positions among all the kept rows, maps each to its partition and
its row there, and a pass between the two above reads the numeric values of those rows from
the partitions that hold them: the client receives ``BIN_SAMPLE_ROWS`` values of 8 bytes per
numeric feature and bins them with :func:`quercus.binning.numeric_bins`, as the local fit
does; the summaries go unused.

**What is exact.** The schema, the classes, the class codes, the targets and the binned
codes equal those of a local fit on the concatenated rows (``X.compute()``), however the rows
are partitioned and with empty partitions anywhere. The bins of a numeric feature are the
local ones bit for bit (but for the sign of a zero: of 0.0 and -0.0, ``np.unique`` keeps
either) above ``BIN_SAMPLE_ROWS`` kept rows with a bin budget (the sample), wherever the
local rule gives exact bins (``max_bins="auto"`` on at most 50,000 rows, a feature with at
most ``max_bins`` values), and wherever the summary stays exact: every feature with at most
:data:`QUANTILE_CAPACITY` distinct values (or ``max_bins``, when larger). The weights are the
local ones, but where they are shares (summing to 1, scaled by their mean) and in the total
weight: those take exact sums (:func:`exact_sum`), which do not depend on the partitioning,
where a local fit takes numpy's pairwise sums. The two agree whenever numpy's sum is exact
(whole numbers, halves ...) and may differ in the last bit otherwise.

**The bound.** Up to ``BIN_SAMPLE_ROWS`` kept rows (above 50,000 with ``max_bins="auto"``),
a feature with more distinct values than the summary's capacity gets quantile edges from
compressed summaries: an edge aimed at rank ``t`` has a true rank ``r`` with
``t <= r < t + m + rank_error * N`` (``m`` the count of the value just below the edge,
``N`` the rows), ``rank_error = quantile_rank_error(capacity, depth)`` for a merge tree of
depth ``ceil(log2 P)`` over ``P`` partitions (see :mod:`quercus.distributed.summaries`);
:attr:`DistributedRows.rank_error` gives it, 0 when every summary stayed exact. The lowest
and highest value of each bin are exact (the second pass). Every summary holds at most
:data:`MAX_VALUES` points, whatever the number of rows.
"""

from __future__ import annotations

import numbers
import operator
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._config import AUTO_EXACT_MAX_ROWS
from ..binning import BinMapper, bin_sample, mapper_from_bins, numeric_bins, resolve_max_bins
from ..binning.binned import bin_rows, bin_tables
from ..data.encode import align_column, infer_schema
from ..data.errors import DataError
from ..data.read import selection_by_name
from ..data.schema import (
    NUMERIC_KIND,
    ORDINAL_KIND,
    Schema,
    _check_values,
    _clean_object_column,
    _is_real,
    _normalise_selection,
    check_column_names,
)
from ..estimators.validate import (
    TARGET_LIMIT,
    WEIGHT_LIMIT,
    as_1d,
    classes_and_codes,
    counts_of_shares,
    with_target_name,
)
from . import summaries

__all__ = [
    "MAX_VALUES",
    "QUANTILE_CAPACITY",
    "DistributedRows",
    "exact_sum",
    "ingest",
    "summary_capacity",
]

#: The most distinct values a feature may have on a cluster where each needs a code of its
#: own: the categories of a nominal or ordinal feature, the values of a numeric feature
#: binned one bin per value. 65,534 codes and the missing code fit 16-bit bins; a partition
#: reports at most this many distinct values per column, which bounds the first pass's
#: memory; and a nominal attribute with more values than this is an identifier, not
#: something a split can use. The local fit has no such limit.
MAX_VALUES = 65_534
#: Points of a compressed numeric summary: edges within ``2 (d + 1) / 8191`` of the rows of
#: their quantile (0.15 % for 32 partitions, a tenth of a bin of 255), 128 KiB per feature.
QUANTILE_CAPACITY = 8192
# Missing markers ('', '?', None, NaN ...) kept per column: one is enough to type the column.
_MISSING_KEPT = 8


@dataclass
class DistributedRows:
    """The training rows of a Dask collection, binned and held by the workers.

    Attributes
    ----------
    schema : Schema
        The features' schema, as a local fit types the concatenated ``X`` (with the target's
        name when ``y`` is a named Series).
    classes : ndarray or None
        The class labels, sorted (None for a regression).
    mapper : BinMapper
        The bins of every feature.
    kinds, bin_lo, bin_hi : ndarray
        The kernel's tables of ``mapper``, as :class:`~quercus.binning.binned.BinnedData`
        holds them.
    parts : list of distributed.Future
        One per partition with rows kept: ``(binned, y_class, y_value, w)``,
        the binned codes C-ordered and padded (:func:`~quercus.binning.binned.pad_rows`),
        ``y_class`` int32 codes into ``classes`` (zeros for a regression), ``y_value``
        float64 targets (zeros for a classification), ``w`` float64 weights.
    n_rows : list of int
        The rows of each part.
    first_rows : list of int
        The index of each part's first row among all the kept rows.
    total_weight : float
        The sum of the weights of all the parts.
    n_features_in : int
    feature_names_in : ndarray of str or None
        ``X``'s column names when they are all strings (as ``feature_names_in_`` of a
        local fit).
    compressed : tuple of str
        The numeric features whose bins came from compressed summaries (quantile edges within
        ``rank_error`` of exact quantiles).
    rank_error : float
        How far past its target rank a quantile edge may land, as a share of the rows (see
        the module's description); 0 when every summary stayed exact.
    bin_sample_rows : int
        The rows of the seeded sample that placed the numeric features' edges, as in a
        local fit of more than ``BIN_SAMPLE_ROWS`` rows (see the module's description); 0
        when the edges came from every row.
    """

    schema: Schema
    classes: np.ndarray | None
    mapper: BinMapper
    kinds: np.ndarray
    bin_lo: np.ndarray
    bin_hi: np.ndarray
    parts: list
    n_rows: list[int]
    first_rows: list[int]
    total_weight: float
    n_features_in: int
    feature_names_in: np.ndarray | None
    compressed: tuple[str, ...] = ()
    rank_error: float = 0.0
    bin_sample_rows: int = 0


def summary_capacity(max_bins, n_values: int) -> int:
    """The points a numeric summary of ``n_values`` rows keeps: enough to stay exact
    wherever ``max_bins`` asks for exact bins (one bin per value), :data:`QUANTILE_CAPACITY`
    (or ``max_bins`` when larger) where it asks for quantiles, never more than
    :data:`MAX_VALUES`."""
    if max_bins is None:
        return MAX_VALUES
    if isinstance(max_bins, str):  # "auto": exact bins on at most AUTO_EXACT_MAX_ROWS rows
        return MAX_VALUES if n_values <= AUTO_EXACT_MAX_ROWS else QUANTILE_CAPACITY
    return max(QUANTILE_CAPACITY, min(int(max_bins), MAX_VALUES))


def exact_sum(values) -> Fraction:
    """The exact sum of finite float64 ``values``, as a fraction.

    A float is an integer of 53 bits times a power of two: the integers of each power are
    added in int64 (in halves of 26 bits, chunks of 2**26 values, so no sum overflows or
    rounds) and the powers in Python's integers. Sums of partitions add up to the sum of
    the whole, whatever the partitioning."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if not len(values):
        return Fraction(0)
    mantissa, exponent = np.frexp(values)
    whole = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| < 1
    powers, group = np.unique(exponent, return_inverse=True)
    total = 0
    chunk = 2**26
    for start in range(0, len(values), chunk):
        part, where = whole[start : start + chunk], group[start : start + chunk]
        for half, scale in ((part >> 26, 2**26), (part & (2**26 - 1), 1)):
            sums = np.bincount(where, weights=half, minlength=len(powers))
            total += sum(
                Fraction(int(s) * scale) * Fraction(2) ** (int(p) - 53)
                for p, s in zip(powers, sums, strict=True)
                if s
            )
    return Fraction(total)


# ---------------------------------------------------------------------------------------------
# The inputs


class _Source(NamedTuple):
    """How a partition of ``X`` becomes a frame of named columns."""

    labels: list  # X's column labels, in order
    names: list[str]  # the labels as strings
    dtypes: list  # X's dtypes (its metadata's)
    array: bool  # X is a dask array: a block becomes a frame of columns x0, x1, ...
    as_float: bool  # an object array that converts to float64 (the local path converts it)


def _x_source(X) -> tuple[object, _Source]:
    """``X`` with its partitions in whole rows, and its :class:`_Source`; a clear error for
    anything but a Dask DataFrame or 2-D array."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        labels = list(X.columns)
        if not labels:
            raise DataError("X has no columns (a table needs at least one attribute column)")
        names = check_column_names(labels)
        return X, _Source(labels, names, list(X.dtypes), False, False)
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
        return X, _Source(names, names, [X.dtype] * X.shape[1], True, False)
    raise TypeError(
        f"X must be a Dask collection (a dask.dataframe.DataFrame or a 2-D dask.array.Array),"
        f" got {type(X).__module__}.{type(X).__qualname__}: fit data in memory with the"
        " ordinary quercus estimators"
    )


def _n_parts(collection) -> int:
    if hasattr(collection, "npartitions"):
        return int(collection.npartitions)
    return int(collection.numblocks[0])


def _check_companion(value, what: str, n_parts: int, allow_frame: bool) -> None:
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
    if _n_parts(value) != n_parts:
        raise ValueError(
            f"X has {n_parts} partitions but {what} has {_n_parts(value)}: X, y and"
            " sample_weight must be partitioned alike (the same rows in each partition)"
        )


def _delayed_parts(collections) -> list[list]:
    """The partitions of each collection as Delayed objects. The graphs are left
    unoptimised, so that partitions of ``X`` and ``y`` taken from the same frame share the
    keys of its partitions: computed together, each partition is read once."""
    return [
        list(np.asarray(c.to_delayed(optimize_graph=False), dtype=object).ravel())
        for c in collections
    ]


def _is_dask_series(value) -> bool:
    import dask.dataframe as dd

    return isinstance(value, dd.Series)


def _frame(x_part, source: _Source, index: int) -> pd.DataFrame:
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


def _weights(w_part, n: int, index: int) -> np.ndarray:
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


def _labels(y_part, n: int, index: int, regression: bool) -> np.ndarray:
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


# ---------------------------------------------------------------------------------------------
# The first pass: what each partition reports


@dataclass
class _Layout:
    """What the first pass needs to know of the columns."""

    source: _Source
    witness: tuple[bool, ...]  # numeric columns: a present and a missing value are enough
    may_be_numeric: tuple[bool, ...]  # columns that type_column may make numeric
    max_bins: object
    regression: bool
    y_series: bool  # y comes as pandas objects (else NumPy blocks)
    keep_zero_weight: bool  # rows of weight 0 are kept (and binned) too


class _Column(NamedTuple):
    """What the rows of some partitions tell of one column."""

    sample: pd.Series  # distinct values (at most MAX_VALUES + 1 present), or a witness
    overflow: bool  # more than MAX_VALUES distinct present values were seen
    all_real: bool  # every present value is a real number
    summary: summaries.NumericSummary | None  # the kept rows, where may be numeric


class _Report(NamedTuple):
    """What some partitions tell: their columns, distinct labels, rows and weight."""

    columns: tuple[_Column, ...]
    labels: object  # distinct class labels (Series or ndarray); None for a regression
    labels_overflow: bool
    rows: dict  # partition -> (rows, rows kept, rows of positive weight)
    weight: Fraction  # the exact sum of the positive weights


def _is_number_dtype(dtype) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _numbers(values: pd.Series) -> np.ndarray:
    """A column that type_column makes numeric, as its float64 values (its two ways)."""
    if _is_number_dtype(values.dtype):
        return values.astype(np.float64).to_numpy()
    return _clean_object_column(values).astype(np.float64).to_numpy()


def _refuse_infinite(name: str, numbers: np.ndarray, index: int) -> None:
    infinite = np.flatnonzero(np.isinf(numbers))
    if len(infinite):
        row = int(infinite[0])
        raise DataError(
            f"column {name!r} has an infinite value ({numbers[row]}) in row {row} of partition"
            f" {index}: replace it with a finite number or leave the cell empty (missing)",
            column=name,
        )


def _summary(numbers: np.ndarray, max_bins) -> summaries.NumericSummary:
    n_values = int(np.count_nonzero(~np.isnan(numbers)))
    return summaries.summarize(numbers, summary_capacity(max_bins, n_values))


def _distinct(values: pd.Series) -> pd.Series:
    """The distinct values of a column, in order of appearance, each with its dtype. In an
    object column a number is told from an equal number of another type (1, 1.0 and True
    are three values to type_column)."""
    if values.dtype == object:
        types = set(map(type, values))
        if len({t for t in types if issubclass(t, numbers.Number | np.bool_)}) > 1:
            pairs = pd.DataFrame({"value": values.to_numpy(), "type": values.map(type).to_numpy()})
            return values[~pairs.duplicated().to_numpy()]
    return values.drop_duplicates()


def _capped(distinct: pd.Series) -> tuple[pd.Series, bool]:
    """At most MAX_VALUES + 1 present values and a few missing markers of ``distinct``;
    whether present values were left out."""
    missing = _clean_object_column(distinct).isna().to_numpy()
    present = np.flatnonzero(~missing)
    markers = np.flatnonzero(missing)
    if len(present) <= MAX_VALUES and len(markers) <= _MISSING_KEPT:
        return distinct, False
    kept = np.sort(np.concatenate([present[: MAX_VALUES + 1], markers[:_MISSING_KEPT]]))
    return distinct.iloc[kept], len(present) > MAX_VALUES


def _witness(values: pd.Series, missing: np.ndarray) -> pd.Series:
    """A present and a missing value of a numeric column (those it has), in its dtype."""
    return pd.concat([values[~missing].iloc[:1], values[missing].iloc[:1]])


def _column_report(name, values, keep, j, layout: _Layout, index) -> _Column:
    if layout.witness[j]:
        if not _is_number_dtype(values.dtype):
            raise DataError(
                f"column {name!r} is {layout.source.dtypes[j]} in X but {values.dtype} in"
                f" partition {index}: every partition must have X's dtypes",
                column=name,
            )
        numbers = _numbers(values)
        _refuse_infinite(name, numbers, index)
        witness = _witness(values, np.isnan(numbers))
        return _Column(witness, False, True, _summary(numbers[keep], layout.max_bins))
    if values.dtype == object:
        try:
            _check_values(name, values)
        except DataError as exc:
            raise DataError(f"{exc} (in partition {index})", column=name) from None
    distinct = _distinct(values)
    cleaned = _clean_object_column(distinct)
    all_real = bool(cleaned.dropna().map(_is_real).all())
    summary = None
    if layout.may_be_numeric[j] and all_real:
        numbers = _numbers(values)
        _refuse_infinite(name, numbers, index)
        summary = _summary(numbers[keep], layout.max_bins)
    sample, overflow = _capped(distinct)
    return _Column(sample, overflow, all_real, summary)


def _distinct_labels(labels) -> tuple[object, bool]:
    """Distinct class labels (a Series keeps its dtype, as concatenating partitions types
    the whole ``y``), at most MAX_VALUES + 1; whether more were seen."""
    if isinstance(labels, pd.Series):
        distinct = _distinct(labels)
    elif labels.dtype == object:
        distinct = _distinct(pd.Series(labels, dtype=object)).to_numpy()
    else:
        distinct = np.unique(labels)
    return distinct[: MAX_VALUES + 1], len(distinct) > MAX_VALUES


def _summarize_partition(x_part, y_part, w_part, index: int, layout: _Layout) -> _Report:
    """The first pass over one partition."""
    frame = _frame(x_part, layout.source, index)
    n = len(frame)
    w = _weights(w_part, n, index)
    positive = w > 0
    keep = np.ones(n, dtype=bool) if layout.keep_zero_weight else positive
    labels = _labels(y_part, n, index, layout.regression)
    columns = tuple(
        _column_report(name, frame.iloc[:, j], keep, j, layout, index)
        for j, name in enumerate(layout.source.names)
    )
    sample, overflow = (None, False)
    if not layout.regression:
        if layout.y_series:
            labels = y_part.iloc[:, 0] if isinstance(y_part, pd.DataFrame) else y_part
        sample, overflow = _distinct_labels(labels)
    counts = (n, int(keep.sum()), int(positive.sum()))
    return _Report(columns, sample, overflow, {index: counts}, exact_sum(w[positive]))


def _concat(a, b):
    """Two samples of one column or of the labels, concatenated as Dask concatenates the
    partitions of a collection (categories of categoricals united, in order)."""
    if isinstance(a, np.ndarray):
        return np.concatenate([a, b])
    from dask.dataframe.dispatch import concat

    return concat([a, b])


def _merge_column(a: _Column, b: _Column, witness: bool, max_bins) -> _Column:
    sample = _concat(a.sample, b.sample)
    overflow = a.overflow or b.overflow
    if witness:
        sample = _witness(sample, sample.isna().to_numpy())
    else:
        sample, more = _capped(_distinct(sample))
        overflow = overflow or more
    summary = None
    if a.summary is not None and b.summary is not None:
        n_values = int(a.summary.n_values) + int(b.summary.n_values)
        summary = summaries.merge([a.summary, b.summary], summary_capacity(max_bins, n_values))
    return _Column(sample, overflow, a.all_real and b.all_real, summary)


def _merge_reports(a: _Report, b: _Report, layout: _Layout) -> _Report:
    """The report of the partitions of ``a`` followed by those of ``b``."""
    columns = tuple(
        _merge_column(ca, cb, layout.witness[j], layout.max_bins)
        for j, (ca, cb) in enumerate(zip(a.columns, b.columns, strict=True))
    )
    labels, overflow = a.labels, a.labels_overflow or b.labels_overflow
    if labels is not None:
        labels, more = _distinct_labels(_concat(a.labels, b.labels))
        overflow = overflow or more
    return _Report(columns, labels, overflow, {**a.rows, **b.rows}, a.weight + b.weight)


def _tree_reduce(client, futures: list, layout: _Layout):
    """The reports merged two by two, in partition order, up a tree of tasks."""
    while len(futures) > 1:
        merged = [
            client.submit(_merge_reports, a, b, layout)
            for a, b in zip(futures[0::2], futures[1::2], strict=False)
        ]
        if len(futures) % 2:
            merged.append(futures[-1])
        futures = merged
    return futures[0]


# ---------------------------------------------------------------------------------------------
# The client: schema, classes and bins from the merged report


def _cycled(sample: pd.Series, length: int) -> pd.Series:
    """``sample`` repeated to ``length`` values: the same distinct values and dtype."""
    return sample.iloc[np.arange(length) % len(sample)].reset_index(drop=True)


def _schema(report: _Report, source: _Source, nominal, ordinal, levels) -> tuple:
    """The schema of the whole ``X``: the union of the partitions' distinct values typed
    by :func:`~quercus.data.infer_schema`, as the whole column would be. Also, per column,
    whether it is typed as a categorical (its values kept as they are)."""
    length = max(len(column.sample) for column in report.columns)
    union = pd.DataFrame(
        {
            label: _cycled(column.sample, length)
            for label, column in zip(source.labels, report.columns, strict=True)
        }
    )
    _, schema = infer_schema(union, nominal=nominal, ordinal=ordinal)
    for feature, column in zip(schema.features, report.columns, strict=True):
        if feature.kind == NUMERIC_KIND:
            continue
        if column.overflow or feature.n_categories > MAX_VALUES:
            raise DataError(
                f"column {feature.name!r} has more than {MAX_VALUES:,} distinct categories:"
                " too many for a nominal attribute on a cluster (each category needs a code"
                " of 16 bits); drop it, or group its values first",
                column=feature.name,
            )
    categorical = tuple(
        isinstance(union[label].dtype, pd.CategoricalDtype) and name not in levels
        for label, name in zip(source.labels, source.names, strict=True)
    )
    return schema, categorical


def _classes(report: _Report) -> np.ndarray:
    """The class labels, as :func:`classes_and_codes` finds them in the whole ``y``."""
    labels = as_1d(report.labels, len(report.labels))
    classes = classes_and_codes(labels)[0]  # its errors first: continuous targets ...
    if report.labels_overflow:
        raise ValueError(
            f"y has more than {MAX_VALUES:,} distinct class labels: is it a regression target?"
        )
    return classes


def _numeric_summary(feature, column: _Column) -> summaries.NumericSummary:
    """The merged summary of a numeric feature; a :class:`DataError` naming the column when
    a partition's dtype hid its numbers from the first pass."""
    if column.summary is None:
        raise DataError(
            f"column {feature.name!r} is numeric, but some partitions of X hold it with"
            " another dtype than X's: give every partition X's dtypes",
            column=feature.name,
        )
    return column.summary


def _numeric_bins(schema: Schema, report: _Report, max_bins) -> tuple[list, list[int]]:
    """The bins of each numeric feature from its merged summary (None for the others), and
    the features whose summary was compressed."""
    bins, compressed = [], []
    for j, (feature, column) in enumerate(zip(schema.features, report.columns, strict=True)):
        if feature.kind != NUMERIC_KIND:
            bins.append(None)
            continue
        summary = _numeric_summary(feature, column)
        if not summary.exact:
            budget = resolve_max_bins(max_bins, int(summary.n_values), len(summary.values) + 1)
            if budget is None:
                raise DataError(
                    f"column {feature.name!r} has more than {MAX_VALUES:,} distinct values,"
                    f" and max_bins={max_bins!r} asks for one bin per value: on a cluster give"
                    " max_bins an integer (or 'auto') for such a feature",
                    column=feature.name,
                )
            compressed.append(j)
        bins.append(summaries.numeric_bins_from_summary(summary, max_bins))
    return bins, compressed


def _sample_partition(x_part, w_part, index: int, source: _Source, numeric, keep_zero_weight, at):
    """The values of the numeric features ``numeric`` (columns of ``X``, read as their
    typing reads them) in the rows at positions ``at`` among the kept rows of one
    partition: one row per position, one column per feature."""
    frame = _frame(x_part, source, index)
    w = _weights(w_part, len(frame), index)
    kept = np.arange(len(frame)) if keep_zero_weight else np.flatnonzero(w > 0)
    rows = kept[at]
    values = np.empty((len(rows), len(numeric)), dtype=np.float64)
    for k, j in enumerate(numeric):
        values[:, k] = _numbers(frame.iloc[rows, j])
    return values


def _sampled_bins(client, schema: Schema, report: _Report, layout: _Layout, xs, ws, sample):
    """The bins of each numeric feature (None for the others) placed by the values of the
    kept rows at the global positions ``sample`` (:func:`~quercus.binning.bin_sample`),
    read from the partitions that hold them: the edges a local fit places on the
    concatenated rows. Each bin's extremes are the sample's until the second pass gives
    those of every row."""
    import dask

    numeric = [j for j, f in enumerate(schema.features) if f.kind == NUMERIC_KIND]
    for j in numeric:
        _numeric_summary(schema.features[j], report.columns[j])
    kept = np.asarray([report.rows[i][1] for i in range(len(xs))], dtype=np.int64)
    ends = np.cumsum(kept)
    holder = np.searchsorted(ends, sample, side="right")  # the partition of each position
    read = dask.delayed(_sample_partition, pure=True)
    tasks = [
        read(
            xs[i],
            ws[i],
            int(i),
            layout.source,
            numeric,
            layout.keep_zero_weight,
            sample[holder == i] - (ends[i] - kept[i]),
        )
        for i in np.unique(holder)
    ]
    # In partition order: the rows of the sample in the order of their positions.
    values = np.concatenate(client.gather(client.compute(tasks)))
    bins = [None] * len(schema.features)
    for k, j in enumerate(numeric):
        bins[j] = numeric_bins(values[:, k], layout.max_bins)
    return bins


def _bins(client, schema: Schema, report: _Report, layout: _Layout, xs, ws) -> tuple:
    """The bins of each numeric feature (None for the others), as a local fit of the
    concatenated kept rows makes them: from the seeded sample of those rows where the local
    fit takes one (:func:`_sampled_bins`), else from the merged summaries. Also the features
    whose summaries were compressed, those whose bins' extremes the second pass finds, and
    the rows of the sample (0: none)."""
    n_kept = sum(report.rows[i][1] for i in range(len(xs)))
    numeric = [j for j, f in enumerate(schema.features) if f.kind == NUMERIC_KIND]
    sample = bin_sample(n_kept, layout.max_bins) if numeric else None
    if sample is None:
        bins, compressed = _numeric_bins(schema, report, layout.max_bins)
        return bins, compressed, compressed, 0
    bins = _sampled_bins(client, schema, report, layout, xs, ws, sample)
    return bins, [], numeric, len(sample)


def _quantile_capacity(max_bins) -> int:
    """The capacity of the summaries that were compressed (those of many rows)."""
    return summary_capacity(max_bins, AUTO_EXACT_MAX_ROWS + 1)


# ---------------------------------------------------------------------------------------------
# The second pass: binning each partition where it is


@dataclass
class _Plan:
    """What the second pass needs: how to type, bin and encode a partition."""

    source: _Source
    schema: Schema
    categorical: tuple[bool, ...]
    mapper: BinMapper
    classes: np.ndarray | None
    shares: tuple[int, float]  # rows of positive weight and their sum (as_counts)
    extremes: tuple[int, ...]  # numeric features whose bins' extremes this pass finds
    keep_zero_weight: bool


def _typed_column(feature, values: pd.Series, categorical: bool):
    """One column of a partition typed as type_column types the whole column."""
    if feature.kind == NUMERIC_KIND:
        return _numbers(values)
    if categorical:  # a categorical column keeps its values, whatever they look like
        return pd.Categorical(
            values, categories=list(feature.categories), ordered=feature.kind == ORDINAL_KIND
        )
    return align_column(feature, values)[0]


def _bin_partition(x_part, y_part, w_part, index: int, plan: _Plan):
    """The second pass over one partition: its kept rows typed, binned and
    encoded, ``(binned, y_class, y_value, w)``; beside them the bin extremes of the
    features of ``plan.extremes`` and the exact sum of the weights."""
    frame = _frame(x_part, plan.source, index)
    n = len(frame)
    w = _weights(w_part, n, index)
    labels = _labels(y_part, n, index, plan.classes is None)
    rows = np.arange(n) if plan.keep_zero_weight else np.flatnonzero(w > 0)
    frame, labels, w = frame.iloc[rows], labels[rows], w[rows]
    typed = pd.DataFrame(
        {
            j: _typed_column(feature, frame.iloc[:, j], plan.categorical[j])
            for j, feature in enumerate(plan.schema.features)
        },
        index=frame.index,
    )
    binned = bin_rows(plan.mapper, typed)
    extremes = {
        j: summaries.extremes_of_codes(
            typed.iloc[:, j].to_numpy(),
            np.ascontiguousarray(binned[:, j]),
            len(plan.mapper.edges[j]),
        )
        for j in plan.extremes
    }
    if plan.classes is None:
        y_class, y_value = np.zeros(len(rows), dtype=np.int32), labels.astype(np.float64)
    else:
        codes = pd.Index(plan.classes).get_indexer(labels)
        y_class, y_value = codes.astype(np.int32), np.zeros(len(rows), dtype=np.float64)
    w = counts_of_shares(w, *plan.shares)
    return (binned, y_class, y_value, w), (extremes, exact_sum(w))


# ---------------------------------------------------------------------------------------------
# ingest


def _first_pass(client, X, y, sample_weight, source: _Source, layout: _Layout) -> tuple:
    """The merged report of every partition, and the partitions as Delayed objects."""
    import dask

    collections = [X, y] + ([sample_weight] if sample_weight is not None else [])
    parts = _delayed_parts(collections)
    xs, ys = parts[0], parts[1]
    ws = parts[2] if sample_weight is not None else [None] * len(xs)
    if source.array and np.dtype(X.dtype) == object:  # the local path tries float64 first
        converts = client.gather(client.compute([dask.delayed(_converts)(x) for x in xs]))
        if all(converts):
            dtypes = [np.dtype(np.float64)] * len(source.names)
            layout.source = source._replace(as_float=True, dtypes=dtypes)
            layout.witness = layout.may_be_numeric
    layout_d = dask.delayed(layout, traverse=False)
    summarize = dask.delayed(_summarize_partition, pure=True)
    reports = client.compute(
        [
            summarize(x, y_, w, i, layout_d)
            for i, (x, y_, w) in enumerate(zip(xs, ys, ws, strict=True))
        ]
    )
    report = client.gather(_tree_reduce(client, reports, layout))
    return report, (xs, ys, ws)


def _converts(block) -> bool:
    try:
        np.asarray(block, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _layout(source: _Source, nominal, ordinal, max_bins, regression, y) -> tuple:
    """The first pass's :class:`_Layout`, and the columns given ordinal levels."""
    import dask.dataframe as dd

    forced, levels = _normalise_selection(
        source.names, *selection_by_name(source.names, nominal, ordinal)
    )
    chosen = tuple(name not in forced and name not in levels for name in source.names)
    witness = tuple(
        free and _is_number_dtype(dtype) for free, dtype in zip(chosen, source.dtypes, strict=True)
    )
    may_be_numeric = tuple(
        free
        and not isinstance(dtype, pd.CategoricalDtype)
        and not pd.api.types.is_bool_dtype(dtype)
        for free, dtype in zip(chosen, source.dtypes, strict=True)
    )
    y_series = isinstance(y, dd.Series | dd.DataFrame)
    layout = _Layout(source, witness, may_be_numeric, max_bins, bool(regression), y_series, False)
    return layout, levels


def ingest(
    client,
    X,
    y,
    sample_weight=None,
    *,
    nominal=None,
    ordinal=None,
    max_bins="auto",
    regression=False,
    keep_zero_weight=False,
) -> DistributedRows:
    """The training rows of Dask collections, binned and kept on the workers.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster's client (None: the current one).
    X : dask.dataframe.DataFrame or dask.array.Array
        The features: a frame (numbers, strings, categoricals, missing values) or a 2-D
        array (its columns named ``x0, x1, ...``).
    y : dask Series, one-column dask DataFrame or 1-D dask array
        Class labels, or numeric targets when ``regression``; partitioned as ``X``.
    sample_weight : dask Series or 1-D dask array, optional
        Non-negative weights, partitioned as ``X``.
    nominal, ordinal, max_bins
        As the estimators take them (``nominal_features``, ``ordinal_features``,
        ``max_bins``).
    regression : bool
        Whether ``y`` holds numeric targets rather than class labels.
    keep_zero_weight : bool
        Keep the rows of weight 0 (binned with the others, as a local forest bins them; its
        trees weigh them 0) instead of leaving them out (as a local tree does).

    Returns
    -------
    DistributedRows
        The schema, classes and bins, and one future per partition holding its binned rows.

    Raises
    ------
    TypeError
        ``X``, ``y`` or ``sample_weight`` is not a Dask collection of the kinds above.
    ValueError, DataError
        Collections partitioned differently, a column missing from a partition, missing
        labels, negative or non-finite weights, every weight zero, no rows; the errors of a
        local fit on the same data (each naming the column or partition at fault).
    """
    if client is None:
        from distributed import default_client

        client = default_client()
    X, source = _x_source(X)
    resolve_max_bins(max_bins, 0, 0)  # its error before any pass
    n_parts = _n_parts(X)
    _check_companion(y, "y", n_parts, allow_frame=True)
    if sample_weight is not None:
        _check_companion(sample_weight, "sample_weight", n_parts, allow_frame=False)
    layout, levels = _layout(source, nominal, ordinal, max_bins, regression, y)
    layout.keep_zero_weight = bool(keep_zero_weight)
    report, (xs, ys, ws) = _first_pass(client, X, y, sample_weight, source, layout)
    source = layout.source
    rows = [report.rows[i] for i in range(n_parts)]
    if not sum(n for n, _, _ in rows):
        raise DataError("X has no rows: every partition is empty")
    n_positive = sum(k for _, _, k in rows)
    if not n_positive:
        raise ValueError("sample_weight is zero for every sample: nothing to learn from")
    if report.weight > WEIGHT_LIMIT:  # the limit a local fit holds to
        raise ValueError(
            f"sample_weight sums to {float(report.weight):.3g} over {n_positive:,} rows, above "
            f"{WEIGHT_LIMIT:.0e}, the largest total weight quercus sums without overflow: "
            "divide the weights by a common factor"
        )
    schema, categorical = _schema(report, source, nominal, ordinal, levels)
    schema = with_target_name(schema, y if _is_dask_series(y) else None)  # a named Series
    classes = None if regression else _classes(report)
    bins, compressed, extremes, n_sample = _bins(client, schema, report, layout, xs, ws)
    mapper = mapper_from_bins(schema, bins, n_positive)  # the rows a local fit bins
    plan = _Plan(
        source,
        schema,
        categorical,
        mapper,
        classes,
        (n_positive, float(report.weight)),
        tuple(extremes),
        layout.keep_zero_weight,
    )
    kept = [i for i, (_, k, _) in enumerate(rows) if k]
    parts, extras = _second_pass(client, plan, kept, xs, ys, ws)
    for j in extremes:  # the true extremes of each bin, in place of provisional ones
        extremes = [extra[0][j] for extra in extras]
        merged = extremes[0]
        for more in extremes[1:]:
            merged = summaries.merge_extremes(merged, more)
        mapper.lo[j], mapper.hi[j] = merged.lo, merged.hi
    n_rows = [rows[i][1] for i in kept]
    depth = summaries.merge_depth(n_parts)
    return DistributedRows(
        schema,
        classes,
        mapper,
        *bin_tables(mapper),
        parts,
        n_rows,
        [int(r) for r in np.cumsum([0, *n_rows[:-1]])],
        float(sum((extra[1] for extra in extras), Fraction(0))),
        len(source.names),
        np.asarray(source.names, dtype=object)
        if all(isinstance(c, str) for c in source.labels) and not source.array
        else None,
        tuple(schema.features[j].name for j in compressed),
        summaries.quantile_rank_error(_quantile_capacity(max_bins), depth) if compressed else 0.0,
        n_sample,
    )


def _second_pass(client, plan: _Plan, kept: list[int], xs, ys, ws) -> tuple[list, list]:
    """One future per kept partition holding its binned rows, and what each reports."""
    import dask

    plan_d = dask.delayed(plan, traverse=False)
    bin_part = dask.delayed(_bin_partition, pure=True)
    outs = client.compute([bin_part(xs[i], ys[i], ws[i], i, plan_d) for i in kept])
    parts = [client.submit(operator.itemgetter(0), out) for out in outs]
    extras = client.gather([client.submit(operator.itemgetter(1), out) for out in outs])
    return parts, extras
