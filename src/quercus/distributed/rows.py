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

import logging
import time
from dataclasses import replace
from typing import NamedTuple

from ..binning.binned import BinnedData
from ..grow import levelwise
from ..grow.grower import growth_setup, tree_from_grown
from ..grow.rows import TreePlan, Weigh, empty_sample_error
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
    ``subtree_bytes`` bytes of rows to one worker. ``levels``: the :class:`LevelCost` of
    each level of the last ``grow``."""

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

    def grow(self, spec, plans: list[TreePlan], weigh: Weigh | None = None) -> list:
        """The trees of ``plans``, in order (see :class:`~quercus.grow.rows.TrainingRows`).
        Every tree searches every feature: features drawn per tree are refused (the
        capability table's columns per tree), and the plans are numbered from 0."""
        if any(plan.features is not None for plan in plans):
            raise ValueError("a fit on Dask grows every tree on every feature")
        if [plan.number for plan in plans] != list(range(len(plans))):
            raise ValueError("a fit on Dask grows its trees numbered from 0")
        setups = [
            growth_setup(self.tables, replace(spec.params, seed=plan.seed), **spec.setup())
            for plan in plans
        ]
        grown, self.levels = grow_on_cluster(
            self.client, self.ingested, setups, weigh, self.subtree_bytes
        )
        return [tree_from_grown(g, spec.params, spec.regression) for g in grown]


__all__ = ["DaskRows", "LevelCost", "LevelLog", "grow_on_cluster"]
