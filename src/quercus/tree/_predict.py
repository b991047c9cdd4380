"""Numba kernels: route rows through the flat tree.

Routing reads a packed table, one row of 8 float64 per node (one cache line), because the
flat tree's parallel arrays cost a cache miss each per step:
``[threshold, feature, first, second, missing, kind, cat_start, child_start]`` where ``first``
and ``second`` are the node ids of a binary node's children and ``missing`` the node id that
takes a missing value; a leaf has feature -1.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._config import LEAF, NUMERIC_SPLIT, njit

(R_THRESHOLD, R_FEATURE, R_FIRST, R_SECOND, R_MISSING, R_KIND, R_CAT_START, R_CHILD_START) = range(
    8
)


def pack_routes(tree) -> np.ndarray:
    """The routing table of a :class:`~quercus.tree.Tree`."""
    n = tree.node_count
    routes = np.zeros((n, 8), dtype=np.float64)
    inner = tree.kind != LEAF
    starts = tree.child_start
    routes[:, R_THRESHOLD] = tree.threshold
    routes[:, R_FEATURE] = tree.feature
    routes[:, R_KIND] = tree.kind
    routes[:, R_CAT_START] = tree.cat_start
    routes[:, R_CHILD_START] = starts
    routes[inner, R_FIRST] = tree.children[starts[inner]]
    binary = inner & (tree.n_children >= 2)
    routes[binary, R_SECOND] = tree.children[starts[binary] + 1]
    routes[inner, R_MISSING] = tree.children[starts[inner] + tree.missing_child[inner]]
    return routes


@njit
def _step(X, i, node, routes, children, cat_table):
    """The child of ``node`` that row ``i`` of ``X`` goes to."""
    v = X[i, np.int64(routes[node, R_FEATURE])]
    if math.isnan(v):
        return np.int64(routes[node, R_MISSING])
    if routes[node, R_KIND] == NUMERIC_SPLIT:
        return np.int64(routes[node, R_FIRST if v <= routes[node, R_THRESHOLD] else R_SECOND])
    ch = cat_table[np.int64(routes[node, R_CAT_START]) + np.int64(v)]
    return np.int64(children[np.int64(routes[node, R_CHILD_START]) + ch])


@njit(parallel=True)
def apply_rows(X, routes, children, cat_table):
    """Leaf id of every row of ``X`` (float64; nominal columns hold category codes, NaN for
    missing)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        node = 0
        while routes[node, R_FEATURE] >= 0:
            node = _step(X, i, node, routes, children, cat_table)
        out[i] = node
    return out


@njit
def path_rows(X, routes, children, cat_table, max_len):
    """Node ids on the path of every row: ``(indptr, indices)`` of a CSR indicator matrix."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    k = 0
    for i in range(n):
        node = 0
        indices[k] = 0
        k += 1
        while routes[node, R_FEATURE] >= 0:
            node = _step(X, i, node, routes, children, cat_table)
            indices[k] = node
            k += 1
        indptr[i + 1] = k
    return indptr, indices[:k]
