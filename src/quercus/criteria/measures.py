"""Information measures on labels: entropy, gain, gain ratio, Gini, misclassification error.

Every function takes plain labels (lists, arrays, Series) and optional sample weights, and
computes with the criteria's twins (:mod:`quercus.criteria.twins`, through the registry),
which a test checks against the kernels the trees use.
Logarithms are base 2 and 0 log 0 = 0. Two-argument functions take ``(x, y)``: the attribute
first, the class second, as in :func:`quercus.gain_table`.

Missing attribute values are handled as C4.5 does: the gain is computed on the examples whose
value is known and scaled by their share of the weight, and the split information counts the
missing examples as one more branch. Without missing values these are the textbook formulas.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.errors import DataError
from ..data.schema import clean_object_column
from . import registry
from .twins import entropy_of_counts, error_of_counts, gini_of_counts

__all__ = [
    "conditional_entropy",
    "entropy",
    "gain_ratio",
    "gini",
    "information_gain",
    "misclassification_error",
    "split_information",
    "entropy_of_counts",
    "gini_of_counts",
    "error_of_counts",
]


# ---------------------------------------------------------------------------------------------
# Label handling


def sample_weights(n: int, sample_weight) -> np.ndarray:
    """The weights of ``n`` examples as float64 (ones when ``sample_weight`` is None),
    checked: one per example, finite and non-negative."""
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if len(w) != n:
        raise ValueError(f"sample_weight has {len(w)} values for {n} examples")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    return w


def label_codes(values, what: str, allow_missing: bool) -> tuple[np.ndarray, int]:
    """Integer codes of labels (-1 = missing) and the number of distinct labels."""
    series = (
        values
        if isinstance(values, pd.Series)
        else pd.Series(list(values) if not isinstance(values, np.ndarray) else values)
    )
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        series = clean_object_column(series)
    codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    if not allow_missing and (codes < 0).any():
        raise DataError(f"{what} has missing values at positions {np.flatnonzero(codes < 0)[:5]}")
    return codes.astype(np.int64), len(uniques)


def _class_counts(y, sample_weight) -> np.ndarray:
    codes, k = label_codes(y, "y", allow_missing=False)
    return np.bincount(codes, weights=sample_weights(len(codes), sample_weight), minlength=k)


def _labels_or_counts(y, sample_weight, counts: bool) -> np.ndarray:
    if counts:
        if sample_weight is not None:
            raise ValueError("sample_weight cannot be combined with counts=True")
        c = np.asarray(y, dtype=np.float64).reshape(-1)
        if (c < 0).any() or not np.isfinite(c).all():
            raise ValueError("counts must be finite and non-negative")
        return c
    return _class_counts(y, sample_weight)


def _impurity(criterion: str, y, sample_weight, counts: bool) -> float:
    """The node impurity of ``criterion`` (its registered twin) of labels or class counts."""
    return registry.get(criterion).impurity(_labels_or_counts(y, sample_weight, counts))


def entropy(y, sample_weight=None, *, counts: bool = False) -> float:
    """Entropy H(Y) in bits of the labels ``y``.

    With ``counts=True``, ``y`` is a list of class counts instead: ``entropy([9, 5],
    counts=True)`` is 0.940.
    """
    return _impurity("entropy", y, sample_weight, counts)


def gini(y, sample_weight=None, *, counts: bool = False) -> float:
    """Gini impurity 1 - sum_k p_k^2 of the labels ``y`` (or class counts, ``counts=True``)."""
    return _impurity("gini", y, sample_weight, counts)


def misclassification_error(y, sample_weight=None, *, counts: bool = False) -> float:
    """Misclassification error 1 - max_k p_k of ``y`` (or class counts, ``counts=True``)."""
    return _impurity("misclassification", y, sample_weight, counts)


# ---------------------------------------------------------------------------------------------
# Attribute against class


def branch_counts(x, y, sample_weight=None, threshold=None) -> tuple[np.ndarray, np.ndarray]:
    """Class weights per branch of ``x``, and per class among examples with ``x`` missing.

    Branches are the distinct values of ``x`` (sorted), or ``x <= threshold`` and
    ``x > threshold`` when a threshold is given. Returns ``(table, missing)`` with ``table`` of
    shape (n_branches, n_classes).
    """
    y_codes, n_classes = label_codes(y, "y", allow_missing=False)
    w = sample_weights(len(y_codes), sample_weight)
    if threshold is not None:
        xs = pd.to_numeric(pd.Series(np.asarray(x, dtype=object)), errors="coerce").to_numpy(float)
        x_codes = np.where(np.isnan(xs), -1, (xs > threshold).astype(np.int64))
        n_values = 2
    else:
        x_codes, n_values = label_codes(x, "x", allow_missing=True)
    if len(x_codes) != len(y_codes):
        raise ValueError(f"x has {len(x_codes)} values but y has {len(y_codes)}")
    known = x_codes >= 0
    table = np.zeros((n_values, n_classes), dtype=np.float64)
    np.add.at(table, (x_codes[known], y_codes[known]), w[known])
    missing = np.bincount(y_codes[~known], weights=w[~known], minlength=n_classes)
    return table, missing


def gain_of_table(table: np.ndarray, missing: np.ndarray, criterion: str = "entropy") -> float:
    """Gain of a split under ``criterion`` (its registered twin) given its class-weight
    table (one row per branch), C4.5-scaled for the ``missing`` class weights."""
    known = table.sum()
    total = known + missing.sum()
    if known <= 0:
        return 0.0
    gain = registry.get(criterion).split_gain(table)
    # A split never raises a concave impurity: a negative difference is rounding (it would
    # print as -0.000).
    return float(known / total * max(gain, 0.0))


def split_info_of_table(table: np.ndarray, missing: np.ndarray) -> float:
    """Entropy of the branch weights; the missing examples count as one more branch."""
    return entropy_of_counts(np.append(table.sum(axis=1), missing.sum()))


def conditional_entropy(x, y, sample_weight=None, threshold=None) -> float:
    """H(Y | X): the entropy of ``y`` left once ``x`` is known (over examples with ``x`` known)."""
    table, _ = branch_counts(x, y, sample_weight, threshold)
    known = table.sum()
    if known <= 0:
        return 0.0
    return float(sum(row.sum() / known * entropy_of_counts(row) for row in table))


def information_gain(x, y, sample_weight=None, threshold=None) -> float:
    """Information gain H(Y) - H(Y | X) of splitting ``y`` by the values of ``x``.

    Give ``threshold`` to score the binary test ``x <= threshold`` on a numeric ``x``.
    """
    return gain_of_table(*branch_counts(x, y, sample_weight, threshold))


def split_information(x, sample_weight=None, threshold=None) -> float:
    """Split information (intrinsic value) of ``x``: the entropy of its branch sizes."""
    n = len(x)
    table, missing = branch_counts(x, np.zeros(n, dtype=np.int64), sample_weight, threshold)
    return split_info_of_table(table, missing)


def gain_ratio(x, y, sample_weight=None, threshold=None) -> float:
    """Gain ratio: information gain divided by split information (0 when that is 0)."""
    table, missing = branch_counts(x, y, sample_weight, threshold)
    info = split_info_of_table(table, missing)
    return 0.0 if info <= 0 else gain_of_table(table, missing) / info
