"""The compiled grower's application of a node's pending split: route each row to its branch
(missing values by the policy), test the split (chi-square), and move the rows so that each
child's rows are contiguous, summing the children's statistics on the way; or, FRACTIONAL,
copy a row with a missing value into every branch with its share of the weight.

:func:`partition_node` is what the growth loop (``_grow.py``) calls; the row loops are the
kernels of ``splitting/_partition.py`` and the test ``splitting/_significance.py``'s.
"""

from __future__ import annotations

import numpy as np

from .._config import (
    CLASS_MAJORITY,
    FRACTIONAL,
    LEAF,
    MULTIWAY_SPLIT,
    SUBSET_SPLIT,
    njit,
)
from ..splitting._category_bits import growing_width, settle_unseen
from ..splitting._partition import (
    SplitTest,
    copy_fractional,
    fractional_shares,
    missing_branch,
    move_rows,
    route_known,
    route_missing,
)
from ..splitting._significance import significant
from ._buffers import room_for_copies, row_arrays


@njit(inline="always")
def _route_rows(nd, src, cat_table, bins, s, part):
    """Give each row of node ``nd`` the branch of its pending split (``part``'s branch of
    each row), missing values by the policy: ``(branches, heaviest, missing child,
    fractional)``."""
    child_w, class_w, shares, counts = part.child_w, part.class_w, part.shares, part.counts
    child_of = part.child_of
    split_kind = nd.pending
    f = nd.feature
    n_ch = bins.n_bins[f] if split_kind == MULTIWAY_SPLIT else 2
    by_class = s.missing_mode == CLASS_MAJORITY and not s.regression
    for ch in range(n_ch):
        child_w[ch] = 0.0
        shares[ch] = 0.0
    for ch in range(n_ch if by_class else 1):
        for k in range(class_w.shape[1]):
            class_w[ch, k] = 0.0
    for ch in range(n_ch + 1):
        counts[ch] = 0
    x, yc, yv, w = src
    n_missing = route_known(
        x,
        yc,
        w,
        nd.start,
        nd.end,
        SplitTest(f, split_kind, nd.bin_cut, nd.cat_start),
        cat_table,
        bins.missing_code,
        by_class,
        child_of,
        counts,
        child_w,
        class_w,
    )
    heaviest, missing_child, w_known = missing_branch(
        child_w, n_ch, s.missing_mode, nd.missing_child
    )
    fractional = s.missing_mode == FRACTIONAL and n_missing > 0 and w_known > 0.0
    if fractional:
        fractional_shares(child_w, w_known, n_missing, n_ch, shares[:n_ch], counts)
    elif n_missing > 0:
        route_missing(
            child_of, nd.start, nd.end, yc, missing_child, by_class, class_w, n_ch, counts
        )
    return n_ch, heaviest, missing_child, fractional


@njit(inline="always")
def _reject_split(nd, n_bins, n_cat):
    """Make ``nd`` a leaf again (its split failed the chi-square test); free its category
    table when it is the last one; return the table's size."""
    if nd.cat_start >= 0 and nd.cat_start + growing_width(n_bins[nd.feature]) == n_cat:
        n_cat = nd.cat_start
    nd.pending = LEAF
    nd.feature = -1
    nd.missing_child = -1
    nd.cat_start = -1
    nd.threshold = np.nan
    return n_cat


@njit(inline="always")
def free_row(n, nd, stack, n_stack, pool_end, best_first, missing_mode):
    """FRACTIONAL: the first row free for the copies of node ``nd``'s children, after every
    pending node's rows: depth-first, past the ends of the work list's nodes."""
    if missing_mode != FRACTIONAL:
        return nd.end
    if best_first:
        return pool_end
    free_from = max(n, nd.end)
    for t in range(n_stack):
        free_from = max(free_from, stack[t].end)
    return free_from


# What :func:`_apply_split` did with a node's pending split.
_REJECTED, _MOVED, _COPIES_DUE = range(3)


@njit(refcounts=False)
def _apply_split(nd, rows, buffers, cat_table, n_cat, bins, s, part, words):
    """Route the rows of node ``nd`` by its pending split (missing values by the policy),
    test the split (chi-square) and move the rows so each child's are contiguous, summing
    the children's statistics (``part.child_stats``). Returns ``(what was done, branches,
    n_cat)``: the split rejected, the rows moved into the other row arrays, or (FRACTIONAL,
    rows with a missing value) routed only, their copies left to the caller, which may
    have to make room for them. Compiled without reference counts, as
    :func:`~._search.search_node` is."""
    shares, counts, fill, child_stats = part.shares, part.counts, part.fill, part.child_stats
    child_of = part.child_of
    start = nd.start
    end = nd.end
    src = row_arrays(nd.in_buffer, rows, buffers)
    n_ch, heaviest, missing_child, fractional = _route_rows(nd, src, cat_table, bins, s, part)
    if s.chi2_critical.shape[0] > 1 and not significant(
        child_of, start, end, src[1], src[3], shares[:n_ch], s.n_stats, s.chi2_critical
    ):
        # Pre-pruning: the class distribution does not depend on the branch.
        return _REJECTED, n_ch, _reject_split(nd, bins.n_bins, n_cat)
    if nd.pending == SUBSET_SPLIT:
        settle_unseen(cat_table, nd.cat_start, bins.n_bins[nd.feature], heaviest)
    for ch in range(n_ch):
        counts[ch + 1] += counts[ch]
    for ch in range(n_ch + 1):
        fill[ch] = counts[ch]
    for ch in range(n_ch):
        for k in range(child_stats.shape[1]):
            child_stats[ch, k] = 0.0
    nd.missing_child = missing_child
    if fractional:
        return _COPIES_DUE, n_ch, n_cat
    dst = row_arrays(1 - nd.in_buffer, rows, buffers)
    move_rows(src, dst, start, end, words, child_of, fill, s.regression, child_stats)
    return _MOVED, n_ch, n_cat


@njit(inline="always")
def partition_node(nd, rows, buffers, cat_table, n_cat, bins, s, part, free_from, words):
    """Apply the pending split of node ``nd`` (:func:`_apply_split`; ``part``: the
    :class:`~._buffers.PartitionScratch`); FRACTIONAL's copies go to the row arrays from row
    ``free_from`` on. Returns ``(applied, rows, buffers, branches, first row of the
    children, whether the children's rows are in the buffers, n_cat)``."""
    done, n_ch, n_cat = _apply_split(nd, rows, buffers, cat_table, n_cat, bins, s, part, words)
    if done == _REJECTED:
        return False, rows, buffers, n_ch, nd.start, 0, n_cat
    if done == _MOVED:
        return True, rows, buffers, n_ch, nd.start, 1 - nd.in_buffer, n_cat
    rows, buffers = room_for_copies(rows, buffers, free_from + part.counts[n_ch])
    copy_fractional(
        row_arrays(nd.in_buffer, rows, buffers),
        rows,
        nd.start,
        nd.end,
        free_from,
        bins.kinds.shape[0],
        part.child_of,
        part.shares[:n_ch],
        part.fill,
        s.regression,
        part.child_stats,
    )
    return True, rows, buffers, n_ch, free_from, 0, n_cat
