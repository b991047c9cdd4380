"""The parameters worth searching for each estimator, by class name: the grids of
:func:`quercus.model_selection.default_grid`, in a module that imports nothing, so that the
command line can show them in ``quercus tune --help`` without importing the estimators."""

from __future__ import annotations

# The lectures' choices ("prune or not? stopping criteria? split selection criteria?"), a
# few values each, so that a grid is a few dozen fits per fold at most. A list of grids
# where a parameter matters only with another (confidence only with pessimistic pruning).
_STOPPING_LEAF = [1, 2, 5]
_C45_LEAF = [2, 5, 10]  # C4.5's own minimum is 2
_CART_CLASSIFIER = [
    {"criterion": ["gini", "entropy"], "max_depth": [None, 3, 6], "ccp_alpha": [0.0, "cv"]}
]
_CART_REGRESSOR = [
    {
        "criterion": ["squared_error", "absolute_error"],
        "min_samples_leaf": [1, 7, 20],
        "ccp_alpha": [0.0, "cv"],
    }
]

# A booster's step size and the size of its trees (LightGBM's num_leaves), the number of
# iterations fixed and modest, so that the 9 candidates of a 10-fold search take a minute
# or so on the shipped data sets (more iterations at a lower rate rarely lose: --set
# max_iter=N or --grid max_iter=... searches it).
_BOOST = [{"learning_rate": [0.05, 0.1, 0.2], "max_leaf_nodes": [15, 31, 63], "max_iter": [50]}]

#: Each estimator's grids (a ``param_grid`` for ``GridSearchCV``), by its class's name.
DEFAULT_GRIDS: dict[str, list[dict]] = {
    "ID3Classifier": [
        # ID3 stops at a chi-square test (the lectures' "not statistically significant")...
        {"pruning": [None], "significance": [None, 0.05, 0.01], "min_samples_leaf": _STOPPING_LEAF},
        # ... or grows and prunes on held-out rows (the lectures' reduced-error pruning).
        {"pruning": ["reduced_error"], "min_samples_leaf": _STOPPING_LEAF},
    ],
    "C45Classifier": [
        {"pruning": ["pessimistic"], "confidence": [0.1, 0.25, 0.5], "min_samples_leaf": _C45_LEAF},
        {"pruning": [None, "reduced_error"], "min_samples_leaf": _C45_LEAF},
    ],
    "C45RulesClassifier": [{"confidence": [0.1, 0.25, 0.5], "min_samples_leaf": _C45_LEAF}],
    "CARTClassifier": _CART_CLASSIFIER,
    "CARTRegressor": _CART_REGRESSOR,
    "DecisionTreeClassifier": _CART_CLASSIFIER,
    "DecisionTreeRegressor": _CART_REGRESSOR,
    "RandomForestClassifier": [{"max_features": ["sqrt", None], "min_samples_leaf": [1, 2, 5]}],
    "RandomForestRegressor": [{"max_features": [1.0, "sqrt"], "min_samples_leaf": [1, 2, 5]}],
    # M5's stopping rule (M5P's -M) and whether the leaves' models are smoothed (M5P's -U);
    # pruning stays on: an unpruned model tree has hundreds of linear models.
    "ModelTreeRegressor": [{"min_samples_split": [4, 10, 25], "smoothing": [True, False]}],
    "GradientBoostingClassifier": _BOOST,
    "GradientBoostingRegressor": _BOOST,
}
