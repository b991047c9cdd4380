"""The statistics of model selection against hand computations and scipy, and the default
grids against the estimators' parameter rules."""

import math
import statistics
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, ParameterGrid, cross_val_score

import quercus
from quercus.estimators.folds import cv_folds
from quercus.estimators.params import check_params
from quercus.model_selection import corrected_ttest, default_grid, score_spread

# Ten folds of a data set of 150 rows: 135 to train, 15 to test; the accuracies (in
# fifteenths) of C4.5 and CART on iris's folds of `quercus cv` with seed 0.
C45 = [15, 13, 14, 15, 12, 14, 13, 15, 14, 14]
CART = [15, 14, 14, 15, 12, 14, 14, 15, 14, 14]


def test_corrected_t_by_hand():
    # The differences in fifteenths: 0, -1, 0, 0, 0, 0, -1, 0, 0, 0.
    a = [Fraction(k, 15) for k in C45]
    b = [Fraction(k, 15) for k in CART]
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / 10  # -2/150
    variance = sum((x - mean) ** 2 for x in d) / 9  # the sample variance
    assert mean == Fraction(-1, 75)
    assert variance == Fraction(8, 10125)  # (2 * (4/75)^2 + 8 * (1/75)^2) / 9
    factor = Fraction(1, 10) + Fraction(15, 135)  # Nadeau and Bengio: 1/J + n_test/n_train
    t = float(mean) / math.sqrt(float(factor * variance))
    test = corrected_ttest([float(x) for x in a], [float(x) for x in b], n_train=135, n_test=15)
    assert test.difference == pytest.approx(float(mean), abs=1e-15)
    assert test.std_difference == pytest.approx(math.sqrt(float(variance)), rel=1e-12)
    assert test.t == pytest.approx(t, rel=1e-12)
    assert t == pytest.approx(-1.0324, abs=1e-4)
    assert test.df == 9
    assert test.p_value == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-12)
    assert not test.significant
    assert test.mean_a == pytest.approx(float(sum(a) / 10))
    assert test.mean_b == pytest.approx(float(sum(b) / 10))
    half = stats.t.ppf(0.975, 9) * math.sqrt(float(factor * variance))
    assert (test.low, test.high) == pytest.approx((float(mean) - half, float(mean) + half))


def test_the_correction_is_what_separates_it_from_the_plain_paired_t_test():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.7, 0.9, 30)
    b = a - rng.normal(0.02, 0.03, 30)
    plain = stats.ttest_rel(a, b)
    test = corrected_ttest(a, b, n_train=90, n_test=10)
    # t_plain = d / sqrt(s^2 / J); the corrected t divides by sqrt((1/J + 1/9) s^2).
    assert test.t == pytest.approx(plain.statistic * math.sqrt((1 / 30) / (1 / 30 + 1 / 9)))
    assert test.df == plain.df == 29
    # The correction makes the test more cautious: a larger p-value than the plain test's.
    assert test.p_value > plain.pvalue
    # With a vanishing test/train ratio the two tests agree.
    tiny = corrected_ttest(a, b, n_train=1e12, n_test=1)
    assert tiny.t == pytest.approx(plain.statistic, rel=1e-9)
    assert tiny.p_value == pytest.approx(plain.pvalue, rel=1e-6)


def test_repeated_cross_validation_has_r_times_k_minus_one_degrees_of_freedom():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.8, 1, 50), rng.uniform(0.8, 1, 50)  # 5 x 10 folds
    assert corrected_ttest(a, b, n_train=90, n_test=10).df == 49


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=2, max_size=30).filter(
        lambda pairs: len({x - y for x, y in pairs}) > 1
    ),
    st.floats(0.05, 0.5),
)
def test_symmetry_and_the_interval_agree_with_the_test(pairs, ratio):
    a = [x / 20 for x, _ in pairs]
    b = [y / 20 for _, y in pairs]
    forward = corrected_ttest(a, b, n_train=1.0, n_test=ratio)
    backward = corrected_ttest(b, a, n_train=1.0, n_test=ratio)
    assert backward.t == pytest.approx(-forward.t)
    assert backward.p_value == pytest.approx(forward.p_value)
    assert forward.low <= forward.difference <= forward.high
    # The interval at 1 - alpha leaves out 0 exactly when the test rejects at alpha.
    if not math.isclose(forward.p_value, forward.alpha, rel_tol=1e-9):
        assert (forward.low > 0 or forward.high < 0) == forward.significant


def test_equal_scores_are_no_evidence_and_a_constant_difference_is_certain():
    same = corrected_ttest([0.9, 0.8, 0.7], [0.9, 0.8, 0.7], n_train=20, n_test=10)
    assert (same.t, same.p_value, same.significant) == (0.0, 1.0, False)
    assert (same.low, same.high) == (0.0, 0.0)
    better = corrected_ttest([0.9, 0.8, 0.7], [0.8, 0.7, 0.6], n_train=20, n_test=10)
    assert better.t == math.inf and better.p_value == 0.0 and better.significant


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        ([0.9, 0.8], [0.9, 0.8, 0.7], {}, "paired split by split: 2 and 3 scores"),
        ([0.9], [0.8], {}, "scores_a needs at least 2 scores, got 1"),
        ([0.9, float("nan")], [0.8, 0.7], {}, "scores_a holds a score that is not a finite"),
        ([[0.9, 0.8]], [0.8, 0.7], {}, "scores_a must be one score per split"),
        ([0.9, 0.8], [0.8, 0.7], {"n_test": 0}, "n_test must be a number of rows > 0, got 0"),
        ([0.9, 0.8], [0.8, 0.7], {"alpha": 1.5}, "alpha must be in (0, 1), got 1.5"),
    ],
)
def test_bad_input_is_an_error_naming_it(a, b, kwargs, message):
    sizes = {"n_train": 90, "n_test": 10, **kwargs}
    with pytest.raises(ValueError) as caught:
        corrected_ttest(a, b, **sizes)
    assert message in str(caught.value)


def test_score_spread_by_hand():
    scores = [Fraction(k, 15) for k in C45]
    mean = sum(scores) / 10
    variance = sum((s - mean) ** 2 for s in scores) / 9
    spread = score_spread([float(s) for s in scores], n_train=135, n_test=15)
    assert spread.mean == pytest.approx(float(mean))
    assert spread.std == pytest.approx(statistics.stdev([float(s) for s in scores]))
    assert spread.std == pytest.approx(math.sqrt(float(variance)))
    half = stats.t.ppf(0.975, 9) * math.sqrt((0.1 + 15 / 135) * float(variance))
    assert (spread.low, spread.high) == pytest.approx((float(mean) - half, float(mean) + half))
    assert spread.n_splits == 10 and spread.level == 0.95
    # Wider than the plain t-interval, which takes the folds as independent.
    plain = stats.t.ppf(0.975, 9) * math.sqrt(float(variance) / 10)
    assert half > plain
    narrower = score_spread([float(s) for s in scores], n_train=135, n_test=15, level=0.5)
    assert narrower.high - narrower.low < spread.high - spread.low


def test_the_spread_of_cross_val_score_on_the_folds_of_quercus():
    frame = quercus.datasets.load("iris")
    X, y = frame.drop(columns="class"), frame["class"]
    splits = cv_folds(5, 0, n_rows=len(y), classes=np.asarray(y))
    scores = cross_val_score(quercus.CARTClassifier(max_depth=2), X, y, cv=splits)
    spread = score_spread(scores, n_train=120, n_test=30)
    assert spread.mean == pytest.approx(np.mean(scores))
    assert spread.std == pytest.approx(np.std(scores, ddof=1))
    assert spread.low < spread.mean < spread.high


# -- default grids ------------------------------------------------------------------------------

ESTIMATORS = [
    quercus.ID3Classifier,
    quercus.C45Classifier,
    quercus.C45RulesClassifier,
    quercus.CARTClassifier,
    quercus.CARTRegressor,
    quercus.DecisionTreeClassifier,
    quercus.DecisionTreeRegressor,
    quercus.RandomForestClassifier,
    quercus.RandomForestRegressor,
]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_default_candidate_is_a_valid_estimator(cls):
    grid = default_grid(cls())
    candidates = list(ParameterGrid(grid))
    assert 4 <= len(candidates) <= 20  # a few dozen fits per fold at most
    seen = []
    for candidate in candidates:
        estimator = clone(cls()).set_params(**candidate)
        check_params(estimator)
        assert candidate not in seen  # no candidate twice
        seen.append(candidate)


def test_default_grid_is_a_fresh_copy_and_names_what_it_knows():
    grid = default_grid(quercus.C45Classifier)
    grid[0]["confidence"].append(0.01)
    assert 0.01 not in default_grid(quercus.C45Classifier())[0]["confidence"]
    with pytest.raises(ValueError, match="no default grid for GridSearchCV; there is one for"):
        default_grid(GridSearchCV)


def test_grid_search_cv_takes_a_quercus_estimator_and_its_default_grid():
    frame = quercus.datasets.load("iris")
    X, y = frame.drop(columns="class"), frame["class"]
    splits = cv_folds(5, 0, n_rows=len(y), classes=np.asarray(y))
    search = GridSearchCV(
        quercus.C45RulesClassifier(), default_grid(quercus.C45RulesClassifier), cv=splits
    )
    search.fit(X, y)
    assert len(search.cv_results_["params"]) == 9
    best = search.cv_results_["params"][search.best_index_]
    own = cross_val_score(quercus.C45RulesClassifier(**best), X, y, cv=splits)
    assert search.best_score_ == pytest.approx(np.mean(own))
    assert isinstance(search.best_estimator_, quercus.C45RulesClassifier)
