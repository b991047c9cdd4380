"""The split criteria the trees know: one record per criterion, and their codes.

A record says what the rest of the package needs to know about a criterion: the names an
estimator accepts for it, the small integer code the kernels dispatch on (the kernels of
:mod:`quercus.criteria._impurity` compute it), the task it serves, whether it scores
multiway splits, and its plain NumPy twin (:mod:`quercus.criteria.twins`). The estimators'
accepted ``criterion`` values, their documentation and the learning trace's column names are
read from here, so a new criterion is a record, a kernel branch and a twin, all in this
package.

The codes are defined here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .twins import (
    absolute_deviation_of_rows,
    entropy_of_counts,
    error_of_counts,
    gini_of_counts,
    impurity_decrease,
    twoing_of_branches,
    variance_of_moments,
    variance_root_of_moments,
)

#: The codes the kernels take.
GINI, ENTROPY, MISCLASSIFICATION, GAIN_RATIO, SQUARED_ERROR, ABSOLUTE_ERROR = range(6)
TWOING = 6
M5 = 7

#: Tasks.
CLASSIFICATION, REGRESSION = "classification", "regression"

#: What a criterion's twin takes as the statistics of a set of rows (see ``twins``).
CLASS_COUNTS, MOMENTS, ROWS = "class counts", "moments", "rows"


def _sum_weight(stats) -> float:
    return float(np.sum(stats))


def _first_weight(stats) -> float:
    return float(np.asarray(stats, dtype=np.float64)[0])


def _rows_weight(stats) -> float:
    return float(np.asarray(stats, dtype=np.float64).reshape(-1, 2)[:, 1].sum())


def _sum_pool(branches: Sequence) -> np.ndarray:
    return np.sum(np.asarray(branches, dtype=np.float64), axis=0)


def _stack_pool(branches: Sequence) -> np.ndarray:
    return np.concatenate([np.asarray(b, dtype=np.float64).reshape(-1, 2) for b in branches])


# How the statistics of one kind weigh and pool: (weight of one set, stats of sets together).
_STATS_KINDS = {
    CLASS_COUNTS: (_sum_weight, _sum_pool),
    MOMENTS: (_first_weight, _sum_pool),
    ROWS: (_rows_weight, _stack_pool),
}


@dataclass(frozen=True)
class Criterion:
    """One split criterion.

    Attributes
    ----------
    names : tuple of str
        The names an estimator accepts, the first one the criterion's own (documentation
        lists it); the others are aliases.
    code : int
        The code the kernels dispatch on.
    task : {'classification', 'regression'}
    multiway : bool
        Whether it scores splits of more than two branches (nominal ``'multiway'`` splits).
    stats : {'class counts', 'moments', 'rows'}
        What its twins take as the statistics of a set of rows.
    impurity : callable
        Twin of a node's impurity: stats -> float. The tree records it per node (pruning,
        importances and the model file use it).
    gain_name : str
        What a split's gain is called (the learning trace's column).
    gain : callable, optional
        Twin of a split's gain from its branches' stats: sequence of stats -> float. None:
        the impurity decrease (the pooled impurity minus the weighted branch impurities).
    """

    names: tuple[str, ...]
    code: int
    task: str
    multiway: bool
    stats: str
    impurity: Callable[[object], float]
    gain_name: str
    gain: Callable[[Sequence], float] | None = None

    @property
    def name(self) -> str:
        return self.names[0]

    def weight(self, stats) -> float:
        """Total weight of one set's stats."""
        return _STATS_KINDS[self.stats][0](stats)

    def split_gain(self, branches: Sequence) -> float:
        """Twin of the gain the kernels give a split with these branches (no missing rows)."""
        if self.gain is not None:
            return self.gain(branches)
        weight, pool = _STATS_KINDS[self.stats]
        return impurity_decrease(branches, self.impurity, weight, pool)


REGISTRY: tuple[Criterion, ...] = (
    Criterion(("gini",), GINI, CLASSIFICATION, True, CLASS_COUNTS, gini_of_counts, "Gini decrease"),
    Criterion(
        ("entropy", "information_gain"),
        ENTROPY,
        CLASSIFICATION,
        True,
        CLASS_COUNTS,
        entropy_of_counts,
        "information gain",
    ),
    Criterion(
        ("misclassification",),
        MISCLASSIFICATION,
        CLASSIFICATION,
        True,
        CLASS_COUNTS,
        error_of_counts,
        "error decrease",
    ),
    # C4.5's: entropy and information gain in the kernels; the grower ranks attributes by
    # gain / split information among those with at least the average gain.
    Criterion(
        ("gain_ratio",),
        GAIN_RATIO,
        CLASSIFICATION,
        True,
        CLASS_COUNTS,
        entropy_of_counts,
        "information gain",
    ),
    # Breiman et al. (1984), section 4.2: a score of binary splits, not an impurity decrease.
    # A node's impurity is its Gini index (as CART's programs report it: pruning, importances
    # and the model file use it); a split's gain, by which splits and attributes are ranked
    # and min_impurity_decrease is compared, is its twoing value. Binary only: with
    # nominal_split='multiway' the estimators refuse it.
    Criterion(
        ("twoing",),
        TWOING,
        CLASSIFICATION,
        False,
        CLASS_COUNTS,
        gini_of_counts,
        "twoing",
        gain=twoing_of_branches,
    ),
    Criterion(
        ("squared_error",),
        SQUARED_ERROR,
        REGRESSION,
        True,
        MOMENTS,
        variance_of_moments,
        "variance decrease",
    ),
    # Weka's M5P (YongSplitInfo): the fifth root of the variance, and cuts that leave more
    # than a fifth of the node's weight on each side (splitting/_scan.scan_threshold); attributes
    # within 1e-6 of each other are tied (the first wins).
    Criterion(
        ("m5",),
        M5,
        REGRESSION,
        True,
        MOMENTS,
        variance_root_of_moments,
        "variance^(1/5) decrease",
    ),
    # Ranked rows rather than sums (splitting/_absolute.py); the leaves predict the median.
    Criterion(
        ("absolute_error",),
        ABSOLUTE_ERROR,
        REGRESSION,
        True,
        ROWS,
        absolute_deviation_of_rows,
        "absolute error decrease",
    ),
)

_BY_NAME = {name: c for c in REGISTRY for name in c.names}
_BY_CODE = {c.code: c for c in REGISTRY}

#: Every accepted name and its code.
CRITERIA: dict[str, int] = {name: c.code for name, c in _BY_NAME.items()}


def names(task: str, aliases: bool = True) -> tuple[str, ...]:
    """The criterion names of ``task`` in registry order (with the aliases, or only the
    criteria's own names)."""
    return tuple(
        n for c in REGISTRY if c.task == task for n in (c.names if aliases else c.names[:1])
    )


CLASSIFICATION_CRITERIA = names(CLASSIFICATION)
REGRESSION_CRITERIA = names(REGRESSION)


def get(criterion: str | int) -> Criterion:
    """The record of a criterion, by name or code (KeyError when there is none)."""
    if isinstance(criterion, str):
        return _BY_NAME[criterion]
    return _BY_CODE[criterion]
