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
from ..model_selection import PairedTTest, ScoreSpread, score_spread


@dataclass
class CVResult:
    """Scores of a k-fold cross-validation, repeated ``repeats`` times.

    Attributes
    ----------
    scores : ndarray of shape (repeats * folds,)
        Accuracy (classification) or R^2 (regression) of each fold, in fold order, the
        folds of one repetition after the other.
    regression : bool
        Whether the scores are R^2.
    n_train, n_test : float
        Mean number of training and test rows of a fold (the corrected t-test's sizes).
    repeats : int
        Number of repetitions of the cross-validation (each with its own shuffle).
    labels : list or None
        The class labels, in the order of the confusion matrix (classification).
    confusion : ndarray of shape (n_classes, n_classes) or None
        Confusion matrix of the pooled out-of-fold predictions, summed over the
        repetitions (each row counted once per repetition); rows are the true classes.
    rmse, mae : float or None
        Root mean squared and mean absolute error of the pooled out-of-fold predictions,
        over the repetitions (each row counted once per repetition) (regression).
    """

    scores: np.ndarray
    regression: bool
    n_train: float = float("nan")
    n_test: float = float("nan")
    repeats: int = 1
    labels: list | None = None
    confusion: np.ndarray | None = None
    rmse: float | None = None
    mae: float | None = None

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores))

    @property
    def std(self) -> float:
        """Sample standard deviation of the fold scores (divided by n - 1, as Weka's)."""
        return float(np.std(self.scores, ddof=1)) if len(self.scores) > 1 else 0.0

    def spread(self) -> ScoreSpread:
        """Mean, standard deviation and corrected 95% confidence interval of the scores."""
        return score_spread(self.scores, n_train=self.n_train, n_test=self.n_test)


def _class_labels(y: pd.Series) -> list:
    """The classes present in ``y``: declared order for a categorical, else sorted."""
    if isinstance(y.dtype, pd.CategoricalDtype):
        present = set(y.dropna().unique())
        return [c for c in y.cat.categories if c in present]
    return sorted(pd.unique(y.dropna()))


def _truth(y: pd.Series, regression: bool) -> np.ndarray:
    """Labels as NumPy sees them (strings as objects, integer classes as integers), so that
    scikit-learn recognises them as classes; floats for regression."""
    return np.asarray(y, dtype=np.float64) if regression else np.asarray(y)


def cv_splits(
    y: pd.Series, *, folds: int = 10, seed: int = 0, repeats: int = 1, regression: bool = False
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` rows of ``repeats`` shuffled k-fold cross-validations, the
    folds of :func:`quercus.estimators.folds.cv_folds` (stratified for classes); repetition
    ``r`` shuffles with the seed ``seed + r``. Data that cannot be cut into ``folds`` is a
    :class:`DataError` saying how many folds it can be cut into; a class with fewer rows
    than folds is one warning (the same for every repetition, so said once)."""
    classes = None if regression else _truth(y, regression)
    splits = []
    for repetition in range(repeats):
        with warnings.catch_warnings():
            if repetition:
                warnings.simplefilter("ignore")
            try:
                splits += cv_folds(
                    folds, (seed + repetition) % 2**32, n_rows=len(y), classes=classes
                )
            except FoldsError as exc:
                raise DataError(
                    f"{exc}: use --folds {exc.most} or fewer", column=str(y.name)
                ) from None
    return splits


def cross_validate(
    estimator,
    X: pd.DataFrame,
    y: pd.Series,
    *,
    folds: int = 10,
    seed: int = 0,
    repeats: int = 1,
    regression: bool = False,
    splits: list | None = None,
    on_fold: Callable[[int, int], None] | None = None,
) -> CVResult:
    """k-fold cross-validation of ``estimator`` (cloned for every fold), repeated
    ``repeats`` times.

    Classification uses shuffled stratified folds and also returns the confusion matrix of
    the pooled out-of-fold predictions; regression uses shuffled folds and R^2 (the folds of
    :func:`cv_splits`: a class with fewer rows than folds is a warning, data that cannot be
    cut so is a :class:`DataError`). ``splits``: folds made already (to score several
    estimators on the same folds). ``on_fold(i, n)`` is called before fold ``i`` (from 1)
    of ``n`` is fitted.
    """
    y = y.reset_index(drop=True)
    X = X.reset_index(drop=True)
    truth = _truth(y, regression)
    if splits is None:
        splits = cv_splits(y, folds=folds, seed=seed, repeats=repeats, regression=regression)
    predicted = np.empty(len(y), dtype=truth.dtype)
    scores = []
    labels = None if regression else _class_labels(y)
    confusion = None if regression else np.zeros((len(labels), len(labels)), dtype=np.int64)
    errors = []  # regression: the out-of-fold errors of every fold
    per_repetition = len(splits) // repeats
    for i, (train, test) in enumerate(splits, start=1):
        if on_fold is not None:
            on_fold(i, len(splits))
        model = clone(estimator).fit(X.iloc[train], y.iloc[train])
        predicted[test] = model.predict(X.iloc[test])
        if regression:
            scores.append(r2_score(truth[test], predicted[test]))
            errors.append(predicted[test] - truth[test])
        else:
            scores.append(float(np.mean(predicted[test] == truth[test])))
        if not regression and i % per_repetition == 0:  # a repetition predicted every row
            confusion += _confusion(truth, predicted, labels)
    sizes = np.array([(len(train), len(test)) for train, test in splits], dtype=np.float64)
    n_train, n_test = sizes.mean(axis=0)
    error = np.concatenate(errors) if regression else None
    return CVResult(
        np.asarray(scores, dtype=np.float64),
        regression=regression,
        n_train=float(n_train),
        n_test=float(n_test),
        repeats=repeats,
        labels=labels,
        confusion=confusion,
        rmse=float(np.sqrt(np.mean(error**2))) if regression else None,
        mae=float(np.mean(np.abs(error))) if regression else None,
    )


def splits_text(folds: int, repeats: int) -> str:
    """``10 folds`` or ``3 x 10 folds``: the scores a spread or a test is computed from."""
    return f"{repeats} x {folds} folds" if repeats > 1 else f"{folds} folds"


def format_spread(spread: ScoreSpread, score: str, splits: str, bounded: bool = False) -> str:
    """Two lines: the mean and standard deviation of the fold scores, and the corrected
    confidence interval of the mean (within [0, 1] when ``bounded``, as accuracy is; an R^2
    is at most 1)."""
    low, high = spread.low, min(spread.high, 1.0)
    if bounded:
        low = max(low, 0.0)
    return (
        f"{score}: mean {spread.mean:.3f}, standard deviation {spread.std:.3f} over {splits}\n"
        f"{spread.level:.0%} confidence interval of the mean: [{low:.3f}, {high:.3f}] "
        "(corrected resampled t, Nadeau and Bengio 2003)\n"
    )


def format_comparison(test: PairedTTest, names: tuple[str, str], score: str, splits: str) -> str:
    """The corrected resampled t-test of two algorithms as text: both means, the difference
    with its interval, t, the degrees of freedom, p and the verdict at the test's level."""
    first, second = names
    if test.significant:
        better = first if test.difference > 0 else second
        verdict = f"significant at {test.alpha:g}: {better} is better"
    else:
        verdict = f"not significant at {test.alpha:g}"
    level = f"{1 - test.alpha:.0%}"
    return (
        f"paired comparison on the same {splits} (corrected resampled t-test, Nadeau and "
        "Bengio 2003):\n"
        f"  {score}: {first} {test.mean_a:.3f}, {second} {test.mean_b:.3f}; difference "
        f"{test.difference:+.3f}, {level} interval [{test.low:+.3f}, {test.high:+.3f}]\n"
        f"  t = {test.t:.3f} with {test.df} degrees of freedom, p = {test.p_value:.4f}: "
        f"{verdict}\n"
    )


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
