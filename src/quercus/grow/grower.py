"""Growing a tree on binned rows: the growth parameters in the kernel's units, the call of
the growth kernel, and the flat :class:`~quercus.tree.Tree` of its arrays."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._config import FRACTIONAL
from ..tree import leaves
from ..tree.arrays import Tree
from ._draws import root_draw_key
from ._grow import grow_tree
from ._records import GrownArrays
from ._settings import Bins, Settings
from .levelwise import grow_level_wise, grow_local
from .statistics import StatisticsProvider
from .threads import can_thread, grow_tree_threaded

__all__ = [
    "GrowthParams",
    "GrowthSpec",
    "grow_binned",
    "growth_setup",
    "subtraction_rows",
    "tree_from_grown",
]

#: Nodes of at least this many rows keep the histograms of every feature for histogram
#: subtraction (``Settings.subtract_rows``); see ``bench/README.md`` for how it was chosen.
SUBTRACT_ROWS = 1024


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
    min_impurity_split: float = 0.0  # a node below this impurity stays a leaf
    lookahead: int = 0  # levels looked ahead when choosing a split (0: greedy)
    oblique: bool = False  # also search splits on a linear combination of numeric features
    l2: float = 0.0  # a booster's L2 regularisation of its Newton trees (0: none)
    l1: float = 0.0  # its L1 regularisation


@dataclass(frozen=True)
class GrowthSpec:
    """Everything the grower is told about one fit: the growth parameters in its units and
    the task's settings (see :func:`~quercus.grow.grower.growth_setup`)."""

    params: object  # GrowthParams
    regression: bool
    n_stats: int
    c45_classes: int
    c45_tolerance: float
    chi2_critical: np.ndarray
    #: A booster's trees: grown by the Newton learner (``grow/newton.py``) with this
    #: setup (its seed replaced by each tree's); None: by the compiled grower.
    newton: object = None

    def setup(self, trace: bool = False) -> dict:
        """The keywords of :func:`~quercus.grow.grower.growth_setup` (and of
        :func:`~quercus.grow.grower.grow_binned`) besides the data and the parameters."""
        return {
            "regression": self.regression,
            "n_stats": self.n_stats,
            "c45_classes": self.c45_classes,
            "c45_tolerance": self.c45_tolerance,
            "chi2_critical": self.chi2_critical,
            "trace": trace,
        }

    def with_params(self, **changes) -> GrowthSpec:
        """This specification with some growth parameters changed (a tree's seed, say)."""
        return replace(self, params=replace(self.params, **changes))


def growth_setup(
    data,
    params: GrowthParams,
    *,
    regression: bool,
    n_stats: int,
    c45_classes: int = 0,
    c45_tolerance: float = 0.0,
    chi2_critical: np.ndarray | None = None,
    trace: bool = False,
) -> tuple[Bins, Settings]:
    """The kernels' :class:`Bins` of ``data`` (a :class:`~quercus.binning.binned.BinnedData`;
    only its bin tables are read) and :class:`Settings` of ``params``."""
    bins = Bins(data.kinds, data.mapper.n_bins, int(data.mapper.missing), data.bin_lo, data.bin_hi)
    settings = Settings(
        multiway=bool(params.multiway),
        criterion=int(params.criterion),
        regression=bool(regression),
        n_stats=int(n_stats),
        max_depth=int(params.max_depth),
        min_split=float(params.min_split),
        min_leaf=float(params.min_leaf),
        min_impurity_decrease=float(params.min_impurity_decrease),
        max_leaf_nodes=int(params.max_leaf_nodes),
        max_features=int(params.max_features),
        seed=int(params.seed),
        c45_classes=int(c45_classes),
        c45_tolerance=float(c45_tolerance),
        chi2_critical=np.zeros(1) if chi2_critical is None else chi2_critical,
        missing_mode=int(params.missing),
        trace_on=bool(trace),
        # np.uint64: a Python int would type as int64 or uint64 by its size, two signatures
        root_key=np.uint64(root_draw_key(int(params.seed))),
        min_impurity_split=float(params.min_impurity_split),
        lookahead=int(params.lookahead),
        l2=float(params.l2),
        l1=float(params.l1),
    )
    return bins, settings


def subtraction_rows(w: np.ndarray, s: Settings, n_features: int) -> int:
    """``Settings.subtract_rows`` for rows of weights ``w``: :data:`SUBTRACT_ROWS`
    where histogram subtraction gives the very sums made row by row, else 0 (off).

    That holds for class weights that are whole positive numbers summing below 2**53:
    every sum is then exact, whatever the order. (A bin is present where its weight is
    positive, so no row may weigh 0.) Off for regression (sums of squares round), C4.5's
    fractional copies, features drawn per node (a forest's: there is no parent histogram
    of the features drawn), and best-first growth (its pending leaves would each hold
    their histograms)."""
    if (
        s.regression
        or s.missing_mode == FRACTIONAL
        or s.max_leaf_nodes > 0
        or s.max_features < n_features
        or len(w) < SUBTRACT_ROWS
    ):
        return 0
    whole = bool(np.all(w > 0.0) and np.all(w == np.floor(w)) and np.sum(w) < 2.0**53)
    return SUBTRACT_ROWS if whole else 0


def grow_binned(
    data,
    binned: np.ndarray,
    y_class: np.ndarray,
    y_value: np.ndarray,
    w: np.ndarray,
    params: GrowthParams,
    *,
    provider: StatisticsProvider | None = None,
    n_threads: int = 1,
    values: np.ndarray | None = None,
    **setup,
):
    """Grow a tree on binned rows (``data`` a :class:`~quercus.binning.binned.BinnedData`
    for the bin tables; ``binned``, ``y_class``, ``y_value``, ``w`` are overwritten: pass
    copies) with the compiled grower; or, given a statistics ``provider``, with the
    level-wise grower over the provider's sums (``grow/levelwise.py``; the row arrays are
    then not used). ``n_threads`` > 1 grows the subtrees of the compiled grower on that
    many threads (``grow/threads.py``; the same tree). ``setup``: the keywords of
    :func:`growth_setup`. Returns the :class:`~quercus.grow._records.GrownArrays`, or on
    threads the tree's :class:`~quercus.tree.arrays.NodeArrays` (both are what
    :func:`tree_from_grown` takes). ``params.oblique`` needs the rows' ``values`` (float64,
    as routing reads them): oblique splits test them, not bins."""
    bins, settings = growth_setup(data, params, **setup)
    if provider is not None:
        return grow_level_wise(provider, bins, settings)
    if params.oblique:
        if values is None:
            raise ValueError("oblique splits need the rows' values")
        return grow_local(binned, y_class, y_value, w, bins, settings, values=values)
    if settings.lookahead > 0:  # the look-ahead reads a node's rows between levels
        return grow_local(binned, y_class, y_value, w, bins, settings)
    settings = settings._replace(subtract_rows=subtraction_rows(w, settings, len(bins.kinds)))
    if n_threads > 1 and can_thread(len(binned), settings):
        return grow_tree_threaded(binned, y_class, y_value, w, bins, settings, n_threads)
    return GrownArrays(*grow_tree(binned, y_class, y_value, w, bins, settings))


def tree_from_grown(grown, params: GrowthParams, regression: bool) -> Tree:
    """The flat tree of :func:`grow_binned`'s arrays, grown with ``params``."""
    return Tree.from_grown(
        grown,
        regression=regression,
        leaf_model=leaves.model_for(regression, params.criterion),
        fractional=params.missing == FRACTIONAL,
    )
