"""Tree estimators: properties that must hold, stopping rules, nominal and missing values."""

import itertools

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_iris, make_classification

import quercus
from quercus.estimators.validate import classes_and_codes


@st.composite
def consistent_data(draw):
    """Random mixed data whose label is a function of the features (so it is consistent)."""
    n = draw(st.integers(2, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    num = rng.integers(0, draw(st.integers(1, 6)), n).astype(float)
    nom = rng.choice(list("abcd"), n)
    other = rng.normal(size=n).round(1) + 0.0  # no -0.0: it equals 0.0 but prints apart
    frame = pd.DataFrame({"num": num, "nom": nom, "other": other})
    key = frame.astype(str).agg("|".join, axis=1)
    codes = pd.factorize(key)[0]
    y = rng.integers(0, draw(st.integers(1, 3)), codes.max() + 1)[codes]
    return frame, y


@pytest.mark.parametrize(
    "preset", [quercus.ID3Classifier, quercus.CARTClassifier, quercus.DecisionTreeClassifier]
)
@given(data=consistent_data())
@settings(max_examples=40, deadline=None)
def test_full_tree_fits_consistent_data(preset, data):
    frame, y = data
    est = preset(random_state=0).fit(frame, y)
    assert (est.predict(frame) == y).all()


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio", "misclassification"])
def test_full_tree_fits_consistent_numeric_data(criterion):
    X, y = make_classification(500, 6, random_state=1)
    est = quercus.DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    assert est.score(X, y) == 1.0


def _leaf_counts(X, y, **params):
    return [
        quercus.DecisionTreeClassifier(min_samples_leaf=m, random_state=0, **params)
        .fit(X, y)
        .get_n_leaves()
        for m in (1, 2, 3, 5, 8, 13, 21)
    ]


@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_raising_min_samples_leaf_never_adds_leaves(loader):
    X, y = loader(return_X_y=True)
    counts = _leaf_counts(X, y)
    assert counts == sorted(counts, reverse=True)


def test_raising_min_samples_leaf_never_adds_leaves_noisy():
    X, y = make_classification(2000, 10, flip_y=0.2, random_state=0)
    counts = _leaf_counts(X, y)
    assert counts == sorted(counts, reverse=True)


def test_same_seed_same_tree_on_one_or_two_threads():
    X, y = make_classification(30_000, 12, random_state=0)
    trees = []
    for threads in (1, 2):
        numba.set_num_threads(threads)
        est = quercus.DecisionTreeClassifier(max_features="sqrt", random_state=7).fit(X, y)
        trees.append((est.tree_, est.predict_proba(X)))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    (a, pa), (b, pb) = trees
    for field in ("feature", "threshold", "children", "value"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(pa, pb)
    other = quercus.DecisionTreeClassifier(max_features="sqrt", random_state=8).fit(X, y)
    assert not np.array_equal(other.tree_.feature, a.feature)


def test_stopping_rules():
    X, y = make_classification(2000, 8, flip_y=0.1, random_state=0)
    assert quercus.CARTClassifier(max_depth=3).fit(X, y).get_depth() == 3
    est = quercus.CARTClassifier(max_leaf_nodes=17).fit(X, y)
    assert est.get_n_leaves() == 17
    est = quercus.CARTClassifier(min_samples_leaf=40).fit(X, y)
    leaves = est.tree_.kind == 0
    assert est.tree_.weighted_n_node_samples[leaves].min() >= 40
    est = quercus.CARTClassifier(min_samples_split=200).fit(X, y)
    inner = est.tree_.kind != 0
    assert est.tree_.weighted_n_node_samples[inner].min() >= 200
    shallow = quercus.CARTClassifier(min_impurity_decrease=0.01).fit(X, y)
    assert shallow.get_n_leaves() < quercus.CARTClassifier().fit(X, y).get_n_leaves()


def test_best_first_matches_sklearn_leaf_budget():
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, y = load_breast_cancer(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    for leaves in (2, 5, 10):
        ours = quercus.CARTClassifier(max_leaf_nodes=leaves).fit(X, y)
        theirs = SkTree(max_leaf_nodes=leaves, random_state=0).fit(X, y)
        assert ours.get_n_leaves() == theirs.get_n_leaves() == leaves
        assert ours.score(X, y) == pytest.approx(theirs.score(X, y))


def _best_partition_by_brute_force(x, y, regression):
    cats = sorted(set(x))
    best = np.inf
    for r in range(1, len(cats)):
        for left in itertools.combinations(cats, r):
            mask = np.isin(x, left)
            parts = [y[mask], y[~mask]]
            if regression:
                cost = sum(((p - p.mean()) ** 2).sum() for p in parts)
            else:
                cost = sum(
                    len(p) * (1 - ((np.bincount(p, minlength=2) / len(p)) ** 2).sum())
                    for p in parts
                )
            best = min(best, cost)
    return best


@pytest.mark.parametrize("regression", [False, True])
@given(seed=st.integers(0, 10**6), k=st.integers(2, 7))
@settings(max_examples=40, deadline=None)
def test_binary_subset_split_is_exhaustive_optimum(regression, seed, k):
    rng = np.random.default_rng(seed)
    x = rng.choice([f"c{i}" for i in range(k)], 80)
    if regression:
        y = rng.normal(size=80) + (np.char.count(x.astype(str), "3") * 2)
        est = quercus.CARTRegressor(max_depth=1)
    else:
        y = rng.integers(0, 2, 80)
        est = quercus.CARTClassifier(max_depth=1)
    frame = pd.DataFrame({"x": x})
    est.fit(frame, y)
    tree = est.tree_
    if tree.node_count == 1:
        assert len(set(x)) < 2 or len(set(y)) < 2
        return
    leaves = est.apply(frame)
    parts = [y[leaves == leaf] for leaf in np.unique(leaves)]
    if regression:
        cost = sum(((p - p.mean()) ** 2).sum() for p in parts)
    else:
        cost = sum(
            len(p) * (1 - ((np.bincount(p, minlength=2) / len(p)) ** 2).sum()) for p in parts
        )
    assert cost == pytest.approx(_best_partition_by_brute_force(x, y, regression), abs=1e-9)


def test_missing_values_go_to_the_heaviest_branch():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 10.0, 11.0, np.nan], "c": list("aabbb") + [None]})
    y = np.array([0, 0, 1, 1, 1, 1])
    est = quercus.CARTClassifier().fit(frame[["x"]], y)
    root = est.tree_
    assert root.feature[0] == 0 and root.threshold[0] == 2.5
    # Known rows: 2 left, 3 right; the NaN row joins the heavier right branch.
    right = root.children[root.child_start[0] + 1]
    assert root.missing_child[0] == 1 and root.n_node_samples[right] == 4
    assert est.predict(pd.DataFrame({"x": [np.nan]}))[0] == 1
    # Nominal with missing and an unseen category at prediction time: no crash.
    est = quercus.ID3Classifier().fit(frame[["c"]], y)
    proba = est.predict_proba(pd.DataFrame({"c": ["zzz", None, "a"]}))
    assert proba.shape == (3, 2) and np.allclose(proba.sum(axis=1), 1)


def test_gain_ratio_keeps_to_above_average_gain():
    # 'rare' isolates one example (tiny split info, high ratio, low gain); 'good' has a large
    # gain. Plain gain ratio would pick 'rare'; C4.5's average-gain filter picks 'good'.
    n = 40
    good = np.array(["p"] * 20 + ["q"] * 20)
    y = np.array([0] * 13 + [1] * 7 + [0] * 7 + [1] * 13)
    rare = np.array(["r"] * (n - 1) + ["s"])
    frame = pd.DataFrame({"rare": rare, "good": good})
    g = quercus.gain_table(frame, y)
    assert g.loc["rare", "gain_ratio"] > g.loc["good", "gain_ratio"]  # the trap is real
    assert g.loc["rare", "information_gain"] < g["information_gain"].mean()
    est = quercus.C45Classifier(min_samples_leaf=1).fit(frame, y)
    assert est.schema_.names[est.tree_.feature[0]] == "good"


def test_weights_class_weight_and_importances():
    X, y = make_classification(300, 5, random_state=3)
    weights = np.random.default_rng(0).integers(1, 4, len(y))
    a = quercus.CARTClassifier().fit(X, y, sample_weight=weights)
    b = quercus.CARTClassifier().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_allclose(a.tree_.threshold, b.tree_.threshold)
    from sklearn.utils.class_weight import compute_sample_weight

    c = quercus.CARTClassifier(class_weight="balanced").fit(X[:250], y[:250])
    d = quercus.CARTClassifier().fit(
        X[:250], y[:250], sample_weight=compute_sample_weight("balanced", y[:250])
    )
    np.testing.assert_array_equal(c.tree_.feature, d.tree_.feature)
    imp = a.feature_importances_
    assert imp.shape == (5,) and imp.sum() == pytest.approx(1.0)
    unused = set(range(5)) - set(a.tree_.feature[a.tree_.feature >= 0])
    assert all(imp[j] == 0 for j in unused)


def test_apply_and_decision_path_agree():
    X, y = load_iris(return_X_y=True)
    est = quercus.CARTClassifier().fit(X, y)
    leaves = est.apply(X)
    path = est.decision_path(X)
    assert path.shape == (150, est.tree_.node_count)
    for i in (0, 60, 149):
        nodes = path[i].indices
        assert nodes[0] == 0 and nodes[-1] == leaves[i]
        assert len(nodes) == est.tree_.depth[leaves[i]] + 1


def test_regression_tree_recovers_steps():
    x = np.linspace(0, 10, 200)
    y = np.where(x < 3, 1.0, np.where(x < 7, 5.0, 2.0))
    est = quercus.CARTRegressor().fit(x[:, None], y)
    assert est.get_n_leaves() == 3
    assert sorted(est.tree_.threshold[est.tree_.kind != 0].round(1)) == [3.0, 7.0]
    assert est.score(x[:, None], y) == 1.0


def test_parameter_errors_name_the_parameter():
    X, y = load_iris(return_X_y=True)
    for params, name in [
        ({"criterion": "chaos"}, "criterion"),
        ({"nominal_split": "ternary"}, "nominal_split"),
        ({"max_depth": -1}, "max_depth"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_split": 1}, "min_samples_split"),
        ({"max_features": "all"}, "max_features"),
        ({"max_bins": 1}, "max_bins"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
        ({"min_impurity_decrease": -1}, "min_impurity_decrease"),
    ]:
        with pytest.raises(ValueError, match=name):
            quercus.DecisionTreeClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        quercus.DecisionTreeRegressor(criterion="gini").fit(X, y)


def test_absolute_error_matches_sklearn():
    from sklearn.datasets import load_diabetes
    from sklearn.tree import DecisionTreeRegressor as SkTree

    X, y = load_diabetes(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    for depth in (1, 2, 4):
        ours = quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=depth)
        theirs = SkTree(criterion="absolute_error", max_depth=depth, random_state=0)
        ours.fit(X, y)
        theirs.fit(X, y)
        # Equal training error (a tie between features may pick another split of equal gain).
        assert np.abs(ours.predict(X) - y).mean() == pytest.approx(
            np.abs(theirs.predict(X) - y).mean(), rel=1e-12
        )
        assert ours.tree_.feature[0] == theirs.tree_.feature[0]


def _mae_stump_by_brute_force(x, y, w):
    def dev(mask):
        ys, ws = y[mask], w[mask]
        best = min(np.sum(ws * np.abs(ys - m)) for m in ys)  # a median is one of the values
        return best

    cuts = np.unique(x)[:-1]
    return min(dev(x <= c) + dev(x > c) for c in cuts)


@given(seed=st.integers(0, 10**6), n=st.integers(4, 40))
@settings(max_examples=40, deadline=None)
def test_absolute_error_stump_is_optimal(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, n).astype(float)
    y = rng.integers(0, 20, n).astype(float)
    w = rng.integers(1, 4, n).astype(float)
    est = quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=1)
    est.fit(x[:, None], y, sample_weight=w)
    if len(np.unique(x)) < 2:
        return
    if est.tree_.node_count == 1:  # only a pure node stays unsplit
        assert len(np.unique(y)) == 1
        return
    leaves = est.apply(x[:, None])
    cost = sum(
        np.sum(w[leaves == leaf] * np.abs(y[leaves == leaf] - est.tree_.leaf_params[leaf, 0]))
        for leaf in np.unique(leaves)
    )
    assert cost == pytest.approx(_mae_stump_by_brute_force(x, y, w), abs=1e-9)


def _sklearn_leaf_value(y, w):
    """scikit-learn's value of a leaf holding targets ``y`` with weights ``w``: the root of
    its absolute-error tree on a constant feature, which cannot split."""
    from sklearn.tree import DecisionTreeRegressor as SkTree

    one_node = SkTree(criterion="absolute_error").fit(np.zeros((len(y), 1)), y, sample_weight=w)
    assert one_node.tree_.node_count == 1
    return float(one_node.tree_.value[0, 0, 0])


def _assert_node_medians_are_sklearns(tree, X, y, w):
    """Every node of ``tree`` (an estimator) holds scikit-learn's leaf value of the training
    rows that reach it, with their weights."""
    reached = tree.decision_path(X).toarray().astype(bool)
    for node in range(tree.tree_.node_count):
        rows = reached[:, node] & (w > 0)
        expected = _sklearn_leaf_value(y[rows], w[rows])
        assert tree.tree_.leaf_params[node, 0] == pytest.approx(expected, abs=1e-12), node


@pytest.mark.parametrize(
    "w",
    [
        None,
        np.array([1, 2, 1, 2, 3, 1, 1, 3], dtype=float),  # half the weight at 1.1 and at 6
        np.array([1, 1, 2, 3, 1, 1, 1, 1], dtype=float),  # left: no cut at half, 1.2 alone
    ],
)
def test_absolute_error_leaf_is_sklearns_weighted_median(w):
    # Between two middle values, scikit-learn's leaf predicts their midpoint (1.15, 6.5).
    from sklearn.tree import DecisionTreeRegressor as SkTree

    X = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=float)[:, None]
    y = np.array([1.0, 1.1, 1.2, 1.3, 5.0, 6.0, 7.0, 8.0])
    ours = quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=1)
    theirs = SkTree(criterion="absolute_error", max_depth=1)
    ours.fit(X, y, sample_weight=w)
    theirs.fit(X, y, sample_weight=w)
    assert ours.tree_.threshold[0] == theirs.tree_.threshold[0] == 0.5
    sides = np.array([[0.0], [1.0]])
    np.testing.assert_allclose(ours.predict(sides), theirs.predict(sides), rtol=0, atol=1e-12)
    assert ours.predict(sides)[0] == pytest.approx(1.15 if w is None or w[1] == 2 else 1.2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_absolute_error_nodes_are_sklearns_weighted_medians_grown_and_pruned(seed):
    # Small integer targets and weights: a node's cumulative weight often reaches exactly
    # half, where the midpoint and the lower median differ.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(60, 3)).astype(float)
    y = rng.integers(0, 8, 60).astype(float)
    w = rng.integers(0, 4, 60).astype(float)
    for weights in (None, w):
        est = quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=3)
        est.fit(X, y, sample_weight=weights)
        unit = np.ones(len(y)) if weights is None else weights
        _assert_node_medians_are_sklearns(est, X, y, unit)
        pruned = quercus.DecisionTreeRegressor(criterion="absolute_error", ccp_alpha=0.2)
        pruned.fit(X, y, sample_weight=weights)
        assert pruned.get_n_leaves() < pruned.tree_grown_.n_leaves
        _assert_node_medians_are_sklearns(pruned, X, y, unit)


def test_ordinal_feature_splits_along_its_levels():
    levels = ["low", "mid", "high", "top"]
    size = np.array(["low", "top", "mid", "high", "low", "top", "mid", "high"] * 5)
    y = np.isin(size, ["high", "top"]).astype(int)  # a threshold between mid and high
    frame = pd.DataFrame({"size": size})
    est = quercus.CARTClassifier(ordinal_features={"size": levels}).fit(frame, y)
    assert est.schema_["size"].kind == "ordinal"
    assert est.get_n_leaves() == 2 and est.tree_.threshold[0] == 1.5  # codes 0,1 | 2,3
    assert est.score(frame, y) == 1.0
    # Alphabetical order (high < low < mid < top) could not separate them with one cut.
    nominal = quercus.CARTClassifier(nominal_split="binary").fit(frame, y)
    assert nominal.get_n_leaves() == 2  # a subset split can, in any order
    ordered = pd.DataFrame({"size": pd.Categorical(size, categories=levels, ordered=True)})
    est2 = quercus.CARTClassifier().fit(ordered, y)
    assert est2.schema_["size"].kind == "ordinal" and est2.tree_.threshold[0] == 1.5


def test_fit_leaves_the_callers_arrays_unchanged():
    X, y = make_classification(300, 5, random_state=0)
    w = np.random.default_rng(0).random(300)
    yr = X[:, 0] * 3.0
    copies = X.copy(), y.copy(), w.copy(), yr.copy()
    quercus.CARTClassifier().fit(X, y, sample_weight=w)
    quercus.CARTRegressor().fit(X, yr, sample_weight=w)
    quercus.DecisionTreeRegressor(criterion="absolute_error").fit(X, yr)
    for before, after in zip(copies, (X, y, w, yr), strict=True):
        np.testing.assert_array_equal(before, after)


def test_normalised_weights_count_as_samples():
    # Boosting passes weights that sum to 1: they are read as shares of the samples, so the
    # tree is the one grown on unit weights.
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    for make in (
        lambda: quercus.CARTClassifier(min_samples_leaf=5),
        lambda: quercus.C45Classifier(pruning=None),
    ):
        plain = make().fit(X, y)
        scaled = make().fit(X, y, sample_weight=np.full(len(y), 1 / len(y)))
        assert np.array_equal(plain.tree_.feature, scaled.tree_.feature)
        assert np.allclose(plain.tree_.threshold, scaled.tree_.threshold, equal_nan=True)


@pytest.mark.parametrize(
    "y",
    [
        np.array(["nonskin", "skin", "Skin", "é", "b", "skin", ""], dtype=object),
        np.array([3, 1, 3, -2]),
        np.array(["x", "y"]),  # a NumPy string array, not objects
    ],
)
def test_classes_and_codes_is_np_unique(y):
    # The fast path for string labels must give the classes and codes np.unique gives.
    classes, codes = classes_and_codes(y)
    want_classes, want_codes = np.unique(y, return_inverse=True)
    assert list(classes) == list(want_classes)
    assert np.array_equal(codes, want_codes)


def test_classes_and_codes_rejects_continuous_and_mixed_labels():
    with pytest.raises(ValueError, match="continuous"):
        classes_and_codes(np.array([0.5, 1.0, 2.5]))
    with pytest.raises(TypeError):
        classes_and_codes(np.array(["a", None], dtype=object))
