"""Training rows on a Dask cluster (``distributed/rows.DaskRows``) answer as the rows in
this process do (``grow/rows.LocalRows``): the same scores row by row, the same trees on
the same working targets, the same sums; the scores and working targets stay on the
workers."""

from __future__ import annotations

import numpy as np
import pytest

import quercus

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from _trees import frame_of, with_missing  # noqa: E402

from _helpers import assert_same_tree  # noqa: E402
from quercus.binning.binned import bin_frame  # noqa: E402
from quercus.distributed.ingest import ingest  # noqa: E402
from quercus.distributed.rows import DaskRows  # noqa: E402
from quercus.estimators.params import shallow_params  # noqa: E402
from quercus.estimators.spec import DataFacts, growth_spec  # noqa: E402
from quercus.estimators.validate import typed_rows  # noqa: E402
from quercus.grow.rows import LocalRows, TreePlan  # noqa: E402


def newton(y_class, y_value, w, scores):
    """Log-loss's Newton step of class 1 against the rest: working target and weight."""
    p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
    positive = (y_class == 1).astype(float)
    return (positive - p) / (p * (1 - p)), w * p * (1 - p)


def both_rows(dask_client, X, y, n_parts):
    """The same rows in this process and on the cluster, and a forest fitted on them."""
    forest = quercus.RandomForestClassifier(4, max_bins=255, random_state=0).fit(X, y)
    dX, dy = dd.from_pandas(X, npartitions=n_parts), dd.from_pandas(y, npartitions=n_parts)
    ingested = ingest(dask_client, dX, dy, None, max_bins=255, regression=False)
    on_cluster = DaskRows(dask_client, ingested, subtree_bytes=0)
    data = bin_frame(typed_rows(forest, X), forest.schema_, 255)
    classes = np.searchsorted(forest.classes_, np.asarray(y)).astype(np.int32)
    local = LocalRows(data, classes, np.zeros(len(y)), np.ones(len(y)), False)
    return forest, local, on_cluster


def gathered(client, futures) -> np.ndarray:
    return np.concatenate(client.gather(futures))


@pytest.mark.parametrize("n_parts", [1, 3])
def test_dask_rows_answer_as_the_local_rows(dask_client, shared, n_parts):
    X, y = frame_of(shared, "credit-a.csv")
    X = with_missing(X, 0.05, seed=2)
    forest, local, on_cluster = both_rows(dask_client, X, y, n_parts)
    values = forest.trees_.merged.leaf_values()[:, 1:] - 0.5
    for rows in (local, on_cluster):
        rows.start_scores([0.1])
        rows.add_scores(forest.trees_, values)
    np.testing.assert_array_equal(gathered(dask_client, on_cluster.scores), local.scores)

    def loss(y_class, y_value, w, scores):
        p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
        return np.array([len(w), -np.sum(w * np.log(np.where(y_class == 1, p, 1 - p)))])

    np.testing.assert_allclose(on_cluster.reduce(loss), local.reduce(loss), rtol=1e-12)

    for rows in (local, on_cluster):
        rows.retarget(newton)
    work = gathered(
        dask_client, [dask_client.submit(lambda w: w[1], f) for f in on_cluster.working]
    )
    np.testing.assert_array_equal(work, local.working[1])
    regressor = quercus.DecisionTreeRegressor(max_depth=4, min_samples_leaf=5)
    n_bins = local.tables.mapper.n_bins
    facts = DataFacts(len(n_bins), float(local.working[1].sum()), 3, int(n_bins.max()))
    spec = growth_spec(shallow_params(regressor), True, facts, seed=7)
    plans = [TreePlan(0, 7)]
    (here,) = local.grow(spec, plans)
    (there,) = on_cluster.grow(spec, plans)
    assert here.node_count > 7
    # Sums of targets and weights added in another order: the last bits may differ.
    assert_same_tree(here, there, close=("value", "impurity", "weighted_n_node_samples"), rtol=1e-9)
    assert on_cluster.levels  # the passes were recorded
