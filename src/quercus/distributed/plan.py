"""The second pass over a Dask collection: each partition typed, binned and kept where it is.

Each partition with rows to keep drops the others (the rows of weight 0, an absent row to a
local tree, unless ``keep_zero_weight`` keeps them as a local forest does), types its
columns to the schema, bins them with the mapper made from the first pass and keeps the
result on its worker: the binned codes in padded rows
(:func:`~quercus.binning.binned.bin_rows`), the class codes, the targets and the weights
after :func:`~quercus.estimators.validate.as_counts`. A feature whose summary was
compressed, or whose edges came from a sample, also reports the smallest and largest value
of each of its bins (:func:`~quercus.distributed.summaries.bin_extremes`), which the split
thresholds are placed between. :class:`Plan` holds what the pass needs,
:func:`second_pass` runs it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..binning import BinMapper
from ..binning.binned import bin_rows
from ..data.encode import align_column
from ..data.schema import NUMERIC_KIND, ORDINAL_KIND, Schema
from ..estimators.validate import counts_of_shares
from . import summaries
from .partitions import (
    Source,
    column_numbers,
    partition_frame,
    partition_labels,
    partition_weights,
)
from .sums import exact_sum

__all__ = ["Plan", "second_pass"]


@dataclass
class Plan:
    """What the second pass needs: how to type, bin and encode a partition."""

    source: Source
    schema: Schema
    categorical: tuple[bool, ...]
    mapper: BinMapper
    classes: np.ndarray | None
    shares: tuple[int, float]  # rows of positive weight and their sum (as_counts)
    extremes: tuple[int, ...]  # numeric features whose bins' extremes this pass finds
    keep_zero_weight: bool


def _typed_column(feature, values: pd.Series, categorical: bool):
    """One column of a partition typed as type_column types the whole column."""
    if feature.kind == NUMERIC_KIND:
        return column_numbers(values)
    if categorical:  # a categorical column keeps its values, whatever they look like
        return pd.Categorical(
            values, categories=list(feature.categories), ordered=feature.kind == ORDINAL_KIND
        )
    return align_column(feature, values)[0]


def _bin_partition(x_part, y_part, w_part, index: int, plan: Plan):
    """The second pass over one partition: its kept rows typed, binned and
    encoded, ``(binned, y_class, y_value, w)``; beside them the bin extremes of the
    features of ``plan.extremes`` and the exact sum of the weights."""
    frame = partition_frame(x_part, plan.source, index)
    n = len(frame)
    w = partition_weights(w_part, n, index)
    labels = partition_labels(y_part, n, index, plan.classes is None)
    rows = np.arange(n) if plan.keep_zero_weight else np.flatnonzero(w > 0)
    frame, labels, w = frame.iloc[rows], labels[rows], w[rows]
    typed = pd.DataFrame(
        {
            j: _typed_column(feature, frame.iloc[:, j], plan.categorical[j])
            for j, feature in enumerate(plan.schema.features)
        },
        index=frame.index,
    )
    binned = bin_rows(plan.mapper, typed)
    extremes = {
        j: summaries.extremes_of_codes(
            typed.iloc[:, j].to_numpy(),
            np.ascontiguousarray(binned[:, j]),
            len(plan.mapper.edges[j]),
        )
        for j in plan.extremes
    }
    if plan.classes is None:
        y_class, y_value = np.zeros(len(rows), dtype=np.int32), labels.astype(np.float64)
    else:
        codes = pd.Index(plan.classes).get_indexer(labels)
        y_class, y_value = codes.astype(np.int32), np.zeros(len(rows), dtype=np.float64)
    w = counts_of_shares(w, *plan.shares)
    return (binned, y_class, y_value, w), (extremes, exact_sum(w))


def second_pass(client, plan: Plan, kept: list[int], xs, ys, ws) -> tuple[list, list]:
    """One future per kept partition holding its binned rows, and what each reports."""
    import dask

    plan_d = dask.delayed(plan, traverse=False)
    bin_part = dask.delayed(_bin_partition, pure=True)
    outs = client.compute([bin_part(xs[i], ys[i], ws[i], i, plan_d) for i in kept])
    parts = [client.submit(operator.itemgetter(0), out) for out in outs]
    extras = client.gather([client.submit(operator.itemgetter(1), out) for out in outs])
    return parts, extras
