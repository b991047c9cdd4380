"""The errors of every tree along pessimistic pruning's decisions, without rebuilding each.

Each tree after a decision is the one :func:`~quercus.pruning.pessimistic.rebuild` makes
(its statistics recomputed from the training cases); this module scores them all in one
walk. A decision at a node changes only the structure under it, and the cases reaching a
node depend only on the structure above it: after each decision the training cases at the
node are sent through its new structure (the statistics of the nodes under it), and only the
rows that reach the node are predicted again. The numbers are those of the rebuilt tree's own
prediction: the same sums in the same order (a row with a missing value in a fractional tree
is mixed again over the whole tree, as ``tree._predict.fractional_rows`` mixes it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._config import LEAF, NUMERIC_SPLIT
from ..tree import Tree

__all__ = ["pessimistic_path_errors"]


@dataclass
class _Cases:
    X: np.ndarray  # float64 routing matrix (category codes for nominal columns)
    y: np.ndarray  # class codes
    w: np.ndarray  # weights
    n_classes: int


def _child_of_rows(tree: Tree, split: int, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Child index (within ``split``'s children) of each of ``rows`` at node ``split``: the
    missing branch for a missing value, or -1 in a fractional tree."""
    v = X[rows, tree.feature[split]]
    missing = np.isnan(v)
    if tree.kind[split] == NUMERIC_SPLIT:
        child = (v > tree.threshold[split]).astype(np.int64)
    else:
        codes = np.where(missing, 0, v).astype(np.int64)
        child = tree.category_branches(split, codes)
    child[missing] = -1 if tree.fractional else tree.missing_child[split]
    return child


def _split_cases(child, rows, w, n_kids, missing_child):
    """``(rows, weights)`` of each child, a case of child -1 going to every child with a
    share of the known weight (to ``missing_child`` when no case is known)."""
    known = child >= 0
    if known.all():
        return [(rows[child == k], w[child == k]) for k in range(n_kids)]
    shares = np.bincount(child[known], weights=w[known], minlength=n_kids)
    total = shares.sum()
    if total <= 0:
        child = np.where(known, child, missing_child)
        return [(rows[child == k], w[child == k]) for k in range(n_kids)]
    shares = shares / total
    parts = []
    for k in range(n_kids):
        mine = child == k
        if shares[k] > 0:
            parts.append(
                (
                    np.concatenate([rows[mine], rows[~known]]),
                    np.concatenate([w[mine], w[~known] * shares[k]]),
                )
            )
        else:
            parts.append((rows[mine], w[mine]))
    return parts


class Structure:
    """A tree being pruned, over the nodes of ``tree``: for every node, whose split it uses
    (``split_of``) and its children (``kids``; none for a leaf). A raised branch takes its
    parent's place: the parent keeps its id, with the branch's split and children. The
    cases are routed in NumPy as the kernels of :mod:`quercus.pruning._pessimistic` route
    them, to the same floats."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self.split_of = np.arange(tree.node_count)
        self.kids: dict[int, list[int]] = {}
        for node in np.flatnonzero(tree.kind != LEAF):
            first = tree.child_start[node]
            self.kids[int(node)] = tree.children[first : first + tree.n_children[node]].tolist()

    def make_leaf(self, node: int) -> None:
        del self.kids[node]

    def raise_branch(self, node: int, branch: int) -> None:
        if branch in self.kids:
            self.kids[node] = self.kids[branch]
            self.split_of[node] = self.split_of[branch]
        else:
            del self.kids[node]

    def distribution(self, cases: _Cases, part) -> np.ndarray:
        rows, w = part
        return np.bincount(cases.y[rows], weights=w, minlength=cases.n_classes)

    def route(self, cases: _Cases, node: int, part):
        """The cases ``part`` = ``(rows, weights)`` at ``node``, split among its children."""
        rows, w = part
        split = self.split_of[node]
        child = _child_of_rows(self.tree, split, cases.X, rows)
        return _split_cases(child, rows, w, len(self.kids[node]), self.tree.missing_child[split])


class _State:
    """The structure being pruned, with the training cases and statistics of its nodes."""

    def __init__(self, tree: Tree, cases: _Cases):
        self.tree = tree
        self.cases = cases
        self.structure = Structure(tree)
        self.parts: dict[int, tuple] = {}  # node -> (rows, weights) of the training cases
        self.raw: dict[int, np.ndarray] = {}  # node -> class weights (the parent's if empty)
        self.values: dict[int, np.ndarray] = {}  # node -> what it predicts as a leaf
        self.weight: dict[int, float] = {}
        self.fill(0, (np.arange(len(cases.y)), cases.w), None)

    def fill(self, node: int, part, parent_raw) -> None:
        """The statistics of ``node`` and the nodes under it, from its cases ``part``, as
        :func:`~quercus.pruning.pessimistic.rebuild` computes them."""
        stack = [(node, part, parent_raw)]
        kids = self.structure.kids
        while stack:
            node, part, parent_raw = stack.pop()
            raw = self.structure.distribution(self.cases, part) if len(part[0]) else parent_raw
            total = raw.sum()
            self.parts[node] = part
            self.raw[node] = raw
            self.values[node] = raw / (total if total > 0 else 1.0)
            self.weight[node] = part[1].sum()
            if node in kids:
                subs = self.structure.route(self.cases, node, part)
                stack.extend((kid, sub, raw) for kid, sub in zip(kids[node], subs, strict=True))


class _Rows:
    """Rows to score: the leaf each reaches (rows routed one way), or for rows with a
    missing value in a fractional tree, the nodes they reach, and whether each is wrong."""

    def __init__(self, state: _State, matrix, target, class_codes):
        self.state = state
        self.X = np.ascontiguousarray(matrix, dtype=np.float64)
        self.target = np.asarray(target, dtype=np.float64)
        self.codes = np.asarray(class_codes, dtype=np.float64)
        mixed = (
            np.isnan(self.X).any(axis=1) if state.tree.fractional else np.zeros(len(self.X), bool)
        )
        self.mixed = mixed
        self.at: dict[int, np.ndarray] = {}  # node -> single-path rows that pass it
        self.mixed_at: dict[int, np.ndarray] = {}  # node -> mixed rows that reach it
        self.wrong = np.zeros(len(self.X), dtype=bool)
        self.place(0, np.flatnonzero(~mixed), np.flatnonzero(mixed))

    def place(self, node: int, rows: np.ndarray, mixed_rows: np.ndarray) -> None:
        """Route ``rows`` and ``mixed_rows`` (those reaching ``node``) through the structure
        under ``node`` and score them."""
        state, kids = self.state, self.state.structure.kids
        everywhere = mixed_rows  # each is mixed again over the whole tree, below
        stack = [(node, rows, mixed_rows)]
        while stack:
            node, rows, mixed_rows = stack.pop()
            self.at[node] = rows
            self.mixed_at[node] = mixed_rows
            if node not in kids:
                predicted = self.codes[np.argmax(state.values[node])]
                self.wrong[rows] = predicted != self.target[rows]
                continue
            split = state.structure.split_of[node]
            child = _child_of_rows(state.tree, split, self.X, rows)
            reach = self._mixed_children(node, split, mixed_rows)
            for k, kid in enumerate(kids[node]):
                stack.append((kid, rows[child == k], reach[k]))
        for row in everywhere:
            self.wrong[row] = self._mixed_wrong(int(row))

    def _mixed_children(self, node, split, rows) -> list[np.ndarray]:
        """The mixed rows that reach each child (a missing value: every child it is sent
        down, as prediction sends it)."""
        tree, kids = self.state.tree, self.state.structure.kids[node]
        out = [[] for _ in kids]
        weights = [self.state.weight[k] for k in kids]
        for row in rows:
            for k in self._branches(tree, split, row, weights):
                out[k].append(row)
        return [np.asarray(r, dtype=np.int64) for r in out]

    def _branches(self, tree, split, row, weights) -> list[int]:
        v = self.X[row, tree.feature[split]]
        if not math.isnan(v):
            if tree.kind[split] == NUMERIC_SPLIT:
                return [0 if v <= tree.threshold[split] else 1]
            return [int(tree.category_branches(split, [int(v)])[0])]
        if sum(weights) <= 0.0:
            return [int(tree.missing_child[split])]
        return [k for k, w in enumerate(weights) if w > 0.0]

    def _mixed_wrong(self, row: int) -> bool:
        """Whether the tree's mixed prediction for ``row`` is wrong: the leaves it reaches,
        weighted as ``fractional_rows`` weighs them, in its order."""
        state = self.state
        tree, kids = state.tree, state.structure.kids
        out = np.zeros(len(self.codes))
        stack = [(0, 1.0)]
        while stack:
            node, share = stack.pop()
            if node not in kids:
                out += share * state.values[node]
                continue
            split = state.structure.split_of[node]
            children = kids[node]
            if not math.isnan(self.X[row, tree.feature[split]]):
                (k,) = self._branches(tree, split, row, None)
                stack.append((children[k], share))
                continue
            total = 0.0
            for kid in children:
                total += state.weight[kid]
            if total <= 0.0:
                stack.append((children[int(tree.missing_child[split])], share))
                continue
            for kid in children:
                if state.weight[kid] > 0.0:
                    stack.append((kid, share * state.weight[kid] / total))
        return bool(self.codes[int(np.argmax(out))] != self.target[row])


def pessimistic_path_errors(tree: Tree, decisions, X, y, w, n_classes: int, row_sets) -> np.ndarray:
    """The number of wrong rows of every tree along ``decisions`` (as for
    :func:`~quercus.pruning.pessimistic.rebuild`: ``(node, action, raised)`` first, in order),
    each with its statistics recomputed from the training cases ``X, y, w``.

    ``row_sets``: sequence of ``(matrix, target, class_codes)``, routing matrices of the rows
    to score, their class codes and the code of each class column. Returns int64
    ``(len(decisions) + 1, len(row_sets))``: the tree rebuilt without a decision first.
    """
    state = _State(tree, _Cases(X, y, w, n_classes))
    scored = [_Rows(state, *rows) for rows in row_sets]
    out = np.empty((len(decisions) + 1, len(scored)), dtype=np.int64)
    out[0] = [r.wrong.sum() for r in scored]
    for i, (node, action, raised, *_) in enumerate(decisions, start=1):
        node = int(node)
        if action == "leaf":
            state.structure.make_leaf(node)
        else:
            state.structure.raise_branch(node, int(raised))
        # The node keeps its cases (the structure above it is unchanged), and its class
        # weights: an empty node's are its parent's, kept from before.
        state.fill(node, state.parts[node], state.raw[node])
        for rows in scored:
            rows.place(node, rows.at[node], rows.mixed_at[node])
        out[i] = [r.wrong.sum() for r in scored]
    return out
