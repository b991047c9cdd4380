"""Random forests: determinism, out-of-bag estimates, voting, nominal and missing values."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus
from quercus.ensemble import forest as forest_module
from quercus.ensemble.bootstrap import bootstrap_counts
from quercus.ensemble.forest import tree_seeds
from quercus.grow import rows as rows_module
from quercus.grow.rows import distinct_rows


@pytest.fixture(scope="module")
def noisy():
    X, y = make_classification(
        3000, 12, n_informative=6, n_redundant=2, flip_y=0.15, random_state=0
    )
    return train_test_split(X, y, test_size=0.3, random_state=0)


def test_same_forest_for_any_n_jobs(noisy):
    X_train, X_test, y_train, _ = noisy
    one = quercus.RandomForestClassifier(12, random_state=3, n_jobs=1).fit(X_train, y_train)
    two = quercus.RandomForestClassifier(12, random_state=3, n_jobs=2).fit(X_train, y_train)
    assert np.array_equal(one.predict_proba(X_test), two.predict_proba(X_test))
    for a, b in zip(one.estimators_, two.estimators_, strict=True):
        assert a.export_text() == b.export_text()
    other = quercus.RandomForestClassifier(12, random_state=4).fit(X_train, y_train)
    assert not np.array_equal(one.predict_proba(X_test), other.predict_proba(X_test))


def test_prediction_is_the_average_of_the_trees(noisy):
    X_train, X_test, y_train, _ = noisy
    forest = quercus.RandomForestClassifier(7, random_state=0).fit(X_train, y_train)
    average = np.mean([t.predict_proba(X_test) for t in forest.estimators_], axis=0)
    assert np.allclose(forest.predict_proba(X_test), average, atol=1e-12)
    hard = quercus.RandomForestClassifier(7, random_state=0, voting="hard").fit(X_train, y_train)
    votes = np.mean([t.predict(X_test)[:, None] == hard.classes_ for t in hard.estimators_], axis=0)
    assert np.allclose(hard.predict_proba(X_test), votes)
    assert np.array_equal(hard.predict(X_test), hard.classes_[np.argmax(votes, axis=1)])


def test_bootstrap_is_integer_weights_from_the_seed(noisy):
    X_train, _, y_train, _ = noisy
    forest = quercus.RandomForestClassifier(3, random_state=1).fit(X_train, y_train)
    n = len(y_train)
    for tree, seed in zip(forest.estimators_, forest.tree_seeds_, strict=True):
        counts = bootstrap_counts(seed, n, n)
        assert counts.sum() == n  # n draws with replacement
        assert tree.tree_.weighted_n_node_samples[0] == n
        assert tree.tree_.n_node_samples[0] == np.count_nonzero(counts)  # rows, not copies
        assert 0.60 < np.count_nonzero(counts) / n < 0.66  # about 1 - 1/e of the rows


def test_absolute_error_forest_leaves_are_sklearns_weighted_medians():
    # Each tree's nodes hold scikit-learn's leaf value (the weighted median, the midpoint
    # where the cumulative weight reaches exactly half) of its bootstrap sample's rows.
    from sklearn.tree import DecisionTreeRegressor as SkTree

    rng = np.random.default_rng(5)
    n = 80
    X = rng.integers(0, 4, size=(n, 3)).astype(float)
    y = rng.integers(0, 6, n).astype(float)
    w = rng.integers(1, 3, n).astype(float)
    forest = quercus.RandomForestRegressor(
        4, criterion="absolute_error", max_depth=3, random_state=0
    ).fit(X, y, sample_weight=w)
    midpoints = 0
    for tree, seed in zip(forest.estimators_, forest.tree_seeds_, strict=True):
        tree_w = w * bootstrap_counts(seed, n, n)
        reached = tree.decision_path(X).toarray().astype(bool)
        for node in range(tree.tree_.node_count):
            rows = reached[:, node] & (tree_w > 0)
            one_node = SkTree(criterion="absolute_error").fit(
                np.zeros((rows.sum(), 1)), y[rows], sample_weight=tree_w[rows]
            )
            expected = one_node.tree_.value[0, 0, 0]
            assert tree.tree_.leaf_params[node, 0] == pytest.approx(expected, abs=1e-12)
            midpoints += expected != np.round(expected)
    assert midpoints > 0  # the case where the lower median would differ did occur


def test_forest_beats_a_single_tree_on_noisy_data(noisy):
    X_train, X_test, y_train, y_test = noisy
    tree = quercus.CARTClassifier(random_state=0).fit(X_train, y_train)
    forest = quercus.RandomForestClassifier(60, random_state=0, n_jobs=2).fit(X_train, y_train)
    assert forest.score(X_test, y_test) > tree.score(X_test, y_test) + 0.05


def test_oob_score_is_close_to_cross_validated_accuracy(noisy):
    X_train, _, y_train, _ = noisy
    forest = quercus.RandomForestClassifier(80, oob_score=True, random_state=0, n_jobs=2)
    forest.fit(X_train, y_train)
    cv = cross_val_score(
        quercus.RandomForestClassifier(80, random_state=0, n_jobs=2), X_train, y_train, cv=5
    ).mean()
    assert abs(forest.oob_score_ - cv) < 0.03
    assert forest.oob_decision_function_.shape == (len(y_train), 2)
    # Each row's out-of-bag vote is the average over the trees whose sample missed it.
    i = 5
    missed = [
        t
        for t, seed in zip(forest.estimators_, forest.tree_seeds_, strict=True)
        if bootstrap_counts(seed, len(y_train), len(y_train))[i] == 0
    ]
    expected = np.mean([t.predict_proba(X_train[i : i + 1])[0] for t in missed], axis=0)
    assert np.allclose(forest.oob_decision_function_[i], expected)


def test_regressor_oob_and_accuracy():
    X, y = make_regression(1500, 8, n_informative=5, noise=10.0, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    forest = quercus.RandomForestRegressor(50, oob_score=True, random_state=0, n_jobs=2)
    forest.fit(X_train, y_train)
    tree = quercus.CARTRegressor().fit(X_train, y_train)
    assert forest.score(X_test, y_test) > tree.score(X_test, y_test) + 0.1
    assert abs(forest.oob_score_ - forest.score(X_test, y_test)) < 0.08
    average = np.mean([t.predict(X_test) for t in forest.estimators_], axis=0)
    assert np.allclose(forest.predict(X_test), average)


def test_warm_start_adds_the_same_trees(noisy):
    X_train, X_test, y_train, _ = noisy
    grown = quercus.RandomForestClassifier(5, random_state=2, warm_start=True).fit(X_train, y_train)
    first = grown.trees_
    grown.set_params(n_estimators=9).fit(X_train, y_train)
    assert len(grown.estimators_) == 9
    kept = grown.trees_.node_offsets[5]  # the five trees grown first, kept as they were
    assert np.array_equal(grown.trees_.merged.threshold[:kept], first.merged.threshold, True)
    assert np.array_equal(
        grown.trees_.merged.children[: len(first.merged.children)], first.merged.children
    )
    direct = quercus.RandomForestClassifier(9, random_state=2).fit(X_train, y_train)
    assert np.array_equal(grown.predict_proba(X_test), direct.predict_proba(X_test))
    with pytest.raises(ValueError, match="warm_start only adds trees"):
        grown.set_params(n_estimators=4).fit(X_train, y_train)
    assert tree_seeds(7, 0, 3)[2] == tree_seeds(7, 2, 3)[0]


def test_attributes_per_tree(noisy):
    X_train, X_test, y_train, y_test = noisy
    forest = quercus.RandomForestClassifier(
        30, feature_sampling="tree", max_features=4, random_state=0
    ).fit(X_train, y_train)
    for tree in forest.estimators_:
        used = set(tree.tree_.feature[tree.tree_.feature >= 0].tolist())
        assert 1 <= len(used) <= 4
    assert len({frozenset(t.tree_.feature[t.tree_.feature >= 0]) for t in forest.estimators_}) > 5
    assert forest.score(X_test, y_test) > 0.75
    assert np.allclose(
        forest.predict_proba(X_test),
        np.mean([t.predict_proba(X_test) for t in forest.estimators_], axis=0),
    )


def test_nominal_and_missing_values_without_encoding():
    rng = np.random.default_rng(0)
    n = 1200
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    size = rng.normal(size=n)
    y = np.where((colour == "red") | (size > 1.0), "yes", "no")
    X = pd.DataFrame({"colour": colour, "size": size})
    X.loc[rng.random(n) < 0.1, "colour"] = None
    X.loc[rng.random(n) < 0.1, "size"] = np.nan
    for missing in ("learned", "fractional", "majority"):
        forest = quercus.RandomForestClassifier(
            25, max_features=None, missing=missing, nominal_split="multiway", random_state=0
        ).fit(X, y)
        assert forest.score(X, y) > 0.9, missing
        assert forest.schema_["colour"].kind == "nominal"
        proba = forest.predict_proba(X)
        assert np.allclose(proba.sum(axis=1), 1.0)
        if missing == "fractional":  # rows with a missing value mix the leaves they reach
            average = np.mean([t.predict_proba(X) for t in forest.estimators_], axis=0)
            assert np.allclose(proba, average)


def _repeated_rows(regression):
    """Rows drawn from a few hundred distinct ones, with a nominal column and missing values."""
    rng = np.random.default_rng(5)
    base = pd.DataFrame(
        {
            "a": rng.integers(0, 6, 300).astype(float),
            "b": rng.choice(["x", "y", "z"], 300),
            "c": rng.integers(0, 4, 300).astype(float),
        }
    )
    base.loc[rng.random(300) < 0.1, "a"] = np.nan
    target = rng.integers(0, 7, 300)  # integers: every weighted sum is exact
    pick = rng.integers(0, 300, 3000)
    X = base.iloc[pick].reset_index(drop=True)
    y = target[pick].astype(float) if regression else np.array(list("pqr"))[target[pick] % 3]
    return X, y


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("missing", ["fractional", "learned"])
def test_repeated_rows_grow_as_one_weighted_row(regression, missing, monkeypatch):
    X, y = _repeated_rows(regression)
    cls = quercus.RandomForestRegressor if regression else quercus.RandomForestClassifier
    params = dict(n_estimators=6, missing=missing, max_features=2, random_state=0)
    grouped = cls(**params).fit(X, y)
    typed = grouped._validate_X(X, reset=False)
    y_class, y_value, _ = grouped._encode_target(y)
    binned = forest_module.bin_frame(typed, grouped.schema_, grouped.max_bins).binned
    distinct = distinct_rows(binned, y_class, y_value, regression)
    assert distinct.group is not None and len(distinct.binned) < 400  # the rows were grouped
    # The same forest grown on every row as it is.
    monkeypatch.setattr(
        rows_module,
        "distinct_rows",
        lambda b, yc, yv, r: rows_module.DistinctRows(b, yc, yv, None),
    )
    every_row = cls(**params).fit(X, y)
    for a, b in zip(grouped.estimators_, every_row.estimators_, strict=True):
        assert np.array_equal(a.tree_.feature, b.tree_.feature)
        assert np.array_equal(a.tree_.threshold, b.tree_.threshold, equal_nan=True)
        # FRACTIONAL's shares of a weight: one row of weight 3 times a share, against three
        # rows each times the share, can differ in the last bit.
        for field in ("value", "weighted_n_node_samples"):
            assert np.allclose(getattr(a.tree_, field), getattr(b.tree_, field), rtol=1e-12)
        assert (a.tree_.n_node_samples <= b.tree_.n_node_samples).all()
        assert a.tree_.n_node_samples[0] < b.tree_.n_node_samples[0]
    assert np.allclose(
        grouped.predict_proba(X) if not regression else grouped.predict(X),
        every_row.predict_proba(X) if not regression else every_row.predict(X),
        rtol=1e-12,
    )


def test_distinct_rows_weights():
    binned = np.array([[1, 0], [2, 0], [1, 0], [1, 0], [3, 0]] * 3, dtype=np.uint8)
    binned = np.pad(binned, ((0, 0), (0, 6)))  # rows padded to one 8-byte word
    y_class = np.array([0, 0, 0, 1, 0] * 3, dtype=np.int32)
    distinct = distinct_rows(binned, y_class, np.zeros(15), regression=False)
    # Rows 0 and 2 are equal; row 3 has the same codes but another class.
    assert np.array_equal(distinct.group, [0, 1, 0, 2, 3] * 3)
    assert np.array_equal(distinct.binned[:, 0], [1, 2, 1, 3])
    assert np.array_equal(distinct.y_class, [0, 0, 1, 0])
    rows, weight = distinct.weighted(np.arange(15.0))
    assert np.array_equal(rows, [0, 1, 2, 3])
    assert np.array_equal(weight, [0 + 2 + 5 + 7 + 10 + 12, 1 + 6 + 11, 3 + 8 + 13, 4 + 9 + 14])
    rows, weight = distinct.weighted(np.r_[np.zeros(14), 1.0])
    assert np.array_equal(rows, [3]) and np.array_equal(weight, [1.0])
    # No repeats: the rows are kept as they are.
    keep = [0, 1, 3, 4]
    assert distinct_rows(binned[keep], y_class[keep], np.zeros(4), regression=False).group is None


def test_importances_are_the_trees_average(noisy):
    X_train, _, y_train, _ = noisy
    forest = quercus.RandomForestClassifier(10, random_state=0).fit(X_train, y_train)
    expected = np.mean([t.feature_importances_ for t in forest.estimators_], axis=0)
    assert np.allclose(forest.feature_importances_, expected / expected.sum())


def test_parameters_are_checked(noisy):
    X_train, _, y_train, _ = noisy
    for params, message in [
        ({"n_estimators": 0}, "n_estimators must be"),
        ({"feature_sampling": "leaf"}, "feature_sampling must be"),
        ({"voting": "loud"}, "voting must be"),
        ({"bootstrap": False, "oob_score": True}, "oob_score needs bootstrap"),
        ({"max_samples": 1.5}, "max_samples must be"),
        ({"n_jobs": 0}, "n_jobs must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            quercus.RandomForestClassifier(**params).fit(X_train, y_train)


# Bootstrap samples draw rows: a row of weight 2 is not two rows that the draws can separate.
SKIPPED = {
    "check_sample_weight_equivalence_on_dense_data": (
        "bootstrap sampling: a weight is not the same as repeated rows (as scikit-learn's "
        "own random forests)"
    )
}


@parametrize_with_checks(
    [
        quercus.RandomForestClassifier(n_estimators=5, random_state=0),
        quercus.RandomForestRegressor(n_estimators=5, random_state=0),
    ],
    expected_failed_checks=lambda est: SKIPPED,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_trees_keep_no_copy_of_what_the_packed_forest_holds():
    """The forest predicts from its packed tables, made at the first prediction (not in
    fit); its stacked trees keep no routing table or leaf values of their own, and a tree
    taken alone (``estimators_[k]``) makes them only when it is used."""
    X, y = make_classification(800, 5, n_informative=3, random_state=1)
    X[::7, 2] = np.nan
    for sampling in ("node", "tree"):
        forest = quercus.RandomForestClassifier(
            4, feature_sampling=sampling, max_features=2, random_state=0
        ).fit(X, y)
        merged = forest.trees_.merged
        estimators = list(forest.estimators_)
        trees = [e.tree_ for e in estimators]
        assert all(t._routes is None and "_node_values" not in t.__dict__ for t in trees)
        assert forest._packing.tables is None
        average = np.mean([e.predict_proba(X) for e in estimators], axis=0)
        assert np.allclose(forest.predict_proba(X), average)
        assert all(t._routes is not None for t in trees)
        assert merged._routes is None and "_node_values" not in merged.__dict__


def test_compact_layout_routes_missing_values_as_the_trees_do():
    # Numeric splits only: the forest predicts through 16-byte nodes with renumbered
    # children; missing values must still take each split's learned side.
    X, y = make_classification(1500, 6, n_informative=4, random_state=3)
    rng = np.random.default_rng(3)
    X[rng.random(X.shape) < 0.15] = np.nan
    forest = quercus.RandomForestClassifier(15, random_state=0).fit(X, y)
    assert len(forest._packed) == 3  # the compact layout
    average = np.mean([t.predict_proba(X) for t in forest.estimators_], axis=0)
    assert np.allclose(forest.predict_proba(X), average)
    reg = quercus.RandomForestRegressor(10, random_state=0).fit(X, y + 0.5 * (X[:, 0] > 0))
    assert len(reg._packed) == 3
    assert np.allclose(reg.predict(X), np.mean([t.predict(X) for t in reg.estimators_], axis=0))


def test_verbose_draws_a_progress_bar_of_the_trees(capsys):
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    quiet = quercus.RandomForestClassifier(n_estimators=7, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""
    loud = quercus.RandomForestClassifier(n_estimators=7, random_state=0, verbose=2).fit(X, y)
    err = capsys.readouterr().err
    assert "growing trees" in err and "7/7" in err
    np.testing.assert_array_equal(loud.predict_proba(X), quiet.predict_proba(X))
    with pytest.raises(ValueError, match="verbose must be an integer >= 0, got -1"):
        quercus.RandomForestClassifier(verbose=-1).fit(X, y)
