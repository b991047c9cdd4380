"""Pruning: functions from a fitted tree (and data) to a new, smaller tree."""

from .cost_complexity import cost_complexity_path, prune_cost_complexity
from .error_estimates import added_errors, c45_deviate, pessimistic_errors
from .pessimistic import prune_pessimistic
from .reduced_error import prune_reduced_error
from .subtree import collapse

__all__ = [
    "added_errors",
    "c45_deviate",
    "collapse",
    "cost_complexity_path",
    "pessimistic_errors",
    "prune_cost_complexity",
    "prune_pessimistic",
    "prune_reduced_error",
]
