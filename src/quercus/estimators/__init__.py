"""scikit-learn style estimators; ID3, C4.5 and CART are configurations, not code bases.

The classes are imported on first use (:mod:`quercus._lazy`), so that the submodules that
need no scikit-learn (:mod:`quercus.estimators.params`, which the model-file reader and the
command line's ``--set`` use) can be imported without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

_EXPORTS = {
    "C45Classifier": "trees",
    "C45RulesClassifier": "rule_classifier",
    "CARTClassifier": "trees",
    "CARTRegressor": "trees",
    "DecisionTreeClassifier": "trees",
    "DecisionTreeRegressor": "trees",
    "ID3Classifier": "trees",
    "ModelTreeRegressor": "model_tree",
}
__all__ = [
    "C45Classifier",
    "C45RulesClassifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "ModelTreeRegressor",
]
__getattr__, __dir__ = lazy_names(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .model_tree import ModelTreeRegressor
    from .rule_classifier import C45RulesClassifier
    from .trees import (
        C45Classifier,
        CARTClassifier,
        CARTRegressor,
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ID3Classifier,
    )
