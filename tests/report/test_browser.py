"""The report in a real browser: headless Chromium (the distribution's package) driven by
Playwright. The page loads without a console error or a request, clicking a node shows the
numbers of ``gain_table``, branches close and open, and a screenshot is taken.

Skipped, saying why, where Playwright or Chromium is missing (``make test`` installs
Playwright with the test extra; ``.ci/run`` installs Chromium with apt-get).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from _browser import record_problems

import quercus


class Opened:
    """A page of the browser on a report, with everything it said and asked for."""

    def __init__(self, browser, path):
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.problems = []
        self.requests = []
        record_problems(self.page, self.problems)
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)

    def node(self, k: int):
        return self.page.locator(f'li[data-node="{k}"]')

    def click_node(self, k: int):
        self.node(k).locator(":scope > .node-row").click()

    def gain_rows(self) -> dict[str, list[str]]:
        """The gain table shown: attribute -> the text of its number cells and split."""
        out = {}
        for row in self.page.locator("#gain-table tbody tr").all():
            name = row.get_attribute("data-attribute")
            out[name] = [c.inner_text() for c in row.locator("td.num, td.split-text").all()]
        return out


@pytest.fixture(scope="module")
def id3_page(browser, playtennis, tmp_path_factory):
    X, y = playtennis
    tree = quercus.ID3Classifier().fit(X, y)
    path = tree.report(X, y, tmp_path_factory.mktemp("report") / "playtennis.html")
    opened = Opened(browser, path)
    yield tree, opened
    opened.page.close()


def _expected(table: pd.DataFrame) -> dict[str, list[str]]:
    out = {}
    for row in table.itertuples():
        if not row.admissible:
            out[row.attribute] = ["\u2013", "\u2013", "\u2013", "not admissible"]
            continue
        numbers = [f"{v:.3f}" for v in (row.gain, row.split_information, row.gain_ratio)]
        out[row.attribute] = [*numbers, row.split.removeprefix(row.attribute + " ")]
    return out


def test_loads_without_an_error_or_a_request(id3_page):
    tree, opened = id3_page
    assert opened.problems == []
    assert opened.requests == [opened.url]  # the file itself, and nothing else
    assert opened.page.locator("li.node").count() == tree.tree_.node_count
    assert opened.page.title() == "ID3Classifier: PlayTennis"


def test_clicking_a_node_shows_its_gain_table(id3_page, playtennis):
    X, y = playtennis
    tree, opened = id3_page
    for k in range(tree.tree_.node_count):
        opened.click_node(k)
        assert opened.page.locator("#details h3").inner_text().startswith(f"Node {k}")
        expected = _expected(tree.gain_table(X, y, node=k))
        assert opened.gain_rows() == expected, k
        if tree.tree_.kind[k] == 0:
            assert "Growth stopped here: pure" in opened.page.locator("#details .stop").inner_text()
    # The root: the lectures' numbers, Outlook chosen.
    opened.click_node(0)
    root = opened.gain_rows()
    assert [root[a][0] for a in ("Outlook", "Temperature", "Humidity", "Wind")] == [
        "0.247",
        "0.029",
        "0.152",
        "0.048",
    ]
    chosen = opened.page.locator("#gain-table tr.chosen")
    assert chosen.get_attribute("data-attribute") == "Outlook"
    assert opened.problems == []


def test_closing_hides_the_subtree_and_opening_shows_it(id3_page):
    tree, opened = id3_page
    rain = int(tree.tree_.children[tree.tree_.child_start[0] + 1])  # Outlook = Rain
    kids = [int(c) for c in tree.tree_.children[tree.tree_.child_start[rain] :][:2]]
    toggle = opened.node(rain).locator(":scope > .node-row > .toggle")
    assert all(opened.node(k).is_visible() for k in kids)
    toggle.click()
    assert not any(opened.node(k).is_visible() for k in kids)
    assert opened.node(rain).get_attribute("aria-expanded") == "false"
    toggle.click()
    assert all(opened.node(k).is_visible() for k in kids)
    opened.page.click("#collapse-all")
    assert opened.node(rain).is_visible() and not opened.node(kids[0]).is_visible()
    opened.page.click("#expand-all")
    assert opened.node(kids[0]).is_visible()


def test_a_screenshot(id3_page, tmp_path):
    tree, opened = id3_page
    sunny = int(tree.tree_.children[tree.tree_.child_start[0] + 2])
    opened.click_node(sunny)
    shot = tmp_path / "playtennis-report.png"
    opened.page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1400 and height > 1000
    # The selected node's row is highlighted and the details name its split.
    assert "selected" in opened.node(sunny).get_attribute("class")
    assert "splits on Humidity" in opened.page.locator("#details h3").inner_text()


def test_a_forest_shows_the_tree_chosen(browser, tmp_path):
    car = quercus.datasets.load("car")
    X, y = car.iloc[:, :-1], car.iloc[:, -1]
    forest = quercus.RandomForestClassifier(
        n_estimators=5, random_state=0, nominal_features=list(X.columns)
    ).fit(X, y)
    opened = Opened(browser, forest.report(X, y, tmp_path / "forest.html"))
    options = opened.page.locator("#tree-select option")
    assert options.count() == 5
    for k in (0, 3):
        opened.page.select_option("#tree-select", str(k))
        # Five small trees fit the page's budget whole.
        assert opened.page.locator("li.node").count() == forest.estimators_[k].tree_.node_count
        assert opened.node(0).is_visible()
    opened.click_node(0)
    assert "no gain tables" in opened.page.locator("#details").inner_text()
    assert opened.problems == []


def test_a_pruning_step_shows_its_node(browser, shared, tmp_path):
    df = pd.read_csv(shared("breast-cancer.csv"))
    X, y = df.drop(columns=["Class"]), df["Class"]
    tree = quercus.C45Classifier().fit(X, y)
    opened = Opened(browser, tree.report(X, y, tmp_path / "c45.html"))
    button = opened.page.locator("button.goto").first
    node = int(button.get_attribute("data-node"))
    button.click()
    assert opened.node(node).is_visible()
    assert "selected" in opened.node(node).get_attribute("class")
    assert opened.page.locator("#details h3").inner_text().startswith(f"Node {node}")
    assert opened.problems == []


def test_a_model_tree_shows_each_leafs_equation(browser, tmp_path):
    abalone = quercus.datasets.load("abalone")
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    tree = quercus.ModelTreeRegressor().fit(X, y)
    opened = Opened(browser, tree.report(X, y, tmp_path / "m5.html"))
    assert opened.page.locator("li.node").count() == tree.tree_.node_count
    leaf = int(np.flatnonzero(tree.tree_.leaf_number == 1)[0])
    opened.click_node(leaf)
    details = opened.page.locator("#details").inner_text()
    first = tree.export_text().split("\n\n", 1)[1].splitlines()[0]  # "LM1: Class_Rings = ..."
    assert first in details
    assert "candidate splits are not shown" in details
    # Each leaf is drawn as M5P names it, its model in the tooltip; no constant.
    equations = [line for line in tree.export_text().splitlines() if line.startswith("LM")]
    for node in np.flatnonzero(tree.tree_.kind == 0):
        k = int(tree.tree_.leaf_number[node])
        label = opened.node(int(node)).locator(":scope > .node-row .leaf")
        assert label.inner_text() == f"\u2192 LM{k}"
        assert label.get_attribute("title") == equations[k - 1]
    assert opened.problems == []


def test_an_oblique_tree_shows_each_splits_weighted_sum(browser, tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0, 1, size=(300, 2)), columns=["a", "b"])
    y = np.where(X["a"] + X["b"] > 1, "above", "below")
    tree = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    opened = Opened(browser, tree.report(X, y, tmp_path / "oblique.html"))
    assert opened.page.locator("li.node").count() == tree.tree_.node_count
    tested = tree.export_text().splitlines()[0].split(" <= ")[0]  # "1*a + 0.99*b"
    assert tested in opened.node(0).locator(":scope > .node-row").inner_text()
    opened.click_node(0)
    details = opened.page.locator("#details").inner_text()
    assert f"splits on {tested}" in details
    assert "an oblique split is searched over weighted sums" in details
    assert opened.problems == []


def test_long_sets_keep_their_attribute_in_view_and_numbers_short(browser, tmp_path):
    # A regression on the Ames neighbourhoods: conditions that test a dozen names, values in
    # dollars and variance decreases in squared dollars.
    from _wide_data import ames_like

    X, y = ames_like()
    tree = quercus.CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    opened = Opened(browser, tree.report(X, y, tmp_path / "ames.html"))
    view = opened.page.locator("#tree-view").bounding_box()
    right = view["x"] + view["width"]
    rows = opened.page.locator("li.node > .node-row")
    cut = 0
    for k in range(1, rows.count()):  # every row but the root's "all rows"
        row = rows.nth(k)
        edge = row.locator(".edge")
        whole = edge.get_attribute("title")  # the whole condition, as a tooltip
        attribute = edge.locator(".edge-attribute")
        assert whole.startswith(attribute.inner_text() + " ")
        # The attribute and the node's own label are in view, whatever the test's length.
        for part in (attribute, row.locator(".split, .leaf")):
            box = part.bounding_box()
            assert box is not None and box["x"] + box["width"] <= right, whole
        test = edge.locator(".edge-test")
        if whole.count(",") >= 5:  # a set of more than five: its brief form, maybe cut too
            cut += 1
            assert " more}" in test.inner_text() or test.evaluate(
                "e => e.scrollWidth > e.clientWidth"
            )
    assert cut >= 2
    # Values to their six significant digits, no padding (96106.3, not 96106.3000).
    for label in opened.page.locator(".leaf.value").all_inner_texts():
        number = label.removeprefix("\u2192 ")
        assert re.fullmatch(r"-?\d+(\.\d*[1-9])?", number), label
        assert len(number.replace(".", "").lstrip("-0")) <= 6, label
    # The root's candidates, best first, with four significant digits.
    opened.click_node(0)
    cells = opened.page.locator("#gain-table td.num").all_inner_texts()
    assert cells and all(re.fullmatch(r"\d\.\d{3}e\+\d|\d{1,4}(\.\d+)?", c) for c in cells), cells
    decreases = [float(c) for c in cells]
    assert decreases == sorted(decreases, reverse=True)
    assert opened.problems == []


def test_a_booster_shows_each_nodes_gradient_hessian_and_gain(browser, tmp_path):
    from quercus.report import write_report

    X, y = quercus.read_table(quercus.datasets.path("iris"))
    booster = quercus.GradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y)
    opened = Opened(browser, write_report(booster, X, y, tmp_path / "booster.html"))
    options = opened.page.locator("#tree-select option").all_inner_texts()
    assert (
        options[0] == f"iteration 1, class Iris-setosa ({booster.trees_.tree(0).node_count} nodes)"
    )
    assert len(options) == 6
    assert "Loss by iteration" in opened.page.locator("#booster").inner_text()

    def fact(key: str) -> float:
        return float(opened.page.locator(f'#details dd[data-fact="{key}"]').inner_text())

    for k in (0, 4):
        opened.page.select_option("#tree-select", str(k))
        tree = booster.trees_.tree(k)
        assert opened.page.locator("li.node").count() == tree.node_count
        gains = tree.impurity_decrease()
        steps = booster.learning_rate_ * tree.value[:, 1] / tree.value[:, 0]
        for node in range(tree.node_count):
            opened.click_node(node)
            assert opened.page.locator("#details h3").inner_text().startswith(f"Node {node}")
            assert fact("n") == tree.n_node_samples[node]
            assert fact("G") == pytest.approx(-tree.value[node, 1], rel=1e-5, abs=1e-12)
            assert fact("H") == pytest.approx(tree.value[node, 0], rel=1e-5)
            assert fact("step") == pytest.approx(steps[node], rel=1e-5, abs=1e-12)
            gain = opened.page.locator('#details dd[data-fact="gain"]')
            if tree.kind[node] == 0:
                assert gain.count() == 0
                label = opened.node(node).locator(":scope > .node-row .leaf")
                assert float(label.inner_text().removeprefix("\u2192 ")) == pytest.approx(
                    steps[node], rel=1e-5, abs=1e-12
                )
            else:
                assert fact("gain") == pytest.approx(gains[node], rel=1e-5, abs=1e-12)
    opened.click_node(0)
    details = opened.page.locator("#details").inner_text()
    assert "gradient sum G" in details and "Newton gain of the split" in details
    assert "no candidate splits" in details
    assert opened.problems == []
