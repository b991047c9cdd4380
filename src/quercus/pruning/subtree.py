"""A new tree from a fitted one: keep some nodes, turn some into leaves (never in place)."""

from __future__ import annotations

import numpy as np

from .._config import LEAF
from ..tree import Tree


def parents(tree: Tree) -> np.ndarray:
    """Parent of every node (-1 for the root); the tree's own cached array, not to be written."""
    return tree.parent


def descendants(tree: Tree, node: int) -> list[int]:
    """The nodes below ``node`` (not ``node`` itself)."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if tree.kind[current] != LEAF:
            first = tree.child_start[current]
            kids = tree.children[first : first + tree.n_children[current]].tolist()
            out.extend(kids)
            stack.extend(kids)
    return out


def kept_nodes(tree: Tree, make_leaf: np.ndarray) -> np.ndarray:
    """The nodes of ``tree`` that :func:`collapse` keeps, in order: node ``i`` of the
    collapsed tree is node ``kept_nodes(tree, make_leaf)[i]`` of ``tree``. int64 (n_kept,)."""
    make_leaf = np.asarray(make_leaf, dtype=bool)
    cut = make_leaf & (tree.kind != LEAF)
    keep = np.ones(tree.node_count, dtype=bool)
    if not cut.any():
        return np.flatnonzero(keep)
    # Level by level from the root: a node is dropped when its parent is cut or dropped.
    level = np.zeros(1, dtype=np.int64)
    while len(level):
        level = level[tree.kind[level] != LEAF]
        counts = tree.n_children[level]
        up = np.repeat(level, counts)
        slots = np.repeat(tree.child_start[level] - np.cumsum(counts) + counts, counts)
        level = tree.children[slots + np.arange(len(up))].astype(np.int64)
        keep[level] = keep[up] & ~cut[up]
    return np.flatnonzero(keep)


def collapse(tree: Tree, make_leaf: np.ndarray) -> Tree:
    """The tree with every node in ``make_leaf`` turned into a leaf and its subtree dropped.

    Nodes keep their relative order (so a preorder tree stays preorder); each new leaf keeps
    the statistics it had as an inner node. Category tables map categories to child indexes,
    which do not change, so they are kept as they are.
    """
    make_leaf = np.asarray(make_leaf, dtype=bool)
    old = kept_nodes(tree, make_leaf)
    keep = np.zeros(tree.node_count, dtype=bool)
    keep[old] = True
    new_id = np.cumsum(keep) - 1
    leaf = make_leaf[old] | (tree.kind[old] == LEAF)

    counts = np.where(leaf, 0, tree.n_children[old])
    child_start = np.cumsum(counts) - counts
    children = np.empty(int(counts.sum()), dtype=np.int32)
    for i in np.flatnonzero(~leaf):
        first = tree.child_start[old[i]]
        kids = tree.children[first : first + counts[i]]
        children[child_start[i] : child_start[i] + counts[i]] = new_id[kids]
    return Tree(
        kind=np.where(leaf, LEAF, tree.kind[old]).astype(np.int8),
        feature=np.where(leaf, -1, tree.feature[old]).astype(np.int32),
        threshold=np.where(leaf, np.nan, tree.threshold[old]),
        child_start=np.where(leaf, 0, child_start).astype(np.int32),
        n_children=counts.astype(np.int32),
        children=children,
        cat_start=np.where(leaf, -1, tree.cat_start[old]).astype(np.int32),
        cat_table=tree.cat_table.copy(),
        missing_child=np.where(leaf, -1, tree.missing_child[old]).astype(np.int32),
        value=tree.value[old].copy(),
        impurity=tree.impurity[old].copy(),
        n_node_samples=tree.n_node_samples[old].copy(),
        weighted_n_node_samples=tree.weighted_n_node_samples[old].copy(),
        depth=tree.depth[old].copy(),
        leaf_model=tree.leaf_model,
        leaf_params=None if tree.leaf_params is None else tree.leaf_params[old].copy(),
        oblique=_oblique_kept(tree, old, leaf),
        regression=tree.regression,
        fractional=tree.fractional,
    )


def _oblique_kept(tree: Tree, old: np.ndarray, leaf: np.ndarray) -> np.ndarray | None:
    """The weights of the oblique splits that stay splits (in node order, as kept)."""
    if tree.oblique is None:
        return None
    rows = tree.oblique_row[old[~leaf]]
    rows = rows[rows >= 0]
    return tree.oblique[rows].copy() if len(rows) else None


def training_errors(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """``(as_leaf, below)``: the training errors (weight not of the majority class) of each
    node as a leaf, and of the leaves under it (its own as a leaf for a leaf)."""
    as_leaf = np.where(
        tree.weighted_n_node_samples > 0, tree.value.sum(axis=1) - tree.value.max(axis=1), 0.0
    )
    below = as_leaf.copy()
    inner = np.flatnonzero(tree.kind != LEAF)
    for node in inner[np.argsort(-tree.depth[inner], kind="stable")]:  # children first
        first = tree.child_start[node]
        below[node] = below[tree.children[first : first + tree.n_children[node]]].sum()
    return as_leaf, below


def unhelpful_subtrees(tree: Tree, errors=None) -> np.ndarray:
    """Mask of the inner nodes whose leaves make as many training errors as the node would
    alone (within 1e-3): those :func:`collapse_unhelpful` turns into leaves. ``errors``:
    :func:`training_errors` of the tree, when known."""
    as_leaf, below = training_errors(tree) if errors is None else errors
    return (tree.kind != LEAF) & (below >= as_leaf - 1e-3)


def collapse_unhelpful(tree: Tree) -> Tree:
    """The tree as C4.5 keeps it before pruning (its ``.unpruned`` file, which C4.5rules
    reads): a subtree whose leaves make as many training errors as its root would alone
    (within 1e-3) is a leaf."""
    return collapse(tree, unhelpful_subtrees(tree))
