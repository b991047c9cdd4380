"""The flat tree: one structure of parallel arrays for every algorithm.

Node 0 is the root. A node's children are ``children[child_start[i] : child_start[i] +
n_children[i]]``; binary nodes (numeric or ordinal thresholds, nominal subsets) have two
children, the first one taking ``x <= threshold`` (or the categories mapped to 0), multiway
nominal nodes have one child per category. For a nominal node, ``cat_table[cat_start[i] +
code]`` is the child index of category ``code``. A missing value goes to child
``missing_child[i]``; in a ``fractional`` tree (C4.5), prediction instead sends it down every
branch with the branch's share of the node's training weight, and ``missing_child`` (the
heaviest branch) only serves ``apply`` and ``decision_path``, which name one leaf per row.
``value[i]`` holds the node's training statistics: class weights for classification,
``[weight, sum w*y, sum w*y^2]`` for regression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._config import LEAF, NODE_KIND_NAMES
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

    @classmethod
    def from_grown(
        cls, grown, regression: bool, leaf_model: str = "", fractional: bool = False
    ) -> Tree:
        """The tree of the grower's arrays (:class:`~quercus.tree._records.GrownArrays`)."""
        nodes = grown.nodes
        is_leaf = nodes["kind"] == LEAF
        return cls(
            kind=nodes["kind"].astype(np.int8),
            feature=np.where(is_leaf, -1, nodes["feature"]).astype(np.int32),
            threshold=np.where(is_leaf, np.nan, nodes["threshold"]),
            child_start=np.where(is_leaf, 0, nodes["child_start"]).astype(np.int32),
            n_children=np.where(is_leaf, 0, nodes["n_children"]).astype(np.int32),
            children=grown.children.astype(np.int32),
            cat_start=np.where(is_leaf, -1, nodes["cat_start"]).astype(np.int32),
            cat_table=grown.cat_table.astype(np.int32),
            missing_child=np.where(is_leaf, -1, nodes["missing_child"]).astype(np.int32),
            value=grown.values,
            impurity=nodes["impurity"].copy(),
            n_node_samples=nodes["n_samples"].astype(np.int32),
            weighted_n_node_samples=nodes["weight"].copy(),
            depth=nodes["depth"].astype(np.int32),
            leaf_model=leaf_model,
            leaf_params=leaves.params_from_grown(leaf_model, nodes),
            regression=regression,
            fractional=fractional,
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
