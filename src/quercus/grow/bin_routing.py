"""Routing rows on their bin codes: the outputs of trees for rows that hold only their codes.

Training rows are kept binned (in this process, or on a Dask worker that never sees their
raw values), and a booster adds its trees' outputs to the rows' scores after each
iteration. The trees test raw values (``x <= threshold``); :func:`in_bin_space` rewrites
each numeric threshold as a cut between bin codes: a bin goes left when its largest
training value is at most the threshold. Nominal and ordinal features are binned as their
codes, which the trees test already, and the missing code becomes NaN, which goes where
the tree sends a missing value.

Routing on codes sends a training row where its raw value goes, whenever no bin holds
values on both sides of a threshold: always with exact bins (one bin per value), and for
the rows a tree was grown on (a threshold lies between two bins that hold rows of its
node); a row outside a tree's sample, in a quantile bin that the threshold cuts through,
may go the other way.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._config import NUMERIC, NUMERIC_SPLIT
from .._parallel import run_parallel
from ..tree._stack_predict import block_rows, forest_sum
from ..tree.stack import TreeStack

#: Rows made into a float64 matrix at a time (a block of the codes, not all of them).
CODE_BLOCK = 65_536


def in_bin_space(trees: TreeStack, tables) -> TreeStack:
    """``trees`` with every numeric threshold replaced by its cut between bin codes, minus
    one half: a code below it goes left. ``tables``: the bin tables of the rows (a
    :class:`~quercus.binning.binned.BinnedData`; its rows are not read)."""
    m = trees.merged
    threshold = m.threshold.copy()
    feature = np.where(m.kind == NUMERIC_SPLIT, m.feature, -1)
    numeric = np.zeros(len(feature), dtype=bool)
    split = feature >= 0
    numeric[split] = tables.kinds[feature[split]] == NUMERIC
    n_bins = tables.mapper.n_bins
    for f in np.unique(feature[numeric]):
        nodes = numeric & (feature == f)
        highest = tables.bin_hi[f, : n_bins[f]]  # increasing: bins are ordered by value
        threshold[nodes] = np.searchsorted(highest, m.threshold[nodes], side="right") - 0.5
    return TreeStack(
        replace(m, threshold=threshold), trees.node_offsets, trees.child_offsets, trees.cat_offsets
    )


def add_outputs(binned: np.ndarray, n_features: int, missing: int, packed: tuple, out) -> None:
    """``out[i] += values[leaf]`` of every tree of ``packed`` (``(roots, routes, children,
    cat_table, values)`` of trees :func:`in_bin_space`) for each row ``i`` of the codes
    ``binned`` (its first ``n_features`` columns; ``missing``: the missing code)."""
    roots, routes, children, cat_table, values = packed
    for lo in range(0, len(binned), CODE_BLOCK):
        codes = binned[lo : lo + CODE_BLOCK, :n_features]
        matrix = codes.astype(np.float64)
        matrix[codes == missing] = np.nan
        part = out[lo : lo + len(codes)]
        run_parallel(
            forest_sum,
            matrix,
            roots,
            routes,
            children,
            cat_table,
            values,
            part,
            block_rows(len(matrix)),
            work=len(matrix) * len(roots),
        )


__all__ = ["CODE_BLOCK", "add_outputs", "in_bin_space"]
