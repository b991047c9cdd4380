"""The report of a tree grown with ``split='oblique'`` whose tree holds no oblique split.

Such a tree searched weighted sums at its nodes (or, with fewer than two numeric features,
could not), and scoring its nodes again as it was grown needs them: the page shows the tree
without the candidate tables, as for a tree with oblique splits, where it used to fail with
"oblique splits need the rows' values".
"""

import json
import re

import numpy as np
import pandas as pd
import pytest

import quercus

DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)
NOTE = "The candidate splits are not shown: an oblique split is searched over weighted sums"


def _data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=60),
            "b": rng.normal(size=60),
            "colour": rng.choice(["red", "blue"], 60).astype(object),
        }
    )
    return X, np.where(X["colour"] == "red", "yes", "no")


def _page_data(path) -> dict:
    return json.loads(DATA.search(path.read_text(encoding="utf-8")).group(1))


def _assert_tree_without_tables(model, X, y, path):
    assert model.tree_.oblique is None  # the case: no oblique split in the tree
    written = model.report(X, y, path)
    data = _page_data(written)
    assert data["tree"]["total"] == model.tree_.node_count
    assert data["tree_note"].startswith(NOTE)
    assert "scores" not in data["tree"]


def test_an_oblique_tree_that_kept_only_a_category_split(tmp_path):
    X, y = _data()
    model = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    assert model.tree_.kind.tolist() == [3, 0, 0]  # one subset split on colour
    _assert_tree_without_tables(model, X, y, tmp_path / "report.html")


def test_an_oblique_tree_with_one_numeric_feature(tmp_path):
    X, y = _data()
    X = X[["a", "colour"]]
    with pytest.warns(UserWarning, match="split='oblique' combines numeric features"):
        model = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    _assert_tree_without_tables(model, X, y, tmp_path / "report.html")


def test_an_oblique_regression_tree_without_an_oblique_split(tmp_path):
    X, _ = _data()
    X = X[["a", "colour"]]
    y = 2 * X["a"] + (X["colour"] == "red")
    with pytest.warns(UserWarning, match="split='oblique' combines numeric features"):
        model = quercus.DecisionTreeRegressor(split="oblique", max_depth=2, random_state=0)
        model.fit(X, y)
    _assert_tree_without_tables(model, X, y, tmp_path / "report.html")


def test_the_report_command_writes_it(tmp_path):
    X, y = _data()
    table = X.assign(label=y)
    csv = tmp_path / "data.csv"
    table.to_csv(csv, index=False)
    out = tmp_path / "report.html"
    status = quercus.cli.main(
        ["report", str(csv), "-o", str(out), "--algorithm", "cart", "--set", "split=oblique"]
    )
    assert status == 0
    assert _page_data(out)["tree_note"].startswith(NOTE)


def test_gain_table_of_such_a_tree_scores_its_single_attributes():
    """``gain_table`` scores single attributes; a tree of ``split='oblique'`` without an
    oblique split gets the table the same tree grown with ``split='axis'`` gets."""
    X, y = _data()
    X = X.drop(columns="b")  # one numeric feature: nothing to combine, an axis tree
    with pytest.warns(UserWarning, match="split='oblique' combines numeric features"):
        oblique = quercus.DecisionTreeClassifier(split="oblique").fit(X, y)
    axis = quercus.DecisionTreeClassifier().fit(X, y)
    assert oblique.tree_.oblique is None
    table = oblique.gain_table(X, y)
    assert len(table) == 2 and table.equals(axis.gain_table(X, y))
