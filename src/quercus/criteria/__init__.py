"""Split criteria: entropy, information gain, gain ratio, Gini, misclassification error."""

from .measures import (
    conditional_entropy,
    entropy,
    entropy_of_counts,
    error_of_counts,
    gain_ratio,
    gini,
    gini_of_counts,
    information_gain,
    misclassification_error,
    split_information,
)
from .table import gain_table

__all__ = [
    "conditional_entropy",
    "entropy",
    "entropy_of_counts",
    "error_of_counts",
    "gain_ratio",
    "gain_table",
    "gini",
    "gini_of_counts",
    "information_gain",
    "misclassification_error",
    "split_information",
]
