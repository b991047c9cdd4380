"""Many trees summed at once: a stack of trees packed for prediction, and the compiled
sums over it that the forests (the trees' average) and the boosters (their sum, scaled) share.

A :class:`~quercus.tree.stack.TreeStack` is packed once, at the first prediction, in one of
two layouts: the compact one (16-byte nodes, each split's two children neighbours) when
every split is a numeric threshold, else the general routing tables of the stack
(category splits, multiway splits). Each node carries a row of values: the leaf's class
probabilities or mean in a forest, its step in a booster's raw scores.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF, NUMERIC_SPLIT
from .._parallel import run_parallel
from ..tree._stack_predict import (
    LEAF_FLAG,
    MISSING_RIGHT,
    block_rows,
    compact_forest_sum,
    compact_tree_sum_rows,
    forest_sum,
    tree_sum_rows,
)
from ..tree.stack import TreeStack, concatenate, stack_trees


def pack_general(trees: TreeStack, tree_values) -> tuple:
    """``(roots, routes, children, cat_table, values)`` of the stacked ``trees``: their
    routing table and values over every node (the stack's indexes already point across
    the trees). ``tree_values(tree)`` gives a tree's ``(n_nodes, outputs)`` values; here,
    of the stack's merged nodes."""
    return (*trees.routing_tables(), tree_values(trees.merged))


COMPACT_DTYPE = np.dtype([("threshold", np.float64), ("feature", np.int32), ("left", np.int32)])


def pack_compact(trees: TreeStack, tree_values) -> tuple | None:
    """``(roots, nodes, values)`` in the compact layout (16-byte nodes, see ``_predict``), or
    None when a tree has a category split. Nodes are renumbered so that each split's two
    children are neighbours: the k-th split of a tree (in node order, parents first) has
    its children at 2k + 1 and 2k + 2 of its tree. ``tree_values``: as for
    :func:`pack_general`."""
    m = trees.merged
    if (m.kind > NUMERIC_SPLIT).any():
        return None
    roots = trees.node_offsets[:-1].astype(np.int32)
    inner = np.flatnonzero(m.kind != LEAF).astype(np.int32)  # a parent before its children
    tree = trees.tree_of(inner)
    per_tree = np.bincount(tree, minlength=len(trees))
    # The k-th split of the forest is the (k - splits of the trees before)-th of its tree.
    rank = np.arange(len(inner), dtype=np.int32) - (np.cumsum(per_tree) - per_tree)[tree]
    left = (1 + 2 * rank + roots[tree]).astype(np.int32)  # its first child's new number
    del tree, rank
    new_id = np.repeat(roots, trees.n_nodes)  # a root keeps its number
    new_id[m.children[m.child_start[inner]]] = left
    new_id[m.children[m.child_start[inner] + 1]] = left + 1
    nodes = np.empty(m.node_count, dtype=COMPACT_DTYPE)
    leaf = m.kind == LEAF
    nodes["threshold"][new_id] = np.where(leaf, np.inf, m.threshold)
    feature = np.where(leaf, LEAF_FLAG, m.feature).astype(np.int32)
    feature[inner] |= np.where(m.missing_child[inner] == 1, MISSING_RIGHT, 0).astype(np.int32)
    nodes["feature"][new_id] = feature
    del feature
    nodes["left"][new_id] = new_id  # a leaf leads to itself
    nodes["left"][new_id[inner]] = left
    del left, inner
    value = tree_values(m)
    out_values = np.empty_like(value)
    out_values[new_id] = value
    return trees.node_offsets[:-1].copy(), nodes, out_values


#: Trees grown by a forest's fit are stacked this many at a time (one Python object a
#: tree only while they are few).
STACK_BATCH = 256


def stack_in_batches(trees) -> TreeStack:
    """The stack of the trees that the iterable ``trees`` yields, stacked as they come."""
    stacks, batch = [], []
    for tree in trees:
        batch.append(tree)
        if len(batch) == STACK_BATCH:
            stacks.append(stack_trees(batch))
            batch = []
    if batch:
        stacks.append(stack_trees(batch))
    return concatenate(stacks)


def pack_trees(trees: TreeStack, tree_values) -> tuple:
    """The packed ``trees``: the compact layout (:func:`pack_compact`) when every split is a
    numeric threshold, else the general one (:func:`pack_general`). ``tree_values(tree)``
    gives the ``(n_nodes, outputs)`` values of a tree's nodes (here, the stack's merged
    nodes)."""
    return pack_compact(trees, tree_values) or pack_general(trees, tree_values)


class PackedCache:
    """Where a fitted forest or booster keeps its packed trees once prediction has packed them: an
    object of its own, filled in place, so that predicting leaves the estimator's
    attributes as they were (scikit-learn's convention)."""

    __slots__ = ("tables",)

    def __init__(self):
        self.tables = None


def sum_trees(packed: tuple, matrix, out, rows=None, tree=None, count=None) -> None:
    """Add the outputs of the packed trees (:func:`pack_trees`) for the rows of ``matrix``
    (raw values, routed as :func:`~quercus.estimators.validate.predict_matrix` makes them)
    to ``out``: every tree for every row, or (``rows``, ``tree``) one tree for some rows,
    counted in ``count``. Blocks of rows go to the threads of ``quercus`` (the sums do not
    depend on their number)."""
    roots, values = packed[0], packed[-1]
    compact = len(packed) == 3
    if rows is None:
        block = block_rows(len(matrix))
        work = len(matrix) * len(roots)  # every row goes down every tree
        if compact:
            run_parallel(
                compact_forest_sum, matrix, roots, packed[1], values, out, block, work=work
            )
        else:
            run_parallel(forest_sum, matrix, *packed[:4], values, out, block, work=work)
    elif compact:
        run_parallel(
            compact_tree_sum_rows,
            matrix,
            rows,
            roots[tree],
            packed[1],
            values,
            out,
            count,
            work=len(rows),
        )
    else:
        run_parallel(
            tree_sum_rows,
            matrix,
            rows,
            roots[tree],
            *packed[1:4],
            values,
            out,
            count,
            work=len(rows),
        )


__all__ = [
    "COMPACT_DTYPE",
    "PackedCache",
    "STACK_BATCH",
    "pack_compact",
    "pack_general",
    "pack_trees",
    "stack_in_batches",
    "sum_trees",
]
