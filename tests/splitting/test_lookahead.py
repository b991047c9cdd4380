"""Look-ahead (``lookahead=k``): its scores against a brute-force twin, and the lectures'
parity example, where greedy gain sees nothing and one or two levels of look-ahead find the
parity bits."""

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus._config import NOMINAL, NUMERIC
from quercus.criteria import registry
from quercus.splitting._lookahead import LookaheadContext, lookahead_splits

# ---------------------------------------------------------------------------------------------
# The twin: every split of every feature, recursively, in plain Python


def _cost(y, w, classes, criterion):
    """w * impurity of the rows (classification: class counts; regression: moments)."""
    if len(y) == 0:
        return 0.0
    if classes:
        stats = np.bincount(y, weights=w, minlength=classes)
    else:
        stats = np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])
    return float(w.sum()) * registry.get(criterion).impurity(stats)


def _splits(x, f, kind):
    """Every split of feature ``f`` as a list of row masks (thresholds between present
    codes; a nominal feature one branch per present code)."""
    codes = np.unique(x[:, f])
    if kind == NOMINAL:
        return [[x[:, f] == c for c in codes]] if len(codes) > 1 else []
    return [[x[:, f] <= c, x[:, f] > c] for c in codes[:-1]]


def _admissible(masks, w, kind, min_leaf) -> bool:
    """Whether the branches hold enough weight: two of a multiway split, both of a cut."""
    weights = [w[m].sum() for m in masks]
    if kind == NOMINAL:
        return sum(wt >= min_leaf for wt in weights) >= 2
    return min(weights) >= min_leaf


def _reach(x, y, w, depth, levels, kinds, classes, criterion, min_leaf):
    leaf = _cost(y, w, classes, criterion)
    if depth == 0 or levels <= 0 or len(y) < 2 or w.sum() < 2 * min_leaf or leaf <= 1e-12:
        return leaf
    best = leaf
    for f, kind in enumerate(kinds):
        for masks in _splits(x, f, kind):
            if not _admissible(masks, w, kind, min_leaf):
                continue
            total = sum(
                _reach(x[m], y[m], w[m], depth - 1, levels - 1, kinds, classes, criterion, min_leaf)
                for m in masks
            )
            best = min(best, total)
    return best


def twin_costs(x, y, w, depth, kinds, classes, criterion, min_leaf=1.0):
    """Each feature's least look-ahead cost over its splits (inf when it has none)."""
    out = []
    for f, kind in enumerate(kinds):
        best = np.inf
        for masks in _splits(x, f, kind):
            if not _admissible(masks, w, kind, min_leaf):
                continue
            reach = [
                _reach(x[m], y[m], w[m], depth, 99, kinds, classes, criterion, min_leaf)
                for m in masks
            ]
            best = min(best, sum(reach))
        out.append(best)
    return np.array(out)


def kernel_costs(x, y, w, depth, kinds, classes, criterion, min_leaf=1.0):
    p = x.shape[1]
    n_bins = np.full(p, int(x.max()) + 1, dtype=np.int64)
    regression = classes == 0
    context = LookaheadContext(
        kinds=np.asarray(kinds, dtype=np.int8),
        n_bins=n_bins,
        missing_code=255,
        criterion=registry.CRITERIA[criterion],
        regression=regression,
        n_stats=3 if regression else classes,
        min_leaf=float(min_leaf),
        min_split=2.0,
        multiway=True,  # nominal features: one branch per category
        max_cuts=16,
    )
    out = np.zeros((p, 4))
    lookahead_splits(
        np.ascontiguousarray(x, dtype=np.uint8),
        np.asarray(y if classes else np.zeros(len(y)), dtype=np.int32),
        np.asarray(y, dtype=np.float64),
        np.asarray(w, dtype=np.float64),
        np.arange(p),
        p,
        depth,
        1 << 30,
        context,
        np.zeros((p, int(n_bins.max())), dtype=np.int8),
        out,
    )
    return out[:, 0]


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize(
    ("criterion", "classes"), [("gini", 3), ("entropy", 2), ("squared_error", 0)]
)
def test_lookahead_costs_are_the_brute_force_twins(depth, criterion, classes):
    rng = np.random.default_rng(10 * depth + classes)
    for _ in range(6):
        n = int(rng.integers(6, 16))
        x = rng.integers(0, 4, size=(n, 3))
        kinds = [NUMERIC, NUMERIC, NOMINAL]
        y = rng.integers(0, classes, size=n) if classes else rng.normal(size=n).round(2)
        w = rng.integers(1, 3, size=n).astype(float)
        ours = kernel_costs(x, y, w, depth, kinds, classes, criterion)
        twin = twin_costs(x, y, w, depth, kinds, classes, criterion)
        np.testing.assert_allclose(ours, twin, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Parity: the lectures' example


def parity_data(bits: int, noise: float, seed: int = 0, n: int = 1000):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 10)), columns=[f"b{i}" for i in range(10)])
    y = np.bitwise_xor.reduce(X.iloc[:, :bits].to_numpy(), axis=1)
    flip = rng.random(n) < noise
    y = np.where(flip, 1 - y, y)
    return X.astype(str), y


def split_features(est) -> set:
    tree = est.tree_
    return {est.schema_.names[f] for f in tree.feature[tree.kind != 0]}


@pytest.mark.parametrize("noise", [0.0, 0.05])
@pytest.mark.parametrize(("bits", "k"), [(2, 1), (3, 2)])
def test_lookahead_finds_parity_where_greedy_picks_noise(bits, k, noise):
    X, y = parity_data(bits, noise)
    parity = {f"b{i}" for i in range(bits)}
    greedy = quercus.ID3Classifier(max_depth=bits).fit(X, y)
    ahead = quercus.ID3Classifier(max_depth=bits, lookahead=k).fit(X, y)
    assert not split_features(greedy) <= parity  # greedy splits on noise
    assert (greedy.predict(X) == y).mean() < 0.75
    assert split_features(ahead) == parity  # the parity tree: 2**bits leaves
    assert ahead.get_n_leaves() == 2**bits
    assert (ahead.predict(X) == y).mean() >= 1.0 - noise - 0.03


def test_one_level_is_not_enough_for_three_bits():
    X, y = parity_data(3, 0.0)
    one = quercus.ID3Classifier(max_depth=3, lookahead=1).fit(X, y)
    assert (one.predict(X) == y).mean() < 0.75


def test_lookahead_on_numbers_and_regression():
    X, y = parity_data(2, 0.0)
    numbers = X.astype(float).to_numpy()
    est = quercus.DecisionTreeClassifier(max_depth=2, lookahead=1).fit(numbers, y)
    assert (est.predict(numbers) == y).all()
    reg = quercus.DecisionTreeRegressor(max_depth=2, lookahead=1).fit(numbers, 3.0 * y)
    np.testing.assert_allclose(reg.predict(numbers), 3.0 * y)
    assert set(reg.tree_.feature[reg.tree_.kind != 0]) == {0, 1}


@pytest.mark.parametrize(
    "params",
    [
        {"missing": "fractional"},
        {"max_leaf_nodes": 8},
        {"lookahead": 3},
    ],
)
def test_lookahead_combinations_refused(params):
    X, y = parity_data(2, 0.0, n=50)
    with pytest.raises(quercus.InvalidParameterError, match="lookahead"):
        quercus.DecisionTreeClassifier(**{"lookahead": 1, **params}).fit(X, y)


@pytest.mark.parametrize(
    ("estimator", "working"),
    [
        (quercus.C45Classifier, "'majority', 'class_majority' or 'learned'"),
        (quercus.DecisionTreeRegressor, "'majority' or 'learned'"),
    ],
)
def test_lookahead_with_fractional_missing_names_the_policies_that_work(estimator, working):
    X, y = parity_data(2, 0.0, n=50)
    with pytest.raises(quercus.InvalidParameterError) as refused:
        estimator(lookahead=1, missing="fractional").fit(X, y)
    assert f"look-ahead works with missing={working}" in str(refused.value)
    assert refused.value.remedy == {"missing": "majority"}
    # C4.5's preset has it by default, and says so; the remedy fits.
    default = estimator is quercus.C45Classifier
    assert ("the default of C45Classifier" in str(refused.value)) is default
    estimator(lookahead=1, **refused.value.remedy).fit(X, y)


def test_lookahead_beyond_the_budget_is_refused_before_any_work():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200_000, 40)).astype(np.float64)
    with pytest.raises(quercus.InvalidParameterError, match="lookahead=2 on 200,000 rows"):
        quercus.DecisionTreeClassifier(lookahead=2).fit(X, X[:, 0].astype(int))
    from quercus.distributed.estimators import refuse_local_only

    with pytest.raises(quercus.InvalidParameterError, match="lookahead"):
        refuse_local_only({"lookahead": 1})


def test_every_cut_tried_within_the_budget():
    """With at most 16 cuts, every cut of a feature is tried: the costs are the twin's on
    a numeric feature of 12 values (the budget's sampling only starts beyond 16)."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 12, size=(40, 2))
    y = (x[:, 0] > 5).astype(int) ^ (x[:, 1] > 3).astype(int)
    w = np.ones(40)
    kinds = [NUMERIC, NUMERIC]
    np.testing.assert_allclose(
        kernel_costs(x, y, w, 1, kinds, 2, "gini"), twin_costs(x, y, w, 1, kinds, 2, "gini")
    )
