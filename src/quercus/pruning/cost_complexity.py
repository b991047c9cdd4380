"""CART's minimal cost-complexity (weakest-link) pruning.

The cost of a subtree ``T`` at complexity ``alpha`` is ``R(T) + alpha |leaves(T)|``, where
``R`` sums over the leaves their impurity weighted by their share of the training weight.
The weakest link is the inner node ``t`` of smallest effective alpha
``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; pruning it to a leaf costs the least impurity per
leaf removed. Pruning weakest links one after another gives the pruning path; ``ccp_alpha``
prunes while the weakest link's effective alpha is at most ``ccp_alpha`` (as scikit-learn).
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF
from ..tree import Tree
from .subtree import collapse, descendants, parents


def _weakest_links(tree: Tree, ccp_alpha: float):
    """Prune weakest links up to ``ccp_alpha``: ``(alphas, impurities, pruned_mask)``.

    ``alphas[0] = 0`` and ``impurities[0]`` describe the whole tree; each further entry is
    one pruning step (ties: the lowest node id first).
    """
    n = tree.node_count
    total = tree.weighted_n_node_samples[0]
    r_node = tree.impurity * tree.weighted_n_node_samples / total
    is_leaf = tree.kind == LEAF
    parent = parents(tree)
    # Subtree impurity and leaf count, children before parents.
    r_sub = np.where(is_leaf, r_node, 0.0)
    leaves = is_leaf.astype(np.int64)
    for node in np.argsort(-tree.depth, kind="stable"):
        if parent[node] >= 0:
            r_sub[parent[node]] += r_sub[node]
            leaves[parent[node]] += leaves[node]
    alive = np.ones(n, dtype=bool)
    pruned = np.zeros(n, dtype=bool)
    alphas, impurities = [0.0], [r_sub[0]]
    while True:
        candidates = np.flatnonzero(alive & ~is_leaf & ~pruned)
        if len(candidates) == 0:
            break
        effective = (r_node[candidates] - r_sub[candidates]) / (leaves[candidates] - 1)
        k = int(np.argmin(effective))
        alpha, node = float(effective[k]), int(candidates[k])
        if alpha > ccp_alpha:
            break
        delta_r = r_node[node] - r_sub[node]
        delta_leaves = leaves[node] - 1
        pruned[node] = True
        alive[descendants(tree, node)] = False
        up = node
        while up >= 0:
            r_sub[up] += delta_r
            leaves[up] -= delta_leaves
            up = parent[up]
        alphas.append(alpha)
        impurities.append(r_sub[0])
    return np.asarray(alphas), np.asarray(impurities), pruned


def cost_complexity_path(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Effective alphas of the pruning path and the total leaf impurity after each step."""
    alphas, impurities, _ = _weakest_links(tree, np.inf)
    return alphas, impurities


def prune_cost_complexity(tree: Tree, ccp_alpha: float) -> Tree:
    """The subtree minimising ``R(T) + ccp_alpha |leaves(T)|`` (a new tree)."""
    if ccp_alpha <= 0.0:
        return tree
    _, _, pruned = _weakest_links(tree, ccp_alpha)
    return collapse(tree, pruned)
