"""Mergeable summaries of a numeric feature, and the bins made from them.

When the rows of a feature are spread over partitions, each partition summarises its column
(:func:`summarize`), the summaries are merged up a tree (:func:`merge`) and the merged summary
gives the bins (:func:`numeric_bins_from_summary`), the same kind of bins that
:func:`quercus.binning.numeric_bins` makes of a whole column.

A summary is *exact* while it holds every distinct value with its count; those are all
:func:`~quercus.binning.numeric_bins` depends on, so exact summaries give bit for bit the
local bins. A column with more distinct values than the summary's ``capacity`` is
*compressed* to ``capacity`` weighted points: a weighted quantile summary, in which each kept
point stands for the rows between it and the previous kept point. Its quantile edges are
approximate (:func:`quantile_rank_error` bounds how far) and its per-bin smallest and largest
values are only provisional, so the distributed binning takes two passes over the rows for a
compressed feature: the summaries, then :func:`bin_extremes` per partition merged by
:func:`merge_extremes`. An exact feature needs only the first pass.

**The bound.** Let ``N`` be the number of non-missing rows, ``k`` the capacity and ``d`` the
depth of the merge tree (the most merges on the way from a partition to the root: ``d = 0``
for one partition, ``ceil(log2 P)`` for ``P`` partitions merged two by two). Write
``eps = (d + 1) / (k - 1)``. A compression of summaries of ``W`` rows moves less than
``W / (k - 1)`` of them (it keeps a point wherever the cumulative weight crosses a multiple
of ``W / (k - 1)``), a merge adds errors, and each level of the tree compresses at most
``N`` rows in all: so the summary's rank of any ``x`` (the weight of its points ``<= x``)
is never above the true rank ``r(x) = #{rows <= x}`` and less than ``eps * N`` below it,
and a point's weight exceeds its own count by less than ``eps * N``. Hence a quantile edge
``e`` aimed at rank ``t = N * b / max_bins`` satisfies::

    t <= r(e) < t + m + 2 * eps * N

where ``m`` is the count of the summary point just below ``e`` (a training value). The
exact rule of :func:`~quercus.binning.numeric_bins` satisfies it with ``eps = 0``: an edge
between values cannot split the ties of one value. With ``k = 8192`` and 32 partitions,
``2 * eps = 0.15 %`` of the rows, a tenth of a bin of 255.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..binning import bins_from_distinct, cut_bins, resolve_max_bins
from ..binning._kernels import code_extremes
from ..data.errors import DataError

__all__ = [
    "BinExtremes",
    "NumericSummary",
    "bin_extremes",
    "extremes_of_codes",
    "merge",
    "merge_depth",
    "merge_extremes",
    "numeric_bins_from_summary",
    "quantile_rank_error",
    "summarize",
]


class NumericSummary(NamedTuple):
    """The summary of a numeric column (or of several merged).

    Attributes
    ----------
    values : ndarray of float64
        Sorted distinct training values (the points kept when compressed).
    weights : ndarray of float64
        The rows each value stands for: its count when exact; when compressed, the rows
        above the previous kept value up to and including this one.
    n_values : int
        Non-missing rows summarised (the sum of ``weights``).
    n_missing : int
        Missing (NaN) rows.
    exact : bool
        True while ``values`` and ``weights`` are every distinct value with its exact count.
    """

    values: np.ndarray
    weights: np.ndarray
    n_values: int
    n_missing: int
    exact: bool


class BinExtremes(NamedTuple):
    """The smallest (``lo``) and largest (``hi``) value in each bin, NaN for an empty bin."""

    lo: np.ndarray
    hi: np.ndarray


def _check_capacity(capacity) -> int:
    if isinstance(capacity, bool) or not isinstance(capacity, int | np.integer) or capacity < 2:
        raise ValueError(
            f"capacity must be an integer >= 2 (the summary keeps the smallest and largest"
            f" value), got {capacity!r}"
        )
    return int(capacity)


def summarize(values: np.ndarray, capacity: int, *, column: str | None = None) -> NumericSummary:
    """The summary of one partition's column (NaN = missing).

    Exact when the column has at most ``capacity`` distinct values, else compressed to
    ``capacity`` weighted points that keep the smallest and largest value. An infinite value
    is a :class:`~quercus.DataError` naming ``column`` and the row in the partition, as when
    a local fit reads it.
    """
    capacity = _check_capacity(capacity)
    values = np.asarray(values, dtype=np.float64).ravel()
    infinite = np.flatnonzero(np.isinf(values))
    if len(infinite):
        row = int(infinite[0])
        named = "a column" if column is None else f"column {column!r}"
        raise DataError(
            f"{named} has an infinite value ({values[row]}) in row {row} of its"
            " partition: replace it with a finite number or leave the cell empty (missing)",
            column=column,
        )
    missing = np.isnan(values)
    distinct, counts = np.unique(values[~missing], return_counts=True)
    n_missing = int(missing.sum())
    summary = NumericSummary(
        distinct, counts.astype(np.float64), len(values) - n_missing, n_missing, True
    )
    return _compress(summary, capacity)


def merge(summaries, capacity: int) -> NumericSummary:
    """The summary of the union of the rows of ``summaries``.

    Exact if every input is exact and the union has at most ``capacity`` distinct values,
    otherwise compressed as in :func:`summarize`. The result does not depend on the order of
    the inputs: values are pooled and sorted, and weights (whole numbers) add exactly.
    """
    capacity = _check_capacity(capacity)
    summaries = list(summaries)
    if not summaries:
        raise ValueError("merge needs at least one summary, got none")
    pooled = np.concatenate([s.values for s in summaries])
    distinct, where = np.unique(pooled, return_inverse=True)
    weights = np.bincount(
        where, weights=np.concatenate([s.weights for s in summaries]), minlength=len(distinct)
    )
    summary = NumericSummary(
        distinct,
        weights.astype(np.float64),
        sum(int(s.n_values) for s in summaries),
        sum(int(s.n_missing) for s in summaries),
        all(s.exact for s in summaries),
    )
    return _compress(summary, capacity)


def _compress(summary: NumericSummary, capacity: int) -> NumericSummary:
    """At most ``capacity`` points: the first point where the cumulative weight reaches each
    of ``j * W / (capacity - 1)``, ``j = 0 .. capacity - 1`` (the smallest and the largest
    value among them), then evenly spread points until ``capacity`` are kept. The weight
    strictly between two kept points is less than ``W / (capacity - 1)``."""
    values, weights = summary.values, summary.weights
    if len(values) <= capacity:
        return summary
    cumulative = np.cumsum(weights)
    targets = cumulative[-1] * np.arange(capacity) / (capacity - 1)
    keep = np.zeros(len(values), dtype=bool)
    # Targets 0 and W fall on the first and the last point (every weight is positive).
    keep[np.searchsorted(cumulative, targets, side="left")] = True
    # Ties that carry several targets leave room: more points only make the summary closer.
    spare = np.flatnonzero(~keep)
    n_more = capacity - int(keep.sum())
    keep[spare[np.round(np.linspace(0, len(spare) - 1, n_more)).astype(np.int64)]] = True
    kept = np.flatnonzero(keep)
    kept_weights = np.diff(cumulative[kept], prepend=0.0)
    return NumericSummary(values[kept], kept_weights, summary.n_values, summary.n_missing, False)


def quantile_rank_error(capacity: int, depth: int) -> float:
    """How far past its target rank a quantile edge of a compressed summary may land, as a
    fraction of the rows: ``2 * (depth + 1) / (capacity - 1)``.

    ``depth`` is the depth of the merge tree (0 for one partition, ``ceil(log2 P)`` for ``P``
    partitions merged two by two). An edge aimed at rank ``t`` has a true rank ``r`` with
    ``t <= r < t + m + quantile_rank_error(capacity, depth) * N``, ``m`` the count of the
    value just below the edge (see the module's description).
    """
    capacity = _check_capacity(capacity)
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    return 2.0 * (int(depth) + 1) / (capacity - 1)


def merge_depth(n_partitions: int) -> int:
    """The depth of a binary merge tree over ``n_partitions`` summaries."""
    return math.ceil(math.log2(n_partitions)) if n_partitions > 1 else 0


def numeric_bins_from_summary(summary: NumericSummary, max_bins="auto"):
    """Bins of a numeric feature from its summary: ``(edges, lo, hi)``.

    Exact summary: bit for bit the bins :func:`quercus.binning.numeric_bins` makes of all
    the rows. Compressed summary: quantile edges at the midpoints between adjacent summary
    points (each edge ``>=`` the point below it and ``<`` the point above), with ``lo`` and
    ``hi`` provisional (summary points, not necessarily the extremes of each bin): a second
    pass of :func:`bin_extremes` and :func:`merge_extremes` gives the exact ones.

    A compressed summary cannot give one bin per distinct value: a ``max_bins`` that asks
    for exact bins on its rows raises a ``ValueError`` naming ``capacity``.
    """
    if summary.exact:
        return bins_from_distinct(summary.values, summary.weights, max_bins)
    # Compression dropped values, so the column has more distinct values than points.
    budget = resolve_max_bins(max_bins, int(summary.n_values), len(summary.values) + 1)
    if budget is None:
        raise ValueError(
            f"max_bins={max_bins!r} asks for one bin per distinct value on {summary.n_values}"
            f" rows, but the summary was compressed to {len(summary.values)} points: summarise"
            " with a larger capacity (more than the column's distinct values)"
        )
    return cut_bins(summary.values, summary.weights, budget)


def bin_extremes(values: np.ndarray, edges: np.ndarray) -> BinExtremes:
    """The smallest and largest of one partition's ``values`` in each bin of ``edges``
    (bin ``b`` holds ``edges[b-1] < x <= edges[b]``); NaN for a bin without values.
    Missing values (NaN) are left out."""
    values = np.asarray(values, dtype=np.float64).ravel()
    ordered = np.sort(values[~np.isnan(values)])
    edges = np.asarray(edges, dtype=np.float64)
    bounds = np.concatenate([[0], np.searchsorted(ordered, edges, side="right"), [len(ordered)]])
    starts, stops = bounds[:-1], bounds[1:]
    filled = stops > starts
    lo = np.full(len(edges) + 1, np.nan)
    hi = np.full(len(edges) + 1, np.nan)
    lo[filled] = ordered[starts[filled]]
    hi[filled] = ordered[stops[filled] - 1]
    return BinExtremes(lo, hi)


def extremes_of_codes(values: np.ndarray, codes: np.ndarray, n_edges: int) -> BinExtremes:
    """:func:`bin_extremes` of ``values`` whose bin codes are known (``codes``, as
    :meth:`~quercus.binning.BinMapper.transform` gives them for ``n_edges`` edges; the
    missing code and NaN values are left out), in one pass instead of a sort."""
    lo = np.full(n_edges + 1, np.inf)
    hi = np.full(n_edges + 1, -np.inf)
    code_extremes(np.asarray(values, dtype=np.float64), np.asarray(codes), lo, hi)
    empty = lo > hi
    lo[empty] = hi[empty] = np.nan
    return BinExtremes(lo, hi)


def merge_extremes(a: BinExtremes, b: BinExtremes) -> BinExtremes:
    """The per-bin extremes of the rows of ``a`` and ``b`` together (same edges)."""
    if len(a.lo) != len(b.lo):
        raise ValueError(f"bin extremes of different binnings: {len(a.lo)} and {len(b.lo)} bins")
    return BinExtremes(np.fmin(a.lo, b.lo), np.fmax(a.hi, b.hi))
