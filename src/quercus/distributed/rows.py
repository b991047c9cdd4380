"""Training rows held by a Dask cluster: the :class:`~quercus.grow.rows.TrainingRows`
interface over the rows :func:`~quercus.distributed.ingest.ingest` typed and binned on the
workers.

Trees grow level by level over the sums each partition makes of its rows
(:class:`~quercus.distributed.dask_statistics.DaskForestStatistics`), all the trees of a
forest in the same passes; a node whose rows are few enough is gathered to one worker and
its subtree grown there by the compiled grower. Each level is logged (INFO, logger
``quercus.distributed.rows``) and its cost recorded (:class:`LevelCost`).
"""

from __future__ import annotations

import functools
import logging
import operator
import time
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import numpy as np

from ..binning.binned import BinnedData
from ..grow import levelwise
from ..grow.bin_routing import add_outputs, in_bin_space
from ..grow.grower import growth_setup, tree_from_grown
from ..grow.rows import PerRows, Retarget, TreePlan, Weigh, empty_sample_error
from ..tree.stack import TreeStack
from .dask_statistics import DaskForestStatistics
from .ingest import DistributedRows

logger = logging.getLogger(__name__)


class LevelCost(NamedTuple):
    """What one level of a Dask fit cost (of all the trees of a forest together).

    ``nodes``: the nodes split over all partitions; ``histogram_bytes``: the bytes of
    their histograms, which each partition sends up the reduction (``nodes x features x
    bins x (statistics + 1)`` numbers of 8 bytes, and the missing values' statistics);
    ``subtrees`` and ``subtree_rows``: the nodes gathered to one worker whose subtrees
    were grown there, and their rows; ``seconds``: the level's wall time, subtrees
    included."""

    level: int
    nodes: int
    histogram_bytes: int
    subtrees: int
    subtree_rows: int
    seconds: float


class LevelLog:
    """Answers a forest's (or a tree's) requests with ``answer``, logs each level (INFO,
    logger ``quercus.distributed.rows``: the level, the nodes being split and the
    time since the fit began; the command line shows it as its progress line) and adds up
    what each level cost (:meth:`costs`). A level runs from the subtrees it hands over to
    the partition of its splits."""

    def __init__(self, answer, n_trees: int):
        self.answer = answer
        self.n_trees = n_trees
        self.level = 0
        self.started = time.perf_counter()
        self._costs: list[LevelCost] = []

    def __call__(self, kind, batch):
        batch = list(batch)
        began = time.perf_counter()
        while len(self._costs) <= self.level:
            self._costs.append(LevelCost(len(self._costs), 0, 0, 0, 0, 0.0))
        cost = self._costs[self.level]
        if kind == "histograms":
            nodes = sum(len(items) for _, items in batch)
            trees = f" of {self.n_trees} trees" if self.n_trees > 1 else ""
            logger.info(
                "level %d: splitting %d node%s%s [%.1f s]",
                self.level,
                nodes,
                "" if nodes == 1 else "s",
                trees,
                began - self.started,
            )
            cost = cost._replace(nodes=cost.nodes + nodes)
        elif kind == "subtrees":
            cost = cost._replace(
                subtrees=cost.subtrees + sum(len(items) for _, items in batch),
                subtree_rows=cost.subtree_rows
                + sum(item[2] for _, items in batch for item in items),
            )
        answers = self.answer(kind, batch)
        if kind == "histograms":
            sent = sum(a.nbytes for per_tree in answers for h in per_tree for a in h)
            cost = cost._replace(histogram_bytes=cost.histogram_bytes + sent)
        self._costs[self.level] = cost._replace(seconds=cost.seconds + time.perf_counter() - began)
        if kind == "partition":
            self.level += 1
        return answers

    def costs(self) -> list[LevelCost]:
        """One :class:`LevelCost` per level, in order."""
        return list(self._costs)


def grow_on_cluster(client, rows, setups: list, weigh=None, subtree_bytes=0) -> list:
    """Grow one tree per ``(bins, settings)`` of ``setups`` level by level over the
    ingested ``rows``, all trees in the same passes over the partitions; ``weigh``: the
    trees' weighing function (:data:`quercus.grow.rows.Weigh`); a node whose
    rows take at most ``subtree_bytes`` is grown on one worker by the compiled grower.
    Returns each tree's grown arrays, and the :class:`LevelCost` of each level."""
    bins, settings = setups[0]
    layout = (bins.n_bins, int(bins.missing_code), settings.n_stats, settings.regression)
    statistics = DaskForestStatistics(
        client, rows.parts, layout, len(setups), rows.first_rows, weigh, bins
    )
    # A row: its padded codes, class code, target and weight.
    row_bytes = -(-len(bins.kinds) * rows.mapper.dtype.itemsize // 8) * 8 + 4 + 8 + 8
    small_rows = int(subtree_bytes) // row_bytes
    roots = statistics.answer("root", [(tree, None) for tree in range(len(setups))])
    for tree, (_, weight, _) in enumerate(roots):
        if not weight > 0:
            raise empty_sample_error(tree, sum(rows.n_rows))
    steps = [
        levelwise.level_steps(root, bins, settings, small_rows)
        for root, (bins, settings) in zip(roots, setups, strict=True)
    ]
    log = LevelLog(statistics.answer, len(steps))
    return levelwise.drive_together(steps, log), log.costs()


class DaskRows:
    """The rows of ``ingested`` (held by the workers of ``client``) as
    :class:`~quercus.grow.rows.TrainingRows`: ``grow`` grows every tree asked for level by
    level over the partitions, all in the same passes, gathering a node of at most
    ``subtree_bytes`` bytes of rows to one worker. The rows' scores and working targets
    stay beside their partitions, on the workers. ``levels``: the :class:`LevelCost` of
    each level of the ``grow`` calls so far."""

    def __init__(self, client, ingested: DistributedRows, subtree_bytes: int = 0):
        self.client = client
        self.ingested = ingested
        self.subtree_bytes = int(subtree_bytes)
        self.tables = BinnedData(
            ingested.mapper, None, ingested.kinds, ingested.bin_lo, ingested.bin_hi
        )
        self.n_rows = int(sum(ingested.n_rows))
        self.total_weight = ingested.total_weight
        self.levels: list[LevelCost] = []
        self.scores: list | None = None  # one future a partition: its rows' scores
        self.working: list | None = None  # one future a partition: working (y, w)

    def grow(self, spec, plans: list[TreePlan], weigh: Weigh | None = None) -> list:
        """The trees of ``plans``, in order (see :class:`~quercus.grow.rows.TrainingRows`).
        Every tree searches every feature: features drawn per tree are refused (the
        capability table's columns per tree). The trees of one column of working targets
        grow in the same passes."""
        if any(plan.features is not None for plan in plans):
            raise ValueError("a fit on Dask grows every tree on every feature")
        trees = [None] * len(plans)
        for target in sorted({plan.target for plan in plans}):
            group = [i for i, plan in enumerate(plans) if plan.target == target]
            rows = self.ingested
            if self.working is not None:
                parts = [
                    self.client.submit(_working_part, part, work, target)
                    for part, work in zip(rows.parts, self.working, strict=True)
                ]
                rows = replace(rows, parts=parts)
            numbers = [plans[i].number for i in group]
            renumbered = None if weigh is None else partial(_renumbered, weigh, numbers)
            setups = [
                growth_setup(self.tables, replace(spec.params, seed=plans[i].seed), **spec.setup())
                for i in group
            ]
            grown, levels = grow_on_cluster(
                self.client, rows, setups, renumbered, self.subtree_bytes
            )
            self.levels += levels
            for i, g in zip(group, grown, strict=True):
                trees[i] = tree_from_grown(g, spec.params, spec.regression)
        return trees

    def start_scores(self, initial) -> None:
        initial = np.atleast_1d(np.asarray(initial, dtype=np.float64))
        if initial.ndim != 1:
            raise ValueError("rows on a cluster start from one set of scores for all")
        self.scores = [
            self.client.submit(_initial_scores, n, initial) for n in self.ingested.n_rows
        ]

    def add_scores(self, trees: TreeStack, values: np.ndarray) -> None:
        packed = (*in_bin_space(trees, self.tables).routing_tables(), values)
        # One copy of the trees on each worker that needs them, not one a partition.
        (sent,) = self.client.scatter([packed], broadcast=True)
        n_features = len(self.tables.kinds)
        missing = self.tables.mapper.missing
        self.scores = [
            self.client.submit(_added_scores, part, scores, sent, n_features, missing)
            for part, scores in zip(self.ingested.parts, self.scores, strict=True)
        ]

    def retarget(self, targets: Retarget):
        self.working = [
            self.client.submit(_retargeted, targets, part, scores)
            for part, scores in zip(self.ingested.parts, self._scores(), strict=True)
        ]

    def reduce(self, per_rows: PerRows):
        sums = self.client.gather(
            [
                self.client.submit(_reduced, per_rows, part, scores)
                for part, scores in zip(self.ingested.parts, self._scores(), strict=True)
            ]
        )
        return functools.reduce(operator.add, sums)

    def leaf_values(self, per_leaf: PerRows) -> list:
        """Refused: a leaf's quantile of residuals is not a sum over partitions."""
        raise ValueError(
            "the absolute error and the quantile loss set each leaf to a quantile of its "
            "rows' residuals, which is not a sum over partitions: fit them on the rows in "
            "memory"
        )

    def _scores(self) -> list:
        return self.scores if self.scores is not None else [None] * len(self.ingested.parts)


# -- what the workers run on a partition -------------------------------------------------------


def _renumbered(weigh: Weigh, numbers: list, tree: int, first_row: int, w):
    """``weigh`` of the tree whose plan number is ``numbers[tree]``."""
    return weigh(numbers[tree], first_row, w)


def _initial_scores(n_rows: int, initial: np.ndarray) -> np.ndarray:
    return np.tile(initial, (n_rows, 1))


def _added_scores(part, scores, packed, n_features: int, missing: int) -> np.ndarray:
    out = scores.copy()  # a task's result is new: the partition's old scores may be read again
    add_outputs(part[0], n_features, missing, packed, out)
    return out


def _retargeted(targets: Retarget, part, scores) -> tuple:
    _, y_class, y_value, w = part
    out = targets(y_class, y_value, w, scores)  # (a sum beyond the two is not gathered)
    y, w_work = (np.asarray(a, dtype=np.float64) for a in out[:2])
    return y.reshape(len(w), -1), w_work.reshape(len(w), -1)


def _working_part(part, working, column: int) -> tuple:
    binned, y_class, _, _ = part
    y, w = working
    return binned, np.zeros_like(y_class), y[:, column].copy(), w[:, column].copy()


def _reduced(per_rows: PerRows, part, scores):
    _, y_class, y_value, w = part
    return per_rows(y_class, y_value, w, scores)


__all__ = ["DaskRows", "LevelCost", "LevelLog", "grow_on_cluster"]
