"""Numba kernels: the per-bin statistics of one feature over one node's rows.

Rows of a node are contiguous (``start:end``) in the row-major binned matrix, because the
builder moves rows when it partitions a node. Large nodes fill a dense histogram over all
bins; small ones sort their own codes, which is cheaper than touching every bin when the
feature has many bins (exact mode keeps one bin per distinct value).
"""

from __future__ import annotations

import numpy as np

from .._config import njit


@njit
def add_row_stats(stats, y_class, y_value, w, r, regression):
    """Add row ``r`` to one stats row."""
    if regression:
        stats[0] += w[r]
        stats[1] += w[r] * y_value[r]
        stats[2] += w[r] * y_value[r] * y_value[r]
    else:
        stats[y_class[r]] += w[r]


@njit
def feature_stats(
    data, y_class, y_value, w, start, end, f, n_bins, missing_code, regression,
    dense, present, stats, missing, order_buf, code_buf,
):
    """Fill ``present[:P]``, ``stats[:P]`` (and ``missing``) for feature ``f``; return ``P``.

    ``dense`` is a scratch array of at least ``n_bins`` rows; ``order_buf`` and ``code_buf``
    have room for the node's rows.
    """
    n_stats = stats.shape[1]
    missing[:] = 0.0
    m = end - start
    if n_bins <= 4 * m + 16:
        dense[:n_bins] = 0.0
        seen = np.zeros(n_bins, dtype=np.bool_)
        for r in range(start, end):
            c = data[r, f]
            if c == missing_code:
                add_row_stats(missing, y_class, y_value, w, r, regression)
            else:
                add_row_stats(dense[c], y_class, y_value, w, r, regression)
                seen[c] = True
        n_present = 0
        for c in range(n_bins):
            if seen[c]:
                present[n_present] = c
                for k in range(n_stats):
                    stats[n_present, k] = dense[c, k]
                n_present += 1
        return n_present
    # Sort-based: only the node's own codes are touched.
    n_known = 0
    for r in range(start, end):
        c = data[r, f]
        if c == missing_code:
            add_row_stats(missing, y_class, y_value, w, r, regression)
        else:
            code_buf[n_known] = c
            order_buf[n_known] = r
            n_known += 1
    if n_known == 0:
        return 0
    idx = np.argsort(code_buf[:n_known], kind="mergesort")
    n_present = 0
    last = -1
    for t in range(n_known):
        c = code_buf[idx[t]]
        if c != last:
            present[n_present] = c
            stats[n_present, :] = 0.0
            n_present += 1
            last = c
        add_row_stats(stats[n_present - 1], y_class, y_value, w, order_buf[idx[t]], regression)
    return n_present
