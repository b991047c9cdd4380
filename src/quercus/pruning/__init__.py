"""Pruning: functions from a fitted tree (and data) to a new, smaller tree."""

from .errors import added_errors, c45_deviate, pessimistic_errors

__all__ = ["added_errors", "c45_deviate", "pessimistic_errors"]
