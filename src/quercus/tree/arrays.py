"""The flat tree: one structure of parallel arrays for every algorithm.

Node 0 is the root. A node's children are ``children[child_start[i] : child_start[i] +
n_children[i]]``; binary nodes (numeric or ordinal thresholds, nominal subsets) have two
children, the first one taking ``x <= threshold`` (or the categories mapped to 0), multiway
nominal nodes have one child per category (category ``c`` takes child ``c``). A subset
split keeps a bitset of its categories at ``cat_table[cat_start[i]:]`` (a set bit sends a
category to the second child: ``splitting/category_sets.py``); other nodes have
``cat_start`` -1. A missing value goes to child
``missing_child[i]``; in a ``fractional`` tree (C4.5), prediction instead sends it down every
branch with the branch's share of the node's training weight, and ``missing_child`` (the
heaviest branch) only serves ``apply`` and ``decision_path``, which name one leaf per row.
``value[i]`` holds the node's training statistics: class weights for classification,
``[weight, sum w*y, sum w*y^2]`` for regression.

An oblique node (``OBLIQUE_SPLIT``) tests ``w . x <= threshold[i]`` over the numeric features,
``w`` its row of ``oblique`` (one row per oblique node, in node order; a weight per feature,
0 for those it does not use); its first child takes the rows that pass, and ``feature[i]``
is its feature of the largest standardised weight (the one its impurity decrease is
credited to). ``oblique`` is None for a tree without oblique nodes.
"""

from __future__ import annotations

import math
import mmap
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .._config import LEAF, MULTIWAY_SPLIT, NODE_KIND_NAMES, OBLIQUE_SPLIT
from ..splitting.category_sets import code_branches
from . import leaves


@dataclass
class Tree:
    """Parallel arrays describing a fitted tree (see the module docstring)."""

    kind: np.ndarray  # int8: LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT
    feature: np.ndarray  # int32, -1 for leaves
    threshold: np.ndarray  # float64, NaN unless a threshold split
    child_start: np.ndarray  # int32
    n_children: np.ndarray  # int32
    children: np.ndarray  # int32 child node ids
    cat_start: np.ndarray  # int32, -1 unless a nominal split
    cat_table: np.ndarray  # int32 child index per category
    missing_child: np.ndarray  # int32 child index, -1 for leaves
    value: np.ndarray  # float64 (n_nodes, n_stats)
    impurity: np.ndarray  # float64
    n_node_samples: np.ndarray  # int32 training rows reaching the node
    weighted_n_node_samples: np.ndarray  # float64
    depth: np.ndarray  # int32
    regression: bool = False
    fractional: bool = False
    leaf_model: str = ""  # what a leaf predicts (see tree/leaves.py); "" for the task's default
    leaf_params: np.ndarray | None = None  # float64 (n_nodes, k): the leaf model's parameters
    oblique: np.ndarray | None = None  # float64 (oblique nodes, n_features): their weights
    _routes: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.leaf_model:
            self.leaf_model = leaves.model_for(self.regression)
        leaves.check_model(self.leaf_model, self.regression)

    @property
    def routes(self) -> np.ndarray:
        """The packed routing table that prediction walks (``tree/_predict.pack_routes``),
        derived from the arrays at its first use and kept (32 bytes a node: the trees of a
        forest, which predicts from tables of its own, never make it)."""
        if self._routes is None:
            self._routes = self.packed_routes()
        return self._routes

    def packed_routes(self) -> np.ndarray:
        """The table of :attr:`routes` (the one kept, or made afresh without keeping it)."""
        if self._routes is not None:
            return self._routes
        from ._predict import pack_routes

        return pack_routes(self)

    @cached_property
    def oblique_row(self) -> np.ndarray:
        """Each node's row in ``oblique`` (-1 for a node that is not an oblique split)."""
        oblique = self.kind == OBLIQUE_SPLIT
        return np.where(oblique, np.cumsum(oblique) - 1, -1)

    def oblique_weights(self, node: int) -> np.ndarray:
        """The weights of the oblique split at ``node``, one per feature."""
        return self.oblique[self.oblique_row[node]]

    def category_branches(self, node: int, codes) -> np.ndarray:
        """The branch (int64) that each category code of ``codes`` takes at the nominal
        split ``node``."""
        multiway = self.kind[node] == MULTIWAY_SPLIT
        return code_branches(multiway, self.cat_table, int(self.cat_start[node]), codes)

    def route_tables(self) -> tuple:
        """The arguments the routing kernels (``tree/_predict.py``) take after the rows:
        the routes, the children, the category table and the oblique weights."""
        from ._predict import no_oblique

        oblique = no_oblique() if self.oblique is None else self.oblique
        return self.routes, self.children, self.cat_table, oblique

    @classmethod
    def from_grown(
        cls, grown, regression: bool, leaf_model: str = "", fractional: bool = False
    ) -> Tree:
        """The tree of the grower's arrays: :class:`NodeArrays`, kept as they are, or the
        compiled grower's :class:`~quercus.grow._records.GrownArrays`, converted."""
        leaf_model = leaf_model or leaves.model_for(regression)
        if not isinstance(grown, NodeArrays):
            grown = NodeArrays.of_grown(grown, leaf_model)
        return cls(
            **grown._asdict(), leaf_model=leaf_model, regression=regression, fractional=fractional
        )

    # -- sizes ---------------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        return len(self.kind)

    @property
    def n_leaves(self) -> int:
        return int((self.kind == LEAF).sum())

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    def preorder(self) -> np.ndarray:
        """The node ids in preorder (each node before its children, children in branch
        order): the order in which text exports print nodes and number leaves."""
        out, stack = [], [0]
        while stack:
            node = stack.pop()
            out.append(node)
            if self.kind[node] != LEAF:
                first = self.child_start[node]
                stack.extend(self.children[first : first + self.n_children[node]][::-1].tolist())
        return np.asarray(out, dtype=np.int64)

    @cached_property
    def leaf_number(self) -> np.ndarray:
        """Each leaf's number, 1, 2, ... in preorder (0 for inner nodes): the ``k`` of the
        ``LMk`` that names a model tree's leaf models."""
        order = self.preorder()
        leaves_in_order = order[self.kind[order] == LEAF]
        out = np.zeros(self.node_count, dtype=np.int64)
        out[leaves_in_order] = np.arange(1, len(leaves_in_order) + 1)
        return out

    def child(self, node: int, index: int) -> int:
        """Node id of child ``index`` of ``node``."""
        return int(self.children[self.child_start[node] + index])

    # -- binary view, as scikit-learn's tree_ ---------------------------------------------

    @cached_property
    def children_left(self) -> np.ndarray:
        """First child of each node (-1 for leaves)."""
        out = np.full(self.node_count, -1, dtype=np.int64)
        inner = self.kind != LEAF
        out[inner] = self.children[self.child_start[inner]]
        return out

    @cached_property
    def children_right(self) -> np.ndarray:
        """Second child of each binary node (-1 for leaves; for a multiway node, its second
        child)."""
        out = np.full(self.node_count, -1, dtype=np.int64)
        inner = self.kind != LEAF
        out[inner] = self.children[self.child_start[inner] + 1]
        return out

    @cached_property
    def parent(self) -> np.ndarray:
        """Parent of each node (-1 for the root)."""
        out = np.full(self.node_count, -1, dtype=np.int64)
        inner = np.flatnonzero(self.kind != LEAF)
        counts = self.n_children[inner]
        offsets = np.cumsum(counts) - counts
        slots = np.repeat(self.child_start[inner] - offsets, counts) + np.arange(counts.sum())
        out[self.children[slots]] = np.repeat(inner, counts)
        return out

    # -- derived quantities ---------------------------------------------------------------

    def leaf_values(self, keep: bool = True) -> np.ndarray:
        """Prediction of each node by its leaf model: class probabilities, or the mean
        (median) target, shape ``(n_nodes, outputs)``. Kept on the tree for the next call,
        unless ``keep`` is False and no call kept them yet (a forest copies its trees'
        values into one array of its own)."""
        if not keep and "_node_values" not in self.__dict__:
            return leaves.predictions(self.leaf_model, self.value, self.leaf_params)
        return self._node_values

    @cached_property
    def _node_values(self) -> np.ndarray:
        return leaves.predictions(self.leaf_model, self.value, self.leaf_params)

    @cached_property
    def node_class(self) -> np.ndarray:
        """Index of the most probable class at each node (the first on ties)."""
        return np.argmax(self.leaf_values(), axis=1)

    def impurity_decrease(self) -> np.ndarray:
        """Weighted impurity decrease of each node's split (0 for leaves)."""
        out = np.zeros(self.node_count)
        inner = np.flatnonzero(self.kind != LEAF)
        if len(inner) == 0:
            return out
        counts = self.n_children[inner]
        offsets = np.cumsum(counts) - counts
        # Child-list slots of every inner node, node after node.
        slots = np.repeat(self.child_start[inner] - offsets, counts) + np.arange(counts.sum())
        kids = self.children[slots]
        weighted = self.weighted_n_node_samples * self.impurity
        out[inner] = weighted[inner] - np.add.reduceat(weighted[kids], offsets)
        return out

    def feature_importances(self, n_features: int) -> np.ndarray:
        """Impurity-based importances, normalised to sum to 1 (all zero for a stump)."""
        decrease = self.impurity_decrease()
        inner = self.kind != LEAF
        importances = np.bincount(
            self.feature[inner], weights=np.maximum(decrease[inner], 0.0), minlength=n_features
        )
        total = importances.sum()
        return importances / total if total > 0 else importances

    def describe(self, node: int) -> str:
        """One-line description of a node, for debugging."""
        return (
            f"node {node}: {NODE_KIND_NAMES[self.kind[node]]}, feature {self.feature[node]}, "
            f"threshold {self.threshold[node]}, children {self.n_children[node]}, "
            f"samples {self.n_node_samples[node]}"
        )


#: The arrays of a :class:`Tree` with an entry (``value``, ``leaf_params``: a row) per node,
#: and their dtypes.
PER_NODE = {
    "kind": np.int8,
    "feature": np.int32,
    "threshold": np.float64,
    "child_start": np.int32,
    "n_children": np.int32,
    "cat_start": np.int32,
    "missing_child": np.int32,
    "value": np.float64,
    "impurity": np.float64,
    "n_node_samples": np.int32,
    "weighted_n_node_samples": np.float64,
    "depth": np.int32,
    "leaf_params": np.float64,
}

#: The arrays of :class:`NodeArrays` copied from a field of the grower's node records:
#: ``(array, record field, its value at a leaf)``; None keeps the record's value.
_FROM_RECORDS = (
    ("feature", "feature", -1),
    ("threshold", "threshold", np.nan),
    ("child_start", "child_start", 0),
    ("n_children", "n_children", 0),
    ("cat_start", "cat_start", -1),
    ("missing_child", "missing_child", -1),
    ("impurity", "impurity", None),
    ("n_node_samples", "n_samples", None),
    ("weighted_n_node_samples", "weight", None),
    ("depth", "depth", None),
)


class NodeArrays(NamedTuple):
    """A grown tree as the arrays of :class:`Tree`, in its dtypes and with its values at
    the leaves (``feature`` -1, ``threshold`` NaN, ...): :meth:`Tree.from_grown` keeps them
    as they are. ``leaf_params`` is None for a leaf model without parameters."""

    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    children: np.ndarray
    cat_start: np.ndarray
    cat_table: np.ndarray
    missing_child: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    depth: np.ndarray
    leaf_params: np.ndarray | None
    oblique: np.ndarray | None = None

    @classmethod
    def empty(
        cls,
        n_nodes: int,
        n_slots: int,
        n_cats: int,
        n_stats: int,
        n_params: int,
        own_pages: bool = False,
    ) -> NodeArrays:
        """Arrays, not initialised, for ``n_nodes`` nodes, ``n_slots`` children and
        ``n_cats`` category-table entries. With ``own_pages`` they lie in memory mapped for
        them alone, which goes back to the system as soon as they are dropped: freed
        arrays of a thread stay in its allocator's arena, counted in the process's
        memory, and a tree grown on threads holds its pieces while it lays them out."""
        shapes = dict.fromkeys(PER_NODE, (n_nodes,))
        shapes.update(
            value=(n_nodes, n_stats),
            leaf_params=(n_nodes, n_params),
            children=(n_slots,),
            cat_table=(n_cats,),
        )
        dtypes = {**PER_NODE, "children": np.int32, "cat_table": np.int32}
        names = [
            name
            for name in cls._fields
            if name != "oblique" and (name != "leaf_params" or n_params > 0)
        ]
        arrays = _allocate([(shapes[name], dtypes[name]) for name in names], own_pages)
        return cls(**{"leaf_params": None, **dict(zip(names, arrays, strict=True))})

    @classmethod
    def of_grown(cls, grown, leaf_model: str, own_pages: bool = False) -> NodeArrays:
        """The arrays of the compiled grower's :class:`~quercus.grow._records.GrownArrays`
        (its node records, cut to size or not), each filled in turn (no temporary the
        size of the tree but the mask of the leaves)."""
        nodes = grown.nodes
        out = cls.empty(
            len(nodes),
            len(grown.children),
            len(grown.cat_table),
            grown.values.shape[1],
            leaves.n_params(leaf_model),
            own_pages,
        )
        out.kind[:] = nodes["kind"]
        leaf = out.kind == LEAF
        for name, record_field, at_leaf in _FROM_RECORDS:
            array = getattr(out, name)
            array[:] = nodes[record_field]
            if at_leaf is not None:
                np.copyto(array, at_leaf, where=leaf)
        out.children[:] = grown.children
        out.cat_table[:] = grown.cat_table
        out.value[:] = grown.values
        leaves.params_from_grown(leaf_model, nodes, out.leaf_params)
        oblique = getattr(grown, "oblique", None)
        return out if oblique is None else out._replace(oblique=oblique.copy())


def _allocate(specs: list, own_pages: bool) -> list[np.ndarray]:
    """Empty arrays of the ``(shape, dtype)`` of ``specs``: NumPy's, or with ``own_pages``
    views of one anonymous memory map (each on an 8-byte boundary), unmapped when the last
    of them is dropped."""
    if not own_pages:
        return [np.empty(shape, dtype) for shape, dtype in specs]
    sizes = [math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in specs]
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + -(-size // 8) * 8)
    if hasattr(mmap, "MAP_PRIVATE"):  # POSIX: private pages (the default is shared ones)
        pages = mmap.mmap(-1, max(starts[-1], 1), flags=mmap.MAP_PRIVATE)
    else:  # Windows: anonymous memory is private to the process
        pages = mmap.mmap(-1, max(starts[-1], 1))
    buffer = np.frombuffer(pages, dtype=np.uint8)
    return [
        buffer[start : start + size].view(dtype).reshape(shape)
        for (shape, dtype), start, size in zip(specs, starts[:-1], sizes, strict=True)
    ]
