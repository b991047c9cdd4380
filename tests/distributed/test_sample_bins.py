"""Above ``BIN_SAMPLE_ROWS`` rows a local fit places its numeric edges by a seeded sample of
the rows; a Dask fit draws the same positions among the kept rows of its partitions, so its
bins, and then its tree, are the local ones, however the rows are partitioned.

``BIN_SAMPLE_ROWS`` is lowered to 2,000 here (a sample of 6,000 rows) so that the tests stay
small. The session's cluster has worker processes, which a monkeypatch does not reach: the
Dask fit draws the sample's positions on the client (``quercus.binning.bin_sample``, in
this process), and the workers only read the values at the positions they are sent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import binning
from quercus.data import infer_schema

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from _helpers import assert_same_tree  # noqa: E402
from quercus import dask as qdask  # noqa: E402
from quercus.distributed.ingest import ingest  # noqa: E402

SAMPLE_ROWS = 2_000


@pytest.fixture
def small_sample(monkeypatch):
    """A bin sample of 2,000 rows, for the local fit and the Dask client alike."""
    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", SAMPLE_ROWS)


def _data(n=6_000, seed=0):
    """``X, y, w``: a continuous feature (every value distinct, some missing), one of 1,000
    values (each seen a few times, so that a sample misses some), a nominal one; weights of
    0, 1 and 2."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "continuous": rng.normal(size=n),
            "grades": rng.integers(0, 1000, n).astype(float),
            "colour": rng.choice(["red", "green", "blue"], n).astype(object),
        }
    )
    X.loc[rng.random(n) < 0.05, "continuous"] = np.nan
    noise = rng.normal(scale=0.7, size=n)
    score = X["continuous"].fillna(0.0) + X["grades"] / 500 + (X["colour"] == "red") + noise
    y = pd.Series(np.where(score > 1.2, "yes", "no"), name="label")
    w = pd.Series(rng.integers(0, 3, n).astype(float))
    return X, y, w


def _on_dask(n_parts, *pandas):
    return [dd.from_pandas(p, npartitions=n_parts, sort=False) for p in pandas]


def _local_mapper(X, keep, max_bins):
    """The bins a local fit makes of the kept rows of ``X``."""
    typed, schema = infer_schema(X)
    return binning.fit_bins(typed[keep].reset_index(drop=True), schema, max_bins)


@pytest.mark.parametrize("max_bins", ["auto", 32])
@pytest.mark.parametrize("forest", [False, True], ids=["tree", "forest"])
def test_the_sample_is_drawn_among_the_kept_rows(dask_client, small_sample, max_bins, forest):
    """The edges are the local sample's bit for bit (a tree samples among the rows of
    positive weight, a forest among all), each bin's extremes those of every kept row."""
    X, y, w = _data()
    keep = np.ones(len(w), dtype=bool) if forest else (w > 0).to_numpy()
    expected = _local_mapper(X, keep, max_bins)
    rows = ingest(dask_client, *_on_dask(3, X, y, w), max_bins=max_bins, keep_zero_weight=forest)
    assert rows.bin_sample_rows == SAMPLE_ROWS
    assert rows.compressed == () and rows.rank_error == 0.0
    for j in (0, 1):
        np.testing.assert_array_equal(rows.mapper.edges[j], expected.edges[j])
        np.testing.assert_array_equal(rows.mapper.lo[j], expected.lo[j])
        np.testing.assert_array_equal(rows.mapper.hi[j], expected.hi[j])
    assert rows.mapper.edges[2] is None
    # Edges from every kept row would differ: the sample leaves values out.
    every_row = binning.numeric_bins(X["continuous"].to_numpy()[keep], max_bins)[0]
    assert not np.array_equal(rows.mapper.edges[0], every_row)


@pytest.mark.parametrize("n_parts", [1, 2, 3])
def test_dask_tree_is_the_local_tree_above_the_sample_size(dask_client, small_sample, n_parts):
    X, y, w = _data(seed=n_parts)
    params = {"max_depth": 8, "min_samples_leaf": 5}
    local = quercus.CARTClassifier(**params).fit(X, y, sample_weight=w.to_numpy())
    on_dask = qdask.DaskCARTClassifier(client=dask_client, subtree_bytes=0, **params)
    X_dask, y_dask, w_dask = _on_dask(n_parts, X, y, w)
    on_dask.fit(X_dask, y_dask, sample_weight=w_dask)
    assert local.tree_.node_count > 31
    assert_same_tree(local.tree_, on_dask.tree_)
    np.testing.assert_array_equal(on_dask.predict(X_dask).compute(), local.predict(X))


@pytest.mark.parametrize("n_parts", [1, 2, 3])
def test_dask_forest_is_the_local_forest_above_the_sample_size(dask_client, small_sample, n_parts):
    """A forest bins all the rows, those of weight 0 too: its sample is drawn among them."""
    X, y, w = _data(seed=10 + n_parts)
    params = {"n_estimators": 3, "max_depth": 6, "random_state": 2, "max_bins": 32}
    local = quercus.RandomForestClassifier(bootstrap="poisson", **params)
    local.fit(X, y, sample_weight=w.to_numpy())
    on_dask = qdask.DaskRandomForestClassifier(client=dask_client, **params)
    X_dask, y_dask, w_dask = _on_dask(n_parts, X, y, w)
    on_dask.fit(X_dask, y_dask, sample_weight=w_dask)
    for a, b in zip(local.estimators_, on_dask.estimators_, strict=True):
        assert_same_tree(a.tree_, b.tree_, skip=("n_node_samples",))
