"""The level-wise grower over rows held by the workers of a real Dask cluster
(``distributed.LocalCluster`` with worker processes) grows the tree the compiled grower
grows on the same bins, however the rows are partitioned."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

import quercus
from quercus.grow import grower, levelwise

distributed = pytest.importorskip("distributed")

from _trees import frame_of, with_missing  # noqa: E402

from _helpers import assert_same_tree  # noqa: E402
from quercus.distributed.dask_statistics import DaskForestStatistics, DaskStatistics  # noqa: E402


def _grow_on_cluster(dask_client, n_parts):
    """A stand-in for the compiled grower that scatters the rows to the cluster in
    ``n_parts`` partitions and grows level by level over them."""

    def grow(data, y_class, y_value, w, bins, s):
        bounds = np.linspace(0, len(w), n_parts + 1).astype(int)
        parts = [
            dask_client.scatter((data[a:b], y_class[a:b], y_value[a:b], w[a:b]))
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ]
        provider = DaskStatistics(
            dask_client, parts, bins.n_bins, bins.missing_code, s.n_stats, s.regression
        )
        return levelwise.grow_level_wise(provider, bins, s)

    return grow


@pytest.mark.parametrize("n_parts", [1, 2, 4])
@pytest.mark.parametrize(
    ("name", "nominal", "estimator", "missing_share"),
    [
        ("iris.csv", (), quercus.CARTClassifier(criterion="entropy"), 0.0),
        (
            "credit-a.csv",
            (),
            quercus.DecisionTreeClassifier(
                criterion="entropy", nominal_split="multiway", missing="class_majority"
            ),
            0.1,
        ),
        ("credit-a.csv", (), quercus.CARTClassifier(missing="learned", max_depth=6), 0.1),
        ("car.csv", ("doors", "persons"), quercus.ID3Classifier(), 0.0),
    ],
)
def test_cluster_grows_the_local_tree(
    dask_client, n_parts, name, nominal, estimator, missing_share, monkeypatch, shared
):
    X, y = frame_of(shared, name, nominal)
    if missing_share:
        X = with_missing(X, missing_share, seed=7)
    local = clone(estimator).fit(X, y)
    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", _grow_on_cluster(dask_client, n_parts))
        on_cluster = clone(estimator).fit(X, y)
    assert local.tree_.node_count > 7
    assert_same_tree(local.tree_, on_cluster.tree_)


def _weigh(tree, first_row, w):
    """The rows' weights times a bootstrap-like factor (0, 1 or 2) of each row in ``tree``,
    from its global index."""
    rows = np.arange(first_row, first_row + len(w), dtype=np.int64)
    return w * (((rows * 2654435761 + tree * 40503) >> 7) % 3)


@pytest.mark.parametrize("n_parts", [1, 3])
def test_forest_trees_advance_together_on_the_cluster(dask_client, n_parts, monkeypatch, shared):
    """A forest's trees, each weighing the rows by its own draw keyed on the rows' global
    indices, share every pass over the partitions; each tree is the one grown locally on
    the rows it draws, however the rows are partitioned."""
    X, y = frame_of(shared, "credit-a.csv")
    X = with_missing(X, 0.05, seed=3)
    captured = {}

    def capture(data, y_class, y_value, w, bins, s):
        captured.update(rows=(data.copy(), y_class.copy(), y_value.copy(), w.copy()))
        captured.update(bins=bins, s=s)
        return levelwise.grow_local(data, y_class, y_value, w, bins, s)

    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", capture)
        quercus.CARTClassifier(missing="learned", max_depth=5).fit(X, y)
    data, y_class, y_value, w = captured["rows"]
    bins, s = captured["bins"], captured["s"]
    bounds = np.linspace(0, len(w), n_parts + 1).astype(int)
    parts = [
        dask_client.scatter((data[a:b], y_class[a:b], y_value[a:b], w[a:b]))
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    n_trees = 4
    forest = DaskForestStatistics(
        dask_client,
        parts,
        (bins.n_bins, bins.missing_code, s.n_stats, False),
        n_trees,
        list(bounds[:-1]),
        weigh=_weigh,
    )
    roots = forest.answer("root", [(tree, None) for tree in range(n_trees)])
    grown = levelwise.drive_together(
        [levelwise.level_steps(root, bins, s) for root in roots], forest.answer
    )
    for tree, tree_arrays in enumerate(grown):
        w_tree = _weigh(tree, 0, w)
        drawn = w_tree > 0  # a row a tree weighs 0 is left out, as a local forest does
        alone = levelwise.grow_local(
            data[drawn], y_class[drawn], y_value[drawn], w_tree[drawn], bins, s
        )
        assert len(tree_arrays.nodes) == len(alone.nodes) > 3
        for a, b in zip(tree_arrays, alone, strict=True):
            if a is None:  # no oblique splits
                assert b is None
                continue
            for field in a.dtype.names or [None]:
                np.testing.assert_array_equal(a[field] if field else a, b[field] if field else b)
