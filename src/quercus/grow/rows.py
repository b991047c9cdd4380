"""Training rows as one interface, wherever they live: the seam between the ensembles
(the forests and the gradient boosters) and the growers.

An ensemble's fit asks its :class:`TrainingRows` to grow trees (one :class:`TreePlan` a
tree, each row's weight in each tree given by a weighing function), and does not know
whether the rows are in this process (:class:`LocalRows`, grown by the compiled grower on
threads) or on a Dask cluster (:class:`quercus.distributed.rows.DaskRows`, grown level by
level over the workers' sums). LightGBM's shape: the boosting and bagging loops over one
tree-learner interface. The rows are binned once, and the binned codes, targets and weights
stay where they are.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

import numpy as np
import pandas as pd

from .._parallel import thread_pool
from ..binning import BinMapper
from ..binning.binned import BinnedData, pad_rows
from ..grow._gradient_rows import add_leaf_values
from ..grow.grower import grow_binned, growth_setup, tree_from_grown
from ..grow.newton import feature_columns, grow_newton
from ..tree import Tree, leaves
from ..tree.stack import TreeStack
from .bin_routing import add_outputs, in_bin_space

#: ``weigh(tree, first_row, w)``: the weights in tree number ``tree`` of the rows from row
#: ``first_row`` on whose weights are ``w`` (a new float64 array): each row's weight times
#: a factor of its own that does not depend on the weights (given weights of 1, the
#: factors). None weighs the rows as they are. A local fit asks for all its rows at once,
#: a Dask fit for a partition's; sent to the workers, it is a function of a module, or a
#: partial of one.
Weigh = Callable[[int, int, np.ndarray], np.ndarray]


class TreePlan(NamedTuple):
    """One tree to grow: its number in the ensemble (what the weighing function is given),
    its seed, the features it may split on (None: all of them) and, after
    :meth:`TrainingRows.retarget`, the column of the working targets it is grown on."""

    number: int
    seed: int
    features: np.ndarray | None = None
    target: int = 0


#: ``targets(y_class, y_value, w, scores) -> (y, w)``: the working targets and weights of
#: some rows from their class codes, targets, weights and scores, each of shape (rows,) or
#: (rows, columns) (a booster's: the Newton step's target and weight of every row); it may
#: give a third item, a sum over the rows (the loss at the same scores).
Retarget = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple]
#: ``per_rows(y_class, y_value, w, scores)``: a sum over some rows (a number or an array),
#: added up over all the rows (a loss, a count).
PerRows = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], object]


class TrainingRows(Protocol):
    """Binned training rows, with their targets, weights and scores, wherever they live."""

    #: The bin tables (no rows): what the growers read of the bins.
    tables: BinnedData
    n_rows: int
    total_weight: float

    def grow(self, spec, plans: Sequence[TreePlan], weigh: Weigh | None = None) -> Iterator[Tree]:
        """The trees of ``plans``, in order, grown as ``spec`` (a
        :class:`~quercus.grow.grower.GrowthSpec`) says with each plan's seed: on the
        rows' targets, or after :meth:`retarget` on their working targets."""

    def start_scores(self, initial: np.ndarray) -> None:
        """Give every row the scores ``initial`` (one per output), or each row its own
        (``initial`` of shape ``(n_rows, outputs)``: a booster going on from its trees)."""

    def add_scores(self, trees: TreeStack, values: np.ndarray) -> None:
        """Add to each row's scores the ``values`` (one row per node of the stack's merged
        nodes) of the leaf it reaches in each of ``trees``, routed on its bin codes
        (:mod:`quercus.grow.bin_routing`)."""

    def leaf_values(self, per_leaf: PerRows) -> list:
        """For each tree of the last :meth:`grow` (in order), ``(leaves, values)``: its
        leaves' node ids and ``per_leaf`` (:data:`PerRows`) of each leaf's rows (the rows
        the tree grew on). Rows that are not a sum over partitions: in this process only."""

    def retarget(self, targets: Retarget):
        """Replace the working targets and weights the trees grow on by ``targets`` of the
        rows (:data:`Retarget`); returns what ``targets`` gives beyond them (the loss at
        the same scores), summed over all the rows, or None where it gives nothing more
        or the rows cannot sum it in the same pass."""

    def reduce(self, per_rows: PerRows):
        """``per_rows`` summed over all the rows (:data:`PerRows`)."""


def empty_sample_error(tree: int, n_rows: int) -> ValueError:
    """The error of a tree whose rows all weigh 0 (it would predict nothing)."""
    return ValueError(
        f"tree {tree}'s bootstrap sample weighs 0 (of {n_rows} rows, those drawn all have "
        "sample_weight 0, or bootstrap='poisson' drew none): fit on more rows, or another "
        "random_state"
    )


@dataclass
class DistinctRows:
    """The training rows that differ after binning (codes and target), each standing for
    the rows equal to it: training row ``i`` is distinct row ``group[i]`` (``group`` is
    None when the rows are kept as they are)."""

    binned: np.ndarray
    y_class: np.ndarray
    y_value: np.ndarray
    group: np.ndarray | None

    def weighted(self, row_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows of positive weight and their weights, given each training
        row's weight."""
        if self.group is None:
            rows = np.flatnonzero(row_weight > 0)
            return rows, row_weight[rows]
        weight = np.bincount(self.group, row_weight, minlength=len(self.binned))
        rows = np.flatnonzero(weight > 0)
        return rows, weight[rows]


def distinct_rows(binned, y_class, y_value, regression: bool) -> DistinctRows:
    """Group the rows equal after binning, when at least a tenth of them repeat another
    (skin_segmentation: 196,045 training rows, 44,969 distinct; grouping 196,000 rows took
    0.014 s, 800,000 rows of 20 features 0.33 s). Rows are compared as the 8-byte words of
    their padded codes, with the class (or the target's bits); the groups are numbered in
    the order of their first row."""
    n = len(binned)
    key = pd.DataFrame(binned.view(np.uint64))
    key["y"] = y_value.view(np.int64) if regression else y_class
    ids = key.groupby(list(key.columns), sort=False).ngroup().to_numpy()
    group, _ = pd.factorize(ids)
    n_groups = int(group.max()) + 1 if n else 0
    if n_groups > 0.9 * n:
        return DistinctRows(binned, y_class, y_value, None)
    first = np.full(n_groups, n, dtype=np.int64)
    np.minimum.at(first, group, np.arange(n))
    return DistinctRows(binned[first], y_class[first], y_value[first], group)


def feature_subset(data: BinnedData, features: np.ndarray) -> BinnedData:
    """The bin tables of ``data`` restricted to ``features`` (no rows)."""
    m = data.mapper
    mapper = BinMapper(
        [m.kinds[f] for f in features],
        [m.edges[f] for f in features],
        [m.lo[f] for f in features],
        [m.hi[f] for f in features],
        m.n_bins[features],
        m.dtype,
    )
    return BinnedData(
        mapper, None, data.kinds[features], data.bin_lo[features], data.bin_hi[features]
    )


#: Trees are submitted to the threads this many at a time: a future for every tree of a
#: forest of millions would hold gigabytes.
SUBMIT_BATCH = 256


def in_batches(pool, call, *iterables):
    """``pool.map(call, *iterables)``, submitted :data:`SUBMIT_BATCH` calls at a time (the
    next batch as soon as the first result of the last one is taken, so the threads never
    wait)."""
    arguments = zip(*iterables, strict=True)

    def submit():
        batch = list(itertools.islice(arguments, SUBMIT_BATCH))
        return pool.map(call, *zip(*batch, strict=True)) if batch else None

    running = submit()
    while running is not None:
        current, running, submitted = running, None, False
        for result in current:
            if not submitted:
                running, submitted = submit(), True
            yield result


#: Scores' additions (rows times trees) from which they are made on several threads.
THREADED_SCORES = 100_000


class LocalRows:
    """Training rows in this process, binned once, each tree grown by the compiled grower on
    its own thread (the growth kernel releases the GIL; the trees do not depend on the
    number of threads).

    ``data``: the binned rows (:class:`~quercus.binning.binned.BinnedData`); ``y_class``,
    ``y_value``, ``w``: the class codes (zeros for regression), targets (zeros for
    classification) and weights of its rows; ``n_threads`` grow trees at once;
    ``group_equal_rows``: grow the rows equal after binning as one
    (:func:`distinct_rows`; a forest's), which scores and working targets, per row, do not
    allow."""

    def __init__(
        self,
        data: BinnedData,
        y_class,
        y_value,
        w,
        regression: bool,
        *,
        n_threads=1,
        group_equal_rows=False,
    ):
        self.n_rows = len(w)
        self.w = np.asarray(w, dtype=np.float64)
        self.total_weight = float(self.w.sum())
        self.regression = bool(regression)
        self.n_threads = max(1, int(n_threads))
        if group_equal_rows:
            self.distinct = distinct_rows(data.binned, y_class, y_value, self.regression)
        else:
            self.distinct = DistinctRows(data.binned, y_class, y_value, None)
        self.tables = replace(data, binned=None)  # the trees read the rows of ``distinct``
        self.scores: np.ndarray | None = None
        self.working: tuple | None = None
        self.columns: np.ndarray | None = None  # the codes by feature, for Newton trees
        # The rows of each leaf of the Newton trees grown last, by tree number.
        self.leaf_runs: dict = {}

    def grow(self, spec, plans: Sequence[TreePlan], weigh: Weigh | None = None) -> Iterator[Tree]:
        """The trees of ``plans`` in order, grown on as many threads as the rows were
        given (see :class:`TrainingRows`)."""
        self.leaf_runs = {}
        pool = thread_pool(self.n_threads)
        if spec.newton is not None and len(plans) < self.n_threads:
            # Fewer trees than threads: one at a time, each summing its large leaves on
            # every thread.
            for plan in plans:
                yield self._grow_newton(spec, plan, weigh, pool)
            return
        yield from in_batches(pool, lambda plan: self._grow_one(spec, plan, weigh), plans)

    def _targets(self, plan: TreePlan) -> tuple:
        """``(y_class, y_value, w)`` that ``plan``'s tree grows on."""
        if self.working is None:
            return self.distinct.y_class, self.distinct.y_value, self.w
        y, w = self.working
        return np.zeros(self.n_rows, dtype=np.int32), y[:, plan.target], w[:, plan.target]

    def _grow_newton(self, spec, plan: TreePlan, weigh: Weigh | None, pool=None) -> Tree:
        """``plan``'s tree grown by the Newton learner on the rows where they are (with
        ``pool``, its large leaves summed on every thread)."""
        _, y_value, w = self._targets(plan)
        tree_w = w if weigh is None else weigh(plan.number, 0, w)
        if not tree_w.any():
            raise empty_sample_error(plan.number, self.n_rows)
        if plan.features is not None:
            raise ValueError("the Newton learner draws its features per node, not per tree")
        bins, _ = growth_setup(self.tables, spec.params, **spec.setup())
        setup = replace(spec.newton, seed=plan.seed)
        if self.columns is None:
            self.columns = feature_columns(self.distinct.binned, len(self.tables.kinds))
        grown, runs = grow_newton(
            self.distinct.binned, self.columns, bins, y_value, tree_w, setup, pool, self.n_threads
        )
        self.leaf_runs[plan.number] = runs
        if setup.bounded:  # the leaves' steps are held within bounds: the tree keeps them
            return Tree.from_grown(grown, regression=True, leaf_model=leaves.STEP)
        return tree_from_grown(grown, spec.params, spec.regression)

    def _grow_one(self, spec, plan: TreePlan, weigh: Weigh | None) -> Tree:
        if spec.newton is not None:
            return self._grow_newton(spec, plan, weigh)
        y_class, y_value, w = self._targets(plan)
        tree_w = w if weigh is None else weigh(plan.number, 0, w)
        if not tree_w.any():
            raise empty_sample_error(plan.number, self.n_rows)
        rows, row_w = self.distinct.weighted(tree_w)
        features = plan.features
        binned = self.distinct.binned
        if features is None:
            tables, binned = self.tables, binned[rows]  # a copy, padding included
        else:
            tables = feature_subset(self.tables, features)
            binned = pad_rows(binned[np.ix_(rows, features)])
        params = replace(spec.params, seed=plan.seed)
        grown = grow_binned(
            tables,
            binned,
            y_class[rows].astype(np.int32),
            y_value[rows].astype(np.float64),
            row_w,
            params,
            **spec.setup(),
        )
        tree = tree_from_grown(grown, params, spec.regression)
        if features is not None:  # (its routes, made at their first use, read these indexes)
            tree.feature = np.where(tree.feature >= 0, features[tree.feature], -1).astype(np.int32)
        return tree

    def _per_row(self, what: str) -> None:
        if self.distinct.group is not None:
            raise ValueError(f"{what} needs the rows one by one: LocalRows(group_equal_rows=False)")

    def start_scores(self, initial) -> None:
        self._per_row("scores")
        initial = np.atleast_1d(np.asarray(initial, dtype=np.float64))
        if initial.ndim == 2:
            if len(initial) != self.n_rows:
                raise ValueError(f"{len(initial)} rows of scores for {self.n_rows} rows")
            self.scores = initial.copy()
            return
        self.scores = np.tile(initial, (self.n_rows, 1))

    def add_scores(self, trees: TreeStack, values: np.ndarray) -> None:
        """(See :class:`TrainingRows`.) The trees just grown by the Newton learner, when
        every row took part, add by the rows of each leaf (where routing on the codes
        would send them) instead of routing every row again."""
        runs = [self.leaf_runs[n] for n in sorted(self.leaf_runs)]
        if len(runs) == len(trees) and all(run.n_rows == self.n_rows for run in runs):
            offsets = trees.node_offsets
            jobs = []  # (leaf runs, their values, the column they add to)
            for k, run in enumerate(runs):
                leaf_values = values[offsets[k] + run.nodes]
                for column in np.flatnonzero(leaf_values.any(axis=0)):
                    jobs.append((run, np.ascontiguousarray(leaf_values[:, column]), column))

            def add(first_row: int, end_row: int) -> None:
                for run, column_values, column in jobs:
                    add_leaf_values(
                        run.rows, run.starts, run.ends, column_values, self.scores, column,
                        first_row, end_row,
                    )  # fmt: skip

            # Each thread a stretch of the rows: no two write one row.
            parts = min(self.n_threads, max(1, self.n_rows * len(jobs) // THREADED_SCORES))
            cuts = np.linspace(0, self.n_rows, parts + 1).astype(np.int64)
            if parts > 1:
                list(thread_pool(self.n_threads).map(add, cuts[:-1], cuts[1:]))
            else:
                add(0, self.n_rows)
            return
        packed = (*in_bin_space(trees, self.tables).routing_tables(), values)
        n_features = len(self.tables.kinds)
        add_outputs(
            self.distinct.binned, n_features, self.tables.mapper.missing, packed, self.scores
        )

    def retarget(self, targets: Retarget):
        self._per_row("working targets")
        d = self.distinct
        # The last trees' targets and leaves' rows go first: not alive beside the new ones.
        self.working, self.leaf_runs = None, {}
        out = targets(d.y_class, d.y_value, self.w, self.scores)
        y, w = (np.asarray(a, dtype=np.float64) for a in out[:2])
        self.working = (y.reshape(self.n_rows, -1), w.reshape(self.n_rows, -1))
        return out[2] if len(out) > 2 else None

    def reduce(self, per_rows: PerRows):
        d = self.distinct
        return per_rows(d.y_class, d.y_value, self.w, self.scores)

    def leaf_values(self, per_leaf: PerRows) -> list:
        if not self.leaf_runs:
            raise ValueError("leaf values need the leaves' rows of trees the Newton learner grew")
        d = self.distinct
        out = []
        for number in sorted(self.leaf_runs):
            nodes, values = [], []
            for node, rows in self.leaf_runs[number].by_leaf():
                nodes.append(node)
                values.append(
                    per_leaf(d.y_class[rows], d.y_value[rows], self.w[rows], self.scores[rows])
                )
            out.append((np.array(nodes, dtype=np.int64), np.array(values, dtype=np.float64)))
        return out


__all__ = [
    "DistinctRows",
    "LocalRows",
    "PerRows",
    "Retarget",
    "TrainingRows",
    "TreePlan",
    "Weigh",
    "distinct_rows",
    "empty_sample_error",
    "feature_subset",
    "in_batches",
]
