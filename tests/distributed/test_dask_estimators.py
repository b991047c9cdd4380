"""The Dask estimators on a real cluster (``distributed.LocalCluster``, worker processes):
the model equals the local estimator's on the same data, for any partitioning; predictions
are lazy Dask arrays equal to the local ones; the options that stay local are refused."""

from __future__ import annotations

import logging
import os
import signal
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import quercus

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")

from _trees import frame_of, with_missing  # noqa: E402

from _helpers import assert_same_tree  # noqa: E402
from quercus import dask as qdask  # noqa: E402
from quercus.estimators.params import InvalidParameterError  # noqa: E402

# Sums of targets and their squares are added partition by partition, in another order
# than a local fit adds them, so they may differ in the last bits (class weights that are
# whole numbers add up exactly); a variance from them loses more digits to cancellation.
SUMS_OF_TARGETS = ("value", "impurity")


def sums_close(regression):
    """The arguments of ``assert_same_tree`` that let a regression tree's sums of targets
    differ by a relative 1e-9 (none for a classification tree: its sums are exact)."""
    return {"close": SUMS_OF_TARGETS, "rtol": 1e-9} if regression else {}


def _on_dask(X, y, n_parts):
    return dd.from_pandas(X, npartitions=n_parts), dd.from_pandas(y, npartitions=n_parts)


TREES = [
    ("iris.csv", (), 0.0, "DecisionTreeClassifier", {"criterion": "entropy"}),
    ("credit-a.csv", (), 0.1, "CARTClassifier", {"missing": "learned", "max_depth": 6}),
    (
        "credit-a.csv",
        (),
        0.1,
        "DecisionTreeClassifier",
        {"nominal_split": "multiway", "missing": "class_majority", "ccp_alpha": 0.002},
    ),
    ("car.csv", ("doors", "persons"), 0.0, "ID3Classifier", {}),
    ("boston.csv", (), 0.05, "DecisionTreeRegressor", {"min_samples_leaf": 5}),
]


@pytest.mark.parametrize("n_parts", [1, 2, 4])
@pytest.mark.parametrize(("name", "nominal", "missing_share", "kind", "params"), TREES)
def test_dask_tree_is_the_local_tree(
    dask_client, n_parts, name, nominal, missing_share, kind, params, shared
):
    X, y = frame_of(shared, name, nominal)
    if missing_share:
        X = with_missing(X, missing_share, seed=7)
    local = getattr(quercus, kind)(**params).fit(X, y)
    on_dask = getattr(qdask, "Dask" + kind)(client=dask_client, subtree_bytes=0, **params)
    on_dask.fit(*_on_dask(X, y, n_parts))
    assert local.tree_.node_count > 7
    assert_same_tree(local.tree_, on_dask.tree_, **sums_close(kind.endswith("Regressor")))
    assert on_dask.schema_ == local.schema_
    if hasattr(local, "classes_"):
        np.testing.assert_array_equal(on_dask.classes_, local.classes_)
    # Predictions: lazy, partition by partition, the local ones.
    X_dask, _ = _on_dask(X, y, 3)
    predicted = on_dask.predict(X_dask)
    assert isinstance(predicted, da.Array)
    if kind.endswith("Regressor"):
        np.testing.assert_allclose(predicted.compute(), local.predict(X), rtol=1e-12)
    else:
        np.testing.assert_array_equal(predicted.compute(), local.predict(X))
    if hasattr(local, "predict_proba"):
        np.testing.assert_allclose(on_dask.predict_proba(X_dask).compute(), local.predict_proba(X))


@pytest.mark.parametrize("subtree_bytes", [3000, qdask.DaskCARTClassifier().subtree_bytes])
@pytest.mark.parametrize(("name", "nominal", "missing_share", "kind", "params"), TREES)
def test_small_nodes_grown_on_one_worker(
    dask_client, subtree_bytes, name, nominal, missing_share, kind, params, shared
):
    """Nodes whose rows fit in ``subtree_bytes`` are gathered from the partitions to one
    worker and grown by the compiled grower there (with the default, the whole tree is:
    these data are small); the tree is the local one."""
    X, y = frame_of(shared, name, nominal)
    if missing_share:
        X = with_missing(X, missing_share, seed=7)
    local = getattr(quercus, kind)(**params).fit(X, y)
    on_dask = getattr(qdask, "Dask" + kind)(
        client=dask_client, subtree_bytes=subtree_bytes, **params
    )
    on_dask.fit(*_on_dask(X, y, 3))
    assert_same_tree(local.tree_, on_dask.tree_, **sums_close(kind.endswith("Regressor")))


def test_levels_say_what_each_level_cost(dask_client, shared):
    """``levels_``: per level, the nodes split on the cluster and the bytes of their
    histograms (the same for every node: features x bins x statistics), or the nodes whose
    subtrees were grown on one worker."""
    X, y = frame_of(shared, "iris.csv")
    level_wise = qdask.DaskCARTClassifier(client=dask_client, subtree_bytes=0).fit(
        *_on_dask(X, y, 2)
    )
    levels = level_wise.levels_
    assert [cost.level for cost in levels] == list(range(len(levels)))
    assert [cost.nodes for cost in levels[:3]] == [1, 1, 2]  # setosa is a leaf at once
    per_node = levels[0].histogram_bytes
    widest = int(X.nunique().max())  # one bin per value; each feature padded to the widest
    assert per_node >= X.shape[1] * widest * (3 + 1) * 8
    assert all(cost.histogram_bytes == cost.nodes * per_node for cost in levels)
    assert sum(cost.subtrees for cost in levels) == 0
    # Every split of the tree was chosen at some level; leaves were asked for too.
    assert sum(cost.nodes for cost in levels) >= int(np.sum(level_wise.tree_.children_left >= 0))
    whole = qdask.DaskCARTClassifier(client=dask_client).fit(*_on_dask(X, y, 2))
    assert [(c.nodes, c.subtrees, c.subtree_rows) for c in whole.levels_] == [(0, 1, 150)]
    assert not hasattr(whole.to_local(), "levels_")


def test_to_local_and_model_files(dask_client, shared, tmp_path):
    X, y = frame_of(shared, "credit-a.csv")
    X = with_missing(X, 0.05, seed=1)
    on_dask = qdask.DaskCARTClassifier(client=dask_client, max_depth=5).fit(*_on_dask(X, y, 2))
    local = on_dask.to_local()
    assert type(local) is quercus.CARTClassifier
    assert "client" not in local.get_params()
    np.testing.assert_array_equal(local.predict(X), on_dask.predict(X))  # data in memory
    on_dask.save(tmp_path / "model.json")
    loaded = quercus.load(tmp_path / "model.json")
    assert type(loaded) is quercus.CARTClassifier
    np.testing.assert_array_equal(loaded.predict(X), local.predict(X))
    assert on_dask.export_text() == local.export_text()


@pytest.mark.parametrize(
    ("name", "kind", "file_name"),
    [
        ("credit-a.csv", "RandomForestClassifier", "forest.qf"),
        ("boston.csv", "RandomForestRegressor", "forest.qf"),
        ("boston.csv", "DecisionTreeRegressor", "model.json"),
    ],
)
def test_save_writes_the_local_models_file(
    dask_client, shared, tmp_path, monkeypatch, name, kind, file_name
):
    """``save`` of a fitted Dask tree or forest writes the very file ``to_local().save``
    writes (a forest's zip, a tree's JSON), and loading it gives the local model."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the same bytes each time
    X, y = frame_of(shared, name)
    X = with_missing(X, 0.05, seed=4)
    params = {"n_estimators": 3, "random_state": 1} if "Forest" in kind else {}
    on_dask = getattr(qdask, "Dask" + kind)(client=dask_client, max_depth=4, **params)
    on_dask.fit(*_on_dask(X, y, 2))
    on_dask.save(tmp_path / file_name)
    (tmp_path / "local").mkdir()
    on_dask.to_local().save(tmp_path / "local" / file_name)
    assert (tmp_path / file_name).read_bytes() == (tmp_path / "local" / file_name).read_bytes()
    loaded = quercus.load(tmp_path / file_name)
    assert type(loaded) is getattr(quercus, kind)
    np.testing.assert_array_equal(loaded.predict(X), on_dask.to_local().predict(X))


@pytest.mark.parametrize(("n_parts", "subtree_bytes"), [(1, 0), (3, 0), (3, 2500)])
@pytest.mark.parametrize(
    ("name", "kind", "params"),
    [
        ("credit-a.csv", "RandomForestClassifier", {"max_features": "sqrt", "max_depth": 6}),
        ("boston.csv", "RandomForestRegressor", {"max_features": 0.5, "max_depth": 5}),
    ],
)
def test_dask_forest_is_the_local_poisson_forest(
    dask_client, n_parts, subtree_bytes, name, kind, params, shared
):
    """All trees advance together over the partitions; each draws its Poisson weights from
    (seed, tree, row) and its features from (seed, node): the local forest with
    ``bootstrap='poisson'`` and the same seed, however the rows are partitioned."""
    X, y = frame_of(shared, name)
    X = with_missing(X, 0.05, seed=2)
    params = dict(params, n_estimators=5, random_state=3)
    local = getattr(quercus, kind)(bootstrap="poisson", **params).fit(X, y)
    on_dask = getattr(qdask, "Dask" + kind)(
        client=dask_client, subtree_bytes=subtree_bytes, **params
    )
    on_dask.fit(*_on_dask(X, y, n_parts))
    assert len(on_dask.estimators_) == 5
    for a, b in zip(local.estimators_, on_dask.estimators_, strict=True):
        # A local forest counts a node's distinct rows (it groups equal rows); the weights
        # and everything else are equal.
        assert_same_tree(
            a.tree_, b.tree_, skip=("n_node_samples",), **sums_close(on_dask.regression)
        )
    lazy = on_dask.predict(_on_dask(X, y, 2)[0]).compute()
    if on_dask.regression:
        np.testing.assert_allclose(lazy, local.predict(X), rtol=1e-12)
    else:
        np.testing.assert_array_equal(lazy, local.predict(X))


def test_dask_array_input(dask_client, shared):
    X, y = frame_of(shared, "iris.csv")
    local = quercus.CARTClassifier().fit(X.to_numpy(), y.to_numpy())
    X_dask = da.from_array(X.to_numpy(), chunks=(40, 2))
    y_dask = da.from_array(y.to_numpy(), chunks=40)
    on_dask = qdask.DaskCARTClassifier(client=dask_client).fit(X_dask, y_dask)
    assert_same_tree(local.tree_, on_dask.tree_)
    np.testing.assert_array_equal(on_dask.predict(X_dask).compute(), local.predict(X.to_numpy()))


def test_clone_and_params(dask_client):
    est = qdask.DaskRandomForestClassifier(client=dask_client, n_estimators=7)
    assert est.get_params()["client"] is dask_client
    assert est.bootstrap == "poisson"
    copy = clone(est)
    assert copy.n_estimators == 7
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_trees'"):
        qdask.DaskRandomForestClassifier(n_trees=3)


@pytest.mark.parametrize(
    ("estimator", "name"),
    [
        (qdask.DaskDecisionTreeClassifier(missing="fractional"), "missing"),
        (qdask.DaskDecisionTreeRegressor(criterion="absolute_error"), "criterion"),
        (qdask.DaskCARTClassifier(max_leaf_nodes=8), "max_leaf_nodes"),
        (qdask.DaskCARTClassifier(pruning="pessimistic"), "pruning"),
        (qdask.DaskCARTClassifier(ccp_alpha="cv"), "ccp_alpha"),
        (qdask.DaskRandomForestClassifier(bootstrap=True), "bootstrap"),
        (qdask.DaskRandomForestClassifier(oob_score=True), "oob_score"),
        (qdask.DaskCARTClassifier(class_weight="balanced"), "class_weight"),
    ],
)
def test_local_only_options_are_refused(dask_client, estimator, name):
    X = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]}), npartitions=2)
    y = dd.from_pandas(pd.Series(["x", "y", "x", "y"]), npartitions=2)
    estimator.set_params(client=dask_client)
    with pytest.raises(InvalidParameterError, match="not available on Dask") as caught:
        estimator.fit(X, y)
    assert caught.value.name == name


@pytest.mark.parametrize("size", [-1, 2.5, "64MB"])
def test_subtree_bytes_is_checked(dask_client, size):
    X = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]}), npartitions=2)
    y = dd.from_pandas(pd.Series(["x", "y", "x", "y"]), npartitions=2)
    with pytest.raises(InvalidParameterError, match="subtree_bytes must be an integer"):
        qdask.DaskCARTClassifier(client=dask_client, subtree_bytes=size).fit(X, y)


def test_data_in_memory_is_refused(dask_client):
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    y = pd.Series(["x", "y", "x", "y"])
    with pytest.raises(TypeError, match="DataFrame"):
        qdask.DaskCARTClassifier(client=dask_client).fit(X, y)


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_fit(shared):
    """A worker process dies while the tree grows: Dask recomputes the partitions it held
    from their lineage, and the fit finishes with the model it would have had; it never
    hangs (the fit runs in a thread given two minutes)."""
    X, y = frame_of(shared, "credit-a.csv")
    X = with_missing(X, 0.05, seed=4)
    local = quercus.CARTClassifier(max_depth=8).fit(X, y)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        estimator = qdask.DaskCARTClassifier(client=client, max_depth=8, subtree_bytes=0)
        victim = sorted(client.scheduler_info()["workers"])[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        killed = []

        class KillAtLevel(logging.Handler):
            def emit(self, record):
                if record.getMessage().startswith("level 3") and not killed:
                    killed.append(victim)
                    os.kill(pid, signal.SIGKILL)

        log = logging.getLogger("quercus.distributed.rows")
        handler = KillAtLevel()
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        outcome = {}

        def fit():
            try:
                outcome["model"] = estimator.fit(*_on_dask(X, y, 4))
            except Exception as exc:  # noqa: BLE001 - reported below
                outcome["error"] = exc

        try:
            thread = threading.Thread(target=fit, daemon=True)
            thread.start()
            thread.join(timeout=120)
        finally:
            log.removeHandler(handler)
            log.setLevel(logging.NOTSET)
        assert not thread.is_alive(), "the fit hung after a worker died"
        assert killed == [victim]
        assert "error" not in outcome, outcome.get("error")
    assert_same_tree(local.tree_, outcome["model"].tree_)


def test_predictions_on_bad_partitions(dask_client):
    """Unseen categories predict as the local model does (as missing values); an empty
    partition predicts nothing; a partition without a column is an error naming the
    column and the partition; data in memory get the local answer."""
    tennis = quercus.datasets.load("playtennis")
    X, y = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    model = qdask.DaskID3Classifier(client=dask_client).fit(*_on_dask(X, y, 2))
    local = model.to_local()
    unseen = X.assign(Outlook=["Foggy"] + list(X["Outlook"][1:]))
    unseen.loc[5, "Wind"] = "Gale"
    on_dask = model.predict(dd.from_pandas(unseen, npartitions=3))
    np.testing.assert_array_equal(on_dask.compute(), local.predict(unseen))
    np.testing.assert_allclose(
        model.predict_proba(dd.from_pandas(unseen, npartitions=3)).compute(),
        local.predict_proba(unseen),
    )

    def partitions(*frames):
        return dd.from_map(lambda f: f, frames, meta=X.iloc[:0], enforce_metadata=False)

    with_empty = partitions(X.iloc[:5], X.iloc[:0], X.iloc[5:])
    np.testing.assert_array_equal(model.predict(with_empty).compute(), local.predict(X))
    lacking = partitions(X.iloc[:5], X.iloc[5:9], X.iloc[9:].drop(columns="Humidity"))
    with pytest.raises(ValueError, match="partition 2 of X: column 'Humidity' is missing"):
        model.predict(lacking).compute()
    np.testing.assert_array_equal(model.predict(unseen), local.predict(unseen))


def test_a_bad_block_of_a_dask_array_is_named(dask_client, shared):
    X, y = frame_of(shared, "iris.csv")
    values = X.to_numpy(dtype=float, copy=True)
    model = qdask.DaskCARTClassifier(client=dask_client).fit(
        da.from_array(values, chunks=(50, -1)), da.from_array(y.to_numpy(), chunks=50)
    )
    values[120, 2] = np.inf
    with pytest.raises(ValueError, match="partition 2 of X: column 'x2' has an infinite value"):
        model.predict(da.from_array(values, chunks=(50, 2))).compute()


@pytest.mark.parametrize(
    "kind", ["CARTClassifier", "RandomForestClassifier"], ids=["tree", "forest"]
)
def test_sample_weights_with_zeros(dask_client, kind, shared):
    """Whole-number weights, zeros among them: a tree leaves the rows of weight 0 out of
    its bins and sums, a forest bins them and leaves them out of every tree, as locally."""
    X, y = frame_of(shared, "credit-a.csv")
    w = pd.Series(np.random.default_rng(5).integers(0, 4, len(y)).astype(float))
    params = {"max_depth": 6, "random_state": 1}
    if kind == "RandomForestClassifier":
        params.update(n_estimators=3, bootstrap="poisson")
    local = getattr(quercus, kind)(**params).fit(X, y, sample_weight=w.to_numpy())
    params.pop("bootstrap", None)
    on_dask = getattr(qdask, "Dask" + kind)(client=dask_client, **params)
    on_dask.fit(*_on_dask(X, y, 3), sample_weight=dd.from_pandas(w, npartitions=3))
    trees = getattr(local, "estimators_", [local])
    for a, b in zip(trees, getattr(on_dask, "estimators_", [on_dask]), strict=True):
        assert_same_tree(a.tree_, b.tree_, skip=("n_node_samples",))
