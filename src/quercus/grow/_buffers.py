"""The compiled grower's memory: arrays grown by doubling, the copies of the row arrays that
partitioning moves rows into, the scratch space of the scans and of partitioning, the work
list and the tables.

Everything here is allocated once per tree, or grown by doubling when it runs out: the
per-node steps (``_search.py``, ``_apply.py``) allocate nothing, which lets them be
compiled without reference counts (``_config.njit``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import njit
from ..criteria.registry import ABSOLUTE_ERROR
from ..splitting._absolute import AbsoluteScratch
from ..splitting._histogram import stats_scratch
from ._records import TRACE, WORK


@njit(inline="always")
def grow_rows(a, need):
    """``a``, or a copy with room for ``need`` rows (doubling). Inlined so that the common
    case, room enough, makes no call: a call per node counts its arrays up and down."""
    if need <= a.shape[0]:
        return a
    return _larger_rows(a, need)


@njit
def _larger_rows(a, need):
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(inline="always")
def grow_flat(a, need):
    """:func:`grow_rows` of a 1-d array."""
    if need <= a.shape[0]:
        return a
    return _larger_flat(a, need)


@njit
def _larger_flat(a, need):
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(inline="always")
def row_arrays(in_buffer, rows, buffers):
    """The row arrays ``(x, y_class, y_value, w)`` a node's rows are in: the input arrays,
    or their copies when ``in_buffer`` (partitioning moves rows between the two)."""
    if in_buffer:
        return buffers
    return rows


class ScanScratch(NamedTuple):
    """Scratch space of one feature's statistics and scans at a node: the dense histogram
    (``max_b`` bins), the present codes and their statistics, the statistics of the missing
    values, :func:`~quercus.splitting._histogram.feature_stats`'s row order, codes and
    sort space, the scans' accumulators and the order of a subset split's categories."""

    dense: np.ndarray
    present: np.ndarray
    stats: np.ndarray
    missing: np.ndarray
    order_buf: np.ndarray
    code_buf: np.ndarray
    stats_space: tuple
    acc: np.ndarray
    order: np.ndarray


class PartitionScratch(NamedTuple):
    """Scratch space of partitioning a node: per branch, the known weight, the weight of
    each class, the share (FRACTIONAL), the rows (then their offsets: ``counts[ch]`` to
    ``counts[ch + 1]``), the next free row and the children's statistics; and the branch of
    each row."""

    child_w: np.ndarray
    class_w: np.ndarray
    shares: np.ndarray
    counts: np.ndarray
    fill: np.ndarray
    child_of: np.ndarray
    child_stats: np.ndarray


@njit
def scratch_space(data, max_b, n_stats, s):
    """Scratch space of the scans, of partitioning and of the learning trace, allocated once
    per tree rather than at every node (about 68,000 allocations per forest tree at 80,000
    rows before): ``(ScanScratch, PartitionScratch, AbsoluteScratch)``."""
    n = data.shape[0]
    scan = ScanScratch(
        np.zeros((max_b, n_stats)),  # dense histogram
        np.zeros(max_b, dtype=np.int64),  # present codes
        np.zeros((max_b, n_stats)),  # their statistics
        np.zeros((1, n_stats)),  # statistics of the missing values
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=data.dtype),
        stats_scratch(n, max_b, data[:1, 0]),
        np.zeros((6 + max_b, n_stats)),  # the scans' accumulators
        np.zeros(max_b, dtype=np.int64),  # order of a subset split's categories
    )
    max_ch = max(max_b, 2)
    part = PartitionScratch(
        np.zeros(max_ch),  # known weight per branch
        np.zeros((max_ch, n_stats)),  # per branch and class
        np.zeros(max_ch),  # shares (FRACTIONAL)
        np.zeros(max_ch + 1, dtype=np.int64),  # rows per branch, then their offsets
        np.zeros(max_ch + 1, dtype=np.int64),  # next free row of each branch
        np.zeros(n, dtype=np.int32),  # branch of each row
        np.zeros((max_ch, n_stats)),  # the children's statistics
    )
    # Absolute error works on ranked rows rather than histograms (see _absolute.py).
    n_abs = n if s.criterion == ABSOLUTE_ERROR else 1
    absolute = AbsoluteScratch(
        np.zeros(n_abs, dtype=np.int64),
        np.zeros(n_abs),
        np.zeros(n_abs + 1),
        np.zeros(n_abs + 1),
        np.zeros(n_abs + 1),
        np.zeros(n_abs + 1),
        np.zeros(n_abs, dtype=np.int64),
        np.zeros(n_abs, dtype=data.dtype),
        np.zeros(n_abs + 1, dtype=np.int64),
        np.zeros(max_b),
    )
    return scan, part, absolute


@njit
def row_buffers(data, y_class, y_value, w):
    """The copies of the row arrays: partitioning moves a node's rows between the row arrays
    and these (the same rows of the other copy), so a node's rows are in one or the other
    and never need copying back."""
    return np.empty_like(data), np.empty_like(y_class), np.empty_like(y_value), np.empty_like(w)


@njit(inline="always")
def room_for_copies(rows, buffers, need):
    """FRACTIONAL: the row arrays and their copies with room for ``need`` rows."""
    data, y_class, y_value, w = rows
    if need <= data.shape[0]:
        return rows, buffers
    cap = max(need, 2 * data.shape[0])
    buf_data, buf_yc, buf_yv, buf_w = buffers
    rows = (
        grow_rows(data, cap),
        grow_flat(y_class, cap),
        grow_flat(y_value, cap),
        grow_flat(w, cap),
    )
    buffers = (
        grow_rows(buf_data, cap),
        grow_flat(buf_yc, cap),
        grow_flat(buf_yv, cap),
        grow_flat(buf_w, cap),
    )
    return rows, buffers


@njit
def work_list(n, n_stats):
    """The work list, holding the root (rows ``0:n``), and each item's statistics (summed
    by the parent's partition; the root's are summed when it is created)."""
    stack = np.zeros(64, dtype=WORK)
    stack[0].end = n
    stack[0].slot = -1
    stack[0].parent = -1
    stack[0].hist = -1
    return stack, np.zeros((64, n_stats))


@njit(inline="always")
def empty_tables(max_b, s):
    """The category table and the learning trace, empty: ``(cat_table, n_cat, trace,
    trace_sides, n_trace)``."""
    trace = np.zeros(64 if s.trace_on else 0, dtype=TRACE)
    return (
        np.zeros(64, dtype=np.int32),
        0,
        trace,
        np.zeros((trace.shape[0], max_b), dtype=np.int8),
        0,
    )
