"""Choosing among the lectures' options by cross-validation.

The search itself is scikit-learn's: quercus estimators are scikit-learn estimators, so
``GridSearchCV`` and ``cross_val_score`` take them as they are. This module adds what those
leave to the user:

- :func:`default_grid`: the parameters worth searching for each algorithm (the lectures'
  choices: split criterion, pruning or not and how hard, when to stop growing), the grid that
  ``quercus tune`` searches when no ``--grid`` is given;
- :func:`score_spread`: the mean of cross-validated scores with their standard deviation and
  a confidence interval;
- :func:`corrected_ttest`: whether two algorithms differ on the same folds, by the corrected
  resampled t-test of Nadeau and Bengio (2003), the test of Weka's Experimenter.

Why a corrected test: the folds of a cross-validation share most of their training rows, so
their scores are correlated and the plain t-test over folds sees far more evidence than
there is (it finds differences that are not there much more often than its level says).
Nadeau and Bengio replace the variance factor ``1/J`` of ``J`` scores by
``1/J + n_test/n_train``. No unbiased estimate of the variance of a k-fold cross-validation
exists (Bengio and Grandvalet, 2004); the correction is a heuristic that keeps the test's
error rate near its level, not an exact answer, and the interval of :func:`score_spread` is
the same heuristic applied to one algorithm's scores.

References
----------
C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52(3),
239-281, 2003.

R. R. Bouckaert and E. Frank, "Evaluating the replicability of significance tests for
comparing learning algorithms", PAKDD 2004 (the test in Weka, with r x k-fold
cross-validation).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from ._grids import DEFAULT_GRIDS
from .ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from .estimators import (
    C45Classifier,
    C45RulesClassifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
    ModelTreeRegressor,
)

__all__ = [
    "PairedTTest",
    "ScoreSpread",
    "corrected_ttest",
    "default_grid",
    "score_spread",
]


class ScoreSpread(NamedTuple):
    """The mean of cross-validated scores, their spread and a confidence interval.

    Attributes
    ----------
    mean : float
        Mean score over the splits.
    std : float
        Sample standard deviation of the scores (divided by ``n_splits - 1``).
    n_splits : int
        Number of scores (folds times repetitions).
    low, high : float
        The confidence interval of the mean: ``mean -+ t * std * sqrt(1/n_splits +
        n_test/n_train)``, ``t`` the quantile of Student's t with ``n_splits - 1`` degrees
        of freedom.
    level : float
        Confidence level of the interval (0.95).
    """

    mean: float
    std: float
    n_splits: int
    low: float
    high: float
    level: float


class PairedTTest(NamedTuple):
    """The corrected resampled t-test of two algorithms' scores on the same splits.

    Attributes
    ----------
    mean_a, mean_b : float
        Mean score of each algorithm.
    difference : float
        Mean of the paired differences ``a - b`` (``mean_a - mean_b``).
    std_difference : float
        Sample standard deviation of the paired differences.
    t : float
        The statistic ``difference / sqrt((1/J + n_test/n_train) * std_difference**2)``;
        0 when every difference is 0, infinite when they are all the same non-zero value.
    df : int
        Degrees of freedom, ``J - 1`` for ``J`` paired scores (r repetitions of k folds:
        ``r * k - 1``).
    p_value : float
        Two-sided p-value under Student's t with ``df`` degrees of freedom.
    alpha : float
        Significance level the test was asked at.
    significant : bool
        Whether ``p_value <= alpha`` (Weka's rule).
    low, high : float
        Confidence interval of the difference at level ``1 - alpha``.
    """

    mean_a: float
    mean_b: float
    difference: float
    std_difference: float
    t: float
    df: int
    p_value: float
    alpha: float
    significant: bool
    low: float
    high: float


_ROUNDING = 1e-12  # relative size of differences taken as rounding errors


def _scores(values, name: str) -> np.ndarray:
    scores = np.asarray(values, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"{name} must be one score per split (1-D), got shape {scores.shape}")
    if len(scores) < 2:
        raise ValueError(f"{name} needs at least 2 scores, got {len(scores)}")
    if not np.all(np.isfinite(scores)):
        raise ValueError(f"{name} holds a score that is not a finite number")
    return scores


def _variance_factor(n_splits: int, n_train: float, n_test: float) -> float:
    """Nadeau and Bengio's ``1/J + n_test/n_train`` (the plain t-test's is ``1/J``)."""
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if not (isinstance(value, int | float | np.integer | np.floating) and value > 0):
            raise ValueError(f"{name} must be a number of rows > 0, got {value!r}")
    return 1.0 / n_splits + float(n_test) / float(n_train)


def _check_level(value: float, name: str) -> None:
    if not (isinstance(value, int | float | np.floating) and 0 < value < 1):
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")


def score_spread(scores, *, n_train: float, n_test: float, level: float = 0.95) -> ScoreSpread:
    """The mean of cross-validated ``scores``, their standard deviation and a confidence
    interval corrected for the overlap of the training sets.

    Parameters
    ----------
    scores : array-like of shape (n_splits,)
        One score per split (accuracy, R^2, ...), for example
        ``cross_val_score(estimator, X, y, cv=10)``.
    n_train, n_test : float
        Number of training and test rows of a split (their mean if the splits differ); in a
        k-fold cross-validation of ``n`` rows, ``n_test = n / k`` and ``n_train = n - n_test``.
    level : float, default 0.95
        Confidence level.

    Returns
    -------
    ScoreSpread

    Examples
    --------
    >>> from quercus.model_selection import score_spread
    >>> spread = score_spread([0.8, 0.9, 0.7, 0.8, 0.8], n_train=40, n_test=10)
    >>> round(spread.mean, 3), round(spread.std, 4)
    (0.8, 0.0707)
    >>> round(spread.low, 3), round(spread.high, 3)
    (0.668, 0.932)
    """
    values = _scores(scores, "scores")
    _check_level(level, "level")
    factor = _variance_factor(len(values), n_train, n_test)
    mean = float(np.mean(values))
    std = float(np.std(values, ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1)) * std * math.sqrt(factor)
    return ScoreSpread(mean, std, len(values), mean - half, mean + half, float(level))


def corrected_ttest(
    scores_a, scores_b, *, n_train: float, n_test: float, alpha: float = 0.05
) -> PairedTTest:
    """Whether two algorithms' scores on the same splits differ: the corrected resampled
    t-test of Nadeau and Bengio (2003), as Weka's Experimenter computes it.

    With ``d_j = a_j - b_j`` the paired differences on ``J`` splits, their mean ``d`` and
    sample variance ``s**2``::

        t = d / sqrt((1/J + n_test/n_train) * s**2)      with J - 1 degrees of freedom

    The plain paired t-test has ``1/J`` alone; the added ``n_test/n_train`` accounts for the
    training sets that the splits share. ``J`` is the number of folds times the number of
    repetitions of the cross-validation.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_splits,)
        The two algorithms' scores, split by split (the same splits, in the same order).
    n_train, n_test : float
        Number of training and test rows of a split (their mean if the splits differ).
    alpha : float, default 0.05
        Significance level (two-sided).

    Returns
    -------
    PairedTTest

    Raises
    ------
    ValueError
        Scores of different lengths, fewer than two, or not finite.

    Examples
    --------
    Ten folds of 100 rows (90 to train, 10 to test):

    >>> from quercus.model_selection import corrected_ttest
    >>> a = [0.9, 0.8, 0.9, 1.0, 0.8, 0.9, 0.9, 0.8, 1.0, 0.9]
    >>> b = [0.8, 0.8, 0.7, 0.9, 0.8, 0.8, 0.9, 0.7, 0.9, 0.8]
    >>> test = corrected_ttest(a, b, n_train=90, n_test=10)
    >>> round(test.difference, 3), round(test.t, 3), test.df
    (0.08, 2.753, 9)
    >>> round(test.p_value, 4), test.significant
    (0.0224, True)
    """
    a = _scores(scores_a, "scores_a")
    b = _scores(scores_b, "scores_b")
    if len(a) != len(b):
        raise ValueError(
            f"scores_a and scores_b must be paired split by split: {len(a)} and {len(b)} scores"
        )
    _check_level(alpha, "alpha")
    factor = _variance_factor(len(a), n_train, n_test)
    differences = a - b
    difference = float(np.mean(differences))
    std = float(np.std(differences, ddof=1))
    df = len(a) - 1
    # Scores such as 13/15 - 12/15 and 14/15 - 13/15 differ in their last bits: a spread
    # that small is rounding, not variation.
    rounding = _ROUNDING * max(1.0, float(np.max(np.abs(differences))))
    if std > rounding:
        t = difference / math.sqrt(factor * std**2)
        p_value = float(2 * stats.t.sf(abs(t), df))
    elif abs(difference) <= rounding:  # the same scores on every split: no evidence at all
        t, p_value, std, difference = 0.0, 1.0, 0.0, 0.0
    else:  # the same non-zero difference on every split
        t, p_value, std = math.copysign(math.inf, difference), 0.0, 0.0
    half = float(stats.t.ppf(1 - alpha / 2, df)) * std * math.sqrt(factor)
    return PairedTTest(
        mean_a=float(np.mean(a)),
        mean_b=float(np.mean(b)),
        difference=difference,
        std_difference=std,
        t=float(t),
        df=df,
        p_value=p_value,
        alpha=float(alpha),
        significant=bool(p_value <= alpha),
        low=difference - half,
        high=difference + half,
    )


# -- the parameters worth searching -------------------------------------------------------------

# The grids by class; quercus._grids holds them by class name, for the command line's help.
_GRIDS: dict[type, list[dict]] = {
    cls: DEFAULT_GRIDS[cls.__name__]
    for cls in (
        ID3Classifier,
        C45Classifier,
        C45RulesClassifier,
        CARTClassifier,
        CARTRegressor,
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ModelTreeRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
    )
}


def default_grid(estimator) -> list[dict]:
    """The parameters worth searching for ``estimator``'s algorithm, as a ``param_grid`` for
    scikit-learn's ``GridSearchCV`` (a list of grids).

    ============================== ===============================================================
    algorithm                      grid
    ============================== ===============================================================
    ID3Classifier                  no pruning with ``significance`` in {None, 0.05, 0.01}, or
                                   ``pruning='reduced_error'``; ``min_samples_leaf`` in
                                   {1, 2, 5} (12 candidates)
    C45Classifier                  ``pruning='pessimistic'`` with ``confidence`` in
                                   {0.1, 0.25, 0.5}, or ``pruning`` None or 'reduced_error';
                                   ``min_samples_leaf`` in {2, 5, 10} (15 candidates)
    C45RulesClassifier             ``confidence`` in {0.1, 0.25, 0.5}, ``min_samples_leaf`` in
                                   {2, 5, 10} (9 candidates)
    CARTClassifier                 ``criterion`` 'gini' or 'entropy', ``max_depth`` in
                                   {None, 3, 6}, ``ccp_alpha`` 0 or 'cv' (12 candidates)
    CARTRegressor                  ``criterion`` 'squared_error' or 'absolute_error',
                                   ``min_samples_leaf`` in {1, 7, 20}, ``ccp_alpha`` 0 or 'cv'
                                   (12 candidates)
    RandomForestClassifier         ``max_features`` 'sqrt' or None, ``min_samples_leaf`` in
                                   {1, 2, 5} (6 candidates)
    RandomForestRegressor          ``max_features`` 1.0 or 'sqrt', ``min_samples_leaf`` in
                                   {1, 2, 5} (6 candidates)
    ModelTreeRegressor             ``min_samples_split`` in {4, 10, 25}, ``smoothing`` True or
                                   False (6 candidates)
    GradientBoostingClassifier,    ``learning_rate`` in {0.05, 0.1, 0.2}, ``max_leaf_nodes`` in
    GradientBoostingRegressor      {15, 31, 63}, ``max_iter`` fixed at 50 (9 candidates)
    ============================== ===============================================================

    ``DecisionTreeClassifier`` and ``DecisionTreeRegressor`` get CART's grids.

    Parameters
    ----------
    estimator : quercus estimator
        An estimator (or its class) of quercus.

    Returns
    -------
    list of dict
        A new list each call: change it freely.

    Examples
    --------
    >>> from quercus import C45RulesClassifier
    >>> from quercus.model_selection import default_grid
    >>> default_grid(C45RulesClassifier())
    [{'confidence': [0.1, 0.25, 0.5], 'min_samples_leaf': [2, 5, 10]}]
    """
    cls = estimator if isinstance(estimator, type) else type(estimator)
    grid = _GRIDS.get(cls)
    if grid is None:
        known = ", ".join(sorted({c.__name__ for c in _GRIDS}))
        raise ValueError(f"no default grid for {cls.__name__}; there is one for {known}")
    return [{name: list(values) for name, values in entry.items()} for entry in grid]
