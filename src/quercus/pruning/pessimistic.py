"""C4.5's error-based (pessimistic) pruning, with subtree raising, as Weka's J48 does it.

Bottom-up, each inner node compares three estimates of the errors it would make on its own
training cases, each leaf counting ``e + added_errors(n, e)`` (``e`` = cases not of the
leaf's majority class among the ``n`` that reach it):

- as a leaf;
- as the subtree it is now (its children already pruned);
- replaced by its largest branch (the child with the most training weight), with all of the
  node's cases sent down that branch's structure.

It becomes a leaf if that estimate is within 0.1 of both others; otherwise, with subtree
raising, the largest branch takes its place when within 0.1 of the subtree (the node's cases
are then redistributed through the raised structure and the node is pruned again).

The cases are routed as prediction routes them: a missing value follows the node's missing
branch, or in a fractional tree (C4.5) goes down every branch with the branch's share of the
known weight of the cases at hand (J48 recomputes the shares when a branch is raised). The
result is a new tree whose statistics are recomputed from the cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import J48_SMALL, LEAF, NUMERIC_SPLIT
from ..tree import Tree
from .error_estimates import pessimistic_errors
from .subtree import collapse_unhelpful

_SLACK = 0.1  # C4.5 and J48 prefer the simpler tree unless it is worse by more than this


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
        child = tree.cat_table[tree.cat_start[split] + codes].astype(np.int64)
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


def _largest_branch(weights: np.ndarray, tolerance: float) -> int:
    """The branch with the most weight, the last of equal ones: C4.5 keeps a branch when
    ``Factor >= MaxFactor``, J48's ``maxBag`` when ``perBag >= max - 1e-6``."""
    largest, most = -1, 0.0
    for k, weight in enumerate(weights):
        if weight >= most - tolerance:
            largest, most = k, weight
    return largest


class _Pruner:
    def __init__(self, tree: Tree, cases: _Cases, confidence: float, raising: bool, variant):
        self.tree = tree
        self.cases = cases
        self.cf = confidence
        self.raising = raising
        self.variant = variant
        # The structure being pruned: for every node, whose split it uses and its children.
        self.split_of = np.arange(tree.node_count)
        self.kids: dict[int, list[int]] = {}
        for node in np.flatnonzero(tree.kind != LEAF):
            first = tree.child_start[node]
            self.kids[int(node)] = tree.children[first : first + tree.n_children[node]].tolist()

    # -- estimates ---------------------------------------------------------------------

    def _distribution(self, part):
        rows, w = part
        return np.bincount(self.cases.y[rows], weights=w, minlength=self.cases.n_classes)

    def _leaf_errors(self, part) -> float:
        dist = self._distribution(part)
        total = dist.sum()
        if total <= 0:
            return 0.0
        return pessimistic_errors(total, total - dist.max(), self.cf, self.variant)

    def _route(self, node, part):
        """The cases ``part`` = ``(rows, weights)`` at ``node``, split among its children."""
        rows, w = part
        split = self.split_of[node]
        child = _child_of_rows(self.tree, split, self.cases.X, rows)
        return _split_cases(child, rows, w, len(self.kids[node]), self.tree.missing_child[split])

    def _subtree_errors(self, node, part) -> float:
        """Estimated errors of the structure below ``node`` with the cases sent through it."""
        if node not in self.kids:
            return self._leaf_errors(part)
        return sum(
            self._subtree_errors(kid, sub)
            for kid, sub in zip(self.kids[node], self._route(node, part), strict=True)
        )

    # -- pruning -----------------------------------------------------------------------

    def prune(self, node, part) -> float:
        """Prune below ``node``, whose cases are ``part``; return the estimated errors of
        what it has become (so that a parent does not walk the subtree again)."""
        if node not in self.kids:
            return self._leaf_errors(part)
        subs = self._route(node, part)
        as_tree = sum(self.prune(kid, sub) for kid, sub in zip(self.kids[node], subs, strict=True))
        weights = np.array([w.sum() for _, w in subs])
        largest = _largest_branch(weights, J48_SMALL if self.variant == "j48" else 0.0)
        branch = self.kids[node][largest]
        as_leaf = self._leaf_errors(part)
        as_branch = self._subtree_errors(branch, part)
        if as_leaf <= as_tree + _SLACK + J48_SMALL and as_leaf <= as_branch + _SLACK + J48_SMALL:
            del self.kids[node]
            return as_leaf
        if self.raising and as_branch <= as_tree + _SLACK + J48_SMALL:
            if branch in self.kids:
                self.kids[node] = self.kids[branch]
                self.split_of[node] = self.split_of[branch]
            else:
                del self.kids[node]
            return self.prune(node, part)
        return as_tree

    # -- the new tree --------------------------------------------------------------------

    def build(self, impurity) -> Tree:
        t, c = self.tree, self.cases
        # (node, depth, cases, parent position) in preorder
        order: list[tuple[int, int, tuple, int]] = []
        stack = [(0, 0, (np.arange(len(c.y)), c.w), -1)]
        while stack:
            node, depth, part, parent = stack.pop()
            order.append((node, depth, part, parent))
            if node in self.kids:
                subs = self._route(node, part)
                here = len(order) - 1
                for kid, sub in reversed(list(zip(self.kids[node], subs, strict=True))):
                    stack.append((kid, depth + 1, sub, here))
        new_id = {node: i for i, (node, _, _, _) in enumerate(order)}
        n = len(order)
        kind = np.zeros(n, dtype=np.int8)
        feature = np.full(n, -1, dtype=np.int32)
        threshold = np.full(n, np.nan)
        child_start = np.zeros(n, dtype=np.int32)
        n_children = np.zeros(n, dtype=np.int32)
        cat_start = np.full(n, -1, dtype=np.int32)
        missing_child = np.full(n, -1, dtype=np.int32)
        value = np.zeros((n, c.n_classes))
        depth_out = np.zeros(n, dtype=np.int32)
        n_samples = np.zeros(n, dtype=np.int32)
        children: list[int] = []
        weights = np.zeros(n)
        for i, (node, depth, part, parent) in enumerate(order):
            # An empty branch keeps its parent's distribution (and weight 0), as in growing:
            # C4.5 labels it with the parent's majority class.
            value[i] = self._distribution(part) if len(part[0]) else value[parent]
            weights[i] = part[1].sum()
            n_samples[i] = len(part[0])
            depth_out[i] = depth
            if node in self.kids:
                split = self.split_of[node]
                kind[i] = t.kind[split]
                feature[i] = t.feature[split]
                threshold[i] = t.threshold[split]
                cat_start[i] = t.cat_start[split]
                missing_child[i] = t.missing_child[split]
                child_start[i] = len(children)
                n_children[i] = len(self.kids[node])
                children.extend(new_id[k] for k in self.kids[node])
        return Tree(
            kind=kind,
            feature=feature,
            threshold=threshold,
            child_start=child_start,
            n_children=n_children,
            children=np.asarray(children, dtype=np.int32),
            cat_start=cat_start,
            cat_table=t.cat_table.copy(),
            missing_child=missing_child,
            value=value,
            impurity=np.array([impurity(v) for v in value]),
            n_node_samples=n_samples,
            weighted_n_node_samples=weights,
            depth=depth_out,
            fractional=t.fractional,
        )


def prune_pessimistic(
    tree: Tree,
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    n_classes: int,
    impurity,
    *,
    confidence: float = 0.25,
    subtree_raising: bool = True,
    collapse: bool = True,
    variant: str = "j48",
) -> Tree:
    """C4.5's pessimistic pruning of a classification tree grown on ``X, y, w`` (new tree).

    ``X`` is the routing matrix of the training cases (numbers, or category codes for nominal
    features), ``y`` their class codes and ``w`` their weights; ``impurity`` maps a class
    distribution to the impurity recorded for a node. ``collapse`` first turns into leaves
    the subtrees that do not reduce the training errors (J48's default).
    """
    if tree.regression:
        raise ValueError("pessimistic pruning is for classification trees")
    if collapse:
        # From the tree's own statistics: its cases are those the pruner routes.
        tree = collapse_unhelpful(tree)
    pruner = _Pruner(tree, _Cases(X, y, w, n_classes), confidence, subtree_raising, variant)
    pruner.prune(0, (np.arange(len(y)), np.asarray(w, dtype=np.float64)))
    return pruner.build(impurity)
