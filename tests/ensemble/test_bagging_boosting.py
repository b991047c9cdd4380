"""scikit-learn's bagging and boosting with quercus trees as the base estimator.

quercus trees take ``sample_weight`` and follow the estimator API, so the recipe is the
ordinary one: ``BaggingClassifier(estimator=quercus.CARTClassifier())``,
``AdaBoostClassifier(estimator=quercus.CARTClassifier(max_depth=1))``.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier
from sklearn.model_selection import train_test_split

import quercus

pytestmark = pytest.mark.slow


def test_bagging_quercus_trees_beats_one_tree():
    X, y = make_classification(2000, 10, n_informative=5, flip_y=0.15, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    tree = quercus.CARTClassifier().fit(X_train, y_train)
    bag = BaggingClassifier(estimator=quercus.CARTClassifier(), n_estimators=30, random_state=0)
    bag.fit(X_train, y_train)
    assert all(isinstance(e, quercus.CARTClassifier) for e in bag.estimators_)
    assert bag.score(X_test, y_test) > tree.score(X_test, y_test) + 0.04


def test_bagging_with_nominal_strings():
    rng = np.random.default_rng(1)
    colour = rng.choice(["red", "green", "blue"], 600)
    size = rng.normal(size=600)
    y = np.where((colour == "red") ^ (size > 0.5), "a", "b")
    X = pd.DataFrame({"colour": colour, "size": size})
    bag = BaggingClassifier(estimator=quercus.ID3Classifier(), n_estimators=10, random_state=0)
    bag.fit(X, y)
    assert bag.score(X, y) > 0.95


def test_adaboost_samme_with_several_classes():
    X, y = make_classification(
        1500, 8, n_informative=5, n_classes=3, n_clusters_per_class=1, random_state=0
    )
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    stump = quercus.CARTClassifier(max_depth=1)
    boost = AdaBoostClassifier(estimator=stump, n_estimators=60, random_state=0)
    boost.fit(X_train, y_train)
    assert len(boost.estimators_) > 10
    # Each round reweights the cases: the stumps differ.
    assert len({(e.tree_.feature[0], e.tree_.threshold[0]) for e in boost.estimators_}) > 5
    assert boost.score(X_test, y_test) > stump.fit(X_train, y_train).score(X_test, y_test) + 0.1


def test_adaboost_regressor():
    X, y = make_regression(1000, 6, n_informative=4, noise=5.0, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    base = quercus.CARTRegressor(max_depth=3)
    boost = AdaBoostRegressor(estimator=base, n_estimators=40, random_state=0)
    boost.fit(X_train, y_train)
    assert boost.score(X_test, y_test) > base.fit(X_train, y_train).score(X_test, y_test) + 0.05


def _with_missing_values():
    """A small table with NaN in a numeric column and None in a string column."""
    rng = np.random.default_rng(2)
    colour = rng.choice(["red", "green", "blue"], 200).astype(object)
    size = rng.normal(size=200)
    y = np.where((colour == "red") ^ (size > 0.5), "a", "b")
    size[::7] = np.nan
    colour[::11] = None
    return pd.DataFrame({"colour": colour, "size": size}), y


def test_bagging_passes_missing_values_to_the_trees():
    """What the docs say: BaggingClassifier hands NaN and None to the quercus trees, which
    handle them by their ``missing=`` policy."""
    X, y = _with_missing_values()
    bag = BaggingClassifier(estimator=quercus.CARTClassifier(), n_estimators=5, random_state=0)
    bag.fit(X, y)
    assert bag.score(X, y) > 0.8


@pytest.mark.parametrize(
    ("booster", "base"),
    [
        (AdaBoostClassifier, quercus.CARTClassifier(max_depth=1)),
        (AdaBoostRegressor, quercus.CARTRegressor(max_depth=1)),
    ],
)
def test_adaboost_refuses_missing_values(booster, base):
    """What the docs say: AdaBoost validates X itself and refuses NaN, whatever the base
    estimator takes (if scikit-learn lifts this, the docs must change)."""
    X, y = _with_missing_values()
    if booster is AdaBoostRegressor:
        y = (y == "a").astype(float)
    with pytest.raises(ValueError, match="contains NaN"):
        booster(estimator=base, n_estimators=3).fit(X, y)


@pytest.mark.parametrize("page", ["README.md", "docs/forests.md", "docs/algorithms/ensembles.rst"])
def test_the_docs_say_adaboost_refuses_missing_values(page):
    """Every page that shows AdaBoost over quercus trees says it refuses missing values,
    that bagging passes them, and that quercus's native gradient boosting takes them."""
    text = " ".join((Path(__file__).resolve().parents[2] / page).read_text().split())
    assert "AdaBoostClassifier(estimator=quercus." in text
    assert re.search(r"AdaBoost[^.]* refuses missing values", text)
    assert re.search(r"[Bb]agging[^.]* passes missing values|BaggingClassifier`* passes them", text)
    assert re.search(r"(native|own) gradient boosting.{0,160}?takes missing", text)
    assert "is planned" not in text
