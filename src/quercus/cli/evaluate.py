"""Cross-validation for ``quercus cv`` and ``quercus demo``: folds, scores, confusion matrix.

A thin loop over scikit-learn's splitters and metrics; the learning is the estimator's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import confusion_matrix, r2_score
from sklearn.model_selection import KFold, StratifiedKFold

from ..data.errors import DataError


@dataclass
class CVResult:
    """Scores of a k-fold cross-validation.

    Attributes
    ----------
    scores : ndarray of shape (n_folds,)
        Accuracy (classification) or R^2 (regression) of each fold, in fold order.
    regression : bool
        Whether the scores are R^2.
    labels : list or None
        The class labels, in the order of the confusion matrix (classification).
    confusion : ndarray of shape (n_classes, n_classes) or None
        Confusion matrix of the pooled out-of-fold predictions; rows are the true classes.
    """

    scores: np.ndarray
    regression: bool
    labels: list | None = None
    confusion: np.ndarray | None = None

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores))

    @property
    def std(self) -> float:
        """Standard deviation of the fold scores (population, as ``np.std``)."""
        return float(np.std(self.scores))


def _class_labels(y: pd.Series) -> list:
    """The classes present in ``y``: declared order for a categorical, else sorted."""
    if isinstance(y.dtype, pd.CategoricalDtype):
        present = set(y.dropna().unique())
        return [c for c in y.cat.categories if c in present]
    return sorted(pd.unique(y.dropna()))


def check_class_sizes(y: pd.Series, folds: int) -> None:
    """A :class:`DataError` naming the smallest class when stratified ``folds`` folds cannot
    each hold a case of every class."""
    counts = y.value_counts(sort=False)
    counts = counts[counts > 0]
    smallest = counts.idxmin()
    n = int(counts.min())
    if n >= folds:
        return
    if n < 2:
        raise DataError(
            f"class {smallest!r} has only {n} row: stratified cross-validation needs at least "
            "2 rows of every class (drop or merge that class)",
            column=str(y.name),
        )
    raise DataError(
        f"class {smallest!r} has only {n} rows, fewer than the {folds} folds: use --folds {n} "
        "or fewer",
        column=str(y.name),
    )


def cross_validate(
    estimator,
    X: pd.DataFrame,
    y: pd.Series,
    *,
    folds: int = 10,
    seed: int = 0,
    regression: bool = False,
    on_fold: Callable[[int, int], None] | None = None,
) -> CVResult:
    """k-fold cross-validation of ``estimator`` (cloned for every fold).

    Classification uses shuffled stratified folds and also returns the confusion matrix of
    the pooled out-of-fold predictions; regression uses shuffled folds and R^2.
    ``on_fold(i, folds)`` is called before fold ``i`` (from 1) is fitted.
    """
    n = len(y)
    y = y.reset_index(drop=True)
    X = X.reset_index(drop=True)
    if regression:
        if n < folds:
            raise DataError(
                f"{folds} folds need at least {folds} rows, the data has {n}: "
                f"use --folds {n} or fewer"
            )
        splitter = KFold(n_splits=folds, shuffle=True, random_state=seed)
    else:
        check_class_sizes(y, folds)
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    # Labels as NumPy sees them (strings as objects, integer classes as integers), so that
    # scikit-learn recognises them as classes.
    truth = np.asarray(y, dtype=np.float64) if regression else np.asarray(y)
    predicted = np.empty(n, dtype=truth.dtype)
    scores = []
    for i, (train, test) in enumerate(splitter.split(X, truth), start=1):
        if on_fold is not None:
            on_fold(i, folds)
        model = clone(estimator).fit(X.iloc[train], y.iloc[train])
        predicted[test] = model.predict(X.iloc[test])
        if regression:
            scores.append(r2_score(truth[test], predicted[test]))
        else:
            scores.append(float(np.mean(predicted[test] == truth[test])))
    if regression:
        return CVResult(np.asarray(scores), regression=True)
    labels = _class_labels(y)
    matrix = confusion_matrix(truth, predicted, labels=labels)
    return CVResult(np.asarray(scores), regression=False, labels=labels, confusion=matrix)


def format_confusion(labels: list, matrix: np.ndarray) -> str:
    """The confusion matrix as a text table: a row per true class, a column per predicted
    class, each headed by its label."""
    names = [str(label) for label in labels]
    corner = "true \\ predicted"
    first = max(len(corner), *(len(name) for name in names))
    widths = [max(len(name), len(str(matrix[:, j].max()))) for j, name in enumerate(names)]
    header = "".join(f"  {name:>{w}}" for name, w in zip(names, widths, strict=True))
    lines = [corner.ljust(first) + header]
    for i, name in enumerate(names):
        cells = "".join(f"  {matrix[i, j]:>{w}}" for j, w in enumerate(widths))
        lines.append(name.ljust(first) + cells)
    return "\n".join(lines) + "\n"
