"""How much the ingestion of a Dask collection keeps per column: the most distinct values
a feature may have on a cluster, and the points of a numeric feature's summary."""

from __future__ import annotations

from .._config import AUTO_EXACT_MAX_ROWS

__all__ = ["MAX_VALUES", "QUANTILE_CAPACITY", "quantile_capacity", "summary_capacity"]

#: The most distinct values a feature may have on a cluster where each needs a code of its
#: own: the categories of a nominal or ordinal feature, the values of a numeric feature
#: binned one bin per value. 65,534 codes and the missing code fit 16-bit bins; a partition
#: reports at most this many distinct values per column, which bounds the first pass's
#: memory; and a nominal attribute with more values than this is an identifier, not
#: something a split can use. The local fit has no such limit.
MAX_VALUES = 65_534
#: Points of a compressed numeric summary: edges within ``2 (d + 1) / 8191`` of the rows of
#: their quantile (0.15 % for 32 partitions, a tenth of a bin of 255), 128 KiB per feature.
QUANTILE_CAPACITY = 8192


def summary_capacity(max_bins, n_values: int) -> int:
    """The points a numeric summary of ``n_values`` rows keeps: enough to stay exact
    wherever ``max_bins`` asks for exact bins (one bin per value), :data:`QUANTILE_CAPACITY`
    (or ``max_bins`` when larger) where it asks for quantiles, never more than
    :data:`MAX_VALUES`."""
    if max_bins is None:
        return MAX_VALUES
    if isinstance(max_bins, str):  # "auto": exact bins on at most AUTO_EXACT_MAX_ROWS rows
        return MAX_VALUES if n_values <= AUTO_EXACT_MAX_ROWS else QUANTILE_CAPACITY
    return max(QUANTILE_CAPACITY, min(int(max_bins), MAX_VALUES))


def quantile_capacity(max_bins) -> int:
    """The capacity of the summaries that were compressed (those of many rows)."""
    return summary_capacity(max_bins, AUTO_EXACT_MAX_ROWS + 1)
