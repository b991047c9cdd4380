"""Numba kernels: route rows through every tree of a packed forest in one pass.

A packed forest is the trees' routing tables laid end to end, with their node, child-list
and category-table indexes shifted so that each tree is a part of one big table: ``roots``
gives each tree's root, and a row walks tree after tree with the single-tree step.
"""

from __future__ import annotations

import numba
import numpy as np

from .._config import njit
from ..tree._predict import _step

# Rows per block: a block of rows goes through every tree before the next block, so that
# the rows stay in cache while the trees stream past.
BLOCK = 2048
GROUP = 8


@njit(parallel=True)
def forest_sum(X, roots, routes, children, cat_table, values, out):
    """``out[i] += values[leaf]`` over every tree, for every row of ``X`` (float64; nominal
    columns hold category codes, NaN for missing)."""
    n = X.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    n_out = values.shape[1]
    for b in numba.prange(n_blocks):
        lo = b * BLOCK
        hi = min(n, lo + BLOCK)
        # GROUP rows walk a tree side by side: their steps do not depend on each other, so
        # the processor overlaps the memory loads that one walk would wait for in turn.
        current = np.empty(GROUP, dtype=np.int64)
        for t in range(roots.shape[0]):
            root = roots[t]
            for first in range(lo, hi, GROUP):
                size = min(GROUP, hi - first)
                for j in range(size):
                    current[j] = root
                moving = size
                while moving > 0:
                    moving = 0
                    for j in range(size):
                        node = current[j]
                        if routes[node].feature >= 0:
                            current[j] = _step(X, first + j, node, routes, children, cat_table)
                            moving += 1
                for j in range(size):
                    for k in range(n_out):
                        out[first + j, k] += values[current[j], k]


@njit(parallel=True)
def tree_sum_rows(X, rows, root, routes, children, cat_table, values, out, count):
    """For one tree of the packed forest: ``out[r] += values[leaf]`` and ``count[r] += 1``
    for each row ``r`` in ``rows`` (the out-of-bag rows of that tree)."""
    n_out = values.shape[1]
    for j in numba.prange(rows.shape[0]):
        i = rows[j]
        node = root
        while routes[node].feature >= 0:
            node = _step(X, i, node, routes, children, cat_table)
        for k in range(n_out):
            out[i, k] += values[node, k]
        count[i] += 1


# -- the compact layout: numeric thresholds only ---------------------------------------------
#
# When every split of every tree is a numeric threshold, a node fits in 16 bytes: its
# threshold, its feature (-1 for a leaf; bit 30 set when a missing value goes right) and the
# index of its left child, the right child coming next. Half the bytes of the general
# record, and the child is chosen without a branch.

MISSING_RIGHT = 1 << 30


@njit(inline="always")
def _compact_step(X, i, node, f, nodes):
    """The child of inner ``node`` (testing feature code ``f``) that row ``i`` goes to."""
    v = X[i, f & (MISSING_RIGHT - 1)]
    if v != v:  # NaN: the side the tree learned for missing values
        return nodes[node].left + ((f >> 30) & 1)
    return nodes[node].left + np.int64(v > nodes[node].threshold)


@njit(parallel=True)
def compact_forest_sum(X, roots, nodes, values, out):
    """:func:`forest_sum` over the compact layout."""
    n = X.shape[0]
    n_blocks = (n + BLOCK - 1) // BLOCK
    n_out = values.shape[1]
    for b in numba.prange(n_blocks):
        lo = b * BLOCK
        hi = min(n, lo + BLOCK)
        current = np.empty(GROUP, dtype=np.int64)
        for t in range(roots.shape[0]):
            root = roots[t]
            for first in range(lo, hi, GROUP):
                size = min(GROUP, hi - first)
                for j in range(size):
                    current[j] = root
                moving = size
                while moving > 0:  # one step of each of the GROUP walks in turn
                    moving = 0
                    for j in range(size):
                        node = current[j]
                        f = nodes[node].feature
                        if f >= 0:
                            current[j] = _compact_step(X, first + j, node, f, nodes)
                            moving += 1
                for j in range(size):
                    for k in range(n_out):
                        out[first + j, k] += values[current[j], k]


@njit(parallel=True)
def compact_tree_sum_rows(X, rows, root, nodes, values, out, count):
    """:func:`tree_sum_rows` over the compact layout."""
    n_out = values.shape[1]
    for j in numba.prange(rows.shape[0]):
        i = rows[j]
        node = root
        while nodes[node].feature >= 0:
            node = _compact_step(X, i, node, nodes[node].feature, nodes)
        for k in range(n_out):
            out[i, k] += values[node, k]
        count[i] += 1
