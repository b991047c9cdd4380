"""Numba kernels: route rows through the flat tree.

Routing reads a packed table of one 32-byte record per node (``ROUTE_DTYPE``), because the
flat tree's parallel arrays cost a cache miss each per step: the threshold, the feature (-1
for a leaf), the node ids of a binary node's two children, the node id that takes a missing
value, the node kind, and for nominal nodes where their categories start in ``cat_table``
and their children in ``children``. An oblique node (``w . x <= t``) keeps its ``t`` as the
threshold and in place of a category start its row of the tree's ``oblique`` table of
weights (a table of one zero row for a tree without oblique nodes).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._config import LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, OBLIQUE_SPLIT, njit
from ..splitting._category_bits import category_branch

ROUTE_DTYPE = np.dtype(
    [
        ("threshold", np.float64),
        ("feature", np.int32),
        ("first", np.int32),
        ("second", np.int32),
        ("missing", np.int32),
        ("kind", np.int32),
        ("cat_start", np.int32),
    ]
)


def pack_routes(tree) -> np.ndarray:
    """The routing table of a :class:`~quercus.tree.Tree`."""
    routes = np.zeros(tree.node_count, dtype=ROUTE_DTYPE)
    inner = tree.kind != LEAF
    starts = tree.child_start
    routes["threshold"] = tree.threshold
    routes["feature"] = tree.feature
    routes["kind"] = tree.kind
    routes["cat_start"] = tree.cat_start
    routes["first"][inner] = tree.children[starts[inner]]
    binary = inner & (tree.n_children >= 2)
    routes["second"][binary] = tree.children[starts[binary] + 1]
    routes["missing"][inner] = tree.children[starts[inner] + tree.missing_child[inner]]
    # A nominal node keeps its child-list start in "second" (its children are not two).
    nominal = inner & (tree.kind != NUMERIC_SPLIT) & (tree.kind != OBLIQUE_SPLIT)
    routes["second"][nominal] = starts[nominal]
    oblique = tree.kind == OBLIQUE_SPLIT
    routes["cat_start"][oblique] = tree.oblique_row[oblique]
    return routes


def no_oblique() -> np.ndarray:
    """The ``oblique`` table of a tree without oblique nodes (the kernels' argument)."""
    return np.zeros((1, 1))


@njit(inline="always")
def oblique_side(X, i, weights, threshold):
    """Where row ``i`` of ``X`` goes at an oblique split of ``weights`` and ``threshold``:
    0 (``w . x <= t``), 1 (above), or -1 when a feature of non-zero weight is missing."""
    total = 0.0
    for j in range(weights.shape[0]):
        if weights[j] != 0.0:
            v = X[i, j]
            if math.isnan(v):
                return -1
            total += weights[j] * v
    return 0 if total <= threshold else 1


@njit
def oblique_sides(X, weights, threshold):
    """:func:`oblique_side` of every row of ``X``: the partition that prediction makes."""
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = oblique_side(X, i, weights, threshold)
    return out


@njit(inline="always")
def child_step(X, i, node, routes, children, cat_table, oblique):
    """The child of ``node`` that row ``i`` of ``X`` goes to."""
    r = routes[node]
    if r.kind == OBLIQUE_SPLIT:
        side = oblique_side(X, i, oblique[r.cat_start], r.threshold)
        if side < 0:
            return np.int64(r.missing)
        return np.int64(r.first if side == 0 else r.second)
    return axis_step(X, i, node, routes, children, cat_table)


@njit(inline="always")
def axis_step(X, i, node, routes, children, cat_table):
    """:func:`child_step` at a node that tests one feature (every node of a C4.5 tree, whose
    fractional routing has no oblique splits)."""
    r = routes[node]
    v = X[i, r.feature]
    if math.isnan(v):
        return np.int64(r.missing)
    if r.kind == NUMERIC_SPLIT:
        return np.int64(r.first if v <= r.threshold else r.second)
    branch = category_branch(r.kind == MULTIWAY_SPLIT, cat_table, r.cat_start, np.int64(v))
    return np.int64(children[r.second + branch])


@njit(parallel=True)
def apply_rows(X, routes, children, cat_table, oblique):
    """Leaf id of every row of ``X`` (float64; nominal columns hold category codes, NaN for
    missing)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        node = 0
        while routes[node].feature >= 0:
            node = child_step(X, i, node, routes, children, cat_table, oblique)
        out[i] = node
    return out


@njit
def path_rows(X, routes, children, cat_table, oblique, max_len):
    """Node ids on the path of every row: ``(indptr, indices)`` of a CSR indicator matrix."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    k = 0
    for i in range(n):
        node = 0
        indices[k] = 0
        k += 1
        while routes[node].feature >= 0:
            node = child_step(X, i, node, routes, children, cat_table, oblique)
            indices[k] = node
            k += 1
        indptr[i + 1] = k
    return indptr, indices[:k]


@njit(inline="always")
def push_branches(
    node, share, missing, child_start, n_children, children, weight, stack_node, stack_share, top
):
    """Push the branches that a case with a missing value at ``node`` goes down, each with
    ``share`` times its part of the children's training ``weight`` (all to the ``missing``
    branch when the children weigh nothing); returns the new stack size."""
    first = child_start[node]
    last = first + n_children[node]
    total = 0.0
    for slot in range(first, last):
        total += weight[children[slot]]
    if total <= 0.0:
        stack_node[top] = missing
        stack_share[top] = share
        return top + 1
    for slot in range(first, last):
        kid = children[slot]
        if weight[kid] > 0.0:
            stack_node[top] = kid
            stack_share[top] = share * weight[kid] / total
            top += 1
    return top


@njit
def fractional_rows(
    X, rows, routes, children, cat_table, child_start, n_children, weight, values, out
):
    """C4.5's prediction for ``rows`` of ``X`` (those with a missing value), into ``out``.

    Where a row's value is missing, it goes down every branch of non-zero training weight,
    with that branch's share of the children's weight (a node whose children all have weight
    0 sends it to its missing branch); ``out[i]`` is the weighted sum of ``values`` over the
    leaves reached.
    """
    n_nodes = routes.shape[0]
    # A node is pushed at most once per row (a tree has one path to it), so n_nodes suffices.
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_w = np.empty(n_nodes)
    for i in rows:
        out[i, :] = 0.0
        stack_node[0] = 0
        stack_w[0] = 1.0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            share = stack_w[top]
            r = routes[node]
            if r.feature < 0:
                for k in range(values.shape[1]):
                    out[i, k] += share * values[node, k]
                continue
            if not math.isnan(X[i, r.feature]):
                stack_node[top] = axis_step(X, i, node, routes, children, cat_table)
                stack_w[top] = share
                top += 1
                continue
            top = push_branches(
                node, share, r.missing, child_start, n_children, children, weight,
                stack_node, stack_w, top,
            )  # fmt: skip
