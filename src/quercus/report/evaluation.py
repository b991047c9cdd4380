"""The report's figures of merit: the confusion matrix and per-class precision and recall
(or R^2, RMSE and MAE), and the attributes' importances."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import (
    confusion_matrix,
    mean_absolute_error,
    mean_squared_error,
    precision_recall_fscore_support,
    r2_score,
)

#: Repeats of each attribute's permutation (sklearn.inspection.permutation_importance).
PERMUTATION_REPEATS = 5


@dataclass
class ClassScores:
    """A classifier's predictions against the truth: ``confusion[i, j]`` rows of true
    class ``labels[i]`` predicted ``labels[j]``; per class precision, recall, F1, support."""

    labels: list
    confusion: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    support: np.ndarray

    @property
    def accuracy(self) -> float:
        total = self.confusion.sum()
        return float(np.trace(self.confusion) / total) if total else float("nan")


@dataclass
class ValueScores:
    """A regressor's predictions against the truth."""

    r2: float
    rmse: float
    mae: float
    n: int


@dataclass
class Evaluation:
    """The scores of the estimator on ``source`` ('training' or 'test') data of ``n`` rows."""

    source: str
    n: int
    scores: ClassScores | ValueScores


def evaluate(estimator, X, y, source: str, regression: bool) -> Evaluation:
    """Predict ``X`` and score the predictions against ``y``."""
    predicted = estimator.predict(X)
    if regression:
        truth = np.asarray(y, dtype=np.float64)
        scores = ValueScores(
            r2=float(r2_score(truth, predicted)) if len(truth) > 1 else float("nan"),
            rmse=float(np.sqrt(mean_squared_error(truth, predicted))),
            mae=float(mean_absolute_error(truth, predicted)),
            n=len(truth),
        )
        return Evaluation(source, len(truth), scores)
    truth, predicted = np.asarray(y), np.asarray(predicted)
    if truth.dtype.kind not in "biuf" or predicted.dtype.kind not in "biuf":
        # scikit-learn's metrics take labels of one type: numbers as numbers (an object
        # array of integers is a target of "unknown" type to them), anything else as objects
        truth, predicted = truth.astype(object), predicted.astype(object)
    labels = list(estimator.classes_.tolist())
    labels += sorted({v for v in truth.tolist() if v not in set(labels)}, key=str)
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, predicted, labels=labels, zero_division=0
    )
    scores = ClassScores(
        labels,
        confusion_matrix(truth, predicted, labels=labels),
        precision,
        recall,
        f1,
        support,
    )
    return Evaluation(source, len(truth), scores)


#: What the impurity importances of a tree or a forest are, said under their table.
IMPURITY_NOTE = (
    "Impurity decrease: the weighted impurity each attribute's splits remove, normalised to "
    "sum to 1."
)


@dataclass
class Importances:
    """Each attribute's importance: impurity decrease (normalised; None where it does not
    describe the model; ``impurity_name`` and ``impurity_note`` say what it is: a booster's
    is its gain), for a booster the number of ``splits`` on each attribute, and for a
    forest, a booster or a model tree the mean drop of its score when the attribute's
    values are shuffled (with their standard deviation over the repeats), on
    ``permutation_source`` data; ``note``: why the page shows the measures it shows."""

    names: list[str]
    impurity: np.ndarray | None
    permutation: np.ndarray | None = None
    permutation_std: np.ndarray | None = None
    permutation_source: str | None = None
    note: str | None = None
    impurity_name: str = "impurity decrease"
    impurity_note: str = IMPURITY_NOTE
    splits: np.ndarray | None = None


def importances(
    estimator, X, y, source: str, permutation: bool, impurity: bool = True
) -> Importances:
    """The impurity importances (unless ``impurity`` is False), and with ``permutation``
    the permutation importances on ``X, y`` (through
    :func:`sklearn.inspection.permutation_importance`)."""
    names = list(estimator.schema_.names)
    result = Importances(names, np.asarray(estimator.feature_importances_) if impurity else None)
    if permutation:
        from sklearn.inspection import permutation_importance

        shuffled = permutation_importance(
            estimator, X, y, n_repeats=PERMUTATION_REPEATS, random_state=0
        )
        result.permutation = shuffled.importances_mean
        result.permutation_std = shuffled.importances_std
        result.permutation_source = source
    return result
