"""Numeric values -> bins, nominal and ordinal codes pass through.

The *binned matrix* has one column per feature (Fortran order) of unsigned integer codes;
the largest value of its dtype is reserved for a missing value. A numeric feature with at
most ``max_bins`` distinct training values gets one bin per value, so a threshold search over
bins is an exact search; more values get quantile bins. Bin ``b`` holds the values ``x`` with
``edges[b-1] < x <= edges[b]``, and the edges are midpoints between adjacent training values,
so a split "bin <= b" is the real-valued test ``x <= edges[b]``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import AUTO_EXACT_MAX_ROWS, AUTO_MAX_BINS, bin_dtype, missing_code
from .._parallel import run_parallel
from ..data.schema import NUMERIC_KIND, Schema
from ._kernels import bin_column, value_extremes

__all__ = [
    "BinMapper",
    "bin_extremes_of",
    "bin_sample",
    "bins_from_distinct",
    "cut_bins",
    "fit_bins",
    "mapper_from_bins",
    "midpoints",
    "numeric_bins",
    "numeric_edges",
    "resolve_max_bins",
]


def resolve_max_bins(max_bins, n_rows: int, n_distinct: int) -> int | None:
    """The bin budget for one feature: ``None`` means exact (one bin per distinct value).

    ``"auto"``: exact for at most 50,000 rows or at most 255 distinct values, else 255.
    """
    if max_bins is None:
        return None
    if isinstance(max_bins, str):
        if max_bins != "auto":
            raise ValueError(f"max_bins must be 'auto', None or an integer >= 2, got {max_bins!r}")
        if n_rows <= AUTO_EXACT_MAX_ROWS or n_distinct <= AUTO_MAX_BINS:
            return None
        return AUTO_MAX_BINS
    if isinstance(max_bins, bool) or not isinstance(max_bins, int | np.integer) or max_bins < 2:
        raise ValueError(f"max_bins must be 'auto', None or an integer >= 2, got {max_bins!r}")
    return None if n_distinct <= max_bins else int(max_bins)


def numeric_bins(values: np.ndarray, max_bins="auto"):
    """Bins of a numeric feature: ``(edges, lo, hi)``, NaNs ignored.

    ``edges`` are the upper bin edges (thresholds). Exact: the midpoints between adjacent
    distinct values. Quantile: the midpoints at the distinct values where the cumulative count
    crosses ``k / max_bins`` of the rows, so every edge still lies between two observed
    values. ``lo`` and ``hi`` are the smallest and largest training value in each bin.
    The bins depend on the values only through their distinct values and counts
    (:func:`bins_from_distinct`).
    """
    values = values[~np.isnan(values)]
    distinct, counts = np.unique(values, return_counts=True)
    return bins_from_distinct(distinct, counts, max_bins)


def bins_from_distinct(distinct: np.ndarray, counts: np.ndarray, max_bins="auto"):
    """The bins :func:`numeric_bins` makes of the values whose sorted distinct values are
    ``distinct``, each seen ``counts`` times: ``(edges, lo, hi)``."""
    n_rows = int(np.sum(counts))
    budget = resolve_max_bins(max_bins, n_rows, len(distinct)) if len(distinct) >= 2 else None
    return cut_bins(distinct, counts, budget)


def cut_bins(points: np.ndarray, weights: np.ndarray, budget: int | None):
    """Bins cut between sorted ``points`` of the given ``weights`` with a resolved budget:
    ``(edges, lo, hi)``.

    ``budget`` None cuts between every two adjacent points; an integer cuts after the point
    where the cumulative weight first reaches ``k / budget`` of the total weight, ``k = 1 ..
    budget - 1`` (cuts that fall on the same point are made once).
    """
    if len(points) < 2:
        return np.empty(0, dtype=np.float64), points[:1].copy(), points[:1].copy()
    if budget is None:
        cut_after = np.arange(len(points) - 1)
    else:
        cumulative = np.cumsum(weights)
        targets = cumulative[-1] * np.arange(1, budget) / budget
        cut_after = np.unique(np.searchsorted(cumulative, targets, side="left"))
        cut_after = cut_after[cut_after < len(points) - 1]
    below, above = points[cut_after], points[cut_after + 1]
    edges = midpoints(below, above)
    # Bin b holds points[cut_after[b-1] + 1 : cut_after[b] + 1].
    lo = points[np.concatenate([[0], cut_after + 1])]
    hi = points[np.concatenate([cut_after, [len(points) - 1]])]
    return edges, lo, hi


def midpoints(below: np.ndarray, above: np.ndarray) -> np.ndarray:
    """The midpoints of ``below < above``, each ``>= below`` and ``< above`` (so that
    ``x <= edge`` keeps ``below`` and leaves ``above``).

    Half the gap is taken as ``above / 2 - below / 2``: ``above - below`` overflows to
    infinity between values near +-1.8e308. The two agree everywhere else (halving is exact
    above the subnormal range)."""
    edges = below + (above / 2.0 - below / 2.0)
    # The midpoint of two adjacent floats can round up to the upper value.
    return np.where(edges >= above, below, edges).astype(np.float64)


def numeric_edges(values: np.ndarray, max_bins="auto") -> np.ndarray:
    """Upper bin edges (thresholds) of a numeric feature (see :func:`numeric_bins`)."""
    return numeric_bins(values, max_bins)[0]


@dataclass
class BinMapper:
    """Fitted binning of every feature.

    Attributes
    ----------
    kinds : list of str
        Feature kinds, as in the schema.
    edges : list of ndarray or None
        Thresholds per numeric feature (None for nominal/ordinal).
    lo, hi : list of ndarray or None
        Smallest and largest training value in each bin of a numeric feature: a split
        between two non-empty bins puts its real threshold halfway between them.
    n_bins : ndarray of int32, shape (n_features,)
        Number of codes per feature, not counting the missing code.
    dtype : numpy.dtype
        dtype of the binned matrix; ``missing`` is its largest value.
    """

    kinds: list[str]
    edges: list[np.ndarray | None]
    lo: list[np.ndarray | None]
    hi: list[np.ndarray | None]
    n_bins: np.ndarray
    dtype: np.dtype

    @property
    def missing(self) -> int:
        return missing_code(self.dtype)

    def transform(self, X: pd.DataFrame) -> np.ndarray:
        """The binned matrix of a typed frame (see :func:`quercus.data.align_frame`), in
        Fortran order. Growth reads the padded C-ordered rows of
        :func:`~quercus.binning.binned.bin_rows` instead, which bins straight into them."""
        out = np.empty((len(X), len(self.kinds)), dtype=self.dtype)
        self.transform_into(X, out)
        return np.asfortranarray(out)

    def transform_into(self, X: pd.DataFrame, out: np.ndarray) -> None:
        """Bin the typed frame ``X`` into the first ``len(kinds)`` columns of ``out`` (a
        C-ordered matrix of this mapper's dtype, one row per row of ``X``; columns after
        those are left as they are), one column at a time: no float copy of the whole
        frame is made, only of one column where the frame's column is not a contiguous
        writable float64 array."""
        # ``items`` hands out the columns several times faster than ``iloc`` per column.
        for j, (kind, (_, column)) in enumerate(zip(self.kinds, X.items(), strict=False)):
            if kind == NUMERIC_KIND:
                # Contiguous and writable: a read-only view would compile a second kernel.
                values = np.require(column.to_numpy(dtype=np.float64), None, ["C", "W"])
                run_parallel(bin_column, values, self.edges[j], self.missing, out, j)
            else:
                codes = column.array.codes.astype(np.int64)  # the Categorical's, no Series
                codes[codes < 0] = self.missing
                out[:, j] = codes

    def threshold(self, feature: int, bin_code: int) -> float:
        """The real-valued test ``x <= threshold`` equal to ``bin <= bin_code``."""
        return float(self.edges[feature][bin_code])


#: Rows from which the numeric features' bins are fitted on several threads.
THREADED_BINS_ROWS = 50_000
#: Above this many rows, binning with a budget (``max_bins`` "auto" or a number) places the
#: edges by a random sample of this many rows, as LightGBM and scikit-learn's
#: HistGradientBoosting do: sorting every row of every column cost a third of a 1M-row fit.
BIN_SAMPLE_ROWS = 200_000


def bin_sample(n_rows: int, max_bins="auto") -> np.ndarray | None:
    """The rows whose values place the numeric features' bin edges in a fit on ``n_rows``
    rows, as sorted positions: above ``BIN_SAMPLE_ROWS`` rows with a bin budget (``max_bins``
    not None), a random sample of that many drawn with a fixed seed; None (every row)
    otherwise. The positions depend on ``n_rows`` only, so a Dask fit, which draws them on
    its client and reads the rows at those positions from its partitions, bins from the rows
    a local fit bins from."""
    if max_bins is None or n_rows <= BIN_SAMPLE_ROWS:
        return None
    rng = np.random.default_rng(0)
    return np.sort(rng.choice(n_rows, BIN_SAMPLE_ROWS, replace=False))


def fit_bins(X: pd.DataFrame, schema: Schema, max_bins="auto", n_threads: int = 1) -> BinMapper:
    """Fit the binning of a typed frame with its schema; the numeric features' sorts run on
    ``n_threads`` threads (NumPy's sort releases the GIL) when the frame is large.

    Above ``BIN_SAMPLE_ROWS`` rows and with a bin budget (``max_bins`` not None), each
    numeric feature's edges come from the same random sample of that many rows
    (:func:`bin_sample`: a fixed seed, the bins depend on the data only). Each bin's
    smallest and largest value still come from every row (:func:`bin_extremes_of`), so a
    threshold between two bins lies between training values and routes every training row
    as its bin code does."""
    numeric = [j for j, feature in enumerate(schema.features) if feature.kind == NUMERIC_KIND]
    sample = bin_sample(len(X), max_bins) if numeric else None

    columns = [column for _, column in X.items()] if numeric else []

    def bins_of(j):
        values = columns[j].to_numpy(dtype=np.float64)
        if sample is None:
            return numeric_bins(values, max_bins)
        edges = numeric_bins(values[sample], max_bins)[0]
        return (edges, *bin_extremes_of(values, edges))

    if n_threads > 1 and len(numeric) > 1 and len(X) >= THREADED_BINS_ROWS:
        with ThreadPoolExecutor(min(n_threads, len(numeric))) as pool:
            found = dict(zip(numeric, pool.map(bins_of, numeric), strict=True))
    else:
        found = {j: bins_of(j) for j in numeric}
    return mapper_from_bins(schema, [found.get(j) for j in range(len(schema.features))], len(X))


def bin_extremes_of(values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: the smallest and largest of ``values`` (float64) in each bin of
    ``edges``, NaN for a bin without values (one pass, no sort)."""
    lo = np.full(len(edges) + 1, np.inf)
    hi = np.full(len(edges) + 1, -np.inf)
    value_extremes(np.ascontiguousarray(values), edges, lo, hi)
    empty = lo > hi
    lo[empty] = hi[empty] = np.nan
    return lo, hi


#: Below this many rows the binned matrix has 2-byte codes even where 1 byte would hold
#: them: every kernel compiles once per code width (about 40 s for the grower, the first
#: time), and small data sets need 2 bytes anyway (``max_bins="auto"`` gives a numeric
#: column one bin per value below this size), so a first session compiles one width. From
#: here on "auto" gives a column at most 255 bins, and 1-byte codes halve what partitioning
#: moves (a forest of 100 trees on 80,000 rows fits about 3% faster).
ONE_BYTE_MIN_ROWS = AUTO_EXACT_MAX_ROWS


def mapper_from_bins(schema: Schema, bins, n_rows: int | None = None) -> BinMapper:
    """The :class:`BinMapper` of ``schema`` whose numeric features have the bins ``bins[j]``
    (``(edges, lo, hi)`` as :func:`numeric_bins` gives them; None for the other features,
    which keep one code per category), for ``n_rows`` training rows (None: many)."""
    edges, lo, hi, n_bins = [], [], [], []
    for feature, numeric in zip(schema.features, bins, strict=True):
        if feature.kind == NUMERIC_KIND:
            e, low, high = numeric
            edges.append(e)
            lo.append(low)
            hi.append(high)
            n_bins.append(len(e) + 1)
        else:
            edges.append(None)
            lo.append(None)
            hi.append(None)
            n_bins.append(max(feature.n_categories, 1))
    n_bins = np.asarray(n_bins, dtype=np.int32)
    dtype = bin_dtype(int(n_bins.max()) if len(n_bins) else 1)
    if n_rows is not None and n_rows < ONE_BYTE_MIN_ROWS:
        dtype = max(dtype, np.dtype(np.uint16), key=lambda d: d.itemsize)
    return BinMapper(list(schema.kinds), edges, lo, hi, n_bins, dtype)
