"""A plain NumPy twin of gradient boosting: the loop and its best-first Newton trees, written
from the textbook formulas with nothing of quercus's growth code, for small data.

Each tree is grown best first on binned codes: a leaf's best cut over every feature is the
one of most Newton gain ``T(G_L)**2 / (H_L + l2) + T(G_R)**2 / (H_R + l2) - T(G)**2 / (H +
l2)`` (``T`` moves a gradient sum ``l1`` towards 0) whose sides hold at least
``min_child_weight`` of hessian and ``min_samples_leaf`` rows; the leaf of most gain splits
next (the first created on ties), until ``max_leaf_nodes`` leaves or no leaf can split. A leaf's
value is ``-T(G) / (H + l2)``; its rows' raw scores move by it times the learning rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TwinSettings:
    learning_rate: float
    max_iter: int
    max_leaf_nodes: int
    min_child_weight: float = 1e-3
    min_samples_leaf: int = 1
    max_depth: int | None = None
    l2: float = 0.0
    l1: float = 0.0


@dataclass
class _Leaf:
    rows: np.ndarray
    depth: int
    gain: float = -np.inf
    feature: int = -1
    cut: int = -1  # codes <= cut go left


def _shrunk(g_sum, l1):
    """The gradient sum moved ``l1`` towards 0 (0 within ``l1``)."""
    return np.sign(g_sum) * max(abs(g_sum) - l1, 0.0)


def _score(g_sum, h_sum, s):
    t = _shrunk(g_sum, s.l1)
    return t * t / (h_sum + s.l2)


def _best_cut(codes, g, h, leaf: _Leaf, s: TwinSettings) -> None:
    """The leaf's best cut (feature, cut, gain), ties to the first feature and the lowest
    cut; none when no cut leaves both sides ``min_child_weight``."""
    rows = leaf.rows
    G, H = g[rows].sum(), h[rows].sum()
    parent = _score(G, H, s)
    if s.max_depth is not None and leaf.depth >= s.max_depth:
        return
    for f in range(codes.shape[1]):
        c = codes[rows, f]
        present = np.unique(c)
        for cut in present[:-1]:
            left = c <= cut
            hl, hr = h[rows][left].sum(), h[rows][~left].sum()
            if hl < s.min_child_weight or hr < s.min_child_weight:
                continue
            if min(left.sum(), (~left).sum()) < s.min_samples_leaf:
                continue
            gl, gr = g[rows][left].sum(), g[rows][~left].sum()
            gain = _score(gl, hl, s) + _score(gr, hr, s) - parent
            if gain > leaf.gain * (1 + 1e-9) + 1e-12:
                leaf.gain, leaf.feature, leaf.cut = gain, f, int(cut)


def grow_newton_tree(codes, g, h, s: TwinSettings) -> np.ndarray:
    """Each row's leaf value ``-G / (H + l2)`` in the tree grown on gradients ``g`` and
    hessians ``h`` (one column of them)."""
    leaves = [_Leaf(np.arange(len(g)), 0)]
    _best_cut(codes, g, h, leaves[0], s)
    while len(leaves) < s.max_leaf_nodes:
        candidates = [i for i, leaf in enumerate(leaves) if leaf.feature >= 0 and leaf.gain > 0]
        if not candidates:
            break
        best = max(candidates, key=lambda i: (leaves[i].gain, -i))
        leaf = leaves.pop(best)
        go_left = codes[leaf.rows, leaf.feature] <= leaf.cut
        for rows in (leaf.rows[go_left], leaf.rows[~go_left]):
            child = _Leaf(rows, leaf.depth + 1)
            _best_cut(codes, g, h, child, s)
            leaves.append(child)
    value = np.empty(len(g))
    for leaf in leaves:
        value[leaf.rows] = -_shrunk(g[leaf.rows].sum(), s.l1) / (h[leaf.rows].sum() + s.l2)
    return value


def boost_twin(codes, y, loss, s: TwinSettings) -> list[np.ndarray]:
    """The training rows' raw scores after each iteration (the start first), boosting
    ``loss`` (a :class:`quercus.ensemble.losses.Loss`) on binned ``codes``."""
    w = np.ones(len(y))
    raw = np.tile(loss.start(y, w), (len(y), 1))
    history = [raw.copy()]
    for _ in range(s.max_iter):
        g, h = loss.gradients(y, raw, w)
        for k in range(raw.shape[1]):
            raw[:, k] += s.learning_rate * grow_newton_tree(codes, g[:, k], h[:, k], s)
        history.append(raw.copy())
    return history
