"""Numba kernels: the per-bin statistics of one feature over one node's rows.

Rows of a node are contiguous (``start:end``) in the row-major binned matrix, because the
builder moves rows when it partitions a node. Large nodes fill a dense histogram over all
bins; small ones sort their own codes (radix sort), which is cheaper than touching every bin
when the feature has many bins (exact mode keeps one bin per distinct value).

The per-row loops are written out for classification and regression separately: a helper
call per row measured 50x slower here than the loop body itself.
"""

from __future__ import annotations

import numpy as np

from .._config import njit


@njit
def node_stats(y_class, y_value, w, start, end, regression, out, i):
    """Statistics of rows ``start:end`` into row ``i`` of ``out``."""
    for k in range(out.shape[1]):
        out[i, k] = 0.0
    if regression:
        for r in range(start, end):
            out[i, 0] += w[r]
            out[i, 1] += w[r] * y_value[r]
            out[i, 2] += w[r] * y_value[r] * y_value[r]
    else:
        for r in range(start, end):
            out[i, y_class[r]] += w[r]


@njit
def stats_scratch(n_rows, max_bins, code_dtype_example):
    """Scratch space of :func:`feature_stats` for nodes of up to ``n_rows`` rows and
    features of up to ``max_bins`` codes (``code_dtype_example``: an array of the codes'
    dtype)."""
    return (
        np.zeros(max(max_bins, 1), dtype=np.bool_),
        np.empty(max(n_rows, 1), dtype=code_dtype_example.dtype),
        np.empty(max(n_rows, 1), dtype=np.int64),
        np.empty(257, dtype=np.int64),
    )


@njit(inline="always")
def sort_codes(codes, rows, n, n_bins, tmp_codes, tmp_rows, counts):
    """Sort ``codes[:n]`` ascending, carrying ``rows[:n]`` along (stable).

    Insertion sort for a few rows, else an LSD radix sort on 8-bit digits: one pass per
    byte of the largest code, O(n) each, where a comparison sort costs O(n log n).
    ``tmp_codes`` and ``tmp_rows`` (room for ``n``) and ``counts`` (257) are scratch space,
    allocated once by the caller rather than at every node.
    """
    if n <= 32:
        for i in range(1, n):
            c = codes[i]
            r = rows[i]
            j = i - 1
            while j >= 0 and codes[j] > c:
                codes[j + 1] = codes[j]
                rows[j + 1] = rows[j]
                j -= 1
            codes[j + 1] = c
            rows[j + 1] = r
        return
    shift = 0
    while (n_bins - 1) >> shift > 0:
        for d in range(counts.shape[0]):
            counts[d] = 0
        for i in range(n):
            counts[((np.int64(codes[i]) >> shift) & 255) + 1] += 1
        for d in range(256):
            counts[d + 1] += counts[d]
        for i in range(n):
            d = (np.int64(codes[i]) >> shift) & 255
            tmp_codes[counts[d]] = codes[i]
            tmp_rows[counts[d]] = rows[i]
            counts[d] += 1
        for i in range(n):
            codes[i] = tmp_codes[i]
            rows[i] = tmp_rows[i]
        shift += 8


@njit(refcounts=False)
def feature_stats(
    data,
    y_class,
    y_value,
    w,
    start,
    end,
    f,
    n_bins,
    missing_code,
    regression,
    dense,
    present,
    stats,
    missing,
    order_buf,
    code_buf,
    scratch,
):
    """Fill ``present[:P]``, ``stats[:P]`` (and ``missing[0]``) for feature ``f``; return ``P``.

    ``dense`` is a scratch array of at least ``n_bins`` rows; ``order_buf`` and ``code_buf``
    have room for the node's rows; ``scratch`` is ``(seen, tmp_codes, tmp_rows, counts)``
    from :func:`stats_scratch`. ``dense`` and ``seen`` must be all zero (as ``np.zeros``
    and :func:`stats_scratch` make them) and are left so: a call clears only the bins its
    rows touched, where clearing every bin first cost a forest's many small nodes 4 KB of
    memset per feature (3% of a forest's fit).
    """
    seen, tmp_codes, tmp_rows, counts = scratch
    n_stats = stats.shape[1]
    for k in range(n_stats):
        missing[0, k] = 0.0
    m = end - start
    if n_bins <= 4 * m + 16:
        # Loops, not slices: compiled without reference counts, the kernel may not
        # slice-assign (``_config.njit``); sort_codes is written the same way.
        if regression:
            for r in range(start, end):
                c = data[r, f]
                if c == missing_code:
                    missing[0, 0] += w[r]
                    missing[0, 1] += w[r] * y_value[r]
                    missing[0, 2] += w[r] * y_value[r] * y_value[r]
                else:
                    dense[c, 0] += w[r]
                    dense[c, 1] += w[r] * y_value[r]
                    dense[c, 2] += w[r] * y_value[r] * y_value[r]
                    seen[c] = True
        else:
            for r in range(start, end):
                c = data[r, f]
                if c == missing_code:
                    missing[0, y_class[r]] += w[r]
                else:
                    dense[c, y_class[r]] += w[r]
                    seen[c] = True
        n_present = 0
        for c in range(n_bins):
            if seen[c]:
                present[n_present] = c
                for k in range(n_stats):
                    stats[n_present, k] = dense[c, k]
                    dense[c, k] = 0.0
                seen[c] = False
                n_present += 1
        return n_present
    # Sort-based: only the node's own codes are touched.
    n_known = 0
    for r in range(start, end):
        c = data[r, f]
        if c == missing_code:
            if regression:
                missing[0, 0] += w[r]
                missing[0, 1] += w[r] * y_value[r]
                missing[0, 2] += w[r] * y_value[r] * y_value[r]
            else:
                missing[0, y_class[r]] += w[r]
        else:
            code_buf[n_known] = c
            order_buf[n_known] = r
            n_known += 1
    if n_known == 0:
        return 0
    sort_codes(code_buf, order_buf, n_known, n_bins, tmp_codes, tmp_rows, counts)
    n_present = 0
    last = -1
    for t in range(n_known):
        c = code_buf[t]
        if c != last:
            present[n_present] = c
            for k in range(n_stats):
                stats[n_present, k] = 0.0
            n_present += 1
            last = c
        r = order_buf[t]
        i = n_present - 1
        if regression:
            stats[i, 0] += w[r]
            stats[i, 1] += w[r] * y_value[r]
            stats[i, 2] += w[r] * y_value[r] * y_value[r]
        else:
            stats[i, y_class[r]] += w[r]
    return n_present


@njit
def node_histograms(data, y_class, y_value, w, rows, n_bins, missing_code, regression, out):
    """The dense statistics of every feature over the rows ``rows`` (row indices in
    increasing order): ``out`` is ``(hist, counts, missing)`` of shapes ``(features, bins,
    stats)``, ``(features, bins)`` and ``(features, stats)``, zeroed first, and receives the
    statistics of each bin, its number of rows and the statistics of the missing values.

    Each bin's rows are summed in increasing row order, as :func:`feature_stats` sums a
    node's contiguous rows, so both give the same floating-point sums. Histograms summed on
    several machines add up (in another order)."""
    hist, counts, missing = out
    hist[:] = 0.0
    counts[:] = 0
    missing[:] = 0.0
    p = n_bins.shape[0]
    for t in range(rows.shape[0]):
        r = rows[t]
        for f in range(p):
            c = data[r, f]
            if c == missing_code:
                if regression:
                    missing[f, 0] += w[r]
                    missing[f, 1] += w[r] * y_value[r]
                    missing[f, 2] += w[r] * y_value[r] * y_value[r]
                else:
                    missing[f, y_class[r]] += w[r]
                continue
            counts[f, c] += 1
            if regression:
                hist[f, c, 0] += w[r]
                hist[f, c, 1] += w[r] * y_value[r]
                hist[f, c, 2] += w[r] * y_value[r] * y_value[r]
            else:
                hist[f, c, y_class[r]] += w[r]


@njit
def rows_stats(y_class, y_value, w, rows, regression, out):
    """Statistics of the rows ``rows`` (in increasing order) into ``out[0]``; and their
    total weight, summed row by row as the grower sums its root's."""
    out[0, :] = 0.0
    total = 0.0
    for t in range(rows.shape[0]):
        r = rows[t]
        total += w[r]
        if regression:
            out[0, 0] += w[r]
            out[0, 1] += w[r] * y_value[r]
            out[0, 2] += w[r] * y_value[r] * y_value[r]
        else:
            out[0, y_class[r]] += w[r]
    return total


@njit(inline="always")
def _add_rows(data, y_class, w, start, end, missing_code, hist, sign):
    """Add ``sign`` times the class weight of each row of ``start:end`` to its bin of every
    feature in ``hist`` (of :func:`class_histograms`)."""
    p = hist.shape[0]
    last = hist.shape[1] - 1
    for r in range(start, end):
        k = y_class[r]
        wr = sign * w[r]
        for f in range(p):
            c = np.int64(data[r, f])
            if c == missing_code:
                c = last
            hist[f, c, k] += wr


@njit(refcounts=False)
def class_histograms(data, y_class, w, start, end, missing_code, hist):
    """The class weights of every bin of every feature over rows ``start:end``, in one
    pass over the rows: ``hist`` has shape ``(features, bins + 1, classes)``, its last bin
    holding the missing values; it is zeroed first.

    One pass reads each row once, where :func:`feature_stats` reads a large node's rows
    once per feature. Used for histogram subtraction, where a node's histograms outlive
    its scan."""
    for f in range(hist.shape[0]):
        for c in range(hist.shape[1]):
            for k in range(hist.shape[2]):
                hist[f, c, k] = 0.0
    _add_rows(data, y_class, w, start, end, missing_code, hist, 1.0)


@njit(refcounts=False)
def subtract_histograms(parent, child):
    """``parent -= child``, bin by bin (histograms of :func:`class_histograms`)."""
    for f in range(parent.shape[0]):
        for c in range(parent.shape[1]):
            for k in range(parent.shape[2]):
                parent[f, c, k] -= child[f, c, k]


@njit(refcounts=False)
def take_out_rows(data, y_class, w, start, end, missing_code, hist):
    """Take the rows ``start:end`` out of ``hist`` (of :func:`class_histograms`), row by
    row: cheaper than a histogram of its own to subtract when the rows are few."""
    _add_rows(data, y_class, w, start, end, missing_code, hist, -1.0)


@njit(refcounts=False)
def stats_of_histogram(hist, f, n_bins, present, stats, missing):
    """:func:`feature_stats` of feature ``f`` read from ``hist`` (of
    :func:`class_histograms`): the bins of positive weight in ``present``, their class
    weights in ``stats``, the missing values' in ``missing[0]``; returns how many bins.

    A bin is present when its weight is positive, which is the same as having a row only
    when every weight is positive: the grower subtracts histograms only then."""
    n_stats = hist.shape[2]
    last = hist.shape[1] - 1
    for k in range(n_stats):
        missing[0, k] = hist[f, last, k]
    n_present = 0
    for c in range(n_bins):
        total = 0.0
        for k in range(n_stats):
            total += hist[f, c, k]
        if total > 0.0:
            present[n_present] = c
            for k in range(n_stats):
                stats[n_present, k] = hist[f, c, k]
            n_present += 1
    return n_present
