"""Numba kernels of C4.5's pessimistic pruning with subtree raising, as Weka's J48 does it.

``prune_structure`` runs the whole bottom-up pruning (:mod:`quercus.pruning.pessimistic`
describes the rule) in one call; ``structure_stats`` gives the statistics of the pruned
tree, its training cases routed through it again. The twin, a NumPy pruner that works one
node at a time, is in the tests; the numbers here are its floats: class weights and the
shares of a missing value are added up in row order (``np.bincount``), and every other sum
is NumPy's pairwise summation (:func:`numpy_sum`), in the same order.

The tree being pruned is a *structure* over the nodes of the grown tree: for each node, the
node whose split it uses (``split_of``) and its children, ``children[kid_start[node] :
kid_start[node] + kid_count[node]]`` (none for a leaf). Raising a branch gives its split and
children to its parent, which keeps its id.

The cases at a node are a *part*: a slice of an arena of row indexes and weights (a case
with a missing value in a fractional tree is in several parts, with a share of its weight).
Routing a node's part writes its children's parts one after another past the end of the
arena in use, so that the arena is a stack that follows the walk. The walk itself keeps a
stack of frames, one per node on the path from the root: a frame prunes its node (or, above
a node weighing a raise, only adds up the estimated errors of a branch's structure).
"""

from __future__ import annotations

import math

import numpy as np

from .._config import njit

# Frame modes (literals in the kernels): 0 prunes the frame's node, 1 only estimates its
# subtree's errors. Stages of a pruning frame: 0 children, 1 waiting for the largest
# branch's estimate, 2 deciding.


@njit
def _block_sum(a, lo, n):
    """NumPy's sum of at most 128 values ``a[lo : lo + n]``: in order below 8, else eight
    running sums combined pairwise, then the values left over."""
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += a[lo + i]
        i += 1
    return total


@njit
def numpy_sum(a, lo, n):
    """``a[lo : lo + n].sum()`` as NumPy computes it, to the last bit: pairwise, blocks of at
    most 128 values, a longer slice the sum of its halves (the first a multiple of 8 long).
    The halving runs on a stack of its own (a recursive kernel does not load from Numba's
    cache safely)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    starts = np.empty(64, dtype=np.int64)
    sizes = np.empty(64, dtype=np.int64)
    stage = np.empty(64, dtype=np.int64)  # halves started: 1 the first, 2 both
    partial = np.empty(64)
    top = 0
    starts[0], sizes[0], stage[0] = lo, n, 0
    while True:
        if stage[top] < 2:
            half = sizes[top] // 2
            half -= half % 8
            first, size = starts[top], half
            if stage[top] == 1:
                first, size = starts[top] + half, sizes[top] - half
            stage[top] += 1
            if size > 128:
                top += 1
                starts[top], sizes[top], stage[top] = first, size, 0
                continue
            value = _block_sum(a, first, size)
        else:
            value = partial[top]
            top -= 1
            if top < 0:
                return value
        if stage[top] == 1:
            partial[top] = value
        else:
            partial[top] = partial[top] + value


@njit
def added_errors(n, e, cf, z, c45):
    """C4.5's ``AddErrs`` (:func:`quercus.pruning.error_estimates.added_errors`) for the
    deviate ``z`` of confidence ``cf``; ``c45``: release 8's variant, else J48's."""
    if n <= 0:
        return 0.0
    if e < 1e-6:
        return n * (1.0 - cf ** (1.0 / n))
    if e < (0.9999 if c45 else 1.0):
        base = n * (1.0 - cf ** (1.0 / n))
        return base + e * (_wilson_added(n, 1.0, z, c45) - base)
    return _wilson_added(n, e, z, c45)


@njit
def _wilson_added(n, e, z, c45):
    """``added_errors`` from one error up: the high-end rule, else the Wilson bound."""
    if e + 0.5 >= n:
        return 0.67 * (n - e) if c45 else max(n - e, 0.0)
    z2 = z * z
    upper = (e + 0.5 + z2 / 2 + math.sqrt(z2 * ((e + 0.5) * (1 - (e + 0.5) / n) + z2 / 4))) / (
        n + z2
    )
    return n * upper - e


@njit
def _leaf_errors(rows, weights, lo, hi, y, dist, cf, z, c45):
    """Estimated errors of the part ``lo:hi`` of the arena as one leaf; ``dist`` (n_classes)
    is scratch, left holding the part's class weights."""
    dist[:] = 0.0
    for i in range(lo, hi):
        dist[y[rows[i]]] += weights[i]
    total = numpy_sum(dist, 0, dist.shape[0])
    if total <= 0:
        return 0.0
    e = total - dist.max()
    return e + added_errors(total, e, cf, z, c45)


@njit
def _route(X, route, split, n_kids, arena, lo, hi, base, offsets, at):
    """Send the part ``lo:hi`` through the split of node ``split``: the children's parts go
    to the arena from ``base`` on, child ``k``'s from ``offsets[at + k]`` to ``offsets[at +
    k + 1]``. A case whose child is unknown (a missing value in a fractional tree, or a
    category the split has no branch for) goes to every child with its share of the known
    weight, after that child's known cases; to the missing branch when no weight is known.

    ``route`` is ``(feature, numeric, threshold, cat_start, cat_table, missing_child,
    fractional)``, ``arena`` is ``(rows, weights, scratch)``. Returns the arena (new arrays
    when it had to grow)."""
    feature, numeric, threshold, cat_start, cat_table, missing_child, fractional = route
    rows, weights, child = arena
    f = feature[split]
    shares = np.zeros(n_kids)
    n_unknown = 0
    for i in range(lo, hi):
        v = X[rows[i], f]
        if math.isnan(v):
            k = -1 if fractional else missing_child[split]
        elif numeric[split]:
            k = 1 if v > threshold[split] else 0
        else:
            k = cat_table[cat_start[split] + int(v)]
        child[i - lo] = k
        if k >= 0:
            shares[k] += weights[i]
        else:
            n_unknown += 1
    total = numpy_sum(shares, 0, n_kids)
    if n_unknown > 0 and total <= 0:
        for i in range(hi - lo):
            if child[i] < 0:
                child[i] = missing_child[split]
        n_unknown = 0
    counts = np.zeros(n_kids, dtype=np.int64)
    for i in range(hi - lo):
        if child[i] >= 0:
            counts[child[i]] += 1
    offsets[at] = base
    for k in range(n_kids):
        shares[k] = shares[k] / total if n_unknown > 0 else 0.0
        extra = n_unknown if shares[k] > 0 else 0
        offsets[at + k + 1] = offsets[at + k] + counts[k] + extra
    rows, weights, child = _reserve(rows, weights, child, offsets[at + n_kids])
    for k in range(n_kids):
        counts[k] = offsets[at + k]  # where child k's next known case goes
    for i in range(hi - lo):
        k = child[i]
        if k >= 0:
            rows[counts[k]] = rows[lo + i]
            weights[counts[k]] = weights[lo + i]
            counts[k] += 1
    for k in range(n_kids):
        if shares[k] > 0:
            out = counts[k]
            for i in range(hi - lo):
                if child[i] < 0:
                    rows[out] = rows[lo + i]
                    weights[out] = weights[lo + i] * shares[k]
                    out += 1
    return rows, weights, child


@njit
def _reserve(rows, weights, child, size):
    """The arena grown (doubled, or to ``size``) when it holds fewer than ``size`` cases."""
    if size <= rows.shape[0]:
        return rows, weights, child
    grown = max(size, 2 * rows.shape[0])
    new_rows = np.empty(grown, dtype=np.int64)
    new_weights = np.empty(grown)
    new_child = np.empty(grown, dtype=np.int64)
    new_rows[: rows.shape[0]] = rows
    new_weights[: weights.shape[0]] = weights
    new_child[: child.shape[0]] = child
    return new_rows, new_weights, new_child


@njit
def _arena(w):
    """The root's part: every case, with its weight."""
    n = w.shape[0]
    rows = np.empty(max(2 * n, 16), dtype=np.int64)
    weights = np.empty(max(2 * n, 16))
    rows[:n] = np.arange(n)
    weights[:n] = w
    return rows, weights, np.empty(max(2 * n, 16), dtype=np.int64)


@njit
def _height_and_fanout(kid_start, kid_count, children):
    """Levels of the structure under the root (1 for a lone leaf) and most children of a
    node: the sizes of the walks' stacks."""
    n = kid_count.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    stack[0] = 0
    top, height, fanout = 1, 1, 1
    while top > 0:
        top -= 1
        node = stack[top]
        height = max(height, depth[node] + 1)
        fanout = max(fanout, kid_count[node])
        for slot in range(kid_start[node], kid_start[node] + kid_count[node]):
            depth[children[slot]] = depth[node] + 1
            stack[top] = children[slot]
            top += 1
    return height, fanout


@njit
def _count_leaves(node, kid_start, kid_count, children, stack):
    """Leaves of the structure under ``node``."""
    stack[0] = node
    top, leaves = 1, 0
    while top > 0:
        top -= 1
        current = stack[top]
        if kid_count[current] == 0:
            leaves += 1
        for slot in range(kid_start[current], kid_start[current] + kid_count[current]):
            stack[top] = children[slot]
            top += 1
    return leaves


@njit
def _largest_branch(weights, offsets, at, n_kids, tolerance):
    """The child with the most weight, the last of equal ones (within ``tolerance``)."""
    largest, most = -1, 0.0
    for k in range(n_kids):
        weight = numpy_sum(weights, offsets[at + k], offsets[at + k + 1] - offsets[at + k])
        if weight >= most - tolerance:
            largest, most = k, weight
    return largest


@njit
def _record(decisions, count, node, raised, numbers, leaves, frame_node, frame_k, depth, split_of):
    """Note decision ``count`` (a leaf when ``raised`` is -1), whose path is the branches
    the frames above it are in; returns the decision buffers (grown when full)."""
    nodes, raise_of, estimates, n_leaves, path_end, path = decisions
    if path_end[count] + depth > path.shape[0]:
        grown = np.empty((max(2 * path.shape[0], path_end[count] + depth), 2), dtype=np.int64)
        grown[: path.shape[0]] = path
        path = grown
    nodes[count] = node
    raise_of[count] = raised
    estimates[count, :] = numbers
    n_leaves[count] = leaves
    for i in range(depth):
        path[path_end[count] + i, 0] = split_of[frame_node[i]]
        path[path_end[count] + i, 1] = frame_k[i]
    path_end[count + 1] = path_end[count] + depth
    return nodes, raise_of, estimates, n_leaves, path_end, path


@njit
def _open(X, route, frames, d, node, mode, lo, hi, base, at, split_of, kid_count, arena, offsets):
    """Frame ``d`` for ``node`` (``mode``) on the part ``lo:hi``, its cases sent on to its
    children (their parts from arena position ``base``, their offsets from ``at``)."""
    f_node, f_mode, f_lo, f_hi, f_base, f_at, f_k, f_stage, f_sum, _, _ = frames
    f_node[d], f_mode[d], f_lo[d], f_hi[d], f_base[d], f_at[d] = node, mode, lo, hi, base, at
    f_k[d], f_stage[d], f_sum[d] = 0, 0, 0.0
    return _route(X, route, split_of[node], kid_count[node], arena, lo, hi, base, offsets, at)


@njit
def _decide(estimates, raising, node, branch, kid_start, kid_count, children, stack):
    """``(raised, leaves_after)``: -1 when ``node`` becomes a leaf, ``branch`` when that
    branch takes its place, -2 when it stays; the leaves in its place after the change."""
    as_leaf, as_tree, as_branch = estimates[0], estimates[1], estimates[2]
    # C4.5 keeps the simpler tree unless it is worse by more than 0.1 (J48: and 1e-6).
    if as_leaf <= as_tree + 0.1 + 1e-6 and as_leaf <= as_branch + 0.1 + 1e-6:
        return -1, 1
    if raising and as_branch <= as_tree + 0.1 + 1e-6:
        return branch, _count_leaves(branch, kid_start, kid_count, children, stack)
    return -2, 0


@njit
def _walk(X, y, route, rule, kid_start, kid_count, children, split_of, frames, offsets, state):
    """Prune the structure under the root (an inner node), a frame per node of the path
    being walked; returns the decision buffers and their count."""
    cf, z, c45, raising, tolerance = rule
    f_node, f_mode, f_lo, f_hi, f_base, f_at, f_k, f_stage, f_sum, f_est, f_branch = frames
    arena, decisions, dist, stack = state
    count = 0
    total_leaves = _count_leaves(0, kid_start, kid_count, children, stack)
    n = y.shape[0]
    arena = _open(X, route, frames, 0, 0, 0, 0, n, n, 0, split_of, kid_count, arena, offsets)
    d = 0
    while True:
        node, at = f_node[d], f_at[d]
        n_kids = kid_count[node]
        if f_k[d] < n_kids:  # the next child: a leaf's estimate, or a frame of its own
            k = f_k[d]
            kid = children[kid_start[node] + k]
            lo, hi = offsets[at + k], offsets[at + k + 1]
            if kid_count[kid] == 0:
                f_sum[d] += _leaf_errors(arena[0], arena[1], lo, hi, y, dist, cf, z, c45)
                f_k[d] += 1
                continue
            base, above = offsets[at + n_kids], at + n_kids + 1
            d += 1
            arena = _open(
                X, route, frames, d, kid, f_mode[d - 1], lo, hi, base, above, split_of,
                kid_count, arena, offsets,
            )  # fmt: skip
            continue
        lo, hi = f_lo[d], f_hi[d]
        if f_mode[d] == 0 and f_stage[d] == 0:  # pruned below: weigh a leaf and the branch
            largest = _largest_branch(arena[1], offsets, at, n_kids, tolerance)
            branch = children[kid_start[node] + largest]
            f_branch[d] = branch
            f_est[d, 0] = _leaf_errors(arena[0], arena[1], lo, hi, y, dist, cf, z, c45)
            f_est[d, 1] = f_sum[d]
            f_est[d, 2] = f_est[d, 0]
            if kid_count[branch] > 0:  # a frame estimates the branch on the node's cases
                f_stage[d] = 1
                d += 1
                arena = _open(
                    X, route, frames, d, branch, 1, lo, hi, f_base[d - 1], at + n_kids + 1,
                    split_of, kid_count, arena, offsets,
                )  # fmt: skip
                continue
        value = f_sum[d]
        if f_mode[d] == 0:
            branch = f_branch[d]
            raised, after = _decide(
                f_est[d], raising, node, branch, kid_start, kid_count, children, stack
            )
            if raised != -2:
                total_leaves -= _count_leaves(node, kid_start, kid_count, children, stack) - after
                decisions = _record(
                    decisions, count, node, raised, f_est[d], total_leaves, f_node, f_k, d,
                    split_of,
                )  # fmt: skip
                count += 1
                if raised >= 0 and kid_count[branch] > 0:  # pruned again as the branch
                    kid_start[node], kid_count[node] = kid_start[branch], kid_count[branch]
                    split_of[node] = split_of[branch]
                    arena = _open(
                        X, route, frames, d, node, 0, lo, hi, f_base[d], at, split_of,
                        kid_count, arena, offsets,
                    )  # fmt: skip
                    continue
                kid_count[node] = 0
                value = f_est[d, 0]
        if d == 0:
            return decisions, count
        d -= 1
        if f_stage[d] == 1:  # the largest branch's estimate, for its parent to decide on
            f_est[d, 2] = value
            f_stage[d] = 2
        else:
            f_sum[d] += value
            f_k[d] += 1


@njit
def prune_structure(X, y, w, n_classes, route, kid_start, kid_count, children, rule):
    """C4.5's pessimistic pruning of the structure ``kid_start, kid_count, children`` (each
    node's children; changed in place) on the cases ``X, y, w`` routed by ``route`` (see
    :func:`_route`). ``rule`` is ``(cf, z, c45, raising, tolerance)``: the confidence, its
    normal deviate, C4.5's variant (else J48's), subtree raising, and the tolerance of the
    comparison of branch weights.

    Returns ``(split_of, nodes, raised, estimates, n_leaves, path_end, path)``: the split
    each node uses after pruning, and the decisions in the order made: the node, the raised
    branch (-1: made a leaf), the estimated errors (as a leaf, as the subtree, as the largest
    branch), the leaves of the whole tree after it, and its path from the root: the pairs
    ``(split node, branch)`` ``path[path_end[i] : path_end[i + 1]]``."""
    n_nodes = kid_count.shape[0]
    split_of = np.arange(n_nodes)
    height, fanout = _height_and_fanout(kid_start, kid_count, children)
    decisions = (
        np.empty(n_nodes, dtype=np.int64),
        np.empty(n_nodes, dtype=np.int64),
        np.empty((n_nodes, 3)),
        np.empty(n_nodes, dtype=np.int64),
        np.zeros(n_nodes + 1, dtype=np.int64),
        np.empty((64, 2), dtype=np.int64),
    )
    count = 0
    if kid_count[0] > 0:
        frames = (
            np.zeros(height, dtype=np.int64),  # node
            np.zeros(height, dtype=np.int64),  # mode: 0 prune, 1 estimate only
            np.zeros(height, dtype=np.int64),  # its part: lo
            np.zeros(height, dtype=np.int64),  # hi
            np.zeros(height, dtype=np.int64),  # arena position of its children's parts
            np.zeros(height, dtype=np.int64),  # where their offsets start
            np.zeros(height, dtype=np.int64),  # next child
            np.zeros(height, dtype=np.int64),  # stage: 0 children, 1 branch, 2 decide
            np.zeros(height),  # estimated errors of the children so far
            np.zeros((height, 3)),  # as a leaf, as the subtree, as the largest branch
            np.zeros(height, dtype=np.int64),  # largest branch
        )
        offsets = np.zeros(height * (fanout + 1) + 1, dtype=np.int64)
        state = (_arena(w), decisions, np.zeros(n_classes), np.empty(n_nodes, dtype=np.int64))
        decisions, count = _walk(
            X, y, route, rule, kid_start, kid_count, children, split_of, frames, offsets, state
        )
    nodes, raised, estimates, n_leaves, path_end, path = decisions
    return (
        split_of, nodes[:count], raised[:count], estimates[:count], n_leaves[:count],
        path_end[: count + 1], path[: path_end[count]],
    )  # fmt: skip


@njit
def _visit(node, depth, parent, lo, hi, rows, weights, y, out, m, slots, split_of, kid_count):
    """Node ``m`` of the pruned tree: ``node`` of the structure with the cases ``lo:hi``
    (an empty node keeps its parent's class weights); its children get the next ``slots``.
    Returns the next node and slot."""
    origin, split, depths, child_start, n_children, _, value, weight, n_samples = out
    origin[m], depths[m], n_samples[m] = node, depth, hi - lo
    weight[m] = numpy_sum(weights, lo, hi - lo)
    if hi > lo:
        for i in range(lo, hi):
            value[m, y[rows[i]]] += weights[i]
    elif parent >= 0:
        value[m, :] = value[parent]
    if kid_count[node] > 0:
        split[m] = split_of[node]
        child_start[m], n_children[m] = slots, kid_count[node]
        slots += kid_count[node]
    return m + 1, slots


@njit
def structure_stats(X, y, w, n_classes, route, split_of, kid_start, kid_count, children):
    """The tree a structure makes, its statistics from the cases ``X, y, w`` routed through
    it: its nodes in preorder, as ``(origin, split, depth, child_start, n_children,
    children, value, weight, n_samples)``: the structure's node (a raised branch's place
    keeps its parent's id), the node whose split it uses (-1: a leaf), its depth, its
    children, its class weights, total weight and number of cases."""
    n_nodes = kid_count.shape[0]
    height, fanout = _height_and_fanout(kid_start, kid_count, children)
    out = (
        np.empty(n_nodes, dtype=np.int64),
        np.full(n_nodes, -1, dtype=np.int64),
        np.empty(n_nodes, dtype=np.int32),
        np.zeros(n_nodes, dtype=np.int32),
        np.zeros(n_nodes, dtype=np.int32),
        np.empty(n_nodes, dtype=np.int32),
        np.zeros((n_nodes, n_classes)),
        np.empty(n_nodes),
        np.empty(n_nodes, dtype=np.int32),
    )
    new_children = out[5]
    f_node = np.zeros(height, dtype=np.int64)
    f_id = np.zeros(height, dtype=np.int64)
    f_at = np.zeros(height, dtype=np.int64)
    f_k = np.zeros(height, dtype=np.int64)
    offsets = np.zeros(height * (fanout + 1) + 1, dtype=np.int64)
    arena = _arena(w)
    n = w.shape[0]
    m, slots = _visit(0, 0, -1, 0, n, arena[0], arena[1], y, out, 0, 0, split_of, kid_count)
    d = 0
    if kid_count[0] > 0:
        arena = _route(X, route, split_of[0], kid_count[0], arena, 0, n, n, offsets, 0)
    else:
        d = -1
    while d >= 0:
        node, at, k = f_node[d], f_at[d], f_k[d]
        n_kids = kid_count[node]
        if k == n_kids:
            d -= 1
            continue
        kid = children[kid_start[node] + k]
        lo, hi = offsets[at + k], offsets[at + k + 1]
        new_children[out[3][f_id[d]] + k] = m
        f_k[d] += 1
        rows, weights = arena[0], arena[1]
        kid_id = m
        m, slots = _visit(
            kid, d + 1, f_id[d], lo, hi, rows, weights, y, out, m, slots, split_of, kid_count
        )
        if kid_count[kid] > 0:
            base = offsets[at + n_kids]
            d += 1
            f_node[d], f_id[d], f_at[d], f_k[d] = kid, kid_id, at + n_kids + 1, 0
            arena = _route(
                X, route, split_of[kid], kid_count[kid], arena, lo, hi, base, offsets, f_at[d]
            )
    return (
        out[0][:m], out[1][:m], out[2][:m], out[3][:m], out[4][:m], new_children[:slots],
        out[6][:m], out[7][:m], out[8][:m],
    )  # fmt: skip
