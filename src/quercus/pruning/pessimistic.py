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
from typing import NamedTuple

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


class Decision(NamedTuple):
    """One change pessimistic pruning makes at ``node``: ``"leaf"`` (replaced by a leaf) or
    ``"raise"`` (replaced by its largest branch ``raised``), with the estimated errors that
    decided it and, for the record, the path to the node as ``(split node, branch index)``
    pairs of the structure at that moment and the number of leaves after the change."""

    node: int
    action: str
    raised: int
    as_leaf: float
    as_subtree: float
    as_branch: float
    path: tuple[tuple[int, int], ...]
    n_leaves: int


class Structure:
    """A tree being pruned, over the nodes of ``tree``: for every node, whose split it uses
    (``split_of``) and its children (``kids``; none for a leaf). A raised branch takes its
    parent's place: the parent keeps its id, with the branch's split and children."""

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

    def n_leaves(self, node: int = 0) -> int:
        """Leaves of the structure under ``node``."""
        if node not in self.kids:
            return 1
        return sum(self.n_leaves(kid) for kid in self.kids[node])

    def distribution(self, cases: _Cases, part) -> np.ndarray:
        rows, w = part
        return np.bincount(cases.y[rows], weights=w, minlength=cases.n_classes)

    def route(self, cases: _Cases, node: int, part):
        """The cases ``part`` = ``(rows, weights)`` at ``node``, split among its children."""
        rows, w = part
        split = self.split_of[node]
        child = _child_of_rows(self.tree, split, cases.X, rows)
        return _split_cases(child, rows, w, len(self.kids[node]), self.tree.missing_child[split])

    def build(self, cases: _Cases, impurity) -> tuple[Tree, np.ndarray]:
        """The tree of the structure, its statistics recomputed from ``cases``, and the id in
        ``tree`` of each of its nodes (a raised branch's place keeps its parent's id)."""
        t, c = self.tree, cases
        # (node, depth, cases, parent position) in preorder
        order: list[tuple[int, int, tuple, int]] = []
        stack = [(0, 0, (np.arange(len(c.y)), c.w), -1)]
        while stack:
            node, depth, part, parent = stack.pop()
            order.append((node, depth, part, parent))
            if node in self.kids:
                subs = self.route(c, node, part)
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
            value[i] = self.distribution(c, part) if len(part[0]) else value[parent]
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
        tree = Tree(
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
        return tree, np.array([node for node, _, _, _ in order], dtype=np.int64)


class _Pruner:
    def __init__(self, tree: Tree, cases: _Cases, confidence: float, raising: bool, variant):
        self.structure = Structure(tree)
        self.cases = cases
        self.cf = confidence
        self.raising = raising
        self.variant = variant
        self.decisions: list[Decision] = []
        self.n_leaves = self.structure.n_leaves()

    # -- estimates ---------------------------------------------------------------------

    def _leaf_errors(self, part) -> float:
        dist = self.structure.distribution(self.cases, part)
        total = dist.sum()
        if total <= 0:
            return 0.0
        return pessimistic_errors(total, total - dist.max(), self.cf, self.variant)

    def _subtree_errors(self, node, part) -> float:
        """Estimated errors of the structure below ``node`` with the cases sent through it."""
        kids = self.structure.kids
        if node not in kids:
            return self._leaf_errors(part)
        subs = self.structure.route(self.cases, node, part)
        return sum(
            self._subtree_errors(kid, sub) for kid, sub in zip(kids[node], subs, strict=True)
        )

    # -- pruning -----------------------------------------------------------------------

    def prune(self, node, part, path=()) -> float:
        """Prune below ``node``, whose cases are ``part`` and whose path from the root is
        ``path``; return the estimated errors of what it has become (so that a parent does
        not walk the subtree again)."""
        structure = self.structure
        if node not in structure.kids:
            return self._leaf_errors(part)
        subs = structure.route(self.cases, node, part)
        split = int(structure.split_of[node])
        as_tree = sum(
            self.prune(kid, sub, (*path, (split, k)))
            for k, (kid, sub) in enumerate(zip(structure.kids[node], subs, strict=True))
        )
        weights = np.array([w.sum() for _, w in subs])
        largest = _largest_branch(weights, J48_SMALL if self.variant == "j48" else 0.0)
        branch = structure.kids[node][largest]
        as_leaf = self._leaf_errors(part)
        as_branch = self._subtree_errors(branch, part)
        numbers = (as_leaf, as_tree, as_branch, path)
        if as_leaf <= as_tree + _SLACK + J48_SMALL and as_leaf <= as_branch + _SLACK + J48_SMALL:
            self._record(node, "leaf", -1, 1, *numbers)
            structure.make_leaf(node)
            return as_leaf
        if self.raising and as_branch <= as_tree + _SLACK + J48_SMALL:
            self._record(node, "raise", branch, structure.n_leaves(branch), *numbers)
            structure.raise_branch(node, branch)
            return self.prune(node, part, path)
        return as_tree

    def _record(self, node, action, raised, leaves_after, as_leaf, as_tree, as_branch, path):
        """Note a change at ``node`` (before it is made) that leaves ``leaves_after`` leaves
        where the node's subtree was."""
        self.n_leaves -= self.structure.n_leaves(node) - leaves_after
        self.decisions.append(
            Decision(
                int(node),
                action,
                int(raised),
                float(as_leaf),
                float(as_tree),
                float(as_branch),
                tuple(path),
                self.n_leaves,
            )
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
    return pessimistic_decisions(
        tree,
        X,
        y,
        w,
        n_classes,
        impurity,
        confidence=confidence,
        subtree_raising=subtree_raising,
        variant=variant,
    )[0]


def pessimistic_decisions(
    tree: Tree,
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    n_classes: int,
    impurity,
    *,
    confidence: float = 0.25,
    subtree_raising: bool = True,
    variant: str = "j48",
) -> tuple[Tree, np.ndarray, list[Decision]]:
    """C4.5's pessimistic pruning of ``tree`` (as :func:`prune_pessimistic` without
    ``collapse``), with what it did: ``(pruned tree, id in tree of each of its nodes,
    decisions in the order made)``."""
    if tree.regression:
        raise ValueError("pessimistic pruning is for classification trees")
    cases = _Cases(X, y, w, n_classes)
    pruner = _Pruner(tree, cases, confidence, subtree_raising, variant)
    pruner.prune(0, (np.arange(len(y)), np.asarray(w, dtype=np.float64)))
    pruned, origin = pruner.structure.build(cases, impurity)
    return pruned, origin, pruner.decisions


def rebuild(tree: Tree, decisions, X, y, w, n_classes: int, impurity) -> tuple[Tree, np.ndarray]:
    """The tree that ``decisions`` (``(node, action, raised)`` first, in order) make of
    ``tree``, its statistics recomputed from the cases ``X, y, w`` as pessimistic pruning
    computes them; with the id in ``tree`` of each of its nodes."""
    structure = Structure(tree)
    for node, action, raised, *_ in decisions:
        if action == "leaf":
            structure.make_leaf(int(node))
        else:
            structure.raise_branch(int(node), int(raised))
    return structure.build(_Cases(X, y, w, n_classes), impurity)
