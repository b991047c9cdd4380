"""One tree on several threads: nodes are tasks, grown as one split or as a whole subtree.

A task is a node with its rows, contiguous in one of two sets of row arrays (the other set
holds free room of the same shape, into which partitioning moves them). A task of more
than the small size (:func:`defer_rows_for`) is split, and the compiled grower grows its
children of at most that size too but leaves the larger ones unsplit (``pending``
DEFERRED: ``Settings.defer_rows`` one less than its rows, ``defer_min_rows`` the small
size); each of those becomes a task. A small task is grown whole. Tasks run
on a pool of threads (the kernels release the GIL), so both cores work from the second
level of the tree on; the grown pieces are grafted together in preorder at the end.

Each task hands its piece over as the tree's own arrays (``tree/arrays.NodeArrays``, made on
its thread), a piece of many nodes in memory mapped for it alone: the graft unmaps each
piece as it lays it, so the pieces and the whole tree are never held at once (freed into
a thread's malloc arena, the pieces would stay counted in the process's memory until the
graft ends).

A node's subtree depends only on its rows, its depth, the key of its feature draw and the
whole tree's weight, and the compiled grower numbers nodes, child slots and category tables
in preorder. So the grafted tree is the very tree one thread grows, for any number of
threads (``tests/grow/test_threaded_growth.py`` checks it array by array).
"""

from __future__ import annotations

import queue
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from .._config import FRACTIONAL, LEAF
from ..tree import leaves
from ..tree.arrays import PER_NODE, NodeArrays
from ._grow import grow_tree_in, total_weight
from ._records import GrownArrays
from ._settings import DEFERRED, Bins, Settings

#: Below this many rows a tree grows on one thread: the pool's start costs more than the
#: second thread saves.
MIN_THREADED_ROWS = 20_000
#: Subtrees per thread: enough for the threads to end together whatever the subtrees' costs.
SUBTREES_PER_THREAD = 16
#: The smallest subtree handed to a thread.
MIN_DEFER_ROWS = 2_000
#: A piece of at least this many nodes lies in pages of its own (smaller ones would waste
#: most of a page each).
OWN_PAGES_NODES = 256


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
    """What a task grew, as the tree's arrays, and the task id of each of its DEFERRED
    nodes (by node id)."""

    arrays: NodeArrays
    deferred: dict


def grow_tree_threaded(
    data, y_class, y_value, w, bins: Bins, s: Settings, n_threads: int
) -> NodeArrays:
    """The compiled grower's tree, as the tree's arrays, grown on ``n_threads`` threads,
    for settings :func:`can_thread` accepts; the arrays are overwritten as
    :func:`~quercus.grow._grow.grow_tree` overwrites them."""
    return graft(_grow_pieces((data, y_class, y_value, w), bins, s, n_threads))


def _grow_pieces(rows: tuple, bins: Bins, s: Settings, n_threads: int) -> dict[int, Piece]:
    """Grow the tree of the row arrays ``rows`` as tasks on ``n_threads`` threads; returns
    the piece of each task, by task id (the whole tree's: 0). Nothing of the tasks but the
    pieces outlives it (the spare row arrays, the pool's results)."""
    whole = s._replace(w_total=total_weight(rows[3]) if s.w_total <= 0.0 else s.w_total)
    small = defer_rows_for(len(rows[0]), n_threads)
    leaf_model = leaves.model_for(s.regression, s.criterion)
    top = Task(
        rows, tuple(np.empty_like(a) for a in rows), 0, len(rows[0]), s.root_depth, s.root_key
    )
    pieces: dict[int, Piece] = {}
    # Finished tasks arrive on a queue: waiting on the set of running futures would cost a
    # pass over them at each completion.
    finished: queue.SimpleQueue = queue.SimpleQueue()
    with ThreadPoolExecutor(n_threads) as pool:

        def submit(task: Task, task_id: int) -> None:
            future = pool.submit(_grow_task, task, bins, whole, small, leaf_model)
            future.add_done_callback(finished.put)
            running[future] = task_id

        running: dict = {}
        submit(top, 0)
        n_tasks = 1
        while running:
            future = finished.get()
            task_id = running.pop(future)
            arrays, children = future.result()
            deferred = {}
            for node, child in children:
                deferred[node] = n_tasks
                submit(child, n_tasks)
                n_tasks += 1
            pieces[task_id] = Piece(arrays, deferred)
    return pieces


def _grow_task(task: Task, bins: Bins, whole: Settings, small: int, leaf_model: str):
    """Grow ``task``: whole when it has at most ``small`` rows, else its root's split and
    every child of at most ``small`` rows, leaving the larger children DEFERRED. Returns
    what it grew as :class:`NodeArrays` (in pages of their own when it is large), and the
    ``(node, task)`` of each of its DEFERRED nodes."""
    n = task.end - task.start
    span = slice(task.start, task.end)
    s = whole._replace(
        root_depth=task.depth,
        root_key=task.draw_key,
        defer_rows=0 if n <= small else n - 1,
        defer_min_rows=small,
    )
    args = (tuple(a[span] for a in task.rows), tuple(a[span] for a in task.spare), bins, s)
    grown = GrownArrays(*grow_tree_in(*args))
    children = list(_child_tasks(task, grown))
    own_pages = len(grown.nodes) >= OWN_PAGES_NODES
    return NodeArrays.of_grown(grown, leaf_model, own_pages=own_pages), children


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


def graft(pieces: dict[int, Piece], root: int = 0) -> NodeArrays:
    """The tree of piece ``root`` with each DEFERRED node replaced by the tree of its
    piece, recursively. Every piece numbers its nodes, child slots and category tables in
    preorder; so does the result. Each piece is copied once into arrays of the final size
    and dropped from ``pieces`` (so its pages are freed as the tree is laid). Pieces nest
    as deep as the tree (a chain of splits that each peel off a few rows): both passes
    walk them with a stack of their own, not Python's."""
    sizes = _subtree_sizes(pieces, root)
    value, params = pieces[root].arrays.value, pieces[root].arrays.leaf_params
    out = NodeArrays.empty(*sizes[root], value.shape[1], 0 if params is None else params.shape[1])
    del value, params  # the root piece's: freed when laid
    todo = [(root, _Cursor(0, 0, 0))]
    while todo:
        piece_id, at = todo.pop()
        piece = pieces.pop(piece_id)
        if piece.deferred:
            todo.extend(_lay_split_piece(piece, sizes, out, at))
        else:
            _lay(piece, out, at)
    return out


class _Cursor(NamedTuple):
    """The next free node, child slot and category-table entry of the grafted arrays (or
    how many of each a subtree has)."""

    node: int
    slot: int
    cat: int


def _subtree_sizes(pieces: dict[int, Piece], root: int) -> dict[int, _Cursor]:
    """The nodes, child slots and table entries of each piece's tree, its pieces included."""
    order, stack = [], [root]
    while stack:
        piece_id = stack.pop()
        order.append(piece_id)
        stack.extend(pieces[piece_id].deferred.values())
    sizes: dict[int, _Cursor] = {}
    for piece_id in reversed(order):  # each piece after the pieces it holds
        piece = pieces[piece_id]
        own = piece.arrays
        total = [len(own.kind) - len(piece.deferred), len(own.children), len(own.cat_table)]
        for child in piece.deferred.values():
            total = [a + b for a, b in zip(total, sizes[child], strict=True)]
        sizes[piece_id] = _Cursor(*total)
    return sizes


def _lay(piece: Piece, out: NodeArrays, at: _Cursor) -> None:
    """Write the nodes of ``piece``, which has no DEFERRED node, into ``out`` from ``at``."""
    top = piece.arrays
    n, slots, cats = len(top.kind), len(top.children), len(top.cat_table)
    block = slice(at.node, at.node + n)
    for name in PER_NODE:
        array = getattr(out, name)
        if array is not None:
            array[block] = getattr(top, name)
    starts = out.child_start[block]
    np.add(starts, at.slot, out=starts, where=top.kind != LEAF)
    tables = out.cat_start[block]
    np.add(tables, at.cat, out=tables, where=tables >= 0)
    np.add(top.children, at.node, out=out.children[at.slot : at.slot + slots])
    out.cat_table[at.cat : at.cat + cats] = top.cat_table


def _lay_split_piece(piece: Piece, sizes: dict, out: NodeArrays, at: _Cursor) -> list:
    """:func:`_lay` for a piece with DEFERRED nodes: its own nodes, each moved on by the
    nodes, child slots and table entries that the subtrees of the DEFERRED nodes before it
    add. Returns where each of those subtrees goes: ``(piece id, cursor)``."""
    top, deferred = piece.arrays, piece.deferred
    n = len(top.kind)
    added = np.zeros((3, n + 1), dtype=np.int64)  # nodes, slots, entries before each node
    for node, child in deferred.items():
        grown = sizes[child]
        added[:, node + 1] = (grown.node - 1, grown.slot, grown.cat)
    np.cumsum(added, axis=1, out=added)
    place = at.node + np.arange(n) + added[0, :n]
    kept = np.ones(n, dtype=bool)
    kept[list(deferred)] = False
    for name in PER_NODE:
        array = getattr(out, name)
        if array is not None:
            array[place[kept]] = getattr(top, name)[kept]
    # Slots and table entries are numbered in the order of the nodes that own them.
    branch = np.flatnonzero(top.kind != LEAF)
    out.child_start[place[branch]] = at.slot + top.child_start[branch] + added[1, branch]
    owns_slots = np.zeros(n, dtype=np.int64)
    owns_slots[branch] = top.n_children[branch]
    shift = np.repeat(added[1, branch], owns_slots[branch])
    out.children[at.slot + np.arange(len(top.children)) + shift] = place[top.children]
    tabled = np.flatnonzero(top.cat_start >= 0)
    out.cat_start[place[tabled]] = at.cat + top.cat_start[tabled] + added[2, tabled]
    owns_cats = np.zeros(n, dtype=np.int64)
    owns_cats[tabled] = np.diff(top.cat_start[tabled], append=len(top.cat_table))
    shift = np.repeat(added[2, tabled], owns_cats[tabled])
    out.cat_table[at.cat + np.arange(len(top.cat_table)) + shift] = top.cat_table
    slots_before = np.concatenate([[0], np.cumsum(owns_slots)])
    cats_before = np.concatenate([[0], np.cumsum(owns_cats)])
    return [
        (
            deferred[node],
            _Cursor(
                int(place[node]),
                at.slot + int(slots_before[node] + added[1, node]),
                at.cat + int(cats_before[node] + added[2, node]),
            ),
        )
        for node in sorted(deferred)
    ]
