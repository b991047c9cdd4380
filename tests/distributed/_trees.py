"""What the distributed tests share: their data, and the comparison of a tree grown on a
cluster with the local one (imported as ``_trees``: pytest puts this folder on the path)."""

from __future__ import annotations

import numpy as np

import quercus

# The fields of a tree that must be equal.
TREE_FIELDS = (
    "kind",
    "feature",
    "threshold",
    "children",
    "cat_table",
    "missing_child",
    "value",
    "impurity",
    "weighted_n_node_samples",
    "depth",
)

# Sums of targets and their squares are added partition by partition, in another order
# than a local fit adds them, so they may differ in the last bits (class weights that are
# whole numbers add up exactly); a variance from them loses more digits to cancellation.
SUMS_OF_TARGETS = ("value", "impurity")


def assert_same_tree(a, b, fields=(*TREE_FIELDS, "n_node_samples"), regression=False):
    assert a.node_count == b.node_count
    for field in fields:
        if regression and field in SUMS_OF_TARGETS:
            np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=1e-9)
        else:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


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
