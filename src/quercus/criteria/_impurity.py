"""Numba kernels: every criterion's numbers, dispatched on the criterion code.

Statistics ("stats") of a set of rows are one row of floats: for classification the weight
of each class, for regression ``[weight, weighted sum of y, weighted sum of y^2]``. The
kernels take a 2-D stats array and row indices rather than row views: a view passed to a
function that is not inlined costs a reference-count update per call, which in a per-row
loop is slower than the work itself.

Three numbers make a criterion, each one function here:

- :func:`impurity`: a node's impurity (recorded per node; pruning and importances use it);
- the score the split scans rank cuts by, :func:`cut_score` (the left side a prefix sum, the
  right side the total minus it) and :func:`pair_score` (both sides given as rows): a cheap
  proxy that orders cuts as the gain does (it may differ from the gain by a term equal for
  every cut of one scan), without divisions by the total or logs of it;
- the exact gain of the winner: :func:`binary_gain` for two sides, and
  :func:`impurity_decrease` for any number of branches.

The scans (:mod:`quercus.splitting._scan`) inline these, so a criterion's per-cut score
compiles into the scan's loop as if written there. Absolute error, which needs medians, has
its own row-ranking scan (:mod:`quercus.splitting._absolute`). The plain NumPy twins of
these kernels are in :mod:`quercus.criteria.twins`.
"""

from __future__ import annotations

import math

from .._config import njit
from .registry import ENTROPY, GAIN_RATIO, GINI, M5, TWOING
from .twins import ZERO_SPREAD


@njit(inline="always")
def stats_weight(stats, i, regression):
    """Total weight of stats row ``i``."""
    if regression:
        return stats[i, 0]
    total = 0.0
    for k in range(stats.shape[1]):
        total += stats[i, k]
    return total


# ---------------------------------------------------------------------------------------------
# Node impurity


@njit(inline="always")
def _variance(stats, i):
    w = stats[i, 0]
    if w <= 0.0:
        return 0.0
    mean = stats[i, 1] / w
    var = stats[i, 2] / w - mean * mean
    return var if var > 0.0 else 0.0


@njit(inline="always")
def _variance_root(w, total, squares):
    """M5's impurity of rows of weight ``w``, weighted sum ``total`` and sum of squares
    ``squares``: the fifth root of their variance, rounding noise counted as zero (as
    ``twins.variance_root_of_moments``)."""
    if w <= 0.0:
        return 0.0
    spread = abs(w * squares - total * total)
    if spread <= ZERO_SPREAD * w * abs(squares):
        return 0.0
    return (spread / (w * w)) ** 0.2


@njit(inline="always")
def _gini(stats, i, total):
    s = 0.0
    for k in range(stats.shape[1]):
        p = stats[i, k] / total
        s += p * p
    return 1.0 - s


@njit(inline="always")
def _entropy(stats, i, total):
    """In bits."""
    h = 0.0
    for k in range(stats.shape[1]):
        if stats[i, k] > 0.0:
            p = stats[i, k] / total
            h -= p * math.log2(p)
    return h


@njit(inline="always")
def _error(stats, i, total):
    """The misclassification rate: 1 - the largest class share."""
    best = 0.0
    for k in range(stats.shape[1]):
        if stats[i, k] > best:
            best = stats[i, k]
    return 1.0 - best / total


@njit(inline="always")
def shrunk_sum(total, l1):
    """The weighted sum of the target with L1 regularisation: moved ``l1`` towards 0, and
    0 within ``l1`` of it (the soft threshold of a Newton step's gradient sum)."""
    if l1 <= 0.0:
        return total
    if total > l1:
        return total - l1
    if total < -l1:
        return total + l1
    return 0.0


@njit(inline="always")
def _regularised_variance(stats, i, l2, l1):
    """The variance with L2 (``l2``) and L1 (``l1``) regularisation of a booster's Newton
    statistics ``[H, -G, .]``: ``SS / W - T(S)**2 / (W (W + l2))``, whose decrease over a
    split, times the weight, is the regularised Newton gain."""
    w = stats[i, 0]
    if w <= 0.0:
        return 0.0
    t = shrunk_sum(stats[i, 1], l1)
    var = stats[i, 2] / w - t * t / (w * (w + l2))
    return var if var > 0.0 else 0.0


@njit
def impurity(stats, i, criterion, regression, l2=0.0, l1=0.0):
    """Impurity of stats row ``i`` (entropy in bits, Gini, error rate or variance; twoing
    nodes record their Gini index). A regression's ``l2`` and ``l1`` regularise the
    variance (a booster's Newton trees: :func:`_regularised_variance`)."""
    if regression:
        if criterion == M5:
            return _variance_root(stats[i, 0], stats[i, 1], stats[i, 2])
        if l2 > 0.0 or l1 > 0.0:
            return _regularised_variance(stats, i, l2, l1)
        return _variance(stats, i)
    total = 0.0
    for k in range(stats.shape[1]):
        total += stats[i, k]
    if total <= 0.0:
        return 0.0
    if criterion == GINI or criterion == TWOING:
        return _gini(stats, i, total)
    if criterion == ENTROPY or criterion == GAIN_RATIO:
        return _entropy(stats, i, total)
    return _error(stats, i, total)


# ---------------------------------------------------------------------------------------------
# The score a scan ranks cuts by


@njit(inline="always")
def _side_score(stats, i, w, criterion, regression, l2, l1):
    """Minus the weighted impurity of one side (weight ``w``), up to terms equal for every
    cut of a scan."""
    n_stats = stats.shape[1]
    if regression and criterion == M5:
        return -w * _variance_root(w, stats[i, 1], stats[i, 2])
    if regression:
        t = shrunk_sum(stats[i, 1], l1)
        return t * t / (w + l2)  # the sum of squares is the same for every cut
    if criterion == GINI:
        s = 0.0
        for k in range(n_stats):
            s += stats[i, k] * stats[i, k]
        return s / w
    if criterion == ENTROPY or criterion == GAIN_RATIO:
        s = -w * math.log2(w)
        for k in range(n_stats):
            if stats[i, k] > 0.0:
                s += stats[i, k] * math.log2(stats[i, k])
        return s
    return -w * impurity(stats, i, criterion, regression, l2, l1)


@njit(inline="always")
def _twoing_spread(stats, left, right, wl, wr):
    """sum_k |p(k|left) - p(k|right)| of stats rows ``left`` and ``right``."""
    spread = 0.0
    for k in range(stats.shape[1]):
        spread += abs(stats[left, k] / wl - stats[right, k] / wr)
    return spread


@njit(inline="always")
def pair_score(stats, left, right, wl, wr, criterion, regression, l2=0.0, l1=0.0):
    """Score of the binary split into stats rows ``left`` and ``right`` (weights ``wl`` and
    ``wr``): the higher, the better."""
    if criterion == TWOING and not regression:
        # The twoing value times the node's weight (the scale of the other scores).
        spread = _twoing_spread(stats, left, right, wl, wr)
        return 0.25 * wl * wr / (wl + wr) * spread * spread
    return _side_score(stats, left, wl, criterion, regression, l2, l1) + _side_score(
        stats, right, wr, criterion, regression, l2, l1
    )


@njit(inline="always")
def _error_score(prefix, i, total, wl, wr):
    """:func:`pair_score` of misclassification for a cut of :func:`cut_score`: each side's
    error rate from its own class weights, as :func:`impurity` computes it."""
    tl = 0.0
    tr = 0.0
    bl = 0.0
    br = 0.0
    for k in range(prefix.shape[1]):
        left = prefix[i, k]
        right = total[0, k] - prefix[i, k]
        tl += left
        tr += right
        if left > bl:
            bl = left
        if right > br:
            br = right
    el = 0.0 if tl <= 0.0 else 1.0 - bl / tl
    er = 0.0 if tr <= 0.0 else 1.0 - br / tr
    return -wl * el + -wr * er


@njit(inline="always")
def cut_score(prefix, i, total, wl, wr, criterion, regression, l2=0.0, l1=0.0):
    """:func:`pair_score` of the cut whose left side is ``prefix[i]`` and whose right side is
    ``total[0] - prefix[i]`` (weights ``wl`` and ``wr``), without writing either side out:
    the threshold scan calls it once per cut, each cut on its own."""
    n_stats = prefix.shape[1]
    if regression and criterion == M5:
        left = wl * _variance_root(wl, prefix[i, 1], prefix[i, 2])
        return -left - wr * _variance_root(
            wr, total[0, 1] - prefix[i, 1], total[0, 2] - prefix[i, 2]
        )
    if regression:
        left = shrunk_sum(prefix[i, 1], l1)
        right = shrunk_sum(total[0, 1] - prefix[i, 1], l1)
        return left * left / (wl + l2) + right * right / (wr + l2)
    if criterion == GINI:
        sl = 0.0
        sr = 0.0
        for k in range(n_stats):
            sl += prefix[i, k] * prefix[i, k]
            right = total[0, k] - prefix[i, k]
            sr += right * right
        return sl / wl + sr / wr
    if criterion == ENTROPY or criterion == GAIN_RATIO:
        sl = -wl * math.log2(wl)
        sr = -wr * math.log2(wr)
        for k in range(n_stats):
            if prefix[i, k] > 0.0:
                sl += prefix[i, k] * math.log2(prefix[i, k])
            right = total[0, k] - prefix[i, k]
            if right > 0.0:
                sr += right * math.log2(right)
        return sl + sr
    if criterion == TWOING:
        spread = 0.0
        for k in range(n_stats):
            spread += abs(prefix[i, k] / wl - (total[0, k] - prefix[i, k]) / wr)
        return 0.25 * wl * wr / (wl + wr) * spread * spread
    return _error_score(prefix, i, total, wl, wr)


# ---------------------------------------------------------------------------------------------
# The exact gain of a split


@njit(inline="always")
def impurity_decrease(stats, parent, after, w, criterion, regression, l2=0.0, l1=0.0):
    """Impurity of stats row ``parent`` minus ``after / w``, where ``after`` is the sum over
    the branches of weight x impurity and ``w`` the weight the mean is taken over."""
    return impurity(stats, parent, criterion, regression, l2, l1) - after / w


@njit(inline="always")
def binary_gain(stats, parent, left, right, wl, wr, w, criterion, regression, l2=0.0, l1=0.0):
    """Gain of splitting stats row ``parent`` (weight ``w``) into rows ``left`` and
    ``right`` (weights ``wl`` and ``wr``): the impurity decrease, or for twoing the twoing
    value, with ``wl / w`` and ``wr / w`` the shares of the sides."""
    if criterion == TWOING and not regression:
        spread = _twoing_spread(stats, left, right, wl, wr)
        return wl / w * (wr / w) * 0.25 * spread * spread
    after = wl * impurity(stats, left, criterion, regression, l2, l1) + wr * impurity(
        stats, right, criterion, regression, l2, l1
    )
    return impurity_decrease(stats, parent, after, w, criterion, regression, l2, l1)
