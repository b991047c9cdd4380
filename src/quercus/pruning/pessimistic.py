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

The pruning runs compiled, in one call (:mod:`quercus.pruning._pessimistic`); this module
gives it the tree and the cases as arrays, and makes the pruned tree and the record of its
decisions of what it returns.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import J48_SMALL, LEAF, NUMERIC_SPLIT
from ..tree import Tree
from ._pessimistic import prune_structure, structure_stats
from .error_estimates import check_confidence, deviate
from .subtree import collapse_unhelpful


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


def _structure(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(kid_start, kid_count, children, split_of)``: the tree as the kernels' structure,
    in new arrays but ``children`` (the pruning changes the others): node ``i``'s children
    are ``children[kid_start[i] : kid_start[i] + kid_count[i]]``, none for a leaf, and it
    uses the split of node ``split_of[i]``."""
    return (
        tree.child_start.astype(np.int64),
        np.where(tree.kind != LEAF, tree.n_children, 0).astype(np.int64),
        np.asarray(tree.children, dtype=np.int32),
        np.arange(tree.node_count, dtype=np.int64),
    )


def _depth_sum(structure) -> int:
    """The sum of the depths of the nodes of a structure."""
    kid_start, kid_count, children, _ = structure
    total, depth, level = 0, 0, np.zeros(1, dtype=np.int64)
    while len(level):
        total += depth * len(level)
        counts = kid_count[level]
        first = np.repeat(kid_start[level] - np.cumsum(counts) + counts, counts)
        level = children[first + np.arange(counts.sum())].astype(np.int64)
        depth += 1
    return total


def _route(tree: Tree) -> tuple:
    """How the kernels send cases through the tree's splits: ``(nodes, threshold,
    cat_table, fractional)``, ``nodes[i]`` being node ``i``'s feature, whether it is a
    numeric split, its ``cat_start`` and its missing branch."""
    nodes = np.stack(
        [tree.feature, tree.kind == NUMERIC_SPLIT, tree.cat_start, tree.missing_child], axis=1
    ).astype(np.int64)
    return (
        nodes,
        np.asarray(tree.threshold, dtype=np.float64),
        np.asarray(tree.cat_table, dtype=np.int32),
        bool(tree.fractional),
    )


def _cases(X, y, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The training cases as the kernels take them: routing matrix, class codes, weights."""
    return (
        np.ascontiguousarray(X, dtype=np.float64),
        np.ascontiguousarray(y, dtype=np.int64),
        np.ascontiguousarray(w, dtype=np.float64),
    )


def _build(tree: Tree, cases, n_classes: int, impurity, structure):
    """The tree of a structure over ``tree``'s nodes, its statistics recomputed from
    ``cases``, and the id in ``tree`` of each of its nodes (a raised branch's place keeps its
    parent's id)."""
    n = tree.node_count
    nodes = np.zeros((n, 7), dtype=np.int64)
    nodes[:, 1] = -1
    value, weight = np.zeros((n, n_classes)), np.empty(n)
    m, slots = structure_stats(*cases, _route(tree), structure, nodes, value, weight)
    origin, split = nodes[:m, 0], nodes[:m, 1]
    depth, child_start, n_children, n_samples = (
        nodes[:m, j].astype(np.int32) for j in (2, 3, 4, 6)
    )
    children = nodes[:slots, 5].astype(np.int32)
    value, weight = value[:m], weight[:m]
    inner = split >= 0
    at = np.where(inner, split, 0)
    pruned = Tree(
        kind=np.where(inner, tree.kind[at], LEAF).astype(np.int8),
        feature=np.where(inner, tree.feature[at], -1).astype(np.int32),
        threshold=np.where(inner, tree.threshold[at], np.nan),
        child_start=child_start,
        n_children=n_children,
        children=children,
        cat_start=np.where(inner, tree.cat_start[at], -1).astype(np.int32),
        cat_table=tree.cat_table.copy(),
        missing_child=np.where(inner, tree.missing_child[at], -1).astype(np.int32),
        value=value,
        impurity=np.array([impurity(v) for v in value]),
        n_node_samples=n_samples,
        weighted_n_node_samples=weight,
        depth=depth,
        fractional=tree.fractional,
    )
    return pruned, origin


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
    check_confidence(confidence, variant)
    cases = _cases(X, y, w)
    structure = _structure(tree)
    rule = (
        float(confidence),
        float(deviate(confidence, variant)),
        variant == "c45",
        bool(subtree_raising),
        J48_SMALL if variant == "j48" else 0.0,
    )
    n = tree.node_count
    out = (
        np.empty((n, 3), dtype=np.int64),  # node, raised branch, leaves after
        np.empty((n, 3)),  # estimates
        np.zeros(n + 1, dtype=np.int64),  # path ends
        np.empty((_depth_sum(structure), 2), dtype=np.int64),  # paths
    )
    count = prune_structure(*cases, n_classes, _route(tree), structure, rule, out)
    decided, estimates, path_end = out[0][:count], out[1][:count], out[2][: count + 1]
    path = out[3][: path_end[-1]]
    pairs = [tuple(pair) for pair in path.tolist()]
    decisions = [
        Decision(
            node,
            "leaf" if raised < 0 else "raise",
            raised,
            *numbers,
            tuple(pairs[start:end]),
            leaves,
        )
        for (node, raised, leaves), numbers, start, end in zip(
            decided.tolist(),
            estimates.tolist(),
            path_end[:-1].tolist(),
            path_end[1:].tolist(),
            strict=True,
        )
    ]
    pruned, origin = _build(tree, cases, n_classes, impurity, structure)
    return pruned, origin, decisions


def rebuild(tree: Tree, decisions, X, y, w, n_classes: int, impurity) -> tuple[Tree, np.ndarray]:
    """The tree that ``decisions`` (``(node, action, raised)`` first, in order) make of
    ``tree``, its statistics recomputed from the cases ``X, y, w`` as pessimistic pruning
    computes them; with the id in ``tree`` of each of its nodes."""
    kid_start, kid_count, _, split_of = structure = _structure(tree)
    for node, action, raised, *_ in decisions:
        node, raised = int(node), int(raised)
        if action == "leaf" or kid_count[raised] == 0:
            kid_count[node] = 0
        else:
            kid_start[node], kid_count[node] = kid_start[raised], kid_count[raised]
            split_of[node] = split_of[raised]
    return _build(tree, _cases(X, y, w), n_classes, impurity, structure)
