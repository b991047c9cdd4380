"""Numba kernels: the chi-square test of a split (pre-pruning, as in ID3's chi-square stop).

A split passes when its branch-by-class table shows the class depending on the branch:
the table is summed from the node's rows (:func:`branch_class_table`; tables summed on
several machines add up), then tested (:func:`passes_chi_square`).
"""

from __future__ import annotations

import numpy as np

from .._config import njit


@njit(inline="always")
def branch_class_table(child_of, start, end, y_class, w, shares, table):
    """Add the weight of rows ``start:end`` to ``table[branch, class]`` (zeroed first). A
    row whose branch is -1 (a missing value, FRACTIONAL) counts in every branch ``ch`` with
    weight ``shares[ch]``."""
    n_children = table.shape[0]
    table[:] = 0.0
    for r in range(start, end):
        ch = child_of[r - start]
        if ch >= 0:
            table[ch, y_class[r]] += w[r]
        else:
            for c in range(n_children):
                table[c, y_class[r]] += w[r] * shares[c]


@njit
def passes_chi_square(table, critical):
    """Whether ``table`` passes the chi-square test of independence: its statistic exceeds
    ``critical[df]`` (``df`` = (non-empty branches - 1) x (classes present - 1)); a table
    with ``df = 0`` never does."""
    n_children, n_classes = table.shape
    rows = table.sum(axis=1)
    cols = table.sum(axis=0)
    total = rows.sum()
    statistic = 0.0
    for i in range(n_children):
        for k in range(n_classes):
            if rows[i] > 0.0 and cols[k] > 0.0:
                expected = rows[i] * cols[k] / total
                statistic += (table[i, k] - expected) ** 2 / expected
    df = ((rows > 0.0).sum() - 1) * ((cols > 0.0).sum() - 1)
    if df <= 0:
        return False
    return statistic > critical[min(df, critical.shape[0] - 1)]


@njit
def significant(child_of, start, end, y_class, w, shares, n_classes, critical):
    """:func:`passes_chi_square` of the table of rows ``start:end``."""
    table = np.zeros((shares.shape[0], n_classes))
    branch_class_table(child_of, start, end, y_class, w, shares, table)
    return passes_chi_square(table, critical)
