"""Thresholds placed as C4.5 places them: at a training value rather than a midpoint."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .._config import J48_SMALL, NUMERIC_SPLIT
from ..data.schema import NUMERIC_KIND, Schema
from .arrays import Tree


def thresholds_at_training_values(
    tree: Tree,
    schema: Schema,
    X: pd.DataFrame,
    tolerance: float = J48_SMALL,
    distinct: dict | None = None,
) -> Tree:
    """The tree with each numeric threshold moved down to the largest training value of its
    feature at or below it (C4.5 and J48 print and test ``x <= value``). No training value
    lies between the old and the new threshold, so every training case goes the same way.

    "At or below" has J48's tolerance of 1e-6 (``Utils.smOrEq``) by default: the midpoint of
    0.557 and 0.565 is 0.5609999999999999 in floating point, and J48's threshold is the
    value 0.561; C4.5 release 8 compares exactly (``tolerance=0``) and keeps 0.56.

    ``distinct``: a dict that keeps each feature's sorted distinct values (by column index)
    for further calls on the same ``X``."""
    distinct = {} if distinct is None else distinct
    threshold = tree.threshold.copy()
    nodes = np.flatnonzero(tree.kind == NUMERIC_SPLIT)
    for f in np.unique(tree.feature[nodes]):
        if schema.features[f].kind != NUMERIC_KIND:
            continue  # ordinal thresholds sit between level codes
        if f not in distinct:
            values = np.unique(X.iloc[:, f].to_numpy(dtype=np.float64))
            distinct[f] = values[~np.isnan(values)]
        values = distinct[f]
        at = nodes[tree.feature[nodes] == f]
        if tolerance > 0:
            index = np.searchsorted(values, threshold[at] + tolerance, side="left") - 1
        else:
            index = np.searchsorted(values, threshold[at], side="right") - 1
        threshold[at] = values[np.maximum(index, 0)]
    return dataclasses.replace(tree, threshold=threshold)
