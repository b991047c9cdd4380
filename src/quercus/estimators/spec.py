"""The growth specification: an estimator's checked parameters and the facts of its data,
turned into what the grower takes (a :class:`~quercus.grow.grower.GrowthSpec`).

This is the estimators' side of the seam with the grower (``grow/grower.py``): the grower
knows settings in its own units and nothing of parameter names; the estimators, the Dask
fit, the gain tables and the model readers all come here to turn parameters into settings,
so that they grow the same tree from the same parameters. :func:`growth_spec` is the whole
step; the functions it is made of are public for the readers that need one of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from scipy.stats import chi2
from sklearn.utils import check_random_state

from .._config import J48_SMALL
from ..grow.grower import GrowthSpec
from .params import growth_params

#: The tolerance of C4.5's comparisons by ``c45_variant``: J48's, or release 8's exact ones.
C45_TOLERANCE = {"j48": J48_SMALL, "release8": 0.0}


class DataFacts(NamedTuple):
    """What the growth settings need to know of the training data: the number of
    features, the total training weight, the statistics per row (the number of classes, or
    3 for a regression target) and the largest number of bins of a feature (the degrees of
    freedom of a multiway split's chi-square test)."""

    n_features: int
    total_weight: float
    n_stats: int
    most_bins: int

    @classmethod
    def of(cls, tables, total_weight: float, n_stats: int) -> DataFacts:
        """The facts of rows binned as ``tables`` say (a
        :class:`~quercus.binning.binned.BinnedData`; its rows are not read)."""
        return cls(len(tables.kinds), float(total_weight), n_stats, int(tables.mapper.n_bins.max()))


def c45_variant(params: Mapping) -> str:
    """Which C4.5: "j48" (Weka's J48, the default) or "release8" (Quinlan's C4.5)."""
    return params.get("c45_variant", "j48")


def uses_c45_thresholds(params: Mapping, regression: bool) -> bool:
    """Whether C4.5's rules for continuous attributes apply (classifiers that ask)."""
    return not regression and bool(params.get("c45_thresholds", False))


def c45_tolerance(params: Mapping, regression: bool) -> float:
    """The tolerance of C4.5's comparisons where its rules for continuous attributes apply
    (else 0)."""
    return C45_TOLERANCE[c45_variant(params)] if uses_c45_thresholds(params, regression) else 0.0


def chi2_critical(params: Mapping, regression: bool, n_classes: int, most_bins: int) -> np.ndarray:
    """Critical chi-square values by degrees of freedom for ``significance`` pre-pruning
    (classifiers), or a single zero when it is off."""
    alpha = params.get("significance")
    if alpha is None or regression:
        return np.zeros(1)
    branches = most_bins if params.get("nominal_split") == "multiway" else 2
    df = np.arange(max(branches - 1, 1) * max(n_classes - 1, 1) + 1)
    critical = np.full(len(df), np.inf)
    critical[1:] = chi2.ppf(1.0 - alpha, df[1:])
    return critical


def tree_seed(random_state) -> int:
    """The grower's seed of a single tree, drawn from ``random_state`` (a RandomState
    advances)."""
    seed = int(check_random_state(random_state).randint(1, 2**31 - 1))
    return seed * 2654435761 % 2**63 + 1


def growth_spec(params: Mapping, regression: bool, facts: DataFacts, seed: int) -> GrowthSpec:
    """The :class:`GrowthSpec` of a tree with the checked parameters ``params`` (by name, as
    ``get_params`` gives them) on data of ``facts``, its draws seeded by ``seed``."""
    return GrowthSpec(
        params=growth_params(params, facts.n_features, facts.total_weight, seed=seed),
        regression=regression,
        n_stats=facts.n_stats,
        c45_classes=facts.n_stats if uses_c45_thresholds(params, regression) else 0,
        c45_tolerance=c45_tolerance(params, regression),
        chi2_critical=chi2_critical(params, regression, facts.n_stats, facts.most_bins),
    )


__all__ = [
    "C45_TOLERANCE",
    "DataFacts",
    "c45_tolerance",
    "c45_variant",
    "chi2_critical",
    "growth_spec",
    "tree_seed",
    "uses_c45_thresholds",
]
