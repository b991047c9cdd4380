"""Forest files: the ensemble file (:mod:`quercus.persist.ensemble_file`) of a random forest.

A forest's own fields are its seeds (the forest's, each tree's: out-of-bag rows are drawn
again from them), the number of features its trees draw at a split, and its out-of-bag
score when it was computed; its trees weigh 1 each (their outputs are averaged).
"""

from __future__ import annotations

import numpy as np

from ..tree import leaves
from .ensemble_file import EnsembleKind, save_ensemble
from .errors import ModelError

#: The forests a forest file can hold (the public names of ``quercus.ensemble``).
FOREST_ESTIMATORS = ("RandomForestClassifier", "RandomForestRegressor")


def _fields(forest) -> dict:
    fields = {
        "base_seed": int(forest.base_seed_),
        "seeds": [int(s) for s in forest.tree_seeds_],
        "max_features": int(forest.estimators_[0].max_features_),
    }
    if hasattr(forest, "oob_score_"):
        fields["oob_score"] = float(forest.oob_score_)
    return fields


def _tree_weights(forest) -> np.ndarray:
    return np.ones(len(forest.trees_))


def _restore(forest, fields: dict, weights: np.ndarray) -> None:
    """Check a forest's fields and tree weights as read, and set its attributes."""
    n_trees = len(forest.trees_)
    _check_seeds(fields["seeds"], n_trees)
    if fields["max_features"] > forest.n_features_in_:
        raise ModelError("field ensemble.max_features: more than the number of features")
    if forest.trees_.merged.leaf_model == leaves.STEP:
        raise ModelError("field arrays.step: a forest's trees have no booster's steps")
    if (forest.trees_.merged.leaf_model == leaves.MEDIAN) != (forest.criterion == "absolute_error"):
        raise ModelError("field arrays.median: present exactly when criterion='absolute_error'")
    max_features = forest.estimators_[0].max_features_  # what the parameters give
    if fields["max_features"] != max_features:
        raise ModelError(
            f"field ensemble.max_features: {fields['max_features']}, where the parameters "
            f"give {max_features}"
        )
    if not (weights == 1.0).all():
        raise ModelError("field arrays.tree_weights: a forest's trees weigh 1 each")
    forest.tree_seeds_ = list(fields["seeds"])
    forest.base_seed_ = fields["base_seed"]
    if "oob_score" in fields:
        forest.oob_score_ = float(fields["oob_score"])


def _check_seeds(seeds: list, n_trees: int) -> None:
    """One seed per tree, each an integer of 0 to 2**64 - 1 (checked here, not by the JSON
    Schema: its validator took 0.13 ms an item, 13 s for 100,000 trees)."""
    if len(seeds) != n_trees:
        raise ModelError("field ensemble.seeds: not one seed per tree")
    if not all(type(s) is int for s in seeds) or (
        seeds and not 0 <= min(seeds) <= max(seeds) < 2**64
    ):
        raise ModelError("field ensemble.seeds: seeds are integers of 0 to 2**64 - 1")


#: What a forest's ensemble file holds of its own.
FOREST = EnsembleKind(FOREST_ESTIMATORS, _fields, _tree_weights, _restore)


def save_forest(forest, path):
    """Write a fitted random forest to ``path`` (written beside it, then renamed)."""
    from sklearn.utils.validation import check_is_fitted  # a forest: sklearn is loaded

    check_is_fitted(forest, "trees_")
    return save_ensemble(forest, path, FOREST)


__all__ = ["FOREST", "FOREST_ESTIMATORS", "save_forest"]
