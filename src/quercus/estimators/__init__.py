"""scikit-learn style estimators; ID3, C4.5 and CART are configurations, not code bases."""

from .rule_classifier import C45RulesClassifier
from .trees import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)

__all__ = [
    "C45Classifier",
    "C45RulesClassifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
]
