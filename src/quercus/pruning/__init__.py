"""Pruning: functions from a fitted tree (and data) to a new, smaller tree.

The functions are imported on first use (:mod:`quercus._lazy`): reading a rules model's
file needs :mod:`quercus.pruning.c45rules` alone, not the pruning kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

_EXPORTS = {
    "added_errors": "error_estimates",
    "c45_deviate": "error_estimates",
    "collapse": "subtree",
    "cost_complexity_path": "cost_complexity",
    "pessimistic_errors": "error_estimates",
    "prune_cost_complexity": "cost_complexity",
    "prune_pessimistic": "pessimistic",
    "prune_reduced_error": "reduced_error",
}
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
__getattr__, __dir__ = lazy_names(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .cost_complexity import cost_complexity_path, prune_cost_complexity
    from .error_estimates import added_errors, c45_deviate, pessimistic_errors
    from .pessimistic import prune_pessimistic
    from .reduced_error import prune_reduced_error
    from .subtree import collapse
