"""quercus: decision trees and tree ensembles — ID3, C4.5, CART and forests."""

from . import datasets, export
from ._version import __version__
from .criteria import (
    conditional_entropy,
    entropy,
    gain_ratio,
    gain_table,
    gini,
    information_gain,
    misclassification_error,
    split_information,
)
from .data import DataError, DataWarning, Schema, Table, read_table
from .ensemble import RandomForestClassifier, RandomForestRegressor
from .estimators import (
    C45Classifier,
    C45RulesClassifier,
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from .estimators.params import InvalidParameterError
from .persist.loader import ModelError, load

__all__ = [
    "C45Classifier",
    "C45RulesClassifier",
    "CARTClassifier",
    "CARTRegressor",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ID3Classifier",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "DataError",
    "DataWarning",
    "InvalidParameterError",
    "ModelError",
    "Schema",
    "Table",
    "conditional_entropy",
    "datasets",
    "entropy",
    "export",
    "gain_ratio",
    "gain_table",
    "gini",
    "information_gain",
    "load",
    "misclassification_error",
    "read_table",
    "split_information",
    "__version__",
]
