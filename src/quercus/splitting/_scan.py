"""Numba kernels: the best split of a node's feature from its per-bin statistics.

Statistics ("stats") of a set of rows are one row of floats: for classification the weight
of each class, for regression ``[weight, weighted sum of y, weighted sum of y^2]``. A feature's
statistics at a node are the stats of each non-empty bin (``present`` codes in increasing
order), plus the stats of the rows whose value is missing.

The scans here try the cuts (numeric thresholds, category subsets) and the multiway split, and
place the missing rows; every number that depends on the criterion (impurities, the per-cut
score, the exact gain) comes from :mod:`quercus.criteria._impurity`, inlined.

Helpers take a 2-D stats array and a row index rather than a row view: a view passed to a
function that is not inlined costs a reference-count update per call, which in a per-row loop
is slower than the work itself.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._config import CLASS_MAJORITY, FRACTIONAL, GAIN_EPS, LEARNED, njit
from ..criteria._impurity import (
    binary_gain,
    cut_score,
    impurity,
    impurity_decrease,
    pair_score,
    stats_weight,
)
from ..criteria.registry import GINI, M5
from ._rules import with_c45

# The grower's names for the criteria kernels it calls.
__all__ = [
    "impurity",
    "order_categories",
    "scan_multiway",
    "scan_subset",
    "scan_threshold",
    "stats_weight",
]


@njit
def _xlog2x(v):
    return v * math.log2(v) if v > 0.0 else 0.0


class _ScanLimits(NamedTuple):
    """What every cut of one :func:`scan_threshold` is measured against: the known and the
    missing weight, the least weight of a side, and the score difference within which two
    cuts tie."""

    w_known: float
    w_missing: float
    min_side: float
    tie: float


@njit(inline="always")
def _place_missing(acc, missing, rules, to_left):
    """Rows 3 and 4 of ``acc``: the left and right sides (rows 1 and 2) with the missing rows
    added, all on the left (``to_left``) or all on the right; or, for CLASS_MAJORITY, each
    class on the side where its known weight is larger (the first on ties), a class with no
    known weight on the ``to_left`` side."""
    n_stats = acc.shape[1]
    for k in range(n_stats):
        acc[3, k] = acc[1, k]
        acc[4, k] = acc[2, k]
    if rules.missing_mode == CLASS_MAJORITY and not rules.regression:
        for k in range(n_stats):
            if acc[1, k] > 0.0 or acc[2, k] > 0.0:
                left = acc[1, k] >= acc[2, k]
            else:
                left = to_left
            acc[3 if left else 4, k] += missing[0, k]
    else:
        row = 3 if to_left else 4
        for k in range(n_stats):
            acc[row, k] += missing[0, k]


@njit(inline="always")
def _prefix_sums(stats, n_present, missing, acc):
    """Fill the scan's rows of ``acc``: row 0 the known rows, row 5 all rows, rows ``6:``
    the left side of every cut (the stats of bins ``0..i``). Rows 1 to 4 are the scan's
    (left, right, and both with the missing rows). ``acc`` is scratch space of at least
    ``6 + n_present`` rows from the caller, which saves an allocation per node and feature."""
    n_stats = stats.shape[1]
    prefix = acc[6:]
    for k in range(n_stats):
        # A local running sum: one kept in ``acc`` would go through memory at every bin.
        total = 0.0
        for i in range(n_present):
            total += stats[i, k]
            prefix[i, k] = total
        acc[0, k] = total
    for k in range(n_stats):
        acc[5, k] = acc[0, k] + missing[0, k]


@njit(inline="always")
def _scan_two_class_gini(prefix, n_present, acc, limits):
    """:func:`_scan_known` for the Gini index of two classes (a forest's usual case), the
    class loops of :func:`cut_score` written out: the same sums in the same order, so the
    same scores."""
    w_known, min_side, tie = limits.w_known, limits.min_side, limits.tie
    total_0 = acc[0, 0]
    total_1 = acc[0, 1]
    best_i = -1
    best_score = 0.0
    n_admissible = 0
    for i in range(n_present - 1):
        left_0 = prefix[i, 0]
        left_1 = prefix[i, 1]
        wl = left_0 + left_1
        wr = w_known - wl
        if wl < min_side or wr < min_side or wl <= 0.0 or wr <= 0.0:
            continue
        n_admissible += 1
        right_0 = total_0 - left_0
        right_1 = total_1 - left_1
        score = (left_0 * left_0 + left_1 * left_1) / wl + (
            right_0 * right_0 + right_1 * right_1
        ) / wr
        if best_i < 0 or score > best_score + max(GAIN_EPS * abs(best_score), tie):
            best_score = score
            best_i = i
    return best_i, best_score, n_admissible


@njit(refcounts=False)
def _scan_known(present, stats, n_present, acc, rules, bin_lo, bin_hi, f, limits):
    """The cuts of :func:`scan_threshold` when no missing rows are placed: ``(best cut,
    its score, admissible cuts)``. The left side of every cut is summed beforehand (rows
    ``6:`` of ``acc``), so each cut is scored on its own (:func:`cut_score`): no cut waits
    on the previous one, which made the scan 3x faster than updating one running sum
    between scores."""
    criterion, regression, c45_classes = rules.criterion, rules.regression, rules.c45_classes
    w_known, min_side, tie = limits.w_known, limits.min_side, limits.tie
    n_stats = stats.shape[1]
    prefix = acc[6:]
    if not regression and criterion == GINI and n_stats == 2 and c45_classes == 0:
        return _scan_two_class_gini(prefix, n_present, acc, limits)
    best_i = -1
    best_score = 0.0
    n_admissible = 0
    for i in range(n_present - 1):
        if regression:
            wl = prefix[i, 0]
        else:
            wl = 0.0
            for k in range(n_stats):
                wl += prefix[i, k]
        wr = w_known - wl
        # J48 compares weights within its tolerance: wr, a difference, may fall just short.
        if wl < min_side or wr < min_side or wl <= 0.0 or wr <= 0.0:
            continue
        if c45_classes > 0 and bin_hi[f, present[i]] + 1e-5 >= bin_lo[f, present[i + 1]]:
            continue
        n_admissible += 1
        score = cut_score(prefix, i, acc, wl, wr, criterion, regression, rules.l2, rules.l1)
        # Equal within rounding (relative to the scores' size) is a tie: the lower cut stays.
        if best_i < 0 or score > best_score + max(GAIN_EPS * abs(best_score), tie):
            best_score = score
            best_i = i
    return best_i, best_score, n_admissible


@njit(refcounts=False)
def _scan_placed(present, stats, n_present, missing, acc, rules, bin_lo, bin_hi, f, limits):
    """The cuts of :func:`scan_threshold` when the missing rows join a side (MAJORITY,
    CLASS_MAJORITY, LEARNED): ``(best cut, missing rows on the left, admissible cuts)``.
    One running sum (rows 1 and 2 of ``acc``) gives the two sides of each cut."""
    criterion, regression, missing_mode = rules.criterion, rules.regression, rules.missing_mode
    w_known, w_missing = limits.w_known, limits.w_missing
    min_side, tie = limits.min_side, limits.tie
    n_stats = stats.shape[1]
    w_all = w_known + w_missing
    best_score = 0.0
    best_i = -1
    best_left = True
    n_admissible = 0
    for i in range(n_present - 1):
        for k in range(n_stats):
            acc[1, k] += stats[i, k]
            acc[2, k] = acc[0, k] - acc[1, k]
        wl = stats_weight(acc, 1, regression)
        wr = w_known - wl
        # J48 compares weights within its tolerance: wr, a difference, may fall just short.
        if wl < min_side or wr < min_side:
            continue
        if wl <= 0.0 or wr <= 0.0:
            continue
        if rules.c45_classes > 0 and bin_hi[f, present[i]] + 1e-5 >= bin_lo[f, present[i + 1]]:
            continue
        n_admissible += 1
        # LEARNED tries the left side first; the others follow the heavier side.
        left = missing_mode == LEARNED or wl >= wr
        _place_missing(acc, missing, rules, left)
        w3 = stats_weight(acc, 3, regression)
        score = pair_score(acc, 3, 4, w3, w_all - w3, criterion, regression, rules.l2, rules.l1)
        if missing_mode == LEARNED:
            _place_missing(acc, missing, rules, False)
            right = pair_score(
                acc, 3, 4, wl, wr + w_missing, criterion, regression, rules.l2, rules.l1
            )
            if right > score + GAIN_EPS * max(abs(score), w_all):
                score = right
                left = False
        # Equal within rounding (relative to the scores' size) is a tie: the lower cut stays.
        if best_i < 0 or score > best_score + max(GAIN_EPS * abs(best_score), tie):
            best_score = score
            best_i = i
            best_left = left
    return best_i, best_left, n_admissible


@njit(refcounts=False)
def _winner_gain(acc, missing, best_i, best_left, place, rules, limits):
    """Exact gain and split information of cut ``best_i`` (its left side summed as the
    scan summed it; the missing rows placed as the scan placed them, or FRACTIONAL)."""
    criterion, regression = rules.criterion, rules.regression
    w_known, w_missing = limits.w_known, limits.w_missing
    n_stats = acc.shape[1]
    prefix = acc[6:]
    w_all = w_known + w_missing
    for k in range(n_stats):
        acc[1, k] = prefix[best_i, k]
        acc[2, k] = acc[0, k] - acc[1, k]
    wl = stats_weight(acc, 1, regression)
    wr = w_known - wl
    if place:
        _place_missing(acc, missing, rules, best_left)
        w3 = stats_weight(acc, 3, regression)
        w4 = w_all - w3
        gain = binary_gain(acc, 5, 3, 4, w3, w4, w_all, criterion, regression, rules.l2, rules.l1)
        split_info = math.log2(w_all) - (_xlog2x(w3) + _xlog2x(w4)) / w_all
    else:
        gain = (
            binary_gain(acc, 0, 1, 2, wl, wr, w_known, criterion, regression, rules.l2, rules.l1)
            * w_known
            / w_all
        )
        split_info = math.log2(w_all) - (_xlog2x(wl) + _xlog2x(wr) + _xlog2x(w_missing)) / w_all
    return gain, split_info


@njit(inline="always")
def _side_minimum(rules, w_known, w_all):
    """The least weight of a side: ``min_leaf``, or C4.5's ``0.1 * known weight / classes``
    within ``[min_leaf, 25]``, or with M5's criterion more than a fifth of the node (Weka's
    M5P: ``floor(n / 5) + 1`` rows)."""
    min_leaf = rules.min_leaf
    if rules.c45_classes > 0:
        min_leaf = min(max(0.1 * w_known / rules.c45_classes, min_leaf), 25.0)
    if rules.criterion == M5 and rules.regression:
        min_leaf = max(min_leaf, math.floor(w_all / 5.0 + 1e-9) + 1.0)
    return min_leaf


@njit(refcounts=False)
def scan_threshold(present, stats, n_present, missing, rules, bin_lo, bin_hi, f, acc):
    """Best binary cut "code <= present[i]" over ordered bins, by the :class:`SplitRules`
    ``rules`` (``splitting/_rules.py``).

    ``missing`` is a stats array whose row 0 holds the rows with a missing value. Returns
    ``(gain, i, split_info, missing_side)``: the gain, the index of the last bin on the left
    (-1 when no cut is admissible), the split information of the cut, and for LEARNED the
    side (0 left, 1 right) that the missing rows take (else -1: the builder places them).

    How missing rows count depends on ``rules.missing_mode``:

    - FRACTIONAL (C4.5): the gain is the criterion's gain over the known rows, scaled by
      their share of the weight, and the missing rows are a third branch in the split
      information;
    - MAJORITY: they join the heavier side of each cut, CLASS_MAJORITY: each class joins the
      side where it is heavier, LEARNED: they join the side that gives the higher gain (the
      left one on ties); the gain and split information are then those of the two sides.

    Both sides need known weight >= ``min_leaf``; with M5's criterion also more than a fifth
    of the node's weight (Weka's M5P: ``floor(n / 5) + 1`` rows). Ties keep the lowest cut.
    The scan ranks cuts by the criterion's cheap proxy
    (:func:`~quercus.criteria._impurity.cut_score`); the exact gain is computed for the
    winner.

    ``rules.c45_classes`` > 0 applies C4.5's rules for continuous attributes (J48's form),
    with that many classes: both sides need ``0.1 * known weight / classes`` clipped to
    ``[min_leaf, 25]``, a cut needs the values on its two sides (the largest value of bin
    ``present[i]`` and the smallest of the next, ``bin_hi[f]`` and ``bin_lo[f]``) more than
    1e-5 apart, and the gain pays ``log2(admissible cuts) / node weight`` (the MDL cost of
    choosing a threshold); an attribute left with no positive gain has no cut. Cuts whose
    gains differ by at most ``rules.c45_tolerance`` bits are tied, and a side short of
    ``min_leaf`` by at most that much is large enough (J48: 1e-6; release 8 and the other
    trees: 0). ``acc`` is the scan's scratch space (see :func:`_prefix_sums`).
    """
    for i in range(6):  # (``acc``: see _prefix_sums)
        for k in range(acc.shape[1]):
            acc[i, k] = 0.0
    _prefix_sums(stats, n_present, missing, acc)
    w_known = stats_weight(acc, 0, rules.regression)
    w_missing = stats_weight(missing, 0, rules.regression)
    w_all = w_known + w_missing
    if n_present < 2 or w_known <= 0.0:
        return -1.0, -1, 0.0, -1
    min_leaf = _side_minimum(rules, w_known, w_all)
    place = rules.missing_mode != FRACTIONAL and w_missing > 0.0
    # Cuts within rounding, or within C4.5's tolerance, are tied: the lower one stays.
    tie = max(rules.c45_tolerance * w_known, GAIN_EPS * w_all)
    # J48 compares weights within its tolerance: a side may fall just short of min_leaf.
    min_side = min_leaf - rules.c45_tolerance
    limits = _ScanLimits(w_known, w_missing, min_side, tie)
    best_left = True
    if place:
        best_i, best_left, n_admissible = _scan_placed(
            present, stats, n_present, missing, acc, rules, bin_lo, bin_hi, f, limits
        )
    else:
        best_i, _, n_admissible = _scan_known(
            present, stats, n_present, acc, rules, bin_lo, bin_hi, f, limits
        )
    if best_i < 0:
        return -1.0, -1, 0.0, -1
    gain, split_info = _winner_gain(acc, missing, best_i, best_left, place, rules, limits)
    if rules.c45_classes > 0:
        gain -= math.log2(n_admissible) / w_all
        if gain <= rules.c45_tolerance:  # J48: no positive gain beyond its tolerance
            return -1.0, -1, 0.0, -1
    side = (0 if best_left else 1) if place and rules.missing_mode == LEARNED else -1
    return gain, best_i, split_info, side


@njit
def scan_multiway(present, stats, n_present, missing, rules, scratch=None):
    """Gain of the multiway split with one branch per category, by the :class:`SplitRules`
    ``rules``.

    Admissible (as in C4.5) when at least two branches hold known weight >= ``min_leaf``
    (J48: within its tolerance ``c45_tolerance``).
    Returns ``(gain, ok, split_info, missing_index)`` with ``ok`` = 1 when admissible, else
    -1. Missing rows count as in :func:`scan_threshold`: FRACTIONAL scales the gain and adds
    a branch to the split information; MAJORITY puts them in the heaviest category,
    CLASS_MAJORITY each class in the category where it is heaviest (the first on ties; a
    class with no known weight in the heaviest category), and LEARNED in the category that
    gives the highest gain (the first on ties), whose index in ``present`` it returns (else
    -1).
    """
    criterion, regression, missing_mode = rules.criterion, rules.regression, rules.missing_mode
    # J48 counts a branch as large enough within its tolerance (0 unless J48's C4.5).
    min_leaf = rules.min_leaf - rules.c45_tolerance
    n_stats = stats.shape[1]
    if scratch is None:  # known rows, all rows
        total = np.zeros((2, n_stats))
    else:
        total = scratch[:2]
        total[:] = 0.0
    for i in range(n_present):
        for k in range(n_stats):
            total[0, k] += stats[i, k]
    for k in range(n_stats):
        total[1, k] = total[0, k] + missing[0, k]
    w_known = stats_weight(total, 0, regression)
    w_missing = stats_weight(missing, 0, regression)
    if n_present < 2 or w_known <= 0.0:
        return -1.0, -1, 0.0, -1
    big_enough = 0
    heaviest = 0
    after = 0.0
    info = 0.0
    for i in range(n_present):
        wi = stats_weight(stats, i, regression)
        if wi >= min_leaf and wi > 0.0:
            big_enough += 1
        if wi > stats_weight(stats, heaviest, regression):
            heaviest = i
        after += wi * impurity(stats, i, criterion, regression, rules.l2, rules.l1)
        info += _xlog2x(wi)
    if big_enough < 2:
        return -1.0, -1, 0.0, -1
    w_all = w_known + w_missing
    if missing_mode == FRACTIONAL or w_missing <= 0.0:
        gain = (
            impurity_decrease(total, 0, after, w_known, criterion, regression, rules.l2, rules.l1)
            * w_known
            / w_all
        )
        split_info = math.log2(w_all) - (info + _xlog2x(w_missing)) / w_all
        return gain, 1, split_info, -1
    if missing_mode == CLASS_MAJORITY and not regression:
        placed = np.empty((n_present, n_stats))
        placed[:] = stats[:n_present]
        for k in range(n_stats):
            target = 0
            for i in range(n_present):
                if stats[i, k] > stats[target, k]:
                    target = i
            if stats[target, k] <= 0.0:
                target = heaviest
            placed[target, k] += missing[0, k]
        after = 0.0
        info = 0.0
        for i in range(n_present):
            wi = stats_weight(placed, i, regression)
            after += wi * impurity(placed, i, criterion, regression, rules.l2, rules.l1)
            info += _xlog2x(wi)
        gain = impurity_decrease(total, 1, after, w_all, criterion, regression, rules.l2, rules.l1)
        return gain, 1, math.log2(w_all) - info / w_all, -1
    # The missing rows join one category: the heaviest, or (LEARNED) the best.
    joined = np.empty((1, n_stats))
    best = -1
    best_after = 0.0
    for i in range(n_present):
        if missing_mode != LEARNED and i != heaviest:
            continue
        for k in range(n_stats):
            joined[0, k] = stats[i, k] + missing[0, k]
        wi = stats_weight(stats, i, regression)
        candidate = (
            after
            - wi * impurity(stats, i, criterion, regression, rules.l2, rules.l1)
            + (wi + w_missing) * impurity(joined, 0, criterion, regression, rules.l2, rules.l1)
        )
        if best < 0 or candidate < best_after - GAIN_EPS * max(abs(best_after), w_all):
            best = i
            best_after = candidate
    wb = stats_weight(stats, best, regression)
    info += _xlog2x(wb + w_missing) - _xlog2x(wb)
    index = best if missing_mode == LEARNED else -1
    gain = impurity_decrease(total, 1, best_after, w_all, criterion, regression, rules.l2, rules.l1)
    return gain, 1, math.log2(w_all) - info / w_all, index


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
def scan_subset(present, stats, n_present, missing, rules, key_class):
    """Best two-way partition of the categories (CART), by the :class:`SplitRules` ``rules``
    (C4.5's rules for thresholds and its tolerance do not apply).

    The categories are put in order (:func:`order_categories`) and every prefix is tried as
    the left set: exact for two classes and for regression (Breiman et al. 1984), a heuristic
    for more classes (order by the share of the node's majority class ``key_class``).
    Returns ``(gain, i, split_info, order, missing_side)``: the first ``i + 1`` categories of
    ``order`` go left; missing rows count as in :func:`scan_threshold`.
    """
    order = order_categories(present, stats, n_present, rules.regression, key_class)
    sorted_stats = np.empty((n_present, stats.shape[1]))
    for i in range(n_present):
        for k in range(stats.shape[1]):
            sorted_stats[i, k] = stats[order[i], k]
    no_values = np.zeros((1, 1))  # C4.5's rules for values do not apply to categories
    # The arguments in the types split_of_feature passes (int64 rather than literal
    # constants, an accumulator): scan_threshold then compiles once.
    zero = np.int64(0)
    acc = np.zeros((6 + n_present, stats.shape[1]))
    plain = with_c45(rules, zero, 0.0)
    gain, i, info, side = scan_threshold(
        present, sorted_stats, n_present, missing, plain, no_values, no_values, zero, acc
    )
    return gain, i, info, order, side
