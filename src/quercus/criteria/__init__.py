"""Split criteria, each one unit: its kernel (``_impurity``), its code, names and NumPy twin
(``registry``, ``twins``), and the teaching functions built on the twins (entropy,
information gain, gain ratio, Gini, misclassification error, ``gain_table``)."""

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
