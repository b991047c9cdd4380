"""``ccp_alpha="cv"``: the one-pass held-out errors against pruning and predicting at every
alpha (the slow, obvious twin, kept here), and the folds policy."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone, is_regressor

import quercus
from quercus.estimators import finish
from quercus.estimators.folds import cv_folds
from quercus.pruning import cost_complexity_path, prune_cost_complexity
from quercus.pruning.cost_complexity import held_out_errors

pytestmark = pytest.mark.filterwarnings("ignore::quercus.DataWarning")


# -- the slow twins ---------------------------------------------------------------------------


def slow_errors(est, X_test, y_test, weight, ccp_alphas):
    """Weighted mean error of ``est``'s tree pruned at each alpha, by pruning and predicting."""
    full = est.tree_
    out = []
    try:
        for alpha in ccp_alphas:
            est.tree_ = prune_cost_complexity(full, alpha)
            predicted = est.predict(X_test)
            if is_regressor(est):
                miss = (predicted - y_test) ** 2
            else:
                miss = (predicted != y_test).astype(float)
            out.append(np.average(miss, weights=weight))
    finally:
        est.tree_ = full
    return np.asarray(out)


def slow_ccp_alpha_by_cv(self, tree, cases):
    """The choice of alpha as quercus made it before the one-pass errors: every fold's tree
    pruned at every candidate and its predictions on the held-out fold counted."""
    typed, y_class, y_value, w = cases
    alphas, _ = cost_complexity_path(tree)
    candidates = np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])
    labels = y_value if is_regressor(self) else self.classes_[y_class]
    errors = []
    folds = cv_folds(
        10,
        self.random_state,
        n_rows=len(labels),
        classes=None if is_regressor(self) else labels,
        context="ccp_alpha='cv'",
        stacklevel=4,
    )
    for train, test in folds:
        params = {"ccp_alpha": 0.0}
        if "pruning" in self.get_params():
            params.update(pruning=None, class_weight=None)
        est = clone(self).set_params(**params)
        est.fit(typed.iloc[train], labels[train], sample_weight=w[train])
        errors.append(slow_errors(est, typed.iloc[test], labels[test], w[test], candidates))
    errors = np.asarray(errors)
    mean = errors.mean(axis=0)
    std_error = errors.std(axis=0, ddof=1) / np.sqrt(len(errors))
    best = int(np.argmin(mean))
    within = np.flatnonzero(mean <= mean[best] + std_error[best] + 1e-12)
    chosen = float(candidates[within.max()])
    return chosen, {"ccp_alphas": candidates, "mean_error": mean, "std_error": std_error}


# -- data -------------------------------------------------------------------------------------


def mixed_frame(n, seed, missing=0.0, task="classification"):
    """Numeric columns with ties, a nominal column of 4 categories and an ordinal-looking
    one of 3; ``missing``: share of cells made missing. Labels are noisy."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.integers(0, 12, n) / 2,
            "b": np.round(rng.normal(size=n), 1),
            "colour": rng.choice(["red", "green", "blue", "grey"], n),
            "size": rng.choice(["S", "M", "L"], n),
        }
    )
    signal = X["a"] - 3 + 2 * (X["colour"] == "red") - X["b"] + (X["size"] == "L")
    if task == "regression":
        y = np.round(signal + rng.normal(scale=1.0, size=n), 1)
    else:
        noisy = signal + rng.normal(scale=1.5, size=n)
        y = np.where(noisy > 1, "hi", np.where(noisy > -1, "mid", "lo"))
    if missing:
        for column in X.columns:
            X.loc[rng.random(n) < missing, column] = np.nan
    return X, y


def fit_both(monkeypatch, make, X, y, sample_weight=None):
    fast = make().fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as patch:
        patch.setattr(finish, "ccp_alpha_by_cv", slow_ccp_alpha_by_cv)
        slow = make().fit(X, y, sample_weight=sample_weight)
    return fast, slow


def assert_same_choice(fast, slow):
    assert fast.ccp_alpha_ == slow.ccp_alpha_
    assert set(fast.cv_results_) == {"ccp_alphas", "mean_error", "std_error"}
    np.testing.assert_array_equal(fast.cv_results_["ccp_alphas"], slow.cv_results_["ccp_alphas"])
    for key in ("mean_error", "std_error"):
        np.testing.assert_allclose(fast.cv_results_[key], slow.cv_results_[key], rtol=1e-12)
    assert fast.export_text() == slow.export_text()


# -- ccp_alpha="cv" end to end: the same choice as the slow twin ------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "make", "task", "missing", "weighted"),
    [
        (
            "cart",
            lambda: quercus.CARTClassifier(ccp_alpha="cv", min_samples_leaf=2, random_state=0),
            "c",
            0,
            0,
        ),
        (
            "regressor",
            lambda: quercus.CARTRegressor(ccp_alpha="cv", min_samples_leaf=6, random_state=1),
            "regression",
            0,
            0,
        ),
        (
            "multiway nominal",
            lambda: quercus.ID3Classifier(ccp_alpha="cv", min_samples_leaf=3, random_state=2),
            "c",
            0,
            0,
        ),
        (
            "sample weights",
            lambda: quercus.CARTClassifier(ccp_alpha="cv", min_samples_leaf=3, random_state=3),
            "c",
            0.1,
            1,
        ),
        (
            "fractional C4.5",
            lambda: quercus.C45Classifier(pruning="cost_complexity", random_state=4),
            "c",
            0.15,
            0,
        ),
        (
            "fractional regressor",
            lambda: quercus.DecisionTreeRegressor(
                ccp_alpha="cv", missing="fractional", min_samples_leaf=6, random_state=5
            ),
            "regression",
            0.15,
            1,
        ),
    ],
)
def test_cv_choice_equals_the_slow_twin(monkeypatch, name, make, task, missing, weighted):
    X, y = mixed_frame(120, seed=len(name), missing=missing, task=task)
    weight = None
    if weighted:
        weight = np.random.default_rng(0).choice([0.5, 1.0, 2.5], size=len(y))
    fast, slow = fit_both(monkeypatch, make, X, y, weight)
    assert_same_choice(fast, slow)
    assert len(fast.cv_results_["ccp_alphas"]) > 3


# -- held_out_errors against pruning and predicting, on random trees --------------------------


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    task=st.sampled_from(["classification", "regression"]),
    missing=st.sampled_from(["fractional", "majority", "learned"]),
    nominal_split=st.sampled_from(["binary", "multiway"]),
    missing_share=st.sampled_from([0.0, 0.1, 0.3]),
    weighted=st.booleans(),
)
def test_held_out_errors_equal_pruning_and_predicting(
    seed, task, missing, nominal_split, missing_share, weighted
):
    X, y = mixed_frame(90, seed, missing=missing_share, task=task)
    rng = np.random.default_rng(seed)
    weight = rng.choice([0.5, 1.0, 3.0], size=len(y)) if weighted else np.ones(len(y))
    train, test = np.arange(60), np.arange(60, 90)
    if task == "regression":
        est = quercus.DecisionTreeRegressor(missing=missing, nominal_split=nominal_split)
    else:
        est = quercus.DecisionTreeClassifier(missing=missing, nominal_split=nominal_split)
    est.fit(X.iloc[train], y[train], sample_weight=weight[train])
    path, _ = cost_complexity_path(est.tree_)
    # The path's own alphas (a tie prunes), points between and beyond them, 0 and below.
    with np.errstate(invalid="ignore"):  # a tiny negative alpha gives a NaN, as in fit
        between = np.sqrt(path[:-1] * path[1:])
    alphas = np.concatenate([path, between, [path[-1] * 2, 0.0, -1.0]])
    matrix = est._predict_matrix(X.iloc[test])
    if task == "regression":
        target, codes = y[test], None
    else:
        classes = np.unique(y)
        target = np.searchsorted(classes, y[test])
        codes = np.searchsorted(classes, est.classes_.astype(str))
    fast = held_out_errors(est.tree_, matrix, target, weight[test], alphas, codes)
    slow = slow_errors(est, X.iloc[test], y[test], weight[test], alphas)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-15)


# -- the folds --------------------------------------------------------------------------------


def count_folds(monkeypatch):
    """Count the folds that ``ccp_alpha_by_cv`` scores."""

    calls = []

    def counting(*args, **kwargs):
        calls.append(len(args[1]))  # held-out rows
        return held_out_errors(*args, **kwargs)

    monkeypatch.setattr(finish, "held_out_errors", counting)
    return calls


@pytest.mark.slow
def test_a_class_with_fewer_rows_than_folds_warns_once_and_keeps_10_folds(monkeypatch):
    X, y = mixed_frame(120, seed=7)
    y = y.astype(object)
    y[:4] = "rare"
    folds = count_folds(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1, messages  # quercus's, not scikit-learn's as well
    assert "class 'rare' has only 4 rows" in messages[0]
    assert "10 folds" in messages[0]
    assert caught[0].filename == __file__  # points at the call of fit
    assert len(folds) == 10 and sum(folds) == 120
    # cv_results_ is the 10-fold one: the twin, given the same 10 folds, agrees.
    with monkeypatch.context() as patch:
        patch.setattr(finish, "ccp_alpha_by_cv", slow_ccp_alpha_by_cv)
        with pytest.warns(UserWarning, match="class 'rare' has only 4 rows"):
            slow = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    assert_same_choice(est, slow)


def test_a_class_of_one_row_warns_and_is_cross_validated(monkeypatch):
    X, y = mixed_frame(100, seed=8)
    y = y.astype(object)
    y[10] = "single"
    y[20:22] = "pair"
    folds = count_folds(monkeypatch)
    with pytest.warns(UserWarning, match=r"class 'single' has only 1 row \(and 1 more class\)"):
        est = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    assert len(folds) == 10
    assert est.ccp_alpha_ in est.cv_results_["ccp_alphas"]


def test_no_warning_when_every_class_fills_the_folds():
    X, y = mixed_frame(150, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)


@pytest.mark.parametrize(
    ("n_rows", "labels", "message"),
    [
        (9, None, "ccp_alpha='cv': 10 folds need at least 10 rows, got 9"),
        (12, ["p", "q", "r"] * 4, "need a class with at least 10 rows; the largest, 'p', has 4"),
        (12, [7, 8, 9] * 4, "stratified folds need .*; the largest, 7, has 4$"),
    ],
)
def test_no_valid_split_is_an_error(n_rows, labels, message):
    X, y = mixed_frame(n_rows, seed=10)
    if labels is not None:
        y = np.asarray(labels)
    with pytest.raises(ValueError, match=message):
        quercus.CARTClassifier(ccp_alpha="cv").fit(X, y)


def test_regression_needs_10_rows():
    X, y = mixed_frame(9, seed=11, task="regression")
    with pytest.raises(ValueError, match="10 folds need at least 10 rows, got 9"):
        quercus.CARTRegressor(ccp_alpha="cv").fit(X, y)
    X, y = mixed_frame(10, seed=11, task="regression")
    assert quercus.CARTRegressor(ccp_alpha="cv").fit(X, y).ccp_alpha_ >= 0
