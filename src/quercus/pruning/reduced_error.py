"""Reduced-error pruning, the lectures' algorithm, on held-out validation cases.

Repeatedly replace by a leaf (predicting its training majority class) the inner node whose
replacement most increases the accuracy on the validation cases, as long as no replacement
would decrease it. Validation cases are routed as prediction routes them.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF
from ..tree import Tree
from .subtree import collapse, descendants, parents


def prune_reduced_error(tree: Tree, leaf_of_rows, y_val: np.ndarray, w_val: np.ndarray) -> Tree:
    """Reduced-error pruning of a classification tree (a new tree).

    ``leaf_of_rows`` gives, for the validation rows, the id of the leaf each one reaches;
    ``y_val`` are their class codes and ``w_val`` their weights. Ties between candidates go to
    the lowest node id; a replacement that leaves the accuracy unchanged is made (the smaller
    tree is preferred).
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

    alive = np.ones(n, dtype=bool)
    pruned = np.zeros(n, dtype=bool)
    while True:
        candidates = np.flatnonzero(alive & (tree.kind != LEAF) & ~pruned)
        if len(candidates) == 0:
            break
        gain = correct_as_leaf[candidates] - correct_subtree[candidates]
        k = int(np.argmax(gain))
        if gain[k] < -1e-12:
            break
        node = int(candidates[k])
        pruned[node] = True
        alive[descendants(tree, node)] = False
        up = node
        while up >= 0:
            correct_subtree[up] += gain[k]
            up = parent[up]
    return collapse(tree, pruned)
