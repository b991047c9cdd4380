"""``gain_table``: every attribute's gain, split information, gain ratio and Gini decrease."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.encode import as_frame, infer_schema
from ..data.errors import DataError
from ..data.schema import NOMINAL_KIND as NOMINAL
from ..data.schema import NUMERIC_KIND as NUMERIC
from .measures import _codes, _weights, gain_of_table, split_info_of_table

__all__ = ["gain_table", "best_threshold"]

_SORT_COLUMNS = ("information_gain", "gain_ratio", "gini_decrease")


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


def gain_table(
    X, y=None, sample_weight=None, *, nominal=None, ordinal=None, sort_by: str = "information_gain"
) -> pd.DataFrame:
    """The worked numbers of a split choice: one row per attribute, best first.

    Parameters
    ----------
    X : DataFrame, array or :class:`~quercus.Table`
        The attributes. With a DataFrame, ``y`` may be the name of its class column.
    y : array-like or str
        Class labels, or the name of the class column of ``X``.
    sample_weight : array-like, optional
        Weight of each example.
    nominal, ordinal : optional
        As in :func:`quercus.read_table`.
    sort_by : {'information_gain', 'gain_ratio', 'gini_decrease'}
        The column that orders the rows (descending; ties keep the column order).

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute, with columns ``kind``, ``information_gain``,
        ``split_information``, ``gain_ratio``, ``gini_decrease`` and ``threshold``.
        A nominal attribute is scored by its multiway split (one branch per category); a
        numeric or ordinal one by its best binary cut ``x <= threshold`` (the cut of largest
        information gain; for an ordinal attribute, the highest level on the left side).
        Missing values are handled as C4.5 does: the gain on the known values, times their
        share of the weight (the missing values count as one more branch of the split
        information).
    """
    if sort_by not in _SORT_COLUMNS:
        raise ValueError(f"sort_by must be one of {_SORT_COLUMNS}, got {sort_by!r}")
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
    typed, schema = infer_schema(frame, nominal=nominal, ordinal=ordinal)
    y_codes, n_classes = _codes(y, "y", allow_missing=False)
    if len(y_codes) != len(typed):
        raise ValueError(f"X has {len(typed)} rows but y has {len(y_codes)}")
    w = _weights(len(y_codes), sample_weight)

    rows = []
    for j, feature in enumerate(schema.features):
        column = typed.iloc[:, j]
        threshold = np.nan
        if feature.kind == NOMINAL:
            x_codes = np.asarray(column.cat.codes, dtype=np.int64)
            n_branches = feature.n_categories
        else:
            values = (
                column.to_numpy(dtype=np.float64)
                if feature.kind == NUMERIC
                else np.where(column.cat.codes < 0, np.nan, column.cat.codes).astype(np.float64)
            )
            cut, distinct = best_threshold(values, y_codes, w, n_classes)
            if cut is None:
                x_codes = np.where(np.isnan(values), -1, 0)
            else:
                # Halves first: the gap between -1e308 and 1e308 overflows.
                t = distinct[cut] + (distinct[cut + 1] / 2.0 - distinct[cut] / 2.0)
                if t >= distinct[cut + 1]:  # adjacent floats: as the tree's threshold
                    t = distinct[cut]
                x_codes = np.where(np.isnan(values), -1, (values > t).astype(np.int64))
                threshold = t if feature.kind == NUMERIC else feature.categories[int(distinct[cut])]
            n_branches = 2
        known = x_codes >= 0
        table = np.zeros((max(n_branches, 1), n_classes))
        np.add.at(table, (x_codes[known], y_codes[known]), w[known])
        missing = np.bincount(y_codes[~known], weights=w[~known], minlength=n_classes)
        gain = gain_of_table(table, missing, "entropy")
        info = split_info_of_table(table, missing)
        rows.append(
            {
                "attribute": feature.name,
                "kind": feature.kind,
                "information_gain": gain,
                "split_information": info,
                "gain_ratio": gain / info if info > 0 else 0.0,
                "gini_decrease": gain_of_table(table, missing, "gini"),
                "threshold": threshold,
            }
        )
    result = pd.DataFrame(rows).set_index("attribute")
    return result.sort_values(sort_by, ascending=False, kind="stable")
