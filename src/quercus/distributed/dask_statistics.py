"""Statistics providers whose rows live on the workers of a Dask cluster.

The level-wise grower (``grow/levelwise.py``) asks every question for a whole level, and a
forest's trees ask theirs together (``levelwise.drive_together``). Each round of questions
is one task per partition of the rows, run where the partition is, and the partitions'
answers are added. A partition is a tuple ``(binned codes, class codes, target values,
weights)`` held by a worker; beside it lie, for each tree, the partition's rows grouped by
the node they are in (a permutation of the rows the tree weighs, and each node's span of
it, as the compiled grower keeps its rows), remade by every partition step rather than
changed in place, so that Dask can recompute a lost partition from the steps before it.
Inside a task the rows are summed by :class:`~quercus.grow.statistics.LocalStatistics`,
the provider of one process, so a partition's sums are the ones a local fit makes of the
same rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..grow.statistics import LocalStatistics, grow_subtree


class DaskForestStatistics:
    """The rows of every tree of a forest, held by a Dask cluster in row partitions.

    Parameters
    ----------
    client : distributed.Client
    parts : list of distributed.Future
        One per partition: ``(binned, y_class, y_value, w)``, the binned codes C-ordered.
    layout : tuple
        ``(n_bins, missing_code, n_stats, regression)``, as
        :class:`~quercus.grow.statistics.LocalStatistics` takes them.
    n_trees : int
    first_rows : list of int
        The global index of each partition's first row.
    weigh : callable or None
        ``weigh(tree, first_row, w)``: the weights in ``tree`` of the partition's rows of
        weights ``w`` (a bootstrap draw: :data:`quercus.grow.rows.Weigh`), computed on
        the worker from the rows' global indices, so that they do not depend on how the
        rows are partitioned. None: every tree weighs the rows as they are.
    """

    def __init__(self, client, parts, layout, n_trees, first_rows, weigh=None, bins=None):
        self.client = client
        self.bins = bins  # the kernels' Bins, to grow subtrees
        self.parts = list(parts)
        self.layout = layout
        self.trees = (int(n_trees), list(first_rows), weigh)
        # Every row of positive weight starts in the root (key 0) of every tree.
        self.grouped = [
            client.submit(_root_rows, part, first_row, self.trees, pure=False)
            for part, first_row in zip(self.parts, self.trees[1], strict=True)
        ]

    def answer(self, kind, batch):
        """Answer the requests ``batch`` (``[(tree, items), ...]``) of one kind (a method of
        the provider protocol, or ``"root"``) on every partition; one answer per tree."""
        batch = list(batch)
        if kind == "drop":
            # Keys are never reused: the rows of a dropped node are simply never asked for.
            return [[None] * len(items) for _, items in batch]
        if kind == "subtrees":
            return self._subtrees(batch)
        steps = [
            self.client.submit(
                _part_answer, part, grouped, index, self.layout, self.trees, kind, batch, pure=False
            )
            for index, (part, grouped) in enumerate(zip(self.parts, self.grouped, strict=True))
        ]
        if kind == "partition":
            self.grouped = [self.client.submit(_first, step, pure=False) for step in steps]
            steps = [self.client.submit(_second, step, pure=False) for step in steps]
        # The partitions' answers are added on the workers, up a tree of tasks, so the
        # client receives one answer, not one per partition.
        while len(steps) > 1:
            steps = [
                self.client.submit(_add_partitions, kind, *steps[i : i + FAN_IN], pure=False)
                for i in range(0, len(steps), FAN_IN)
            ]
        return self.client.gather(steps[0])

    def _subtrees(self, batch):
        """Each requested node's rows gathered from every partition to one task, and its
        subtree grown there by the compiled grower; the nodes are dealt to a few tasks of
        about equal rows, which run in parallel across the workers."""
        jobs = [(tree, key, settings, n) for tree, items in batch for key, settings, n in items]
        n_groups = min(len(jobs), 2 * max(1, len(self.client.scheduler_info()["workers"])))
        groups = [[] for _ in range(n_groups)]
        load = [0] * n_groups
        for job in sorted(range(len(jobs)), key=lambda j: -jobs[j][3]):
            lightest = load.index(min(load))
            groups[lightest].append(job)
            load[lightest] += jobs[job][3]
        wanted = [[jobs[j][:2] for j in group] for group in groups]
        pieces = [
            self.client.submit(_subtree_rows, part, grouped, index, self.trees, wanted, pure=False)
            for index, (part, grouped) in enumerate(zip(self.parts, self.grouped, strict=True))
        ]
        grown = [
            self.client.submit(
                _grow_group,
                self.bins,
                [jobs[j][2] for j in group],
                [jobs[j][0] for j in group],
                self.trees,
                *[self.client.submit(_item, piece, g, pure=False) for piece in pieces],
                pure=False,
            )
            for g, group in enumerate(groups)
        ]
        subtree_of = {}
        for group, trees in zip(groups, self.client.gather(grown), strict=True):
            for job, subtree in zip(group, trees, strict=True):
                subtree_of[job] = subtree
        answers, job = [], 0
        for _, items in batch:
            answers.append([subtree_of[job + i] for i in range(len(items))])
            job += len(items)
        return answers


class DaskStatistics:
    """The :class:`~quercus.grow.statistics.StatisticsProvider` of one tree over row
    partitions held by a Dask cluster (see :class:`DaskForestStatistics` for the
    parameters; the rows weigh as they are)."""

    def __init__(self, client, parts, n_bins, missing_code, n_stats, regression):
        layout = (np.asarray(n_bins), int(missing_code), int(n_stats), bool(regression))
        self.forest = DaskForestStatistics(client, parts, layout, 1, [0] * len(parts))

    def _ask(self, kind, items):
        return self.forest.answer(kind, [(0, items)])[0]

    def root(self):
        return self._ask("root", None)

    def histograms(self, keys):
        return self._ask("histograms", keys)

    def branch_weights(self, items):
        return self._ask("branch_weights", items)

    def partition(self, items):
        return self._ask("partition", items)

    def drop(self, keys):
        return self._ask("drop", keys)


def _tree_weights(w, tree, first_row, trees):
    """The rows' weights in ``tree``."""
    weigh = trees[2]
    return w if weigh is None else weigh(tree, first_row, w)


class TreeRows(NamedTuple):
    """A partition's rows in one tree, grouped by node: the rows of node ``key`` are
    ``order[start:end]`` for ``(start, end) = spans[key]``, in increasing order."""

    order: np.ndarray
    spans: dict


def _root_rows(part, first_row, trees) -> list[TreeRows]:
    """Each tree's rows at the start: all in the root (key 0), but for the rows a tree
    weighs 0, which a local fit leaves out as well."""
    w = part[3]
    rows = []
    for tree in range(trees[0]):
        order = np.flatnonzero(_tree_weights(w, tree, first_row, trees) > 0).astype(np.int32)
        rows.append(TreeRows(order, {0: (0, len(order))}))
    return rows


def _split_spans(tree_rows: TreeRows, items, local) -> TreeRows:
    """``tree_rows`` after the splits ``items``: each split node's span handed to its
    children (rows found by ``local``'s partition), in a new order array."""
    order = tree_rows.order.copy()
    spans = dict(tree_rows.spans)
    for item in items:
        start, _ = spans.pop(item[0])
        for child in item[4]:
            child_rows = local.rows[child]
            order[start : start + len(child_rows)] = child_rows
            spans[child] = (start, start + len(child_rows))
            start += len(child_rows)
    return TreeRows(order, spans)


def _part_answer(part, grouped, index, layout, trees, kind, batch):
    """One partition's answers to ``batch`` (for ``"partition"``: with its rows regrouped after
    the splits)."""
    data, y_class, y_value, w = part
    n_bins, missing_code, n_stats, regression = layout
    moved = list(grouped) if kind == "partition" else grouped
    answers = []
    for tree, items in batch:
        w_tree = _tree_weights(w, tree, trees[1][index], trees)
        local = LocalStatistics(
            data, y_class, y_value, w_tree, n_bins, missing_code, n_stats, regression
        )
        tree_rows = grouped[tree]
        if kind == "root":
            keys = [0]
        else:
            keys = items if kind == "histograms" else [item[0] for item in items]
        local.rows = {}
        for key in keys:
            start, end = tree_rows.spans[key]
            local.rows[key] = tree_rows.order[start:end]
        answers.append(local.root() if kind == "root" else getattr(local, kind)(items))
        if kind == "partition":
            moved[tree] = _split_spans(tree_rows, items, local)
    return (moved, answers) if kind == "partition" else answers


class GroupRows(NamedTuple):
    """A partition's rows of a group of subtrees, each row sent once however many of the
    group's nodes hold it (a forest's roots all hold most rows): the rows' codes, class
    codes, targets and weights, their indices in the partition (``rows``, increasing),
    and for each node of the group the positions of its rows among them."""

    data: np.ndarray
    y_class: np.ndarray
    y_value: np.ndarray
    w: np.ndarray
    rows: np.ndarray
    positions: list
    first_row: int
    n_rows: int


def _subtree_rows(part, grouped, index, trees, wanted) -> list[GroupRows]:
    """The partition's rows of each group of ``(tree, key)`` of ``wanted``."""
    data, y_class, y_value, w = part
    out = []
    for group in wanted:
        node_rows = []
        for tree, key in group:
            start, end = grouped[tree].spans[key]
            node_rows.append(grouped[tree].order[start:end])
        held = np.zeros(len(w), dtype=bool)
        for rows in node_rows:
            held[rows] = True
        rows = np.flatnonzero(held)
        positions = [np.searchsorted(rows, r).astype(np.int32) for r in node_rows]
        out.append(
            GroupRows(
                data[rows],
                y_class[rows],
                y_value[rows],
                w[rows],
                rows.astype(np.int32),
                positions,
                trees[1][index],
                len(w),
            )
        )
    return out


def _grow_group(bins, settings, group_trees, trees, *pieces):
    """The subtrees of one group: each node's rows from every partition (``pieces``, the
    partitions' :class:`GroupRows`), in partition order (the order of a local fit's rows),
    weighed as its tree weighs them and grown by the compiled grower."""
    columns = [
        np.concatenate([getattr(piece, name) for piece in pieces])
        for name in ("data", "y_class", "y_value")
    ]
    offsets = np.cumsum([0] + [len(piece.rows) for piece in pieces[:-1]])
    draws = {}  # each tree's factors of a partition's weights, computed once
    subtrees = []
    for job, (tree, s) in enumerate(zip(group_trees, settings, strict=True)):
        at = np.concatenate(
            [piece.positions[job] + offset for piece, offset in zip(pieces, offsets, strict=True)]
        )
        weights = []
        for p, piece in enumerate(pieces):
            positions = piece.positions[job]
            w = piece.w[positions]
            if trees[2] is not None:
                if (tree, p) not in draws:
                    # weights of 1: each row's factor alone
                    draws[tree, p] = trees[2](tree, piece.first_row, np.ones(piece.n_rows))
                w = w * draws[tree, p][piece.rows[positions]]
            weights.append(w)
        subtrees.append(grow_subtree(*(c[at] for c in columns), np.concatenate(weights), bins, s))
    return subtrees


def _item(sequence, index):
    return sequence[index]


#: How many answers a task of the reduction adds (in partition order, as the client did).
FAN_IN = 8


def _add_partitions(kind, *answers):
    """The answers of several partitions (each a list, one item per tree) added up, tree by
    tree."""
    add = _add_root if kind == "root" else _add_up
    return [add(per_part) for per_part in zip(*answers, strict=True)]


def _add_root(answers):
    """The root totals ``(rows, weight, statistics)`` summed over partitions."""
    return (
        sum(a[0] for a in answers),
        sum(a[1] for a in answers),
        np.sum([a[2] for a in answers], axis=0),
    )


def _add_up(answers):
    """The sum over partitions of lists of answers (tuples of arrays), item by item."""
    total = list(answers[0])
    for answer in answers[1:]:
        total = [_sum_items(a, b) for a, b in zip(total, answer, strict=True)]
    return total


def _sum_items(a, b):
    summed = [u + v for u, v in zip(a, b, strict=True)]
    return type(a)(*summed) if hasattr(a, "_fields") else tuple(summed)


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]
