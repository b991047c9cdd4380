"""Checking a file's tree arrays: what prediction relies on, before a tree is built.

A model file holds one tree, a forest file many laid end to end (``tree/stack.py``;
:class:`TreeBounds` says where each starts). :func:`check_tree` checks either, vectorised
over millions of nodes, and raises :class:`~quercus.persist.errors.ModelError` naming the
node (and its tree). :func:`check_statistics_finite` is the check made before writing: a
statistic that is not finite would make a file that loading refuses.

Nothing here reads JSON or archives: the model and forest readers parse the arrays, then
hand them here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, OBLIQUE_SPLIT, SUBSET_SPLIT
from ..data.schema import NOMINAL_KIND, Schema
from ..splitting.category_sets import BITSET, WORD_BITS
from ..tree import Tree
from .errors import ModelError
from .tables import BITSETS, FULL_TABLES, HEADED


class TreeBounds(NamedTuple):
    """Where each tree of stacked arrays starts (``tree/stack.py``): its first node, child
    slot and category word, and one past the last tree's (int64 arrays of n_trees + 1)."""

    node_offsets: np.ndarray
    child_offsets: np.ndarray
    cat_offsets: np.ndarray

    @classmethod
    def of_one_tree(cls, a: dict) -> TreeBounds:
        return cls(
            np.array([0, len(a["kind"])], dtype=np.int64),
            np.array([0, len(a["children"])], dtype=np.int64),
            np.array([0, len(a["cat_table"])], dtype=np.int64),
        )


def check_tree(
    a: dict,
    value: np.ndarray,
    schema: Schema,
    regression: bool,
    tables: str = HEADED,
    bounds: TreeBounds | None = None,
) -> None:
    """Every node reachable once from the root, children after their parent, depths that
    count the steps from the root, splits that fit their features, every child slot used
    once, statistics that are weights: what prediction relies on to end and to index within
    bounds (the routing kernels do not check bounds). Vectorised: a forest's trees have
    millions of nodes. ``tables``: how the category tables are kept (:data:`HEADED`, or
    the :data:`BITSETS` of version 4, the :data:`FULL_TABLES` of version 3 and older).
    ``bounds``: the arrays are many trees laid end to end, their indexes pointing across
    them (``tree/stack.py``); each tree's nodes, slots and words must then lie within its
    own bounds."""
    one_tree = bounds is None
    bounds = TreeBounds.of_one_tree(a) if one_tree else bounds
    try:
        _check_nodes(a, value, schema, regression, tables, bounds)
    except _NodeError as exc:
        if one_tree:
            raise ModelError(exc.message.format(node=f"node {exc.node}")) from None
        tree, node = _node_name(exc.node, bounds).split(", ")
        raise ModelError(f"{tree}: " + exc.message.format(node=node)) from None


def check_statistics_finite(tree: Tree, bounds: TreeBounds | None = None) -> None:
    """A ValueError naming the node when a statistic of ``tree`` that a model file must
    hold finite (class weights or regression sums, node weights, leaf models) is NaN or
    infinite: it would be saved as a model that loading refuses, or not at all.
    ``bounds``: ``tree`` holds stacked trees (``tree/stack.py``), named by tree and node."""
    arrays = {"value": tree.value, "weighted_n_node_samples": tree.weighted_n_node_samples}
    if tree.leaf_params is not None:
        arrays["leaf_params"] = tree.leaf_params
    for name, array in arrays.items():
        bad = ~np.isfinite(np.asarray(array, dtype=np.float64))
        if bad.any():
            node = int(np.flatnonzero(bad.reshape(len(bad), -1).any(axis=1))[0])
            raise ValueError(
                f"{_node_name(node, bounds)}'s {name} is not finite: the model is not saved "
                "(the fit met numbers too large to sum)"
            )


def _node_name(node: int, bounds: TreeBounds | None) -> str:
    """``node N``, or in stacked trees ``tree T, node N`` (N numbered within tree T)."""
    if bounds is None:
        return f"node {node}"
    t = int(np.searchsorted(bounds.node_offsets, node, side="right")) - 1
    return f"tree {t}, node {node - int(bounds.node_offsets[t])}"


class _NodeError(Exception):
    """A check failed at a node: the message says ``{node}`` where the node is named
    (``node 4``; in stacked trees ``node 4`` of its tree, after ``tree 2: ``)."""

    def __init__(self, node, message: str):
        super().__init__(message)
        self.node, self.message = int(node), message


def _check_statistics(a: dict, value: np.ndarray, regression: bool) -> None:
    """Weights and counts that are finite and not negative (a class weight below zero
    would make probabilities that are not probabilities)."""
    if not (np.isfinite(value).all() and np.isfinite(a["weighted_n_node_samples"]).all()):
        raise ModelError("the node statistics (value, weights) must be finite")
    weights = value[:, [0, 2]] if regression else value
    if (weights < 0).any() or (a["weighted_n_node_samples"] < 0).any():
        raise ModelError("a node has a negative weight or class count")
    if (a["n_node_samples"] < 0).any():
        raise ModelError("a node has a negative number of samples")
    if (a["impurity"] < 0).any():
        raise ModelError("a node has a negative impurity")
    # Prediction divides a node's class weights by their sum, a regression node's sum of
    # targets by its weight: finite values whose sum or mean is not finite (1e308 twice, a
    # weight of 5e-324) would give inf or NaN, with NumPy's overflow warning.
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if regression:
            weight = value[:, 0]
            scale = value[:, 1] / np.where(weight > 0, weight, 1.0)
        else:
            scale = value.sum(axis=1)
    bad = ~np.isfinite(scale)
    if bad.any():
        what = "mean target (value[1] / value[0])" if regression else "sum of class weights"
        raise _NodeError(
            np.flatnonzero(bad)[0], f"value of {{node}}: its {what} is beyond the range of float64"
        )


def _check_nodes(a, value, schema, regression: bool, tables: str, bounds: TreeBounds):
    n = len(a["kind"])
    kind = a["kind"]
    if not np.isin(kind, (LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT, OBLIQUE_SPLIT)).all():
        raise ModelError("a node has an unknown kind")
    _check_statistics(a, value, regression)
    leaves = kind == LEAF
    # Routing takes a node whose feature is -1 for a leaf, and export walks n_children.
    if (a["feature"][leaves] != -1).any() or (a["n_children"][leaves] != 0).any():
        raise ModelError("a leaf has a feature or children")
    roots = bounds.node_offsets[:-1]
    if (np.diff(bounds.node_offsets) <= 0).any() or bounds.node_offsets[-1] != n:
        raise ModelError("the trees' nodes do not cut the arrays into trees of one node or more")
    bad = a["depth"][roots] != 0
    if bad.any():
        raise _NodeError(roots[np.flatnonzero(bad)[0]], "the root ({node}) is not at depth 0")
    tree_of_node = np.repeat(np.arange(len(roots), dtype=np.int32), np.diff(bounds.node_offsets))

    def first_bad(mask, nodes) -> int:
        return int(nodes[np.flatnonzero(mask)[0]])

    nodes = np.flatnonzero(~leaves)
    tree = tree_of_node[nodes]
    f = a["feature"][nodes].astype(np.int64)
    first = a["child_start"][nodes].astype(np.int64)
    count = a["n_children"][nodes].astype(np.int64)
    children = a["children"]
    cat_table = np.asarray(a["cat_table"], dtype=np.int64)
    bad = (f < 0) | (f >= len(schema.features))
    if bad.any():
        node = first_bad(bad, nodes)
        raise _NodeError(node, f"{{node}} tests feature {a['feature'][node]}, which does not exist")
    slots = bounds.child_offsets
    bad = (count < 2) | (first < slots[tree]) | (first + count > slots[tree + 1])
    if bad.any():
        raise _NodeError(first_bad(bad, nodes), "{node} has children out of range")
    if count.sum() != len(children):
        # With one parent per node (below), the splits then use every slot exactly once.
        raise ModelError(
            f"children has {len(children)} entries, but the splits have {count.sum()} children"
        )
    offsets = np.cumsum(count) - count
    kids = children[np.repeat(first - offsets, count) + np.arange(count.sum())]
    parents = np.repeat(nodes.astype(np.int32), count)
    ends = np.repeat(bounds.node_offsets[1:][tree], count)  # each parent's tree's end
    bad = (kids <= parents) | (kids >= ends)
    del ends
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} has a child that is not a later node")
    # decision_path sizes its output by the largest depth.
    bad = a["depth"][kids] != a["depth"][parents] + 1
    if bad.any():
        node = int(parents[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} has a child whose depth is not one more than its own")
    del parents
    missing = a["missing_child"][nodes]
    bad = (missing < 0) | (missing >= count)
    if bad.any():
        raise _NodeError(first_bad(bad, nodes), "{node} sends missing values to no branch")
    nominal_feature = np.array([ft.kind == NOMINAL_KIND for ft in schema.features], dtype=bool)
    n_categories = np.array([ft.n_categories for ft in schema.features], dtype=np.int64)
    numeric = np.isin(kind[nodes], (NUMERIC_SPLIT, OBLIQUE_SPLIT))
    bad = numeric & ((count != 2) | ~np.isfinite(a["threshold"][nodes]) | nominal_feature[f])
    if bad.any():
        node = first_bad(bad, nodes)
        name = schema.features[a["feature"][node]].name
        raise _NodeError(node, f"{{node}} is a threshold split that does not fit {name!r}")
    categories = _CategorySplits(
        nodes[~numeric],
        f[~numeric],
        count[~numeric],
        kind[nodes[~numeric]] == MULTIWAY_SPLIT,
        bounds.cat_offsets[tree[~numeric]],
        bounds.cat_offsets[tree[~numeric] + 1],
    )
    bad = ~nominal_feature[categories.feature]
    if bad.any():
        node = first_bad(bad, categories.nodes)
        name = schema.features[a["feature"][node]].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r}, which is not nominal")
    check_categories = {
        FULL_TABLES: _check_full_tables,
        BITSETS: _check_bitsets,
        HEADED: _check_headed_tables,
    }[tables]
    check_categories(categories, a["cat_start"], cat_table, n_categories, schema)
    parents = np.bincount(kids, minlength=n)
    parents[roots] += 1  # a root has none: counted as one, as every other node must have
    if (parents != 1).any():
        raise ModelError("the nodes do not form " + ("one tree" if len(roots) == 1 else "trees"))


class _CategorySplits(NamedTuple):
    """The nominal splits of a tree being checked: their nodes, features, numbers of
    children and whether each is multiway, and the category words of their tree (from
    ``lo`` to before ``hi``)."""

    nodes: np.ndarray
    feature: np.ndarray
    count: np.ndarray
    multiway: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def _check_bitsets(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """A multiway split has a child per category of its feature (category ``c`` takes
    child ``c``) and no table; a subset split two children and its bitset within its
    tree's words of ``cat_table``."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    words = -(-size // WORD_BITS)
    bad = np.where(
        splits.multiway,
        (splits.count != size) | (start != -1),
        (splits.count != 2) | (start < splits.lo) | (start + words > splits.hi),
    )
    if bad.any():
        node = int(splits.nodes[np.flatnonzero(bad)[0]])
        name = schema.features[int(splits.feature[np.flatnonzero(bad)[0]])].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")


def _check_headed_tables(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """A multiway split has a child per category of its feature and no table; a subset
    split two children and its table within its tree's words of ``cat_table``: a header
    of -1 and a bitset, or a header ``2 m + side`` and ``m`` codes of its feature, in
    increasing order (the binary search of routing relies on it)."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    subset = ~splits.multiway

    def refuse(bad):
        at = np.flatnonzero(bad)[0]
        name = schema.features[int(splits.feature[at])].name
        node = int(splits.nodes[at])
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")

    bad = np.where(subset, splits.count != 2, (splits.count != size) | (start != -1))
    bad |= subset & ((start < splits.lo) | (start >= splits.hi))
    if bad.any():
        refuse(bad)
    header = np.full(len(start), BITSET, dtype=np.int64)
    header[subset] = cat_table[start[subset]]  # within the table: checked above
    listed = np.where(subset & (header >= 0), header >> 1, 0)
    words = np.where(header == BITSET, -(-size // WORD_BITS), listed)
    bad = subset & ((header < BITSET) | (listed > size) | (start + 1 + words > splits.hi))
    if bad.any():
        refuse(bad)
    first = np.cumsum(listed) - listed
    within = np.arange(listed.sum()) - np.repeat(first, listed)
    codes = cat_table[np.repeat(start + 1, listed) + within]
    bad = (codes < 0) | (codes >= np.repeat(size, listed))
    bad[1:] |= (within[1:] > 0) & (codes[1:] <= codes[:-1])
    if bad.any():
        node = int(np.repeat(splits.nodes, listed)[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} lists categories out of range or out of order")


def _check_full_tables(
    splits: _CategorySplits, cat_start, cat_table, n_categories, schema: Schema
) -> None:
    """Format version 3 and older: each nominal split's table gives every category of its
    feature a branch; a multiway split's gives category ``c`` branch ``c`` (as every
    quercus wrote it: what the bitsets it is converted to can say)."""
    size = n_categories[splits.feature]
    start = cat_start[splits.nodes].astype(np.int64)
    bad = (start < splits.lo) | (start + size > splits.hi)
    bad |= np.where(splits.multiway, splits.count != size, splits.count != 2)
    if bad.any():
        node = int(splits.nodes[np.flatnonzero(bad)[0]])
        name = schema.features[int(splits.feature[np.flatnonzero(bad)[0]])].name
        raise _NodeError(node, f"{{node}}: a category split on {name!r} out of range")
    offsets = np.cumsum(size) - size
    entries = cat_table[np.repeat(start - offsets, size) + np.arange(size.sum())]
    code = np.arange(size.sum()) - np.repeat(offsets, size)
    bad = (entries < 0) | (entries >= np.repeat(splits.count, size))
    bad |= np.repeat(splits.multiway, size) & (entries != code)
    if bad.any():
        node = int(np.repeat(splits.nodes, size)[np.flatnonzero(bad)[0]])
        raise _NodeError(node, "{node} maps a category to no branch, or not to its own")
