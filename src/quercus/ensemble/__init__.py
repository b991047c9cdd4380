"""Ensembles of trees: random forests (bagging with randomised attributes)."""

from .forest import RandomForestClassifier, RandomForestRegressor

__all__ = ["RandomForestClassifier", "RandomForestRegressor"]
