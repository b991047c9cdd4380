"""The level-wise grower over rows held by the workers of a real Dask cluster
(``distributed.LocalCluster`` with worker processes) grows the tree the compiled grower
grows on the same bins, however the rows are partitioned."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

import quercus
from quercus.tree import grower, levelwise

distributed = pytest.importorskip("distributed")

from quercus.distributed.dask_statistics import DaskStatistics  # noqa: E402

# The fields of a tree that must be equal (tests/tree/test_levelwise.py compares the same).
TREE_FIELDS = ("kind", "feature", "threshold", "children", "cat_table", "missing_child", "value")


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    for field in TREE_FIELDS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


def _frame(shared, name, nominal=()):
    table = quercus.read_table(shared(name), nominal=list(nominal))
    return table.X, table.y


def _with_missing(X, share, seed):
    rng = np.random.default_rng(seed)
    out = X.copy()
    for col in out.columns:
        out.loc[rng.random(len(out)) < share, col] = np.nan
    return out


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as dask_client,
    ):
        yield dask_client


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
    client, n_parts, name, nominal, estimator, missing_share, monkeypatch, shared
):
    X, y = _frame(shared, name, nominal)
    if missing_share:
        X = _with_missing(X, missing_share, seed=7)
    local = clone(estimator).fit(X, y)
    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", _grow_on_cluster(client, n_parts))
        on_cluster = clone(estimator).fit(X, y)
    assert local.tree_.node_count > 7
    assert_same_tree(local.tree_, on_cluster.tree_)
