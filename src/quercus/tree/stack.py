"""Many trees laid end to end: how an ensemble keeps its trees.

A :class:`~quercus.tree.Tree` is some twenty arrays and a Python object: kilobytes, whatever
its size. A forest of a million one-node trees held that way takes gigabytes and minutes to
build. A :class:`TreeStack` holds every tree's nodes in one set of arrays instead, in the
shape of one :class:`~quercus.tree.Tree` with many roots (``merged``): tree ``t`` owns nodes
``node_offsets[t]:node_offsets[t + 1]``, child slots ``child_offsets[t]:...`` and category
words ``cat_offsets[t]:...``, and its indexes point into the whole stack (a child is a node
number of the stack, ``child_start`` a slot of the stack, ``cat_start`` a word of the
stack). So what a forest computes over all its nodes (routing tables, leaf values, impurity
decreases) is one vectorised call on ``merged``, and a single tree is a view made when asked
for (:meth:`TreeStack.tree`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import LEAF
from .arrays import PER_NODE, Tree


@dataclass(frozen=True)
class TreeStack:
    """The trees of an ensemble laid end to end (see the module docstring)."""

    merged: Tree
    node_offsets: np.ndarray  # int64 (n_trees + 1,)
    child_offsets: np.ndarray  # int64 (n_trees + 1,)
    cat_offsets: np.ndarray  # int64 (n_trees + 1,)

    def __len__(self) -> int:
        return len(self.node_offsets) - 1

    @property
    def n_nodes(self) -> np.ndarray:
        """Each tree's number of nodes."""
        return np.diff(self.node_offsets)

    def tree_of(self, nodes: np.ndarray) -> np.ndarray:
        """The tree (int32) that each node of ``nodes`` (increasing numbers of ``merged``)
        belongs to."""
        return (np.searchsorted(self.node_offsets, nodes, side="right") - 1).astype(np.int32)

    def tree(self, t: int) -> Tree:
        """Tree ``t`` as a :class:`~quercus.tree.Tree` of its own indexes (its value arrays
        are views of the stack's; its index arrays new)."""
        if not -len(self) <= t < len(self):
            raise IndexError(f"tree {t} of a stack of {len(self)}")
        t %= len(self)
        m = self.merged
        lo, hi = int(self.node_offsets[t]), int(self.node_offsets[t + 1])
        c_lo, c_hi = int(self.child_offsets[t]), int(self.child_offsets[t + 1])
        k_lo, k_hi = int(self.cat_offsets[t]), int(self.cat_offsets[t + 1])
        part = {name: _part(getattr(m, name), lo, hi) for name in PER_NODE}
        part["child_start"] = _shifted(part["child_start"], part["kind"] != LEAF, -c_lo)
        part["cat_start"] = _shifted(part["cat_start"], part["cat_start"] >= 0, -k_lo)
        part["children"] = (m.children[c_lo:c_hi] - lo).astype(np.int32)
        part["cat_table"] = m.cat_table[k_lo:k_hi]
        return Tree(
            **part,
            regression=m.regression,
            fractional=m.fractional,
            leaf_model=m.leaf_model,
        )

    def __iter__(self):
        return (self.tree(t) for t in range(len(self)))

    # -- each tree's own indexes (as files keep them) -------------------------------------

    def local_indexes(self) -> dict:
        """``child_start``, ``cat_start`` and ``children`` as each tree numbers its own
        slots, words and nodes (what :func:`make_global` takes back)."""
        m = self.merged
        return {
            "child_start": _shifted(
                m.child_start, m.kind != LEAF, -self._per_node(self.child_offsets)
            ),
            "cat_start": _shifted(m.cat_start, m.cat_start >= 0, -self._per_node(self.cat_offsets)),
            "children": (m.children - self._per_slot(self.node_offsets)).astype(np.int32),
        }

    def _per_node(self, offsets: np.ndarray) -> np.ndarray:
        return np.repeat(offsets[:-1], self.n_nodes)

    def _per_slot(self, offsets: np.ndarray) -> np.ndarray:
        return np.repeat(offsets[:-1], np.diff(self.child_offsets))

    # -- per-tree sizes and importances, vectorised ---------------------------------------

    def routing_tables(self) -> tuple:
        """``(roots, routes, children, cat_table)``: each tree's root and the routing tables
        of every node, as the forest kernels walk them (the stack's indexes already point
        across the trees)."""
        merged = self.merged
        roots = self.node_offsets[:-1].copy()
        return roots, merged.packed_routes(), merged.children, merged.cat_table

    def depths(self) -> np.ndarray:
        """Each tree's depth (its deepest node's)."""
        return np.maximum.reduceat(self.merged.depth, self.node_offsets[:-1])

    def n_leaves(self) -> np.ndarray:
        """Each tree's number of leaves."""
        leaf = (self.merged.kind == LEAF).astype(np.int64)
        return np.add.reduceat(leaf, self.node_offsets[:-1])

    def mean_feature_importances(self, n_features: int) -> np.ndarray:
        """The trees' normalised impurity importances (each tree's as
        :meth:`~quercus.tree.Tree.feature_importances`), averaged over the trees."""
        m = self.merged
        inner = np.flatnonzero(m.kind != LEAF)
        gain = np.maximum(m.impurity_decrease()[inner], 0.0)
        tree = self.tree_of(inner)
        total = np.bincount(tree, weights=gain, minlength=len(self))[tree]
        share = np.divide(gain, total, out=np.zeros_like(gain), where=total > 0)
        summed = np.bincount(m.feature[inner], weights=share, minlength=n_features)
        return summed / len(self)


def _part(array, lo: int, hi: int):
    return None if array is None else array[lo:hi]


def _shifted(index: np.ndarray, where: np.ndarray, by, dtype=np.int32) -> np.ndarray:
    """``index`` with ``by`` (a number, or one per entry) added where ``where`` holds (a
    new array of ``dtype``)."""
    out = index.astype(np.int64)
    np.add(out, by, out=out, where=where)
    return out if out.dtype == dtype else out.astype(dtype)


def make_global(kind: np.ndarray, arrays: dict, offsets: tuple) -> None:
    """:meth:`TreeStack.local_indexes` turned back, in place: the int32 ``child_start``,
    ``cat_start`` and ``children`` of ``arrays``, as each tree numbers its slots, words and
    nodes, made to point across the stack of ``offsets`` (node, child and category
    offsets). Each index must lie within its own tree's (the caller checks: then no sum
    passes the stack's size)."""
    node_offsets, child_offsets, cat_offsets = (o.astype(np.int32) for o in offsets)
    tree = np.repeat(np.arange(len(node_offsets) - 1, dtype=np.int32), np.diff(node_offsets))
    start = arrays["child_start"]
    np.add(start, child_offsets[:-1][tree], out=start, where=kind != LEAF)
    start = arrays["cat_start"]
    np.add(start, cat_offsets[:-1][tree], out=start, where=start >= 0)
    del tree
    children = arrays["children"]
    children += np.repeat(node_offsets[:-1], np.diff(child_offsets))


def stack_of_tree(tree: Tree) -> TreeStack:
    """A stack of the one tree ``tree`` (its arrays, not copied)."""
    if tree.oblique is not None:
        raise ValueError("trees with oblique splits cannot be stacked")
    return TreeStack(
        tree,
        np.array([0, tree.node_count], dtype=np.int64),
        np.array([0, len(tree.children)], dtype=np.int64),
        np.array([0, len(tree.cat_table)], dtype=np.int64),
    )


def stack_trees(trees: list[Tree]) -> TreeStack:
    """The stack of ``trees`` (at least one), in order."""
    return concatenate([stack_of_tree(t) for t in trees])


def concatenate(stacks: list[TreeStack]) -> TreeStack:
    """One stack of the trees of ``stacks`` (at least one), in order: each stack's indexes
    shifted by the nodes, slots and words of those before it. The trees must share their
    task, leaf model and routing of missing values."""
    if not stacks:
        raise ValueError("no trees to stack")
    first = stacks[0].merged
    for s in stacks[1:]:
        m = s.merged
        if (m.regression, m.fractional, m.leaf_model) != (
            first.regression,
            first.fractional,
            first.leaf_model,
        ):
            raise ValueError("the trees to stack differ in task, leaf model or missing values")
    if len(stacks) == 1:
        return stacks[0]
    sizes = {
        "node": np.array([s.node_offsets[-1] for s in stacks], dtype=np.int64),
        "child": np.array([s.child_offsets[-1] for s in stacks], dtype=np.int64),
        "cat": np.array([s.cat_offsets[-1] for s in stacks], dtype=np.int64),
    }
    if max(int(size.sum()) for size in sizes.values()) >= 2**31:
        raise ValueError("the trees have 2**31 nodes, children or category words or more")
    totals = {key: np.cumsum(size) - size for key, size in sizes.items()}
    arrays = {}
    for name in (*PER_NODE, "children", "cat_table"):
        parts = [getattr(s.merged, name) for s in stacks]
        arrays[name] = None if parts[0] is None else np.concatenate(parts)
    # Each stack's indexes are its own: they move by the nodes, slots and words before it.
    bounds = tuple(np.append(totals[key], size.sum()) for key, size in sizes.items())
    make_global(arrays["kind"], arrays, bounds)

    def offsets(key: str, total: str) -> np.ndarray:
        parts = [getattr(s, key)[1:] + by for s, by in zip(stacks, totals[total], strict=True)]
        return np.concatenate([[0], *parts]).astype(np.int64)

    merged = Tree(
        **arrays,
        regression=first.regression,
        fractional=first.fractional,
        leaf_model=first.leaf_model,
    )
    return TreeStack(
        merged,
        offsets("node_offsets", "node"),
        offsets("child_offsets", "child"),
        offsets("cat_offsets", "cat"),
    )
