"""Numba kernel: numeric values -> bin codes."""

from __future__ import annotations

import numba
import numpy as np

from .._config import njit

#: Cells per upper edge of the index that starts each search (see :func:`bin_column`).
CELLS_PER_EDGE = 4


@njit(inline="always")
def _cell(x, lo, scale, n_cells):
    """The cell of ``x`` in the uniform grid of ``n_cells`` cells from ``lo`` (``scale``:
    cells per unit), clamped to the grid: monotone in ``x``, which is all the index needs."""
    t = (x - lo) * scale
    if not t >= 0.0:  # below the grid, or NaN from an infinite scale
        return 0
    if t >= n_cells:
        return n_cells - 1
    return np.int64(t)


@njit(inline="always")
def _cell_index(e, n_cells, first):
    """``first[c]``: how many of the sorted edges ``e`` have a cell below ``c``, for the
    grid of ``n_cells`` cells over them; returns ``(lo, scale)`` of that grid."""
    lo = e[0]
    span = e[len(e) - 1] - lo
    scale = n_cells / span if span > 0.0 else 0.0
    first[: n_cells + 1] = 0
    for b in range(len(e)):
        first[_cell(e[b], lo, scale, n_cells) + 1] += 1
    for c in range(n_cells):
        first[c + 1] += first[c]
    return lo, scale


@njit(inline="always")
def _code(x, edges, lo, scale, n_cells, first):
    """The bin code of ``x`` (not NaN): the number of ``edges`` below it, searched among
    the edges of its cell of the index (:func:`_cell_index`)."""
    c = _cell(x, lo, scale, n_cells)
    base = first[c]
    size = first[c + 1] - base
    while size > 0:
        half = size >> 1
        if edges[base + half] < x:
            base += half + 1
            size -= half + 1
        else:
            size = half
    return base


@njit(parallel=True)
def bin_column(values, edges, missing_code, out, j):
    """Bin codes of one numeric column ``values`` (n,) into column ``j`` of ``out`` (n, q),
    a C-ordered matrix (the padded rows that growth reads: the codes go straight there).

    ``edges`` are the column's upper bin edges; the code of ``x`` is the number of edges
    below ``x`` (so ``x <= edge[b]`` is ``code <= b``), and NaN gets ``missing_code``. Rows
    in parallel (each thread writes its own block of rows).

    A binary search over all the edges costs a chain of dependent loads per value. Instead a
    uniform grid of cells over the edges (``CELLS_PER_EDGE`` per edge) says which edges share
    the value's cell: the edges in lower cells are below it, those in higher cells above it
    (the cell is monotone in the value), and a short binary search places it among the few
    in its own cell. The codes are exactly those of the search over all the edges.
    """
    n_edges = len(edges)
    n_cells = max(1, CELLS_PER_EDGE * n_edges)
    first = np.zeros(n_cells + 1, dtype=np.int64)
    lo, scale = _cell_index(edges, n_cells, first) if n_edges > 0 else (0.0, 0.0)
    for i in numba.prange(len(values)):
        x = values[i]
        if np.isnan(x):
            out[i, j] = missing_code
            continue
        out[i, j] = _code(x, edges, lo, scale, n_cells, first)


@njit
def value_extremes(values, edges, lo, hi):
    """The smallest and largest of ``values`` in each bin of ``edges`` into ``lo`` and ``hi``
    (filled beforehand with +inf and -inf), NaN values left out: :func:`code_extremes`
    without the codes, each found as :func:`bin_column` finds it."""
    n_edges = len(edges)
    n_cells = max(1, CELLS_PER_EDGE * n_edges)
    first = np.zeros(n_cells + 1, dtype=np.int64)
    grid_lo, scale = _cell_index(edges, n_cells, first) if n_edges > 0 else (0.0, 0.0)
    for i in range(len(values)):
        x = values[i]
        if np.isnan(x):
            continue
        code = _code(x, edges, grid_lo, scale, n_cells, first)
        if x < lo[code]:
            lo[code] = x
        if x > hi[code]:
            hi[code] = x


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
