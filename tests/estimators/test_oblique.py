"""Oblique splits (``split="oblique"``): trees whose nodes may test ``w . x <= t``.

The lectures' case for multivariate tests: a class boundary on a diagonal, which an
axis-parallel tree approximates by a staircase of many leaves and an oblique tree draws with
one test. The routing, the exports, the model files and the refusals are checked here; the
search itself in ``tests/splitting/test_oblique_search.py``.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus._config import LEAF, OBLIQUE_SPLIT
from quercus.estimators.params import InvalidParameterError
from quercus.export import explain, export_graphviz, export_rules, export_text
from quercus.persist.model_file import ModelError


def diagonal(n: int, seed: int, noise_features: int = 2):
    """Points in the unit square (and noise features) classed by ``x0 + x1 > 1``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 2 + noise_features))
    return X, (X[:, 0] + X[:, 1] > 1.0).astype(int)


def walk(tree, row) -> int:
    """Twin of the routing kernels: the leaf ``row`` reaches, in plain Python."""
    node = 0
    while tree.kind[node] != LEAF:
        kids = tree.children[tree.child_start[node] : tree.child_start[node] + 2]
        if tree.kind[node] == OBLIQUE_SPLIT:
            w = tree.oblique_weights(node)
            used = np.flatnonzero(w)
            if np.isnan(row[used]).any():
                node = int(kids[tree.missing_child[node]])
                continue
            node = int(
                kids[0] if sum(w[j] * row[j] for j in used) <= tree.threshold[node] else kids[1]
            )
        else:
            v = row[tree.feature[node]]
            if np.isnan(v):
                node = int(kids[tree.missing_child[node]])
            else:
                node = int(kids[0] if v <= tree.threshold[node] else kids[1])
    return node


@pytest.fixture(scope="module")
def diagonal_trees():
    X, y = diagonal(5_000, 0)
    X_test, y_test = diagonal(20_000, 1)
    # The axis-parallel tree gets four times the rows.
    axis = quercus.DecisionTreeClassifier(random_state=0).fit(*diagonal(20_000, 2))
    oblique = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    return X, y, X_test, y_test, axis, oblique


def test_a_diagonal_boundary_takes_a_few_oblique_leaves_or_many_axis_parallel_ones(
    diagonal_trees,
):
    X, y, X_test, y_test, axis, oblique = diagonal_trees
    axis_accuracy = (axis.predict(X_test) == y_test).mean()
    oblique_accuracy = (oblique.predict(X_test) == y_test).mean()
    assert oblique.tree_.n_leaves <= 4
    assert oblique.tree_.kind[0] == OBLIQUE_SPLIT
    assert oblique_accuracy >= 0.995
    # The staircase: on four times the rows the axis-parallel tree grows over a hundred
    # leaves and is still less accurate than the oblique tree's few.
    assert axis.tree_.n_leaves >= 100
    assert oblique_accuracy > axis_accuracy
    # The root's test is the diagonal: equal weights on x0 and x1, next to none on noise.
    w = oblique.tree_.oblique_weights(0)
    assert abs(w[0] / w[1] - 1.0) < 0.05 and np.all(np.abs(w[2:]) < 0.05)
    assert abs(oblique.tree_.threshold[0] / w[0] - 1.0) < 0.05


def test_an_oblique_root_is_never_worse_than_the_best_single_feature_split():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 4))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(scale=1.0, size=600) > 0).astype(int)
    stump = quercus.DecisionTreeClassifier(max_depth=1).fit(X, y).tree_
    tilted = quercus.DecisionTreeClassifier(max_depth=1, split="oblique").fit(X, y).tree_
    assert tilted.impurity_decrease()[0] >= stump.impurity_decrease()[0] - 1e-12
    assert tilted.kind[0] == OBLIQUE_SPLIT  # on noisy linear data the sum wins clearly
    assert tilted.impurity_decrease()[0] > 1.2 * stump.impurity_decrease()[0]


@pytest.mark.parametrize("regression", [False, True])
def test_prediction_walks_the_weights_and_training_rows_reach_their_leaves(regression):
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(400, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    target = np.nan_to_num(X[:, 0] + 2 * X[:, 1], nan=1.0)
    if regression:
        est = quercus.DecisionTreeRegressor(split="oblique", max_depth=4, random_state=1)
        est.fit(X, target)
    else:  # two diagonals: two oblique splits at least
        other = np.nan_to_num(X[:, 0] - X[:, 1], nan=0.0)
        est = quercus.DecisionTreeClassifier(split="oblique", max_depth=4, random_state=1)
        est.fit(X, ((target > 1.4) != (other > 0.2)).astype(int))
    tree = est.tree_
    assert (tree.kind == OBLIQUE_SPLIT).sum() >= 2
    leaves = est.apply(X)
    assert leaves.tolist() == [walk(tree, row) for row in X]
    # Growth partitioned the rows as prediction routes them.
    counts = np.bincount(leaves, minlength=tree.node_count)
    assert (counts[tree.kind == LEAF] == tree.n_node_samples[tree.kind == LEAF]).all()
    path = est.decision_path(X)
    assert (path.indices[path.indptr[1:] - 1] == leaves).all()


def test_same_tree_for_a_seed_and_any_thread_count():
    X, y = diagonal(800, 2)
    y = np.where(np.random.default_rng(0).random(len(y)) < 0.1, 1 - y, y)  # noise: a deep tree
    trees = [
        quercus.DecisionTreeClassifier(split="oblique", random_state=7, n_jobs=jobs).fit(X, y)
        for jobs in (1, 2, 1)
    ]
    for other in trees[1:]:
        assert np.array_equal(other.tree_.oblique, trees[0].tree_.oblique)
        assert np.array_equal(other.tree_.threshold, trees[0].tree_.threshold, equal_nan=True)


def test_nominal_features_keep_their_splits():
    rng = np.random.default_rng(4)
    n = 1_000
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "a": rng.uniform(size=n),
            "b": rng.uniform(size=n),
        }
    )
    y = np.where(X["colour"] == "red", (X["a"] + X["b"] > 1.0), (X["a"] > X["b"])).astype(int)
    est = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    tree = est.tree_
    nominal = tree.feature[tree.kind == 3]  # subset splits
    assert (nominal == 0).any()
    assert (tree.oblique[:, 0] == 0).all()  # no weight on the category codes
    assert (est.predict(X) == y).mean() == 1.0
    assert tree.n_leaves <= 10


def test_exports_show_the_weighted_sum(diagonal_trees):
    X, _, _, _, _, oblique = diagonal_trees
    names = ["x0", "x1", "x2", "x3"]
    w = oblique.tree_.oblique_weights(0)
    text = export_text(oblique, feature_names=names)
    first = text.splitlines()[0]
    assert first.startswith(f"{abs(w[0]):.4g}*x0 ") and "*x1" in first and " <= " in first
    assert "*x1" in export_graphviz(oblique, feature_names=names)
    # Each rule's conditions hold on exactly the training rows of its leaf.
    rules = quercus.export.to_rules(oblique)
    leaves = oblique.apply(X)
    matrix = oblique._predict_matrix(X)
    for rule in rules:
        mask = np.ones(len(X), dtype=bool)
        for condition in rule.conditions:
            mask &= condition.satisfied(matrix)
        assert (mask == (leaves == rule.leaf)).all()
    assert "*x1" in export_rules(oblique)
    assert f"{names[0]}" in explain(oblique, X[0])


def test_model_files_carry_the_weights(tmp_path):
    X, y = diagonal(600, 6)
    X[::40, 1] = np.nan
    est = quercus.DecisionTreeClassifier(split="oblique", random_state=0, ccp_alpha=0.002)
    est.fit(X, y)
    path = est.save(tmp_path / "m.json")
    loaded = quercus.load(path)
    assert np.array_equal(loaded.tree_.oblique, est.tree_.oblique)
    assert (loaded.predict_proba(X) == est.predict_proba(X)).all()
    doc = json.loads(path.read_text())
    assert doc["format_version"] == 5
    assert doc["tree"]["oblique"]["nodes"] == np.flatnonzero(est.tree_.kind == 4).tolist()

    def broken(change, message):
        bad = json.loads(path.read_text())
        change(bad["tree"])
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        with pytest.raises(ModelError, match=message):
            quercus.load(tmp_path / "bad.json")

    broken(lambda t: t.pop("oblique"), "oblique split without its weights")
    broken(lambda t: t["oblique"]["nodes"].append(1), "not the tree's oblique splits")
    broken(lambda t: t["oblique"]["weights"][0].pop(), "one weight per feature")
    broken(lambda t: t["oblique"]["weights"][0].__setitem__(0, None), "must be finite")

    def unweigh_named(t):
        t["oblique"]["weights"][0][t["feature"][0]] = 0.0

    broken(unweigh_named, "weigh the feature it names")


def test_a_weight_on_a_nominal_feature_is_refused(tmp_path):
    X = pd.DataFrame({"c": ["u", "v"] * 50, "a": np.arange(100.0), "b": np.arange(100.0) % 7})
    y = (X["a"] + 3 * X["b"] > 60).astype(int)
    est = quercus.DecisionTreeClassifier(split="oblique", random_state=0, max_depth=2).fit(X, y)
    assert est.tree_.oblique is not None
    doc = json.loads(est.save(tmp_path / "m.json").read_text())
    doc["tree"]["oblique"]["weights"][0][0] = 0.5
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="on numeric features only"):
        quercus.load(tmp_path / "bad.json")


@pytest.mark.parametrize(
    "params, message",
    [
        ({"criterion": "gain_ratio"}, "needs criterion 'gini', 'entropy'"),
        ({"criterion": "twoing"}, "not 'twoing'"),
        ({"lookahead": 1}, "does not combine with lookahead=1"),
        ({"missing": "fractional"}, "does not combine with missing='fractional'"),
        ({"max_leaf_nodes": 8}, "does not combine with max_leaf_nodes=8"),
    ],
)
def test_combinations_it_does_not_take_are_refused(params, message):
    X, y = diagonal(50, 0)
    with pytest.raises(InvalidParameterError, match=message) as error:
        quercus.DecisionTreeClassifier(split="oblique", **params).fit(X, y)
    assert error.value.name == "split"


def test_without_two_numeric_features_it_warns_and_grows_the_axis_tree():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": rng.choice(list("abc"), 200), "a": rng.uniform(size=200)})
    y = ((X["c"] == "a") ^ (X["a"] > 0.5)).astype(int)
    with pytest.warns(
        UserWarning, match=r"split='oblique' combines numeric features, and X has 1 \('a'\)"
    ):
        tilted = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    plain = quercus.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert tilted.tree_.oblique is None
    assert np.array_equal(tilted.tree_.feature, plain.tree_.feature)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # two numeric features: no warning
        quercus.DecisionTreeClassifier(split="oblique").fit(diagonal(50, 0)[0], diagonal(50, 0)[1])


def test_gain_tables_say_why_not(diagonal_trees):
    X, y, _, _, _, oblique = diagonal_trees
    with pytest.raises(NotImplementedError, match="oblique splits"):
        oblique.gain_table(X, y)


def test_report_of_an_oblique_tree_with_integer_classes(tmp_path, diagonal_trees):
    X, y, _, _, _, oblique = diagonal_trees
    path = tmp_path / "report.html"
    oblique.report(X[:500], y[:500], path)
    page = path.read_text()
    assert "oblique split is searched over weighted sums" in page
    assert "*x1" in page


@pytest.mark.parametrize("version", [1, 2])
def test_files_of_older_versions_load_without_the_split_parameter(tmp_path, version):
    X, y = diagonal(200, 8)
    est = quercus.DecisionTreeClassifier(max_depth=3).fit(X, y)
    doc = json.loads(est.save(tmp_path / "m.json").read_text())
    del doc["params"]["split"]
    if version == 1:
        del doc["params"]["lookahead"]
    doc["format_version"] = version
    (tmp_path / "old.json").write_text(json.dumps(doc))
    loaded = quercus.load(tmp_path / "old.json")
    assert loaded.split == "axis"
    assert (loaded.predict(X) == est.predict(X)).all()


def test_a_large_full_depth_oblique_tree_warns_of_its_time(monkeypatch):
    from quercus.estimators import base

    monkeypatch.setattr(base, "OBLIQUE_WARN_SIZE", 999)
    X, y = diagonal(250, 0)  # 250 rows x 4 numeric features = 1,000
    with pytest.warns(UserWarning, match="on 250 rows and 4 numeric features"):
        quercus.DecisionTreeClassifier(split="oblique").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a bounded depth: no warning
        quercus.DecisionTreeClassifier(split="oblique", max_depth=3).fit(X, y)


def test_a_large_node_steers_by_a_sample_and_places_the_threshold_on_every_row(monkeypatch):
    from quercus.splitting import oblique

    monkeypatch.setattr(oblique, "OBLIQUE_SAMPLE", 1_000)
    X, y = diagonal(3_000, 0)
    X_test, y_test = diagonal(20_000, 1)
    fits = [
        quercus.DecisionTreeClassifier(split="oblique", random_state=3).fit(X, y) for _ in range(2)
    ]
    tree = fits[0].tree_
    assert np.array_equal(tree.oblique, fits[1].tree_.oblique)  # the sample is seeded
    assert tree.kind[0] == OBLIQUE_SPLIT and tree.n_leaves <= 8
    assert (fits[0].predict(X_test) == y_test).mean() >= 0.99
    # The threshold is the best one along the root's direction over all 3,000 rows.
    w = tree.oblique_weights(0)
    sums = np.sort(X @ w)
    cuts = (sums[1:] + sums[:-1]) / 2

    def gini_after(t):
        left = X @ w <= t
        cost = 0.0
        for side in (left, ~left):
            p = y[side].mean()
            cost += side.sum() * 2 * p * (1 - p)
        return cost

    best = min(gini_after(t) for t in cuts[::7])  # every 7th cut: a thorough sweep
    assert gini_after(tree.threshold[0]) <= best + 1e-9
