"""The Newton learner: a booster's regression tree grown best first on gradient histograms.

LightGBM's serial tree learner, in quercus's records. A booster's tree is grown on each
row's working target ``-g / h`` and weight ``h``: a leaf's statistics are the sums ``R = -G``
and ``H``, its best split is the one of most Newton gain (``splitting/_newton_scan.py``),
and the leaf of most gain splits next, until ``max_leaf_nodes`` leaves or no leaf gains.

What makes it fast where the compiled grower (``_grow.py``) is general:

- the rows never move: a leaf is a run of an array of row numbers, kept in increasing
  order, and splitting a leaf reorders that run only (``_gradient_rows.partition_rows``);
  with several threads the array is cut into one region a thread, a leaf is a run in each
  region (its segments, in row order region after region), and each thread partitions its
  region's segment and sums the smaller child's part of it, in one task: no runs to put
  together, and a partition on every thread for any leaf of :data:`THREADED_ROWS` rows;
- the histograms' kernels keep the bins being updated in the first-level cache: the
  root's rows are summed column by column and a dense leaf's rows four features at a time
  (``_gradient_rows.add_columns``, ``add_rows_grouped``);
- sums are of whole units (``_gradient_rows.row_units``: each row's ``R`` and ``H`` on a
  grid of a power of two fine enough that no sum leaves int64), so they are exact in any
  order: only the smaller child's histograms are summed from its rows, the larger child's
  are its parent's less its sibling's (histogram subtraction), and the rows of a large leaf
  are summed on several threads, giving the same tree for any number of them;
- histograms of the leaves waiting to split are kept, at most one per leaf.

It grows the tree the compiled grower grows with a regression tree's statistics and the
same rules (``splitting/_newton_scan.py`` says which), up to the grid's rounding (a
relative ``2**-40`` of the largest ``|R|`` of a row at a million rows); the NumPy twin of
the boosting loop checks both. Its result is the compiled grower's
:class:`~quercus.grow._records.GrownArrays`, so the tree, its file and its exports are a
regression tree's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._config import LEAF, LEARNED, NOMINAL, NUMERIC, NUMERIC_SPLIT, SUBSET_SPLIT
from ..criteria._impurity import shrunk_sum
from ..splitting._newton_scan import NewtonRules, best_split
from ..splitting.category_sets import subset_table
from ._draws import candidate_features, child_draw_key, root_draw_key
from ._gradient_rows import (
    UNIT_CEILING,
    add_columns,
    add_into,
    add_rows,
    add_rows_grouped,
    leaf_sums_of_squares,
    partition_rows,
    row_units,
    scan_rows,
    subtract_into,
)
from ._records import NODE, TRACE, GrownArrays
from ._settings import Bins

#: A leaf of at least this many rows is partitioned and summed on several threads (one
#: region each), a smaller one on the calling thread alone; a tree of fewer rows has one
#: region.
THREADED_ROWS = 10_000
#: A run of rows holding at least one row in this many of its stretch of the rows is
#: summed four features at a time (``_gradient_rows.add_rows_grouped``).
DENSE_SHARE = 10


@dataclass(frozen=True)
class NewtonSetup:
    """How a Newton tree grows: at most ``max_leaf_nodes`` leaves (-1: no limit) and
    ``max_depth`` levels (-1: no limit); a side needs ``min_child_weight`` of hessian and
    ``min_rows`` rows; ``l2``/``l1`` regularise the gains; missing values take the side
    that gains more (``missing`` LEARNED) or the heavier one; each leaf searches
    ``max_features`` features drawn by the tree's ``seed`` (all: the number of features).

    ``monotonic`` (one entry per feature, or None): +1 keeps the tree's output from going
    down as the feature grows, -1 from going up (the basic method of LightGBM and
    scikit-learn: a split on such a feature must order its sides' steps so, and its
    children's steps are bounded by their mean, down the whole subtree).
    ``interactions`` (groups of feature indexes, or None): the features of a path from the
    root must all lie in one group (the features in no group make one more group).
    ``nominal_smoothing``, ``min_category_rows`` and ``max_split_categories`` regularise
    the nominal splits (``splitting/_newton_scan.py``; 0, 0 and -1: not at all)."""

    max_leaf_nodes: int
    max_depth: int
    min_child_weight: float
    min_rows: int
    l2: float
    l1: float
    missing: int
    max_features: int
    seed: int
    monotonic: tuple | None = None
    interactions: tuple | None = None
    nominal_smoothing: float = 0.0
    min_category_rows: int = 0
    max_split_categories: int = -1

    @property
    def bounded(self) -> bool:
        """Whether the leaves' steps may differ from their statistics' Newton steps."""
        return self.monotonic is not None and any(self.monotonic)


class LeafRuns(NamedTuple):
    """Where a grown tree's rows ended: run ``i``, the rows ``rows[starts[i]:ends[i]]``,
    belongs to leaf ``nodes[i]`` (the rows of weight 0 are in none). A leaf may have
    several runs (one a region, :class:`NewtonTree`): they follow one another, and their
    rows, one run after the other, are in increasing order."""

    rows: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    nodes: np.ndarray

    @property
    def n_rows(self) -> int:
        """The rows in the leaves."""
        return int((self.ends - self.starts).sum())

    def by_leaf(self) -> Iterator[tuple[int, np.ndarray]]:
        """Each leaf's node and its rows (in increasing order), leaf by leaf."""
        i, n = 0, len(self.nodes)
        while i < n:
            j = i + 1
            while j < n and self.nodes[j] == self.nodes[i]:
                j += 1
            parts = [self.rows[a:b] for a, b in zip(self.starts[i:j], self.ends[i:j], strict=True)]
            yield int(self.nodes[i]), parts[0] if len(parts) == 1 else np.concatenate(parts)
            i = j


@dataclass(eq=False)
class _Leaf:
    """A leaf while the tree grows: its node, its rows (``rows[lo:hi]`` for each ``(lo,
    hi)`` of ``segments``, one a region), depth, draw key, sums ``(R, H, rows)`` in units,
    histograms (None once not needed), and its best split (feature -1: none) with the codes
    that go left. Leaves are told apart by identity (the lists of growing leaves remove
    them so)."""

    node: int
    segments: tuple
    depth: int
    key: np.uint64
    totals: np.ndarray
    hist: np.ndarray | None = None
    feature: int = -1
    gain: float = 0.0
    improvement: float = -1.0
    missing_left: bool = True
    left: np.ndarray | None = None
    goes_left: np.ndarray | None = None
    lower: float = -np.inf  # bounds of the steps in the leaf's subtree (monotonic)
    upper: float = np.inf
    path: frozenset = frozenset()  # the features split on from the root

    @property
    def n_rows(self) -> int:
        return sum(hi - lo for lo, hi in self.segments)


def unit_for(top: float, n_rows: int) -> float:
    """The grid of whole units (:func:`~._gradient_rows.row_units`) for values of largest
    magnitude ``top`` summed over at most ``n_rows`` rows: the least power of two with
    which no sum of whole units reaches :data:`~._gradient_rows.UNIT_CEILING`."""
    if top <= 0.0:
        return 1.0
    # In logarithms: top * n_rows may overflow.
    return 2.0 ** math.ceil(math.log2(top) + math.log2(max(n_rows, 1)) - math.log2(UNIT_CEILING))


class NewtonTree:
    """One tree's growth (see the module docstring): ``codes`` the row-major bin codes
    (padding columns past ``bins.kinds`` allowed) and ``columns`` the same codes feature by
    feature (:func:`feature_columns`), ``target`` and ``weight`` each row's
    working target and weight (rows of weight 0 take no part), ``pool`` threads for the
    set-up and for the partitions and histograms of large leaves, one region of the rows
    each, ``n_threads`` of them (None: this thread only)."""

    def __init__(
        self, codes, columns, bins: Bins, target, weight, setup: NewtonSetup, pool=None,
        n_threads=1,
    ):  # fmt: skip
        self.codes, self.columns, self.bins, self.setup = codes, columns, bins, setup
        self.pool: Executor | None = pool
        self.n_threads = max(1, int(n_threads)) if pool is not None else 1
        self.target = np.asarray(target, dtype=np.float64)
        self.weight = np.asarray(weight, dtype=np.float64)
        self.n_features = len(bins.kinds)
        # A bin for every uint8 code: the histograms' kernels take the codes unclamped.
        self.whole_width = codes.dtype == np.uint8
        if self.whole_width:
            self.width = 256
        else:
            self.width = int(max(1, np.max(bins.n_bins))) + 1 if self.n_features else 2
        # Row numbers in 4 bytes where they fit: half the bytes a partition moves.
        self.row_dtype = np.int32 if len(self.weight) < 2**31 else np.int64
        self.rows = np.empty(len(self.weight), dtype=self.row_dtype)
        self.units = np.empty((len(self.weight), 2), dtype=np.int64)
        self.root_segments, root_hist = self._set_up(setup)
        self.root_hist: np.ndarray | None = root_hist
        self.constraints = np.zeros(self.n_features, dtype=np.int64)
        if setup.monotonic is not None:
            self.constraints[:] = setup.monotonic
        self.groups = interaction_groups(setup.interactions, self.n_features)
        self.spare = np.empty(len(self.weight), dtype=self.row_dtype)
        self.draw = np.empty(max(self.n_features, 1), dtype=np.int64)
        self.rng = np.zeros(1, dtype=np.uint64)
        self.nodes: list[dict] = []
        self.children: list[int] = []

    # -- histograms -----------------------------------------------------------------------

    def _empty_hist(self) -> np.ndarray:
        return np.zeros((self.n_features, self.width, 3), dtype=np.int64)

    def _set_up(self, setup: NewtonSetup) -> tuple[tuple, np.ndarray]:
        """The rows of positive weight and their units, in one region a thread (one for
        fewer than :data:`THREADED_ROWS` rows a thread), and the root's histograms: the
        rules (their units from the largest ``|R|`` and ``H`` of any region) into
        ``self.rules``; returns the root's segments and histograms."""
        n_all = len(self.weight)
        parts = min(self.n_threads, max(1, n_all // THREADED_ROWS))
        cuts = [int(c) for c in np.linspace(0, n_all, parts + 1).astype(np.int64)]
        regions = list(zip(cuts[:-1], cuts[1:], strict=True))

        def scan(i, lo, hi, out):
            return scan_rows(self.target, self.weight, lo, hi, self.rows)

        scans, _ = self._on_threads(scan, n_all, regions, histograms=False)
        n = self.n_rows = sum(count for count, _, _ in scans)
        self.rules = NewtonRules(
            float(setup.l2),
            float(setup.l1),
            float(setup.min_child_weight),
            int(setup.min_rows),
            setup.missing == LEARNED,
            unit_for(max(top_r for _, top_r, _ in scans), n),
            unit_for(max(top_h for _, _, top_h in scans), n),
            float(setup.nominal_smoothing),
            int(setup.min_category_rows),
            int(setup.max_split_categories),
        )
        counts = [count for count, _, _ in scans]
        segments = tuple((lo, lo + m) for (lo, _), m in zip(regions, counts, strict=True))
        r_unit, h_unit = self.rules.r_unit, self.rules.h_unit

        def sum_root(i, lo, hi, out):
            row_units(self.target, self.weight, self.rows, lo, hi, r_unit, h_unit, self.units)
            if self.whole_width and hi - lo == regions[i][1] - regions[i][0]:
                # Every row of the region weighs: they are the rows lo:hi themselves.
                add_columns(self.columns, lo, hi, self.units, self.n_features, out)
            else:
                self._add(lo, hi, out)

        return segments, self._on_threads(sum_root, n_all, segments)[1]

    def _add(self, lo: int, hi: int, out: np.ndarray) -> None:
        """Add the rows ``rows[lo:hi]`` to the histograms ``out``: four features at a time
        for a run holding at least one row in :data:`DENSE_SHARE` of its stretch of the
        rows, all of a row's features together for a sparser one, whose gathered rows
        would push the histograms out of the first-level cache (``bench/README.md``)."""
        args = (self.codes, self.rows, lo, hi, self.units, self.n_features, out)
        stretch = int(self.rows[hi - 1] - self.rows[lo]) + 1 if hi > lo else 0
        if self.whole_width and (hi - lo) * DENSE_SHARE >= stretch:
            add_rows_grouped(*args)
        else:
            add_rows(*args)

    def _on_threads(self, task, leaf_rows: int, segments, histograms=True) -> tuple:
        """``task(i, lo, hi, out)`` for each segment ``i``, each with its own histogram
        ``out`` (None without ``histograms``): on every thread (the first segment on this
        one) for a leaf of at least :data:`THREADED_ROWS` rows, else all on this thread
        into one histogram. Returns the tasks' results and the histograms summed (whole
        units: alike in any order)."""
        new = self._empty_hist if histograms else lambda: None
        out = new()
        if self.pool is None or len(segments) == 1 or leaf_rows < THREADED_ROWS:
            return [task(i, lo, hi, out) for i, (lo, hi) in enumerate(segments)], out
        extra = [new() for _ in segments[1:]]
        jobs = [
            self.pool.submit(task, i, lo, hi, extra[i - 1])
            for i, (lo, hi) in enumerate(segments) if i > 0
        ]  # fmt: skip
        results = [task(0, *segments[0], out)] + [job.result() for job in jobs]
        for part in extra if histograms else ():
            add_into(out, part)
        return results, out

    # -- leaves ---------------------------------------------------------------------------

    def _new_node(self, leaf: _Leaf) -> None:
        self.nodes.append({"depth": leaf.depth, "totals": leaf.totals, "leaf": leaf})

    def _search(self, leaf: _Leaf, h_root: float) -> None:
        """Find the leaf's best split, or leave it none (and drop its histograms)."""
        s = self.setup
        n_rows = leaf.n_rows
        weight = leaf.totals[1] * self.rules.h_unit
        if (
            (s.max_depth >= 0 and leaf.depth >= s.max_depth)
            or weight < 2.0 * s.min_child_weight
            or n_rows < max(2, 2 * s.min_rows)
        ):
            leaf.hist = None
            return
        n_cand = self._candidates(leaf)
        goes_left = np.empty(self.width, dtype=np.bool_)
        feature, gain, missing_left, left = best_split(
            leaf.hist, leaf.totals, self.bins.kinds, self.bins.n_bins, self.draw, n_cand,
            self.rules, goes_left, self.constraints, leaf.lower, leaf.upper,
        )  # fmt: skip
        if feature < 0 or not gain > 0.0:
            leaf.hist = None
            return
        leaf.feature, leaf.gain, leaf.missing_left = int(feature), float(gain), bool(missing_left)
        leaf.improvement = gain / h_root
        leaf.left, leaf.goes_left = left, goes_left

    def _candidates(self, leaf: _Leaf) -> int:
        """The leaf's candidate features into ``self.draw``, in increasing order: those its
        path's interaction groups allow, ``max_features`` of them drawn by its key."""
        s = self.setup
        if self.groups is None:
            return candidate_features(
                self.n_features, s.max_features, leaf.key, self.rng, self.draw
            )
        allowed = sorted(set().union(*(g for g in self.groups if leaf.path <= g)))
        n = candidate_features(len(allowed), s.max_features, leaf.key, self.rng, self.draw)
        self.draw[:n] = np.asarray(allowed, dtype=np.int64)[self.draw[:n]]
        return n

    def _child_bounds(self, leaf: _Leaf, kids: list[_Leaf]) -> None:
        """The children's bounds: their parent's, and on a monotonic feature's split the
        mean of the two steps as the bound between them."""
        constraint = self.constraints[leaf.feature]
        for kid in kids:
            kid.lower, kid.upper = leaf.lower, leaf.upper
            kid.path = leaf.path | {leaf.feature}
        if constraint == 0:
            return
        left, right = (self._step(kid) for kid in kids)
        mid = (left + right) / 2.0
        if constraint > 0:
            kids[0].upper, kids[1].lower = mid, mid
        else:
            kids[0].lower, kids[1].upper = mid, mid

    def _step(self, leaf: _Leaf) -> float:
        """The leaf's Newton step held within its bounds."""
        r, h = leaf.totals[0] * self.rules.r_unit, leaf.totals[1] * self.rules.h_unit
        value = shrunk_sum(r, self.rules.l1) / (h + self.rules.l2) if h + self.rules.l2 > 0 else 0.0
        return min(max(value, leaf.lower), leaf.upper)

    def _split(self, leaf: _Leaf, h_root: float) -> list[_Leaf]:
        """Apply the leaf's split: order its rows, make its two children and their
        histograms (the smaller child's summed from its rows as they are ordered, the
        larger's its parent's less its sibling's)."""
        n_left = int(leaf.left[2])
        small_left = n_left <= leaf.n_rows - n_left
        lefts, small_hist = self._partition(leaf, small_left)
        self._record_split(leaf)
        first = len(self.nodes)
        depth = leaf.depth + 1
        kids = [
            _Leaf(
                first, tuple((lo, lo + m) for (lo, _), m in zip(leaf.segments, lefts, strict=True)),
                depth, np.uint64(child_draw_key(leaf.key, 0)), leaf.left,
            ),
            _Leaf(
                first + 1,
                tuple((lo + m, hi) for (lo, hi), m in zip(leaf.segments, lefts, strict=True)),
                depth, np.uint64(child_draw_key(leaf.key, 1)), leaf.totals - leaf.left,
            ),
        ]  # fmt: skip
        self._child_bounds(leaf, kids)
        small, large = (kids[0], kids[1]) if small_left else kids[::-1]
        small.hist = small_hist
        subtract_into(leaf.hist, small.hist, leaf.hist)
        large.hist, leaf.hist = leaf.hist, None
        self.children.extend([first, first + 1])
        for kid in kids:
            self._new_node(kid)
            self._search(kid, h_root)
        return kids

    def _partition(self, leaf: _Leaf, small_left: bool) -> tuple[list, np.ndarray]:
        """Send the leaf's rows to their sides, in each segment the left ones first, each
        side in row order, and sum the smaller side's rows into its histograms: a task a
        segment (:meth:`_on_threads`). Returns each segment's rows gone left and the
        histograms."""
        column = self.columns[leaf.feature]
        goes_left = leaf.goes_left.view(np.uint8)

        def task(i, lo, hi, out):
            m = partition_rows(column, self.rows, lo, hi, goes_left, self.spare[lo:])
            a, b = (lo, lo + m) if small_left else (lo + m, hi)
            self._add(a, b, out)
            return m

        lefts, hist = self._on_threads(task, leaf.n_rows, leaf.segments)
        if sum(lefts) != leaf.left[2]:
            raise AssertionError("the partition disagrees with the histograms")
        return lefts, hist

    def _record_split(self, leaf: _Leaf) -> None:
        """The split's fields of the leaf's node (kind, feature, threshold or table,
        missing branch, children), in the compiled grower's terms."""
        node = self.nodes[leaf.node]
        f = leaf.feature
        node.update(feature=f, child_start=len(self.children))
        node["missing_child"] = 0 if leaf.missing_left else 1
        if self.bins.kinds[f] != NOMINAL:
            node["kind"] = NUMERIC_SPLIT
            node["threshold"] = self._threshold(leaf)
        else:
            node["kind"] = SUBSET_SPLIT
            n_codes = int(self.bins.n_bins[f])
            sides = np.where(leaf.goes_left[:n_codes], 0, 1)
            node["table"] = subset_table(sides)

    def _threshold(self, leaf: _Leaf) -> float:
        """The threshold between the last bin with rows on the left and the first on the
        right (ordinal: between their codes). When rows of weight 0 took no part (a
        subsample), between the last bin on the left and the next bin: those rows reach
        the node too, and each must go where its bin goes."""
        f = leaf.feature
        n_codes = int(self.bins.n_bins[f])
        present = leaf.hist[f, :n_codes, 2] > 0
        goes = leaf.goes_left[:n_codes]
        lo_code = int(np.flatnonzero(present & goes)[-1])
        hi_code = int(np.flatnonzero(present & ~goes)[0])
        if self.bins.kinds[f] != NUMERIC:
            return lo_code + 0.5
        if self.n_rows < len(self.weight):
            hi_code = lo_code + 1
        a = float(self.bins.bin_hi[f, lo_code])
        b = float(self.bins.bin_lo[f, hi_code])
        t = a + (b / 2.0 - a / 2.0)  # halves first: b - a overflows near the float limits
        return a if t >= b else t

    # -- the loop -------------------------------------------------------------------------

    def grow(self) -> GrownArrays:
        s = self.setup
        key = np.uint64(root_draw_key(int(s.seed)))
        root = _Leaf(0, self.root_segments, 0, key, None, self.root_hist)
        self.root_hist = None
        root.totals = root.hist[0].sum(axis=0) if self.n_features else self._no_features_totals()
        h_root = max(root.totals[1] * self.rules.h_unit, np.finfo(np.float64).tiny)
        self._new_node(root)
        self._search(root, h_root)
        pending = [root] if root.feature >= 0 else []
        leaves = [root]
        while pending and (s.max_leaf_nodes < 0 or len(leaves) < s.max_leaf_nodes):
            best = pending[0]
            for leaf in pending[1:]:
                if leaf.improvement > best.improvement + 1e-12:
                    best = leaf
            pending.remove(best)
            leaves.remove(best)
            kids = self._split(best, h_root)
            leaves.extend(kids)
            pending.extend(kid for kid in kids if kid.feature >= 0)
            pending.sort(key=lambda leaf: leaf.node)
        self.leaves = sorted(leaves, key=lambda leaf: leaf.node)
        return self._arrays()

    def leaf_runs(self) -> LeafRuns:
        """The rows of each leaf of the grown tree (its empty segments left out)."""
        runs = [(lo, hi, leaf.node) for leaf in self.leaves for lo, hi in leaf.segments if hi > lo]
        starts, ends, nodes = np.array(runs, dtype=np.int64).reshape(-1, 3).T
        return LeafRuns(self.rows, starts.copy(), ends.copy(), nodes.copy())

    def _no_features_totals(self) -> np.ndarray:
        rows = np.concatenate([self.rows[lo:hi] for lo, hi in self.root_segments])
        return np.array([*self.units[rows].sum(axis=0), len(rows)])

    def _arrays(self) -> GrownArrays:
        """The grown tree as the compiled grower's records (filled field by field: a
        record's fields set one at a time cost a microsecond each)."""
        n = len(self.nodes)
        nodes = np.zeros(n, dtype=NODE)
        nodes["cat_start"] = -1
        nodes["missing_child"] = -1
        nodes["feature"] = -1
        totals = np.array([node["totals"] for node in self.nodes], dtype=np.int64)
        values = np.column_stack(
            [totals[:, 1] * self.rules.h_unit, totals[:, 0] * self.rules.r_unit,
             self._sums_of_squares(n)]
        )  # fmt: skip
        nodes["kind"] = [node.get("kind", LEAF) for node in self.nodes]
        nodes["depth"] = [node["depth"] for node in self.nodes]
        nodes["n_samples"] = totals[:, 2]
        nodes["weight"] = values[:, 0]
        nodes["impurity"] = [self._impurity(v) for v in values]
        if self.setup.bounded:
            nodes["median"] = [self._step(node["leaf"]) for node in self.nodes]
        inner = [i for i, node in enumerate(self.nodes) if "feature" in node]
        for field in ("feature", "threshold", "child_start", "missing_child"):
            nodes[field][inner] = [self.nodes[i].get(field, np.nan) for i in inner]
        nodes["n_children"][inner] = 2
        subsets = [i for i in inner if "table" in self.nodes[i]]
        tables = [self.nodes[i]["table"] for i in subsets]
        nodes["cat_start"][subsets] = np.cumsum([0] + [len(t) for t in tables[:-1]])
        table = np.concatenate(tables) if tables else np.zeros(0, dtype=np.int32)
        return GrownArrays(
            nodes,
            values,
            np.asarray(self.children, dtype=np.int32),
            table.astype(np.int32),
            np.zeros(0, dtype=TRACE),
            np.zeros((0, 0), dtype=np.int8),
        )

    def _sums_of_squares(self, n: int) -> np.ndarray:
        """Each node's ``sum(w * y**2)``: each leaf's over its rows, an inner node's the
        sum of its children's (children are numbered after their parent)."""
        out = np.zeros(n)
        runs = self.leaf_runs()
        leaf_sums_of_squares(*runs, self.target, self.weight, out)
        for i in range(n - 1, -1, -1):
            node = self.nodes[i]
            if "feature" in node:
                first = self.children[node["child_start"]]
                out[i] = out[first] + out[first + 1]
        return out

    def _impurity(self, value: np.ndarray) -> float:
        """The regularised variance of a node's statistics ``[H, R, sum w y**2]``, whose
        decrease over a split, times the weight, is the split's Newton gain."""
        w, total, squares = value
        if w <= 0.0:
            return 0.0
        t = shrunk_sum(total, self.rules.l1)
        return max(squares / w - t * t / (w * (w + self.rules.l2)), 0.0)


def interaction_groups(interactions, n_features: int) -> list[frozenset] | None:
    """The interaction groups as sets, the features in none of them as one more group
    (None for no constraint)."""
    if interactions is None:
        return None
    groups = [frozenset(int(f) for f in group) for group in interactions]
    rest = frozenset(range(n_features)).difference(*groups)
    return groups + ([rest] if rest else [])


def feature_columns(codes, n_features: int) -> np.ndarray:
    """The bin codes ``codes`` (row-major) feature by feature: row ``f`` of the result is
    feature ``f``'s column, contiguous."""
    return np.ascontiguousarray(codes[:, :n_features].T)


def grow_newton(
    codes, columns, bins: Bins, target, weight, setup: NewtonSetup, pool=None, n_threads=1
) -> tuple[GrownArrays, LeafRuns]:
    """A Newton tree on the rows (see :class:`NewtonTree`), and where its rows ended."""
    tree = NewtonTree(codes, columns, bins, target, weight, setup, pool, n_threads)
    return tree.grow(), tree.leaf_runs()


__all__ = [
    "LeafRuns",
    "NewtonSetup",
    "NewtonTree",
    "THREADED_ROWS",
    "feature_columns",
    "grow_newton",
    "unit_for",
]
