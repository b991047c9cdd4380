"""The rules of the split search, as one record the kernels take.

Every feature a node scans reads the same seven growth settings: the criterion, the task,
the least weight of a branch, C4.5's rules for thresholds and its tolerance, the
missing-value policy and whether a nominal feature splits one branch per category. The
grower builds one :class:`SplitRules` per tree (``grow._settings.split_rules``) and hands
it down the scans, where each kernel took the seven as scalars, in an order every call
copied.
"""

from __future__ import annotations

from typing import NamedTuple

from .._config import FRACTIONAL, njit


class SplitRules(NamedTuple):
    """What the split search needs of the growth settings.

    ``criterion`` is the criterion's code (``criteria.registry``); ``regression``: the
    statistics are ``[weight, sum, sum of squares]`` of the target, not class weights;
    ``min_leaf``: the least weight of a branch. ``c45_classes`` > 0 applies C4.5's rules
    for continuous attributes with that many classes (see
    :func:`~quercus.splitting._scan.scan_threshold`), and gains within ``c45_tolerance``
    count as tied (J48's 1e-6; release 8 and the other trees: 0). ``missing_mode`` is the
    missing-value policy (``_config.MISSING_POLICIES``); ``multiway``: a nominal feature
    splits one branch per category, else into two subsets. ``l2`` and ``l1`` regularise a
    regression's scores (a booster's Newton trees: ``criteria._impurity``), 0 for the
    trees.

    Scalars only: Numba passes the record by value, with no reference counts.
    """

    criterion: int
    regression: bool
    min_leaf: float
    c45_classes: int = 0
    c45_tolerance: float = 0.0
    missing_mode: int = FRACTIONAL
    multiway: bool = False
    l2: float = 0.0
    l1: float = 0.0


@njit(inline="always")
def with_c45(rules, c45_classes, c45_tolerance):
    """``rules`` with C4.5's rules for thresholds ``c45_classes`` and its tolerance
    ``c45_tolerance`` in place of its own (a scan to which they do not apply)."""
    return SplitRules(
        rules.criterion,
        rules.regression,
        rules.min_leaf,
        c45_classes,
        c45_tolerance,
        rules.missing_mode,
        rules.multiway,
        rules.l2,
        rules.l1,
    )
