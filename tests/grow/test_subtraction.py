"""Histogram subtraction grows the very tree that summing every node's rows grows.

With whole positive weights and a class target, every histogram sum is a whole number
below 2**53, so the largest child's histograms taken as its parent's less its siblings'
are the sums made row by row, bit for bit: the tree must be the same, field for field.
Here nodes of 16 rows and more keep their histograms, so that data of a few thousand rows
subtracts at most of its nodes; a spy on the grower checks that subtraction was on.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from test_levelwise import assert_same_tree
from test_threaded_growth import _synthetic

import quercus
from quercus._config import FRACTIONAL, MAJORITY
from quercus.grow import grower, threads
from quercus.grow._settings import Settings

OFF = 10**12  # SUBTRACT_ROWS above any data: subtraction off


@pytest.fixture
def subtracting(monkeypatch):
    """Subtraction from nodes of 16 rows; returns the ``subtract_rows`` of each call of the
    grower."""
    monkeypatch.setattr(grower, "SUBTRACT_ROWS", 16)
    seen = []
    grow_tree = grower.grow_tree

    def spy(data, y_class, y_value, w, bins, s):
        seen.append(s.subtract_rows)
        return grow_tree(data, y_class, y_value, w, bins, s)

    monkeypatch.setattr(grower, "grow_tree", spy)
    return seen


def _fit_both(estimator, X, y, monkeypatch, sample_weight=None):
    """The estimator fitted with subtraction and without."""
    subtracted = clone(estimator).fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as patch:
        patch.setattr(grower, "SUBTRACT_ROWS", OFF)
        summed = clone(estimator).fit(X, y, sample_weight=sample_weight)
    return subtracted, summed


CLASSIFIERS = [
    quercus.DecisionTreeClassifier(),
    quercus.DecisionTreeClassifier(criterion="entropy", nominal_split="multiway"),
    quercus.DecisionTreeClassifier(max_depth=6, min_samples_leaf=3, missing="majority"),
    quercus.CARTClassifier(criterion="twoing", missing="class_majority"),
    quercus.ID3Classifier(significance=0.05),
    quercus.DecisionTreeClassifier(criterion="gain_ratio", max_bins=16),
    quercus.C45Classifier(missing="majority"),
]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=repr)
@pytest.mark.parametrize("n_classes", [2, 5])
def test_subtraction_grows_the_same_tree(estimator, n_classes, subtracting, monkeypatch):
    X, y = _synthetic(3000, seed=n_classes, n_classes=n_classes)
    subtracted, summed = _fit_both(estimator, X, y, monkeypatch)
    assert subtracting[0] == 16
    assert summed.tree_.node_count > 30
    assert_same_tree(subtracted.tree_, summed.tree_)


def test_subtraction_with_whole_weights_and_threads(subtracting, monkeypatch):
    monkeypatch.setattr(threads, "MIN_THREADED_ROWS", 500)
    monkeypatch.setattr(threads, "MIN_DEFER_ROWS", 40)
    X, y = _synthetic(4000, seed=11, n_classes=3)
    weights = np.random.default_rng(3).integers(1, 5, len(y)).astype(float)
    for jobs in (1, 2):
        estimator = quercus.DecisionTreeClassifier(n_jobs=jobs)
        subtracted, summed = _fit_both(estimator, X, y, monkeypatch, weights)
        assert_same_tree(subtracted.tree_, summed.tree_)
    assert subtracting[0] == 16


def test_bagged_trees_subtract(subtracting, monkeypatch):
    """A forest that searches every feature at each node (bagging) has whole bootstrap
    weights: its trees subtract, and are the same."""
    X, y = _synthetic(2000, seed=5, n_classes=3)
    forest = quercus.RandomForestClassifier(n_estimators=3, max_features=None, random_state=0)
    subtracted, summed = _fit_both(forest, X, y, monkeypatch)
    assert subtracting[:3] == [16, 16, 16]  # then the three trees without
    for a, b in zip(subtracted.estimators_, summed.estimators_, strict=True):
        assert_same_tree(a.tree_, b.tree_)


def _settings(**changes) -> Settings:
    plain = Settings(
        multiway=False,
        criterion=0,
        regression=False,
        n_stats=2,
        max_depth=-1,
        min_split=2.0,
        min_leaf=1.0,
        min_impurity_decrease=0.0,
        max_leaf_nodes=-1,
        max_features=4,
        seed=0,
        c45_classes=0,
        c45_tolerance=0.0,
        chi2_critical=np.zeros(1),
        missing_mode=MAJORITY,
        trace_on=False,
    )
    return plain._replace(**changes)


@pytest.mark.parametrize(
    ("weights", "changes", "on"),
    [
        (np.ones(5000), {}, True),
        (np.full(5000, 3.0), {}, True),
        (np.ones(100), {}, False),  # too few rows to pay
        (np.r_[np.ones(4999), 0.0], {}, False),  # a row of weight 0 would count as absent
        (np.full(5000, 0.5), {}, False),  # fractional weights: sums may round
        (np.full(5000, 2.0**50), {}, False),  # the total passes 2**53
        (np.ones(5000), {"regression": True, "n_stats": 3}, False),
        (np.ones(5000), {"missing_mode": FRACTIONAL}, False),
        (np.ones(5000), {"max_features": 2}, False),
        (np.ones(5000), {"max_leaf_nodes": 10}, False),
    ],
)
def test_subtraction_only_where_it_is_exact(weights, changes, on):
    rows = grower.subtraction_rows(weights, _settings(**changes), n_features=4)
    assert rows == (grower.SUBTRACT_ROWS if on else 0)
