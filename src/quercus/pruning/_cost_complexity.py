"""Numba kernels of CART's cost-complexity pruning.

``weakest_links`` is the pruning path: the weakest link (smallest effective alpha, lowest
node id on ties) is found with an indexed heap, and only the ancestors of a pruned node,
whose subtree impurity and leaf count change, move in the heap. A step costs the depth of
its node times a heap update, so a whole path costs about ``n log n`` instead of the
``n^2`` of rescanning every node at every step. The sums are the twin's, in its order, so
that the alphas and impurities are the same floats.

``path_error_deltas`` and ``fractional_error_deltas`` give the held-out error of every tree
along a path at once (``ccp_alpha="cv"``). A node pruned at step ``s`` of the path is a leaf
of the trees after steps ``s, s + 1, ...`` until one of its ancestors is pruned, so a held-out
row is predicted, after ``k`` steps, by the shallowest node of its path pruned within the
first ``k`` steps (its leaf if none is). Each row adds its error to ``deltas[s]`` where its
prediction changes; a cumulative sum gives the error after every number of steps.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import njit
from ..tree._predict import axis_step, child_step, push_branches

# -- the pruning path ---------------------------------------------------------------------


@njit(inline="always")
def _weaker(a, b, effective):
    """Whether node ``a`` is a weaker link than node ``b`` (smaller alpha, then lower id)."""
    return effective[a] < effective[b] or (effective[a] == effective[b] and a < b)


@njit
def _sift_up(heap, position, effective, i):
    node = heap[i]
    while i > 0:
        up = (i - 1) // 2
        if not _weaker(node, heap[up], effective):
            break
        heap[i] = heap[up]
        position[heap[i]] = i
        i = up
    heap[i] = node
    position[node] = i


@njit
def _sift_down(heap, position, effective, i, size):
    node = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _weaker(heap[child + 1], heap[child], effective):
            child += 1
        if not _weaker(heap[child], node, effective):
            break
        heap[i] = heap[child]
        position[heap[i]] = i
        i = child
    heap[i] = node
    position[node] = i


@njit
def _pop(heap, position, effective, size):
    """Remove the heap's top; returns the new size."""
    position[heap[0]] = -1
    size -= 1
    if size > 0:
        heap[0] = heap[size]
        position[heap[0]] = 0
        _sift_down(heap, position, effective, 0, size)
    return size


@njit
def _kill_below(node, alive, pruned, child_start, n_children, children, stack):
    """Mark the nodes under ``node`` as gone (a pruned node's own subtree is gone already)."""
    stack[0] = node
    top = 1
    while top > 0:
        top -= 1
        current = stack[top]
        for slot in range(child_start[current], child_start[current] + n_children[current]):
            kid = children[slot]
            if alive[kid]:
                alive[kid] = False
                if not pruned[kid]:
                    stack[top] = kid
                    top += 1


@njit
def _subtree_sums(r_node, is_leaf, parent, order):
    """Leaf impurity and leaf count of every subtree, adding children to their parent in
    ``order`` (deepest nodes first, by id within a depth: the twin's order of additions)."""
    n = r_node.shape[0]
    r_sub = np.zeros(n)
    leaves = np.zeros(n, dtype=np.int64)
    for node in range(n):
        if is_leaf[node]:
            r_sub[node] = r_node[node]
            leaves[node] = 1
    for node in order:
        if parent[node] >= 0:
            r_sub[parent[node]] += r_sub[node]
            leaves[parent[node]] += leaves[node]
    return r_sub, leaves


@njit
def weakest_links(r_node, is_leaf, child_start, n_children, children, order, ccp_alpha):
    """Weakest-link pruning while the weakest link's effective alpha is at most ``ccp_alpha``.

    Parameters
    ----------
    r_node : float64 (n_nodes,)
        Impurity of each node times its share of the training weight.
    is_leaf : bool (n_nodes,)
    child_start, n_children : int32 (n_nodes,)
    children : int32 (n_child_slots,)
    order : int64 (n_nodes,)
        Nodes by decreasing depth, by id within a depth.
    ccp_alpha : float

    Returns
    -------
    nodes : int64 (n_steps,)
        The node turned into a leaf at each step.
    alphas : float64 (n_steps,)
        Its effective alpha.
    impurities : float64 (n_steps + 1,)
        Total leaf impurity of the whole tree, then after each step.
    """
    n = r_node.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    for node in range(n):
        for slot in range(child_start[node], child_start[node] + n_children[node]):
            parent[children[slot]] = node
    r_sub, leaves = _subtree_sums(r_node, is_leaf, parent, order)
    effective = np.full(n, np.inf)
    heap = np.empty(n, dtype=np.int64)
    position = np.full(n, -1, dtype=np.int64)
    size = 0
    for node in range(n):
        if not is_leaf[node]:
            effective[node] = (r_node[node] - r_sub[node]) / (leaves[node] - 1)
            heap[size] = node
            _sift_up(heap, position, effective, size)
            size += 1
    alive = np.ones(n, dtype=np.bool_)
    pruned = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    nodes = np.empty(size, dtype=np.int64)
    alphas = np.empty(size)
    impurities = np.empty(size + 1)
    impurities[0] = r_sub[0]
    steps = 0
    while size > 0:
        node = heap[0]
        if not alive[node]:  # under a node pruned earlier: no longer a candidate
            size = _pop(heap, position, effective, size)
            continue
        alpha = effective[node]
        if alpha > ccp_alpha:
            break
        size = _pop(heap, position, effective, size)
        delta_r = r_node[node] - r_sub[node]
        delta_leaves = leaves[node] - 1
        pruned[node] = True
        _kill_below(node, alive, pruned, child_start, n_children, children, stack)
        up = node
        while up >= 0:
            r_sub[up] += delta_r
            leaves[up] -= delta_leaves
            if up != node:  # an ancestor's alpha changes: move it in the heap
                effective[up] = (r_node[up] - r_sub[up]) / (leaves[up] - 1)
                _sift_up(heap, position, effective, position[up])
                _sift_down(heap, position, effective, position[up], size)
            up = parent[up]
        nodes[steps] = node
        alphas[steps] = alpha
        steps += 1
        impurities[steps] = r_sub[0]
    return nodes[:steps], alphas[:steps], impurities[: steps + 1]


# -- held-out errors along the path -------------------------------------------------------


@njit(inline="always")
def _add(sums, carries, k, x):
    """``sums[k] += x``, keeping the rounding error in ``carries[k]`` (Neumaier)."""
    total = sums[k] + x
    if abs(sums[k]) >= abs(x):
        carries[k] += (sums[k] - total) + x
    else:
        carries[k] += (x - total) + sums[k]
    sums[k] = total


@njit
def cumulative_sums(sums, carries):
    """Running totals of ``sums + carries`` (float64 (n,)), with compensated additions."""
    out = np.empty(sums.shape[0])
    total = 0.0
    carry = 0.0
    for k in range(sums.shape[0]):
        for x in (sums[k], carries[k]):
            t = total + x
            if abs(total) >= abs(x):
                carry += (total - t) + x
            else:
                carry += (x - t) + total
            total = t
        out[k] = total + carry
    return out


@njit(inline="always")
def _row_error(predicted, target, weight, squared):
    """A row's weighted error: squared error, or its weight when the class is wrong."""
    if squared:
        diff = predicted - target
        return diff * diff * weight
    return weight if predicted != target else 0.0


@njit
def path_error_deltas(
    X,
    rows,
    routes,
    children,
    cat_table,
    oblique,
    step_of,
    predicted,
    target,
    weight,
    squared,
    sums,
    carries,
):
    """Add the error changes of ``rows`` of ``X`` along the pruning path.

    Parameters
    ----------
    X : float64 (n_rows, n_features)
        Routing matrix (category codes for nominal columns, NaN for missing).
    rows : int64 (n,)
        The rows to add.
    routes, children, cat_table, oblique
        The tree's routing arrays (``quercus.tree._predict``).
    step_of : int64 (n_nodes,)
        Step of the path (from 1) that makes each inner node a leaf, ``n_steps + 1`` for a
        node only removed with an ancestor; 0 for leaves.
    predicted : float64 (n_nodes,)
        Each node's prediction as a leaf (a class code, or a value).
    target, weight : float64 (n_rows,)
    squared : bool
        Squared error (regression) or 0/1 error (classes).
    sums, carries : float64 (n_steps + 2,)
        ``sums[k] + carries[k]`` is the change of the total error at step ``k``.
    """
    path = np.empty(routes.shape[0], dtype=np.int64)
    upper = np.empty(routes.shape[0], dtype=np.int64)
    never = sums.shape[0] - 1
    for i in rows:
        depth = 0
        node = 0
        path[0] = 0
        while routes[node].feature >= 0:
            node = child_step(X, i, node, routes, children, cat_table, oblique)
            depth += 1
            path[depth] = node
        # upper[d]: the first step that prunes a strict ancestor of path[d].
        first = never
        for d in range(depth + 1):
            upper[d] = first
            first = min(first, step_of[path[d]])
        before = 0.0
        for d in range(depth, -1, -1):  # leaf first: steps increase going up
            node = path[d]
            if step_of[node] < upper[d]:  # predicts the row from its step to upper[d]
                error = _row_error(predicted[node], target[i], weight[i], squared)
                if error != before:
                    _add(sums, carries, step_of[node], error - before)
                    before = error


@njit
def _mix_row(
    X,
    i,
    routes,
    children,
    cat_table,
    child_start,
    n_children,
    node_weight,
    values,
    step_of,
    cut,
    stack_node,
    stack_share,
    out,
    reached,
):
    """C4.5's prediction for row ``i`` of ``X`` by the tree pruned by its first ``cut``
    steps, into ``out``, as ``quercus.tree._predict.fractional_rows`` computes it (same
    order of additions); the steps of the inner nodes passed go to ``reached``. Returns
    how many there are."""
    out[:] = 0.0
    stack_node[0] = 0
    stack_share[0] = 1.0
    top = 1
    n_reached = 0
    while top > 0:
        top -= 1
        node = stack_node[top]
        share = stack_share[top]
        if step_of[node] <= cut:  # a leaf of the pruned tree
            for k in range(values.shape[1]):
                out[k] += share * values[node, k]
            continue
        reached[n_reached] = step_of[node]
        n_reached += 1
        r = routes[node]
        if not math.isnan(X[i, r.feature]):
            stack_node[top] = axis_step(X, i, node, routes, children, cat_table)
            stack_share[top] = share
            top += 1
            continue
        top = push_branches(
            node, share, r.missing, child_start, n_children, children, node_weight,
            stack_node, stack_share, top,
        )  # fmt: skip
    return n_reached


@njit(inline="always")
def _mixed_error(out, class_codes, target, weight, squared):
    """The weighted error of a mixed prediction: its value, or its most probable class
    (the first on ties)."""
    if squared:
        return _row_error(out[0], target, weight, True)
    best = 0
    for k in range(1, out.shape[0]):
        if out[k] > out[best]:
            best = k
    return _row_error(class_codes[best], target, weight, False)


@njit
def fractional_error_deltas(
    X,
    rows,
    routes,
    children,
    cat_table,
    child_start,
    n_children,
    node_weight,
    values,
    step_of,
    class_codes,
    target,
    weight,
    squared,
    sums,
    carries,
):
    """As :func:`path_error_deltas`, for rows that C4.5 sends down several branches.

    ``child_start, n_children`` : int32 (n_nodes,); ``node_weight`` : float64 (n_nodes,)
    training weight of each node; ``values`` : float64 (n_nodes, n_stats) what each node
    predicts as a leaf (class probabilities or a value); ``class_codes`` : float64
    (n_stats,) the code of each class column. A row's prediction can change only at the
    steps of the inner nodes it reaches: it is mixed again, from the root, at each of them.
    """
    n_nodes = routes.shape[0]
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_share = np.empty(n_nodes)
    reached = np.empty(n_nodes, dtype=np.int64)
    out = np.empty(values.shape[1])
    never = sums.shape[0] - 1
    for i in rows:
        n_reached = _mix_row(
            X,
            i,
            routes,
            children,
            cat_table,
            child_start,
            n_children,
            node_weight,
            values,
            step_of,
            0,
            stack_node,
            stack_share,
            out,
            reached,
        )
        cuts = np.unique(reached[:n_reached])
        error = _mixed_error(out, class_codes, target[i], weight[i], squared)
        before = 0.0
        if error != before:
            _add(sums, carries, 0, error - before)
            before = error
        for cut in cuts:
            if cut >= never:
                break
            _mix_row(
                X,
                i,
                routes,
                children,
                cat_table,
                child_start,
                n_children,
                node_weight,
                values,
                step_of,
                cut,
                stack_node,
                stack_share,
                out,
                reached,
            )
            error = _mixed_error(out, class_codes, target[i], weight[i], squared)
            if error != before:
                _add(sums, carries, cut, error - before)
                before = error
