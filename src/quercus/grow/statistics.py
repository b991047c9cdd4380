"""Statistics providers: where the level-wise grower gets its sums over the training rows.

The grower (``grow/levelwise.py``) never touches a row. It asks a provider for sums over
the rows of each node it grows: the root's totals, the per-(feature, bin) histograms of the
nodes it is about to split, and for a chosen split the branches' weights and the children's
totals. Every sum is one that adds up over disjoint sets of rows, so a provider may hold
its rows on several machines and add their partial sums; it finds no split and takes no
decision, which keeps every rule of growth in one place.

:class:`LocalStatistics` holds the rows in this process and sums them with the kernels of
the compiled grower, in the same order, so that the level-wise grower grows the very tree
the compiled one grows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np

from .._config import OBLIQUE_SPLIT, SUBSET_SPLIT
from ..splitting._histogram import node_histograms, rows_stats
from ..splitting._lookahead import lookahead_splits
from ..splitting._partition import SplitTest, branch_of_rows, branch_weights
from ..splitting._significance import branch_class_table
from ..splitting.category_sets import pending_table
from ..splitting.oblique import find_oblique_split, oblique_branches
from ..tree._predict import oblique_sides
from ._grow import grow_tree
from ._records import GrownArrays


@dataclass(frozen=True)
class Split:
    """A split chosen by the grower: the node's rows go to ``n_children`` branches by
    ``feature``'s bin code: ``code <= bin_cut`` (a threshold, ``kind`` NUMERIC_SPLIT), or
    ``cat_table[code]`` (a nominal split; -1 for a category absent at the node); or, kind
    OBLIQUE_SPLIT, by their values: ``weights . x <= threshold`` to the first branch."""

    kind: int
    feature: int
    n_children: int
    bin_cut: int = -1
    cat_table: np.ndarray | None = None
    weights: np.ndarray | None = None
    threshold: float = float("nan")


class Histograms(NamedTuple):
    """A node's sums by feature and bin: ``hist[f, code]`` the statistics of the rows with
    bin ``code`` of feature ``f``, ``counts[f, code]`` their number, ``missing[f]`` the
    statistics of the rows where ``f`` is missing."""

    hist: np.ndarray
    counts: np.ndarray
    missing: np.ndarray


class Partition(NamedTuple):
    """The children of a split: their numbers of rows, statistics and, for classification,
    the branch-by-class table of weights (the chi-square test's)."""

    n_rows: np.ndarray
    values: np.ndarray
    table: np.ndarray


def grow_subtree(data, y_class, y_value, w, bins, settings) -> GrownArrays:
    """The compiled grower's tree on rows gathered for a subtree (copies: the grower
    overwrites its arrays)."""
    return GrownArrays(
        *grow_tree(
            np.array(data, order="C"),
            np.array(y_class, dtype=np.int32),
            np.array(y_value, dtype=np.float64),
            np.array(w, dtype=np.float64),
            bins,
            settings,
        )
    )


class StatisticsProvider(Protocol):
    """What the level-wise grower asks of the rows (see the module docstring).

    Nodes are named by keys the grower gives them, never reused; the root is 0. Every
    question but ``root`` is asked for a whole level at once, a list with one item per
    node, and answered with a list in the same order. Statistics are as the kernels take
    them: class weights, or ``[weight, sum w*y, sum w*y^2]``.
    """

    def root(self) -> tuple[int, float, np.ndarray]:
        """``(rows, total weight, statistics)`` of all rows."""

    def histograms(self, keys: Sequence[int]) -> list[Histograms]:
        """The histograms of the rows of each node."""

    def branch_weights(self, items: Sequence[tuple[int, Split, bool]]) -> list[tuple]:
        """For each ``(key, split, by_class)``: ``(known weight per branch, per branch and
        class)`` of the node's rows with a known value (the second all zero unless
        ``by_class``)."""

    def partition(self, items: Sequence[tuple]) -> list[Partition]:
        """For each ``(key, split, missing_child, class_w, children)``: send the node's
        rows to the nodes ``children`` (a row with a missing value to ``missing_child``,
        or with ``class_w`` given, by its class, as the policy places it)."""

    def oblique(self, items: Sequence[tuple]) -> list:
        """For each ``(key, features, start, problem, seed)``: the node's best oblique split
        (``splitting.oblique.find_oblique_split``), or None. Asked only of a provider that
        holds the rows' values (a local one given them)."""

    def subtrees(self, items: Sequence[tuple]) -> list:
        """For each ``(key, settings, rows)``: the compiled grower's subtree on the node's
        rows with ``settings`` (:class:`~quercus.grow._records.GrownArrays`)."""

    def drop(self, keys: Sequence[int]) -> list:
        """Forget the rows of these nodes (leaves, split nodes, and children of a split the
        grower rejected)."""


class LocalStatistics:
    """A provider over rows held in this process (``data``: bin codes, C order; ``values``:
    the rows' values, float64, for oblique splits)."""

    def __init__(
        self,
        data,
        y_class,
        y_value,
        w,
        n_bins,
        missing_code,
        n_stats,
        regression,
        bins=None,
        values=None,
    ):
        self.bins = bins  # the kernels' Bins, for subtrees
        self.data = data
        self.values = values
        self.y_class = y_class
        self.y_value = y_value
        self.w = w
        self.n_bins = np.asarray(n_bins)
        self.missing_code = missing_code
        self.n_stats = n_stats
        self.regression = regression
        self.max_bins = max(1, int(self.n_bins.max())) if len(self.n_bins) else 1
        self.rows = {0: np.arange(data.shape[0], dtype=np.int64)}

    def root(self):
        values = np.zeros((1, self.n_stats))
        total = rows_stats(
            self.y_class, self.y_value, self.w, self.rows[0], self.regression, values
        )
        return len(self.rows[0]), total, values[0]

    def histograms(self, nodes):
        return [self._histograms(node) for node in nodes]

    def _histograms(self, node):
        p = len(self.n_bins)
        out = Histograms(
            np.zeros((p, self.max_bins, self.n_stats)),
            np.zeros((p, self.max_bins), dtype=np.int64),
            np.zeros((p, self.n_stats)),
        )
        node_histograms(
            self.data,
            self.y_class,
            self.y_value,
            self.w,
            self.rows[node],
            self.n_bins,
            self.missing_code,
            self.regression,
            out,
        )
        return out

    def _labels_of(self, node):
        """The node's row ids, classes and weights."""
        rows = self.rows[node]
        return rows, self.y_class[rows], self.w[rows]

    def _rows_of(self, node):
        """:meth:`_labels_of` with the rows' bin codes."""
        rows, yc, w = self._labels_of(node)
        return rows, self.data[rows], yc, w

    def branch_weights(self, items):
        return [self._branch_weights(*item) for item in items]

    def _branch_weights(self, node, split, by_class):
        class_w = np.zeros((split.n_children, self.n_stats))
        if split.kind == OBLIQUE_SPLIT:  # by the rows' values: no bin codes gathered
            rows, yc, w = self._labels_of(node)
            sides = self._oblique_sides(rows, split)
            known = sides >= 0
            child_w = np.bincount(sides[known], weights=w[known], minlength=2).astype(float)
            if by_class:
                np.add.at(class_w, (sides[known], yc[known]), w[known])
            return child_w, class_w
        _, x, yc, w = self._rows_of(node)
        child_w = branch_weights(
            x,
            yc,
            w,
            self.missing_code,
            _test(split),
            _table(split),
            split.n_children,
            by_class,
            class_w,
        )
        return child_w, class_w

    def partition(self, items):
        return [self._partition(*item) for item in items]

    def _partition(self, node, split, missing_child, class_w, children):
        by_class = class_w is not None
        if split.kind == OBLIQUE_SPLIT:  # by the rows' values: no bin codes gathered
            rows, yc, w = self._labels_of(node)
            child_of = oblique_branches(
                self._oblique_sides(rows, split),
                yc,
                missing_child,
                by_class,
                class_w if by_class else np.zeros((1, 1)),
            )
            return self._children(rows, yc, w, child_of, split.n_children, children)
        rows, x, yc, w = self._rows_of(node)
        child_of = branch_of_rows(
            x,
            yc,
            w,
            self.missing_code,
            _test(split),
            _table(split),
            split.n_children,
            by_class,
            class_w if by_class else np.zeros((1, 1)),
            missing_child,
        )
        return self._children(rows, yc, w, child_of, split.n_children, children)

    def _children(self, rows, yc, w, child_of, n_ch, children):
        """Give the rows of each branch to its child; the children's :class:`Partition`."""
        table = np.zeros((n_ch, 1 if self.regression else self.n_stats))
        if not self.regression:
            branch_class_table(child_of, 0, len(rows), yc, w, np.zeros(n_ch), table)
        n_rows = np.zeros(n_ch, dtype=np.int64)
        values = np.zeros((n_ch, self.n_stats))
        for ch, child in enumerate(children):
            mine = rows[child_of == ch]
            self.rows[child] = mine
            n_rows[ch] = len(mine)
            rows_stats(self.y_class, self.y_value, self.w, mine, self.regression, values[ch:])
        return Partition(n_rows, values, table)

    def subtrees(self, items):
        """For each ``(key, settings, rows)``: the subtree the compiled grower grows on the
        node's rows (:class:`~quercus.grow._records.GrownArrays`)."""
        out = []
        for key, settings, _ in items:
            rows = self.rows[key]
            out.append(
                grow_subtree(
                    self.data[rows],
                    self.y_class[rows],
                    self.y_value[rows],
                    self.w[rows],
                    self.bins,
                    settings,
                )
            )
        return out

    def _oblique_sides(self, rows, split):
        return oblique_sides(self.values[rows], split.weights, split.threshold)

    def oblique(self, items):
        out = []
        for key, features, start, problem, seed in items:
            rows = self.rows[key]
            out.append(
                find_oblique_split(
                    self.values[rows],
                    self.y_class[rows],
                    self.y_value[rows],
                    self.w[rows],
                    features,
                    start,
                    problem,
                    seed,
                )
            )
        return out

    def lookahead(self, items):
        """For each ``(key, features, sides, levels, depth, context)``: each candidate
        feature's best split by look-ahead (``splitting._lookahead.lookahead_splits``)."""
        out = []
        for key, features, sides, levels, depth, context in items:
            rows = self.rows[key]
            scores = np.zeros((len(features), 4))
            lookahead_splits(
                self.data[rows],
                self.y_class[rows],
                self.y_value[rows],
                self.w[rows],
                features,
                len(features),
                depth,
                levels,
                context,
                sides,
                scores,
            )
            out.append(scores)
        return out

    def drop(self, keys):
        for key in keys:
            self.rows.pop(key, None)
        return [None] * len(keys)


def _test(split: Split) -> SplitTest:
    """The routing kernels' test of ``split``, its category table (:func:`_table`) from 0."""
    return SplitTest(split.feature, split.kind, split.bin_cut, 0)


def _table(split: Split) -> np.ndarray:
    """The table the routing kernels read for ``split``: a subset split's pending bitsets
    (``splitting/category_sets.py``), a stand-in for the others."""
    if split.kind == SUBSET_SPLIT:
        return pending_table(split.cat_table)
    return np.zeros(1, dtype=np.int32)
