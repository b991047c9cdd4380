"""Costly settings are priced before the work starts, and integers out of the kernels'
range are refused (the hardening issue: "tried as an attacker and as a careless user").

- The look-ahead prices the whole fit, every level's nodes and their bins, not the root
  alone: ``lookahead=2`` on 1,000 x 20 numeric rows at ``max_depth=3`` ran 338 s silently
  within a tenth of the root's budget; at full depth it would run for hours.
- An integer parameter larger than the kernels hold (``max_depth=10**30``) is an
  InvalidParameterError naming it, not a traceback from a kernel.
- A forest of ten million trees warns of its memory before it grows; ``max_samples`` is
  held to a thousand times the rows, and the draws take the memory of their counts.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

import quercus
from quercus._config import NOMINAL, NUMERIC
from quercus.cli import main
from quercus.ensemble import bootstrap
from quercus.ensemble.forest import FOREST_WARN_BYTES, TREE_BYTES, warn_of_forest_size
from quercus.estimators.params import (
    LOOKAHEAD_BUDGET_SECONDS,
    LOOKAHEAD_WARN_SECONDS,
    check_lookahead_budget,
    check_params,
    growth_params,
)
from quercus.grow.levelwise import LOOKAHEAD_CUTS
from quercus.grow.statistics import LocalStatistics
from quercus.splitting.lookahead_cost import lookahead_seconds

# ---------------------------------------------------------------------------------------------
# The look-ahead's price


def numeric_rows(n: int, p: int, seed: int = 0):
    """``n`` rows of ``p`` normal features (one bin a row), the class the first's sign."""
    X = np.random.default_rng(seed).normal(size=(n, p))
    return X, (X[:, 0] > 0).astype(int)


def price(n_rows: int, n_bins, kinds, trees: int = 1, **params) -> None:
    """``check_lookahead_budget`` of a DecisionTreeClassifier with ``params`` on ``n_rows``
    rows of those bins, as a fit calls it once the data are binned (``trees``: the tree's
    and its cross-validation folds')."""
    estimator = quercus.DecisionTreeClassifier(**params)
    growth = growth_params(estimator.get_params(), len(n_bins), float(n_rows), seed=1)
    check_lookahead_budget(
        growth.lookahead,
        n_rows,
        len(n_bins),
        LOOKAHEAD_CUTS,
        growth=growth,
        n_bins=np.asarray(n_bins),
        kinds=np.asarray(kinds, dtype=np.int8),
        trees=trees,
    )


ISSUE_BINS = np.full(20, 1_000)  # 1,000 x 20 normal numbers: one bin a row
ISSUE_KINDS = np.full(20, NUMERIC)


def test_the_issues_fit_warns_with_its_estimate():
    with pytest.warns(UserWarning) as said:
        price(1_000, ISSUE_BINS, ISSUE_KINDS, max_depth=3, lookahead=2)
    (message,) = [str(w.message) for w in said]
    assert message.startswith("lookahead=2 on 1,000 rows and 20 features: about 4 min")
    assert "estimated for the whole tree (3 levels of nodes searched, bins included)" in message
    assert "lookahead=1 (about 1 s) would take less" in message


def test_the_issues_fit_at_full_depth_is_refused_naming_what_fits():
    with pytest.raises(quercus.InvalidParameterError) as refused:
        price(1_000, ISSUE_BINS, ISSUE_KINDS, lookahead=2)
    message = str(refused.value)
    assert refused.value.name == "lookahead"
    assert message.startswith("lookahead=2 on 1,000 rows and 20 features: about 37 min")
    assert "the limit is about 30 min): set lookahead=1 (about 8 s)" in message
    assert refused.value.remedy == {"lookahead": 1}
    # With a quarter of the features drawn at each node it is within the budget, and
    # max_depth=3 is named as quicker.
    with pytest.warns(UserWarning, match=r"max_depth=3 \(about 44 s\) or lookahead=1"):
        price(1_000, ISSUE_BINS, ISSUE_KINDS, lookahead=2, max_features="sqrt")


def test_the_folds_of_a_cross_validated_alpha_are_priced_too():
    """ccp_alpha='cv' grows a tree for each of its 10 folds besides the tree: eleven of the
    issue's 3.7 minutes pass the budget."""
    with pytest.raises(quercus.InvalidParameterError) as refused:
        price(1_000, ISSUE_BINS, ISSUE_KINDS, trees=11, max_depth=3, lookahead=2)
    assert "about 41 min estimated for the tree and its 10 folds' trees" in str(refused.value)
    assert refused.value.remedy == {"lookahead": 1}


def test_binary_features_offer_one_cut():
    """The root's old budget took 16 cuts a feature: 1,000,000 rows of 10 binary features
    were refused at lookahead=2 (2.6e11 rows at the root). Priced with their bins, one cut
    each, they fit quietly, at full depth too (about 41 s); ten times the rows warn."""
    bins, kinds = np.full(10, 2), np.full(10, NUMERIC)
    price(1_000_000, bins, kinds, lookahead=2, max_depth=3)
    price(1_000_000, bins, kinds, lookahead=2)
    with pytest.warns(UserWarning, match="about 7 min estimated for the whole tree"):
        price(10_000_000, bins, kinds, lookahead=2)


def test_the_estimate_grows_with_the_work():
    def seconds(lookahead=2, n_rows=1_000, max_depth=-1, n_features=20, min_rows=2.0):
        return lookahead_seconds(
            lookahead,
            n_rows,
            np.full(n_features, n_rows),
            np.zeros(n_features, dtype=bool),
            max_depth=max_depth,
            min_rows=min_rows,
            share=1.0,
            cuts=LOOKAHEAD_CUTS,
        )[0]

    depths = [seconds(max_depth=d) for d in range(1, 12)]
    # Unlimited, the deepest levels still look two levels ahead.
    assert depths == sorted(depths) and depths[-1] <= seconds()
    assert seconds(lookahead=0) < seconds(lookahead=1) < seconds(lookahead=2)
    assert seconds(n_rows=500) < seconds(n_rows=1_000) < seconds(n_rows=2_000)
    assert seconds(n_features=10) < seconds(n_features=20)
    assert seconds(min_rows=100.0) < seconds(min_rows=10.0) < seconds()


def measured_data(path):
    """The training rows of ``bench/lookahead.py`` (two thirds, stratified, seed 0)."""
    frame = pd.read_csv(path)
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    X_train, _, _, _ = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    return X_train


@pytest.mark.parametrize(
    ("name", "lookahead", "measured"),
    [("diabetes", 1, 0.212), ("diabetes", 2, 19.639), ("ionosphere", 1, 1.247)],
)
def test_the_estimate_is_near_the_times_measured(name, lookahead, measured, shared):
    """bench/README.md's look-ahead table: CART at full depth, numeric features (exact
    bins: one a distinct value). The estimate stays within a factor of 3 of the time
    measured, above it rather than below."""
    X = measured_data(shared(f"{name}.csv"))
    n_bins = X.nunique().to_numpy()
    estimate, _ = lookahead_seconds(
        lookahead,
        len(X),
        n_bins,
        np.zeros(len(n_bins), dtype=bool),
        max_depth=-1,
        min_rows=2.0,
        share=1.0,
        cuts=LOOKAHEAD_CUTS,
    )
    assert measured <= estimate <= 3.0 * measured


def test_the_issues_figure_is_within_a_factor_of_two():
    """1,000 x 20 numeric rows, max_depth=3, lookahead=2: 338 s measured."""
    estimate, levels = lookahead_seconds(
        2,
        1_000,
        ISSUE_BINS,
        np.zeros(20, dtype=bool),
        max_depth=3,
        min_rows=2.0,
        share=1.0,
        cuts=LOOKAHEAD_CUTS,
    )
    assert levels == 3
    assert 338 / 2 <= estimate <= 338 * 2
    assert LOOKAHEAD_WARN_SECONDS < estimate < LOOKAHEAD_BUDGET_SECONDS


@pytest.fixture
def no_lookahead_work(monkeypatch):
    """Any look-ahead search fails the test: what is refused or warned about must be
    before it."""

    def started(self, items):
        raise AssertionError("the look-ahead search started")

    monkeypatch.setattr(LocalStatistics, "lookahead", started)


def test_a_fit_of_the_issues_shape_warns_before_the_look_ahead_starts(no_lookahead_work):
    X, y = numeric_rows(1_000, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the warning stops the fit
        with pytest.raises(UserWarning, match="lookahead=2 on 1,000 rows and 20 features"):
            quercus.DecisionTreeClassifier(max_depth=3, lookahead=2).fit(X, y)


def test_a_full_depth_fit_of_the_issues_shape_is_refused_before_it_starts(no_lookahead_work):
    X, y = numeric_rows(1_000, 20)
    with pytest.raises(quercus.InvalidParameterError, match="set lookahead=1"):
        quercus.DecisionTreeClassifier(lookahead=2).fit(X, y)


def parity(bits: int, n: int = 1_000):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 10)), columns=[f"b{i}" for i in range(10)])
    return X.astype(str), np.bitwise_xor.reduce(X.iloc[:, :bits].to_numpy(), axis=1)


@pytest.mark.parametrize(("bits", "lookahead"), [(2, 1), (3, 2)])
def test_the_look_ahead_fits_of_the_tests_pass_quietly(bits, lookahead):
    """tests/splitting/test_lookahead.py's fits: parity of nominal bits, multiway, at the
    parity's depth; and on numbers (warnings are errors in the suite)."""
    X, y = parity(bits)
    tree = quercus.ID3Classifier(max_depth=bits, lookahead=lookahead).fit(X, y)
    assert tree.get_n_leaves() == 2**bits
    price(1_000, np.full(10, 2), np.full(10, NOMINAL), max_depth=bits, lookahead=lookahead)
    numbers = X.astype(float).to_numpy()
    quercus.DecisionTreeRegressor(max_depth=2, lookahead=1).fit(numbers, 3.0 * y)


# ---------------------------------------------------------------------------------------------
# Integers the kernels cannot hold

TOO_LARGE = [
    (quercus.DecisionTreeClassifier, "max_depth", 10**30, "at most 2,147,483,647"),
    (quercus.CARTRegressor, "max_depth", 2**31, "at most 2,147,483,647"),
    (quercus.DecisionTreeClassifier, "max_leaf_nodes", 2**31, "at most 2,147,483,647"),
    (quercus.C45Classifier, "min_samples_split", 10**400, "at most 9,007,199,254,740,992"),
    (quercus.ID3Classifier, "min_samples_leaf", 2**53 + 1, "at most 9,007,199,254,740,992"),
    (quercus.DecisionTreeClassifier, "max_features", 10**400, "at most 2,147,483,647"),
    (quercus.DecisionTreeClassifier, "max_bins", 2**31, "at most 2,147,483,647"),
    (quercus.RandomForestClassifier, "n_estimators", 2**63, "at most 2,147,483,647"),
    (quercus.RandomForestRegressor, "max_samples", 2**63, "at most 9,223,372,036,854,775,807"),
    (quercus.ModelTreeRegressor, "max_depth", 10**30, "at most 2,147,483,647"),
    (quercus.DecisionTreeClassifier, "min_impurity_decrease", 10**400, "a number >= 0"),
    (quercus.CARTClassifier, "ccp_alpha", 10**400, "a number >= 0 or 'cv'"),
    (quercus.C45Classifier, "confidence", 10**400, "in (0, 0.5]"),
    (quercus.DecisionTreeClassifier, "lookahead", 10**30, "0, 1 or 2"),
    (quercus.RandomForestClassifier, "random_state", 2**64, "an integer in [0, 2**32)"),
]


@pytest.mark.parametrize(
    ("cls", "name", "value", "words"),
    TOO_LARGE,
    ids=[f"{c.__name__}-{n}" for c, n, _, _ in TOO_LARGE],
)
def test_an_integer_beyond_the_kernels_is_refused_naming_it(cls, name, value, words):
    frame = quercus.datasets.load("iris")
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    y = X.iloc[:, 0] if cls.regression else y
    with pytest.raises(quercus.InvalidParameterError) as refused:
        cls(**{name: value}).fit(X, y)
    assert refused.value.name == name
    assert str(refused.value).startswith(f"{name} must be ")
    assert words in str(refused.value)
    assert len(str(refused.value)) < 250  # the value is cut short


def test_the_largest_values_the_kernels_hold_are_taken():
    frame = quercus.datasets.load("iris")
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    most = 2**31 - 1
    tree = quercus.DecisionTreeClassifier(max_depth=most, max_bins=most).fit(X, y)
    assert tree.score(X, y) == 1.0
    quercus.DecisionTreeClassifier(max_leaf_nodes=most, min_samples_leaf=2**53).fit(X, y)
    check_params(quercus.RandomForestClassifier(n_estimators=most, max_samples=2**63 - 1))


def test_the_command_line_refuses_it_before_reading_data(tmp_path, capsys):
    absent = str(tmp_path / "absent.csv")
    status = main(["fit", absent, "--set", f"max_depth={10**30}"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--set max_depth: max_depth must be at most 2,147,483,647" in err


# ---------------------------------------------------------------------------------------------
# Forests out of proportion


def test_ten_million_trees_warn_of_their_memory_before_growing():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 2, 60)
    forest = quercus.RandomForestClassifier(n_estimators=10**7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the warning stops the fit
        with pytest.raises(UserWarning) as warned:
            forest.fit(X, y)
    assert str(warned.value).startswith(
        "n_estimators=10,000,000: the grown trees would hold at least 2.4 GiB of memory"
    )
    assert not hasattr(forest, "estimators_")  # warned before any tree grew


def test_a_forest_warns_from_its_size_alone():
    most_quiet = FOREST_WARN_BYTES // TREE_BYTES
    warn_of_forest_size(most_quiet)  # a warning would fail the test
    with pytest.warns(UserWarning, match=f"n_estimators={most_quiet + 1:,}: "):
        warn_of_forest_size(most_quiet + 1)


def test_max_samples_beyond_a_thousand_times_the_rows_is_refused():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(150, 3)), rng.integers(0, 2, 150)
    with pytest.raises(quercus.InvalidParameterError, match="max_samples=1000000000000 is more"):
        quercus.RandomForestClassifier(n_estimators=2, max_samples=10**12).fit(X, y)
    quercus.RandomForestClassifier(n_estimators=2, max_samples=150_000).fit(X, y)


def test_bootstrap_draws_in_blocks_are_the_draws_at_once(monkeypatch):
    n, n_draws = 37, 10_007
    at_once = np.random.default_rng(5).integers(0, n, n_draws)
    expected = np.bincount(at_once, minlength=n).astype(np.float64)
    monkeypatch.setattr(bootstrap, "BOOTSTRAP_BLOCK", 1_000)
    np.testing.assert_array_equal(bootstrap.bootstrap_counts(5, n, n_draws), expected)


def test_a_large_bootstrap_sample_takes_the_memory_of_its_counts():
    n, n_draws = 5_000, 4 * bootstrap.BOOTSTRAP_BLOCK  # about 840 times the rows
    tracemalloc.start()
    try:
        bootstrap.bootstrap_counts(3, n, n_draws)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A block of draws at once (8 MiB), not all of them (32 MiB).
    assert peak <= 8 * bootstrap.BOOTSTRAP_BLOCK + 64 * n + 65_536
