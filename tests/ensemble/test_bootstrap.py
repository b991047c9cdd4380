"""Counter-based Poisson bootstrap weights: the generator against a NumPy twin and the
published SplitMix64 outputs, independence of blocks, the Poisson law, and the forests
grown on these weights."""

import math
from itertools import pairwise

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import train_test_split

import quercus
from quercus._counters import mix64
from quercus.binning.binned import bin_frame
from quercus.ensemble.bootstrap import (
    MAX_POISSON_RATE,
    bootstrap_counts,
    poisson_cdf,
    poisson_counts,
)
from quercus.ensemble.forest import tree_params
from quercus.estimators.params import growth_params
from quercus.grow.grower import grow_binned, tree_from_grown

GAMMA = np.uint64(0x9E3779B97F4A7C15)


def mix64_numpy(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (arrays wrap around without a warning)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def poisson_counts_numpy(seed, tree, first_row, n_rows, rate=1.0) -> np.ndarray:
    """The definition in plain NumPy, the inversion by scipy's Poisson quantile function."""
    seed_key = mix64_numpy(np.array([seed], dtype=np.uint64) + GAMMA)
    key = mix64_numpy(seed_key + np.array([tree + 1], dtype=np.uint64) * GAMMA)
    rows = np.arange(first_row, first_row + n_rows, dtype=np.uint64)
    bits = mix64_numpy(key + (rows + np.uint64(1)) * GAMMA)
    u = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53
    # ppf(u) is the least k with F(k) >= u; the kernel counts the F(k) <= u: the two differ
    # only where u equals an F(k) exactly.
    return stats.poisson.ppf(u, rate)


def test_mix64_gives_the_published_splitmix64_outputs():
    # The first outputs of Vigna's splitmix64.c from state 0: output i is mix64(i * gamma).
    published = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC]
    states = np.arange(1, 5, dtype=np.uint64) * GAMMA
    assert [int(mix64(s)) for s in states] == published
    assert mix64_numpy(states).tolist() == published


@pytest.mark.parametrize(
    ("seed", "tree", "first_row", "rate"),
    [(0, 0, 0, 1.0), (12345, 7, 10**6, 1.0), (2**64 - 1, 2**40, 2**50, 0.37), (9, 3, 5, 4.5)],
)
def test_kernel_equals_its_numpy_twin(seed, tree, first_row, rate):
    n = 200_000
    assert np.array_equal(
        poisson_counts(seed, tree, first_row, n, rate),
        poisson_counts_numpy(seed, tree, first_row, n, rate),
    )


@pytest.mark.parametrize("n_blocks", [1, 2, 4, 7])
def test_any_blocks_laid_end_to_end_equal_all_rows_at_once(n_blocks):
    n, first = 10_007, 123
    whole = poisson_counts(42, 5, first, n)
    cuts = np.sort(np.random.default_rng(n_blocks).choice(np.arange(1, n), n_blocks - 1, False))
    bounds = np.concatenate([[0], cuts, [n]])
    assert len(np.unique(np.diff(bounds))) == n_blocks  # uneven blocks
    blocks = [poisson_counts(42, 5, first + lo, hi - lo) for lo, hi in pairwise(bounds)]
    assert np.array_equal(np.concatenate(blocks), whole)
    assert len(poisson_counts(42, 5, first, 0)) == 0


def test_draws_follow_poisson_one():
    n = 1_000_000
    w = poisson_counts(2024, 0, 0, n)
    assert np.array_equal(w, np.round(w)) and w.min() >= 0
    # Classes 0..5 and 6 or more (expected 0.08 * n / 100 draws in the last).
    observed = np.bincount(np.minimum(w.astype(np.int64), 6), minlength=7)
    expected = n * np.append(stats.poisson.pmf(np.arange(6), 1.0), stats.poisson.sf(5, 1.0))
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    # Poisson(1): the mean's standard error is sqrt(1 / n); the sample variance's is
    # sqrt((mu4 - sigma**4) / n) = sqrt(3 / n), mu4 = lambda (1 + 3 lambda) = 4.
    assert abs(w.mean() - 1.0) < 5 * math.sqrt(1 / n)
    assert abs(w.var() - 1.0) < 5 * math.sqrt(3 / n)


def test_streams_are_uncorrelated():
    n = 200_000
    bound = 5 / math.sqrt(n)  # r of independent draws: standard error 1 / sqrt(n)
    tree0, tree1 = poisson_counts(7, 0, 0, n), poisson_counts(7, 1, 0, n)
    other_seed = poisson_counts(8, 0, 0, n)
    assert abs(np.corrcoef(tree0, tree1)[0, 1]) < bound
    assert abs(np.corrcoef(tree0, other_seed)[0, 1]) < bound
    assert abs(np.corrcoef(tree0[:-1], tree0[1:])[0, 1]) < bound  # neighbouring rows
    # Tree t of seed s is not row-shifted tree t of another seed or tree t + 1 of this one.
    assert abs(np.corrcoef(tree0[1:], tree1[:-1])[0, 1]) < bound


def test_a_different_seed_gives_different_weights():
    n = 100_000
    a, b = poisson_counts(1, 0, 0, n), poisson_counts(2, 0, 0, n)
    assert np.array_equal(a, poisson_counts(1, 0, 0, n))
    # Two independent draws are equal with probability sum_k P(k)**2.
    same = stats.poisson.pmf(np.arange(30), 1.0) @ stats.poisson.pmf(np.arange(30), 1.0)
    assert abs(np.mean(a == b) - same) < 5 * math.sqrt(same * (1 - same) / n)


@pytest.mark.parametrize("rate", [0.1, 0.5, 2.0, 30.0])
def test_rate_is_the_mean(rate):
    n = 200_000
    w = poisson_counts(3, 2, 0, n, rate)
    assert abs(w.mean() - rate) < 5 * math.sqrt(rate / n)
    p0 = math.exp(-rate)
    assert abs(np.mean(w == 0) - p0) < 5 * math.sqrt(p0 * (1 - p0) / n) + 1e-9


def test_the_table_and_its_truncation():
    cdf = poisson_cdf(1.0)
    assert len(cdf) == 17  # P(X > 17) = 6e-17 < 2**-53 <= P(X > 16)
    assert stats.poisson.sf(17, 1.0) < 2.0**-53 <= stats.poisson.sf(16, 1.0)
    assert np.allclose(cdf, stats.poisson.cdf(np.arange(17), 1.0), rtol=0, atol=1e-15)
    big = poisson_cdf(MAX_POISSON_RATE)
    assert stats.poisson.sf(len(big), MAX_POISSON_RATE) < 2.0**-53
    assert np.allclose(big, stats.poisson.cdf(np.arange(len(big)), MAX_POISSON_RATE), atol=1e-12)


def test_bad_arguments_are_named():
    for args, name in [
        ((-1, 0, 0, 5), "seed"),
        ((0, 2**64, 0, 5), "tree"),
        ((0, 0, -3, 5), "first_row"),
        ((0, 0, 0, -1), "n_rows"),
        ((0, 0, 0, 5, 0.0), "rate"),
        ((0, 0, 0, 5, float("nan")), "rate"),
        ((0, 0, 0, 5, 2 * MAX_POISSON_RATE), "rate"),
    ]:
        with pytest.raises(ValueError, match=f"^{name} must be"):
            poisson_counts(*args)


def test_multinomial_counts_are_unchanged_by_the_move():
    counts = bootstrap_counts(11, 50, 50)
    rng = np.random.default_rng(11)
    assert np.array_equal(counts, np.bincount(rng.integers(0, 50, 50), minlength=50))


# -- forests on Poisson weights -------------------------------------------------------------


@pytest.fixture(scope="module")
def noisy():
    X, y = make_classification(2000, 10, n_informative=5, n_redundant=2, flip_y=0.1, random_state=1)
    return train_test_split(X, y, test_size=0.3, random_state=0)


def test_poisson_forest_fits_predicts_and_scores_out_of_bag(noisy):
    X_train, X_test, y_train, y_test = noisy
    n = len(y_train)
    forest = quercus.RandomForestClassifier(
        40, bootstrap="poisson", oob_score=True, random_state=0, n_jobs=2
    ).fit(X_train, y_train)
    assert forest.score(X_test, y_test) > 0.8
    assert abs(forest.oob_score_ - forest.score(X_test, y_test)) < 0.05
    for t, tree in enumerate(forest.estimators_):
        weights = poisson_counts(forest.base_seed_, t, 0, n)
        assert tree.tree_.weighted_n_node_samples[0] == weights.sum()
        assert tree.tree_.n_node_samples[0] == np.count_nonzero(weights)
    # A row's out-of-bag vote averages the trees whose weight for it is 0.
    i = 3
    missed = [
        tree
        for t, tree in enumerate(forest.estimators_)
        if poisson_counts(forest.base_seed_, t, i, 1)[0] == 0
    ]
    expected = np.mean([tree.predict_proba(X_train[i : i + 1])[0] for tree in missed], axis=0)
    assert np.allclose(forest.oob_decision_function_[i], expected)


def test_poisson_forest_is_reproducible(noisy):
    X_train, X_test, y_train, _ = noisy
    make = quercus.RandomForestClassifier
    one = make(8, bootstrap="poisson", random_state=5, n_jobs=1).fit(X_train, y_train)
    two = make(8, bootstrap="poisson", random_state=5, n_jobs=2).fit(X_train, y_train)
    assert np.array_equal(one.predict_proba(X_test), two.predict_proba(X_test))
    other = make(8, bootstrap="poisson", random_state=6).fit(X_train, y_train)
    assert not np.array_equal(one.predict_proba(X_test), other.predict_proba(X_test))
    # warm_start adds the trees a larger forest has: weights keyed on the tree's number.
    grown = make(5, bootstrap="poisson", random_state=5, warm_start=True).fit(X_train, y_train)
    grown.set_params(n_estimators=8).fit(X_train, y_train)
    assert np.array_equal(grown.predict_proba(X_test), one.predict_proba(X_test))


def test_first_tree_equals_a_tree_grown_on_the_same_weights(noisy):
    X_train, _, y_train, _ = noisy
    forest = quercus.RandomForestClassifier(
        3, bootstrap="poisson", max_features="sqrt", random_state=4
    ).fit(X_train, y_train)
    n, p = X_train.shape
    weights = poisson_counts(forest.base_seed_, 0, 0, n)
    data = bin_frame(forest._validate_X(X_train, reset=False), forest.schema_, forest.max_bins)
    params = growth_params(tree_params(forest), p, float(n), seed=forest.tree_seeds_[0])
    rows = np.flatnonzero(weights > 0)
    grown = grow_binned(
        data,
        data.binned[rows],
        y_train[rows].astype(np.int32),
        np.zeros(len(rows)),
        weights[rows],
        params,
        regression=False,
        n_stats=2,
    )
    alone = tree_from_grown(grown, params, regression=False)
    first = forest.estimators_[0].tree_
    assert first.node_count == alone.node_count > 20
    for name in ("feature", "threshold", "children", "weighted_n_node_samples"):
        assert np.array_equal(getattr(first, name), getattr(alone, name), equal_nan=True), name
    assert np.array_equal(first.leaf_values(), alone.leaf_values())


def test_max_samples_sets_the_rate(noisy):
    X_train, _, y_train, _ = noisy
    n = len(y_train)
    for max_samples, rate in [(0.4, 0.4), (350, 350 / n), (3 * n, 3.0)]:
        forest = quercus.RandomForestClassifier(
            4, bootstrap="poisson", max_samples=max_samples, random_state=1
        ).fit(X_train, y_train)
        for t, tree in enumerate(forest.estimators_):
            weights = poisson_counts(forest.base_seed_, t, 0, n, rate)
            assert tree.tree_.weighted_n_node_samples[0] == weights.sum()
            assert abs(weights.sum() - rate * n) < 5 * math.sqrt(rate * n)


def test_poisson_regressor_and_model_file(tmp_path):
    X, y = make_regression(800, 6, n_informative=4, noise=5.0, random_state=0)
    forest = quercus.RandomForestRegressor(
        20, bootstrap="poisson", oob_score=True, random_state=0
    ).fit(X, y)
    assert forest.oob_score_ > 0.6
    loaded = quercus.load(forest.save(tmp_path / "poisson.qf"))
    assert loaded.get_params() == forest.get_params()
    assert loaded.bootstrap == "poisson" and loaded.oob_score_ == forest.oob_score_
    assert np.array_equal(loaded.predict(X), forest.predict(X))


def test_bad_bootstrap_values_are_named(noisy):
    X_train, _, y_train, _ = noisy
    with pytest.raises(quercus.InvalidParameterError, match="bootstrap must be True, False or"):
        quercus.RandomForestClassifier(bootstrap="Poisson").fit(X_train, y_train)
    too_many = 2 * int(MAX_POISSON_RATE) * len(y_train)
    with pytest.raises(quercus.InvalidParameterError, match="max_samples=") as error:
        quercus.RandomForestClassifier(bootstrap="poisson", max_samples=too_many).fit(
            X_train, y_train
        )
    assert error.value.name == "max_samples"
    # Two rows: tree 0 of random_state 0 draws weight 0 for both.
    with pytest.raises(ValueError, match="bootstrap sample weighs 0"):
        quercus.RandomForestClassifier(20, bootstrap="poisson", random_state=0).fit(
            [[0.0], [1.0]], [0, 1]
        )
