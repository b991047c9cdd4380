"""Numba kernel: numeric values -> bin codes."""

from __future__ import annotations

import numba
import numpy as np

from .._config import njit


@njit(parallel=True)
def bin_numeric(values, edges, offsets, missing_code, out):
    """Bin codes of the numeric columns ``values`` (n, q) into ``out`` (n, q).

    Column ``j``'s upper bin edges are ``edges[offsets[j]:offsets[j + 1]]``; its code for
    ``x`` is the number of edges below ``x`` (so ``x <= edge[b]`` is ``code <= b``), and NaN
    gets ``missing_code``. A binary search per value, columns in parallel.
    """
    n, q = values.shape
    for j in numba.prange(q):
        e = edges[offsets[j] : offsets[j + 1]]
        n_edges = len(e)
        for i in range(n):
            x = values[i, j]
            if np.isnan(x):
                out[i, j] = missing_code
                continue
            lo = 0
            size = n_edges
            while size > 0:
                half = size >> 1
                if e[lo + half] < x:
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
