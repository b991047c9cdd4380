"""The lectures' curves: accuracy against the size of the tree (overfitting and pruning),
accuracy against the size of the training set (learning curve), and the impurity measures
of two classes against the share of one of them.

Each function draws on ``ax`` (a new figure of its own when None) and returns a record of the
numbers drawn with the Axes and Figure (``ax_``, ``figure_``), as scikit-learn's displays
do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import check_cv

from ..criteria import registry
from ..estimators.folds import cv_folds
from ._common import axes, fitted_estimator
from .sequences import GROWTH, estimator_sequence, sequence_scores

__all__ = [
    "ImpurityCurves",
    "LearningCurve",
    "OverfittingCurve",
    "impurity_curves",
    "learning_curve",
    "overfitting_curve",
]

_METHOD_NAMES = {
    "cost_complexity": "cost-complexity pruning",
    "reduced_error": "reduced-error pruning",
    "pessimistic": "pessimistic pruning",
    GROWTH: "best-first growth",
}
_METRIC_NAMES = {"accuracy": "accuracy", "error": "error", "r2": "R²"}
_DEFAULT_FOLDS = 5


# -- the overfitting curve ------------------------------------------------------------------


@dataclass
class OverfittingCurve:
    """The numbers of :func:`overfitting_curve`, with the Axes they are drawn on.

    Attributes
    ----------
    method : {'cost_complexity', 'reduced_error', 'pessimistic', 'growth'}
        The sequence followed: the estimator's pruning, or best-first growth.
    metric : {'accuracy', 'error', 'r2'}
    n_leaves : int ndarray (n_trees,)
        Leaves of each tree of the sequence, the grown tree first.
    train_scores : ndarray (n_trees,)
        Score of each tree on the training data.
    validation_scores : ndarray (n_trees,)
        Score on the validation data, or the mean over the cross-validation folds (NaN
        where no fold has a tree that small).
    validation_std : ndarray (n_trees,) or None
        Standard deviation over the folds (None for validation data).
    chosen_index : int
        Index of the estimator's own tree in the sequence.
    chosen_n_leaves : int
        Its number of leaves.
    validation : str
        'validation data' or 'k-fold cross-validation'.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    """

    method: str
    metric: str
    n_leaves: np.ndarray
    train_scores: np.ndarray
    validation_scores: np.ndarray
    validation_std: np.ndarray | None
    chosen_index: int
    chosen_n_leaves: int
    validation: str
    ax_: object = None
    figure_: object = None


def _rows(X, index):
    """Rows ``index`` of a DataFrame, array or list of rows."""
    if hasattr(X, "iloc"):
        return X.iloc[index]
    array = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    return array[index]


def _check_metric(estimator, metric):
    allowed = ("accuracy", "error") if is_classifier(estimator) else ("r2", "error")
    if metric is None:
        return allowed[0]
    if metric not in allowed:
        raise ValueError(f"metric must be one of {', '.join(map(repr, allowed))}, got {metric!r}")
    return metric


def _at_sizes(leaves, scores, sizes) -> np.ndarray:
    """The score of the largest tree with at most ``sizes[i]`` leaves, NaN if none."""
    out = np.full(len(sizes), np.nan)
    for i, size in enumerate(sizes):
        fit = np.flatnonzero(leaves <= size)
        if len(fit):
            out[i] = scores[fit[0]]
    return out


def _folds(cv, estimator, X, y, random_state, context: str) -> list:
    """The ``(train, test)`` rows of ``cv``: a number of folds makes quercus's shuffled
    folds (stratified for classes, as ``quercus cv`` and ``ccp_alpha='cv'``), seeded by
    ``random_state``; a splitter or iterable is scikit-learn's to read."""
    if isinstance(cv, int | np.integer) and not isinstance(cv, bool):
        classes = np.asarray(y) if is_classifier(estimator) else None
        return cv_folds(int(cv), random_state, n_rows=len(y), classes=classes, context=context)
    splitter = check_cv(cv, np.asarray(y), classifier=is_classifier(estimator))
    return list(splitter.split(_rows(X, np.arange(len(y))), np.asarray(y)))


def _cross_validated(estimator, X, y, sample_weight, folds, metric, sizes):
    """Mean and standard deviation over ``folds`` of the scores of each fold's sequence, at
    the numbers of leaves ``sizes``."""
    per_fold = []
    for train, test in folds:
        w = None if sample_weight is None else np.asarray(sample_weight)[train]
        fold = clone(estimator).fit(_rows(X, train), np.asarray(y)[train], sample_weight=w)
        sequence = estimator_sequence(fold, _rows(X, train), np.asarray(y)[train], w)
        scores = sequence_scores(sequence, fold, _rows(X, test), np.asarray(y)[test], metric)
        per_fold.append(_at_sizes(sequence.n_leaves, scores, sizes))
    per_fold = np.array(per_fold)
    known = ~np.isnan(per_fold)
    count = known.sum(axis=0)
    total = np.where(known, per_fold, 0.0).sum(axis=0)
    mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    spread = np.where(known, (per_fold - mean) ** 2, 0.0).sum(axis=0)
    std = np.where(count > 0, np.sqrt(spread / np.maximum(count, 1)), np.nan)
    return mean, std


def overfitting_curve(
    estimator,
    X,
    y,
    *,
    X_val=None,
    y_val=None,
    cv=None,
    sample_weight=None,
    metric: str | None = None,
    random_state=0,
    ax=None,
) -> OverfittingCurve:
    """Training and validation score against the number of leaves, along the estimator's
    own pruning sequence, with the size it chose marked.

    The trees are those of the estimator's pruning (``pruning_path_`` from
    ``tree_grown_``: cost-complexity weakest links, reduced-error steps, pessimistic steps,
    after C4.5's collapse steps), or for an estimator that does not prune, those of
    best-first growth (the tree ``max_leaf_nodes=k`` grows, for every ``k``). Reduced-error
    and cost-complexity sequences go on to the root past the tree the estimator kept;
    pessimistic pruning stops at it. Each tree is scored without refitting: the rows go
    once through the grown tree, and every pruned tree's predictions follow from their
    paths (trees after a pessimistic step are rebuilt from the training cases).

    Parameters
    ----------
    estimator : fitted quercus tree estimator
        Fitted on ``X, y`` (and ``sample_weight``).
    X, y : the training data
        The training curve scores the trees on them.
    X_val, y_val : validation data, optional
        Scored along the same sequence. For reduced-error pruning, give cases other than
        those it pruned with, or the curve shows the pruning's own choice.
    cv : int, cross-validation splitter or None
        Without ``X_val``: each fold fits a copy of the estimator on the rest of ``X, y``
        and scores its own sequence on the fold; the curve shows the mean (and standard
        deviation) over the folds at each number of leaves, each fold's tree being its
        largest with at most that many leaves. A number of folds makes shuffled folds,
        stratified for classifiers (as ``quercus cv``); default 5.
    sample_weight : array-like of shape (n_samples,), optional
        The weights the estimator was fitted with.
    metric : {'accuracy', 'error'} for classifiers, {'r2', 'error'} for regressors
        Accuracy, or the misclassification rate; R², or the mean squared error. Default:
        accuracy, R².
    random_state : int or None, default 0
        Seed of the shuffle of a number of folds.
    ax : matplotlib Axes, optional
        Where to draw; when None, a new figure (``figure_``) of its own.

    Returns
    -------
    OverfittingCurve
        The numbers drawn, with ``ax_`` and ``figure_``.
    """
    fitted_estimator(estimator, "overfitting_curve")
    metric = _check_metric(estimator, metric)
    if X_val is not None and cv is not None:
        raise ValueError("give X_val, y_val or cv, not both")
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val go together: give both or neither")
    y = np.asarray(y)
    sequence = estimator_sequence(estimator, X, y, sample_weight)
    train = sequence_scores(sequence, estimator, X, y, metric)
    if X_val is not None:
        validation = sequence_scores(sequence, estimator, X_val, y_val, metric)
        std, how = None, "validation data"
    else:
        folds = _folds(
            _DEFAULT_FOLDS if cv is None else cv, estimator, X, y, random_state, "overfitting_curve"
        )
        validation, std = _cross_validated(
            estimator, X, y, sample_weight, folds, metric, sequence.n_leaves
        )
        how = f"{len(folds)}-fold cross-validation"
    curve = OverfittingCurve(
        method=sequence.method,
        metric=metric,
        n_leaves=sequence.n_leaves,
        train_scores=train,
        validation_scores=validation,
        validation_std=std,
        chosen_index=sequence.chosen,
        chosen_n_leaves=int(sequence.n_leaves[sequence.chosen]),
        validation=how,
    )
    _draw_overfitting(curve, axes(ax), type(estimator).__name__)
    return curve


def _draw_overfitting(curve: OverfittingCurve, ax, name: str) -> None:
    x = curve.n_leaves
    marker = "o" if len(x) <= 60 else None
    ax.plot(x, curve.train_scores, marker=marker, ms=3, label="training", gid="training")
    label = "validation" if curve.validation_std is None else curve.validation
    ax.plot(x, curve.validation_scores, marker=marker, ms=3, ls="--", label=label, gid="validation")
    if curve.validation_std is not None:
        ax.fill_between(
            x,
            curve.validation_scores - curve.validation_std,
            curve.validation_scores + curve.validation_std,
            alpha=0.2,
            color=ax.lines[-1].get_color(),
            gid="validation-spread",
        )
    i = curve.chosen_index
    ax.axvline(
        curve.chosen_n_leaves,
        color="0.3",
        ls=":",
        label=f"chosen: {curve.chosen_n_leaves} leaves",
        gid="chosen",
    )
    ax.plot(
        [x[i], x[i]],
        [curve.train_scores[i], curve.validation_scores[i]],
        ls="none",
        marker="D",
        color="0.2",
        gid="chosen-scores",
    )
    ax.set_xlabel("number of leaves")
    ax.xaxis.set_major_locator(_whole_numbers())
    ax.set_ylabel(_METRIC_NAMES[curve.metric])
    ax.set_title(f"{name}: {_METHOD_NAMES[curve.method]}")
    ax.legend(loc="best")
    curve.ax_, curve.figure_ = ax, ax.figure


# -- the learning curve ---------------------------------------------------------------------


@dataclass
class LearningCurve:
    """The numbers of :func:`learning_curve`, with the Axes they are drawn on.

    Attributes
    ----------
    train_sizes : int ndarray (n_sizes,)
        Numbers of training cases.
    train_scores, validation_scores : ndarray (n_sizes, n_folds)
        Scores on the training cases and on the held-out fold, per fold.
    scoring : str
        What the scores are ('accuracy', 'R²', or the ``scoring`` given).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    """

    train_sizes: np.ndarray
    train_scores: np.ndarray
    validation_scores: np.ndarray
    scoring: str
    ax_: object = None
    figure_: object = None


def learning_curve(
    estimator,
    X,
    y,
    *,
    train_sizes=(0.1, 0.325, 0.55, 0.775, 1.0),
    cv=5,
    scoring=None,
    shuffle: bool = True,
    random_state=0,
    n_jobs=None,
    ax=None,
) -> LearningCurve:
    """Score against the number of training cases: training and cross-validated, with
    their spread over the folds (scikit-learn's :func:`sklearn.model_selection.learning_curve`).

    Parameters
    ----------
    estimator : estimator
        A quercus tree or forest (or any scikit-learn estimator), fitted or not: copies are
        fitted.
    X, y : the data
    train_sizes : sequence of float or int, default five from 10% to 100%
        Numbers of training cases (fractions of the training part of each split).
    cv : int or cross-validation splitter, default 5
        A number of folds makes shuffled folds, stratified for classifiers (as
        ``quercus cv``), seeded by ``random_state``.
    scoring : str or callable, optional
        scikit-learn scoring; default the estimator's ``score`` (accuracy, R²).
    shuffle : bool, default True
        Shuffle the training part of each split before taking its first cases (data sorted
        by class would otherwise give small training sets of one class).
    random_state : int or None, default 0
        Seed of the shuffles.
    n_jobs : int, optional
        Parallel fits (scikit-learn's ``n_jobs``).
    ax : matplotlib Axes, optional
        Where to draw; when None, a new figure (``figure_``) of its own.

    Returns
    -------
    LearningCurve
        The numbers drawn, with ``ax_`` and ``figure_``.
    """
    from sklearn.model_selection import learning_curve as sklearn_learning_curve

    if not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
        raise TypeError(f"learning_curve needs an estimator, got {type(estimator).__name__}")
    y = np.asarray(y)
    sizes, train, validation = sklearn_learning_curve(
        estimator,
        X,
        y,
        train_sizes=train_sizes,
        cv=_folds(cv, estimator, X, y, random_state, "learning_curve"),
        scoring=scoring,
        shuffle=shuffle,
        random_state=random_state,
        n_jobs=n_jobs,
        error_score="raise",
    )
    if scoring is None:
        name = "accuracy" if is_classifier(estimator) else "R²"
    else:
        name = scoring if isinstance(scoring, str) else getattr(scoring, "__name__", "score")
    curve = LearningCurve(sizes, train, validation, name)
    ax = axes(ax)
    for scores, label, style in ((train, "training", "-"), (validation, "cross-validation", "--")):
        mean, std = scores.mean(axis=1), scores.std(axis=1)
        (line,) = ax.plot(sizes, mean, marker="o", ms=4, ls=style, label=label, gid=label)
        ax.fill_between(
            sizes, mean - std, mean + std, alpha=0.2, color=line.get_color(), gid=f"{label}-spread"
        )
    ax.set_xlabel("training cases")
    ax.xaxis.set_major_locator(_whole_numbers())
    ax.set_ylabel(name)
    ax.set_title(f"{type(estimator).__name__}: learning curve")
    ax.legend(loc="best")
    curve.ax_, curve.figure_ = ax, ax.figure
    return curve


# -- impurity against p -----------------------------------------------------------------------


@dataclass
class ImpurityCurves:
    """The numbers of :func:`impurity_curves`, with the Axes they are drawn on.

    Attributes
    ----------
    p : ndarray (n_points,)
        Share of the first class, from 0 to 1.
    entropy, gini, misclassification : ndarray (n_points,)
        The impurity of the distribution ``(p, 1 - p)`` by each criterion (entropy in bits,
        times ``entropy_scale``).
    entropy_scale : float
        1 (bits, as the lectures draw it: 1 at p = 0.5), or 0.5 (``scaled_entropy``: the
        three curves meet at p = 0.5, as in Hastie, Tibshirani and Friedman's figure 9.3).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    """

    p: np.ndarray
    entropy: np.ndarray
    gini: np.ndarray
    misclassification: np.ndarray
    entropy_scale: float
    ax_: object = None
    figure_: object = None


def impurity_curves(
    *, n_points: int = 201, scaled_entropy: bool = False, ax=None
) -> ImpurityCurves:
    """Entropy, Gini index and misclassification error of two classes against the share
    ``p`` of one of them (the lectures' figure).

    The values are the trees' own: each criterion's function in quercus's registry of
    criteria (:mod:`quercus.criteria.registry`), which the compiled kernels are tested
    against. For two classes, entropy ``-p log2 p - (1 - p) log2 (1 - p)`` is 1 at
    ``p = 0.5``, Gini ``1 - p^2 - (1 - p)^2 = 2 p (1 - p)`` and the misclassification error
    ``1 - max(p, 1 - p)`` are 0.5.

    Parameters
    ----------
    n_points : int, default 201
        Values of ``p``, evenly from 0 to 1 (an odd number includes 0.5).
    scaled_entropy : bool, default False
        Halve the entropy, so that the three curves meet at (0.5, 0.5). The default draws it
        in bits, as the lectures do.
    ax : matplotlib Axes, optional
        Where to draw; when None, a new figure (``figure_``) of its own.

    Returns
    -------
    ImpurityCurves
        The numbers drawn, with ``ax_`` and ``figure_``.
    """
    if isinstance(n_points, bool) or not isinstance(n_points, int | np.integer) or n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
    p = np.linspace(0.0, 1.0, int(n_points))
    scale = 0.5 if scaled_entropy else 1.0

    def curve(name):
        impurity = registry.get(name).impurity
        return np.array([impurity(np.array([q, 1.0 - q])) for q in p])

    result = ImpurityCurves(
        p, scale * curve("entropy"), curve("gini"), curve("misclassification"), scale
    )
    ax = axes(ax)
    entropy_label = "entropy (bits)" if not scaled_entropy else "entropy / 2 (bits)"
    ax.plot(p, result.entropy, label=entropy_label, gid="entropy")
    ax.plot(p, result.gini, ls="--", label="Gini index", gid="gini")
    ax.plot(p, result.misclassification, ls=":", label="misclassification error", gid="error")
    ax.set_xlabel("p (share of the first class)")
    ax.set_ylabel("impurity")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, max(1.0, float(result.entropy.max())) * 1.05)
    ax.set_title("Impurity of two classes")
    # Inside the entropy's arc, above the others' peaks.
    ax.legend(loc="center", bbox_to_anchor=(0.5, 0.62), fontsize="small", framealpha=0.9)
    result.ax_, result.figure_ = ax, ax.figure
    return result


def _whole_numbers():
    """Ticks at whole numbers only: leaves and cases are counted."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)
