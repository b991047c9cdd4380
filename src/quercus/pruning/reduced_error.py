"""Reduced-error pruning, the lectures' algorithm, on held-out validation cases.

Repeatedly replace by a leaf (predicting its training majority class) the inner node whose
replacement most increases the accuracy on the validation cases, as long as no replacement
would decrease it. Validation cases are routed as prediction routes them.

:func:`reduced_error_order` follows the same rule past that point, down to the root, so
that the accuracy of every smaller tree of the order can be shown (the overfitting curve);
the pruning keeps the steps before the first one that decreases the accuracy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import LEAF
from ..tree import Tree
from .subtree import collapse, descendants, parents

_TIE = 1e-12  # sums of weights carry rounding noise: a change smaller than this is none


class Replacement(NamedTuple):
    """One node replaced by a leaf: the validation weight it gets wrong as a leaf and as the
    subtree it was; ``taken`` is whether pruning makes it (no step so far lost accuracy)."""

    node: int
    errors_as_leaf: float
    errors_as_subtree: float
    taken: bool


def reduced_error_order(
    tree: Tree, leaf_of_rows, y_val: np.ndarray, w_val: np.ndarray
) -> list[Replacement]:
    """The order in which reduced-error pruning replaces the inner nodes of ``tree`` by
    leaves, down to the root.

    ``leaf_of_rows`` gives, for the validation rows, the id of the leaf each one reaches;
    ``y_val`` are their class codes and ``w_val`` their weights. At each step the node whose
    replacement most increases the validation accuracy (least decreases it, past the
    pruning's stopping point) is replaced; ties go to the lowest node id. The steps before
    the first one that decreases the accuracy are ``taken``.
    """
    n = tree.node_count
    parent = parents(tree)
    node_class = np.argmax(tree.value, axis=1)
    # Validation weight reaching each node, per class: push leaf counts up to the root.
    per_class = np.zeros((n, tree.value.shape[1]))
    np.add.at(per_class, (leaf_of_rows, y_val), w_val)
    correct_subtree = np.zeros(n)
    leaf_correct = per_class[np.arange(n), node_class] * (tree.kind == LEAF)
    correct_subtree += leaf_correct
    for node in np.argsort(-tree.depth, kind="stable"):
        up = parent[node]
        if up >= 0:
            per_class[up] += per_class[node]
            correct_subtree[up] += correct_subtree[node]
    correct_as_leaf = per_class[np.arange(n), node_class]
    reaching = per_class.sum(axis=1)

    alive = np.ones(n, dtype=bool)
    pruned = np.zeros(n, dtype=bool)
    order: list[Replacement] = []
    taking = True
    while True:
        candidates = np.flatnonzero(alive & (tree.kind != LEAF) & ~pruned)
        if len(candidates) == 0:
            break
        gain = correct_as_leaf[candidates] - correct_subtree[candidates]
        k = int(np.argmax(gain))
        taking = taking and gain[k] >= -_TIE
        node = int(candidates[k])
        order.append(
            Replacement(
                node,
                float(reaching[node] - correct_as_leaf[node]),
                float(reaching[node] - correct_subtree[node]),
                taking,
            )
        )
        pruned[node] = True
        alive[descendants(tree, node)] = False
        up = node
        while up >= 0:
            correct_subtree[up] += gain[k]
            up = parent[up]
    return order


def prune_reduced_error(tree: Tree, leaf_of_rows, y_val: np.ndarray, w_val: np.ndarray) -> Tree:
    """Reduced-error pruning of a classification tree (a new tree).

    ``leaf_of_rows`` gives, for the validation rows, the id of the leaf each one reaches;
    ``y_val`` are their class codes and ``w_val`` their weights. Ties between candidates go to
    the lowest node id; a replacement that leaves the accuracy unchanged is made (the smaller
    tree is preferred). The steps are those of :func:`reduced_error_order` that are taken.
    """
    pruned = np.zeros(tree.node_count, dtype=bool)
    for step in reduced_error_order(tree, leaf_of_rows, y_val, w_val):
        if not step.taken:
            break
        pruned[step.node] = True
    return collapse(tree, pruned)
