"""Numba kernels: a leaf's best split from its gradient histograms (the Newton learner's
split search, ``grow/newton.py``).

A histogram holds, for each feature and bin code, the sums of the rows' working targets
times weights ``R`` (minus the gradient sum), of their weights ``H`` (the hessian sum) and
their number, in whole units (``grow/_gradient_rows.py``). A side of a split scores
``T(R)**2 / (H + l2)`` (``T`` moves ``R`` by ``l1`` towards 0), and a split's Newton gain
is its sides' scores less the leaf's.

Each feature's bins are scanned in order: numeric and ordinal features by code, nominal
ones by the ratio ``R / (H + smoothing)`` of each category (Fisher's order, exact for a
squared error without smoothing), each prefix the left side. Nominal splits are
regularised as LightGBM's and HGB's are: the smoothing pulls the ratio of a category of
little hessian towards 0; a category with fewer than ``min_category_rows`` rows in the
leaf is not placed by the scan and goes right; and the smaller side of a cut holds at
most ``max_split_categories`` categories (LightGBM's scan from both ends).

The rules are the compiled grower's for a regression tree with
the same statistics (``splitting/_scan.py``), so both grow the same tree: each side needs
known weight of at least ``min_child_weight`` (and, here, ``min_rows`` rows); the missing
rows join the side that gains more (``learned``; left on ties) or the heavier one
(``majority``); gains within rounding are tied and the lowest cut, then the lowest feature,
stays.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import GAIN_EPS, NOMINAL, njit
from ..criteria._impurity import shrunk_sum


class NewtonRules(NamedTuple):
    """What the split search reads: the regularisation ``l2`` and ``l1``, the least weight
    (hessian) and rows of a side, whether missing values take the side that gains more
    (else the heavier one), and the value of one whole unit of the ``R`` and ``H`` sums."""

    l2: float
    l1: float
    min_child_weight: float
    min_rows: int
    learned_missing: bool
    r_unit: float
    h_unit: float
    nominal_smoothing: float = 0.0
    min_category_rows: int = 0
    max_split_categories: int = -1


@njit(inline="always")
def side_score(r, h, rules):
    """``T(R)**2 / (H + l2)`` of sums in units (0 for no weight)."""
    hh = h * rules.h_unit + rules.l2
    if hh <= 0.0:
        return 0.0
    t = shrunk_sum(r * rules.r_unit, rules.l1)
    return t * t / hh


@njit(inline="always")
def side_value(r, h, rules):
    """A side's Newton step ``T(R) / (H + l2)`` (0 for no weight)."""
    hh = h * rules.h_unit + rules.l2
    if hh <= 0.0:
        return 0.0
    return shrunk_sum(r * rules.r_unit, rules.l1) / hh


@njit(inline="always")
def bounded_score(r, h, rules, lower, upper):
    """A side's score when its step must stay within ``[lower, upper]`` (monotonic
    constraints): ``2 T(R) v - (H + l2) v**2`` at the step ``v`` held there, which is
    :func:`side_score` when the step is within the bounds."""
    v = min(max(side_value(r, h, rules), lower), upper)
    t = shrunk_sum(r * rules.r_unit, rules.l1)
    return 2.0 * t * v - (h * rules.h_unit + rules.l2) * v * v


@njit(inline="always")
def _pair_score(rl, hl, rr, hr, rules, bounds):
    """The two sides' score; with ``bounds`` ``(constraint, lower, upper)`` active, each
    side's step held within ``[lower, upper]``, and -inf where the steps go against the
    feature's constraint (+1: left <= right, -1: left >= right)."""
    constraint, lower, upper = bounds
    if constraint == 0 and lower == -np.inf and upper == np.inf:
        return side_score(rl, hl, rules) + side_score(rr, hr, rules)
    vl = min(max(side_value(rl, hl, rules), lower), upper)
    vr = min(max(side_value(rr, hr, rules), lower), upper)
    if (constraint > 0 and vl > vr) or (constraint < 0 and vl < vr):
        return -np.inf
    return bounded_score(rl, hl, rules, lower, upper) + bounded_score(rr, hr, rules, lower, upper)


@njit(refcounts=False)
def _present_bins(hist_f, n_bins, order):
    """The codes of the bins with rows, in increasing order, into ``order``; how many."""
    m = 0
    for c in range(n_bins):
        if hist_f[c, 2] > 0:
            order[m] = c
            m += 1
    return m


@njit(refcounts=False)
def _supported(hist_f, order, m, min_rows):
    """``order[:m]`` less the categories of fewer than ``min_rows`` rows; how many stay."""
    kept = 0
    for i in range(m):
        c = order[i]
        if hist_f[c, 2] >= min_rows:
            order[kept] = c
            kept += 1
    return kept


@njit
def _by_ratio(hist_f, order, m, keys, rules):
    """``order[:m]`` sorted by each category's ``R / (H + smoothing)`` (ties by code: a
    stable sort of codes in increasing order)."""
    smoothing = rules.nominal_smoothing
    for i in range(m):
        c = order[i]
        h = hist_f[c, 1] * rules.h_unit + smoothing
        keys[i] = hist_f[c, 0] * rules.r_unit / h if h > 0 else 0.0
    index = np.argsort(keys[:m], kind="mergesort")
    sorted_codes = order[:m][index]
    for i in range(m):
        order[i] = sorted_codes[i]


@njit(refcounts=False)
def scan_feature(hist_f, order, m, missing, known, rules, bounds, cap=-1):
    """The best cut of one feature whose bins with rows are ``order[:m]`` in scan order:
    ``(score, i, missing_left)``, the sides' scores, the last position on the left (-1 when
    no cut is admissible) and whether the missing rows go left; with ``cap >= 0``, only the
    cuts whose smaller side holds at most ``cap`` bins. ``missing`` and ``known``
    are the sums ``(R, H, rows)`` of the rows with a missing value and of the others;
    ``bounds``: the feature's monotonic constraint and the leaf's bounds on a step
    (:func:`_pair_score`)."""
    h_unit = rules.h_unit
    w_known = known[1] * h_unit
    w_missing = missing[1] * h_unit
    w_all = w_known + w_missing
    tie = GAIN_EPS * w_all
    place = missing[2] > 0
    best_score = 0.0
    best_i = -1
    best_left = True
    rl = np.int64(0)
    hl = np.int64(0)
    nl = np.int64(0)
    for i in range(m - 1):
        c = order[i]
        rl += hist_f[c, 0]
        hl += hist_f[c, 1]
        nl += hist_f[c, 2]
        if cap >= 0 and i + 1 > cap and m - 1 - i > cap:
            continue
        rr = known[0] - rl
        hr = known[1] - hl
        nr = known[2] - nl
        wl = hl * h_unit
        wr = hr * h_unit
        if wl < rules.min_child_weight or wr < rules.min_child_weight:
            continue
        if wl <= 0.0 or wr <= 0.0 or nl < rules.min_rows or nr < rules.min_rows:
            continue
        left = rules.learned_missing or wl >= wr
        if not place:
            score = _pair_score(rl, hl, rr, hr, rules, bounds)
        elif left:
            score = _pair_score(rl + missing[0], hl + missing[1], rr, hr, rules, bounds)
        else:
            score = _pair_score(rl, hl, rr + missing[0], hr + missing[1], rules, bounds)
        if place and rules.learned_missing:
            right = _pair_score(rl, hl, rr + missing[0], hr + missing[1], rules, bounds)
            if right > score + GAIN_EPS * max(abs(score), w_all):
                score = right
                left = False
        if score == -np.inf:
            continue
        if best_i < 0 or score > best_score + max(GAIN_EPS * abs(best_score), tie):
            best_score = score
            best_i = i
            best_left = left
    return best_score, best_i, best_left


@njit
def best_split(
    hist, totals, kinds, n_bins, features, n_features, rules, goes_left, constraints, lower, upper
):
    """The best split of a leaf with histograms ``hist`` and sums ``totals`` (``(R, H,
    rows)``) over the candidate ``features[:n_features]`` (in increasing order): ``(feature,
    gain, missing_left, left sums)``, feature -1 when no cut is admissible. ``goes_left``
    (of ``hist.shape[1]`` entries, the missing code last) receives the winner's sides: a
    code with no rows at the leaf goes to the heavier side, as do the missing values when
    the leaf has none; a category left out of the scan (too few rows) goes right.
    ``constraints`` holds each feature's monotonic constraint (+1, -1 or
    0) and ``[lower, upper]`` the bounds of the leaf's steps (infinite: none)."""
    width = hist.shape[1]
    order = np.empty(width, dtype=np.int64)
    keys = np.empty(width)
    bounded = lower != -np.inf or upper != np.inf
    if bounded:
        parent = bounded_score(totals[0], totals[1], rules, lower, upper)
    else:
        parent = side_score(totals[0], totals[1], rules)
    best_f = -1
    best_gain = -1.0
    best_left = True
    best_sums = np.zeros(3, dtype=np.int64)
    best_order = np.empty(width, dtype=np.int64)
    best_m = 0
    best_i = -1
    for j in range(n_features):
        f = features[j]
        hist_f = hist[f]
        missing = hist_f[width - 1]
        known = totals - missing
        m = _present_bins(hist_f, n_bins[f], order)
        cap = -1
        if kinds[f] == NOMINAL:
            m = _supported(hist_f, order, m, rules.min_category_rows)
            _by_ratio(hist_f, order, m, keys, rules)
            cap = rules.max_split_categories
        if m < 2:
            continue
        bounds = (np.int64(constraints[f]), lower, upper)
        score, i, missing_left = scan_feature(hist_f, order, m, missing, known, rules, bounds, cap)
        if i < 0:
            continue
        # The gain per unit of weight, as the compiled grower compares features.
        gain = (score - parent) / (totals[1] * rules.h_unit)
        if gain > best_gain + 1e-12:
            best_f, best_gain, best_left, best_i, best_m = f, gain, missing_left, i, m
            for t in range(m):
                best_order[t] = order[t]
    if best_f < 0:
        return -1, 0.0, True, best_sums
    hist_f = hist[best_f]
    for t in range(best_i + 1):
        for k in range(3):
            best_sums[k] += hist_f[best_order[t], k]
    missing = hist_f[width - 1]
    known_h = totals[1] - missing[1]
    heavier_left = best_sums[1] >= known_h - best_sums[1]
    if missing[2] == 0:
        best_left = heavier_left
    for c in range(width):
        goes_left[c] = heavier_left
    if kinds[best_f] == NOMINAL:  # the categories the scan left out are on the right
        for c in range(n_bins[best_f]):
            if hist_f[c, 2] > 0:
                goes_left[c] = False
    for t in range(best_m):
        goes_left[best_order[t]] = t <= best_i
    goes_left[width - 1] = best_left
    if best_left:
        for k in range(3):
            best_sums[k] += missing[k]
    return best_f, best_gain * totals[1] * rules.h_unit, best_left, best_sums
