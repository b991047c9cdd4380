"""C4.5's rules for numeric attributes: the trees J48 prints for weather.numeric and iris."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

import quercus
from quercus import read_table


def splits(est):
    t = est.tree_
    return [
        (est.schema_.names[t.feature[i]], float(t.threshold[i]))
        for i in range(t.node_count)
        if t.kind[i] == 1
    ]


def test_weather_numeric_as_j48(shared):
    # J48 -C 0.25 -M 2: outlook = sunny -> humidity <= 75: yes (2) / > 75: no (3);
    # overcast: yes (4); rainy -> windy = TRUE: no (2) / FALSE: yes (3).
    X, y = read_table(shared("weather.numeric.csv"))
    est = quercus.C45Classifier().fit(X, y)
    assert splits(est) == [("humidity", 75.0)]  # the training value, not the midpoint 77.5
    assert est.get_n_leaves() == 5 and est.score(X, y) == 1.0
    sunny = X[X["outlook"] == "sunny"]
    leaves = est.apply(sunny)
    assert sorted(est.tree_.value[np.unique(leaves)].sum(axis=1)) == [2.0, 3.0]


def test_iris_as_j48():
    # J48's tree on iris: petalwidth <= 0.6 | <= 1.7 | petallength <= 4.9 | petalwidth <= 1.5;
    # 5 leaves, 9 nodes.
    X, y = load_iris(return_X_y=True)
    est = quercus.C45Classifier().fit(X, y)
    t = est.tree_
    assert [(int(f), float(v)) for f, v in zip(t.feature, t.threshold, strict=True) if f >= 0] == [
        (3, 0.6),
        (3, 1.7),
        (2, 4.9),
        (3, 1.5),
    ]
    assert est.get_n_leaves() == 5 and t.node_count == 9
    assert est.score(X, y) == pytest.approx(147 / 150)  # errors 1 + 1 + 1 at three leaves


def test_rules_off_gives_midpoints():
    X, y = load_iris(return_X_y=True)
    est = quercus.C45Classifier(c45_thresholds=False, pruning=None).fit(X, y)
    assert est.tree_.threshold[0] in (0.8, 2.45)  # a midpoint between two training values
