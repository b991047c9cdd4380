"""Numba kernel: grow one tree over a binned matrix (the growth loop).

The growth loop is compiled, because a deep tree has hundreds of thousands of nodes and a
Python step per node would cost more than the split search itself. The loop itself only
keeps the frontier (the work list of nodes to create, or for best-first growth the leaves
with a pending split) and the stopping rules; each stage of growing a node is its own
function: the node's statistics (``splitting/_histogram.py``), its best split
(``splitting/_choose.py``), the partition of its rows with their missing values
(``splitting/_partition.py``) and the chi-square test (``splitting/_significance.py``).

The grower's own parts are one module each: its inputs and rules (``_settings.py``), the
features' random draws (``_draws.py``), its memory (``_buffers.py``), the per-node search
(``_search.py``), the application of a split to the node's rows (``_apply.py``) and
histogram subtraction's pool (``_histogram_pool.py``); this one holds the loop.

The stages with a loop over the node's rows or bins (:func:`feature_stats`,
:func:`threshold_split_of_feature` or, for a category, :func:`split_of_feature`,
:func:`route_known`, :func:`move_rows`) are called, each compiled on its own. Inlined into
this loop, which keeps a hundred arrays live, the row loops had their counters and array
bounds spilled to the stack and a forest grew slower than with the calls
(``bench/README.md``). The two per-node steps, :func:`~._search.search_node` (create a node
and search its split) and ``_apply._apply_split`` (move its rows to its children), are
called too, and like the row loops compiled without reference counts (``_config.njit``):
counting arrays up and down at every call, and at every array taken out of a tuple, took
20% of a one-thread forest fit's profile, 9% of it in the per-node steps while they were
inlined. Neither allocates: the loop makes room first (the category table) or after (the
trace, and C4.5's fractional copies, which ``_apply._apply_split`` leaves to it).

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

import numpy as np

from .._config import GAIN_EPS, LEAF, MULTIWAY_SPLIT, SUBSET_SPLIT, njit
from ..splitting._category_bits import growing_width, settled_tables
from ._apply import free_row, partition_node
from ._buffers import empty_tables, grow_flat, grow_rows, row_buffers, work_list
from ._draws import child_draw_key
from ._histogram_pool import child_histograms, free_slot, histogram_pool, item_histograms
from ._records import NODE
from ._search import record_trace, search_node, search_space
from ._settings import split_rules


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
    stack = grow_flat(stack, n_stack + n_ch)
    stack_values = grow_rows(stack_values, n_stack + n_ch)
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
    :class:`~._settings.Bins`, ``s`` the :class:`~._settings.Settings`. Returns the fields of
    :class:`~quercus.grow._records.GrownArrays`, cut to size (views of arrays with room to
    spare).

    Not compiled itself: a compiled caller would compile the whole grower a second time
    (Numba links a callee's code into its caller's and optimizes it there again).
    """
    args = ((data, y_class, y_value, w), row_buffers(data, y_class, y_value, w), bins, s)
    return grow_tree_in(*args)


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
    part, space = search_space(data, p, max_b, bins, s)
    rules = split_rules(s)
    cat_table, n_cat, trace, trace_sides, n_trace = empty_tables(max_b, s)
    w_root = s.w_total if s.w_total > 0.0 else total_weight(rows[3])
    hists, hist_shape, no_hist, child_hist = histogram_pool(p, max_b, s)
    stack, stack_values = work_list(n, s.n_stats)
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
            nodes = grow_flat(nodes, n_nodes + 1)
            values = grow_rows(values, n_nodes + 1)
            node = n_nodes
            n_nodes += 1
            n_leaves += 1
            if item.slot >= 0:
                children[item.slot] = node
            hists, slot, view, to_sum = item_histograms(item, hists, hist_shape, no_hist, s)
            cat_table = grow_flat(cat_table, n_cat + growing_width(max_b))
            n_cand, pending, n_cat = search_node(
                node,
                item,
                stack_values[n_stack],
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
                (view, slot >= 0, to_sum),
            )
            if s.trace_on and n_cand > 0:
                trace, trace_sides, n_trace = record_trace(
                    trace, trace_sides, n_trace, node, space, n_cand, bins, s.multiway
                )
            if not pending or best_first:
                hists = free_slot(hists, slot)
                continue
        else:
            break
        # The pending split of `node` is applied.
        nd = nodes[node]
        free_from = free_row(n, nd, stack, n_stack, pool_end, best_first, s.missing_mode)
        applied, rows, buffers, n_ch, base, in_buffer, n_cat = partition_node(
            nd, rows, buffers, cat_table, n_cat, bins, s, part, free_from, words
        )
        if not applied:
            hists = free_slot(hists, slot)
            continue
        offsets = part.counts  # child ch's rows: base + offsets[ch] to base + offsets[ch + 1]
        pool_end = max(pool_end, base + offsets[n_ch])
        nd.kind = nd.pending
        children = grow_flat(children, n_child_slots + n_ch)
        nd.child_start = n_child_slots
        nd.n_children = n_ch
        n_leaves -= 1
        where = (in_buffer, rows, buffers)
        hists = child_histograms(
            slot, n_ch, base, offsets, where, bins.missing_code, hist_shape, s, hists, child_hist
        )
        stack, stack_values, n_stack = _push_children(
            stack,
            stack_values,
            n_stack,
            node,
            nd,
            n_ch,
            base,
            offsets,
            n_child_slots,
            in_buffer,
            part.child_stats,
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
