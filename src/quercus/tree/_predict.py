"""Numba kernels: route rows through the flat tree."""

from __future__ import annotations

import math

import numba
import numpy as np

from .._config import LEAF, NUMERIC_SPLIT, njit


@njit
def _next_node(
    x_row,
    node,
    kind,
    feature,
    threshold,
    child_start,
    missing_child,
    cat_start,
    children,
    cat_table,
):
    v = x_row[feature[node]]
    if math.isnan(v):
        ch = missing_child[node]
    elif kind[node] == NUMERIC_SPLIT:
        ch = 0 if v <= threshold[node] else 1
    else:
        ch = cat_table[cat_start[node] + np.int64(v)]
    return children[child_start[node] + ch]


@njit(parallel=True)
def apply_rows(
    X, kind, feature, threshold, child_start, missing_child, cat_start, children, cat_table
):
    """Leaf id of every row of ``X`` (float64; nominal columns hold category codes, NaN for
    missing)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        node = 0
        while kind[node] != LEAF:
            node = _next_node(
                X[i],
                node,
                kind,
                feature,
                threshold,
                child_start,
                missing_child,
                cat_start,
                children,
                cat_table,
            )
        out[i] = node
    return out


@njit
def path_rows(
    X, kind, feature, threshold, child_start, missing_child, cat_start, children, cat_table, max_len
):
    """Node ids on the path of every row: ``(indptr, indices)`` of a CSR indicator matrix."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(n * max_len, dtype=np.int64)
    k = 0
    for i in range(n):
        node = 0
        indices[k] = 0
        k += 1
        while kind[node] != LEAF:
            node = _next_node(
                X[i],
                node,
                kind,
                feature,
                threshold,
                child_start,
                missing_child,
                cat_start,
                children,
                cat_table,
            )
            indices[k] = node
            k += 1
        indptr[i + 1] = k
    return indptr, indices[:k]
