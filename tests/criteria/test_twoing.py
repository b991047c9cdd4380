"""Breiman's twoing criterion (CART, 1984, section 4.2).

For a binary split with sides L and R, ``twoing = p_L p_R / 4 * (sum_k |p(k|L) - p(k|R)|)^2``.
A tree grown with ``criterion="twoing"`` ranks splits by that value, records each node's Gini
index as its impurity, and refuses multiway splits. The trees are checked against the formula
computed by hand (exact fractions) on random data and on a worked example.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import quercus
from quercus.criteria import registry
from quercus.grow import grower, levelwise


def exact_twoing(left, right):
    """The twoing value of two sides' integer class weights, as an exact fraction."""
    wl, wr = sum(left), sum(right)
    w = wl + wr
    spread = sum(abs(Fraction(a, wl) - Fraction(b, wr)) for a, b in zip(left, right, strict=True))
    return Fraction(wl, w) * Fraction(wr, w) / 4 * spread * spread


def brute_force_root(X, y, w, n_classes):
    """Every feature, every cut between adjacent distinct values, scored by hand:
    ``(best feature, (value left of the cut, value right of it), best twoing per feature)``,
    ties to the lowest feature, then the lowest cut."""
    best, best_cut, per_feature = None, None, []
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        feature_best = None
        for lo, hi in zip(values[:-1], values[1:], strict=True):
            left = X[:, f] <= lo
            counts_l = [int(w[left & (y == k)].sum()) for k in range(n_classes)]
            counts_r = [int(w[~left & (y == k)].sum()) for k in range(n_classes)]
            value = exact_twoing(counts_l, counts_r)
            if feature_best is None or value > feature_best:
                feature_best = value
            if best is None or value > best:
                best, best_cut = value, (f, lo, hi)
        per_feature.append(feature_best)
    return best_cut, per_feature


@pytest.mark.parametrize("seed", range(25))
def test_root_split_is_the_brute_force_argmax(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 60))
    n_classes = int(rng.integers(2, 5))
    columns = [
        np.round(rng.normal(size=n), 1),  # a continuous feature with some repeated values
        rng.integers(0, 4, size=n).astype(float),  # few values: ties between cuts
        rng.integers(0, 12, size=n).astype(float),
        np.round(rng.exponential(size=n), 2),
    ]
    X = np.column_stack(columns[: int(rng.integers(2, 5))])
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    w = rng.integers(1, 4, size=n)
    tree = quercus.DecisionTreeClassifier(criterion="twoing", max_depth=1, max_bins=None)
    tree.fit(X, y, sample_weight=w.astype(float), trace=True)
    (f, lo, hi), per_feature = brute_force_root(X, y, w, n_classes)
    assert tree.tree_.feature[0] == f
    assert lo <= tree.tree_.threshold[0] < hi
    # the gain each feature's best cut recorded is that cut's twoing value
    gains = tree.trace_.node(0)["gain"].to_numpy()
    np.testing.assert_allclose(gains, [float(v) for v in per_feature], rtol=1e-12, atol=1e-15)
    assert tree.trace_.gain_name == "twoing"


def test_worked_example():
    # Seven rows, x = 1..7, classes a a b a b b c; the root node has class weights
    # (a, b, c) = (3, 3, 1).
    #
    # cut       left (a,b,c)  right (a,b,c)  p_L p_R   sum_k |p(k|L) - p(k|R)|      twoing
    # x <= 1.5  (1,0,0)       (2,3,1)        1/7 6/7   2/3 + 1/2 + 1/6 = 4/3       8/147 = 0.054
    # x <= 2.5  (2,0,0)       (1,3,1)        2/7 5/7   4/5 + 3/5 + 1/5 = 8/5      32/245 = 0.131
    # x <= 3.5  (2,1,0)       (1,2,1)        3/7 4/7   5/12 + 1/6 + 1/4 = 5/6     25/588 = 0.043
    # x <= 4.5  (3,1,0)       (0,2,1)        4/7 3/7   3/4 + 5/12 + 1/3 = 3/2     27/196 = 0.138
    # x <= 5.5  (3,2,0)       (0,1,1)        5/7 2/7   3/5 + 1/10 + 1/2 = 6/5     18/245 = 0.073
    # x <= 6.5  (3,3,0)       (0,0,1)        6/7 1/7   1/2 + 1/2 + 1 = 2           6/49 = 0.122
    #
    # e.g. x <= 4.5: 4/7 * 3/7 / 4 * (3/2)^2 = 12/49 * 1/4 * 9/4 = 27/196.
    # Twoing cuts at 4.5, separating {a} from {b, c}. Gini cuts at 2.5, isolating the pure
    # a's: its decrease there is 30/49 - 5/7 * 14/25 = 52/245 = 0.212, against
    # 30/49 - (4/7 * 3/8 + 3/7 * 4/9) = 61/294 = 0.207 at 4.5.
    x = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7]})
    y = list("aababbc")
    twoing = quercus.DecisionTreeClassifier(criterion="twoing", max_depth=1).fit(x, y, trace=True)
    gini = quercus.DecisionTreeClassifier(criterion="gini", max_depth=1).fit(x, y, trace=True)
    assert twoing.tree_.threshold[0] == 4.5
    assert gini.tree_.threshold[0] == 2.5
    assert twoing.trace_.node(0)["gain"][0] == pytest.approx(27 / 196, rel=1e-14)
    assert gini.trace_.node(0)["gain"][0] == pytest.approx(52 / 245, rel=1e-14)
    # The nodes record their Gini index: the root 1 - (9 + 9 + 1) / 49, the children
    # 1 - (9 + 1) / 16 and 1 - (4 + 1) / 9.
    np.testing.assert_allclose(twoing.tree_.impurity, [30 / 49, 3 / 8, 4 / 9], rtol=1e-14)
    # The twin agrees with the table, and the kernel with the twin.
    assert registry.get("twoing").split_gain([[3, 1, 0], [0, 2, 1]]) == pytest.approx(27 / 196)
    assert exact_twoing([3, 1, 0], [0, 2, 1]) == Fraction(27, 196)
    # min_impurity_decrease compares the weighted twoing value of a split.
    stump = quercus.DecisionTreeClassifier(criterion="twoing", min_impurity_decrease=0.14)
    assert stump.fit(x, y).tree_.node_count == 1


def test_two_classes_twoing_is_half_the_gini_decrease():
    # With two classes, sum_k |p(k|L) - p(k|R)| = 2 |p(1|L) - p(1|R)|, and the twoing value
    # p_L p_R (p(1|L) - p(1|R))^2 is half the Gini decrease: the same splits win.
    frame = quercus.datasets.load("restaurant")
    target = frame.columns[-1]
    X, y = frame.drop(columns=target), frame[target]
    twoing = quercus.DecisionTreeClassifier(criterion="twoing").fit(X, y, trace=True)
    gini = quercus.DecisionTreeClassifier(criterion="gini").fit(X, y, trace=True)
    np.testing.assert_allclose(
        twoing.trace_.candidates["gain"], gini.trace_.candidates["gain"] / 2, rtol=1e-12
    )
    for field in ("feature", "threshold", "cat_table", "value", "impurity"):
        np.testing.assert_array_equal(getattr(twoing.tree_, field), getattr(gini.tree_, field))


@pytest.mark.parametrize("missing", ["learned", "majority", "class_majority", "fractional"])
def test_missing_values_and_nominal_features(missing):
    rng = np.random.default_rng(7)
    n = 300
    frame = pd.DataFrame(
        {
            "size": rng.normal(size=n),
            "colour": pd.Categorical(rng.choice(list("rgbyk"), size=n)),
        }
    )
    y = np.where(frame["colour"].isin(["r", "g"]), 0, np.where(frame["size"] > 0, 1, 2))
    frame.loc[rng.random(n) < 0.15, "size"] = np.nan
    frame.loc[rng.random(n) < 0.15, "colour"] = np.nan
    tree = quercus.DecisionTreeClassifier(criterion="twoing", missing=missing, max_depth=4)
    tree.fit(frame, y, trace=True)
    gains = tree.trace_.candidates["gain"].dropna()
    assert len(gains) > 0 and (gains >= 0).all() and (gains <= 0.25 + 1e-12).all()
    assert tree.score(frame, y) > 0.8
    # the nominal root splits the classes' groups: r and g against the rest
    root = tree.tree_
    assert root.kind[0] == 3 and tree.feature_names_in_[root.feature[0]] == "colour"


def test_forest():
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(80, 3)), 1)
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    w = np.ones(len(y), dtype=np.int64)
    forest = quercus.RandomForestClassifier(
        criterion="twoing",
        n_estimators=3,
        bootstrap=False,
        max_features=None,
        max_depth=1,
        max_bins=None,
        random_state=0,
    ).fit(X, y)
    (f, lo, hi), _ = brute_force_root(X, y, w, 3)
    for member in forest.estimators_:
        assert member.tree_.feature[0] == f and lo <= member.tree_.threshold[0] < hi
    bagged = quercus.RandomForestClassifier(criterion="twoing", n_estimators=5, random_state=0)
    assert bagged.fit(X, y).score(X, y) > 0.9


def test_saved_and_loaded(tmp_path):
    X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7]})
    y = list("aababbc")
    tree = quercus.DecisionTreeClassifier(criterion="twoing").fit(X, y)
    tree.save(tmp_path / "twoing.model")
    loaded = quercus.load(tmp_path / "twoing.model")
    assert loaded.criterion == "twoing"
    np.testing.assert_array_equal(loaded.predict_proba(X), tree.predict_proba(X))


def test_binary_splits_only():
    record = registry.get("twoing")
    assert record.code == registry.TWOING and not record.multiway
    assert record.impurity is registry.get("gini").impurity
    with pytest.raises(ValueError, match="binary splits only, got 3 branches"):
        record.split_gain([[1, 0], [0, 1], [1, 1]])
    X = pd.DataFrame({"colour": ["r", "g", "b", "r"]})
    for estimator in (
        quercus.DecisionTreeClassifier(criterion="twoing", nominal_split="multiway"),
        quercus.C45Classifier(criterion="twoing"),
        quercus.RandomForestClassifier(criterion="twoing", nominal_split="multiway"),
    ):
        with pytest.raises(quercus.InvalidParameterError, match="binary splits only") as error:
            estimator.fit(X, [0, 1, 1, 0])
        assert error.value.name == "criterion"
    with pytest.raises(quercus.InvalidParameterError, match="criterion must be one of"):
        quercus.DecisionTreeRegressor(criterion="twoing").fit(X.assign(colour=1.0), [1.0] * 4)
    assert "'twoing'" in quercus.DecisionTreeClassifier.__doc__


def test_level_wise_growth_grows_the_same_tree(monkeypatch):
    # The level-wise grower (the one a distributed statistics provider drives) finds splits
    # with the same criteria kernels: twoing needs nothing of its own there.
    rng = np.random.default_rng(11)
    n = 400
    frame = pd.DataFrame(
        {
            "a": np.round(rng.normal(size=n), 2),
            "b": rng.integers(0, 5, size=n).astype(float),
            "colour": pd.Categorical(rng.choice(list("rgbyk"), size=n)),
        }
    )
    y = (frame["a"] > 0).astype(int) + frame["colour"].isin(["r", "g"]) + (frame["b"] > 3)
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    estimator = quercus.DecisionTreeClassifier(criterion="twoing", min_samples_leaf=3)
    compiled = clone(estimator).fit(frame, y)
    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", levelwise.grow_local)
        level_wise = clone(estimator).fit(frame, y)
    assert compiled.tree_.node_count == level_wise.tree_.node_count > 9
    for field in ("feature", "threshold", "cat_table", "missing_child", "value", "impurity"):
        np.testing.assert_array_equal(
            getattr(compiled.tree_, field), getattr(level_wise.tree_, field), err_msg=field
        )
