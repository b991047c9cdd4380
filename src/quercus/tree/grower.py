"""Growing a tree on binned rows: the growth parameters in the kernel's units, the call of
the growth kernel, and the flat :class:`~quercus.tree.Tree` of its arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import CRITERIA, FRACTIONAL
from ._grow import grow_tree
from .arrays import Tree

__all__ = ["GrowthParams", "grow_binned", "tree_from_grown"]


@dataclass(frozen=True)
class GrowthParams:
    """The validated growth parameters, in the units the kernel takes (weights)."""

    criterion: int
    multiway: bool
    max_depth: int
    min_split: float
    min_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int
    max_features: int
    seed: int
    ccp_alpha: float
    missing: int


def grow_binned(
    data,
    binned: np.ndarray,
    y_class: np.ndarray,
    y_value: np.ndarray,
    w: np.ndarray,
    params: GrowthParams,
    *,
    regression: bool,
    n_stats: int,
    c45_classes: int = 0,
    c45_tolerance: float = 0.0,
    chi2_critical: np.ndarray | None = None,
    trace: bool = False,
):
    """The growth kernel on binned rows (``data`` a :class:`~quercus.binning.binned.
    BinnedData` for the bin tables; ``binned``, ``y_class``, ``y_value``, ``w`` are
    overwritten: pass copies). Returns the kernel's arrays (see ``grow_tree``)."""
    return grow_tree(
        binned,
        y_class,
        y_value,
        w,
        data.kinds,
        data.mapper.n_bins,
        data.mapper.missing,
        data.bin_lo,
        data.bin_hi,
        params.multiway,
        params.criterion,
        regression,
        n_stats,
        params.max_depth,
        params.min_split,
        params.min_leaf,
        params.min_impurity_decrease,
        params.max_leaf_nodes,
        params.max_features,
        params.seed,
        c45_classes,
        c45_tolerance,
        np.zeros(1) if chi2_critical is None else chi2_critical,
        params.missing,
        bool(trace),
    )


def tree_from_grown(grown, params: GrowthParams, regression: bool) -> Tree:
    """The flat tree of :func:`grow_binned`'s arrays, grown with ``params``."""
    return Tree.from_grown(
        grown,
        regression=regression,
        median_leaves=params.criterion == CRITERIA["absolute_error"],
        fractional=params.missing == FRACTIONAL,
    )
