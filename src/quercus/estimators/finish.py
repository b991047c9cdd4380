"""The finish of a tree's fit: the grown tree -> its prunings -> the fitted attributes.

Every fit of a single tree ends here, local or on Dask: :func:`finish_tree` runs the
prunings the estimator's parameters ask for, in C4.5's and CART's order (cost complexity,
C4.5's thresholds at training values, collapsing, then pessimistic or reduced-error
pruning), and stores ``tree_`` and the record of the pruning. The prunings that go back to
the training rows get them as :class:`TrainingCases`; a fit whose rows are elsewhere (on a
Dask cluster) passes none, and the capability table (``quercus.capabilities``) has refused
those prunings before it began.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._parallel import run_parallel
from ..criteria import registry
from ..grow.grower import GrowthSpec
from ..pruning import cost_complexity_path
from ..pruning.cost_complexity import held_out_errors
from ..pruning.sequence import PruningLog
from ..tree._predict import apply_rows
from ..tree.thresholds import thresholds_at_training_values
from .folds import cv_folds
from .params import shallow_params
from .spec import C45_TOLERANCE, c45_variant, uses_c45_thresholds
from .validate import predict_matrix, routing_matrix

#: Folds of ``ccp_alpha="cv"``, as ``quercus cv`` makes them by default.
CV_FOLDS = 10


class TrainingCases(NamedTuple):
    """The training rows a tree was grown on, rows of zero weight left out: the typed
    features, class codes (zeros for regression), targets (zeros for classification) and
    weights (class weights included)."""

    typed: pd.DataFrame
    y_class: np.ndarray
    y_value: np.ndarray
    w: np.ndarray


class Validation(NamedTuple):
    """Held-out cases of reduced-error pruning: typed features, class codes and weights."""

    typed: pd.DataFrame
    y_class: np.ndarray
    w: np.ndarray


class Finished(NamedTuple):
    """What :func:`finish_tree` leaves: the record of the prunings, and the tree as it was
    before the pruning that goes back to the rows (what C4.5rules rewrites)."""

    log: PruningLog
    before_row_pruning: object  # Tree


def prunes_by_cv(params, spec: GrowthSpec) -> bool:
    """Whether cost-complexity pruning chooses its alpha by cross-validation:
    ``ccp_alpha='cv'``, or ``pruning='cost_complexity'`` without an alpha."""
    alpha = params.get("ccp_alpha", 0.0)
    return isinstance(alpha, str) or (
        params.get("pruning") == "cost_complexity" and spec.params.ccp_alpha == 0.0
    )


def finish_tree(
    estimator,
    tree,
    spec: GrowthSpec,
    cases: TrainingCases | None = None,
    validation: Validation | None = None,
) -> Finished:
    """Prune the grown ``tree`` as ``estimator``'s parameters ask and store the fitted
    attributes ``tree_``, ``max_features_`` and the pruning's record (see
    :func:`keep_pruning`). ``cases``: the training rows, for the prunings that read them
    (None: there are none to read; :class:`ValueError` if one is asked for);
    ``validation``: the held-out cases of reduced-error pruning."""
    params = shallow_params(estimator)
    log = PruningLog(tree, estimator.schema_)
    if prunes_by_cv(params, spec):
        rows = _needed(cases, "ccp_alpha='cv'")
        estimator.ccp_alpha_, estimator.cv_results_ = ccp_alpha_by_cv(estimator, tree, rows)
        log.cost_complexity(estimator.ccp_alpha_)
    elif spec.params.ccp_alpha > 0.0:
        log.cost_complexity(spec.params.ccp_alpha)
    if uses_c45_thresholds(params, spec.regression):
        rows = _needed(cases, "c45_thresholds=True")
        distinct: dict = {}  # each feature's training values, sorted once for both trees
        tolerance = C45_TOLERANCE[c45_variant(params)]
        log.thresholds(
            lambda t: thresholds_at_training_values(
                t, estimator.schema_, rows.typed, tolerance=tolerance, distinct=distinct
            )
        )
    if params.get("collapse", False):
        log.collapse_unhelpful()
    before = log.tree
    pruning = params.get("pruning")
    if pruning == "pessimistic":
        prune_pessimistic(estimator, log, _needed(cases, "pruning='pessimistic'"))
    elif pruning == "reduced_error":
        if validation is None:
            raise ValueError("pruning='reduced_error' needs validation cases")
        leaves = run_parallel(
            apply_rows, routing_matrix(estimator, validation.typed), *log.tree.route_tables()
        )
        log.reduced_error(leaves, validation.y_class, validation.w)
    estimator.tree_ = log.tree
    estimator.max_features_ = spec.params.max_features
    keep_pruning(estimator, log)
    return Finished(log, before)


def _needed(cases: TrainingCases | None, what: str) -> TrainingCases:
    if cases is None:
        raise ValueError(f"{what} prunes with the training rows, and this fit has none here")
    return cases


def prune_pessimistic(estimator, log: PruningLog, cases: TrainingCases) -> None:
    """C4.5's error-based pruning of ``log``'s tree on the training ``cases`` (J48's, or
    release 8's by ``c45_variant``)."""
    log.pessimistic(
        routing_matrix(estimator, cases.typed),
        cases.y_class,
        cases.w,
        estimator.n_classes_,
        registry.get(estimator.criterion).impurity,
        confidence=float(estimator.confidence),
        raising=bool(estimator.subtree_raising),
        variant=pessimistic_variant(shallow_params(estimator)),
    )


def pessimistic_variant(params) -> str:
    """The pessimistic estimate's variant of ``c45_variant``: "j48" or "c45"."""
    return "j48" if c45_variant(params) == "j48" else "c45"


def keep_pruning(estimator, log: PruningLog) -> None:
    """Keep the grown tree, the pruning's steps and the grown id of each node of ``tree_``
    when a pruning ran (even one that took no step); forget those of an earlier fit
    otherwise."""
    if log.ran:
        estimator.tree_grown_ = log.grown
        estimator.pruning_path_ = list(log.steps)
        estimator.grown_node_ids_ = log.origin
        return
    for name in ("tree_grown_", "pruning_path_", "grown_node_ids_"):
        estimator.__dict__.pop(name, None)


def ccp_alpha_by_cv(estimator, tree, cases: TrainingCases):
    """CART's choice of alpha: k-fold cross-validated error of the pruned trees along the
    pruning path, and the largest alpha within one standard error of the best.

    Candidates are the geometric means of consecutive alphas of the full tree's path (and
    its last alpha), as rpart does; :data:`CV_FOLDS` folds, stratified for classes,
    shuffled with ``random_state`` (:func:`~quercus.estimators.folds.cv_folds`), unless the
    tree is one leaf (a single candidate: its errors are NaN). Each fold grows its unpruned
    tree once, and the errors of all its pruned trees come from one pass over the held-out
    rows (:func:`~quercus.pruning.cost_complexity.held_out_errors`).
    """
    alphas, _ = cost_complexity_path(tree)
    candidates = np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])
    if len(candidates) == 1:
        # A tree of one leaf (min_samples_split above the rows, say) has nothing to prune:
        # any alpha gives it, so no folds are grown (data too small for 10 folds is no
        # error then), and no error is estimated.
        unknown = np.full(1, np.nan)
        return float(candidates[0]), {
            "ccp_alphas": candidates,
            "mean_error": unknown,
            "std_error": unknown.copy(),
        }
    regression = estimator.regression
    typed, y_class, y_value, w = cases
    labels = y_value if regression else estimator.classes_[y_class]
    matrix = routing_matrix(estimator, typed)  # every row, routed by the fold trees below
    params = {"ccp_alpha": 0.0}  # w already holds any class weights
    if "pruning" in shallow_params(estimator):
        params.update(pruning=None, class_weight=None)
    index = {} if regression else {c: i for i, c in enumerate(estimator.classes_.tolist())}
    errors = []
    folds = cv_folds(
        CV_FOLDS,
        estimator.random_state,
        n_rows=len(labels),
        classes=None if regression else labels,
        context="ccp_alpha='cv'",
        stacklevel=4,  # the caller of fit
    )
    for train, test in folds:
        est = clone(estimator).set_params(**params)
        est.fit(typed.iloc[train], labels[train], sample_weight=w[train])
        if est.schema_.features == estimator.schema_.features:
            held_out = matrix[test]
        else:  # the fold typed a column differently: match the rows to its schema
            held_out = predict_matrix(est, typed.iloc[test])
        if regression:
            target, class_codes = y_value[test], None
        else:  # the fold's classes, as codes of ours (a fold may lack a class)
            target = y_class[test]
            class_codes = np.array([index[c] for c in est.classes_.tolist()])
        errors.append(
            held_out_errors(est.tree_, held_out, target, w[test], candidates, class_codes)
        )
    errors = np.asarray(errors)
    mean = errors.mean(axis=0)
    std_error = errors.std(axis=0, ddof=1) / np.sqrt(len(errors))
    best = int(np.argmin(mean))
    within = np.flatnonzero(mean <= mean[best] + std_error[best] + 1e-12)
    chosen = float(candidates[within.max()])
    return chosen, {"ccp_alphas": candidates, "mean_error": mean, "std_error": std_error}


__all__ = [
    "CV_FOLDS",
    "Finished",
    "TrainingCases",
    "Validation",
    "ccp_alpha_by_cv",
    "finish_tree",
    "keep_pruning",
    "pessimistic_variant",
    "prune_pessimistic",
    "prunes_by_cv",
]
