"""Numba kernel: numeric values -> bin codes."""

from __future__ import annotations

import numba
import numpy as np

from .._config import njit


@njit(parallel=True)
def bin_column(values, edges, missing_code, out, j):
    """Bin codes of one numeric column ``values`` (n,) into column ``j`` of ``out`` (n, q),
    a C-ordered matrix (the padded rows that growth reads: the codes go straight there).

    ``edges`` are the column's upper bin edges; the code of ``x`` is the number of edges
    below ``x`` (so ``x <= edge[b]`` is ``code <= b``), and NaN gets ``missing_code``. A
    binary search per value, rows in parallel (each thread writes its own block of rows).
    """
    n_edges = len(edges)
    for i in numba.prange(len(values)):
        x = values[i]
        if np.isnan(x):
            out[i, j] = missing_code
            continue
        lo = 0
        size = n_edges
        while size > 0:
            half = size >> 1
            if edges[lo + half] < x:
                lo += half + 1
                size -= half + 1
            else:
                size = half
        out[i, j] = lo


@njit
def code_extremes(values, codes, lo, hi):
    """The smallest and largest of ``values`` with each bin code into ``lo`` and ``hi``
    (indexed by code, filled beforehand with +inf and -inf); codes beyond them (the
    missing code) are skipped. One pass, where sorting the values costs n log n."""
    n_bins = len(lo)
    for i in range(len(values)):
        code = codes[i]
        if code >= n_bins:
            continue
        x = values[i]
        if x < lo[code]:
            lo[code] = x
        if x > hi[code]:
            hi[code] = x
