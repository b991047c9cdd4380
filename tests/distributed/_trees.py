"""What the distributed tests share: their data (imported as ``_trees``: pytest puts this
folder on the path). The comparison of a tree grown on a cluster with the local one is
``_helpers.assert_same_tree``."""

from __future__ import annotations

import numpy as np

import quercus


def frame_of(shared, name, nominal=()):
    """``X, y`` of the data set ``name`` (``shared``: the fixture that finds it)."""
    table = quercus.read_table(shared(name), nominal=list(nominal))
    return table.X, table.y


def with_missing(X, share, seed):
    """``X`` with about ``share`` of each column's cells missing."""
    rng = np.random.default_rng(seed)
    out = X.copy()
    for col in out.columns:
        out.loc[rng.random(len(out)) < share, col] = np.nan
    return out
