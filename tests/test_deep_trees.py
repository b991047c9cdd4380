"""Trees far deeper than Python's recursion limit: every reader walks them with a stack.

A sorted file whose class alternates grows a chain: ID3 on 1,500 rows of one such column
gives a tree of depth 1,499, and ``export_text``, ``quercus fit`` (which prints the tree
after saving it) and ``quercus show`` hit the recursion limit on it. The chain of depth
100,000 here is built from its arrays (growing it would take minutes): node ``2i`` tests
``x <= i + 0.5``, its first child is a leaf (the row ``x = i``), its second the next test.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus._config import LEAF, NUMERIC_SPLIT
from quercus.export import explain, export_graphviz, export_text, to_rules, weka_text
from quercus.report.build import MAX_NODES
from quercus.report.trees import tree_record
from quercus.tree.arrays import Tree

DEPTH = 100_000


def chain_tree(depth: int) -> Tree:
    """The tree that separates the rows ``x = 0, 1, ..., depth`` of alternating classes
    (``x % 2``) one at a time, from the left."""
    n = 2 * depth + 1
    ids = np.arange(n)
    split = (ids % 2 == 0) & (ids < 2 * depth)
    level = ids // 2  # a test's row, a leaf's row
    classes = np.arange(depth + 1) % 2
    value = np.zeros((n, 2))
    value[~split, classes[level[~split]]] = 1.0
    ones = np.cumsum(classes[::-1])[::-1]  # class-1 rows of x >= i
    rows = depth + 1 - np.arange(depth + 1)  # rows of x >= i
    value[split, 1] = ones[level[split]]
    value[split, 0] = rows[level[split]] - ones[level[split]]
    weight = value.sum(axis=1)
    share = value / weight[:, None]
    return Tree(
        kind=np.where(split, NUMERIC_SPLIT, LEAF).astype(np.int8),
        feature=np.where(split, 0, -1).astype(np.int32),
        threshold=np.where(split, level + 0.5, np.nan),
        child_start=np.where(split, ids, 0).astype(np.int32),
        n_children=np.where(split, 2, 0).astype(np.int32),
        children=np.arange(1, n, dtype=np.int32),
        cat_start=np.full(n, -1, dtype=np.int32),
        cat_table=np.zeros(0, dtype=np.int32),
        missing_child=np.where(split, 0, -1).astype(np.int32),
        value=value,
        impurity=1.0 - (share**2).sum(axis=1),
        n_node_samples=weight.astype(np.int32),
        weighted_n_node_samples=weight,
        depth=(level + ids % 2).astype(np.int32),
    )


def _rows(depth: int):
    X = pd.DataFrame({"x": np.arange(depth + 1, dtype=np.float64)})
    y = pd.Series(np.where(np.arange(depth + 1) % 2, "b", "a"), name="y")
    return X, y


@pytest.fixture(scope="module")
def deep():
    """A classifier holding the chain of depth :data:`DEPTH`, and its rows."""
    X, y = _rows(DEPTH)
    model = quercus.DecisionTreeClassifier().fit(X.iloc[:4], y.iloc[:4])
    model.tree_ = chain_tree(DEPTH)
    sample = np.r_[0:50, DEPTH - 50 : DEPTH + 1]  # routing every row would take minutes
    assert (model.predict(X.iloc[sample]) == y.iloc[sample]).all()
    assert model.get_depth() == DEPTH > 50 * sys.getrecursionlimit()
    return model, X, y


def test_the_text_export_of_a_deep_tree(deep):
    model, _, _ = deep
    # The whole text of a chain grows with the square of its depth (each line is indented by
    # its depth): 20 GB at 100,000. Its first levels, and the whole text of a shorter one.
    assert export_text(model, max_depth=2) == (
        "x <= 0.5: a (1)\nx > 0.5\n"
        f"|   x <= 1.5: b (1)\n|   x > 1.5: a ({DEPTH - 1}/{DEPTH // 2 - 1}) "
        f"[subtree of {DEPTH - 1} leaves not shown]\n"
    )
    depth = 3 * sys.getrecursionlimit()
    shorter, _, _ = _model(depth)
    lines = export_text(shorter).splitlines()
    assert len(lines) == 2 * depth
    assert lines[-1] == "|   " * (depth - 1) + f"x > {depth - 0.5:g}: {'ab'[depth % 2]} (1)"


def _model(depth):
    X, y = _rows(depth)
    model = quercus.DecisionTreeClassifier().fit(X.iloc[:4], y.iloc[:4])
    model.tree_ = chain_tree(depth)
    return model, X, y


def test_the_rules_of_a_deep_tree(deep):
    model, _, _ = deep
    rules = to_rules(model)
    assert len(rules) == DEPTH + 1
    # A path's tests on one side of x merge into its tightest: two conditions at most.
    assert [str(c) for c in rules[1].conditions] == ["x > 0.5", "x <= 1.5"]
    assert [str(c) for c in rules[-1].conditions] == [f"x > {DEPTH - 0.5:g}"]
    assert (rules[-1].prediction, rules[-1].support) == ("ab"[DEPTH % 2], 1.0)


def test_the_graphviz_export_of_a_deep_tree(deep):
    model, _, _ = deep
    dot = export_graphviz(model)
    assert dot.count(" -> ") == 2 * DEPTH


def test_the_explanation_of_a_row_deep_down():
    # One line per test on the path: its length is the depth (3,000 here, for time).
    depth = 3 * sys.getrecursionlimit()
    model, X, _ = _model(depth)
    lines = explain(model, X.iloc[[depth]]).splitlines()
    assert len(lines) == depth + 2
    assert lines[-2] == f"{depth}. x is {depth}, so x > {depth - 0.5:g}: 1 sample: a 1"


def test_the_report_record_of_a_deep_tree(deep):
    model, _, _ = deep
    record = tree_record(model, MAX_NODES)
    assert len(record["id"]) == MAX_NODES - 1  # breadth first, two children at a time
    assert record["id"][-1] == len(record["id"]) - 1  # a test, whose children did not fit
    assert record["hidden"][-1] == 2 * DEPTH - record["id"][-1]


def test_a_deep_tree_is_saved_and_loaded(deep, tmp_path):
    model, X, _ = deep
    loaded = quercus.load(model.save(tmp_path / "deep.json"))
    assert loaded.get_depth() == DEPTH
    assert loaded.predict(X.iloc[[0, 1, DEPTH - 1, DEPTH]]).tolist() == ["a", "b", "b", "a"]


def test_plot_the_top_of_a_deep_tree(deep):
    pytest.importorskip("matplotlib")
    import matplotlib

    from quercus.plot import plot_tree

    matplotlib.use("Agg")
    model, _, _ = deep
    artists = plot_tree(model, max_depth=3)
    assert artists


def test_the_weka_text_of_a_deep_tree():
    model, _, _ = _model(3 * sys.getrecursionlimit())
    assert weka_text(model).count("\n") == 6 * sys.getrecursionlimit()


def test_a_deep_tree_grown_on_two_threads_is_the_one_thread_tree():
    """A sorted column of alternating classes grows a chain: on threads, each split peels
    off a leaf and leaves the rest to another task, so the pieces nest as deep as the
    tree (the graft once recursed once per piece)."""
    n = 21_000  # more than threads.MIN_THREADED_ROWS
    X = pd.DataFrame({"x": np.arange(n, dtype=float)})
    y = np.arange(n) % 2
    threaded = quercus.DecisionTreeClassifier(n_jobs=2, max_depth=4_000).fit(X, y)
    serial = quercus.DecisionTreeClassifier(n_jobs=1, max_depth=4_000).fit(X, y)
    assert threaded.tree_.max_depth == 4_000
    np.testing.assert_array_equal(threaded.tree_.children, serial.tree_.children)
    np.testing.assert_array_equal(threaded.tree_.value, serial.tree_.value)


def test_fit_and_show_a_sorted_file(tmp_path):
    """The finding: a sorted file grows a chain, ``quercus fit`` saved the model, then
    failed printing it (exit 1), and ``quercus show`` failed too."""
    rows = 1_500
    data = tmp_path / "sorted.csv"
    pd.DataFrame({"x": np.arange(rows), "y": np.where(np.arange(rows) % 2, "b", "a")}).to_csv(
        data, index=False
    )
    model = tmp_path / "model.json"
    fitted = _quercus("fit", str(data), "--algorithm", "id3", "-o", str(model))
    assert fitted.returncode == 0, fitted.stderr
    assert quercus.load(model).get_depth() == rows - 1 > sys.getrecursionlimit()
    last = "|   " * (rows - 2) + f"x > {rows - 1.5:g}: {'ab'[(rows - 1) % 2]} (1)"
    assert last in fitted.stdout.splitlines()
    shown = _quercus("show", str(model))
    assert shown.returncode == 0, shown.stderr
    assert last in shown.stdout.splitlines()


def _quercus(*args):
    return subprocess.run(
        [sys.executable, "-m", "quercus", *args], capture_output=True, text=True, timeout=600
    )
