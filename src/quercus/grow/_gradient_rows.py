"""Numba kernels of the Newton learner's passes over the rows: the gradients in whole units,
the histograms of a leaf's rows, and the partition of a leaf's rows by a split.

The binned rows stay where they are (row-major, as :class:`~quercus.grow.rows.LocalRows`
holds them); a leaf is a run ``lo:hi`` of an array of row numbers kept in increasing order,
so a pass over a leaf reads the matrix forward. A histogram is int64 ``(features, width,
3)``: for each feature and bin code (the missing code at ``width - 1``) the sums of the
rows' gradient and hessian, in whole units (:func:`row_units`), and their number. Whole
units make every sum exact in any order: the larger child's histogram is its parent's less
its sibling's, and rows summed on several threads (or machines) give the very same sums.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .._prefetch import prefetch_row

#: Sums of whole units stay below this: 2**62, so that a parent less a child never
#: overflows int64 either.
UNIT_CEILING = 2.0**62


@njit(refcounts=False)
def scan_rows(target, weight, lo, hi, rows):
    """The rows ``lo:hi`` of positive ``weight``: their numbers into ``rows`` from index
    ``lo``, and the largest ``|weight * target|`` and ``weight`` among them: ``(count,
    top_r, top_h)``, in one pass."""
    n = 0
    top_r = 0.0
    top_h = 0.0
    for i in range(lo, hi):
        w = weight[i]
        if w > 0.0:
            rows[lo + n] = i
            n += 1
            r = abs(w * target[i])
            if r > top_r:
                top_r = r
            if w > top_h:
                top_h = w
    return n, top_r, top_h


@njit(refcounts=False)
def row_units(target, weight, rows, lo, hi, r_unit, h_unit, units):
    """Each row ``r`` of ``rows[lo:hi]``: its ``R = weight * target`` and ``H = weight`` in
    whole units (``round(value / unit)``, int64), side by side in ``units[r]``."""
    for t in range(lo, hi):
        i = rows[t]
        units[i, 0] = np.int64(np.rint(weight[i] * target[i] / r_unit))
        units[i, 1] = np.int64(np.rint(weight[i] / h_unit))


#: Rows gathered at a time by :func:`add_rows`.
GATHER_ROWS = 256
#: How far ahead :func:`add_rows` asks for the rows it will gather (``bench/README.md``).
PREFETCH_ROWS = 48


@njit(refcounts=False, inline="always")
def add_to_bin(hist_f, code, g, h):
    """One row into bin ``code`` of a feature's histogram: its gradient and hessian units
    and one row."""
    hist_f[code, 0] += g
    hist_f[code, 1] += h
    hist_f[code, 2] += 1


@njit(refcounts=False, inline="always")
def gather_rows(codes, rows, start, m, hi, units, block_codes, block_units):
    """Copy the codes and units of the ``m`` rows ``rows[start:start + m]`` into the first
    ``m`` rows of ``block_codes`` and ``block_units``, asking for each row
    :data:`PREFETCH_ROWS` rows ahead of its copy (none past ``rows[hi - 1]``)."""
    for i in range(m):
        ahead = start + i + PREFETCH_ROWS
        if ahead < hi:
            prefetch_row(codes, rows[ahead])
            prefetch_row(units, rows[ahead])
        r = rows[start + i]
        for k in range(codes.shape[1]):
            block_codes[i, k] = codes[r, k]
        block_units[i, 0] = units[r, 0]
        block_units[i, 1] = units[r, 1]


@njit
def add_rows(codes, rows, lo, hi, units, n_features, out):
    """Add the rows ``rows[lo:hi]`` (row numbers into ``codes``, the row-major bin codes) to
    the histogram ``out``: each feature's bin of each row (the missing code, the largest,
    at ``out.shape[1] - 1``) gains the row's gradient and hessian (``units[row]``, whole
    units) and one row.

    The rows are first gathered, :data:`GATHER_ROWS` at a time, into a small buffer: the
    rows of a leaf deep in a tree lie far apart, and a loop that only copies them keeps
    many loads in flight where the summing loop waits for each (2.3 times faster at one
    row in 20, ``bench/README.md``); and each row is asked for :data:`PREFETCH_ROWS` rows
    ahead of its copy (:func:`quercus._prefetch.prefetch_row`), which halves the time a
    row of a sparse leaf takes."""
    last = out.shape[1] - 1
    block_codes = np.empty((GATHER_ROWS, codes.shape[1]), dtype=codes.dtype)
    block_units = np.empty((GATHER_ROWS, 2), dtype=np.int64)
    for start in range(lo, hi, GATHER_ROWS):
        m = min(start + GATHER_ROWS, hi) - start
        gather_rows(codes, rows, start, m, hi, units, block_codes, block_units)
        for i in range(m):
            g = block_units[i, 0]
            h = block_units[i, 1]
            for f in range(n_features):
                c = min(np.int64(block_codes[i, f]), last)
                out[f, c, 0] += g
                out[f, c, 1] += h
                out[f, c, 2] += 1


#: Features summed together by :func:`add_columns`: their histograms (256 bins of three
#: int64 each) stay in the first-level cache, 24 KiB of it.
COLUMN_GROUP = 4


@njit(refcounts=False)
def add_columns(columns, lo, hi, units, n_features, out):
    """Add the rows ``lo:hi`` themselves (every row between, as the root holds them when
    all weigh) to the histogram ``out``, feature by feature from the codes' ``columns``
    (one contiguous row of codes a feature), :data:`COLUMN_GROUP` features at a time: twice
    as fast as :func:`add_rows` there (``bench/README.md``), each group's histograms
    staying in the first-level cache as the rows stream past. ``out`` must have a bin for
    every value of the codes' dtype (256 for uint8): no code is clamped."""
    f = 0
    while f + COLUMN_GROUP <= n_features:
        c0, c1, c2, c3 = columns[f], columns[f + 1], columns[f + 2], columns[f + 3]
        h0, h1, h2, h3 = out[f], out[f + 1], out[f + 2], out[f + 3]
        for i in range(lo, hi):
            g = units[i, 0]
            h = units[i, 1]
            add_to_bin(h0, c0[i], g, h)
            add_to_bin(h1, c1[i], g, h)
            add_to_bin(h2, c2[i], g, h)
            add_to_bin(h3, c3[i], g, h)
        f += COLUMN_GROUP
    for k in range(f, n_features):
        column = columns[k]
        hk = out[k]
        for i in range(lo, hi):
            add_to_bin(hk, column[i], units[i, 0], units[i, 1])


#: Rows gathered at a time by :func:`add_rows_grouped` (40 KiB of codes and units).
GROUPED_BLOCK_ROWS = 1024


@njit
def add_rows_grouped(codes, rows, lo, hi, units, n_features, out):
    """:func:`add_rows` for uint8 codes and histograms of 256 bins: the rows gathered
    :data:`GROUPED_BLOCK_ROWS` at a time, then summed :data:`COLUMN_GROUP` features at a
    time, whose histograms stay in the first-level cache while the block passes (all the
    features' histograms, 120 KiB for 20, do not), and the codes taken unclamped (every
    uint8 value has its bin). 1.5 times as fast as :func:`add_rows` for a leaf holding at
    least one row in four, slower below one in twelve (``bench/README.md``)."""
    block_codes = np.empty((GROUPED_BLOCK_ROWS, codes.shape[1]), dtype=codes.dtype)
    block_units = np.empty((GROUPED_BLOCK_ROWS, 2), dtype=np.int64)
    for start in range(lo, hi, GROUPED_BLOCK_ROWS):
        m = min(start + GROUPED_BLOCK_ROWS, hi) - start
        gather_rows(codes, rows, start, m, hi, units, block_codes, block_units)
        f = 0
        while f + COLUMN_GROUP <= n_features:
            h0, h1, h2, h3 = out[f], out[f + 1], out[f + 2], out[f + 3]
            for i in range(m):
                g = block_units[i, 0]
                h = block_units[i, 1]
                add_to_bin(h0, block_codes[i, f], g, h)
                add_to_bin(h1, block_codes[i, f + 1], g, h)
                add_to_bin(h2, block_codes[i, f + 2], g, h)
                add_to_bin(h3, block_codes[i, f + 3], g, h)
            f += COLUMN_GROUP
        for k in range(f, n_features):
            hk = out[k]
            for i in range(m):
                add_to_bin(hk, block_codes[i, k], block_units[i, 0], block_units[i, 1])


@njit(refcounts=False)
def subtract_into(parent, child, out):
    """``out = parent - child`` (histograms of the same shape)."""
    a = parent.reshape(-1)
    b = child.reshape(-1)
    c = out.reshape(-1)
    for i in range(a.shape[0]):
        c[i] = a[i] - b[i]


@njit(refcounts=False)
def add_into(total, part):
    """``total += part`` (histograms of the same shape)."""
    a = total.reshape(-1)
    b = part.reshape(-1)
    for i in range(a.shape[0]):
        a[i] += b[i]


@njit(refcounts=False)
def partition_rows(column, rows, lo, hi, goes_left, spare):
    """Order ``rows[lo:hi]`` so that the rows whose code in ``column`` (the split feature's
    codes, contiguous: the rows of a leaf deep in a tree are far apart, and a byte of a
    column each stays in cache where whole rows would not) goes left (``goes_left[code]``
    nonzero, the missing code at ``goes_left[-1]``) come first, both sides keeping their
    order; returns how many go left. ``spare`` has room for the rows from index 0."""
    last = goes_left.shape[0] - 1
    n_left = 0
    n_right = 0
    for t in range(lo, hi):
        if t + PREFETCH_ROWS < hi:
            prefetch_row(column, rows[t + PREFETCH_ROWS])
        r = rows[t]
        left = np.int64(goes_left[min(np.int64(column[r]), last)])
        # Written to both places, counted in one: no branch to mispredict.
        rows[lo + n_left] = r
        spare[n_right] = r
        n_left += left
        n_right += 1 - left
    for t in range(n_right):
        rows[lo + n_left + t] = spare[t]
    return n_left


@njit(refcounts=False)
def leaf_sums_of_squares(rows, starts, ends, nodes, target, weight, out):
    """For each run ``i`` (rows ``rows[starts[i]:ends[i]]``), add ``weight * target ** 2``
    of its rows, in row order, to ``out[nodes[i]]``: one sum over a node's runs, as if they
    were one run, when they follow one another."""
    for i in range(starts.shape[0]):
        total = out[nodes[i]]
        for t in range(starts[i], ends[i]):
            if t + PREFETCH_ROWS < ends[i]:
                prefetch_row(target, rows[t + PREFETCH_ROWS])
                prefetch_row(weight, rows[t + PREFETCH_ROWS])
            r = rows[t]
            total += weight[r] * target[r] * target[r]
        out[nodes[i]] = total


@njit(refcounts=False)
def add_leaf_values(rows, starts, ends, values, scores, column, first_row, end_row):
    """Add ``values[i]`` to column ``column`` of the ``scores`` of the rows
    ``rows[starts[i]:ends[i]]`` of each leaf ``i`` (each run in increasing order) that lie
    in ``first_row:end_row``: threads given apart stretches of the rows write apart rows."""
    for i in range(starts.shape[0]):
        v = values[i]
        run = rows[starts[i] : ends[i]]
        lo = starts[i] + np.searchsorted(run, first_row)
        hi = starts[i] + np.searchsorted(run, end_row)
        for t in range(lo, hi):
            if t + PREFETCH_ROWS < hi:
                prefetch_row(scores, rows[t + PREFETCH_ROWS])
            scores[rows[t], column] += v
