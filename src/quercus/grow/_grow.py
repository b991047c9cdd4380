"""Numba kernel: grow one tree over a binned matrix.

The growth loop is compiled, because a deep tree has hundreds of thousands of nodes and a
Python step per node would cost more than the split search itself. The loop itself only
keeps the frontier (the work list of nodes to create, or for best-first growth the leaves
with a pending split) and the stopping rules; each stage of growing a node is its own
function: the node's statistics (``splitting/_histogram.py``), its best split
(``splitting/_choose.py``), the partition of its rows with their missing values
(``splitting/_partition.py``) and the chi-square test (``splitting/_significance.py``).

The stages with a loop over the node's rows or bins (:func:`feature_stats`,
:func:`threshold_split_of_feature` or, for a category, :func:`split_of_feature`,
:func:`route_known`, :func:`move_rows`) are called, each compiled on its own. Inlined into
this loop, which keeps a hundred arrays live, the row loops had their counters and array
bounds spilled to the stack and a forest grew slower than with the calls
(``bench/README.md``). The two per-node steps, :func:`_search_node` (create a node and
search its split) and :func:`_apply_split` (move its rows to its children), are called too,
and like the row loops compiled without reference counts (``_config.njit``): counting
arrays up and down at every call, and at every array taken out of a tuple, took 20% of a
one-thread forest fit's profile, 9% of it in the per-node steps while they were inlined.
Neither allocates: the loop makes room first (the category table) or after (the trace, and
C4.5's fractional copies, which :func:`_apply_split` leaves to it).

Nodes are numbered in the order they are created: depth-first growth creates them in
preorder (first child first, as scikit-learn numbers its trees); best-first growth
(``max_leaf_nodes``) creates both children when it splits a node. Nodes, pending work and
candidate splits are named records (``_records.py``); ``values`` holds each node's
statistics (class weights, or weight, weighted sum and weighted sum of squares of the
target), ``children`` the child node ids of each split and ``cat_table`` the bitsets of the
binary subset splits (``splitting/category_sets.py``; a multiway split sends category ``c``
to child ``c`` and stores nothing).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import (
    CLASS_MAJORITY,
    FRACTIONAL,
    GAIN_EPS,
    LEAF,
    MULTIWAY_SPLIT,
    NOMINAL,
    NUMERIC_SPLIT,
    SUBSET_SPLIT,
    njit,
)
from .._counters import GOLDEN_GAMMA, mix64, substream
from ..criteria.registry import ABSOLUTE_ERROR, GAIN_RATIO
from ..splitting._absolute import node_ranks, weighted_median
from ..splitting._category_bits import (
    growing_width,
    record_sides,
    settle_unseen,
    settled_tables,
)
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
    stats_scratch,
    subtract_histograms,
    take_out_rows,
)
from ..splitting._partition import (
    copy_fractional,
    fractional_shares,
    missing_branch,
    move_rows,
    route_known,
    route_missing,
)
from ..splitting._scan import impurity, stats_weight
from ..splitting._significance import significant
from ._records import CANDIDATE, NODE, TRACE, WORK

LEAF_EPSILON = np.finfo(np.float64).eps * 10  # as scikit-learn: below it, a node is pure
#: ``pending`` of a node left unsplit because its subtree is grown apart
#: (``Settings.defer_rows``; ``grow/threads.py``).
DEFERRED = -2


class Bins(NamedTuple):
    """What the kernel needs of the binning: each feature's kind (NUMERIC, NOMINAL or
    ORDINAL) and number of codes, the missing code, and the smallest and largest training
    value of each numeric bin (for real-valued thresholds)."""

    kinds: np.ndarray
    n_bins: np.ndarray
    missing_code: int
    bin_lo: np.ndarray
    bin_hi: np.ndarray


class Settings(NamedTuple):
    """The growth parameters, in the types the kernel is compiled for.

    ``max_depth`` and ``max_leaf_nodes`` are -1 for no limit. ``c45_classes`` > 0 applies
    C4.5's rules for continuous attributes (see
    :func:`~quercus.splitting._scan.scan_threshold`), and gains and gain ratios within
    ``c45_tolerance`` count as tied (J48's 1e-6; release 8: 0). ``chi2_critical[df]``, when
    longer than one entry, are the critical values of the chi-square pre-pruning test
    (``splitting/_significance.py``). ``missing_mode`` is the missing-value policy
    (``_config.MISSING_POLICIES``): FRACTIONAL sends a row with a missing value down every
    branch, its weight times the branch's share of the known weight (the copies are
    appended after the rows, so a node's rows stay contiguous).
    """

    multiway: bool
    criterion: int
    regression: bool
    n_stats: int
    max_depth: int
    min_split: float
    min_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int
    max_features: int
    seed: int
    c45_classes: int
    c45_tolerance: float
    chi2_critical: np.ndarray
    missing_mode: int
    trace_on: bool
    # Growing a subtree of a larger tree (the level-wise grower hands small nodes over):
    # the depth of its root, the whole tree's weight (0: the rows'), and the root's key of
    # the feature draw (``root_draw_key(seed)`` for a whole tree).
    root_depth: int = 0
    w_total: float = 0.0
    root_key: np.uint64 = np.uint64(0)
    # > 0: a node of at most this many rows, and more than ``defer_min_rows``, that may be
    # split is left a leaf with ``pending`` DEFERRED, its rows in place, for its subtree to
    # be grown on another thread (smaller nodes are grown here: a split many ways on a
    # nominal column of many levels has thousands of small children).
    defer_rows: int = 0
    defer_min_rows: int = 0
    # > 0: nodes of at least this many rows keep the histograms of every feature, and the
    # largest child of such a node takes its parent's less its siblings' (histogram
    # subtraction). Only where that is exact: see ``grow/grower.subtraction_rows``.
    subtract_rows: int = 0
    # A node whose impurity is below this stays a leaf (M5: a standard deviation under 5%
    # of the whole training set's).
    min_impurity_split: float = 0.0
    # > 0: splits are chosen by looking this many levels ahead (the level-wise grower only:
    # grow/levelwise.py, splitting/_lookahead.py).
    lookahead: int = 0


@njit(inline="always")
def _grow_rows(a, need):
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
def _grow_flat(a, need):
    """:func:`_grow_rows` of a 1-d array."""
    if need <= a.shape[0]:
        return a
    return _larger_flat(a, need)


@njit
def _larger_flat(a, need):
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _next_random(state):
    """xorshift64*: the node's draw, from a nonzero state."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit
def root_draw_key(seed):
    """The key of the root's feature draw under the tree's ``seed``."""
    return mix64(np.uint64(seed) + GOLDEN_GAMMA)


@njit
def child_draw_key(parent_key, child):
    """The key of the feature draw of child ``child`` of the node keyed ``parent_key``.

    A node's key depends only on the seed and its path from the root, so the compiled
    grower (depth-first) and the level-wise grower (level by level) draw the same features
    at the same node."""
    return substream(parent_key, np.uint64(child))


@njit
def candidate_features(n_features, max_features, draw_key, rng_state, out):
    """The features to search at a node: all, or ``max_features`` drawn without replacement
    by the node's own ``draw_key`` (``rng_state``: scratch of one word), returned in
    increasing order so that ties still go to the lowest index."""
    for j in range(n_features):
        out[j] = j
    if max_features >= n_features:
        return n_features
    rng_state[0] = draw_key | np.uint64(1)  # xorshift's state must not be zero
    for j in range(max_features):
        pick = j + np.int64(_next_random(rng_state) % np.uint64(n_features - j))
        out[j], out[pick] = out[pick], out[j]
    # Insertion sort in place (Array.sort allocates a buffer at every node).
    for j in range(1, max_features):
        v = out[j]
        i = j - 1
        while i >= 0 and out[i] > v:
            out[i + 1] = out[i]
            i -= 1
        out[i + 1] = v
    return max_features


@njit(inline="always")
def stop_splitting(depth, n_rows, weight, node_impurity, s):
    """The stopping rules: whether a node of ``n_rows`` rows of total ``weight`` at
    ``depth`` stays a leaf before any split is searched. J48 asks for ``2 * min_leaf`` cases
    where the others ask for that weight."""
    return (
        (s.max_depth >= 0 and depth >= s.max_depth)
        or weight < s.min_split
        or (n_rows if s.c45_tolerance > 0.0 else weight) < 2.0 * s.min_leaf
        or n_rows < 2
        or node_impurity <= LEAF_EPSILON
        or node_impurity < s.min_impurity_split
    )


@njit(inline="always")
def _copy(in_buffer, rows, buffers):
    """The row arrays ``(x, y_class, y_value, w)`` a node's rows are in: the input arrays,
    or their copies when ``in_buffer`` (partitioning moves rows between the two)."""
    if in_buffer:
        return buffers
    return rows


@njit
def _scratch(data, p, max_b, n_stats, s):
    """Scratch space of the scans, of partitioning and of the learning trace, allocated once
    per tree rather than at every node (about 68,000 allocations per forest tree at 80,000
    rows before)."""
    n = data.shape[0]
    scan = (
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
    part = (
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
    absolute = (
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
def _buffers(data, y_class, y_value, w):
    """The copies of the row arrays: partitioning moves a node's rows between the row arrays
    and these (the same rows of the other copy), so a node's rows are in one or the other
    and never need copying back."""
    return np.empty_like(data), np.empty_like(y_class), np.empty_like(y_value), np.empty_like(w)


@njit
def _work_list(n, n_stats):
    """The work list, holding the root (rows ``0:n``), and each item's statistics (summed
    by the parent's partition; the root's are summed when it is created)."""
    stack = np.zeros(64, dtype=WORK)
    stack[0].end = n
    stack[0].slot = -1
    stack[0].parent = -1
    stack[0].hist = -1
    return stack, np.zeros((64, n_stats))


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
        node_impurity = impurity(values, node, s.criterion, s.regression)
    nd.weight = w_node
    nd.impurity = node_impurity
    return not stop_splitting(item.depth, end - start, w_node, node_impurity, s)


@njit(inline="always")
def _feature_stats_of(f, start, end, src, bins, s, scan, hist):
    """:func:`feature_stats` of feature ``f`` over rows ``start:end`` into the scan's
    scratch space, or read from the node's histograms ``hist`` (``(view, in use)``);
    returns the number of present bins."""
    dense, present, stats, missing, order_buf, code_buf, stats_space, _, _ = scan
    if hist[1]:
        return stats_of_histogram(hist[0], f, bins.n_bins[f], present, stats, missing)
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
        s.regression,
        dense,
        present,
        stats,
        missing,
        order_buf,
        code_buf,
        stats_space,
    )


@njit(inline="always")
def _score_feature(j, f, node, nodes, values, src, bins, s, search):
    """Search the best split of feature ``f`` of ``node`` into candidate record ``j``:
    with the absolute-error criterion from the node's ranked rows (``node_ranks`` done),
    else (a nominal feature) from the feature's statistics. Thresholds of the other
    criteria are searched by :func:`_score_thresholds`. ``search``: the scratch space and
    records of the search, ``(scan, absolute, candidates, sides, hist)``, ``hist`` the
    node's histograms ``(view, in use)``."""
    scan, absolute, candidates, sides, hist = search
    _, present, stats, missing, _, _, _, acc, order = scan
    nd = nodes[node]
    x, _, yv, w = src
    kind = bins.kinds[f]
    if s.criterion == ABSOLUTE_ERROR:
        split = absolute_split_of_feature(
            x,
            yv,
            w,
            nd.start,
            nd.end,
            f,
            kind,
            bins.missing_code,
            s.multiway,
            s.min_leaf,
            present,
            absolute,
            order,
        )
    else:
        n_present = _feature_stats_of(f, nd.start, nd.end, src, bins, s, scan, hist)
        split = split_of_feature(
            present,
            stats,
            n_present,
            missing,
            f,
            kind,
            s.multiway,
            s.criterion,
            s.regression,
            s.min_leaf,
            0 if s.regression else np.argmax(values[node]),
            order,
            s.c45_classes,
            s.c45_tolerance,
            s.missing_mode,
            bins.bin_lo,
            bins.bin_hi,
            acc,
        )
    keep_candidate(
        candidates,
        sides,
        j,
        f,
        kind,
        s.multiway,
        bins.n_bins[f],
        split,
        present,
        order,
        not s.multiway,
    )


@njit(refcounts=False)
def _score_thresholds(start, end, features, n_cand, src, bins, s, scan, candidates, sides, hist):
    """Search the best threshold of each numeric or ordinal feature among the ``n_cand``
    candidates ``features`` of the node of rows ``start:end`` (a candidate record each;
    not for the absolute-error criterion). Called once per node, not inlined: the loop over
    the features takes the node's arrays from the tuples once, with no reference counts,
    where inlined each feature counted some twenty arrays up and down again."""
    _, present, stats, missing, _, _, _, acc, order = scan
    for j in range(n_cand):
        f = features[j]
        kind = bins.kinds[f]
        if kind == NOMINAL:
            continue
        n_present = _feature_stats_of(f, start, end, src, bins, s, scan, hist)
        split = threshold_split_of_feature(
            present,
            stats,
            n_present,
            missing,
            f,
            kind,
            s.criterion,
            s.regression,
            s.min_leaf,
            s.c45_classes,
            s.c45_tolerance,
            s.missing_mode,
            bins.bin_lo,
            bins.bin_hi,
            acc,
        )
        keep_candidate(
            candidates,
            sides,
            j,
            f,
            kind,
            s.multiway,
            bins.n_bins[f],
            split,
            present,
            order,
            not s.multiway,
        )


@njit(inline="always")
def _score_candidates(node, nodes, values, src, bins, s, search, features, rng_state):
    """Search the best split of each candidate feature of ``node`` (a candidate record
    each; ``search`` as for :func:`_score_feature`); return the number of candidates."""
    scan, absolute, candidates, sides, hist = search
    nd = nodes[node]
    n_cand = candidate_features(
        bins.kinds.shape[0], s.max_features, nd.draw_key, rng_state, features
    )
    if s.criterion == ABSOLUTE_ERROR:
        node_ranks(src[2], nd.start, nd.end, absolute[0], absolute[1])
    else:
        _score_thresholds(
            nd.start, nd.end, features, n_cand, src, bins, s, scan, candidates, sides, hist
        )
    for j in range(n_cand):
        if s.criterion == ABSOLUTE_ERROR or bins.kinds[features[j]] == NOMINAL:
            _score_feature(j, features[j], node, nodes, values, src, bins, s, search)
    return n_cand


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
def _choose_of_two_rows(node, nodes, values, src, bins, s, search, features, rng_state):
    """The winning candidate of a node of two rows (see :func:`two_rows_apply`), or -1,
    as :func:`choose_candidate` would pick it after scoring every feature.

    Two rows have one split: each on its own side. A feature offers it when both rows have
    a value and their bin codes differ, with the lower code on the left; so every feature
    offers one of two splits, mirror images whose gains differ at most by rounding. Only
    the first feature of each orientation is scored: the others tie with it, and a tie
    goes to the first."""
    candidates = search[2]
    nd = nodes[node]
    x = src[0]
    n_cand = candidate_features(
        bins.kinds.shape[0], s.max_features, nd.draw_key, rng_state, features
    )
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
    _score_feature(first, features[first], node, nodes, values, src, bins, s, search)
    if candidates[first].cut < 0:
        return -1  # the sides fall short of min_leaf, in every orientation
    if mirrored >= 0:
        _score_feature(mirrored, features[mirrored], node, nodes, values, src, bins, s, search)
        if candidates[mirrored].gain > candidates[first].gain + 1e-12:
            return mirrored
    return first


@njit(inline="always")
def _record_trace(trace, trace_sides, n_trace, node, candidates, sides, n_cand, bins, multiway):
    """Append one trace row per candidate of ``node``."""
    trace = _grow_flat(trace, n_trace + n_cand)
    trace_sides = _grow_rows(trace_sides, n_trace + n_cand)
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
            row.threshold = threshold_between(
                bins.bin_lo, bins.bin_hi, f, bins.kinds[f], cand.lo, cand.hi
            )
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
        nd.threshold = threshold_between(
            bins.bin_lo, bins.bin_hi, f, bins.kinds[f], cand.lo, cand.hi
        )
    return n_cat


@njit(inline="always")
def _best_pending(nodes, n_nodes, n_leaves, max_leaf_nodes, n_bins):
    """Best-first growth: the leaf whose pending split improves the most (the lowest id on
    ties) within the leaf budget, or -1."""
    best = -1
    for node in range(n_nodes):
        nd = nodes[node]
        if nd.kind == LEAF and nd.pending != LEAF:
            n_new = 2
            if nd.pending == MULTIWAY_SPLIT:
                n_new = n_bins[nd.feature]
            if n_leaves - 1 + n_new > max_leaf_nodes:
                continue  # a multiway split that would overshoot the leaf budget
            if best < 0 or nd.improvement > nodes[best].improvement + GAIN_EPS:
                best = node
    return best


@njit(inline="always")
def _route_rows(nd, src, cat_table, bins, s, part):
    """Give each row of node ``nd`` the branch of its pending split (``part``'s branch of
    each row), missing values by the policy: ``(branches, heaviest, missing child,
    fractional)``."""
    child_w, class_w, shares, counts, _, child_of, _ = part
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
        f,
        split_kind,
        nd.bin_cut,
        cat_table,
        nd.cat_start,
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
def _room_for_copies(rows, buffers, need):
    """FRACTIONAL: the row arrays and their copies with room for ``need`` rows."""
    data, y_class, y_value, w = rows
    if need <= data.shape[0]:
        return rows, buffers
    cap = max(need, 2 * data.shape[0])
    buf_data, buf_yc, buf_yv, buf_w = buffers
    rows = (
        _grow_rows(data, cap),
        _grow_flat(y_class, cap),
        _grow_flat(y_value, cap),
        _grow_flat(w, cap),
    )
    buffers = (
        _grow_rows(buf_data, cap),
        _grow_flat(buf_yc, cap),
        _grow_flat(buf_yv, cap),
        _grow_flat(buf_w, cap),
    )
    return rows, buffers


@njit(inline="always")
def _push_children(
    stack,
    stack_values,
    n_stack,
    node,
    nd,
    n_ch,
    base,
    counts,
    first_slot,
    in_buffer,
    child_stats,
    child_hist,
):
    """Put the children of ``nd`` on the work list, last to first so that the first child
    is created first (``child_hist``: the pool slot of each child's histograms, or -1)."""
    stack = _grow_flat(stack, n_stack + n_ch)
    stack_values = _grow_rows(stack_values, n_stack + n_ch)
    for t in range(n_ch):
        ch = n_ch - 1 - t
        item = stack[n_stack]
        item.start = base + counts[ch]
        item.end = base + counts[ch + 1]
        item.depth = nd.depth + 1
        item.slot = first_slot + ch
        item.parent = node
        item.in_buffer = in_buffer
        item.draw_key = child_draw_key(nd.draw_key, ch)
        item.hist = child_hist[ch]
        stack_values[n_stack, :] = child_stats[ch, :]
        n_stack += 1
    return stack, stack_values, n_stack


@njit(inline="always")
def keeps_histograms(n_rows, s):
    """Whether a node of ``n_rows`` rows keeps the histograms of every feature (histogram
    subtraction): large enough, and not left for another task (``defer_rows``)."""
    return s.subtract_rows > 0 and n_rows >= s.subtract_rows and not is_deferred(n_rows, s)


@njit(inline="always")
def is_deferred(n_rows, s):
    """Whether a node of ``n_rows`` rows that may be split is left for another task."""
    return s.defer_rows > 0 and s.defer_min_rows < n_rows <= s.defer_rows


@njit(inline="always")
def _take_slot(hists):
    """A free slot of the histogram pool ``hists`` (``(pool, free slots, how many free,
    slots made)``), made when none is free; returns the pool and the slot."""
    pool, free, n_free, n_made = hists
    if n_free > 0:
        return (pool, free, n_free - 1, n_made), free[n_free - 1]
    pool = _grow_rows(pool, n_made + 1)
    free = _grow_flat(free, n_made + 1)
    return (pool, free, n_free, n_made + 1), n_made


@njit(inline="always")
def _free_slot(hists, slot):
    """``hists`` with ``slot`` given back (nothing for -1)."""
    pool, free, n_free, n_made = hists
    if slot < 0:
        return hists
    free[n_free] = slot
    return (pool, free, n_free + 1, n_made)


@njit(inline="always")
def _child_histograms(slot, n_ch, base, offsets, where, missing_code, shape, s, hists, child_hist):
    """The histograms of the children of a split node whose own are in pool slot
    ``slot``: the largest child takes that slot, less its siblings' rows; each sibling
    that keeps histograms (:func:`keeps_histograms`) has its own summed into a new slot, the
    others' rows are taken out one by one. The children's rows are ``base + offsets[ch]``
    to ``base + offsets[ch + 1]`` of the row arrays named by ``where``, ``(in the buffers,
    rows, buffers)``. ``child_hist`` receives each child's slot (-1: none). Returns the
    pool."""
    if slot < 0:
        child_hist[:n_ch] = -1
        return hists
    largest = 0
    for ch in range(n_ch):
        child_hist[ch] = -1
        if offsets[ch + 1] - offsets[ch] > offsets[largest + 1] - offsets[largest]:
            largest = ch
    if not keeps_histograms(offsets[largest + 1] - offsets[largest], s):
        return _free_slot(hists, slot)
    in_buffer, rows, buffers = where
    x, yc, _, w = _copy(in_buffer, rows, buffers)
    for ch in range(n_ch):
        lo = base + offsets[ch]
        hi = base + offsets[ch + 1]
        if ch == largest or hi == lo:
            continue
        if keeps_histograms(hi - lo, s):
            hists, own = _take_slot(hists)
            pool = hists[0]
            class_histograms(x, yc, w, lo, hi, missing_code, pool[own].reshape(shape))
            subtract_histograms(pool[slot].reshape(shape), pool[own].reshape(shape))
            child_hist[ch] = own
        else:
            take_out_rows(x, yc, w, lo, hi, missing_code, hists[0][slot].reshape(shape))
    child_hist[largest] = slot
    return hists


@njit(refcounts=False)
def _search_node(
    node,
    item,
    item_values,
    nodes,
    values,
    rows,
    buffers,
    bins,
    s,
    space,
    w_root,
    cat_table,
    n_cat,
    hist,
):
    """Create ``node`` from the work item ``item`` (its statistics ``item_values``), search
    its best split and record it as pending. Returns ``(candidates searched, or -1 when
    the node stopped before its search; whether a split is pending; n_cat)``.

    ``cat_table`` must have room for ``n_cat`` plus any feature's codes, and the caller
    records the trace of the candidates: compiled without reference counts, this per-node
    step allocates nothing. Called, not inlined: inlined into the grower's loop, taking the
    node's arrays out of their tuples counted each of them up and down, some 9% of a forest's
    time. ``hist``: the node's histograms ``(view, in use, to be summed here)``."""
    scan, absolute, features, candidates, sides, rng_state, two_rows = space
    src = _copy(item.in_buffer, rows, buffers)
    if not _open_node(nodes, values, node, item, item_values, src, s):
        return -1, False, n_cat
    if is_deferred(nodes[node].n_samples, s):
        nodes[node].pending = DEFERRED
        return -1, False, n_cat
    view, in_use, to_sum = hist
    if to_sum:
        class_histograms(src[0], src[1], src[3], item.start, item.end, bins.missing_code, view)
    search = (scan, absolute, candidates, sides, (view, in_use))
    n_cand = 0
    if two_rows and nodes[node].n_samples == 2:
        chosen = _choose_of_two_rows(node, nodes, values, src, bins, s, search, features, rng_state)
    else:
        n_cand = _score_candidates(node, nodes, values, src, bins, s, search, features, rng_state)
        chosen = choose_candidate(candidates, n_cand, s.criterion, s.c45_tolerance)
    if chosen < 0:
        return n_cand, False, n_cat
    improvement = nodes[node].weight / w_root * candidates[chosen].gain
    if improvement + LEAF_EPSILON < s.min_impurity_decrease:
        return n_cand, False, n_cat
    side = sides[min(chosen, sides.shape[0] - 1)]
    n_cat = _record_split(
        nodes, node, candidates[chosen], side, improvement, bins, s.multiway, cat_table, n_cat
    )
    return n_cand, True, n_cat


@njit(inline="always")
def _free_row(n, nd, stack, n_stack, pool_end, best_first, missing_mode):
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
    the children's statistics (``part``'s last array). Returns ``(what was done, branches,
    n_cat)``: the split rejected, the rows moved into the other row arrays, or (FRACTIONAL,
    rows with a missing value) routed only, their copies left to the caller, which may
    have to make room for them. Compiled without reference counts, as
    :func:`_search_node` is."""
    _, _, shares, counts, fill, child_of, child_stats = part
    start = nd.start
    end = nd.end
    src = _copy(nd.in_buffer, rows, buffers)
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
    dst = _copy(1 - nd.in_buffer, rows, buffers)
    move_rows(src, dst, start, end, words, child_of, fill, s.regression, child_stats)
    return _MOVED, n_ch, n_cat


@njit(inline="always")
def _partition_node(nd, rows, buffers, cat_table, n_cat, bins, s, part, free_from, words):
    """Apply the pending split of node ``nd`` (:func:`_apply_split`); FRACTIONAL's copies
    go to the row arrays from row ``free_from`` on. Returns ``(applied, rows, buffers,
    branches, first row of the children, whether the children's rows are in the buffers,
    n_cat)``."""
    done, n_ch, n_cat = _apply_split(nd, rows, buffers, cat_table, n_cat, bins, s, part, words)
    if done == _REJECTED:
        return False, rows, buffers, n_ch, nd.start, 0, n_cat
    if done == _MOVED:
        return True, rows, buffers, n_ch, nd.start, 1 - nd.in_buffer, n_cat
    _, _, shares, counts, fill, child_of, child_stats = part
    rows, buffers = _room_for_copies(rows, buffers, free_from + counts[n_ch])
    copy_fractional(
        _copy(nd.in_buffer, rows, buffers),
        rows,
        nd.start,
        nd.end,
        free_from,
        bins.kinds.shape[0],
        child_of,
        shares[:n_ch],
        fill,
        s.regression,
        child_stats,
    )
    return True, rows, buffers, n_ch, free_from, 0, n_cat


@njit
def total_weight(w):
    """The sum of ``w`` in row order (the grower's total: a pairwise sum may differ in the
    last bit, and a subtree grown apart must see the very total of the whole tree)."""
    total = 0.0
    for r in range(w.shape[0]):
        total += w[r]
    return total


def grow_tree(data, y_class, y_value, w, bins, s):
    """Grow a tree; ``data``, ``y_class``, ``y_value`` and ``w`` are overwritten (scratch space).

    ``data`` is C-ordered, its rows padded to a whole number of 8-byte words (columns past
    ``len(bins.kinds)`` are padding; see ``binning.binned.pad_rows``). ``bins`` are the
    :class:`Bins`, ``s`` the :class:`Settings`. Returns the fields of
    :class:`~quercus.grow._records.GrownArrays`, cut to size (views of arrays with room to
    spare).

    Not compiled itself: a compiled caller would compile the whole grower a second time
    (Numba links a callee's code into its caller's and optimizes it there again).
    """
    args = ((data, y_class, y_value, w), _buffers(data, y_class, y_value, w), bins, s)
    return grow_tree_in(*args)


@njit(inline="always")
def _search_space(data, p, max_b, bins, s):
    """The scratch space of partitioning, and that of the split search (``space``: the
    scans', absolute error's, the candidate features and records, the subsets' sides, the
    draw's state, and whether nodes of two rows take their shortcut)."""
    scan, part, absolute = _scratch(data, p, max_b, s.n_stats, s)
    space = (
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
def _settled(nodes, n_nodes, cat_table, n_bins):
    """The subset splits' final bitsets (``category_sets.settled_tables``), each node's
    ``cat_start`` moved to its bitset (-1 for a node without one: a leaf whose pending
    split was never applied, a multiway split)."""
    starts = np.empty(n_nodes, dtype=np.int32)
    subset = np.zeros(n_nodes, dtype=np.bool_)
    n_codes = np.zeros(n_nodes, dtype=np.int64)
    for i in range(n_nodes):
        starts[i] = nodes[i].cat_start
        if nodes[i].kind == SUBSET_SPLIT:
            subset[i] = True
            n_codes[i] = n_bins[nodes[i].feature]
    table, new_starts = settled_tables(cat_table, starts, subset, n_codes)
    for i in range(n_nodes):
        nodes[i].cat_start = new_starts[i]
    return table


@njit(inline="always")
def _tables(max_b, s):
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


@njit(inline="always")
def _histogram_pool(p, max_b, s):
    """Histogram subtraction's pool (see :func:`_take_slot`), each slot a row holding every
    feature's histograms of shape ``(max_b + 1, n_stats)`` (the bins, then the missing
    values); the shape, a stand-in for a node without histograms, and the children's
    slots of a split."""
    n_pool = 4 if s.subtract_rows > 0 else 0
    hists = (
        np.zeros((n_pool, p * (max_b + 1) * s.n_stats)),
        np.zeros(n_pool, dtype=np.int64),
        0,
        0,
    )
    shape = (p, max_b + 1, s.n_stats)
    return hists, shape, np.zeros((1, 1, 1)), np.full(max(max_b, 2), -1, dtype=np.int64)


@njit(inline="always")
def _node_histograms(item, hists, shape, no_hist, s):
    """The histograms of the node of work item ``item``: its slot from the parent's
    subtraction, or a new slot to be summed from its rows (``to_sum``) when it keeps
    histograms, or none (-1). Returns ``(pool, slot, view, to_sum)``."""
    slot = item.hist
    to_sum = slot < 0 and keeps_histograms(item.end - item.start, s)
    if to_sum:
        hists, slot = _take_slot(hists)
    view = hists[0][slot].reshape(shape) if slot >= 0 else no_hist
    return hists, slot, view, to_sum


@njit
def grow_tree_in(rows, buffers, bins, s):
    """:func:`grow_tree` on the row arrays ``rows`` (``(data, y_class, y_value, w)``) with
    ``buffers``, arrays of the same shapes that partitioning moves rows into (both are
    overwritten). With ``s.defer_rows``, the rows of each DEFERRED node are left at its
    ``start:end`` in ``rows`` or ``buffers`` (its ``in_buffer``), the other holding free
    space for them."""
    data = rows[0]
    n = data.shape[0]
    p = bins.kinds.shape[0]  # the matrix may have padding columns after the features
    words = data.shape[1] * data.itemsize // 8
    nodes = np.zeros(64, dtype=NODE)
    values = np.zeros((64, s.n_stats))
    children = np.zeros(64, dtype=np.int32)
    n_nodes = 0
    n_child_slots = 0
    max_b = max(1, np.max(bins.n_bins)) if p > 0 else 1
    part, space = _search_space(data, p, max_b, bins, s)
    cat_table, n_cat, trace, trace_sides, n_trace = _tables(max_b, s)
    w_root = s.w_total if s.w_total > 0.0 else total_weight(rows[3])
    hists, hist_shape, no_hist, child_hist = _histogram_pool(p, max_b, s)
    stack, stack_values = _work_list(n, s.n_stats)
    stack[0].draw_key = s.root_key
    stack[0].depth = s.root_depth
    n_stack = 1
    best_first = s.max_leaf_nodes > 0
    n_leaves = 0
    pool_end = n  # rows in use: the input, then FRACTIONAL's copies
    while True:
        if best_first and n_stack == 0:
            if n_leaves >= s.max_leaf_nodes:
                break
            node = _best_pending(nodes, n_nodes, n_leaves, s.max_leaf_nodes, bins.n_bins)
            if node < 0:
                break
            slot = -1  # best-first growth keeps no histograms
        elif n_stack > 0:
            n_stack -= 1
            item = stack[n_stack]
            nodes = _grow_flat(nodes, n_nodes + 1)
            values = _grow_rows(values, n_nodes + 1)
            node = n_nodes
            n_nodes += 1
            n_leaves += 1
            if item.slot >= 0:
                children[item.slot] = node
            hists, slot, view, to_sum = _node_histograms(item, hists, hist_shape, no_hist, s)
            cat_table = _grow_flat(cat_table, n_cat + growing_width(max_b))
            n_cand, pending, n_cat = _search_node(
                node,
                item,
                stack_values[n_stack],
                nodes,
                values,
                rows,
                buffers,
                bins,
                s,
                space,
                w_root,
                cat_table,
                n_cat,
                (view, slot >= 0, to_sum),
            )
            if s.trace_on and n_cand > 0:
                trace, trace_sides, n_trace = _record_trace(
                    trace, trace_sides, n_trace, node, space[3], space[4], n_cand, bins, s.multiway
                )
            if not pending or best_first:
                hists = _free_slot(hists, slot)
                continue
        else:
            break
        # The pending split of `node` is applied.
        nd = nodes[node]
        free_from = _free_row(n, nd, stack, n_stack, pool_end, best_first, s.missing_mode)
        applied, rows, buffers, n_ch, base, in_buffer, n_cat = _partition_node(
            nd, rows, buffers, cat_table, n_cat, bins, s, part, free_from, words
        )
        if not applied:
            hists = _free_slot(hists, slot)
            continue
        pool_end = max(pool_end, base + part[3][n_ch])
        nd.kind = nd.pending
        children = _grow_flat(children, n_child_slots + n_ch)
        nd.child_start = n_child_slots
        nd.n_children = n_ch
        n_leaves -= 1
        where = (in_buffer, rows, buffers)
        hists = _child_histograms(
            slot, n_ch, base, part[3], where, bins.missing_code, hist_shape, s, hists, child_hist
        )
        stack, stack_values, n_stack = _push_children(
            stack,
            stack_values,
            n_stack,
            node,
            nd,
            n_ch,
            base,
            part[3],
            n_child_slots,
            in_buffer,
            part[6],
            child_hist,
        )
        n_child_slots += n_ch
    # Cut to size, not copied: copies of every array at once, beside the arrays grown by
    # doubling, set the peak memory of a large tree; the caller copies what it keeps.
    return (
        nodes[:n_nodes],
        values[:n_nodes],
        children[:n_child_slots],
        _settled(nodes, n_nodes, cat_table, bins.n_bins),
        trace[:n_trace],
        trace_sides[:n_trace],
    )
