"""One tree on several threads is the very tree one thread grows.

Each case fits an estimator with ``n_jobs=1`` and again with 2 and 3 threads, with the
thresholds of ``grow/threads.py`` lowered so that data of a few thousand rows is grown as a
top and many subtrees; the trees must be equal field for field. A spy on the compiled
grower checks that subtrees were in fact grown apart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from test_levelwise import _frame, _with_missing, assert_same_tree

import quercus
from quercus._config import LEAF
from quercus._parallel import n_threads
from quercus.grow import threads
from quercus.grow._settings import DEFERRED


@pytest.fixture
def small_subtrees(monkeypatch):
    """Thread trees of 500 rows and more, subtrees of 40 rows and more; returns the list of
    the row counts of each call of the compiled grower (the top's first)."""
    monkeypatch.setattr(threads, "MIN_THREADED_ROWS", 500)
    monkeypatch.setattr(threads, "MIN_DEFER_ROWS", 40)
    calls = []
    grow_in = threads.grow_tree_in

    def spy(rows, buffers, bins, s):
        calls.append((len(rows[0]), s.defer_rows))
        return grow_in(rows, buffers, bins, s)

    monkeypatch.setattr(threads, "grow_tree_in", spy)
    return calls


def _fit_threads(estimator, X, y, calls, sample_weight=None):
    one = clone(estimator).set_params(n_jobs=1).fit(X, y, sample_weight=sample_weight)
    assert calls == []  # one thread: the compiled grower alone, no top and subtrees
    trees = []
    for jobs in (2, 3):
        calls.clear()
        fitted = clone(estimator).set_params(n_jobs=jobs).fit(X, y, sample_weight=sample_weight)
        trees.append(fitted.tree_)
        assert calls[0][1] > 0 and len(calls) > 2, "no subtree was grown apart"
    return one.tree_, trees


def _synthetic(n: int, seed: int, n_classes: int = 2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=list("abcde"))
    X["colour"] = rng.choice(["red", "green", "blue", "grey", "black"], n)
    X.loc[rng.random(n) < 0.1, "b"] = np.nan
    score = X["a"].to_numpy() + (X["colour"] == "red") - np.nan_to_num(X["b"].to_numpy())
    y = np.digitize(score + rng.normal(scale=0.7, size=n), np.linspace(-1.5, 1.5, n_classes - 1))
    return X, y


CLASSIFIERS = [
    quercus.DecisionTreeClassifier(),
    quercus.DecisionTreeClassifier(criterion="entropy", nominal_split="multiway"),
    quercus.DecisionTreeClassifier(max_features=3, random_state=7),
    quercus.DecisionTreeClassifier(max_depth=6, min_samples_leaf=3, missing="majority"),
    quercus.CARTClassifier(criterion="twoing", missing="class_majority"),
    quercus.ID3Classifier(significance=0.05),
    quercus.DecisionTreeClassifier(criterion="gain_ratio", max_bins=16),
]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=repr)
@pytest.mark.parametrize("n_classes", [2, 5])
def test_threaded_classification_tree_is_the_serial_tree(estimator, n_classes, small_subtrees):
    X, y = _synthetic(3000, seed=n_classes, n_classes=n_classes)
    one, many = _fit_threads(estimator, X, y, small_subtrees)
    assert one.node_count > 30
    for tree in many:
        assert_same_tree(one, tree)


@pytest.mark.parametrize(
    "estimator",
    [
        quercus.DecisionTreeRegressor(),
        quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=8),
        quercus.DecisionTreeRegressor(min_samples_leaf=4, max_features=2, random_state=3),
        quercus.CARTRegressor(ccp_alpha=0.01),
    ],
    ids=repr,
)
def test_threaded_regression_tree_is_the_serial_tree(estimator, small_subtrees):
    X, y = _synthetic(2500, seed=3, n_classes=2)
    target = X["a"].to_numpy() * 3 + y + np.random.default_rng(0).normal(size=len(y))
    one, many = _fit_threads(estimator, X, target, small_subtrees)
    assert one.node_count > 20
    for tree in many:
        assert_same_tree(one, tree)


def test_many_level_split_grows_its_small_children_in_its_task(small_subtrees, monkeypatch):
    """A split many ways (a nominal column of 300 levels, few of them frequent) leaves only
    its large children to other tasks and grows the small ones itself: the tree is the
    serial one, and the compiled grower runs a few times, not once per level."""
    rng = np.random.default_rng(8)
    n = 3000
    level = rng.choice(300, n, p=1 / np.arange(1, 301) / np.sum(1 / np.arange(1, 301)))
    X = pd.DataFrame({"code": [f"L{k}" for k in level], "x": rng.normal(size=n)})
    y = ((level % 3 == 0) ^ (X["x"].to_numpy() > 0.3)).astype(int)
    estimator = quercus.ID3Classifier(nominal_features=["code"])
    one, many = _fit_threads(estimator, X, y, small_subtrees)
    for tree in many:
        assert_same_tree(one, tree)
    root_children = one.n_children[0]
    assert root_children > 200
    assert 2 < len(small_subtrees) < root_children / 4


def test_threaded_tree_with_sample_weights_and_shared_data(small_subtrees, shared):
    X, y = _frame(shared, "credit-a.csv")
    X = _with_missing(X, 0.05, seed=1)
    weights = np.random.default_rng(2).integers(1, 4, len(y)).astype(float)
    one, many = _fit_threads(
        quercus.CARTClassifier(min_samples_leaf=2), X, y, small_subtrees, weights
    )
    for tree in many:
        assert_same_tree(one, tree)


@pytest.mark.parametrize(
    "estimator",
    [
        quercus.C45Classifier(),  # fractional missing values: one pool of rows
        quercus.DecisionTreeClassifier(max_leaf_nodes=20),  # best-first growth
    ],
    ids=repr,
)
def test_growth_that_needs_one_thread_keeps_it(estimator, small_subtrees):
    X, y = _synthetic(3000, seed=4)
    one = clone(estimator).set_params(n_jobs=1).fit(X, y)
    two = clone(estimator).set_params(n_jobs=2).fit(X, y)
    assert small_subtrees == []
    assert_same_tree(one.tree_, two.tree_)


def test_trace_keeps_one_thread(small_subtrees):
    X, y = _synthetic(3000, seed=5)
    quercus.DecisionTreeClassifier(n_jobs=2, max_depth=3).fit(X, y, trace=True)
    assert small_subtrees == []


def test_deferred_nodes_are_leaves_of_their_piece_with_their_rows(small_subtrees, monkeypatch):
    """Each task's DEFERRED nodes are leaves of what it grew, and the piece grown for each
    starts with that node's rows, depth and statistics; the grafted tree holds every node
    of every piece but the deferred ones."""
    seen, pending, task_of = [], {}, {}
    graft, grow_task, child_tasks = threads.graft, threads._grow_task, threads._child_tasks

    def keep(pieces, root=0):
        seen.append(dict(pieces))  # graft empties it as it lays the pieces
        return graft(pieces, root)

    def grow(task, *args):
        arrays, children = grow_task(task, *args)
        task_of[id(arrays)] = task.start, task.end
        return arrays, children

    def deferred(task, grown):  # the DEFERRED records of each task's piece
        pending[task.start, task.end] = np.flatnonzero(grown.nodes["pending"] == DEFERRED)
        return child_tasks(task, grown)

    monkeypatch.setattr(threads, "graft", keep)
    monkeypatch.setattr(threads, "_grow_task", grow)
    monkeypatch.setattr(threads, "_child_tasks", deferred)
    X, y = _synthetic(4000, seed=6)
    est = quercus.DecisionTreeClassifier(n_jobs=2).fit(X, y)
    (pieces,) = seen
    assert len(pieces) > 10
    for piece in pieces.values():
        arrays = piece.arrays
        nodes = pending[task_of[id(arrays)]]
        assert sorted(piece.deferred) == nodes.tolist()
        assert (arrays.kind[nodes] == LEAF).all()
        for node, child in piece.deferred.items():
            sub = pieces[child].arrays
            assert sub.n_node_samples[0] == arrays.n_node_samples[node]
            assert sub.depth[0] == arrays.depth[node]
            np.testing.assert_array_equal(sub.value[0], arrays.value[node])
    n_nodes = sum(len(p.arrays.kind) - len(p.deferred) for p in pieces.values())
    assert est.tree_.node_count == n_nodes


def test_n_threads_reads_n_jobs_as_scikit_learn(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert [n_threads(j) for j in (None, 1, 3, -1, -2, -20)] == [1, 1, 3, 8, 7, 1]


def test_n_jobs_is_checked():
    X, y = _synthetic(100, seed=0)
    with pytest.raises(ValueError, match="n_jobs"):
        quercus.DecisionTreeClassifier(n_jobs=0).fit(X, y)
