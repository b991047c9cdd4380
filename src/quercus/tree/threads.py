"""One tree on several threads: the top of the tree on one thread, then its subtrees on all.

The compiled grower grows the top of the tree depth-first, leaving every node of at most
``defer_rows`` rows unsplit (``pending`` DEFERRED) with its rows contiguous in place. Each
such node's subtree is then grown by the compiled grower on its own rows, on a pool of
threads (the kernels release the GIL), largest first so the threads finish together, and
the subtrees are grafted into the top in preorder.

A deferred node's subtree depends only on its rows, its depth, the key of its feature draw
and the whole tree's weight; and the compiled grower numbers nodes, child slots and
category tables in preorder. So the grafted tree is the very tree one thread grows, for
any number of threads (``tests/tree/test_threads.py`` checks it array by array).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

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
    """Whether a tree of ``n_rows`` rows with settings ``s`` grows as top and subtrees:
    C4.5's fractional copies share one pool of rows, best-first growth picks its next node
    across the whole tree, and the trace numbers rows by the order of the search."""
    return (
        n_rows >= MIN_THREADED_ROWS
        and s.missing_mode != FRACTIONAL
        and s.max_leaf_nodes <= 0
        and not s.trace_on
    )


def defer_rows_for(n_rows: int, n_threads: int) -> int:
    """The size of the largest subtree handed to a thread."""
    return max(MIN_DEFER_ROWS, n_rows // (SUBTREES_PER_THREAD * n_threads))


def grow_tree_threaded(data, y_class, y_value, w, bins: Bins, s: Settings, n_threads: int):
    """The compiled grower's tree (its :class:`GrownArrays`) grown on ``n_threads``
    threads, for settings :func:`can_thread` accepts; the arrays are overwritten as
    :func:`~quercus.tree._grow.grow_tree` overwrites them."""
    rows = (data, y_class, y_value, w)
    buffers = tuple(np.empty_like(a) for a in rows)
    whole = s._replace(w_total=total_weight(w) if s.w_total <= 0.0 else s.w_total)
    top = GrownArrays(
        *grow_tree_in(
            rows, buffers, bins, whole._replace(defer_rows=defer_rows_for(len(data), n_threads))
        )
    )
    deferred = np.flatnonzero(top.nodes["pending"] == DEFERRED)
    if len(deferred) == 0:
        return top

    def grow(node):
        rec = top.nodes[node]
        here, there = (buffers, rows) if rec["in_buffer"] else (rows, buffers)
        span = slice(int(rec["start"]), int(rec["end"]))
        sub = whole._replace(root_depth=int(rec["depth"]), root_key=rec["draw_key"])
        return GrownArrays(
            *grow_tree_in(
                tuple(a[span] for a in here), tuple(a[span] for a in there), bins, sub
            )
        )

    largest_first = deferred[np.argsort(-top.nodes["n_samples"][deferred], kind="stable")]
    with ThreadPoolExecutor(n_threads) as pool:
        grown = dict(zip(largest_first.tolist(), pool.map(grow, largest_first), strict=True))
    return graft(top, grown)


def graft(top: GrownArrays, subtrees: dict[int, GrownArrays]) -> GrownArrays:
    """``top`` with each leaf ``node`` of ``subtrees`` replaced by the subtree grown under it.

    ``top`` and the subtrees number their nodes, child slots and category tables in
    preorder; so does the result."""
    n_top = len(top.nodes)
    sizes = np.ones(n_top, dtype=np.int64)
    for node, sub in subtrees.items():
        sizes[node] = len(sub.nodes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    is_split = top.nodes["kind"] != LEAF
    nodes, values, children, cat_table = [], [], [], []
    n_slots = n_cat = 0
    for node in range(n_top):
        sub = subtrees.get(node)
        if sub is not None:
            block = sub.nodes.copy()
            block["child_start"][block["kind"] != LEAF] += n_slots
            block["cat_start"][block["cat_start"] >= 0] += n_cat
            nodes.append(block)
            values.append(sub.values)
            children.append(sub.children + first[node])
            cat_table.append(sub.cat_table)
            n_slots += len(sub.children)
            n_cat += len(sub.cat_table)
            continue
        rec = top.nodes[node : node + 1].copy()
        if is_split[node]:
            start, count = int(rec["child_start"][0]), int(rec["n_children"][0])
            rec["child_start"] = n_slots
            children.append(first[top.children[start : start + count]])
            n_slots += count
            if rec["cat_start"][0] >= 0:
                lo = int(rec["cat_start"][0])
                rec["cat_start"] = n_cat
                width = _cat_width(top, node, lo)
                cat_table.append(top.cat_table[lo : lo + width])
                n_cat += width
        nodes.append(rec)
        values.append(top.values[node : node + 1])
    return GrownArrays(
        np.concatenate(nodes),
        np.concatenate(values),
        np.concatenate(children or [np.zeros(0)]).astype(np.int32),
        np.concatenate(cat_table or [np.zeros(0)]).astype(np.int32),
        top.trace,
        top.trace_sides,
    )


def _cat_width(top: GrownArrays, node: int, lo: int) -> int:
    """The length of ``node``'s category table in ``top`` (which starts at ``lo``): up to
    the next table, or to the end."""
    starts = top.nodes["cat_start"]
    later = starts[(starts > lo) & (top.nodes["kind"] != LEAF)]
    return int(later.min()) - lo if len(later) else len(top.cat_table) - lo
