"""The first pass over a Dask collection: what each partition reports, merged up a tree.

Each partition reports, for every column, what the typing of the whole column depends on:
for a numeric column a present and a missing value (its dtype), for the others its distinct
values (at most :data:`~quercus.distributed.capacity.MAX_VALUES` of them are kept). A
column that may be numeric also gets the mergeable summary of its kept rows
(:func:`quercus.distributed.summaries.summarize`). The partition adds its distinct class
labels, its counts of rows and the exact sum of its weights. The reports are merged two by
two, in partition order, up a tree of tasks (:func:`first_pass`); the client reads the
schema, the classes and the bins from the merged :class:`Report`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data.errors import DataError
from ..data.read import selection_by_name
from ..data.schema import check_values, clean_object_column, is_real, normalise_selection
from . import summaries
from .capacity import MAX_VALUES, summary_capacity
from .partitions import (
    Source,
    column_numbers,
    delayed_parts,
    is_number_dtype,
    partition_frame,
    partition_labels,
    partition_weights,
)
from .sums import exact_sum

__all__ = ["Column", "Layout", "Report", "first_pass", "first_pass_layout"]

# Missing markers ('', '?', None, NaN ...) kept per column: one is enough to type the column.
_MISSING_KEPT = 8


@dataclass
class Layout:
    """What the first pass needs to know of the columns."""

    source: Source
    witness: tuple[bool, ...]  # numeric columns: a present and a missing value are enough
    may_be_numeric: tuple[bool, ...]  # columns that type_column may make numeric
    max_bins: object
    regression: bool
    y_series: bool  # y comes as pandas objects (else NumPy blocks)
    keep_zero_weight: bool  # rows of weight 0 are kept (and binned) too


class Column(NamedTuple):
    """What the rows of some partitions tell of one column."""

    sample: pd.Series  # distinct values (at most MAX_VALUES + 1 present), or a witness
    overflow: bool  # more than MAX_VALUES distinct present values were seen
    all_real: bool  # every present value is a real number
    summary: summaries.NumericSummary | None  # the kept rows, where may be numeric


class Report(NamedTuple):
    """What some partitions tell: their columns, distinct labels, rows and weight."""

    columns: tuple[Column, ...]
    labels: object  # distinct class labels (Series or ndarray); None for a regression
    labels_overflow: bool
    rows: dict  # partition -> (rows, rows kept, rows of positive weight)
    weight: Fraction  # the exact sum of the positive weights


def first_pass_layout(source: Source, nominal, ordinal, max_bins, regression, y) -> tuple:
    """The first pass's :class:`Layout`, and the columns given ordinal levels."""
    import dask.dataframe as dd

    forced, levels = normalise_selection(
        source.names, *selection_by_name(source.names, nominal, ordinal)
    )
    chosen = tuple(name not in forced and name not in levels for name in source.names)
    witness = tuple(
        free and is_number_dtype(dtype) for free, dtype in zip(chosen, source.dtypes, strict=True)
    )
    may_be_numeric = tuple(
        free
        and not isinstance(dtype, pd.CategoricalDtype)
        and not pd.api.types.is_bool_dtype(dtype)
        for free, dtype in zip(chosen, source.dtypes, strict=True)
    )
    y_series = isinstance(y, dd.Series | dd.DataFrame)
    layout = Layout(source, witness, may_be_numeric, max_bins, bool(regression), y_series, False)
    return layout, levels


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
    missing = clean_object_column(distinct).isna().to_numpy()
    present = np.flatnonzero(~missing)
    markers = np.flatnonzero(missing)
    if len(present) <= MAX_VALUES and len(markers) <= _MISSING_KEPT:
        return distinct, False
    kept = np.sort(np.concatenate([present[: MAX_VALUES + 1], markers[:_MISSING_KEPT]]))
    return distinct.iloc[kept], len(present) > MAX_VALUES


def _witness(values: pd.Series, missing: np.ndarray) -> pd.Series:
    """A present and a missing value of a numeric column (those it has), in its dtype."""
    return pd.concat([values[~missing].iloc[:1], values[missing].iloc[:1]])


def _column_report(name, values, keep, j, layout: Layout, index) -> Column:
    if layout.witness[j]:
        if not is_number_dtype(values.dtype):
            raise DataError(
                f"column {name!r} is {layout.source.dtypes[j]} in X but {values.dtype} in"
                f" partition {index}: every partition must have X's dtypes",
                column=name,
            )
        numbers = column_numbers(values)
        _refuse_infinite(name, numbers, index)
        witness = _witness(values, np.isnan(numbers))
        return Column(witness, False, True, _summary(numbers[keep], layout.max_bins))
    if values.dtype == object:
        try:
            check_values(name, values)
        except DataError as exc:
            raise DataError(f"{exc} (in partition {index})", column=name) from None
    distinct = _distinct(values)
    cleaned = clean_object_column(distinct)
    all_real = bool(cleaned.dropna().map(is_real).all())
    summary = None
    if layout.may_be_numeric[j] and all_real:
        numbers = column_numbers(values)
        _refuse_infinite(name, numbers, index)
        summary = _summary(numbers[keep], layout.max_bins)
    sample, overflow = _capped(distinct)
    return Column(sample, overflow, all_real, summary)


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


def _summarize_partition(x_part, y_part, w_part, index: int, layout: Layout) -> Report:
    """The first pass over one partition."""
    frame = partition_frame(x_part, layout.source, index)
    n = len(frame)
    w = partition_weights(w_part, n, index)
    positive = w > 0
    keep = np.ones(n, dtype=bool) if layout.keep_zero_weight else positive
    labels = partition_labels(y_part, n, index, layout.regression)
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
    return Report(columns, sample, overflow, {index: counts}, exact_sum(w[positive]))


def _concat(a, b):
    """Two samples of one column or of the labels, concatenated as Dask concatenates the
    partitions of a collection (categories of categoricals united, in order)."""
    if isinstance(a, np.ndarray):
        return np.concatenate([a, b])
    from dask.dataframe.dispatch import concat

    return concat([a, b])


def _merge_column(a: Column, b: Column, witness: bool, max_bins) -> Column:
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
    return Column(sample, overflow, a.all_real and b.all_real, summary)


def _merge_reports(a: Report, b: Report, layout: Layout) -> Report:
    """The report of the partitions of ``a`` followed by those of ``b``."""
    columns = tuple(
        _merge_column(ca, cb, layout.witness[j], layout.max_bins)
        for j, (ca, cb) in enumerate(zip(a.columns, b.columns, strict=True))
    )
    labels, overflow = a.labels, a.labels_overflow or b.labels_overflow
    if labels is not None:
        labels, more = _distinct_labels(_concat(a.labels, b.labels))
        overflow = overflow or more
    return Report(columns, labels, overflow, {**a.rows, **b.rows}, a.weight + b.weight)


def _tree_reduce(client, futures: list, layout: Layout):
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


def first_pass(client, X, y, sample_weight, source: Source, layout: Layout) -> tuple:
    """The merged report of every partition, and the partitions as Delayed objects."""
    import dask

    collections = [X, y] + ([sample_weight] if sample_weight is not None else [])
    parts = delayed_parts(collections)
    xs, ys = parts[0], parts[1]
    ws = parts[2] if sample_weight is not None else [None] * len(xs)
    if source.array and np.dtype(X.dtype) == object:  # the local path tries float64 first
        converts = client.gather(client.compute([dask.delayed(_converts)(x) for x in xs]))
        if all(converts):
            layout.source = source.as_float64()
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
