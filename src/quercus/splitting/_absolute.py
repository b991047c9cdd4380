"""Numba kernels for the absolute-error criterion (regression trees with median leaves).

The impurity of a set of rows is the weighted mean absolute deviation from its weighted
median. Histograms of sums cannot give medians, so these kernels work on the node's rows:
the rows are ranked by target once per node, and a Fenwick (binary indexed) tree over the
ranks holds the weight and the weighted target sum of the rows on the left of a cut. The
median of either side and its deviation then cost O(log^2 m) per candidate cut.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._config import njit


class AbsoluteScratch(NamedTuple):
    """Scratch space of :func:`absolute_split` for nodes of up to ``m`` rows, allocated once
    per tree: each row's rank by target and the sorted targets (:func:`node_ranks`), the
    Fenwick trees (``m + 1`` each) of the left side's and of the known rows' weights and
    weighted targets, the known rows and their codes, where each group of one code starts
    (``m + 1``), and each group's median (one per code)."""

    rank: np.ndarray
    sorted_y: np.ndarray
    fw_l: np.ndarray
    fs_l: np.ndarray
    fw_k: np.ndarray
    fs_k: np.ndarray
    rows: np.ndarray
    codes: np.ndarray
    group_start: np.ndarray
    medians: np.ndarray


@njit
def _fen_reset(tree, m):
    for i in range(m + 1):
        tree[i] = 0.0


@njit
def _fen_add(tree, m, i, v):
    """Add ``v`` at 0-based position ``i``."""
    i += 1
    while i <= m:
        tree[i] += v
        i += i & (-i)


@njit
def _fen_prefix(tree, i):
    """Sum over 0-based positions ``0..i``."""
    s = 0.0
    i += 1
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


@njit
def _deviation(fw_a, fs_a, fw_b, fs_b, m, sorted_y, W, S, sign):
    """Sum of weighted absolute deviations from the weighted median of a set.

    The set is ``a`` (``sign`` = 0) or ``a`` minus ``b`` (``sign`` = 1), each a pair of
    Fenwick trees (weights, weighted targets) over the target ranks. The deviations are
    taken from the value at the lowest rank whose prefix weight reaches half of ``W``: where
    that weight is exactly half, every value up to the next rank's (the leaf's median,
    :func:`weighted_median`, is their midpoint) has the same sum of deviations.
    """
    if W <= 0.0:
        return 0.0
    half = W / 2.0
    lo = 0
    hi = m - 1
    while lo < hi:  # lowest rank k with prefix weight >= half
        mid = (lo + hi) // 2
        pw = _fen_prefix(fw_a, mid)
        if sign == 1:
            pw -= _fen_prefix(fw_b, mid)
        if pw >= half - 1e-12 * W:
            hi = mid
        else:
            lo = mid + 1
    wb = _fen_prefix(fw_a, lo)
    sb = _fen_prefix(fs_a, lo)
    if sign == 1:
        wb -= _fen_prefix(fw_b, lo)
        sb -= _fen_prefix(fs_b, lo)
    med = sorted_y[lo]
    dev = med * wb - sb + (S - sb) - med * (W - wb)
    return dev if dev > 0.0 else 0.0


@njit
def weighted_median(ys, ws):
    """Weighted median of values ``ys`` (any order) with weights ``ws``, as scikit-learn's
    ``criterion="absolute_error"`` defines a leaf's value: the smallest value whose
    cumulative weight passes half the total, or, where the cumulative weight up to a value
    equals half (up to rounding), the midpoint of that value and the next one of positive
    weight (of 1.0, 1.1, 1.2, 1.3: 1.15). 0 for no values."""
    order = np.argsort(ys, kind="mergesort")
    total = 0.0
    for i in range(len(ws)):
        total += ws[i]
    half = total / 2.0
    tolerance = 1e-12 * total  # a sum of shares (weights of 1/n) may miss half by rounding
    acc = 0.0
    lower = 0.0
    reached = False
    for t in range(len(order)):
        acc += ws[order[t]]
        if not reached and acc >= half - tolerance:
            lower = ys[order[t]]
            reached = True
        if acc > half + tolerance:
            upper = ys[order[t]]  # ``lower`` itself unless half was met exactly
            # The midpoint, halves first: the sum of two huge targets would overflow.
            return lower if upper == lower else 0.5 * lower + 0.5 * upper
    return lower


@njit
def node_ranks(y_value, start, end, rank, sorted_y):
    """Rank of every row of the node by target (ties by position); the sorted targets."""
    m = end - start
    order = np.argsort(y_value[start:end], kind="mergesort")
    for t in range(m):
        rank[order[t]] = t
        sorted_y[t] = y_value[start + order[t]]


@njit(inline="always")
def _known_rows_by_code(data, w, start, end, f, missing_code, rows, codes, present, group_start):
    """The node's rows with a known code, sorted by code (stable) and grouped: ``(sorted
    rows, n_known, n_groups, missing weight)``; ``present`` receives each group's code and
    ``group_start`` where each group begins (n_groups is 0 under two known rows)."""
    n_known = 0
    w_missing = 0.0
    for r in range(start, end):
        c = data[r, f]
        if c == missing_code:
            w_missing += w[r]
        else:
            codes[n_known] = c
            rows[n_known] = r
            n_known += 1
    if n_known < 2:
        return np.empty(0, dtype=np.int64), n_known, 0, w_missing
    by_code = np.argsort(codes[:n_known], kind="mergesort")
    sorted_rows = np.empty(n_known, dtype=np.int64)
    n_groups = 0
    last = -1
    for t in range(n_known):
        c = codes[by_code[t]]
        sorted_rows[t] = rows[by_code[t]]
        if c != last:
            present[n_groups] = c
            group_start[n_groups] = t
            n_groups += 1
            last = c
    group_start[n_groups] = n_known
    return sorted_rows, n_known, n_groups, w_missing


@njit(inline="always")
def _add_rows(fw, fs, m, sorted_rows, a, b, rank, start, y_value, w, w_sum, s_sum):
    """Add rows ``sorted_rows[a:b]`` to the Fenwick pair ``(fw, fs)``; returns ``w_sum`` and
    ``s_sum`` plus their weights and weighted targets, added one row at a time."""
    for t in range(a, b):
        r = sorted_rows[t]
        _fen_add(fw, m, rank[r - start], w[r])
        _fen_add(fs, m, rank[r - start], w[r] * y_value[r])
        w_sum += w[r]
        s_sum += w[r] * y_value[r]
    return w_sum, s_sum


@njit(inline="always")
def _group_medians(y_value, w, sorted_rows, group_start, n_groups, min_leaf, medians):
    """Each group's weighted median (into ``medians``) and weight, the total deviation of
    the groups from their medians, and how many groups weigh at least ``min_leaf``."""
    group_w = np.zeros(n_groups)
    total_dev = 0.0
    big_enough = 0
    for g in range(n_groups):
        a = group_start[g]
        b = group_start[g + 1]
        ys = np.empty(b - a)
        ws = np.empty(b - a)
        for t in range(a, b):
            ys[t - a] = y_value[sorted_rows[t]]
            ws[t - a] = w[sorted_rows[t]]
            group_w[g] += ws[t - a]
        med = weighted_median(ys, ws)
        medians[g] = med
        for t in range(b - a):
            total_dev += ws[t] * abs(ys[t] - med)
        if group_w[g] >= min_leaf and group_w[g] > 0.0:
            big_enough += 1
    return group_w, total_dev, big_enough


@njit(inline="always")
def _scan_groups(
    y_value,
    w,
    start,
    m,
    order,
    n_groups,
    sorted_rows,
    scratch,
    min_leaf,
    w_known,
    s_known,
    parent_dev,
):
    """Best cut of the groups in ``order`` (a prefix goes left): ``(gain over the known
    rows, last group on the left, left weight)``. ``scratch.fw_l``/``fs_l`` receive the left
    side; ``scratch.fw_k``/``fs_k``, ``w_known``, ``s_known`` and ``parent_dev`` describe
    the known rows."""
    group_start, rank, sorted_y = scratch.group_start, scratch.rank, scratch.sorted_y
    fw_l, fs_l, fw_k, fs_k = scratch.fw_l, scratch.fs_l, scratch.fw_k, scratch.fs_k
    _fen_reset(fw_l, m)
    _fen_reset(fs_l, m)
    w_left = 0.0
    s_left = 0.0
    best_gain = -1.0
    best_i = -1
    best_wl = 0.0
    for gi in range(n_groups - 1):
        g = order[gi]
        a = group_start[g]
        b = group_start[g + 1]
        w_left, s_left = _add_rows(
            fw_l, fs_l, m, sorted_rows, a, b, rank, start, y_value, w, w_left, s_left
        )
        w_right = w_known - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        dev_l = _deviation(fw_l, fs_l, fw_l, fs_l, m, sorted_y, w_left, s_left, 0)
        dev_r = _deviation(fw_k, fs_k, fw_l, fs_l, m, sorted_y, w_right, s_known - s_left, 1)
        gain = (parent_dev - dev_l - dev_r) / w_known
        if gain > best_gain + 1e-12:
            best_gain = gain
            best_i = gi
            best_wl = w_left
    return best_gain, best_i, best_wl


@njit
def absolute_split(data, y_value, w, start, end, f, missing_code, mode, min_leaf, present, scratch):
    """Best split of feature ``f`` by absolute error at the node ``start:end``.

    ``mode``: 0 threshold (ordered codes), 1 multiway, 2 binary subset (categories ordered
    by their median). ``scratch`` is an :class:`AbsoluteScratch`, its ``rank``/``sorted_y``
    from :func:`node_ranks`. Returns ``(gain, i, split_info, order, n_groups)`` as the
    squared-error scans do: ``present`` holds the codes of the non-empty groups, the first
    ``i + 1`` groups of ``order`` go left.
    """
    fw_k, fs_k, sorted_y = scratch.fw_k, scratch.fs_k, scratch.sorted_y
    m = end - start
    sorted_rows, n_known, n_groups, w_missing = _known_rows_by_code(
        data,
        w,
        start,
        end,
        f,
        missing_code,
        scratch.rows,
        scratch.codes,
        present,
        scratch.group_start,
    )
    order = np.arange(1)
    if n_known < 2 or n_groups < 2:
        return -1.0, -1, 0.0, order, n_groups
    _fen_reset(fw_k, m)
    _fen_reset(fs_k, m)
    w_known, s_known = _add_rows(
        fw_k, fs_k, m, sorted_rows, 0, n_known, scratch.rank, start, y_value, w, 0.0, 0.0
    )
    parent_dev = _deviation(fw_k, fs_k, fw_k, fs_k, m, sorted_y, w_known, s_known, 0)
    w_all = w_known + w_missing

    order = np.arange(n_groups)
    if mode == 1 or mode == 2:
        group_w, total_dev, big_enough = _group_medians(
            y_value, w, sorted_rows, scratch.group_start, n_groups, min_leaf, scratch.medians
        )
        if mode == 1:
            if big_enough < 2:
                return -1.0, -1, 0.0, order, n_groups
            info = 0.0
            for g in range(n_groups):
                info += group_w[g] * math.log2(group_w[g]) if group_w[g] > 0 else 0.0
            if w_missing > 0:
                info += w_missing * math.log2(w_missing)
            gain = (parent_dev - total_dev) / w_all
            return gain, 1, math.log2(w_all) - info / w_all, order, n_groups
        order = np.argsort(scratch.medians[:n_groups], kind="mergesort")

    best_gain, best_i, best_wl = _scan_groups(
        y_value,
        w,
        start,
        m,
        order,
        n_groups,
        sorted_rows,
        scratch,
        min_leaf,
        w_known,
        s_known,
        parent_dev,
    )
    if best_i < 0:
        return -1.0, -1, 0.0, order, n_groups
    wr = w_known - best_wl
    info = best_wl * math.log2(best_wl) + wr * math.log2(wr)
    if w_missing > 0:
        info += w_missing * math.log2(w_missing)
    return best_gain * w_known / w_all, best_i, math.log2(w_all) - info / w_all, order, n_groups
