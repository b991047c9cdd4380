"""``gain_table``: every attribute's gain, split information, gain ratio and Gini decrease;
for a numeric target (regression), its variance decrease."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.encode import as_frame, infer_schema
from ..data.errors import DataError
from ..data.schema import NOMINAL_KIND as NOMINAL
from ..data.schema import NUMERIC_KIND as NUMERIC
from . import registry
from .measures import gain_of_table, label_codes, sample_weights, split_info_of_table

__all__ = ["gain_table", "best_threshold", "best_variance_threshold"]

_SORT_COLUMNS = ("information_gain", "gain_ratio", "gini_decrease")
_REGRESSION_SORT_COLUMNS = ("variance_decrease",)
# A numeric target of at most this many distinct whole numbers is a class column (as on the
# command line: quercus.cli.tasks.MAX_NUMERIC_CLASSES); any other numeric target is numbers.
_MAX_NUMERIC_CLASSES = 20


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy of each row of a (n, n_classes) count matrix."""
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(totals > 0, counts / totals, 0.0)
        logs = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -(p * logs).sum(axis=1)


def best_threshold(values: np.ndarray, y_codes: np.ndarray, w: np.ndarray, n_classes: int):
    """The binary cut ``x <= t`` of largest information gain over the known values.

    ``values`` are floats (NaN = missing). Cuts lie between adjacent distinct values; ties go
    to the lowest cut. Returns ``(cut_index_in_distinct, distinct_values)`` or ``(None, ...)``
    when there is no cut (fewer than two distinct known values).
    """
    known = ~np.isnan(values)
    v, c, ww = values[known], y_codes[known], w[known]
    distinct, inverse = np.unique(v, return_inverse=True)
    if len(distinct) < 2:
        return None, distinct
    per_value = np.zeros((len(distinct), n_classes))
    np.add.at(per_value, (inverse, c), ww)
    left = np.cumsum(per_value, axis=0)[:-1]
    total = per_value.sum(axis=0)
    right = total - left
    n_left, n_right = left.sum(axis=1), right.sum(axis=1)
    n = total.sum()
    after = (n_left * _entropy_rows(left) + n_right * _entropy_rows(right)) / n
    return int(np.argmin(after)), distinct  # argmin takes the first (lowest) on ties


def best_variance_threshold(values: np.ndarray, y: np.ndarray, w: np.ndarray):
    """The binary cut ``x <= t`` of largest variance decrease of ``y`` over the known values.

    As :func:`best_threshold`, for a numeric target: returns ``(cut_index_in_distinct,
    distinct_values)``, or ``(None, ...)`` when there is no cut.
    """
    known = ~np.isnan(values)
    v, target, ww = values[known], y[known], w[known]
    distinct, inverse = np.unique(v, return_inverse=True)
    if len(distinct) < 2:
        return None, distinct
    moments = np.zeros((len(distinct), 3))
    np.add.at(moments, inverse, np.column_stack([ww, ww * target, ww * target * target]))
    left = np.cumsum(moments, axis=0)[:-1]
    right = moments.sum(axis=0) - left

    def squared_error(side):  # the weighted sum of squared deviations from the side's mean
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(side[:, 0] > 0, side[:, 2] - side[:, 1] ** 2 / side[:, 0], 0.0)

    return int(np.argmin(squared_error(left) + squared_error(right))), distinct


def _is_regression(y, regression: bool | None) -> bool:
    """Whether ``y`` is a numeric target: as given, or (None) numbers that are not all whole,
    or more than :data:`_MAX_NUMERIC_CLASSES` distinct ones (as the command line decides)."""
    if regression is not None:
        return bool(regression)
    values = pd.Series(np.asarray(y) if not isinstance(y, pd.Series) else y)
    if values.dtype == bool or not pd.api.types.is_numeric_dtype(values.dtype):
        return False
    numbers = values.to_numpy(dtype=np.float64)
    numbers = numbers[~np.isnan(numbers)]
    integral = bool(np.all(numbers == np.round(numbers)))
    return not integral or len(np.unique(numbers)) > _MAX_NUMERIC_CLASSES


def _target_values(y) -> np.ndarray:
    """A numeric target as floats; a DataError when it is not numbers or misses some."""
    try:
        values = np.asarray(pd.Series(np.asarray(y)).to_numpy(), dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("y must be numeric for a regression gain table") from None
    if np.isnan(values).any():
        raise DataError(f"y has missing values at positions {np.flatnonzero(np.isnan(values))[:5]}")
    return values


def gain_table(
    X,
    y=None,
    sample_weight=None,
    *,
    nominal=None,
    ordinal=None,
    sort_by: str | None = None,
    regression: bool | None = None,
) -> pd.DataFrame:
    """The worked numbers of a split choice: one row per attribute, best first.

    Parameters
    ----------
    X : DataFrame, array or :class:`~quercus.Table`
        The attributes. With a DataFrame, ``y`` may be the name of its class column.
    y : array-like or str
        Class labels or numeric targets, or the name of the target column of ``X``.
    sample_weight : array-like, optional
        Weight of each example.
    nominal, ordinal : optional
        As in :func:`quercus.read_table`.
    sort_by : str, optional
        The column that orders the rows (descending; ties keep the column order): for
        classes ``'information_gain'`` (the default), ``'gain_ratio'`` or
        ``'gini_decrease'``; for a numeric target ``'variance_decrease'``.
    regression : bool, optional
        Whether ``y`` is a numeric target. Default: as the command line decides, numbers
        that are not all whole, or more than 20 distinct ones, are; any other target holds
        classes.

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute. For classes: columns ``kind``, ``information_gain``,
        ``split_information``, ``gain_ratio``, ``gini_decrease`` and ``threshold``. A
        nominal attribute is scored by its multiway split (one branch per category); a
        numeric or ordinal one by its best binary cut ``x <= threshold`` (the cut of largest
        information gain; for an ordinal attribute, the highest level on the left side).
        Missing values are handled as C4.5 does: the gain on the known values, times their
        share of the weight (the missing values count as one more branch of the split
        information). For a numeric target: columns ``kind``, ``variance_decrease`` (the
        weighted variance of ``y`` less the weighted mean variance of the branches, CART's
        squared-error decrease) and ``threshold`` (the cut of largest variance decrease),
        with missing values handled the same way; the classification measures, split
        information and gain ratio among them, have no meaning there.
    """
    if hasattr(X, "schema") and hasattr(X, "X"):  # a Table
        X, y = X.X, (X.y if y is None else y)
    frame = as_frame(X)
    if isinstance(y, str):
        if y not in frame.columns:
            raise DataError(
                f"class column {y!r} not found; columns are {list(frame.columns)}", column=y
            )
        frame, y = frame.drop(columns=[y]), frame[y]
    if y is None:
        raise ValueError("gain_table needs the class labels y (or the name of the class column)")
    numbers = _is_regression(y, regression)
    allowed = _REGRESSION_SORT_COLUMNS if numbers else _SORT_COLUMNS
    sort_by = allowed[0] if sort_by is None else sort_by
    if sort_by not in allowed:
        target = "a numeric target" if numbers else "classes"
        raise ValueError(f"sort_by must be one of {allowed} for {target}, got {sort_by!r}")
    typed, schema = infer_schema(frame, nominal=nominal, ordinal=ordinal)
    if numbers:
        target_values = _target_values(y)
        y_codes, n_classes = np.zeros(len(target_values), dtype=np.int64), 1
    else:
        y_codes, n_classes = label_codes(y, "y", allow_missing=False)
    if len(y_codes) != len(typed):
        raise ValueError(f"X has {len(typed)} rows but y has {len(y_codes)}")
    w = sample_weights(len(y_codes), sample_weight)

    target = target_values if numbers else None
    rows = [
        _attribute_row(feature, typed.iloc[:, j], y_codes, target, w, n_classes)
        for j, feature in enumerate(schema.features)
    ]
    result = pd.DataFrame(rows).set_index("attribute")
    return result.sort_values(sort_by, ascending=False, kind="stable")


def _branch_codes(feature, column, y_codes, target, w, n_classes):
    """``(branch of each row (-1: missing), number of branches, threshold)`` of one
    attribute: a nominal one's categories, or the best cut of a numeric or ordinal one
    (by variance decrease when ``target`` holds numbers, else by information gain)."""
    if feature.kind == NOMINAL:
        return np.asarray(column.cat.codes, dtype=np.int64), feature.n_categories, np.nan
    values = (
        column.to_numpy(dtype=np.float64)
        if feature.kind == NUMERIC
        else np.where(column.cat.codes < 0, np.nan, column.cat.codes).astype(np.float64)
    )
    if target is not None:
        cut, distinct = best_variance_threshold(values, target, w)
    else:
        cut, distinct = best_threshold(values, y_codes, w, n_classes)
    if cut is None:
        return np.where(np.isnan(values), -1, 0), 2, np.nan
    # Halves first: the gap between -1e308 and 1e308 overflows.
    t = distinct[cut] + (distinct[cut + 1] / 2.0 - distinct[cut] / 2.0)
    if t >= distinct[cut + 1]:  # adjacent floats: as the tree's threshold
        t = distinct[cut]
    x_codes = np.where(np.isnan(values), -1, (values > t).astype(np.int64))
    threshold = t if feature.kind == NUMERIC else feature.categories[int(distinct[cut])]
    return x_codes, 2, threshold


def _attribute_row(feature, column, y_codes, target, w, n_classes) -> dict:
    """The row of :func:`gain_table` of one attribute (``target``: the numeric target,
    or None for classes ``y_codes``)."""
    x_codes, n_branches, threshold = _branch_codes(feature, column, y_codes, target, w, n_classes)
    if target is not None:
        decrease = _variance_decrease(x_codes, target, w, max(n_branches, 1))
        return {
            "attribute": feature.name,
            "kind": feature.kind,
            "variance_decrease": decrease,
            "threshold": threshold,
        }
    known = x_codes >= 0
    table = np.zeros((max(n_branches, 1), n_classes))
    np.add.at(table, (x_codes[known], y_codes[known]), w[known])
    missing = np.bincount(y_codes[~known], weights=w[~known], minlength=n_classes)
    gain = gain_of_table(table, missing, "entropy")
    info = split_info_of_table(table, missing)
    return {
        "attribute": feature.name,
        "kind": feature.kind,
        "information_gain": gain,
        "split_information": info,
        "gain_ratio": gain / info if info > 0 else 0.0,
        "gini_decrease": gain_of_table(table, missing, "gini"),
        "threshold": threshold,
    }


def _variance_decrease(x_codes: np.ndarray, y: np.ndarray, w: np.ndarray, n_branches: int) -> float:
    """The variance decrease of ``y`` by the split into branches ``x_codes`` (-1: missing),
    on the known values, times their share of the weight (as C4.5 scales a gain)."""
    known = x_codes >= 0
    moments = np.zeros((n_branches, 3))
    np.add.at(
        moments,
        x_codes[known],
        np.column_stack([w[known], w[known] * y[known], w[known] * y[known] ** 2]),
    )
    weight = moments[:, 0].sum()
    if weight <= 0:
        return 0.0
    decrease = registry.get("squared_error").split_gain(list(moments))
    # A split never raises the variance: a negative difference is rounding.
    return float(weight / w.sum() * max(decrease, 0.0))
