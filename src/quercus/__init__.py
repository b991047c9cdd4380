"""quercus: decision trees and tree ensembles — ID3, C4.5, CART and forests.

The public names are imported on first use (PEP 562's module ``__getattr__``): ``import
quercus`` alone, and so ``python -m quercus --help``, loads neither pandas, scikit-learn nor
Numba. ``quercus.C45Classifier`` (or ``from quercus import C45Classifier``) imports the
estimators then.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

from ._version import __version__

#: Each public name and the module (relative to the package) that defines it.
_EXPORTS = {
    "C45Classifier": "estimators",
    "C45RulesClassifier": "estimators",
    "CARTClassifier": "estimators",
    "CARTRegressor": "estimators",
    "DecisionTreeClassifier": "estimators",
    "DecisionTreeRegressor": "estimators",
    "ID3Classifier": "estimators",
    "ModelTreeRegressor": "estimators",
    "GradientBoostingClassifier": "ensemble",
    "GradientBoostingRegressor": "ensemble",
    "RandomForestClassifier": "ensemble",
    "RandomForestRegressor": "ensemble",
    "DataError": "data",
    "DataWarning": "data",
    "InvalidParameterError": "estimators.params",
    "ModelError": "persist.loader",
    "Schema": "data",
    "Table": "data",
    "conditional_entropy": "criteria",
    "entropy": "criteria",
    "gain_ratio": "criteria",
    "gain_table": "criteria",
    "gini": "criteria",
    "information_gain": "criteria",
    "load": "persist.loader",
    "misclassification_error": "criteria",
    "read_table": "data",
    "split_information": "criteria",
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
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
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


def __getattr__(name: str):
    """A public name, or a subpackage (``quercus.datasets``), imported on first use."""
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names: ``__all__`` and the subpackages imported so far, not the names this
    module works with (``importlib``, ``TYPE_CHECKING``, ``annotations``, ``_EXPORTS``)."""
    subpackages = (
        name
        for name, value in globals().items()
        if not name.startswith("_") and getattr(value, "__name__", None) == f"{__name__}.{name}"
    )
    return sorted({*__all__, *subpackages})


if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from . import datasets, export
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
    from .ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from .estimators import (
        C45Classifier,
        C45RulesClassifier,
        CARTClassifier,
        CARTRegressor,
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ID3Classifier,
        ModelTreeRegressor,
    )
    from .estimators.params import InvalidParameterError
    from .persist.loader import ModelError, load
