"""The report of a model tree: its leaves named LM1, LM2, ... with their linear models, as
Weka's M5P prints them, and importances that count the attributes the leaves' models use."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

import quercus
from quercus.report import render_report


@pytest.fixture(scope="module")
def abalone_page():
    abalone = quercus.datasets.load("abalone")
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    tree = quercus.ModelTreeRegressor().fit(X, y)
    return tree, render_report(tree, X, y)


def page_data(text: str) -> dict:
    found = re.search(r'<script[^>]*id="report-data"[^>]*>(.*?)</script>', text, re.S)
    return json.loads(found[1])


def section_rows(text: str, anchor: str) -> list[list[str]]:
    """The cells of each body row of the table in the page's section ``anchor``."""
    start = text.index(f'<section id="{anchor}">')
    body = text[start : text.index("</section>", start)]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], flags=re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in rows
    ]


def section_text(text: str, anchor: str) -> str:
    start = text.index(f'<section id="{anchor}">')
    body = text[start : text.index("</section>", start)]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def test_the_leaves_are_named_as_m5p_names_them_with_their_equations(abalone_page):
    tree, text = abalone_page
    rows = section_rows(text, "models")
    # export_text lists "LMk: Class_Rings = ..." after the tree, one line a leaf.
    equations = [line for line in tree.export_text().splitlines() if line.startswith("LM")]
    assert len(rows) == len(equations) == tree.get_n_leaves() > 1
    weka = tree.export_text(style="weka")
    for (name, n, model), line in zip(rows, equations, strict=True):
        assert line == f"{name}: {model}"
        assert f"{name} ({n.replace(',', '')}/" in weka  # the leaf M5P prints as LMk (n/e%)
        assert model.startswith("Class_Rings = ")
    # The tree view names each leaf by its model (the page's script draws "-> LMk").
    record = page_data(text)["tree"]
    leaves = [m for m, split in zip(record["model"], record["split"], strict=True) if split < 0]
    names = sorted((m.split(":")[0] for m in leaves), key=lambda name: int(name[2:]))
    assert names == [row[0] for row in rows]


def test_importances_count_the_attributes_of_the_leaf_models(abalone_page):
    tree, text = abalone_page
    rows = {row[0]: row[1] for row in section_rows(text, "importances")}
    assert set(rows) == set(tree.feature_names_in_)
    shown = {name: float(value.split(" \u00b1 ")[0]) for name, value in rows.items()}
    # Attributes that no split tests but some leaf's model uses: the splits' impurity gives
    # them nothing; the page's importances do not.
    terms = tree.terms_
    params = tree.tree_.leaf_params[tree.tree_.kind == 0, : terms.n_terms]
    in_models = {
        str(tree.feature_names_in_[terms.term_feature[t]])
        for t in np.flatnonzero((params != 0).any(axis=0))
    }
    split_on = {str(tree.feature_names_in_[f]) for f in tree.tree_.feature if f >= 0}
    models_only = in_models - split_on
    assert models_only  # abalone: Sex, Length, Diameter, Viscera weight
    for name in models_only:
        assert shown[name] > 0, name
    # Said so, and no column of the splits' impurity decrease.
    assert "these are permutation importances" in section_text(text, "importances")
    start = text.index('<section id="importances">')
    heads = re.findall(r"<th>([^<]*)</th>", text[start : text.index("</thead>", start)])
    assert [h for h in heads if h] == ["attribute", "permutation"]


def test_a_tree_with_constant_leaves_keeps_its_impurity_importances():
    abalone = quercus.datasets.load("abalone").head(400)
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    text = render_report(quercus.CARTRegressor(max_depth=3).fit(X, y), X, y)
    assert '<section id="models">' not in text
    assert "Impurity decrease: the weighted impurity" in section_text(text, "importances")


def test_any_tree_with_linear_leaves_gets_the_same_page():
    # DecisionTreeRegressor(leaf_model="linear"): linear models in a CART tree's leaves.
    abalone = quercus.datasets.load("abalone").head(500)
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    tree = quercus.DecisionTreeRegressor(leaf_model="linear", max_depth=2).fit(X, y)
    text = render_report(tree, X, y)
    rows = section_rows(text, "models")
    assert [row[0] for row in rows] == [f"LM{k}" for k in range(1, tree.get_n_leaves() + 1)]
    assert "these are permutation importances" in section_text(text, "importances")
    assert '<section id="pruning">' in text  # CART's pruning, not M5's
