"""What a look-ahead fit costs, estimated before it starts, step by step as ``_lookahead.py``
takes them.

A node's look-ahead search (:func:`~quercus.splitting._lookahead.lookahead_splits`) tries
up to ``cuts`` cuts of each feature (one split of a nominal feature split many ways), moves
the node's rows to the two children of each, and scores each child by its best split
``lookahead`` levels further down; the last level scores every cut of every feature from a
histogram. Its time is spent in three steps, each priced in seconds:

- a row read: into a histogram, or sent to a child (:data:`ROW_SECONDS`);
- a cut scored at the last level: its sides summed and two impurities
  (:data:`CUT_SECONDS`); a feature offers as many cuts as it has bin codes present, at most
  the rows;
- a bin code passed over: a histogram cleared and scanned, whatever the rows
  (:data:`CODE_SECONDS`).

The tree is priced level by level as a tree whose splits share the rows evenly: at depth
``d`` the nodes hold every row, each of ``n / branching ** d`` rows, and the levels go on
while a node holds the least rows it needs to be split (``min_samples_split``, twice
``min_samples_leaf``), down to ``max_depth``; near it the look-ahead sees fewer levels (as
the kernel: none past ``max_depth``). A lopsided tree goes deeper and costs more; a tree
that stops early (pure nodes) costs less.

The prices come from the look-ahead table of ``bench/README.md``: diabetes and ionosphere
at full depth are estimated at 1.7 to 2 times the time measured, parity and the MONK's
problems (hundredths of a second) at 0.7 to 0.8 times; and from the 1,000 x 20 numeric rows
of the hardening issue (``max_depth=3, lookahead=2``): 338 s measured, 222 s estimated.
"""

from __future__ import annotations

import numpy as np

#: Seconds to read a row into a histogram or send it to a child.
ROW_SECONDS = 3e-9
#: Seconds to score a cut where the look-ahead ends (a fresh array a cut, two impurities).
CUT_SECONDS = 1e-7
#: Seconds to pass over a bin code (clear it, scan it) in a node's histogram.
CODE_SECONDS = 1e-9


def _tried(size: float, n_bins, many_ways, cuts: int) -> tuple[float, float]:
    """The splits a node of ``size`` rows tries at a level but the last (up to ``cuts`` a
    feature, at most its codes present less one; one of a feature split many ways), and
    their children on average."""
    present = np.minimum(n_bins, max(size, 1.0))
    splits = np.where(many_ways, 1.0, np.clip(np.minimum(cuts, present - 1.0), 0.0, None))
    kids = np.where(many_ways, n_bins, 2.0)
    return float(splits.sum()), max(2.0, float(kids @ splits) / max(float(splits.sum()), 1.0))


def _search(ahead: int, n_rows: float, n_nodes: float, n_bins, many_ways, share, cuts) -> float:
    """Seconds to search ``n_nodes`` nodes holding ``n_rows`` rows in all, looking ``ahead``
    levels below the children (0: the children's impurity only); a node draws ``share`` of
    the features. ``n_bins``: each feature's bins; ``many_ways``: whether it splits one
    branch a bin."""
    passed = n_bins.sum() + n_bins.max() + 1.0  # codes cleared and scanned by a node's search

    def searched(nodes: float, drawn: float) -> float:
        """The histograms of ``nodes`` nodes over ``drawn`` of the features, and their cuts
        scored."""
        rows = (drawn * len(n_bins) + 1.0) * n_rows
        scored = drawn * np.minimum(nodes * n_bins, n_rows).sum()
        return rows * ROW_SECONDS + scored * CUT_SECONDS + drawn * nodes * passed * CODE_SECONDS

    def reach(levels: int, nodes: float) -> float:
        """``B_levels`` of ``nodes`` nodes: their best splits ``levels`` deep."""
        if levels == 0:
            return n_rows * ROW_SECONDS  # their statistics
        seconds = searched(nodes, 1.0)
        if levels >= 2:
            splits, children = _tried(n_rows / nodes, n_bins, many_ways, cuts)
            seconds += splits * (n_rows * ROW_SECONDS + reach(levels - 1, nodes * children))
        return seconds

    splits, children = _tried(n_rows / n_nodes, n_bins, many_ways, cuts)
    below = n_rows * ROW_SECONDS + reach(ahead, n_nodes * children)
    return searched(n_nodes, share) + share * splits * below


def lookahead_seconds(
    lookahead: int,
    n_rows: int,
    n_bins,
    many_ways,
    *,
    max_depth: int,
    min_rows: float,
    share: float,
    cuts: int,
) -> tuple[float, int]:
    """The estimated seconds of a look-ahead fit of ``n_rows`` rows and the levels priced:
    ``n_bins`` each feature's bins, ``many_ways`` whether it splits one branch a bin,
    ``max_depth`` (-1: none), ``min_rows`` the least rows of a node that may be split,
    ``share`` of the features a node draws, ``cuts`` a feature offers at each level but
    the last."""
    n_bins = np.maximum(np.asarray(n_bins, dtype=np.float64), 1.0)
    many_ways = np.asarray(many_ways, dtype=bool)
    if n_bins.size == 0 or n_rows < 2:
        return 0.0, 0
    min_rows = max(float(min_rows), 2.0)
    # A path splits a feature at most once a bin (once if many ways).
    depth = int(np.where(many_ways, 1.0, n_bins - 1.0).sum())
    if max_depth >= 0:
        depth = min(depth, max_depth)
    seconds, nodes, level = 0.0, 1.0, 0
    while level < depth and n_rows / nodes >= min_rows:
        ahead = lookahead if max_depth < 0 else min(lookahead, max(max_depth - level - 1, 0))
        seconds += _search(ahead, float(n_rows), nodes, n_bins, many_ways, share, cuts)
        nodes *= _tried(n_rows / nodes, n_bins, many_ways, cuts)[1]
        level += 1
    return seconds, level
