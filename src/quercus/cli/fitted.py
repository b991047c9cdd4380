"""What the command line says of a fitted model: the model as text, its training score and
its evaluation on a test file. ``quercus fit`` prints them whether the model was learned in
memory (:mod:`quercus.cli.source`) or on a Dask cluster (:mod:`quercus.cli.dask_fit`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import is_regressor

from .._files import check_writable
from ..data import DataError
from ..data.schema import NUMERIC_KIND
from ..ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from ..estimators import C45RulesClassifier
from ..export import export_text
from .evaluate import evaluate_predictions, format_evaluation
from .output import to_stdout
from .progress import Progress
from .show import booster_summary, forest_summary
from .tasks import read_for_model, target_task

FORESTS = (RandomForestClassifier, RandomForestRegressor)
BOOSTERS = (GradientBoostingClassifier, GradientBoostingRegressor)
#: The models of many trees, which have no single tree to trace or print.
ENSEMBLES = (*FORESTS, *BOOSTERS)


def describe(estimator) -> str:
    """The model as text: the tree, a C4.5rules model's rules, a forest's or a gradient
    booster's summary."""
    if isinstance(estimator, FORESTS):
        return forest_summary(estimator)
    if isinstance(estimator, BOOSTERS):
        return booster_summary(estimator)
    text = export_text(estimator)
    if isinstance(estimator, C45RulesClassifier):
        text += "\nRules:\n" + estimator.export_rules()
    return text


def score_line(regression: bool, score: float, correct: int = 0, n_rows: int = 0) -> str:
    """``training R^2: ...`` (``score``), or ``training accuracy: ...`` of ``correct`` rows
    of ``n_rows``."""
    if regression:
        return f"training R^2: {score:.3f}\n"
    return f"training accuracy: {correct / n_rows:.3f} ({correct} of {n_rows} rows)\n"


def training_score(estimator, X: pd.DataFrame, y, regression: bool) -> str:
    """The :func:`score_line` of ``estimator`` on the rows it learned from."""
    if regression:
        return score_line(True, estimator.score(X, y))
    correct = int(np.sum(estimator.predict(X) == np.asarray(y, dtype=object)))
    return score_line(False, correct / len(y), correct, len(y))


def check_output(path: str | None) -> None:
    """Fail before the work when the output file cannot be written where asked (the
    standard output, ``-``, always can)."""
    if path is not None and not to_stdout(path):
        check_writable(path)


def evaluation(estimator, path: str, target: str | None, quiet: bool) -> str:
    """The evaluation report of ``estimator`` on the data file ``path``."""
    with Progress(quiet) as progress:
        progress.update(f"evaluate: reading {path}")
        table = read_for_model(path, estimator.schema_, target)
        truth = table.y
        # A regression model takes any numeric target (a model tree learns one of a few
        # integer values too); a classification model, one that target_task takes as classes.
        if is_regressor(estimator):
            fits = table.schema.target_kind == NUMERIC_KIND
        else:
            fits = not target_task(table)[0]
        if not fits:
            kind = "a regression" if is_regressor(estimator) else "a classification"
            raise DataError(
                f"{path}: target {table.schema.target!r} does not fit {kind} model",
                column=table.schema.target,
                source=path,
            )
        features = table.X  # the rows whose target is known
        progress.update(f"evaluate: predicting {len(features):,} rows")
        try:
            predicted = estimator.predict(features)
        except DataError as exc:
            raise DataError(f"{path}: {exc}", column=exc.column, source=path) from None
    regression = is_regressor(estimator)
    if not regression:
        truth = as_model_labels(truth, estimator.classes_)
    result = evaluate_predictions(
        truth, predicted, regression=regression, classes=None if regression else estimator.classes_
    )
    return format_evaluation(result, path)


def as_model_labels(truth: pd.Series, classes: np.ndarray) -> np.ndarray:
    """The true labels of a data file in the type of the model's classes (a file read alone
    may see the classes 1, 2, 3 as numbers where the model has the text '1', or the
    reverse)."""
    values = np.asarray(truth.astype(object))
    if all(isinstance(c, str) for c in classes.tolist()):
        return np.asarray([v if isinstance(v, str) else _text(v) for v in values], dtype=object)
    if all(isinstance(c, (int, np.integer)) for c in classes.tolist()):
        try:
            return np.asarray(values, dtype=np.float64).astype(np.int64)
        except (TypeError, ValueError):
            return values
    return values


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
