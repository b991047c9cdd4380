"""Numba kernel: grow one tree over a binned matrix.

The whole growth loop is compiled, because a deep tree has hundreds of thousands of nodes
and a Python step per node would cost more than the split search itself. Nodes are numbered
in the order they are created: depth-first growth creates them in preorder (first child
first, as scikit-learn numbers its trees); best-first growth (``max_leaf_nodes``) creates
both children when it splits a node.

Node fields live in two arrays, ``inodes`` (integers) and ``fnodes`` (floats), indexed by the
``I_*`` and ``F_*`` constants below; ``values`` holds each node's statistics (class weights,
or weight, weighted sum and weighted sum of squares of the target). ``children`` lists child
node ids (a node's children are ``children[I_CHILD_START : I_CHILD_START + I_N_CHILDREN]``)
and ``cat_table`` maps a category code to a child index for nominal splits.
"""

from __future__ import annotations

import numpy as np

from .._config import (
    ABSOLUTE_ERROR,
    CLASS_MAJORITY,
    FRACTIONAL,
    GAIN_EPS,
    GAIN_RATIO,
    LEAF,
    LEARNED,
    MULTIWAY_SPLIT,
    NOMINAL,
    NUMERIC,
    NUMERIC_SPLIT,
    SUBSET_SPLIT,
    njit,
)
from ..splitting._absolute import absolute_split, node_ranks, weighted_median
from ..splitting._scan import impurity, scan_multiway, scan_subset, scan_threshold, stats_weight
from ..splitting._stats import feature_stats, node_stats, stats_scratch

(
    I_KIND,
    I_FEATURE,
    I_CHILD_START,
    I_N_CHILDREN,
    I_MISSING_CHILD,
    I_CAT_START,
    I_DEPTH,
    I_N_SAMPLES,
    I_BIN_CUT,
    I_START,
    I_END,
    I_PENDING,
    I_IN_BUFFER,
) = range(13)
N_INT_FIELDS = 13
F_THRESHOLD, F_IMPURITY, F_WEIGHT, F_IMPROVEMENT, F_MEDIAN = range(5)
N_FLOAT_FIELDS = 5
# Fields of a learning-trace row (one per node and candidate feature; see grow_tree).
T_NODE, T_FEATURE, T_GAIN, T_INFO, T_OK, T_THRESHOLD = range(6)
N_TRACE_FIELDS = 6

LEAF_EPSILON = np.finfo(np.float64).eps * 10  # as scikit-learn: below it, a node is pure
C45_EPSILON = 1e-3  # C4.5's tolerance on the average-gain filter and the split information


@njit
def _grow_rows(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _grow_flat(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit
def _next_random(state):
    """xorshift64*: the tree's own seeded generator (no hidden global state)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit
def _candidate_features(n_features, max_features, rng_state, out):
    """The features to search at a node: all, or ``max_features`` drawn without replacement,
    returned in increasing order so that ties still go to the lowest index."""
    for j in range(n_features):
        out[j] = j
    if max_features >= n_features:
        return n_features
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
def _evaluate_feature(
    data,
    y_class,
    y_value,
    w,
    start,
    end,
    f,
    kind,
    n_bins,
    missing_code,
    multiway,
    criterion,
    regression,
    min_leaf,
    key_class,
    dense,
    present,
    stats,
    missing,
    order_buf,
    code_buf,
    order_out,
    c45_classes,
    c45_tolerance,
    missing_mode,
    bin_lo,
    bin_hi,
    scratch,
    acc,
):
    """Best split of one feature at a node: ``(gain, cut, split_info, n_order, missing)``.

    ``present`` receives the codes of the non-empty bins or categories. ``cut`` is -1 when
    no split is admissible; for thresholds and subsets the first ``cut + 1`` entries (in
    the order written to ``order_out[:n_order]`` for subsets) go left; for multiway splits it
    is 1. ``missing`` is the child that missing values take when the policy learns it
    (LEARNED), else -1. Inlined into the node loop: a call passing this many arrays costs
    more than the whole search of a two-row node.
    """
    n_present = feature_stats(
        data,
        y_class,
        y_value,
        w,
        start,
        end,
        f,
        n_bins,
        missing_code,
        regression,
        dense,
        present,
        stats,
        missing,
        order_buf,
        code_buf,
        scratch,
    )
    if kind == NOMINAL and multiway:
        # J48 counts a branch as large enough within its tolerance (0 unless J48's C4.5).
        gain, cut, info, index = scan_multiway(
            present,
            stats,
            n_present,
            missing,
            criterion,
            regression,
            min_leaf - c45_tolerance,
            missing_mode,
            acc,
        )
        return gain, cut, info, 0, present[index] if index >= 0 else -1
    if kind == NOMINAL:
        gain, cut, info, order, side = scan_subset(
            present,
            stats,
            n_present,
            missing,
            criterion,
            regression,
            min_leaf,
            key_class,
            missing_mode,
        )
        order_out[:n_present] = order
        return gain, cut, info, n_present, side
    gain, cut, info, side = scan_threshold(
        present,
        stats,
        n_present,
        missing,
        criterion,
        regression,
        min_leaf,
        c45_classes if kind == NUMERIC else 0,
        c45_tolerance,
        missing_mode,
        bin_lo,
        bin_hi,
        f,
        acc,
    )
    return gain, cut, info, 0, side


@njit
def _evaluate_feature_absolute(
    data,
    y_value,
    w,
    start,
    end,
    f,
    kind,
    missing_code,
    multiway,
    min_leaf,
    present,
    abs_buffers,
    order_out,
):
    """As :func:`_evaluate_feature`, for the absolute-error criterion (missing values count
    as FRACTIONAL counts them; the builder places them by the node's policy)."""
    rank, sorted_y, fw_l, fs_l, fw_k, fs_k, rows, codes, group_start, medians = abs_buffers
    mode = 0 if kind != NOMINAL else (1 if multiway else 2)
    gain, cut, info, order, n_groups = absolute_split(
        data,
        y_value,
        w,
        start,
        end,
        f,
        missing_code,
        mode,
        min_leaf,
        rank,
        sorted_y,
        fw_l,
        fs_l,
        fw_k,
        fs_k,
        rows,
        codes,
        present,
        group_start,
        medians,
    )
    if mode == 2:
        order_out[:n_groups] = order[:n_groups]
        return gain, cut, info, n_groups, -1
    return gain, cut, info, 0, -1


@njit(inline="always")
def _copy(in_buffer, data, y_class, y_value, w, buf_data, buf_yc, buf_yv, buf_w):
    """The rows, classes, targets and weights of the input arrays, or of the buffers when
    ``in_buffer`` (the two copies partitioning moves rows between)."""
    if in_buffer:
        return buf_data, buf_yc, buf_yv, buf_w
    return data, y_class, y_value, w


@njit
def _significant(child_of, start, end, y_class, w, shares, n_classes, critical):
    """Whether the branch-by-class table of a split passes the chi-square test of
    independence: its statistic exceeds ``critical[df]`` (``df`` = (non-empty branches - 1)
    x (classes present - 1)); a split with ``df = 0`` never does. A row whose branch is -1
    (a missing value, FRACTIONAL) counts in every branch ``ch`` with weight ``shares[ch]``."""
    n_children = shares.shape[0]
    table = np.zeros((n_children, n_classes))
    for r in range(start, end):
        ch = child_of[r - start]
        if ch >= 0:
            table[ch, y_class[r]] += w[r]
        else:
            for c in range(n_children):
                table[c, y_class[r]] += w[r] * shares[c]
    rows = table.sum(axis=1)
    cols = table.sum(axis=0)
    total = rows.sum()
    statistic = 0.0
    for i in range(n_children):
        for k in range(n_classes):
            if rows[i] > 0.0 and cols[k] > 0.0:
                expected = rows[i] * cols[k] / total
                statistic += (table[i, k] - expected) ** 2 / expected
    df = ((rows > 0.0).sum() - 1) * ((cols > 0.0).sum() - 1)
    if df <= 0:
        return False
    return statistic > critical[min(df, critical.shape[0] - 1)]


@njit(inline="always")
def _threshold(bin_lo, bin_hi, f, kind, lo_code, hi_code):
    """Threshold of the cut between bins ``lo_code`` and ``hi_code``: the midpoint of the
    values on either side (ordinal: between the level codes)."""
    if kind != NUMERIC:
        return lo_code + 0.5
    a = bin_hi[f, lo_code]
    b = bin_lo[f, hi_code]
    t = a + (b / 2.0 - a / 2.0)  # halves first: b - a overflows between -1e308 and 1e308
    if t >= b:  # adjacent floats: keep "x <= t" true for a and false for b
        t = a
    return t


@njit
def grow_tree(
    data,
    y_class,
    y_value,
    w,
    kinds,
    n_bins,
    missing_code,
    bin_lo,
    bin_hi,
    multiway,
    criterion,
    regression,
    n_stats,
    max_depth,
    min_split,
    min_leaf,
    min_impurity_decrease,
    max_leaf_nodes,
    max_features,
    seed,
    c45_classes,
    c45_tolerance,
    chi2_critical,
    missing_mode,
    trace_on=False,
):
    """Grow a tree; ``data``, ``y_class``, ``y_value`` and ``w`` are overwritten (scratch space).

    ``data`` is C-ordered, its rows padded to a whole number of 8-byte words (columns past
    ``len(kinds)`` are padding; see ``estimators.base.pad_rows``).

    ``kinds[f]`` is NUMERIC, NOMINAL or ORDINAL; ``bin_lo``/``bin_hi`` give the smallest and
    largest training value of each numeric bin (for real-valued thresholds). ``max_depth`` and
    ``max_leaf_nodes`` are -1 for no limit; ``c45_classes`` > 0 applies C4.5's rules for
    continuous attributes (see :func:`~quercus.splitting._scan.scan_threshold`), and gains
    and gain ratios within ``c45_tolerance`` count as tied (J48's 1e-6; release 8: 0; J48
    also asks for ``2 * min_leaf`` cases at a node where the others ask for that weight);
    ``chi2_critical[df]``, when longer than one entry, are the critical values of the
    chi-square pre-pruning test (see :func:`_significant`). ``missing_mode`` is the
    missing-value policy (``_config.MISSING_POLICIES``): FRACTIONAL sends a row with a missing
    value down every branch, its weight times the branch's share of the known weight (the
    copies are appended after the rows, so a node's rows stay contiguous). Returns the
    node arrays trimmed to size: ``(inodes, fnodes, values, children, cat_table)``, then the
    learning trace: with ``trace_on``, one row per (node, candidate feature) searched, of
    ``TRACE_FIELDS`` (node, feature, gain, split information, admissible, threshold) and,
    for binary subset splits, the side of each category (0 left, 1 right, -1 absent).
    """
    n = data.shape[0]
    p = kinds.shape[0]  # the matrix may have padding columns after the features
    words = data.shape[1] * data.itemsize // 8
    cap = 64
    inodes = np.zeros((cap, N_INT_FIELDS), dtype=np.int32)
    fnodes = np.zeros((cap, N_FLOAT_FIELDS), dtype=np.float64)
    values = np.zeros((cap, n_stats), dtype=np.float64)
    children = np.zeros(cap, dtype=np.int32)
    cat_table = np.zeros(cap, dtype=np.int32)
    n_nodes = 0
    n_child_slots = 0
    n_cat = 0

    max_b = 1
    for f in range(p):
        if n_bins[f] > max_b:
            max_b = n_bins[f]
    dense = np.zeros((max_b, n_stats))
    present = np.zeros(max_b, dtype=np.int64)
    stats = np.zeros((max_b, n_stats))
    missing = np.zeros((1, n_stats))
    order_buf = np.zeros(n, dtype=np.int64)
    code_buf = np.zeros(n, dtype=data.dtype)
    scratch = stats_scratch(n, max_b, code_buf)
    # Scratch space of the scans and of partitioning, allocated once per tree rather than
    # at every node (about 68,000 allocations per forest tree at 80,000 rows before).
    acc_buf = np.zeros((6 + max_b, n_stats))
    max_ch = max(max_b, 2)
    part_w = np.zeros(max_ch)
    part_class = np.zeros((max_ch, n_stats))
    part_shares = np.zeros(max_ch)
    part_counts = np.zeros(max_ch + 1, dtype=np.int64)
    part_fill = np.zeros(max_ch + 1, dtype=np.int64)
    features = np.zeros(p, dtype=np.int64)
    feat_gain = np.zeros(p)
    feat_info = np.zeros(p)
    feat_ok = np.zeros(p, dtype=np.bool_)
    feat_cut = np.zeros(p, dtype=np.int64)
    feat_miss = np.zeros(p, dtype=np.int64)
    subset_order = np.zeros(max_b, dtype=np.int64)
    feat_lo = np.zeros(p, dtype=np.int64)
    feat_hi = np.zeros(p, dtype=np.int64)
    feat_side = np.zeros((p if not multiway else 1, max_b), dtype=np.int8)
    child_of = np.zeros(n, dtype=np.int32)
    child_stats = np.zeros((max_ch, n_stats))
    # Partitioning moves a node's rows between the input arrays and these (the same rows
    # of the other copy), so a node's rows are in one or the other (I_IN_BUFFER) and never
    # need copying back.
    buf_data = np.empty_like(data)
    buf_yc = np.empty_like(y_class)
    buf_yv = np.empty_like(y_value)
    buf_w = np.empty_like(w)
    # Absolute error works on ranked rows rather than histograms (see _absolute.py).
    n_abs = n if criterion == ABSOLUTE_ERROR else 1
    abs_buffers = (
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
    trace = np.zeros((64 if trace_on else 0, N_TRACE_FIELDS))
    trace_sides = np.zeros((trace.shape[0], max_b), dtype=np.int8)
    n_trace = 0
    rng_state = np.zeros(1, dtype=np.uint64)
    rng_state[0] = np.uint64(seed)

    w_root = 0.0
    for r in range(n):
        w_root += w[r]

    # Work list: rows (start, end), depth, parent child-slot, parent node (for empty nodes),
    # whether the rows are in the buffers; and the rows' statistics, summed by the parent's
    # partition (the root's are summed when it is created).
    stack = np.zeros((64, 6), dtype=np.int64)
    stack_values = np.zeros((64, n_stats))
    n_stack = 1
    stack[0, 0] = 0
    stack[0, 1] = n
    stack[0, 2] = 0
    stack[0, 3] = -1
    stack[0, 4] = -1
    stack[0, 5] = 0
    best_first = max_leaf_nodes > 0
    n_leaves = 0
    pool_end = n  # rows in use: the input, then FRACTIONAL's copies

    while True:
        if best_first and n_stack == 0:
            # Expand the leaf whose pending split improves the most (lowest id on ties).
            if n_leaves >= max_leaf_nodes:
                break
            best = -1
            for node in range(n_nodes):
                if inodes[node, I_KIND] == LEAF and inodes[node, I_PENDING] != LEAF:
                    n_new = 2
                    if inodes[node, I_PENDING] == MULTIWAY_SPLIT:
                        n_new = n_bins[inodes[node, I_FEATURE]]
                    if n_leaves - 1 + n_new > max_leaf_nodes:
                        continue  # a multiway split that would overshoot the leaf budget
                    gain = fnodes[node, F_IMPROVEMENT]
                    if best < 0 or gain > fnodes[best, F_IMPROVEMENT] + GAIN_EPS:
                        best = node
            if best < 0:
                break
            node = best
        elif n_stack > 0:
            # Create the node on top of the work list.
            n_stack -= 1
            start = stack[n_stack, 0]
            end = stack[n_stack, 1]
            depth = stack[n_stack, 2]
            slot = stack[n_stack, 3]
            parent = stack[n_stack, 4]
            in_buffer = stack[n_stack, 5]
            inodes = _grow_rows(inodes, n_nodes + 1)
            fnodes = _grow_rows(fnodes, n_nodes + 1)
            values = _grow_rows(values, n_nodes + 1)
            node = n_nodes
            n_nodes += 1
            n_leaves += 1
            if slot >= 0:
                children[slot] = node
            inodes[node, I_KIND] = LEAF
            inodes[node, I_PENDING] = LEAF
            inodes[node, I_FEATURE] = -1
            inodes[node, I_CAT_START] = -1
            inodes[node, I_MISSING_CHILD] = -1
            inodes[node, I_DEPTH] = depth
            inodes[node, I_START] = start
            inodes[node, I_END] = end
            inodes[node, I_IN_BUFFER] = in_buffer
            inodes[node, I_N_SAMPLES] = end - start
            fnodes[node, F_THRESHOLD] = np.nan
            fnodes[node, F_IMPROVEMENT] = -1.0
            values[node, :] = 0.0
            if end == start:
                # An empty branch of a multiway split: a leaf with its parent's distribution.
                values[node, :] = values[parent, :]
                fnodes[node, F_MEDIAN] = fnodes[parent, F_MEDIAN]
                fnodes[node, F_WEIGHT] = 0.0
                fnodes[node, F_IMPURITY] = 0.0
                continue
            src_x, src_yc, src_yv, src_w = _copy(
                in_buffer, data, y_class, y_value, w, buf_data, buf_yc, buf_yv, buf_w
            )
            if slot < 0:
                node_stats(src_yc, src_yv, src_w, start, end, regression, values, node)
            else:
                values[node, :] = stack_values[n_stack, :]
            w_node = stats_weight(values, node, regression)
            if criterion == ABSOLUTE_ERROR:
                med = weighted_median(src_yv[start:end], src_w[start:end])
                fnodes[node, F_MEDIAN] = med
                node_impurity = 0.0
                for r in range(start, end):
                    node_impurity += src_w[r] * abs(src_yv[r] - med)
                node_impurity /= w_node
            else:
                node_impurity = impurity(values, node, criterion, regression)
            fnodes[node, F_WEIGHT] = w_node
            fnodes[node, F_IMPURITY] = node_impurity
            if (
                (max_depth >= 0 and depth >= max_depth)
                or w_node < min_split
                or (end - start if c45_tolerance > 0.0 else w_node) < 2.0 * min_leaf
                or end - start < 2
                or node_impurity <= LEAF_EPSILON
            ):
                continue
            # ---- Find the best split of this node.
            n_cand = _candidate_features(p, max_features, rng_state, features)
            key = 0 if regression else np.argmax(values[node])
            if criterion == ABSOLUTE_ERROR:
                node_ranks(src_yv, start, end, abs_buffers[0], abs_buffers[1])
            for j in range(n_cand):
                f = features[j]
                if criterion == ABSOLUTE_ERROR:
                    gain, cut, info, n_order, miss = _evaluate_feature_absolute(
                        src_x,
                        src_yv,
                        src_w,
                        start,
                        end,
                        f,
                        kinds[f],
                        missing_code,
                        multiway,
                        min_leaf,
                        present,
                        abs_buffers,
                        subset_order,
                    )
                else:
                    gain, cut, info, n_order, miss = _evaluate_feature(
                        src_x,
                        src_yc,
                        src_yv,
                        src_w,
                        start,
                        end,
                        f,
                        kinds[f],
                        n_bins[f],
                        missing_code,
                        multiway,
                        criterion,
                        regression,
                        min_leaf,
                        key,
                        dense,
                        present,
                        stats,
                        missing,
                        order_buf,
                        code_buf,
                        subset_order,
                        c45_classes,
                        c45_tolerance,
                        missing_mode,
                        bin_lo,
                        bin_hi,
                        scratch,
                        acc_buf,
                    )
                feat_gain[j] = gain
                feat_miss[j] = miss
                feat_cut[j] = cut
                feat_info[j] = info
                # Keep what recording the split needs, so the winner is not searched again.
                if cut >= 0 and kinds[f] != NOMINAL:
                    feat_lo[j] = present[cut]
                    feat_hi[j] = present[cut + 1]
                elif cut >= 0 and not multiway:
                    for c in range(n_bins[f]):
                        feat_side[j, c] = -1
                    for t in range(n_order):
                        feat_side[j, present[subset_order[t]]] = 0 if t <= cut else 1
            if trace_on:
                trace = _grow_rows(trace, n_trace + n_cand)
                trace_sides = _grow_rows(trace_sides, n_trace + n_cand)
                for j in range(n_cand):
                    f = features[j]
                    trace[n_trace, T_NODE] = node
                    trace[n_trace, T_FEATURE] = f
                    trace[n_trace, T_GAIN] = feat_gain[j]
                    trace[n_trace, T_INFO] = feat_info[j]
                    trace[n_trace, T_OK] = 1.0 if feat_cut[j] >= 0 else 0.0
                    trace[n_trace, T_THRESHOLD] = np.nan
                    trace_sides[n_trace, :] = -1
                    if feat_cut[j] >= 0 and kinds[f] != NOMINAL:
                        trace[n_trace, T_THRESHOLD] = _threshold(
                            bin_lo, bin_hi, f, kinds[f], feat_lo[j], feat_hi[j]
                        )
                    elif feat_cut[j] >= 0 and not multiway:
                        trace_sides[n_trace, : n_bins[f]] = feat_side[j, : n_bins[f]]
                    n_trace += 1
            for j in range(n_cand):
                feat_ok[j] = feat_cut[j] >= 0
            chosen = -1
            if criterion == GAIN_RATIO:
                # C4.5: among the attributes with at least the average gain, the best ratio.
                total_gain = 0.0
                n_ok = 0
                for j in range(n_cand):
                    if feat_ok[j]:
                        total_gain += feat_gain[j]
                        n_ok += 1
                if n_ok > 0:
                    avg = total_gain / n_ok
                    # Ratios within the tolerance are tied (the first stays), and only a
                    # positive gain and ratio split (J48: above its tolerance).
                    tie = max(c45_tolerance, 1e-12)
                    best_ratio = 0.0
                    for j in range(n_cand):
                        if feat_ok[j] and feat_gain[j] >= avg - C45_EPSILON:
                            if feat_info[j] > C45_EPSILON and feat_gain[j] > tie:
                                ratio = feat_gain[j] / feat_info[j]
                                if ratio > best_ratio + tie:
                                    best_ratio = ratio
                                    chosen = j
            else:
                best_gain = -1.0
                for j in range(n_cand):
                    if feat_ok[j] and feat_gain[j] > best_gain + 1e-12:
                        best_gain = feat_gain[j]
                        chosen = j
            if chosen < 0:
                continue
            improvement = w_node / w_root * feat_gain[chosen]
            if improvement + LEAF_EPSILON < min_impurity_decrease:
                continue
            # ---- Record the pending split.
            f = features[chosen]
            inodes[node, I_FEATURE] = f
            inodes[node, I_MISSING_CHILD] = feat_miss[chosen]  # -1: placed when applied
            fnodes[node, F_IMPROVEMENT] = improvement
            if kinds[f] == NOMINAL and multiway:
                inodes[node, I_PENDING] = MULTIWAY_SPLIT
                cat_table = _grow_flat(cat_table, n_cat + n_bins[f])
                inodes[node, I_CAT_START] = n_cat
                for c in range(n_bins[f]):
                    cat_table[n_cat + c] = c
                n_cat += n_bins[f]
            elif kinds[f] == NOMINAL:
                inodes[node, I_PENDING] = SUBSET_SPLIT
                cat_table = _grow_flat(cat_table, n_cat + n_bins[f])
                inodes[node, I_CAT_START] = n_cat
                for c in range(n_bins[f]):
                    cat_table[n_cat + c] = feat_side[chosen, c]  # -1: absent, set when applied
                n_cat += n_bins[f]
            else:
                inodes[node, I_PENDING] = NUMERIC_SPLIT
                inodes[node, I_BIN_CUT] = feat_lo[chosen]
                fnodes[node, F_THRESHOLD] = _threshold(
                    bin_lo, bin_hi, f, kinds[f], feat_lo[chosen], feat_hi[chosen]
                )
            if best_first:
                continue
        else:
            break

        # ---- Apply the pending split of `node`: partition its rows among its children.
        kind = inodes[node, I_PENDING]
        f = inodes[node, I_FEATURE]
        start = inodes[node, I_START]
        end = inodes[node, I_END]
        cat_start = inodes[node, I_CAT_START]
        in_buffer = inodes[node, I_IN_BUFFER]
        src_x, src_yc, src_yv, src_w = _copy(
            in_buffer, data, y_class, y_value, w, buf_data, buf_yc, buf_yv, buf_w
        )
        n_ch = n_bins[f] if kind == MULTIWAY_SPLIT else 2
        by_class = missing_mode == CLASS_MAJORITY and not regression
        child_w = part_w[:n_ch]
        child_w[:] = 0.0
        class_w = part_class[: n_ch if by_class else 1]
        class_w[:] = 0.0
        counts = part_counts[: n_ch + 1]
        counts[:] = 0
        n_missing = 0
        for r in range(start, end):
            c = src_x[r, f]
            if c == missing_code:
                child_of[r - start] = -1
                n_missing += 1
                continue
            if kind == NUMERIC_SPLIT:
                ch = 0 if c <= inodes[node, I_BIN_CUT] else 1
            else:
                ch = cat_table[cat_start + c]
            child_of[r - start] = ch
            counts[ch + 1] += 1
            child_w[ch] += src_w[r]
            if by_class:
                class_w[ch, src_yc[r]] += src_w[r]
        heaviest = 0
        w_known = 0.0
        for ch in range(n_ch):
            w_known += child_w[ch]
            if child_w[ch] > child_w[heaviest]:
                heaviest = ch
        missing_child = heaviest
        if missing_mode == LEARNED and inodes[node, I_MISSING_CHILD] >= 0:
            missing_child = inodes[node, I_MISSING_CHILD]
        fractional = missing_mode == FRACTIONAL and n_missing > 0 and w_known > 0.0
        shares = part_shares[:n_ch]
        shares[:] = 0.0
        if fractional:
            for ch in range(n_ch):
                shares[ch] = child_w[ch] / w_known
                if shares[ch] > 0.0:
                    counts[ch + 1] += n_missing
        elif n_missing > 0:
            for r in range(start, end):
                if child_of[r - start] < 0:
                    ch = missing_child
                    if by_class:
                        # The branch where the row's class is heaviest, the first on ties
                        # (C4.5's "most common value among the cases of the same class").
                        k = src_yc[r]
                        best = 0
                        for b in range(n_ch):
                            if class_w[b, k] > class_w[best, k]:
                                best = b
                        if class_w[best, k] > 0.0:
                            ch = best
                    child_of[r - start] = ch
                    counts[ch + 1] += 1
        if chi2_critical.shape[0] > 1 and not _significant(
            child_of, start, end, src_yc, src_w, shares, n_stats, chi2_critical
        ):
            # Pre-pruning: the class distribution does not depend on the branch.
            inodes[node, I_PENDING] = LEAF
            inodes[node, I_FEATURE] = -1
            inodes[node, I_MISSING_CHILD] = -1
            fnodes[node, F_THRESHOLD] = np.nan
            continue
        if kind == SUBSET_SPLIT:
            for c in range(n_bins[f]):
                if cat_table[cat_start + c] < 0:
                    cat_table[cat_start + c] = heaviest
        for ch in range(n_ch):
            counts[ch + 1] += counts[ch]
        fill = part_fill[: n_ch + 1]
        fill[:] = counts
        # The children's statistics are summed here, row by row in the order their own
        # rows will have, so they equal what summing at the child would give.
        child_stats[:n_ch] = 0.0
        if fractional:
            # The children's rows (with the copies) go to free space in the input arrays
            # after every pending node's rows: depth-first, that is past the ends of the
            # nodes on the work list.
            base = max(n, end) if not best_first else pool_end
            if not best_first:
                for t in range(n_stack):
                    base = max(base, stack[t, 1])
            need = base + counts[n_ch]
            if need > data.shape[0]:
                cap_rows = max(need, 2 * data.shape[0])
                data = _grow_rows(data, cap_rows)
                y_class = _grow_flat(y_class, cap_rows)
                y_value = _grow_flat(y_value, cap_rows)
                w = _grow_flat(w, cap_rows)
                buf_data = _grow_rows(buf_data, cap_rows)
                buf_yc = _grow_flat(buf_yc, cap_rows)
                buf_yv = _grow_flat(buf_yv, cap_rows)
                buf_w = _grow_flat(buf_w, cap_rows)
                src_x, src_yc, src_yv, src_w = _copy(
                    in_buffer, data, y_class, y_value, w, buf_data, buf_yc, buf_yv, buf_w
                )
            pool_end = max(pool_end, need)
            for r in range(start, end):
                ch = child_of[r - start]
                for b in range(n_ch):
                    if (ch >= 0 and b != ch) or (ch < 0 and shares[b] <= 0.0):
                        continue
                    dest = base + fill[b]
                    fill[b] += 1
                    for j in range(p):
                        data[dest, j] = src_x[r, j]
                    y_class[dest] = src_yc[r]
                    y_value[dest] = src_yv[r]
                    w[dest] = src_w[r] if ch >= 0 else src_w[r] * shares[b]
                    if regression:
                        child_stats[b, 0] += w[dest]
                        child_stats[b, 1] += w[dest] * y_value[dest]
                        child_stats[b, 2] += w[dest] * y_value[dest] * y_value[dest]
                    else:
                        child_stats[b, y_class[dest]] += w[dest]
            children_in_buffer = 0
        else:
            base = start
            # Rows move to the other copy as 8-byte words (the caller pads rows to whole
            # words): a row view per row would cost a reference count, a byte per feature 8
            # times the moves.
            dst_x, dst_yc, dst_yv, dst_w = _copy(
                1 - in_buffer, data, y_class, y_value, w, buf_data, buf_yc, buf_yv, buf_w
            )
            src_words = src_x.view(np.uint64)
            dst_words = dst_x.view(np.uint64)
            for r in range(start, end):
                ch = child_of[r - start]
                dest = start + fill[ch]
                fill[ch] += 1
                for j in range(words):
                    dst_words[dest, j] = src_words[r, j]
                dst_yc[dest] = src_yc[r]
                dst_yv[dest] = src_yv[r]
                dst_w[dest] = src_w[r]
                # Written out: an inlined helper taking the arrays measured 10x slower.
                if regression:
                    child_stats[ch, 0] += src_w[r]
                    child_stats[ch, 1] += src_w[r] * src_yv[r]
                    child_stats[ch, 2] += src_w[r] * src_yv[r] * src_yv[r]
                else:
                    child_stats[ch, src_yc[r]] += src_w[r]
            children_in_buffer = 1 - in_buffer

        inodes[node, I_KIND] = kind
        inodes[node, I_MISSING_CHILD] = missing_child
        children = _grow_flat(children, n_child_slots + n_ch)
        inodes[node, I_CHILD_START] = n_child_slots
        inodes[node, I_N_CHILDREN] = n_ch
        n_leaves -= 1
        stack = _grow_rows(stack, n_stack + n_ch)
        stack_values = _grow_rows(stack_values, n_stack + n_ch)
        for t in range(n_ch):
            ch = n_ch - 1 - t  # pushed last to first, so the first child is created first
            stack[n_stack, 0] = base + counts[ch]
            stack[n_stack, 1] = base + counts[ch + 1]
            stack[n_stack, 2] = inodes[node, I_DEPTH] + 1
            stack[n_stack, 3] = n_child_slots + ch
            stack[n_stack, 4] = node
            stack[n_stack, 5] = children_in_buffer
            stack_values[n_stack, :] = child_stats[ch, :]
            n_stack += 1
        n_child_slots += n_ch

    return (
        inodes[:n_nodes].copy(),
        fnodes[:n_nodes].copy(),
        values[:n_nodes].copy(),
        children[:n_child_slots].copy(),
        cat_table[:n_cat].copy(),
        trace[:n_trace].copy(),
        trace_sides[:n_trace].copy(),
    )
