"""The compiled grower's per-node search: create a node from its work item, search the best
split of each candidate feature and record the winner as the node's pending split.

:func:`search_node` is called once per node by the growth loop (``_grow.py``), compiled
without reference counts; the stages it runs are the kernels of ``splitting/``: the node's
statistics (``_histogram.py``), each feature's best split (``_choose.py``, ``_scan.py``,
``_absolute.py``) and the winner (``_choose.choose_candidate``), by the tree's
:class:`~quercus.splitting._rules.SplitRules`. A node of two rows may take a shortcut
(:func:`two_rows_apply`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import (
    FRACTIONAL,
    LEAF,
    MULTIWAY_SPLIT,
    NOMINAL,
    NUMERIC_SPLIT,
    SUBSET_SPLIT,
    njit,
)
from ..criteria.registry import ABSOLUTE_ERROR, GAIN_RATIO
from ..splitting._absolute import AbsoluteScratch, node_ranks, weighted_median
from ..splitting._category_bits import record_sides
from ..splitting._choose import (
    absolute_split_of_feature,
    choose_candidate,
    keep_candidate,
    split_of_feature,
    threshold_between,
    threshold_split_of_feature,
)
from ..splitting._histogram import (
    class_histograms,
    feature_stats,
    node_stats,
    stats_of_histogram,
)
from ..splitting._scan import impurity, stats_weight
from ._buffers import ScanScratch, grow_flat, grow_rows, row_arrays, scratch_space
from ._draws import candidate_features
from ._records import CANDIDATE
from ._settings import DEFERRED, LEAF_EPSILON, is_deferred, stop_splitting


class SearchSpace(NamedTuple):
    """The scratch space and records of the split search, allocated once per tree: the
    scans', absolute error's, the candidate features, one :data:`CANDIDATE` record per
    candidate, each binary subset's categories' sides (one row per candidate), the state of
    the features' draw, and whether nodes of two rows take their shortcut
    (:func:`two_rows_apply`)."""

    scan: ScanScratch
    absolute: AbsoluteScratch
    features: np.ndarray
    candidates: np.ndarray
    sides: np.ndarray
    rng_state: np.ndarray
    two_rows: bool


@njit(inline="always")
def search_space(data, p, max_b, bins, s):
    """The scratch space of partitioning, and that of the split search (a
    :class:`SearchSpace`)."""
    scan, part, absolute = scratch_space(data, max_b, s.n_stats, s)
    space = SearchSpace(
        scan,
        absolute,
        np.zeros(p, dtype=np.int64),  # the candidate features
        np.zeros(p, dtype=CANDIDATE),
        np.zeros((p if not s.multiway else 1, max_b), dtype=np.int8),  # subsets' sides
        np.zeros(1, dtype=np.uint64),
        two_rows_apply(s, np.any(bins.kinds == NOMINAL)),
    )
    return part, space


@njit(inline="always")
def _open_node(nodes, values, node, item, item_values, src, s):
    """Create ``node`` from the work item ``item`` (its statistics ``item_values``, summed
    by the parent's partition); return whether it may be split (the stopping rules)."""
    start = item.start
    end = item.end
    nd = nodes[node]
    nd.kind = LEAF
    nd.pending = LEAF
    nd.feature = -1
    nd.cat_start = -1
    nd.missing_child = -1
    nd.depth = item.depth
    nd.start = start
    nd.end = end
    nd.in_buffer = item.in_buffer
    nd.draw_key = item.draw_key
    nd.n_samples = end - start
    nd.threshold = np.nan
    nd.improvement = -1.0
    # Loops, not slice assignments: the node's search is compiled without reference counts.
    if end == start:
        # An empty branch of a multiway split: a leaf with its parent's distribution.
        for k in range(values.shape[1]):
            values[node, k] = values[item.parent, k]
        nd.median = nodes[item.parent].median
        nd.weight = 0.0
        nd.impurity = 0.0
        return False
    x, yc, yv, w = src
    if item.slot < 0:
        node_stats(yc, yv, w, start, end, s.regression, values, node)
    else:
        for k in range(values.shape[1]):
            values[node, k] = item_values[k]
    w_node = stats_weight(values, node, s.regression)
    if s.criterion == ABSOLUTE_ERROR:
        med = weighted_median(yv[start:end], w[start:end])
        nd.median = med
        node_impurity = 0.0
        for r in range(start, end):
            node_impurity += w[r] * abs(yv[r] - med)
        node_impurity /= w_node
    else:
        node_impurity = impurity(values, node, s.criterion, s.regression, s.l2, s.l1)
    nd.weight = w_node
    nd.impurity = node_impurity
    return not stop_splitting(item.depth, end - start, w_node, node_impurity, s)


@njit(inline="always")
def _feature_stats_of(f, start, end, src, bins, rules, scan, hist):
    """:func:`feature_stats` of feature ``f`` over rows ``start:end`` into the scan's
    scratch space ``scan`` (a :class:`ScanScratch`), or read from the node's histograms
    ``hist`` (``(view, in use)``); returns the number of present bins."""
    if hist[1]:
        return stats_of_histogram(
            hist[0], f, bins.n_bins[f], scan.present, scan.stats, scan.missing
        )
    x, yc, yv, w = src
    return feature_stats(
        x,
        yc,
        yv,
        w,
        start,
        end,
        f,
        bins.n_bins[f],
        bins.missing_code,
        rules.regression,
        scan.dense,
        scan.present,
        scan.stats,
        scan.missing,
        scan.order_buf,
        scan.code_buf,
        scan.stats_space,
    )


@njit(inline="always")
def _score_feature(j, f, node, nodes, values, src, bins, rules, space, hist):
    """Search the best split of feature ``f`` of ``node`` into candidate record ``j``:
    with the absolute-error criterion from the node's ranked rows (``node_ranks`` done),
    else (a nominal feature) from the feature's statistics. Thresholds of the other
    criteria are searched by :func:`_score_thresholds`. ``space``: the
    :class:`SearchSpace`; ``hist``: the node's histograms ``(view, in use)``."""
    scan = space.scan
    nd = nodes[node]
    x, _, yv, w = src
    kind = bins.kinds[f]
    if rules.criterion == ABSOLUTE_ERROR:
        split = absolute_split_of_feature(
            x,
            yv,
            w,
            nd.start,
            nd.end,
            f,
            kind,
            bins.missing_code,
            rules,
            scan.present,
            space.absolute,
            scan.order,
        )
    else:
        n_present = _feature_stats_of(f, nd.start, nd.end, src, bins, rules, scan, hist)
        split = split_of_feature(
            scan.present,
            scan.stats,
            n_present,
            scan.missing,
            f,
            kind,
            rules,
            0 if rules.regression else np.argmax(values[node]),
            scan.order,
            bins.bin_lo,
            bins.bin_hi,
            scan.acc,
        )
    keep_candidate(
        space.candidates,
        space.sides,
        j,
        f,
        kind,
        bins.n_bins[f],
        split,
        scan.present,
        scan.order,
        rules,
    )


@njit(refcounts=False)
def _score_thresholds(
    start, end, features, n_cand, src, bins, rules, scan, candidates, sides, hist
):
    """Search the best threshold of each numeric or ordinal feature among the ``n_cand``
    candidates ``features`` of the node of rows ``start:end`` (a candidate record each;
    not for the absolute-error criterion). Called once per node, not inlined: the loop over
    the features takes the node's arrays from the tuples once, with no reference counts,
    where inlined each feature counted some twenty arrays up and down again."""
    present, stats, missing, acc, order = (
        scan.present,
        scan.stats,
        scan.missing,
        scan.acc,
        scan.order,
    )
    for j in range(n_cand):
        f = features[j]
        kind = bins.kinds[f]
        if kind == NOMINAL:
            continue
        n_present = _feature_stats_of(f, start, end, src, bins, rules, scan, hist)
        split = threshold_split_of_feature(
            present, stats, n_present, missing, f, kind, rules, bins.bin_lo, bins.bin_hi, acc
        )
        keep_candidate(candidates, sides, j, f, kind, bins.n_bins[f], split, present, order, rules)


@njit(inline="always")
def _score_candidates(node, nodes, values, src, bins, rules, space, hist, n_cand):
    """Search the best split of each of the ``n_cand`` candidate features of ``node`` (a
    candidate record each; ``space`` and ``hist`` as for :func:`_score_feature`)."""
    nd = nodes[node]
    features = space.features
    if rules.criterion == ABSOLUTE_ERROR:
        node_ranks(src[2], nd.start, nd.end, space.absolute.rank, space.absolute.sorted_y)
    else:
        _score_thresholds(
            nd.start,
            nd.end,
            features,
            n_cand,
            src,
            bins,
            rules,
            space.scan,
            space.candidates,
            space.sides,
            hist,
        )
    for j in range(n_cand):
        if rules.criterion == ABSOLUTE_ERROR or bins.kinds[features[j]] == NOMINAL:
            _score_feature(j, features[j], node, nodes, values, src, bins, rules, space, hist)


@njit(inline="always")
def two_rows_apply(s, any_nominal):
    """Whether a node of two rows may take :func:`_choose_of_two_rows`: thresholds only,
    a criterion that ranks by gain (not C4.5's gain ratio rule, not absolute error), and
    neither C4.5's rules for thresholds, its fractional copies nor the trace."""
    return (
        not any_nominal
        and not s.trace_on
        and s.c45_classes == 0
        and s.criterion != ABSOLUTE_ERROR
        and s.criterion != GAIN_RATIO
        and s.missing_mode != FRACTIONAL
    )


@njit(inline="always")
def _choose_of_two_rows(node, nodes, values, src, bins, rules, space, hist, n_cand):
    """The winning candidate of a node of two rows (see :func:`two_rows_apply`) among its
    ``n_cand`` candidate features, or -1, as :func:`choose_candidate` would pick it after
    scoring every feature.

    Two rows have one split: each on its own side. A feature offers it when both rows have
    a value and their bin codes differ, with the lower code on the left; so every feature
    offers one of two splits, mirror images whose gains differ at most by rounding. Only
    the first feature of each orientation is scored: the others tie with it, and a tie
    goes to the first."""
    candidates = space.candidates
    features = space.features
    nd = nodes[node]
    x = src[0]
    first = -1
    first_low = False
    mirrored = -1
    for j in range(n_cand):
        f = features[j]
        a = x[nd.start, f]
        b = x[nd.start + 1, f]
        if a == b or a == bins.missing_code or b == bins.missing_code:
            continue
        if first < 0:
            first = j
            first_low = a < b
        elif (a < b) != first_low:
            mirrored = j
            break
    if first < 0:
        return -1
    _score_feature(first, features[first], node, nodes, values, src, bins, rules, space, hist)
    if candidates[first].cut < 0:
        return -1  # the sides fall short of min_leaf, in every orientation
    if mirrored >= 0:
        _score_feature(
            mirrored, features[mirrored], node, nodes, values, src, bins, rules, space, hist
        )
        if candidates[mirrored].gain > candidates[first].gain + 1e-12:
            return mirrored
    return first


@njit(inline="always")
def record_trace(trace, trace_sides, n_trace, node, space, n_cand, bins, multiway):
    """Append one trace row per candidate of ``node`` (its records in ``space``, the
    :class:`SearchSpace`)."""
    candidates, sides = space.candidates, space.sides
    trace = grow_flat(trace, n_trace + n_cand)
    trace_sides = grow_rows(trace_sides, n_trace + n_cand)
    for j in range(n_cand):
        cand = candidates[j]
        f = cand.feature
        row = trace[n_trace]
        row.node = node
        row.feature = f
        row.gain = cand.gain
        row.split_info = cand.split_info
        row.admissible = cand.cut >= 0
        row.threshold = np.nan
        trace_sides[n_trace, :] = -1
        if cand.cut >= 0 and bins.kinds[f] != NOMINAL:
            row.threshold = threshold_between(bins, f, cand.lo, cand.hi)
        elif cand.cut >= 0 and not multiway:
            trace_sides[n_trace, : bins.n_bins[f]] = sides[j, : bins.n_bins[f]]
        n_trace += 1
    return trace, trace_sides, n_trace


@njit(inline="always")
def _record_split(nodes, node, cand, side, improvement, bins, multiway, cat_table, n_cat):
    """Record the winning candidate ``cand`` as the pending split of ``node`` (``side``: its
    categories' sides, for a binary subset split, whose pending table goes into
    ``cat_table``, which has room for it); return the table's new size."""
    nd = nodes[node]
    f = cand.feature
    nd.feature = f
    nd.missing_child = cand.missing  # -1: placed when the split is applied
    nd.improvement = improvement
    n_codes = bins.n_bins[f]
    if bins.kinds[f] == NOMINAL:
        nd.pending = MULTIWAY_SPLIT if multiway else SUBSET_SPLIT
        if not multiway:
            nd.cat_start = n_cat
            # A category absent at the node is placed when the split is applied.
            n_cat = record_sides(cat_table, n_cat, side, n_codes)
    else:
        nd.pending = NUMERIC_SPLIT
        nd.bin_cut = cand.lo
        nd.threshold = threshold_between(bins, f, cand.lo, cand.hi)
    return n_cat


@njit(refcounts=False)
def search_node(
    node,
    item,
    item_values,
    nodes,
    values,
    rows,
    buffers,
    bins,
    s,
    rules,
    space,
    w_root,
    cat_table,
    n_cat,
    hist,
):
    """Create ``node`` from the work item ``item`` (its statistics ``item_values``), search
    its best split by the tree's ``rules`` (``s``'s :func:`~._settings.split_rules`) and
    record it as pending. Returns ``(candidates searched, or -1 when the node stopped
    before its search; whether a split is pending; n_cat)``.

    ``cat_table`` must have room for ``n_cat`` plus any feature's codes, and the caller
    records the trace of the candidates: compiled without reference counts, this per-node
    step allocates nothing. Called, not inlined: inlined into the grower's loop, taking the
    node's arrays out of their tuples counted each of them up and down, some 9% of a forest's
    time. ``space``: the :class:`SearchSpace`; ``hist``: the node's histograms ``(view, in
    use, to be summed here)``."""
    src = row_arrays(item.in_buffer, rows, buffers)
    if not _open_node(nodes, values, node, item, item_values, src, s):
        return -1, False, n_cat
    if is_deferred(nodes[node].n_samples, s):
        nodes[node].pending = DEFERRED
        return -1, False, n_cat
    view, in_use, to_sum = hist
    if to_sum:
        class_histograms(src[0], src[1], src[3], item.start, item.end, bins.missing_code, view)
    candidates = space.candidates
    n_drawn = candidate_features(
        bins.kinds.shape[0], s.max_features, nodes[node].draw_key, space.rng_state, space.features
    )
    n_cand = 0
    if space.two_rows and nodes[node].n_samples == 2:
        chosen = _choose_of_two_rows(
            node, nodes, values, src, bins, rules, space, (view, in_use), n_drawn
        )
    else:
        _score_candidates(node, nodes, values, src, bins, rules, space, (view, in_use), n_drawn)
        n_cand = n_drawn
        chosen = choose_candidate(candidates, n_cand, rules)
    if chosen < 0:
        return n_cand, False, n_cat
    improvement = nodes[node].weight / w_root * candidates[chosen].gain
    if improvement + LEAF_EPSILON < s.min_impurity_decrease:
        return n_cand, False, n_cat
    side = space.sides[min(chosen, space.sides.shape[0] - 1)]
    n_cat = _record_split(
        nodes, node, candidates[chosen], side, improvement, bins, rules.multiway, cat_table, n_cat
    )
    return n_cand, True, n_cat
