"""Training rows of a Dask collection, typed, binned and kept on the workers.

:func:`ingest` turns the user's Dask collections (``X`` a ``dask.dataframe.DataFrame`` or a
2-D ``dask.array.Array``, ``y`` and the sample weights partitioned alike) into the row
partitions the level-wise grower reads (``distributed/dask_statistics.py``): one
``(binned, y_class, y_value, w)`` per partition, held by a worker as a future. No row is
gathered to the client but a sample of numbers above ``BIN_SAMPLE_ROWS`` rows; the data are
read twice, in two passes of one task per partition (three times with the sample).

**First pass: summaries.** Each partition reports, for every column, what the typing of the
whole column depends on: for a numeric column a present and a missing value (its dtype), for
the others its distinct values (at most :data:`MAX_VALUES` of them are kept). A column
that may be numeric also gets the mergeable summary of its kept rows
(:func:`quercus.distributed.summaries.summarize`). The partition adds its distinct class
labels, its counts of rows and the exact sum of its weights. The reports are merged two by
two up a tree of tasks, and the client types the union of the distinct values with the very
function a local fit types the whole column with (:func:`quercus.data.infer_schema`), so
kinds, categories, warnings and errors are the local ones; the class labels are
:func:`~quercus.estimators.validate.classes_and_codes`'s of the union of the labels.

**Second pass: binning.** Each partition with rows to keep drops the others (the rows of
weight 0, an absent row to a local tree, unless ``keep_zero_weight`` keeps them as a local
forest does), types its columns to the schema, bins them with the mapper made from the
merged summaries and keeps the result on its worker: the binned codes in padded rows
(:func:`~quercus.binning.binned.bin_rows`), the class codes, the targets and the weights
after :func:`~quercus.estimators.validate.as_counts`. A feature
whose summary was compressed, or whose edges came from a sample, also reports the smallest
and largest value of each of its bins
(:func:`~quercus.distributed.summaries.bin_extremes`), which the split thresholds are placed
between.

**Above BIN_SAMPLE_ROWS kept rows: the sample.** A local fit of more than
:data:`quercus.binning.BIN_SAMPLE_ROWS` rows with a bin budget (``max_bins`` not None)
places every numeric feature's edges by a seeded sample of that many rows
(:func:`quercus.binning.bin_sample`). The first pass counts each partition's kept rows, so
the client draws the same positions among all the kept rows, maps each to its partition and
its row there, and a pass between the two above reads the numeric values of those rows from
the partitions that hold them: the client receives ``BIN_SAMPLE_ROWS`` values of 8 bytes per
numeric feature and bins them with :func:`quercus.binning.numeric_bins`, as the local fit
does; the summaries go unused.

**What is exact.** The schema, the classes, the class codes, the targets and the binned
codes equal those of a local fit on the concatenated rows (``X.compute()``), however the rows
are partitioned and with empty partitions anywhere. The bins of a numeric feature are the
local ones bit for bit (but for the sign of a zero: of 0.0 and -0.0, ``np.unique`` keeps
either) above ``BIN_SAMPLE_ROWS`` kept rows with a bin budget (the sample), wherever the
local rule gives exact bins (``max_bins="auto"`` on at most 50,000 rows, a feature with at
most ``max_bins`` values), and wherever the summary stays exact: every feature with at most
:data:`QUANTILE_CAPACITY` distinct values (or ``max_bins``, when larger). The weights are the
local ones, but where they are shares (summing to 1, scaled by their mean) and in the total
weight: those take exact sums (:func:`exact_sum`), which do not depend on the partitioning,
where a local fit takes numpy's pairwise sums. The two agree whenever numpy's sum is exact
(whole numbers, halves ...) and may differ in the last bit otherwise.

**The bound.** Up to ``BIN_SAMPLE_ROWS`` kept rows (above 50,000 with ``max_bins="auto"``),
a feature with more distinct values than the summary's capacity gets quantile edges from
compressed summaries: an edge aimed at rank ``t`` has a true rank ``r`` with
``t <= r < t + m + rank_error * N`` (``m`` the count of the value just below the edge,
``N`` the rows), ``rank_error = quantile_rank_error(capacity, depth)`` for a merge tree of
depth ``ceil(log2 P)`` over ``P`` partitions (see :mod:`quercus.distributed.summaries`);
:attr:`DistributedRows.rank_error` gives it, 0 when every summary stayed exact. The lowest
and highest value of each bin are exact (the second pass). Every summary holds at most
:data:`MAX_VALUES` points, whatever the number of rows.

**The parts.** This module runs the stages, each a module of its own: reading a partition's
rows, labels and weights (:mod:`~quercus.distributed.partitions`); the first pass and its
merge tree (:mod:`~quercus.distributed.reports`); the schema and classes of the merged
report (:mod:`~quercus.distributed.schema`); the bins, from the summaries or the sample
(:mod:`~quercus.distributed.bins`); the second pass (:mod:`~quercus.distributed.plan`). The
limits (:mod:`~quercus.distributed.capacity`) and :func:`exact_sum`
(:mod:`~quercus.distributed.sums`) are theirs too, and are importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..binning import BinMapper, mapper_from_bins, resolve_max_bins
from ..binning.binned import bin_tables
from ..data.errors import DataError
from ..data.schema import Schema
from ..estimators.validate import WEIGHT_LIMIT, with_target_name
from . import summaries
from .bins import feature_bins
from .capacity import MAX_VALUES, QUANTILE_CAPACITY, quantile_capacity, summary_capacity
from .partitions import check_companion, is_dask_series, n_partitions, x_source
from .plan import Plan, second_pass
from .reports import first_pass, first_pass_layout
from .schema import classes_from_report, schema_from_report
from .sums import exact_sum

__all__ = [
    "MAX_VALUES",
    "QUANTILE_CAPACITY",
    "DistributedRows",
    "exact_sum",
    "ingest",
    "summary_capacity",
]


@dataclass
class DistributedRows:
    """The training rows of a Dask collection, binned and held by the workers.

    Attributes
    ----------
    schema : Schema
        The features' schema, as a local fit types the concatenated ``X`` (with the target's
        name when ``y`` is a named Series).
    classes : ndarray or None
        The class labels, sorted (None for a regression).
    mapper : BinMapper
        The bins of every feature.
    kinds, bin_lo, bin_hi : ndarray
        The kernel's tables of ``mapper``, as :class:`~quercus.binning.binned.BinnedData`
        holds them.
    parts : list of distributed.Future
        One per partition with rows kept: ``(binned, y_class, y_value, w)``,
        the binned codes C-ordered and padded (:func:`~quercus.binning.binned.pad_rows`),
        ``y_class`` int32 codes into ``classes`` (zeros for a regression), ``y_value``
        float64 targets (zeros for a classification), ``w`` float64 weights.
    n_rows : list of int
        The rows of each part.
    first_rows : list of int
        The index of each part's first row among all the kept rows.
    total_weight : float
        The sum of the weights of all the parts.
    n_features_in : int
    feature_names_in : ndarray of str or None
        ``X``'s column names when they are all strings (as ``feature_names_in_`` of a
        local fit).
    compressed : tuple of str
        The numeric features whose bins came from compressed summaries (quantile edges within
        ``rank_error`` of exact quantiles).
    rank_error : float
        How far past its target rank a quantile edge may land, as a share of the rows (see
        the module's description); 0 when every summary stayed exact.
    bin_sample_rows : int
        The rows of the seeded sample that placed the numeric features' edges, as in a
        local fit of more than ``BIN_SAMPLE_ROWS`` rows (see the module's description); 0
        when the edges came from every row.
    """

    schema: Schema
    classes: np.ndarray | None
    mapper: BinMapper
    kinds: np.ndarray
    bin_lo: np.ndarray
    bin_hi: np.ndarray
    parts: list
    n_rows: list[int]
    first_rows: list[int]
    total_weight: float
    n_features_in: int
    feature_names_in: np.ndarray | None
    compressed: tuple[str, ...] = ()
    rank_error: float = 0.0
    bin_sample_rows: int = 0


def ingest(
    client,
    X,
    y,
    sample_weight=None,
    *,
    nominal=None,
    ordinal=None,
    max_bins="auto",
    regression=False,
    keep_zero_weight=False,
) -> DistributedRows:
    """The training rows of Dask collections, binned and kept on the workers.

    Parameters
    ----------
    client : distributed.Client or None
        The cluster's client (None: the current one).
    X : dask.dataframe.DataFrame or dask.array.Array
        The features: a frame (numbers, strings, categoricals, missing values) or a 2-D
        array (its columns named ``x0, x1, ...``).
    y : dask Series, one-column dask DataFrame or 1-D dask array
        Class labels, or numeric targets when ``regression``; partitioned as ``X``.
    sample_weight : dask Series or 1-D dask array, optional
        Non-negative weights, partitioned as ``X``.
    nominal, ordinal, max_bins
        As the estimators take them (``nominal_features``, ``ordinal_features``,
        ``max_bins``).
    regression : bool
        Whether ``y`` holds numeric targets rather than class labels.
    keep_zero_weight : bool
        Keep the rows of weight 0 (binned with the others, as a local forest bins them; its
        trees weigh them 0) instead of leaving them out (as a local tree does).

    Returns
    -------
    DistributedRows
        The schema, classes and bins, and one future per partition holding its binned rows.

    Raises
    ------
    TypeError
        ``X``, ``y`` or ``sample_weight`` is not a Dask collection of the kinds above.
    ValueError, DataError
        Collections partitioned differently, a column missing from a partition, missing
        labels, negative or non-finite weights, every weight zero, no rows; the errors of a
        local fit on the same data (each naming the column or partition at fault).
    """
    if client is None:
        from distributed import default_client

        client = default_client()
    X, source = x_source(X)
    resolve_max_bins(max_bins, 0, 0)  # its error before any pass
    n_parts = n_partitions(X)
    check_companion(y, "y", n_parts, allow_frame=True)
    if sample_weight is not None:
        check_companion(sample_weight, "sample_weight", n_parts, allow_frame=False)
    layout, levels = first_pass_layout(source, nominal, ordinal, max_bins, regression, y)
    layout.keep_zero_weight = bool(keep_zero_weight)
    report, (xs, ys, ws) = first_pass(client, X, y, sample_weight, source, layout)
    source = layout.source
    rows = [report.rows[i] for i in range(n_parts)]
    if not sum(n for n, _, _ in rows):
        raise DataError("X has no rows: every partition is empty")
    n_positive = sum(k for _, _, k in rows)
    if not n_positive:
        raise ValueError("sample_weight is zero for every sample: nothing to learn from")
    if report.weight > WEIGHT_LIMIT:  # the limit a local fit holds to
        raise ValueError(
            f"sample_weight sums to {float(report.weight):.3g} over {n_positive:,} rows, above "
            f"{WEIGHT_LIMIT:.0e}, the largest total weight quercus sums without overflow: "
            "divide the weights by a common factor"
        )
    schema, categorical = schema_from_report(report, source, nominal, ordinal, levels)
    schema = with_target_name(schema, y if is_dask_series(y) else None)  # a named Series
    classes = None if regression else classes_from_report(report)
    bins, compressed, extremes, n_sample = feature_bins(client, schema, report, layout, xs, ws)
    mapper = mapper_from_bins(schema, bins, n_positive)  # the rows a local fit bins
    plan = Plan(
        source,
        schema,
        categorical,
        mapper,
        classes,
        (n_positive, float(report.weight)),
        tuple(extremes),
        layout.keep_zero_weight,
    )
    kept = [i for i, (_, k, _) in enumerate(rows) if k]
    parts, extras = second_pass(client, plan, kept, xs, ys, ws)
    for j in extremes:  # the true extremes of each bin, in place of provisional ones
        extremes = [extra[0][j] for extra in extras]
        merged = extremes[0]
        for more in extremes[1:]:
            merged = summaries.merge_extremes(merged, more)
        mapper.lo[j], mapper.hi[j] = merged.lo, merged.hi
    n_rows = [rows[i][1] for i in kept]
    depth = summaries.merge_depth(n_parts)
    return DistributedRows(
        schema,
        classes,
        mapper,
        *bin_tables(mapper),
        parts,
        n_rows,
        [int(r) for r in np.cumsum([0, *n_rows[:-1]])],
        float(sum((extra[1] for extra in extras), Fraction(0))),
        len(source.names),
        np.asarray(source.names, dtype=object)
        if all(isinstance(c, str) for c in source.labels) and not source.array
        else None,
        tuple(schema.features[j].name for j in compressed),
        summaries.quantile_rank_error(quantile_capacity(max_bins), depth) if compressed else 0.0,
        n_sample,
    )
