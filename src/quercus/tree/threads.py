"""One tree on several threads: nodes are tasks, grown as one split or as a whole subtree.

A task is a node with its rows, contiguous in one of two sets of row arrays (the other set
holds free room of the same shape, into which partitioning moves them). A task of more
than ``defer_rows`` rows is only split: the compiled grower grows its root and leaves its
children unsplit (``pending`` DEFERRED, with ``defer_rows`` one less than its rows), and
each child becomes a task. A smaller task is grown whole by the compiled grower. Tasks run
on a pool of threads (the kernels release the GIL), so both cores work from the second
level of the tree on; the grown pieces are grafted together in preorder at the end.

A node's subtree depends only on its rows, its depth, the key of its feature draw and the
whole tree's weight, and the compiled grower numbers nodes, child slots and category tables
in preorder. So the grafted tree is the very tree one thread grows, for any number of
threads (``tests/tree/test_threaded_growth.py`` checks it array by array).
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import NamedTuple

import numpy as np

from .._config import FRACTIONAL, LEAF
from ._grow import DEFERRED, Bins, Settings, grow_tree_in, total_weight
from ._records import GrownArrays

#: Below this many rows a tree grows on one thread: the pool's start costs more than the
#: second thread saves.
MIN_THREADED_ROWS = 20_000
#: Subtrees per thread: enough for the threads to end together whatever the subtrees' costs.
SUBTREES_PER_THREAD = 16
#: The smallest subtree handed to a thread.
MIN_DEFER_ROWS = 2_000


def can_thread(n_rows: int, s: Settings) -> bool:
    """Whether a tree of ``n_rows`` rows with settings ``s`` grows as tasks: C4.5's
    fractional copies share one pool of rows, best-first growth picks its next node across
    the whole tree, and the trace numbers rows by the order of the search."""
    return (
        n_rows >= MIN_THREADED_ROWS
        and s.missing_mode != FRACTIONAL
        and s.max_leaf_nodes <= 0
        and not s.trace_on
    )


def defer_rows_for(n_rows: int, n_threads: int) -> int:
    """The size of the largest subtree grown whole by one task."""
    return max(MIN_DEFER_ROWS, n_rows // (SUBTREES_PER_THREAD * n_threads))


class Task(NamedTuple):
    """A node to grow: its rows are ``rows[start:end]`` (each of the four row arrays),
    ``spare`` the arrays partitioning moves them into; its depth and feature-draw key."""

    rows: tuple
    spare: tuple
    start: int
    end: int
    depth: int
    draw_key: np.uint64


class Piece(NamedTuple):
    """What a task grew, and the task id of each of its DEFERRED nodes (by node id)."""

    grown: GrownArrays
    deferred: dict


def grow_tree_threaded(data, y_class, y_value, w, bins: Bins, s: Settings, n_threads: int):
    """The compiled grower's tree (its :class:`GrownArrays`) grown on ``n_threads``
    threads, for settings :func:`can_thread` accepts; the arrays are overwritten as
    :func:`~quercus.tree._grow.grow_tree` overwrites them."""
    rows = (data, y_class, y_value, w)
    whole = s._replace(w_total=total_weight(w) if s.w_total <= 0.0 else s.w_total)
    small = defer_rows_for(len(data), n_threads)
    tasks = [
        Task(rows, tuple(np.empty_like(a) for a in rows), 0, len(data), s.root_depth, s.root_key)
    ]
    pieces: dict[int, Piece] = {}
    with ThreadPoolExecutor(n_threads) as pool:
        running = {pool.submit(_grow_task, tasks[0], bins, whole, small): 0}
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                task_id = running.pop(future)
                grown = future.result()
                deferred = {}
                for node, child in _child_tasks(tasks[task_id], grown):
                    deferred[node] = len(tasks)
                    tasks.append(child)
                    running[pool.submit(_grow_task, child, bins, whole, small)] = deferred[node]
                pieces[task_id] = Piece(grown, deferred)
    return graft(pieces)


def _grow_task(task: Task, bins: Bins, whole: Settings, small: int) -> GrownArrays:
    """Grow ``task``: whole when it has at most ``small`` rows, else only its root's split."""
    n = task.end - task.start
    span = slice(task.start, task.end)
    s = whole._replace(
        root_depth=task.depth, root_key=task.draw_key, defer_rows=0 if n <= small else n - 1
    )
    return GrownArrays(
        *grow_tree_in(
            tuple(a[span] for a in task.rows), tuple(a[span] for a in task.spare), bins, s
        )
    )


def _child_tasks(task: Task, grown: GrownArrays):
    """``(node, task)`` of each DEFERRED node of what ``task`` grew, largest first."""
    nodes = grown.nodes
    deferred = np.flatnonzero(nodes["pending"] == DEFERRED)
    for node in deferred[np.argsort(-nodes["n_samples"][deferred], kind="stable")].tolist():
        rec = nodes[node]
        moved = bool(rec["in_buffer"])
        yield (
            node,
            Task(
                task.spare if moved else task.rows,
                task.rows if moved else task.spare,
                task.start + int(rec["start"]),
                task.start + int(rec["end"]),
                int(rec["depth"]),
                rec["draw_key"],
            ),
        )


def graft(pieces: dict[int, Piece], root: int = 0) -> GrownArrays:
    """The tree of piece ``root`` with each DEFERRED node replaced by the tree of its
    piece, recursively. Every piece numbers its nodes, child slots and category tables in
    preorder; so does the result, each piece's arrays copied once."""
    sizes: dict[int, int] = {}

    def size(piece_id: int) -> int:
        piece = pieces[piece_id]
        total = len(piece.grown.nodes) - len(piece.deferred)
        total += sum(size(child) for child in piece.deferred.values())
        sizes[piece_id] = total
        return total

    size(root)
    out = _Blocks()
    _lay(pieces, root, sizes, out, first_node=0)
    return out.arrays(pieces[root].grown)


class _Blocks:
    """The arrays of the grafted tree, as the blocks laid so far."""

    def __init__(self):
        self.nodes, self.values, self.children, self.cat_table = [], [], [], []
        self.n_slots = 0
        self.n_cat = 0

    def arrays(self, root: GrownArrays) -> GrownArrays:
        return GrownArrays(
            np.concatenate(self.nodes),
            np.concatenate(self.values),
            np.concatenate(self.children or [np.zeros(0)]).astype(np.int32),
            np.concatenate(self.cat_table or [np.zeros(0)]).astype(np.int32),
            root.trace,
            root.trace_sides,
        )


def _lay(pieces, piece_id: int, sizes: dict, out: _Blocks, first_node: int) -> None:
    """Append the nodes of piece ``piece_id`` (and of its pieces, in preorder) to ``out``;
    its first node gets the id ``first_node``."""
    piece = pieces[piece_id]
    top = piece.grown
    if not piece.deferred:  # laid as one block
        block = top.nodes.copy()
        block["child_start"][block["kind"] != LEAF] += out.n_slots
        block["cat_start"][block["cat_start"] >= 0] += out.n_cat
        out.nodes.append(block)
        out.values.append(top.values)
        out.children.append(top.children + first_node)
        out.cat_table.append(top.cat_table)
        out.n_slots += len(top.children)
        out.n_cat += len(top.cat_table)
        return
    node_sizes = np.ones(len(top.nodes), dtype=np.int64)
    for node, child in piece.deferred.items():
        node_sizes[node] = sizes[child]
    first = first_node + np.concatenate([[0], np.cumsum(node_sizes)[:-1]])
    is_split = top.nodes["kind"] != LEAF
    for node in range(len(top.nodes)):
        child = piece.deferred.get(node)
        if child is not None:
            _lay(pieces, child, sizes, out, int(first[node]))
            continue
        rec = top.nodes[node : node + 1].copy()
        if is_split[node]:
            start, count = int(rec["child_start"][0]), int(rec["n_children"][0])
            rec["child_start"] = out.n_slots
            out.children.append(first[top.children[start : start + count]])
            out.n_slots += count
            if rec["cat_start"][0] >= 0:
                lo = int(rec["cat_start"][0])
                rec["cat_start"] = out.n_cat
                width = _cat_width(top, lo)
                out.cat_table.append(top.cat_table[lo : lo + width])
                out.n_cat += width
        out.nodes.append(rec)
        out.values.append(top.values[node : node + 1])


def _cat_width(top: GrownArrays, lo: int) -> int:
    """The length of the category table at ``lo`` in ``top``: up to the next table, or to
    the end."""
    starts = top.nodes["cat_start"]
    later = starts[(starts > lo) & (top.nodes["kind"] != LEAF)]
    return int(later.min()) - lo if len(later) else len(top.cat_table) - lo
