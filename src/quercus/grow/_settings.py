"""The compiled grower's inputs and rules: what it reads of the binning (:class:`Bins`),
the growth parameters in the types it is compiled for (:class:`Settings`), the rules of the
split search drawn from them once per tree (:func:`split_rules`), and the rules that keep a
node a leaf (:func:`stop_splitting`) or leave it to another task (:func:`is_deferred`).

The level-wise grower (``levelwise.py``) takes the same records and rules, so that both
grow the same tree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import njit
from ..splitting._rules import SplitRules

LEAF_EPSILON = np.finfo(np.float64).eps * 10  # as scikit-learn: below it, a node is pure
#: ``pending`` of a node left unsplit because its subtree is grown apart
#: (``Settings.defer_rows``; ``grow/threads.py``).
DEFERRED = -2


class Bins(NamedTuple):
    """What the kernel needs of the binning: each feature's kind (NUMERIC, NOMINAL or
    ORDINAL) and number of codes, the missing code, and the smallest and largest training
    value of each numeric bin (for real-valued thresholds)."""

    kinds: np.ndarray
    n_bins: np.ndarray
    missing_code: int
    bin_lo: np.ndarray
    bin_hi: np.ndarray


class Settings(NamedTuple):
    """The growth parameters, in the types the kernel is compiled for.

    ``max_depth`` and ``max_leaf_nodes`` are -1 for no limit. ``c45_classes`` > 0 applies
    C4.5's rules for continuous attributes (see
    :func:`~quercus.splitting._scan.scan_threshold`), and gains and gain ratios within
    ``c45_tolerance`` count as tied (J48's 1e-6; release 8: 0). ``chi2_critical[df]``, when
    longer than one entry, are the critical values of the chi-square pre-pruning test
    (``splitting/_significance.py``). ``missing_mode`` is the missing-value policy
    (``_config.MISSING_POLICIES``): FRACTIONAL sends a row with a missing value down every
    branch, its weight times the branch's share of the known weight (the copies are
    appended after the rows, so a node's rows stay contiguous). The fields the split search
    reads at every feature reach it as one record (:func:`split_rules`).
    """

    multiway: bool
    criterion: int
    regression: bool
    n_stats: int
    max_depth: int
    min_split: float
    min_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int
    max_features: int
    seed: int
    c45_classes: int
    c45_tolerance: float
    chi2_critical: np.ndarray
    missing_mode: int
    trace_on: bool
    # Growing a subtree of a larger tree (the level-wise grower hands small nodes over):
    # the depth of its root, the whole tree's weight (0: the rows'), and the root's key of
    # the feature draw (``root_draw_key(seed)`` for a whole tree).
    root_depth: int = 0
    w_total: float = 0.0
    root_key: np.uint64 = np.uint64(0)
    # > 0: a node of at most this many rows, and more than ``defer_min_rows``, that may be
    # split is left a leaf with ``pending`` DEFERRED, its rows in place, for its subtree to
    # be grown on another thread (smaller nodes are grown here: a split many ways on a
    # nominal column of many levels has thousands of small children).
    defer_rows: int = 0
    defer_min_rows: int = 0
    # > 0: nodes of at least this many rows keep the histograms of every feature, and the
    # largest child of such a node takes its parent's less its siblings' (histogram
    # subtraction). Only where that is exact: see ``grow/grower.subtraction_rows``.
    subtract_rows: int = 0
    # A node whose impurity is below this stays a leaf (M5: a standard deviation under 5%
    # of the whole training set's).
    min_impurity_split: float = 0.0
    # > 0: splits are chosen by looking this many levels ahead (the level-wise grower only:
    # grow/levelwise.py, splitting/_lookahead.py).
    lookahead: int = 0
    # A booster's regularisation of its Newton trees' scores and leaves (L2 added to the
    # hessian sums, L1 taken off the gradient sums): 0 for every other tree.
    l2: float = 0.0
    l1: float = 0.0


@njit
def split_rules(s):
    """The :class:`~quercus.splitting._rules.SplitRules` of the settings ``s``: what the
    split search reads of them at every feature, built once per tree."""
    return SplitRules(
        s.criterion,
        s.regression,
        s.min_leaf,
        s.c45_classes,
        s.c45_tolerance,
        s.missing_mode,
        s.multiway,
        s.l2,
        s.l1,
    )


@njit(inline="always")
def stop_splitting(depth, n_rows, weight, node_impurity, s):
    """The stopping rules: whether a node of ``n_rows`` rows of total ``weight`` at
    ``depth`` stays a leaf before any split is searched. J48 asks for ``2 * min_leaf`` cases
    where the others ask for that weight."""
    return (
        (s.max_depth >= 0 and depth >= s.max_depth)
        or weight < s.min_split
        or (n_rows if s.c45_tolerance > 0.0 else weight) < 2.0 * s.min_leaf
        or n_rows < 2
        or node_impurity <= LEAF_EPSILON
        or node_impurity < s.min_impurity_split
    )


@njit(inline="always")
def is_deferred(n_rows, s):
    """Whether a node of ``n_rows`` rows that may be split is left for another task."""
    return s.defer_rows > 0 and s.defer_min_rows < n_rows <= s.defer_rows
