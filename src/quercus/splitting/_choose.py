"""Numba kernels: the best split of a node, from its per-feature statistics.

Stage two of growing a node, after its statistics (``_histogram.py``) and before its
partition (``_partition.py``): each candidate feature's best split comes from the scans of
``_scan.py`` (:func:`split_of_feature`), is kept as a :data:`~quercus.grow._records.CANDIDATE`
record (:func:`keep_candidate`), and one candidate wins (:func:`choose_candidate`). The
statistics may come from the node's own rows (the compiled grower) or from histograms
another process summed (:func:`stats_from_histogram`, the level-wise grower): the split
found is the same.
"""

from __future__ import annotations

import numpy as np

from .._config import NOMINAL, NUMERIC, njit
from ..criteria.registry import GAIN_RATIO, M5
from ._absolute import absolute_split
from ._rules import with_c45
from ._scan import scan_multiway, scan_subset, scan_threshold

C45_EPSILON = 1e-3  # C4.5's tolerance on the average-gain filter and the split information
M5_TIE = 1e-6  # Weka's M5P: a later attribute must gain more than this over the best so far


@njit
def split_of_feature(
    present, stats, n_present, missing, f, kind, rules, key_class, order_out, bin_lo, bin_hi, acc
):
    """Best split of feature ``f`` from its statistics at a node, by the
    :class:`~quercus.splitting._rules.SplitRules` ``rules``:
    ``(gain, cut, split_info, n_order, missing)``.

    ``present[:n_present]`` are the codes of the non-empty bins or categories, ``stats``
    their statistics, ``missing[0]`` those of the rows with a missing value. ``cut`` is -1
    when no split is admissible; for thresholds and subsets the first ``cut + 1`` entries
    (in the order written to ``order_out[:n_order]`` for subsets) go left; for multiway
    splits it is 1. ``missing`` is the child that missing values take when the policy learns
    it (LEARNED), else -1.
    """
    if kind == NOMINAL and rules.multiway:
        gain, cut, info, index = scan_multiway(present, stats, n_present, missing, rules, acc)
        return gain, cut, info, 0, present[index] if index >= 0 else -1
    if kind == NOMINAL:
        gain, cut, info, order, side = scan_subset(
            present, stats, n_present, missing, rules, key_class
        )
        order_out[:n_present] = order
        return gain, cut, info, n_present, side
    return threshold_split_of_feature(
        present, stats, n_present, missing, f, kind, rules, bin_lo, bin_hi, acc
    )


@njit(refcounts=False)
def threshold_split_of_feature(
    present, stats, n_present, missing, f, kind, rules, bin_lo, bin_hi, acc
):
    """:func:`split_of_feature` of a numeric or ordinal feature (a threshold). The grower
    calls it directly: without reference counts (it allocates nothing), the call costs
    none of the atomic counts that :func:`split_of_feature` pays for its seven arrays."""
    # C4.5's rules for continuous attributes: not for an ordinal feature's levels.
    c45_classes = rules.c45_classes if kind == NUMERIC else 0
    gain, cut, info, side = scan_threshold(
        present,
        stats,
        n_present,
        missing,
        with_c45(rules, c45_classes, rules.c45_tolerance),
        bin_lo,
        bin_hi,
        f,
        acc,
    )
    return gain, cut, info, 0, side


@njit
def absolute_split_of_feature(
    data, y_value, w, start, end, f, kind, missing_code, rules, present, scratch, order_out
):
    """As :func:`split_of_feature` for the absolute-error criterion, which ranks the node's
    rows rather than summing bins (see ``_absolute.py``; ``scratch``: its
    :class:`~quercus.splitting._absolute.AbsoluteScratch`; missing values count as
    FRACTIONAL counts them, and the grower places them by the node's policy)."""
    mode = 0 if kind != NOMINAL else (1 if rules.multiway else 2)
    gain, cut, info, order, n_groups = absolute_split(
        data, y_value, w, start, end, f, missing_code, mode, rules.min_leaf, present, scratch
    )
    if mode == 2:
        order_out[:n_groups] = order[:n_groups]
        return gain, cut, info, n_groups, -1
    return gain, cut, info, 0, -1


@njit(inline="always")
def keep_candidate(candidates, sides, j, f, kind, n_bins, split, present, order, rules):
    """Record feature ``f``'s best split ``split`` (as :func:`split_of_feature` returns it)
    as candidate ``j``, with what recording the split needs, so that the winner is not
    searched again: the bins on either side of a threshold, or (binary subsets: ``rules``
    not multiway) each category's side in ``sides[j]``."""
    gain, cut, info, n_order, miss = split
    cand = candidates[j]
    cand.feature = f
    cand.gain = gain
    cand.cut = cut
    cand.split_info = info
    cand.missing = miss
    if cut >= 0 and kind != NOMINAL:
        cand.lo = present[cut]
        cand.hi = present[cut + 1]
    elif cut >= 0 and not rules.multiway:
        for c in range(n_bins):
            sides[j, c] = -1
        for t in range(n_order):
            sides[j, present[order[t]]] = 0 if t <= cut else 1


@njit(inline="always")
def choose_candidate(candidates, n_cand, rules):
    """Index of the winning candidate, or -1 when none is admissible (by ``rules``'
    criterion and C4.5's tolerance).

    The highest gain (the first on ties, within 1e-6 for M5's criterion); for the gain
    ratio, C4.5's rule: among the candidates with at least the average gain, the highest
    ratio of gain to split information, ratios within the tolerance tied, and only a
    positive gain and ratio (J48: above its tolerance) splitting.
    """
    criterion, c45_tolerance = rules.criterion, rules.c45_tolerance
    chosen = -1
    if criterion == GAIN_RATIO:
        total_gain = 0.0
        n_ok = 0
        for j in range(n_cand):
            if candidates[j].cut >= 0:
                total_gain += candidates[j].gain
                n_ok += 1
        if n_ok > 0:
            avg = total_gain / n_ok
            tie = max(c45_tolerance, 1e-12)
            best_ratio = 0.0
            for j in range(n_cand):
                cand = candidates[j]
                if cand.cut >= 0 and cand.gain >= avg - C45_EPSILON:
                    if cand.split_info > C45_EPSILON and cand.gain > tie:
                        ratio = cand.gain / cand.split_info
                        if ratio > best_ratio + tie:
                            best_ratio = ratio
                            chosen = j
        return chosen
    best_gain = -1.0
    tie = M5_TIE if criterion == M5 else 1e-12
    for j in range(n_cand):
        if candidates[j].cut >= 0 and candidates[j].gain > best_gain + tie:
            best_gain = candidates[j].gain
            chosen = j
    return chosen


@njit(inline="always")
def threshold_between(bins, f, lo_code, hi_code):
    """Threshold of the cut between bins ``lo_code`` and ``hi_code`` of feature ``f`` (of the
    grower's ``Bins``): the midpoint of the values on either side (ordinal: between the
    level codes)."""
    if bins.kinds[f] != NUMERIC:
        return lo_code + 0.5
    a = bins.bin_hi[f, lo_code]
    b = bins.bin_lo[f, hi_code]
    t = a + (b / 2.0 - a / 2.0)  # halves first: b - a overflows between -1e308 and 1e308
    if t >= b:  # adjacent floats: keep "x <= t" true for a and false for b
        t = a
    return t


@njit
def stats_from_histogram(hist, counts, n_bins, present, stats):
    """``present[:P]`` and ``stats[:P]`` of a feature from its dense histogram: the bins
    that hold rows (``counts > 0``, a bin of zero-weight rows included, as the grower's own
    statistics include it), in increasing code order; returns ``P``."""
    n_present = 0
    for c in range(n_bins):
        if counts[c] > 0:
            present[n_present] = c
            for k in range(hist.shape[1]):
                stats[n_present, k] = hist[c, k]
            n_present += 1
    return n_present


@njit
def best_split_from_histograms(
    hist, counts, missing, node_values, bins, rules, features, n_cand, candidates, sides
):
    """The winning candidate of a node from its histograms (:func:`node_histograms`'s
    ``(hist, counts, missing)``), by the split search's ``rules``
    (:class:`~quercus.splitting._rules.SplitRules`): the best split of each candidate feature
    (``features[:n_cand]``) as the compiled grower finds it from the node's rows, then
    :func:`choose_candidate`. Returns the index of the winner in ``candidates`` (one per
    candidate feature), or -1."""
    n_stats = hist.shape[2]
    max_b = hist.shape[1]
    present = np.zeros(max_b, dtype=np.int64)
    stats = np.zeros((max_b, n_stats))
    miss = np.zeros((1, n_stats))
    acc = np.zeros((6 + max_b, n_stats))
    order = np.zeros(max_b, dtype=np.int64)
    key = 0 if rules.regression else np.argmax(node_values)
    for j in range(n_cand):
        f = features[j]
        kind = bins.kinds[f]
        n_present = stats_from_histogram(hist[f], counts[f], bins.n_bins[f], present, stats)
        miss[0, :] = missing[f]
        split = split_of_feature(
            present,
            stats,
            n_present,
            miss,
            f,
            kind,
            rules,
            key,
            order,
            bins.bin_lo,
            bins.bin_hi,
            acc,
        )
        keep_candidate(candidates, sides, j, f, kind, bins.n_bins[f], split, present, order, rules)
    return choose_candidate(candidates, n_cand, rules)
