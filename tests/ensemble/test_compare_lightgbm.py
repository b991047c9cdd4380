"""Gradient boosting against LightGBM and scikit-learn's HistGradientBoosting, through the
numbers ``scripts/boosting_reference.py`` stored in ``tests/fixtures/boosting_reference.json``
(neither library is imported here).

* One iteration (scikit-learn's own bar against LightGBM, ``test_compare_lightgbm.py``):
  on 2,000 rows of few whole values, learning rate 1 and 31 leaves, fewer than 1% of
  quercus's raw scores differ by more than 1e-3 (relative) from LightGBM's, for the squared
  error, the binary and the 3-class log-loss.
* 100 iterations of the one model (31 leaves, learning rate 0.1, 255 bins, 20 rows a leaf,
  no early stopping) on six shared data sets: quercus's test metric (AUC, accuracy, R^2) is
  within 0.002 of LightGBM's and of HistGradientBoosting's; where it is not (three of
  LightGBM's, :data:`MISSES`), the fixture's diagnostics show that the gap is LightGBM's own
  choices, and the test says so as a strict expected failure.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, log_loss, r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

import quercus

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "boosting_reference.json"
REFERENCE = json.loads(FIXTURE.read_text(encoding="utf-8"))
ORACLE = REFERENCE["one_iteration"]
MODEL = REFERENCE["model"]

#: quercus's test metric must be within this of each reference's.
TOLERANCE = 0.002
LIBRARIES = {"lightgbm": "LightGBM", "hist_gradient_boosting": "HistGradientBoosting"}


# ----------------------------------------------------------------------------- one iteration


def oracle_data(seed: int, n_rows: int, levels):
    """A copy of ``oracle_data`` in scripts/boosting_reference.py (the fixture's hashes check
    that both make the same bits): exactly rounded arithmetic only."""
    rng = np.random.default_rng(seed)
    levels = np.asarray(levels, dtype=np.int64)
    X = rng.integers(0, levels, size=(n_rows, len(levels))).astype(np.float64)
    a, b, c, d, e = X.T
    signal = (
        a / 40.0
        + (b - 12.0) * (b - 12.0) / 100.0
        - (c > 5.0)
        + np.abs(d - 30.0) / 20.0 * (e - 3.0) / 3.0
    )
    noise = rng.random(n_rows) + rng.random(n_rows) + rng.random(n_rows) - 1.5
    y_regression = signal + 0.6 * noise
    y_binary = (y_regression > np.median(y_regression)).astype(np.int64)
    y_multiclass = (y_regression > np.quantile(y_regression, 1 / 3)).astype(np.int64) + (
        y_regression > np.quantile(y_regression, 2 / 3)
    ).astype(np.int64)
    return X, {"y_regression": y_regression, "y_binary": y_binary, "y_multiclass": y_multiclass}


def sha256(array) -> str:
    array = np.asarray(array)
    kind = "<f8" if array.dtype.kind == "f" else "<i8"
    return hashlib.sha256(np.ascontiguousarray(array, dtype=kind).tobytes()).hexdigest()


@pytest.fixture(scope="module")
def oracle():
    data = ORACLE["data"]
    X, targets = oracle_data(data["seed"], data["n_rows"], data["levels"])
    made = {"X": sha256(X), **{name: sha256(y) for name, y in targets.items()}}
    assert made == data["sha256"], (
        "the oracle's data are not those LightGBM saw: store them in the fixture instead"
    )
    return X, targets


@pytest.mark.parametrize("case", ["squared_error", "binary", "multiclass"])
def test_one_iteration_matches_lightgbm(oracle, case):
    X, targets = oracle
    stored = ORACLE["cases"][case]
    y = targets[stored["target"]]
    settings = {**ORACLE["settings"], "early_stopping": False, "random_state": 0}
    if case == "squared_error":
        ours = quercus.GradientBoostingRegressor(**settings).fit(X, y).predict(X)
    else:
        ours = quercus.GradientBoostingClassifier(**settings).fit(X, y).decision_function(X)
    theirs = np.asarray(stored["raw_predictions"])
    assert ours.shape == theirs.shape
    off = ~np.isclose(ours, theirs, rtol=1e-3)
    assert off.mean() < 0.01, f"{off.mean():.2%} of the raw scores differ from LightGBM's"
    # not a vacuous match: LightGBM's trees have 31 leaves, and each of quercus's trees
    # gives as many distinct scores as LightGBM's (two leaves of a binary tree with the same
    # class counts share a score)
    assert stored["n_leaves"] == [ORACLE["settings"]["max_leaf_nodes"]] * ours[:1].size
    distinct = [len(np.unique(column)) for column in ours.reshape(len(ours), -1).T]
    assert distinct == [len(np.unique(column)) for column in theirs.reshape(len(ours), -1).T]


# ----------------------------------------------------------------------------- 100 iterations


def read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def train_and_test(entry: dict, shared) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fixture's training and test rows (found by the ``shared`` fixture): the official
    files, or the script's split."""
    files, split = entry["files"], entry["split"]
    frame = read_csv(shared(files["train"].removesuffix(".gz")))
    if files["test"] is not None:
        return frame, read_csv(shared(files["test"]))
    train, test = train_test_split(np.arange(len(frame)), test_size=0.2, random_state=0)
    assert hashlib.sha256(test.astype("<i8").tobytes()).hexdigest() == split["test_rows_sha256"]
    return frame.iloc[train].reset_index(drop=True), frame.iloc[test].reset_index(drop=True)


@functools.cache
def quercus_metrics(name: str, shared) -> dict:
    """quercus's test metrics on data set ``name``, fitted once with the one model."""
    entry = REFERENCE["datasets"][name]
    train, test = train_and_test(entry, shared)
    assert (len(train), len(test)) == (entry["split"]["n_train"], entry["split"]["n_test"])
    target = entry["target"]
    params = {
        "max_iter": MODEL["max_iter"],
        "learning_rate": MODEL["learning_rate"],
        "max_leaf_nodes": MODEL["max_leaf_nodes"],
        "max_bins": MODEL["max_bins"],
        "min_samples_leaf": MODEL["min_samples_leaf"],
        "min_child_weight": MODEL["min_child_weight"],
        "l2_regularization": MODEL["l2_regularization"],
        "early_stopping": False,
        "nominal_features": entry["nominal"] or None,
        "ordinal_features": entry["ordinal"] or None,
        "n_jobs": -1,  # the model does not depend on it
        "random_state": 0,
    }
    X_train, X_test = train.drop(columns=target), test.drop(columns=target)
    if entry["task"] == "regression":
        model = quercus.GradientBoostingRegressor(**params).fit(X_train, train[target])
        return {"r2": r2_score(test[target], model.predict(X_test))}
    model = quercus.GradientBoostingClassifier(**params).fit(X_train, train[target])
    proba = model.predict_proba(X_test)
    if entry["task"] == "binary":
        positive = list(model.classes_).index(entry["positive_class"])
        return {"auc": roc_auc_score(test[target] == entry["positive_class"], proba[:, positive])}
    return {
        "accuracy": accuracy_score(test[target], model.predict(X_test)),
        "log_loss": log_loss(test[target], proba, labels=model.classes_),
    }


#: Cases where quercus misses the bar, with the numbers measured (xfail, strict: a pass
#: says the gap closed and the mark must go).
#: The fixture's ``diagnostics`` say where each gap comes from.
MISSES: dict[tuple[str, str], str] = {
    ("letter", "lightgbm"): (
        "accuracy 0.96450 (HGB's, to the row) against LightGBM's 0.96175: LightGBM checks "
        "min_child_samples on leaf sizes estimated from hessian sums; with 1 row a leaf "
        "LightGBM and HGB are 0.96075 and 0.96100"
    ),
    ("cal_housing", "lightgbm"): (
        "R^2 0.82847 against LightGBM's 0.83176: bin boundaries; LightGBM on HGB's bins "
        "gives 0.82849"
    ),
    ("flights_nyc2013", "lightgbm"): (
        "R^2 0.86166 against LightGBM's 0.87374: bin boundaries; LightGBM on HGB's bins "
        "gives 0.86167"
    ),
}


def comparison_cases():
    for name in REFERENCE["datasets"]:
        for library in LIBRARIES:
            reason = MISSES.get((name, library))
            marks = [pytest.mark.slow]
            if reason is not None:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            yield pytest.param(name, library, id=f"{name}-{library}", marks=marks)


@pytest.mark.parametrize(("name", "library"), list(comparison_cases()))
def test_hundred_iterations_score_as_the_reference(name, library, shared):
    """quercus's test metric within 0.002 of the reference's, fitted as the one model."""
    entry = REFERENCE["datasets"][name]
    metric = entry["metrics"][0]  # AUC, accuracy or R^2 (log-loss is recorded alongside)
    ours = quercus_metrics(name, shared)[metric]
    theirs = entry[library][metric]
    assert abs(ours - theirs) <= TOLERANCE, (
        f"{name}: quercus {metric} {ours:.5f}, {LIBRARIES[library]} {theirs:.5f}"
    )
