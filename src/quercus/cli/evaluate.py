"""Evaluation for the command line: k-fold cross-validation (``quercus cv``, ``quercus
demo``) and scores on a test file (``quercus evaluate``, ``quercus fit --test``).

A thin loop over scikit-learn's splitters and metrics; the learning is the estimator's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support, r2_score

from ..data.errors import DataError
from ..estimators.folds import FoldsError, cv_folds


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
    the pooled out-of-fold predictions; regression uses shuffled folds and R^2 (the folds of
    :func:`quercus.estimators.folds.cv_folds`: a class with fewer rows than folds is a
    warning, data that cannot be cut so is a :class:`DataError`).
    ``on_fold(i, folds)`` is called before fold ``i`` (from 1) is fitted.
    """
    n = len(y)
    y = y.reset_index(drop=True)
    X = X.reset_index(drop=True)
    # Labels as NumPy sees them (strings as objects, integer classes as integers), so that
    # scikit-learn recognises them as classes.
    truth = np.asarray(y, dtype=np.float64) if regression else np.asarray(y)
    try:
        splits = cv_folds(folds, seed, n_rows=n, classes=None if regression else truth)
    except FoldsError as exc:
        raise DataError(f"{exc}: use --folds {exc.most} or fewer", column=str(y.name)) from None
    predicted = np.empty(n, dtype=truth.dtype)
    scores = []
    for i, (train, test) in enumerate(splits, start=1):
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
    matrix = _confusion(truth, predicted, labels)
    return CVResult(np.asarray(scores), regression=False, labels=labels, confusion=matrix)


def _confusion(truth, predicted, labels: list) -> np.ndarray:
    """scikit-learn's confusion matrix over ``labels``, without its warning that one label
    gives a 1 x 1 matrix (a one-class data set: ``labels`` gives the shape it should)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "A single label was found", UserWarning)
        return confusion_matrix(truth, predicted, labels=labels)


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


@dataclass
class Evaluation:
    """How well predictions match the truth (``quercus evaluate``, ``fit --test``).

    Attributes
    ----------
    n : int
        Number of rows evaluated.
    regression : bool
        Whether the target is numeric.
    accuracy : float or None
        Share of rows predicted right (classification).
    labels : list or None
        Classes of the model and of the data, in the order of the per-class rows.
    per_class : pandas.DataFrame or None
        ``precision``, ``recall``, ``f1`` and ``support`` per class (classification).
    confusion : ndarray or None
        Rows: true class; columns: predicted class.
    r2, rmse, mae : float or None
        Coefficient of determination, root mean squared and mean absolute error
        (regression).
    """

    n: int
    regression: bool
    accuracy: float | None = None
    labels: list | None = None
    per_class: pd.DataFrame | None = None
    confusion: np.ndarray | None = None
    r2: float | None = None
    rmse: float | None = None
    mae: float | None = None


def evaluate_predictions(truth, predicted, *, regression: bool, classes=None) -> Evaluation:
    """Compare ``predicted`` with ``truth`` (scikit-learn's metrics). ``classes``: the
    model's classes, listed first in the per-class table; labels of the data that the
    model does not know follow them."""
    truth, predicted = np.asarray(truth), np.asarray(predicted)
    if regression:
        truth = truth.astype(np.float64)
        error = predicted.astype(np.float64) - truth
        r2 = float(r2_score(truth, predicted)) if len(truth) > 1 else float("nan")
        return Evaluation(
            n=len(truth),
            regression=True,
            r2=r2,
            rmse=float(np.sqrt(np.mean(error**2))),
            mae=float(np.mean(np.abs(error))),
        )
    labels = list(classes) if classes is not None else []
    labels += [c for c in _sorted_labels(truth) if c not in set(labels)]
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, predicted, labels=labels, zero_division=0.0
    )
    table = pd.DataFrame(
        {"precision": precision, "recall": recall, "f1": f1, "support": support},
        index=pd.Index([str(c) for c in labels], name="class"),
    )
    return Evaluation(
        n=len(truth),
        regression=False,
        accuracy=float(np.mean(truth == predicted)),
        labels=labels,
        per_class=table,
        confusion=_confusion(truth, predicted, labels),
    )


def _sorted_labels(values: np.ndarray) -> list:
    present = pd.unique(values)
    try:
        return sorted(present)
    except TypeError:  # labels of mixed types: as they come
        return list(present)


def format_evaluation(result: Evaluation, source: str) -> str:
    """The evaluation as text: the scores, and for classes the per-class table and the
    confusion matrix."""
    lines = [f"evaluation on {source} ({result.n:,} row{'s' * (result.n != 1)})"]
    if result.regression:
        lines += [
            f"R^2:  {result.r2:.4f}",
            f"RMSE: {result.rmse:.4g}",
            f"MAE:  {result.mae:.4g}",
        ]
        return "\n".join(lines) + "\n"
    correct = int(round(result.accuracy * result.n))
    lines.append(f"accuracy: {result.accuracy:.4f} ({correct:,} of {result.n:,} rows)")
    table = result.per_class.to_string(
        float_format=lambda v: f"{v:.3f}", formatters={"support": "{:,}".format}
    )
    macro = result.per_class[["precision", "recall", "f1"]].mean()
    lines += [
        "",
        table,
        f"macro average: precision {macro['precision']:.3f}, recall {macro['recall']:.3f}, "
        f"F1 {macro['f1']:.3f}",
        "",
        "confusion matrix (rows: true class, columns: predicted class)",
    ]
    return "\n".join(lines) + "\n" + format_confusion(result.labels, result.confusion)
