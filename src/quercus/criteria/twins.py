"""Every criterion written out plainly, in NumPy: the twins of the compiled kernels.

A criterion sees a set of rows through its statistics ("stats"):

- class counts: the weight of each class (classification);
- moments: ``[weight, weighted sum of y, weighted sum of y^2]`` (squared error);
- rows: an ``(n, 2)`` array of ``[y, weight]`` (absolute error, whose median no sums give).

Each function here is the definition, written to be read; the kernels of
:mod:`quercus.criteria._impurity` compute the same numbers fast, and a test runs every
registered criterion through both. The teaching functions (:func:`quercus.entropy`,
:func:`quercus.gain_table`, ...) are built on these twins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: M5's variances at most this share of the mean square are zero (see
#: :func:`variance_root_of_moments`).
ZERO_SPREAD = 1e-11

__all__ = [
    "absolute_deviation_of_rows",
    "entropy_of_counts",
    "error_of_counts",
    "gini_of_counts",
    "impurity_decrease",
    "twoing_of_branches",
    "variance_of_moments",
    "variance_root_of_moments",
]


# ---------------------------------------------------------------------------------------------
# Node impurities


def entropy_of_counts(counts) -> float:
    """Entropy in bits of a class distribution given as (weighted) counts."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts[counts > 0] / total
    # + 0.0: a pure distribution sums to -0.0, which would print as -0.000.
    return float(-(p * np.log2(p)).sum()) + 0.0


def gini_of_counts(counts) -> float:
    """Gini impurity 1 - sum p^2 of a class distribution given as counts."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts / total
    return float(1.0 - (p * p).sum())


def error_of_counts(counts) -> float:
    """Misclassification error 1 - max p of a class distribution given as counts."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    return float(1.0 - counts.max() / total)


def variance_of_moments(moments) -> float:
    """Weighted variance of the targets from ``[weight, sum of w*y, sum of w*y^2]``
    (E[y^2] - E[y]^2, clipped at 0 against rounding)."""
    weight, total, squares = (float(v) for v in moments)
    if weight <= 0:
        return 0.0
    mean = total / weight
    return max(squares / weight - mean * mean, 0.0)


def variance_root_of_moments(moments) -> float:
    """M5's impurity (Weka's M5P): the fifth root of the weighted variance of
    ``[weight, sum of w*y, sum of w*y^2]``. A variance within rounding of zero (at most
    1e-11 of the mean square) is zero: the fifth root would make rounding noise of 1e-14
    count as 0.0016, as much as a real difference."""
    weight, total, squares = (float(v) for v in moments)
    if weight <= 0:
        return 0.0
    spread = abs(weight * squares - total * total)
    if spread <= ZERO_SPREAD * weight * abs(squares):
        return 0.0
    return (spread / (weight * weight)) ** 0.2


def weighted_median(y, w) -> float:
    """The weighted median as scikit-learn's absolute-error trees define a leaf's value: the
    smallest value whose cumulative weight passes half; where the cumulative weight equals
    half (up to rounding), the midpoint of the value that reaches it and the next one."""
    order = np.argsort(y, kind="mergesort")
    cumulative = np.cumsum(np.asarray(w, dtype=np.float64)[order])
    half = cumulative[-1] / 2.0
    tolerance = 1e-12 * cumulative[-1]
    values = np.asarray(y, dtype=np.float64)[order]
    lower = values[np.searchsorted(cumulative, half - tolerance, side="left")]
    upper = values[min(np.searchsorted(cumulative, half + tolerance, side="right"), len(y) - 1)]
    return float(lower if upper == lower else 0.5 * lower + 0.5 * upper)  # no overflow


def absolute_deviation_of_rows(rows) -> float:
    """Weighted mean absolute deviation of the targets from their weighted median;
    ``rows`` is an ``(n, 2)`` array of ``[y, weight]``."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 2)
    y, w = rows[:, 0], rows[:, 1]
    total = w.sum()
    if total <= 0:
        return 0.0
    return float((w * np.abs(y - weighted_median(y, w))).sum() / total)


# ---------------------------------------------------------------------------------------------
# Gain of a split


def impurity_decrease(
    branches: Sequence,
    impurity: Callable[[object], float],
    weight: Callable[[np.ndarray], float],
    pool: Callable[[Sequence], np.ndarray],
) -> float:
    """Impurity of the pooled branches minus the weighted mean impurity of the branches.

    ``weight`` gives the weight of one branch's stats and ``pool`` the stats of all branches
    together (a sum of counts or moments, a stack of rows). Empty branches count for nothing.
    """
    parent = pool(branches)
    total = weight(parent)
    if total <= 0:
        return 0.0
    after = sum(weight(b) / total * impurity(b) for b in branches if weight(b) > 0)
    return impurity(parent) - after


def twoing_of_branches(branches: Sequence) -> float:
    """Breiman's twoing value of a binary split given its two sides' class counts:
    ``p_L p_R / 4 * (sum_k |p(k|L) - p(k|R)|)^2`` (CART, 1984, section 4.2).

    It is the largest Gini decrease of the split once the classes are grouped into two
    superclasses (the classes more frequent on the left, the others): a score of binary
    splits, which favours splits that separate groups of classes evenly. 0 when a side is
    empty.
    """
    if len(branches) != 2:
        raise ValueError(f"twoing scores binary splits only, got {len(branches)} branches")
    left, right = (np.asarray(b, dtype=np.float64) for b in branches)
    wl, wr = left.sum(), right.sum()
    if wl <= 0 or wr <= 0:
        return 0.0
    spread = np.abs(left / wl - right / wr).sum()
    w = wl + wr
    return float(wl / w * (wr / w) / 4.0 * spread * spread)
