"""The bins of the numeric features of a Dask collection, placed as a local fit places them.

Above :data:`quercus.binning.BIN_SAMPLE_ROWS` kept rows with a bin budget, a local fit
places every numeric feature's edges by a seeded sample of that many rows
(:func:`quercus.binning.bin_sample`): the client draws the same positions among all the kept
rows, maps each to its partition and its row there, reads the numeric values of those rows
from the partitions that hold them and bins them with :func:`quercus.binning.numeric_bins`.
Otherwise the bins come from the merged summaries of the first pass
(:func:`quercus.distributed.summaries.numeric_bins_from_summary`): exact bins where the
summary stayed exact, quantile edges where it was compressed.
"""

from __future__ import annotations

import numpy as np

from ..binning import bin_sample, numeric_bins, resolve_max_bins
from ..data.errors import DataError
from ..data.schema import NUMERIC_KIND, Schema
from . import summaries
from .capacity import MAX_VALUES
from .partitions import Source, column_numbers, partition_frame, partition_weights
from .reports import Column, Layout, Report

__all__ = ["feature_bins"]


def _numeric_summary(feature, column: Column) -> summaries.NumericSummary:
    """The merged summary of a numeric feature; a :class:`DataError` naming the column when
    a partition's dtype hid its numbers from the first pass."""
    if column.summary is None:
        raise DataError(
            f"column {feature.name!r} is numeric, but some partitions of X hold it with"
            " another dtype than X's: give every partition X's dtypes",
            column=feature.name,
        )
    return column.summary


def _numeric_bins(schema: Schema, report: Report, max_bins) -> tuple[list, list[int]]:
    """The bins of each numeric feature from its merged summary (None for the others), and
    the features whose summary was compressed."""
    bins, compressed = [], []
    for j, (feature, column) in enumerate(zip(schema.features, report.columns, strict=True)):
        if feature.kind != NUMERIC_KIND:
            bins.append(None)
            continue
        summary = _numeric_summary(feature, column)
        if not summary.exact:
            budget = resolve_max_bins(max_bins, int(summary.n_values), len(summary.values) + 1)
            if budget is None:
                raise DataError(
                    f"column {feature.name!r} has more than {MAX_VALUES:,} distinct values,"
                    f" and max_bins={max_bins!r} asks for one bin per value: on a cluster give"
                    " max_bins an integer (or 'auto') for such a feature",
                    column=feature.name,
                )
            compressed.append(j)
        bins.append(summaries.numeric_bins_from_summary(summary, max_bins))
    return bins, compressed


def _sample_partition(x_part, w_part, index: int, source: Source, numeric, keep_zero_weight, at):
    """The values of the numeric features ``numeric`` (columns of ``X``, read as their
    typing reads them) in the rows at positions ``at`` among the kept rows of one
    partition: one row per position, one column per feature."""
    frame = partition_frame(x_part, source, index)
    w = partition_weights(w_part, len(frame), index)
    kept = np.arange(len(frame)) if keep_zero_weight else np.flatnonzero(w > 0)
    rows = kept[at]
    values = np.empty((len(rows), len(numeric)), dtype=np.float64)
    for k, j in enumerate(numeric):
        values[:, k] = column_numbers(frame.iloc[rows, j])
    return values


def _sampled_bins(client, schema: Schema, report: Report, layout: Layout, xs, ws, sample):
    """The bins of each numeric feature (None for the others) placed by the values of the
    kept rows at the global positions ``sample`` (:func:`~quercus.binning.bin_sample`),
    read from the partitions that hold them: the edges a local fit places on the
    concatenated rows. Each bin's extremes are the sample's until the second pass gives
    those of every row."""
    import dask

    numeric = [j for j, f in enumerate(schema.features) if f.kind == NUMERIC_KIND]
    for j in numeric:
        _numeric_summary(schema.features[j], report.columns[j])
    kept = np.asarray([report.rows[i][1] for i in range(len(xs))], dtype=np.int64)
    ends = np.cumsum(kept)
    holder = np.searchsorted(ends, sample, side="right")  # the partition of each position
    read = dask.delayed(_sample_partition, pure=True)
    tasks = [
        read(
            xs[i],
            ws[i],
            int(i),
            layout.source,
            numeric,
            layout.keep_zero_weight,
            sample[holder == i] - (ends[i] - kept[i]),
        )
        for i in np.unique(holder)
    ]
    # In partition order: the rows of the sample in the order of their positions.
    values = np.concatenate(client.gather(client.compute(tasks)))
    bins = [None] * len(schema.features)
    for k, j in enumerate(numeric):
        bins[j] = numeric_bins(values[:, k], layout.max_bins)
    return bins


def feature_bins(client, schema: Schema, report: Report, layout: Layout, xs, ws) -> tuple:
    """The bins of each numeric feature (None for the others), as a local fit of the
    concatenated kept rows makes them: from the seeded sample of those rows where the local
    fit takes one (:func:`_sampled_bins`), else from the merged summaries. Also the features
    whose summaries were compressed, those whose bins' extremes the second pass finds, and
    the rows of the sample (0: none)."""
    n_kept = sum(report.rows[i][1] for i in range(len(xs)))
    numeric = [j for j, f in enumerate(schema.features) if f.kind == NUMERIC_KIND]
    sample = bin_sample(n_kept, layout.max_bins) if numeric else None
    if sample is None:
        bins, compressed = _numeric_bins(schema, report, layout.max_bins)
        return bins, compressed, compressed, 0
    bins = _sampled_bins(client, schema, report, layout, xs, ws, sample)
    return bins, [], numeric, len(sample)
