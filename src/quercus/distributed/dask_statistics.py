"""A statistics provider whose rows live on the workers of a Dask cluster.

The level-wise grower (``tree/levelwise.py``) asks every question for a whole level; this
provider answers each with one task per partition of the rows, run where the partition is,
and adds the partitions' answers. Each partition is a tuple ``(binned codes, class codes,
target values, weights)`` held by a worker, and beside it the key of the node each of its
rows is in (an array, remade by every partition step rather than changed in place, so that
Dask can recompute a lost partition from the steps before it). Inside a task the rows are
summed by :class:`~quercus.tree.statistics.LocalStatistics`, the provider of one process,
so a partition's sums are the ones a local fit would make of the same rows.
"""

from __future__ import annotations

import numpy as np

from ..tree.statistics import LocalStatistics


class DaskStatistics:
    """The :class:`~quercus.tree.statistics.StatisticsProvider` over row partitions held
    by a Dask cluster.

    Parameters
    ----------
    client : distributed.Client
    parts : list of distributed.Future
        One per partition: ``(binned, y_class, y_value, w)``, the binned codes C-ordered.
    n_bins, missing_code, n_stats, regression
        As :class:`~quercus.tree.statistics.LocalStatistics` takes them.
    """

    def __init__(self, client, parts, n_bins, missing_code, n_stats, regression):
        self.client = client
        self.parts = list(parts)
        self.layout = (np.asarray(n_bins), int(missing_code), int(n_stats), bool(regression))
        # Every row starts in the root (key 0).
        self.node_of = [client.submit(_root_keys, part, pure=False) for part in self.parts]

    def _each(self, function, *args):
        """``function(part, node_of, layout, *args)`` on every partition; the answers."""
        futures = [
            self.client.submit(function, part, keys, self.layout, *args, pure=False)
            for part, keys in zip(self.parts, self.node_of, strict=True)
        ]
        return self.client.gather(futures)

    def root(self):
        answers = self._each(_part_root)
        n_rows = sum(a[0] for a in answers)
        weight = sum(a[1] for a in answers)
        values = np.sum([a[2] for a in answers], axis=0)
        return n_rows, weight, values

    def histograms(self, keys):
        return _add_up(self._each(_part_histograms, list(keys)))

    def branch_weights(self, items):
        return _add_up(self._each(_part_branch_weights, list(items)))

    def partition(self, items):
        items = list(items)
        steps = [
            self.client.submit(_part_partition, part, keys, self.layout, items, pure=False)
            for part, keys in zip(self.parts, self.node_of, strict=True)
        ]
        self.node_of = [self.client.submit(_first, step, pure=False) for step in steps]
        answers = self.client.gather([self.client.submit(_second, s, pure=False) for s in steps])
        return _add_up(answers)

    def drop(self, keys):
        # Keys are never reused: the rows of a dropped node are simply never asked for.
        return [None] * len(keys)


def _add_up(answers):
    """The sum over partitions of lists of answers (tuples of arrays), item by item."""
    total = list(answers[0])
    for answer in answers[1:]:
        total = [_sum_items(a, b) for a, b in zip(total, answer, strict=True)]
    return total


def _sum_items(a, b):
    summed = [u + v for u, v in zip(a, b, strict=True)]
    return type(a)(*summed) if hasattr(a, "_fields") else tuple(summed)


def _root_keys(part):
    return np.zeros(len(part[3]), dtype=np.int64)


def _local(part, node_of, layout, keys):
    """A :class:`LocalStatistics` over the partition, holding the rows of ``keys``."""
    data, y_class, y_value, w = part
    n_bins, missing_code, n_stats, regression = layout
    local = LocalStatistics(data, y_class, y_value, w, n_bins, missing_code, n_stats, regression)
    local.rows = {key: np.flatnonzero(node_of == key) for key in set(keys)}
    return local


def _part_root(part, node_of, layout):
    return _local(part, node_of, layout, [0]).root()


def _part_histograms(part, node_of, layout, keys):
    return _local(part, node_of, layout, keys).histograms(keys)


def _part_branch_weights(part, node_of, layout, items):
    return _local(part, node_of, layout, [item[0] for item in items]).branch_weights(items)


def _part_partition(part, node_of, layout, items):
    """The partition's answers to ``items``, and its rows' keys after the splits."""
    local = _local(part, node_of, layout, [item[0] for item in items])
    answers = local.partition(items)
    moved = node_of.copy()
    for item in items:
        for child in item[4]:
            moved[local.rows[child]] = child
    return moved, answers


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]
