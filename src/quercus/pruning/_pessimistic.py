"""Numba kernels of C4.5's pessimistic pruning with subtree raising, as Weka's J48 does it.

``prune_structure`` runs the whole bottom-up pruning (:mod:`quercus.pruning.pessimistic`
describes the rule) in one call; ``structure_stats`` gives the statistics of the pruned
tree, its training cases routed through it again. The twin, a NumPy pruner that works one
node at a time, is in ``tests/pruning/test_pessimistic_twin.py``; the numbers here are its
floats, to the last bit: class weights and the shares of a missing value are added up in
row order (``np.bincount``), and every other sum is NumPy's pairwise summation
(:func:`numpy_sum`), in the same order.

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
from ..splitting._category_bits import category_branch

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
    for c in range(dist.shape[0]):
        dist[c] = 0.0
    for i in range(lo, hi):
        dist[y[rows[i]]] += weights[i]
    total = numpy_sum(dist, 0, dist.shape[0])
    if total <= 0:
        return 0.0
    most = dist[0]
    for c in range(1, dist.shape[0]):
        most = max(most, dist[c])
    e = total - most
    return e + added_errors(total, e, cf, z, c45)


@njit
def _children_of(X, route, split, n_kids, rows, weights, lo, hi, child, shares):
    """The first half of sending the part ``lo:hi`` of the arena ``rows, weights`` through
    the test of node ``split``: the child of each case in ``child[: hi - lo]``, and in
    ``shares[:n_kids]`` each child's share of the known weight, for the cases whose child is
    unknown (zeros when none is). Returns the number of places the children's parts take in
    the arena. ``route`` is ``(nodes, threshold, cat_table, fractional)``.

    ``nodes[split]`` is ``(feature, numeric split?, cat_start, missing_child)``. A missing
    value goes to the missing branch, or in a ``fractional`` tree its child is unknown, as
    is that of a category the split has no branch for. When no weight is known, the
    unknown go to the missing branch."""
    nodes, threshold, cat_table, fractional = route
    f, numeric = nodes[split, 0], nodes[split, 1]
    cat_start, missing_child = nodes[split, 2], nodes[split, 3]
    for k in range(n_kids):
        shares[k] = 0.0
    n_unknown = 0
    for i in range(lo, hi):
        v = X[rows[i], f]
        if math.isnan(v):
            k = -1 if fractional else missing_child
        elif numeric:
            k = 1 if v > threshold[split] else 0
        else:  # a multiway split has no bitset (cat_start -1)
            k = category_branch(cat_start < 0, cat_table, cat_start, int(v))
        child[i - lo] = k
        if k >= 0:
            shares[k] += weights[i]
        else:
            n_unknown += 1
    total = numpy_sum(shares, 0, n_kids)
    if n_unknown > 0 and total <= 0:
        for i in range(hi - lo):
            if child[i] < 0:
                child[i] = missing_child
    places = 0
    for i in range(hi - lo):
        if child[i] >= 0:
            places += 1
    for k in range(n_kids):
        shares[k] = shares[k] / total if n_unknown > 0 and total > 0 else 0.0
        if shares[k] > 0:
            places += n_unknown
    return places


@njit
def _fill(rows, weights, child, lo, hi, base, offsets, at, n_kids, shares, counts):
    """The second half: the children's parts, from ``base`` on, child ``k``'s from
    ``offsets[at + k]`` to ``offsets[at + k + 1]``: its known cases in order, then (if its
    share is not 0) each unknown one with its share of the case's weight."""
    n_unknown = 0
    for k in range(n_kids):
        counts[k] = 0
    for i in range(hi - lo):
        if child[i] >= 0:
            counts[child[i]] += 1
        else:
            n_unknown += 1
    offsets[at] = base
    for k in range(n_kids):
        offsets[at + k + 1] = offsets[at + k] + counts[k] + (n_unknown if shares[k] > 0 else 0)
        counts[k] = offsets[at + k]  # where child k's next case goes
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


@njit
def _reserve(a, size):
    """``a``, or a copy of it grown to ``size`` (at least doubled) when it is shorter."""
    if size <= a.shape[0]:
        return a
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit
def _shape(kid_start, kid_count, children):
    """``(height, fanout)`` of the structure: its levels (1 for a lone leaf) and the most
    children of a node, the sizes of the walks' stacks."""
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
def _decide(as_leaf, as_tree, as_branch, raising):
    """C4.5's rule: 0 keeps the subtree, 1 makes it a leaf, 2 raises the largest branch.
    The simpler tree is kept unless it is worse by more than 0.1 (and J48's 1e-6)."""
    if as_leaf <= as_tree + 0.1 + 1e-6 and as_leaf <= as_branch + 0.1 + 1e-6:
        return 1
    if raising and as_branch <= as_tree + 0.1 + 1e-6:
        return 2
    return 0


@njit
def _record(path_end, path, count, frame_node, frame_k, d, split_of):
    """The path of decision ``count``, taken at frame ``d``: the split and branch of each
    frame above it."""
    path_end[count + 1] = path_end[count] + d
    for i in range(d):
        path[path_end[count] + i, 0] = split_of[frame_node[i]]
        path[path_end[count] + i, 1] = frame_k[i]


@njit
def prune_structure(X, y, w, n_classes, route, structure, rule, out):
    """C4.5's pessimistic pruning of ``structure = (kid_start, kid_count, children,
    split_of)`` (changed in place: node ``i``'s children are ``children[kid_start[i] :
    kid_start[i] + kid_count[i]]``, none for a leaf, and it uses the split of node
    ``split_of[i]``) on the cases ``X, y, w``, sent through the splits by ``route`` (see
    :func:`_children_of`). ``rule`` is ``(cf, z, c45, raising, tolerance)``: the confidence,
    its normal deviate, C4.5's variant (else J48's), subtree raising, and the tolerance of
    the comparison of branch weights.

    The decisions go to ``out = (decided, estimates, path_end, path)`` in the order made:
    ``decided[i]`` is the node, the branch raised into its place (-1: made a leaf) and the
    leaves of the whole tree after it; ``estimates[i]`` the estimated errors as a leaf, as
    the subtree and as the largest branch; its path from the root the pairs ``(split node,
    branch)`` ``path[path_end[i] : path_end[i + 1]]`` (``path`` has room for the sum of the
    depths of the nodes: no decision's path is longer than the depth of the node it takes
    away). Returns the number of decisions.

    A frame per node of the path being walked prunes its node (or, above a node weighing
    a raise, only estimates the errors of the largest branch's structure on the node's
    cases), sending its cases on to its children when it opens."""
    kid_start, kid_count, children, split_of = structure
    cf, z, c45, raising, tolerance = rule
    decided, estimates, path_end, path = out
    height, fanout = _shape(kid_start, kid_count, children)
    n = y.shape[0]
    rows, weights = np.empty(2 * n + 16, dtype=np.int64), np.empty(2 * n + 16)
    for i in range(n):
        rows[i], weights[i] = i, w[i]
    child = np.empty(2 * n + 16, dtype=np.int64)
    shares, counts, dist = np.zeros(fanout), np.zeros(fanout, dtype=np.int64), np.zeros(n_classes)
    stack = np.empty(kid_count.shape[0], dtype=np.int64)
    # Each frame: its node, mode (0 prunes, 1 only estimates), cases lo:hi, where its
    # children's cases start in the arena and their offsets in ``offsets``, the next child,
    # its stage (0 children, 1 waiting for the largest branch, 2 deciding), that branch,
    # the children's estimates so far and the node's estimates (leaf, subtree, branch).
    f_node, f_mode = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    f_lo, f_hi = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    f_base, f_at = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    f_k, f_stage = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    f_branch, f_sum, f_est = (
        np.zeros(height, dtype=np.int64),
        np.zeros(height),
        np.zeros((height, 3)),
    )
    offsets = np.zeros(height * (fanout + 1) + 1, dtype=np.int64)
    count, total_leaves = 0, _count_leaves(0, kid_start, kid_count, children, stack)
    if kid_count[0] == 0:
        return 0
    d, f_hi[0], f_base[0], pending = 0, n, n, True
    while True:
        node, at, lo, hi = f_node[d], f_at[d], f_lo[d], f_hi[d]
        n_kids = kid_count[node]
        if pending:  # the frame opens: its cases go on to its node's children
            size = f_base[d] + _children_of(
                X, route, split_of[node], n_kids, rows, weights, lo, hi, child, shares
            )
            rows, weights = _reserve(rows, size), _reserve(weights, size)
            child = _reserve(child, size)
            _fill(rows, weights, child, lo, hi, f_base[d], offsets, at, n_kids, shares, counts)
            f_k[d], f_stage[d], f_sum[d], pending = 0, 0, 0.0, False
        if f_k[d] < n_kids:  # the next child: a leaf's estimate, or a frame of its own
            kid = children[kid_start[node] + f_k[d]]
            lo, hi = offsets[at + f_k[d]], offsets[at + f_k[d] + 1]
            if kid_count[kid] == 0:
                f_sum[d] += _leaf_errors(rows, weights, lo, hi, y, dist, cf, z, c45)
                f_k[d] += 1
                continue
            d, pending = d + 1, True
            f_node[d], f_mode[d], f_lo[d], f_hi[d] = kid, f_mode[d - 1], lo, hi
            f_base[d], f_at[d] = offsets[at + n_kids], at + n_kids + 1
            continue
        if f_mode[d] == 0 and f_stage[d] == 0:  # pruned below: weigh a leaf and the branch
            largest = _largest_branch(weights, offsets, at, n_kids, tolerance)
            f_branch[d] = branch = children[kid_start[node] + largest]
            f_est[d, 0] = _leaf_errors(rows, weights, lo, hi, y, dist, cf, z, c45)
            f_est[d, 1], f_est[d, 2] = f_sum[d], f_est[d, 0]
            if kid_count[branch] > 0:  # a frame estimates the branch on the node's cases
                f_stage[d], d, pending = 1, d + 1, True
                f_node[d], f_mode[d], f_lo[d], f_hi[d] = branch, 1, lo, hi
                f_base[d], f_at[d] = f_base[d - 1], at + n_kids + 1
                continue
        value = f_sum[d]
        if f_mode[d] == 0:
            branch = f_branch[d]
            action = _decide(f_est[d, 0], f_est[d, 1], f_est[d, 2], raising)
            if action > 0:
                after = 1
                if action == 2:
                    after = _count_leaves(branch, kid_start, kid_count, children, stack)
                total_leaves -= _count_leaves(node, kid_start, kid_count, children, stack) - after
                decided[count, 0], decided[count, 1] = node, branch if action == 2 else -1
                decided[count, 2] = total_leaves
                for j in range(3):
                    estimates[count, j] = f_est[d, j]
                _record(path_end, path, count, f_node, f_k, d, split_of)
                count += 1
                if action == 2 and kid_count[branch] > 0:  # pruned again as the branch
                    kid_start[node], kid_count[node] = kid_start[branch], kid_count[branch]
                    split_of[node], pending = split_of[branch], True
                    continue
                kid_count[node] = 0
                value = f_est[d, 0]
        if d == 0:
            return count
        d -= 1
        if f_stage[d] == 1:  # the largest branch's estimate, for its parent to decide on
            f_est[d, 2], f_stage[d] = value, 2
        else:
            f_sum[d], f_k[d] = f_sum[d] + value, f_k[d] + 1


@njit
def structure_stats(X, y, w, route, structure, nodes, value, weight):
    """The tree a structure makes (see :func:`prune_structure`), its statistics from the
    cases ``X, y, w`` sent through it, its nodes in preorder: in the columns of ``nodes``
    (int64, a row per node of the structure) the structure's node (a raised branch's place
    keeps its parent's id), the node whose split it uses (-1: a leaf), its depth, where its
    children start in column 5 and how many they are, and its number of cases; in ``value``
    and ``weight`` its class weights (the parent's for a node no case reaches) and its total
    weight. Returns the number of nodes and of children."""
    kid_start, kid_count, children, split_of = structure
    origin, split, depth = nodes[:, 0], nodes[:, 1], nodes[:, 2]
    child_start, n_children, new_children = nodes[:, 3], nodes[:, 4], nodes[:, 5]
    n_samples = nodes[:, 6]
    height, fanout = _shape(kid_start, kid_count, children)
    n = y.shape[0]
    rows, weights = np.empty(2 * n + 16, dtype=np.int64), np.empty(2 * n + 16)
    for i in range(n):
        rows[i], weights[i] = i, w[i]
    child = np.empty(2 * n + 16, dtype=np.int64)
    shares, counts = np.zeros(fanout), np.zeros(fanout, dtype=np.int64)
    f_node, f_id = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    f_at, f_k = np.zeros(height, dtype=np.int64), np.zeros(height, dtype=np.int64)
    offsets = np.zeros(height * (fanout + 1) + 1, dtype=np.int64)
    m, slots, d = 0, 0, 0
    node, lo, hi, parent = 0, 0, n, -1
    while True:
        # Node m: ``node`` with the cases lo:hi (its parent the node ``parent`` of the tree).
        origin[m], depth[m], n_samples[m] = node, d, hi - lo
        weight[m] = numpy_sum(weights, lo, hi - lo)
        for i in range(lo, hi):
            value[m, y[rows[i]]] += weights[i]
        if hi == lo and parent >= 0:
            for c in range(value.shape[1]):
                value[m, c] = value[parent, c]
        m += 1
        if kid_count[node] > 0:  # its children's cases, and places for their ids
            split[m - 1] = split_of[node]
            child_start[m - 1], n_children[m - 1] = slots, kid_count[node]
            slots += kid_count[node]
            f_node[d], f_id[d], f_k[d] = node, m - 1, 0
            f_at[d] = 0 if d == 0 else f_at[d - 1] + kid_count[f_node[d - 1]] + 1
            base = hi if d == 0 else offsets[f_at[d] - 1]
            size = base + _children_of(
                X, route, split_of[node], kid_count[node], rows, weights, lo, hi, child, shares
            )
            rows, weights = _reserve(rows, size), _reserve(weights, size)
            child = _reserve(child, size)
            n_kids = kid_count[node]
            _fill(rows, weights, child, lo, hi, base, offsets, f_at[d], n_kids, shares, counts)
            d += 1
        while d > 0 and f_k[d - 1] == kid_count[f_node[d - 1]]:
            d -= 1
        if d == 0:
            return m, slots
        top = d - 1
        k = f_k[top]
        f_k[top] += 1
        node, parent = children[kid_start[f_node[top]] + k], f_id[top]
        lo, hi = offsets[f_at[top] + k], offsets[f_at[top] + k + 1]
        new_children[child_start[parent] + k] = m
