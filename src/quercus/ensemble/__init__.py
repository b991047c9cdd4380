"""Ensembles of trees: random forests (bagging with randomised attributes) and gradient
boosting."""

from .forest import RandomForestClassifier, RandomForestRegressor
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = [
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
]
