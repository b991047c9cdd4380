"""Booster files: the ensemble file (:mod:`quercus.persist.ensemble_file`) of a gradient
booster.

A booster's trees are regression trees (grown on the Newton working targets, for classes
too), each weighing the learning rate: a leaf adds its mean times its tree's weight to the
raw score of its tree (tree ``i * n_trees_per_iteration + k`` to score ``k``). Its own
fields are the raw scores before the first tree (``start``), the iterations kept and the
trees per iteration, the seed, and the record of the fit (minus the training and the
validation loss at every iteration run, whether early stopping ran) and the L2 and L1
regularisation its steps were made with (the learning rate is the trees' weight).
"""

from __future__ import annotations

import math

import numpy as np

from ..tree import leaves
from .ensemble_file import EnsembleKind, save_ensemble
from .errors import ModelError

#: The boosters a booster file can hold.
BOOSTER_ESTIMATORS = ("GradientBoostingClassifier", "GradientBoostingRegressor")


def _finite_list(values, field: str) -> list:
    out = [float(v) for v in values]
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"the booster's {field} has a value that is not finite: cannot save it")
    return out


def _fields(booster) -> dict:
    return {
        "base_seed": int(booster.base_seed_),
        "start": _finite_list(booster.start_, "start_"),
        "n_iter": int(booster.n_iter_),
        "n_trees_per_iteration": int(booster.n_trees_per_iteration_),
        "train_score": _finite_list(booster.train_score_, "train_score_"),
        "validation_score": _finite_list(booster.validation_score_, "validation_score_"),
        "do_early_stopping": bool(booster.do_early_stopping_),
        "l2_regularization": float(booster.l2_regularization_),
        "l1_regularization": float(booster.l1_regularization_),
    }


def _tree_weights(booster) -> np.ndarray:
    return np.full(len(booster.trees_), float(booster.learning_rate_))


def _numbers(fields: dict, key: str) -> list:
    values = fields[key]
    if not all(type(v) in (int, float) and math.isfinite(v) for v in values):
        raise ModelError(f"field ensemble.{key}: finite numbers only")
    return [float(v) for v in values]


def _restore(booster, fields: dict, weights: np.ndarray) -> None:
    """Check a booster's fields and tree weights as read, and set its attributes."""
    n_classes = len(getattr(booster, "classes_", ()))
    per_iteration = n_classes if n_classes > 2 else 1
    if fields["n_trees_per_iteration"] != per_iteration:
        raise ModelError(
            f"field ensemble.n_trees_per_iteration: {fields['n_trees_per_iteration']}, where "
            f"the classes give {per_iteration}"
        )
    n_iter = fields["n_iter"]
    if n_iter * per_iteration != len(booster.trees_):
        raise ModelError("field ensemble.n_iter: not the number of trees per iteration")
    start = _numbers(fields, "start")
    if len(start) != per_iteration:
        raise ModelError("field ensemble.start: not one raw score per tree of an iteration")
    train, validation = _numbers(fields, "train_score"), _numbers(fields, "validation_score")
    if not n_iter < len(train) <= booster.max_iter + 1:
        raise ModelError("field ensemble.train_score: not one score per iteration run")
    early = fields["do_early_stopping"]
    if len(validation) != (len(train) if early else 0):
        raise ModelError("field ensemble.validation_score: not one score per iteration run")
    if booster.trees_.merged.leaf_model not in (leaves.MEAN, leaves.STEP):
        raise ModelError("field arrays: a booster's trees have mean or step leaves")
    if booster.trees_.merged.fractional:
        raise ModelError("field arrays: a booster's trees send no fractions of rows")
    rate = float(weights[0])
    if not (rate > 0.0 and (weights == rate).all()):
        raise ModelError(
            "field arrays.tree_weights: a booster's trees weigh its learning rate, one "
            "positive number"
        )
    l2, l1 = (fields[key] for key in ("l2_regularization", "l1_regularization"))
    if not all(type(v) in (int, float) and math.isfinite(v) and v >= 0 for v in (l2, l1)):
        raise ModelError("field ensemble.l2_regularization/l1_regularization: numbers >= 0")
    booster.base_seed_ = fields["base_seed"]
    booster.start_ = np.asarray(start)
    booster.n_iter_ = n_iter
    booster.n_trees_per_iteration_ = per_iteration
    booster.train_score_ = np.asarray(train)
    booster.validation_score_ = np.asarray(validation)
    booster.do_early_stopping_ = early
    booster.learning_rate_ = rate
    booster.l2_regularization_ = float(l2)
    booster.l1_regularization_ = float(l1)


#: What a booster's ensemble file holds of its own (its trees are regression trees).
BOOSTER = EnsembleKind(BOOSTER_ESTIMATORS, _fields, _tree_weights, _restore, True)


def save_booster(booster, path):
    """Write a fitted gradient booster to ``path`` (written beside it, then renamed)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(booster, "start_")
    if booster.trees_ is None:
        raise ValueError(
            "the booster kept no tree (early stopping found no iteration better than the "
            "start): there is no model to save"
        )
    return save_ensemble(booster, path, BOOSTER)


__all__ = ["BOOSTER", "BOOSTER_ESTIMATORS", "save_booster"]
