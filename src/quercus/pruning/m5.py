"""M5's stage after growing: a linear model at every node, pruning, smoothing.

As Weka's M5P does it (Quinlan 1992; Wang & Witten 1997; the notes of
``docs/design/m5p.md``):

- **Models.** A leaf of the grown tree predicts its mean. An inner node's model is fitted
  (:func:`~quercus.tree.linear_fit.fit_linear`) on all its rows, over the terms its grown
  subtree splits on.
- **Pruning**, bottom-up: a node becomes a leaf with its model when the model's training
  RMSE times ``(n + 2v) / (n - v)`` (``n`` rows, ``v`` parameters; 10 when ``n <= v``) is at
  most the pruned subtree's RMSE times the same factor of the subtree's parameters (its
  leaves' parameters and one per split).
- **Smoothing**: each leaf's model is blended with the models above it, from the leaf up,
  ``p <- (n p + 15 q) / (n + 15)`` with ``n`` the rows below the edge and ``q`` the upper
  node's model; a linear blend, so it is folded into the leaf's coefficients.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import LEAF
from ..tree.arrays import Tree
from ..tree.linear_fit import fit_linear, node_moments
from .subtree import collapse, kept_nodes

__all__ = ["M5Models", "SMOOTHING", "fit_leaf_models", "fit_m5"]

SMOOTHING = 15.0  # M5's smoothing constant k
PRUNING_MULTIPLIER = 2.0  # Weka's: (n + 2v) / (n - v)
EXACT_FIT = 1e-5  # a model within this share of the target's spread is kept in any case


class M5Models(NamedTuple):
    """The model tree of :func:`fit_m5`.

    ``tree`` is the pruned tree; ``params`` ``(n_nodes, n_terms + 2)`` holds, per node of
    ``tree``, its model's coefficients, its intercept and its training RMSE before smoothing
    (leaves: the smoothed model; inner nodes: their own); ``grown_ids`` the grown tree's id of
    each node; ``collapsed`` marks the leaves that pruning made."""

    tree: Tree
    params: np.ndarray
    grown_ids: np.ndarray
    collapsed: np.ndarray


def _row_ranges(tree: Tree, order: np.ndarray, leaf_of_row: np.ndarray):
    """Rows sorted so that each node's rows are a slice: ``(rows, start, end)``, node ``i``
    holding ``rows[start[i]:end[i]]``."""
    leaf_rank = np.full(tree.node_count, -1, dtype=np.int64)
    leaves = order[tree.kind[order] == LEAF]
    leaf_rank[leaves] = np.arange(len(leaves))
    rank_of_row = leaf_rank[leaf_of_row]
    rows = np.argsort(rank_of_row, kind="stable")
    bounds = np.searchsorted(rank_of_row[rows], np.arange(len(leaves) + 1))
    first = np.zeros(tree.node_count, dtype=np.int64)
    last = np.zeros(tree.node_count, dtype=np.int64)
    for node in order[::-1]:  # children before parents
        if tree.kind[node] == LEAF:
            first[node] = last[node] = leaf_rank[node]
        else:
            kids = tree.children[
                tree.child_start[node] : tree.child_start[node] + tree.n_children[node]
            ]
            first[node] = first[kids].min()
            last[node] = last[kids].max()
    return rows, bounds[first], bounds[last + 1]


def _factor(n: float, v: float) -> float:
    return 10.0 if n <= v else (n + PRUNING_MULTIPLIER * v) / (n - v)


def fit_m5(
    tree: Tree,
    leaf_of_row: np.ndarray,
    terms: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    split_terms: np.ndarray,
    *,
    linear: bool = True,
    prune: bool = True,
    smooth: bool = True,
) -> M5Models:
    """The model tree of a grown binary ``tree``: ``leaf_of_row`` the training rows' leaves,
    ``terms`` their term matrix, ``y`` and ``w`` their targets and weights, ``split_terms``
    the term of each split (:func:`~quercus.tree.terms.split_terms`). ``linear=False``
    makes every model a constant (M5P's regression tree)."""
    order = tree.preorder()
    rows, start, end = _row_ranges(tree, order, leaf_of_row)
    n_terms = terms.shape[1]
    width = n_terms + 2
    own = np.zeros((tree.node_count, width))  # every node's own model, and its RMSE
    sse = np.zeros(tree.node_count)  # of the pruned subtree
    n_params = np.zeros(tree.node_count)
    collapsed = np.zeros(tree.node_count, dtype=bool)
    below: dict[int, np.ndarray] = {}  # the terms split on in a grown subtree
    sd_global = _spread(y, w)
    for node in order[::-1]:
        index = rows[start[node] : end[node]]
        if tree.kind[node] == LEAF:
            candidates = np.zeros(0, dtype=np.int64)
        else:
            kids = tree.children[tree.child_start[node] : tree.child_start[node] + 2]
            candidates = np.union1d(below.pop(kids[0]), below.pop(kids[1]))
            candidates = np.union1d(candidates, [split_terms[node]])
        below[node] = candidates
        used = candidates if linear else candidates[:0]
        z = terms[np.ix_(index, used)]
        moments = node_moments(z, y[index], w[index])
        model = fit_linear(moments, np.arange(len(used)), len(used))
        own[node, used] = model.coef
        own[node, n_terms] = model.intercept
        own[node, n_terms + 1] = np.sqrt(model.sse / moments.weight)
        if tree.kind[node] == LEAF:
            sse[node], n_params[node] = model.sse, 1.0
            continue
        sub_sse, sub_params = sse[kids].sum(), n_params[kids].sum() + 1.0
        sse[node], n_params[node] = sub_sse, sub_params
        if prune:
            n = moments.weight  # M5P counts rows; with weights, weight stands for rows
            model_error = own[node, n_terms + 1] * _factor(n, model.n_params)
            sub_error = np.sqrt(sub_sse / moments.weight) * _factor(n, sub_params)
            if model_error <= sub_error or model_error < EXACT_FIT * sd_global:
                collapsed[node] = True
                sse[node], n_params[node] = model.sse, float(model.n_params)
    pruned = collapse(tree, collapsed)
    grown_ids = kept_nodes(tree, collapsed)
    params = own[grown_ids].copy()
    if smooth and pruned.node_count > 1:
        _smooth(pruned, params, n_terms)
    return M5Models(pruned, params, grown_ids, collapsed[grown_ids])


def fit_leaf_models(
    tree: Tree, leaf_of_row: np.ndarray, terms: np.ndarray, y: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """A linear model in each leaf of ``tree`` over every term, fitted on the leaf's rows as
    M5 fits a node's model, without pruning or smoothing; the rows of
    :attr:`M5Models.params` (inner nodes: their mean)."""
    order = tree.preorder()
    rows, start, end = _row_ranges(tree, order, leaf_of_row)
    n_terms = terms.shape[1]
    params = np.zeros((tree.node_count, n_terms + 2))
    everything = np.arange(n_terms)
    means = tree.leaf_values()[:, 0]
    for node in order:
        index = rows[start[node] : end[node]]
        used = everything if tree.kind[node] == LEAF else everything[:0]
        if len(index) == 0:  # an empty leaf: its parent's routing made it; predict its mean
            params[node, n_terms] = means[node]
            continue
        moments = node_moments(terms[np.ix_(index, used)], y[index], w[index])
        model = fit_linear(moments, np.arange(len(used)), len(used))
        params[node, used] = model.coef
        params[node, n_terms] = model.intercept
        params[node, n_terms + 1] = np.sqrt(model.sse / moments.weight)
    return params


def _smooth(tree: Tree, params: np.ndarray, n_terms: int) -> None:
    """Fold each leaf's ancestors' models into it, in place (the inner nodes' own models
    are read, never changed)."""
    parent = tree.parent
    for leaf in np.flatnonzero(tree.kind == LEAF):
        model = params[leaf, : n_terms + 1].copy()
        node = leaf
        while parent[node] >= 0:
            n = float(tree.weighted_n_node_samples[node])
            model = (n * model + SMOOTHING * params[parent[node], : n_terms + 1]) / (n + SMOOTHING)
            node = parent[node]
        params[leaf, : n_terms + 1] = model


def _spread(y: np.ndarray, w: np.ndarray) -> float:
    """The weighted population standard deviation of ``y``."""
    mean = np.average(y, weights=w)
    return float(np.sqrt(np.average((y - mean) ** 2, weights=w)))
