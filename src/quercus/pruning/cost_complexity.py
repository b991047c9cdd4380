"""CART's minimal cost-complexity (weakest-link) pruning.

The cost of a subtree ``T`` at complexity ``alpha`` is ``R(T) + alpha |leaves(T)|``, where
``R`` sums over the leaves their impurity weighted by their share of the training weight.
The weakest link is the inner node ``t`` of smallest effective alpha
``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; pruning it to a leaf costs the least impurity per
leaf removed. Pruning weakest links one after another gives the pruning path; ``ccp_alpha``
prunes while the weakest link's effective alpha is at most ``ccp_alpha`` (as scikit-learn).
The path is computed by a compiled kernel (``_cost_complexity.weakest_links``).
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF
from ..tree import Tree
from ._cost_complexity import (
    cumulative_sums,
    fractional_error_deltas,
    path_error_deltas,
    weakest_links,
)
from .subtree import collapse


def pruning_steps(tree: Tree, ccp_alpha: float = np.inf):
    """The weakest-link steps up to ``ccp_alpha``.

    Returns
    -------
    nodes : int64 (n_steps,)
        The node turned into a leaf at each step (ties: the lowest node id first).
    alphas : float64 (n_steps,)
        The effective alpha of each step.
    impurities : float64 (n_steps + 1,)
        Total leaf impurity of the whole tree, then after each step.
    """
    total = tree.weighted_n_node_samples[0]
    r_node = tree.impurity * tree.weighted_n_node_samples / total
    # Children are added to their parent deepest first, by id within a depth (the order in
    # which the sums are made decides their last bits).
    order = np.argsort(-tree.depth.astype(np.int64), kind="stable")
    return weakest_links(
        r_node,
        tree.kind == LEAF,
        tree.child_start,
        tree.n_children,
        tree.children,
        order,
        float(ccp_alpha),
    )


def _weakest_links(tree: Tree, ccp_alpha: float):
    """Prune weakest links up to ``ccp_alpha``: ``(alphas, impurities, pruned_mask)``.

    ``alphas[0] = 0`` and ``impurities[0]`` describe the whole tree; each further entry is
    one pruning step (ties: the lowest node id first).
    """
    nodes, alphas, impurities = pruning_steps(tree, ccp_alpha)
    pruned = np.zeros(tree.node_count, dtype=bool)
    pruned[nodes] = True
    return np.concatenate(([0.0], alphas)), impurities, pruned


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


def steps_at(alphas: np.ndarray, ccp_alphas: np.ndarray) -> np.ndarray:
    """How many steps of a path with effective ``alphas`` (n_steps,) ``prune_cost_complexity``
    takes at each of ``ccp_alphas`` (n,): the steps before the first one above it (none at
    an alpha <= 0). Returns int64 (n,)."""
    ccp_alphas = np.asarray(ccp_alphas, dtype=np.float64)
    highest = np.maximum.accumulate(alphas) if len(alphas) else alphas
    steps = np.searchsorted(highest, ccp_alphas, side="right").astype(np.int64)
    steps[np.isnan(ccp_alphas)] = len(alphas)  # no alpha is above NaN
    steps[ccp_alphas <= 0.0] = 0
    return steps


def held_out_errors(
    tree: Tree,
    matrix: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray,
    ccp_alphas: np.ndarray,
    class_codes: np.ndarray | None = None,
) -> np.ndarray:
    """Weighted mean error on held-out rows of ``tree`` pruned at each of ``ccp_alphas``.

    The same numbers as pruning the tree at every alpha and predicting the rows each time
    (up to the rounding of the sums), from one pass over the rows' paths.

    Parameters
    ----------
    tree : Tree
        The unpruned tree.
    matrix : float64 (n_rows, n_features)
        The held-out rows as the routing kernels read them.
    target : (n_rows,)
        Class codes (with ``class_codes``) or values.
    weight : float64 (n_rows,)
        Sample weights (positive).
    ccp_alphas : float64 (n_alphas,)
    class_codes : int (n_classes_of_tree,), optional
        For classification trees: the code, in ``target``'s coding, of each class column of
        ``tree.value``. The error is then the weight of the wrong predictions, else the
        weighted squared error.

    Returns
    -------
    float64 (n_alphas,)
    """
    nodes, alphas, _ = pruning_steps(tree)
    errors = errors_along_cuts(tree, nodes, matrix, target, weight, class_codes)
    return errors[steps_at(alphas, ccp_alphas)] / np.asarray(weight, dtype=np.float64).sum()


def errors_along_cuts(
    tree: Tree,
    nodes: np.ndarray,
    matrix: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray,
    class_codes: np.ndarray | None = None,
) -> np.ndarray:
    """The weighted error on rows of ``tree`` and of the trees that turning ``nodes`` into
    leaves, one after another, makes of it (their statistics kept, as
    :func:`~quercus.pruning.subtree.collapse` keeps them).

    One pass over the rows' paths (and, in a fractional tree, over the branches that rows
    with a missing value take) gives every tree's error; ``matrix``, ``target``, ``weight``
    and ``class_codes`` are as for :func:`held_out_errors`. ``nodes`` : int (n_steps,) inner
    nodes of ``tree``, none under an earlier one.

    Returns
    -------
    float64 (n_steps + 1,)
        The total weighted error (0/1 or squared) of ``tree``, then after each step.
    """
    nodes = np.asarray(nodes, dtype=np.int64)
    n_steps = len(nodes)
    step_of = np.where(tree.kind == LEAF, 0, n_steps + 1).astype(np.int64)
    step_of[nodes] = np.arange(1, n_steps + 1)
    squared = class_codes is None
    if squared:
        predicted = np.ascontiguousarray(tree.leaf_values()[:, 0], dtype=np.float64)
        codes = np.zeros(1)
    else:
        codes = np.asarray(class_codes, dtype=np.float64)
        predicted = codes[tree.node_class]
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    sums = np.zeros(n_steps + 2)
    carries = np.zeros(n_steps + 2)
    mixed = np.isnan(matrix).any(axis=1) if tree.fractional else np.zeros(len(matrix), bool)
    routes, children, cat_table, oblique = tree.route_tables()
    path_error_deltas(
        matrix,
        np.flatnonzero(~mixed),
        routes,
        children,
        cat_table,
        oblique,
        step_of,
        predicted,
        target,
        weight,
        squared,
        sums,
        carries,
    )
    if mixed.any():
        fractional_error_deltas(
            matrix,
            np.flatnonzero(mixed),
            routes,
            children,
            cat_table,
            tree.child_start,
            tree.n_children,
            tree.weighted_n_node_samples,
            np.ascontiguousarray(tree.leaf_values(), dtype=np.float64),
            step_of,
            codes,
            target,
            weight,
            squared,
            sums,
            carries,
        )
    return cumulative_sums(sums, carries)[: n_steps + 1]
