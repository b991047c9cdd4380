"""Numba kernels: impurity of a node's statistics and the best split from per-bin statistics.

Statistics ("stats") of a set of rows are one row of floats: for classification the weight
of each class, for regression ``[weight, weighted sum of y, weighted sum of y^2]``. A feature's
statistics at a node are the stats of each non-empty bin (``present`` codes in increasing
order), plus the stats of the rows whose value is missing.

Helpers take a 2-D stats array and a row index rather than a row view: a view passed to a
function that is not inlined costs a reference-count update per call, which in a per-row loop
is slower than the work itself.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import (
    ENTROPY,
    GAIN_EPS,
    GAIN_RATIO,
    GINI,
    MISCLASSIFICATION,
    njit,
)


@njit
def stats_weight(stats, i, regression):
    """Total weight of stats row ``i``."""
    if regression:
        return stats[i, 0]
    total = 0.0
    for k in range(stats.shape[1]):
        total += stats[i, k]
    return total


@njit
def impurity(stats, i, criterion, regression):
    """Impurity of stats row ``i`` (entropy in bits, Gini, error rate or variance)."""
    if regression:
        w = stats[i, 0]
        if w <= 0.0:
            return 0.0
        mean = stats[i, 1] / w
        var = stats[i, 2] / w - mean * mean
        return var if var > 0.0 else 0.0
    n_stats = stats.shape[1]
    total = 0.0
    for k in range(n_stats):
        total += stats[i, k]
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        s = 0.0
        for k in range(n_stats):
            p = stats[i, k] / total
            s += p * p
        return 1.0 - s
    if criterion == ENTROPY or criterion == GAIN_RATIO:
        h = 0.0
        for k in range(n_stats):
            if stats[i, k] > 0.0:
                p = stats[i, k] / total
                h -= p * math.log2(p)
        return h
    if criterion == MISCLASSIFICATION:
        best = 0.0
        for k in range(n_stats):
            if stats[i, k] > best:
                best = stats[i, k]
        return 1.0 - best / total
    return 0.0


@njit
def _xlog2x(v):
    return v * math.log2(v) if v > 0.0 else 0.0


@njit
def _side_score(acc, i, w, criterion, regression):
    """Minus the weighted impurity of one side, up to terms equal for every cut (a proxy
    that ranks cuts as the gain does, without divisions by the total or logs of it)."""
    n_stats = acc.shape[1]
    if regression:
        return acc[i, 1] * acc[i, 1] / w  # the sum of squares is the same for every cut
    if criterion == GINI:
        s = 0.0
        for k in range(n_stats):
            s += acc[i, k] * acc[i, k]
        return s / w
    if criterion == ENTROPY or criterion == GAIN_RATIO:
        s = -w * math.log2(w)
        for k in range(n_stats):
            if acc[i, k] > 0.0:
                s += acc[i, k] * math.log2(acc[i, k])
        return s
    return -w * impurity(acc, i, criterion, regression)


@njit(inline="always")
def scan_threshold(
    present, stats, n_present, missing, criterion, regression, min_leaf, c45_classes=0
):
    """Best binary cut "code <= present[i]" over ordered bins.

    ``missing`` is a stats array whose row 0 holds the rows with a missing value. Returns
    ``(gain, i, split_info)``: the gain (impurity decrease over the known rows, scaled by
    their share of the weight, as C4.5 does), the index of the last bin on the left (-1 when
    no cut is admissible) and the split information of the cut (missing rows count as a third
    branch). Both sides need weight >= ``min_leaf``. Ties keep the lowest cut. The scan ranks
    cuts by a cheap proxy (:func:`_side_score`); the exact gain is computed for the winner.

    ``c45_classes`` > 0 applies C4.5's rules for continuous attributes (J48's form), with that
    many classes: both sides need ``0.1 * known weight / classes`` clipped to
    ``[min_leaf, 25]``, and the gain pays ``log2(admissible cuts) / node weight`` (the MDL
    cost of choosing a threshold); an attribute left with no positive gain has no cut.
    """
    n_stats = stats.shape[1]
    acc = np.zeros((3, n_stats))  # rows: all known, left, right
    for i in range(n_present):
        for k in range(n_stats):
            acc[0, k] += stats[i, k]
    w_known = stats_weight(acc, 0, regression)
    w_missing = stats_weight(missing, 0, regression)
    if n_present < 2 or w_known <= 0.0:
        return -1.0, -1, 0.0
    if c45_classes > 0:
        min_leaf = min(max(0.1 * w_known / c45_classes, min_leaf), 25.0)
    best_score = 0.0
    best_i = -1
    n_admissible = 0
    for i in range(n_present - 1):
        for k in range(n_stats):
            acc[1, k] += stats[i, k]
            acc[2, k] = acc[0, k] - acc[1, k]
        wl = stats_weight(acc, 1, regression)
        wr = w_known - wl
        if wl < min_leaf or wr < min_leaf or wl <= 0.0 or wr <= 0.0:
            continue
        n_admissible += 1
        score = _side_score(acc, 1, wl, criterion, regression) + _side_score(
            acc, 2, wr, criterion, regression
        )
        # Equal within rounding (relative to the scores' size) is a tie: the lower cut stays.
        if best_i < 0 or score > best_score + GAIN_EPS * max(abs(best_score), w_known):
            best_score = score
            best_i = i
    if best_i < 0:
        return -1.0, -1, 0.0
    # Exact gain of the winner.
    for k in range(n_stats):
        acc[1, k] = 0.0
    for i in range(best_i + 1):
        for k in range(n_stats):
            acc[1, k] += stats[i, k]
    for k in range(n_stats):
        acc[2, k] = acc[0, k] - acc[1, k]
    wl = stats_weight(acc, 1, regression)
    wr = w_known - wl
    after = (
        wl * impurity(acc, 1, criterion, regression) + wr * impurity(acc, 2, criterion, regression)
    ) / w_known
    w_all = w_known + w_missing
    gain = (impurity(acc, 0, criterion, regression) - after) * w_known / w_all
    if c45_classes > 0:
        gain -= math.log2(n_admissible) / w_all
        if gain <= 0.0:
            return -1.0, -1, 0.0
    split_info = math.log2(w_all) - (_xlog2x(wl) + _xlog2x(wr) + _xlog2x(w_missing)) / w_all
    return gain, best_i, split_info


@njit
def scan_multiway(present, stats, n_present, missing, criterion, regression, min_leaf):
    """Gain of the multiway split with one branch per category.

    Admissible (as in C4.5) when at least two branches hold weight >= ``min_leaf``.
    Returns ``(gain, ok, split_info)`` with ``ok`` = 1 when admissible, else -1.
    """
    n_stats = stats.shape[1]
    total = np.zeros((1, n_stats))
    for i in range(n_present):
        for k in range(n_stats):
            total[0, k] += stats[i, k]
    w_known = stats_weight(total, 0, regression)
    w_missing = stats_weight(missing, 0, regression)
    if n_present < 2 or w_known <= 0.0:
        return -1.0, -1, 0.0
    big_enough = 0
    after = 0.0
    info = 0.0
    for i in range(n_present):
        wi = stats_weight(stats, i, regression)
        if wi >= min_leaf and wi > 0.0:
            big_enough += 1
        after += wi * impurity(stats, i, criterion, regression)
        info += _xlog2x(wi)
    if big_enough < 2:
        return -1.0, -1, 0.0
    w_all = w_known + w_missing
    gain = (impurity(total, 0, criterion, regression) - after / w_known) * w_known / w_all
    split_info = math.log2(w_all) - (info + _xlog2x(w_missing)) / w_all
    return gain, 1, split_info


@njit
def order_categories(present, stats, n_present, regression, key_class):
    """Order of the present categories for a binary subset split: by the share of class
    ``key_class`` (classification) or by the mean target (regression); ties by code."""
    keys = np.empty(n_present)
    for i in range(n_present):
        w = stats_weight(stats, i, regression)
        if regression:
            keys[i] = stats[i, 1] / w if w > 0 else 0.0
        else:
            keys[i] = stats[i, key_class] / w if w > 0 else 0.0
    return np.argsort(keys, kind="mergesort")


@njit
def scan_subset(present, stats, n_present, missing, criterion, regression, min_leaf, key_class):
    """Best two-way partition of the categories (CART).

    The categories are put in order (:func:`order_categories`) and every prefix is tried as
    the left set: exact for two classes and for regression (Breiman et al. 1984), a heuristic
    for more classes (order by the share of the node's majority class ``key_class``).
    Returns ``(gain, i, split_info, order)``: the first ``i + 1`` categories of ``order`` go
    left.
    """
    order = order_categories(present, stats, n_present, regression, key_class)
    sorted_stats = np.empty((n_present, stats.shape[1]))
    for i in range(n_present):
        for k in range(stats.shape[1]):
            sorted_stats[i, k] = stats[order[i], k]
    gain, i, info = scan_threshold(
        present, sorted_stats, n_present, missing, criterion, regression, min_leaf
    )
    return gain, i, info, order
