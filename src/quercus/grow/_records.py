"""Named records of the growth kernels: nodes, pending work, candidate splits, trace rows.

They are NumPy structured dtypes, which Numba compiles to plain struct fields: a kernel
writes ``nodes[i].weight`` where it used to write ``fnodes[i, F_WEIGHT]``, at the same cost.
``align=True`` lays the fields out as a C struct would (each on its natural boundary).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: One node of a tree being grown. ``kind`` is what the node is (LEAF until its split is
#: applied), ``pending`` the split recorded for it and not yet applied (best-first growth
#: records splits long before it applies them). ``start:end`` are the node's rows in the
#: row arrays, in the input arrays or in their copies (``in_buffer``); ``bin_cut`` is the
#: last bin code on the left of a threshold split. ``draw_key`` keys the draw of the node's
#: candidate features (``grow._draws.candidate_features``).
NODE = np.dtype(
    [
        ("kind", np.int32),
        ("pending", np.int32),
        ("feature", np.int32),
        ("depth", np.int32),
        ("n_samples", np.int32),
        ("child_start", np.int32),
        ("n_children", np.int32),
        ("missing_child", np.int32),
        ("cat_start", np.int32),
        ("bin_cut", np.int32),
        ("in_buffer", np.int32),
        ("start", np.int64),
        ("end", np.int64),
        ("threshold", np.float64),
        ("impurity", np.float64),
        ("weight", np.float64),
        ("improvement", np.float64),
        ("median", np.float64),
        ("draw_key", np.uint64),
    ],
    align=True,
)

#: A node waiting to be created: its rows, depth, the child slot and parent it hangs from
#: (``slot`` -1 for the root), where its rows are, the key of its feature draw, and the
#: slot of its histograms in the grower's pool (``hist``, -1 for none: histogram
#: subtraction, ``grow/_histogram_pool.py``).
WORK = np.dtype(
    [
        ("start", np.int64),
        ("end", np.int64),
        ("depth", np.int64),
        ("slot", np.int64),
        ("parent", np.int64),
        ("in_buffer", np.int64),
        ("draw_key", np.uint64),
        ("hist", np.int64),
    ],
    align=True,
)

#: The best split of one candidate feature at a node. ``cut`` is -1 when the feature has no
#: admissible split; ``lo``/``hi`` are the bin codes on either side of a threshold;
#: ``missing`` is the branch that missing values take when the policy learns it, else -1.
CANDIDATE = np.dtype(
    [
        ("feature", np.int64),
        ("gain", np.float64),
        ("split_info", np.float64),
        ("cut", np.int64),
        ("missing", np.int64),
        ("lo", np.int64),
        ("hi", np.int64),
    ],
    align=True,
)

#: One row of the learning trace: a candidate feature scored at a node.
TRACE = np.dtype(
    [
        ("node", np.int64),
        ("feature", np.int64),
        ("gain", np.float64),
        ("split_info", np.float64),
        ("admissible", np.bool_),
        ("threshold", np.float64),
    ],
    align=True,
)


class GrownArrays(NamedTuple):
    """What the growth kernel returns, cut to size: views of its arrays, which have room
    past the end (grown by doubling; the pages never written are not in memory); a caller
    that keeps them long copies them (``Tree.from_grown`` does).

    ``nodes`` (:data:`NODE` records), ``values`` (each node's statistics), ``children``
    (child node ids, ``nodes.child_start`` indexes it), ``cat_table`` (the bitset of each
    binary subset split, from ``nodes.cat_start``: ``splitting/category_sets.py``); with
    tracing, ``trace``
    (:data:`TRACE` records) and ``trace_sides`` (per trace row, the side of each category
    of a binary subset split: 0 left, 1 right, -1 absent).
    """

    nodes: np.ndarray
    values: np.ndarray
    children: np.ndarray
    cat_table: np.ndarray
    trace: np.ndarray
    trace_sides: np.ndarray
    oblique: np.ndarray | None = None  # oblique splits' weights per node (level-wise growth)
