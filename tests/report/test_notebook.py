"""A fitted estimator in a notebook: its ``_repr_html_`` is the report's tree view, an
unfitted one's is scikit-learn's box of parameters.

The browser tests build the output as Jupyter does (IPython's display formatter gives the
``text/html`` of the mime bundle), put it in an output cell of a page as JupyterLab does
(``innerHTML``, then each script element replaced by a copy, which runs it), and open it in
headless Chromium with every request refused. They skip, saying why, without Playwright,
IPython or Chromium (``make test`` installs the first two with the test extra; ``.ci/run``
installs Chromium with apt-get).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from _browser import record_problems
from sklearn import config_context
from sklearn.utils import estimator_html_repr

import quercus
from quercus.report import notebook

SHADOW = re.compile(r"shadow\.innerHTML = (\".*?\");\n", re.S)
DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def shown_data(html: str) -> dict:
    """The data of the tree view in a notebook's HTML (a JSON text inside the JSON string
    that the script puts in the shadow root)."""
    content = json.loads(SHADOW.search(html).group(1))
    return json.loads(DATA.search(content).group(1))


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def test_a_fitted_trees_html_shows_its_tree(id3):
    html = id3._repr_html_()
    # The tree as text (what a notebook that runs no script shows) and the view's data.
    assert "Outlook = Overcast: Yes (4)" in html
    assert "|   Humidity = High: No (3)" in html
    data = shown_data(html)
    assert data["features"] == ["Outlook", "Temperature", "Humidity", "Wind"]
    tree = data["tree"]
    assert sorted(tree["id"]) == list(range(id3.tree_.node_count))
    assert data["features"][tree["split"][0]] == "Outlook"
    assert "Outlook = Sunny" in tree["edge"]
    assert "sk-top-container" not in html  # not scikit-learn's box
    # Self-contained: one script, nothing loaded, no address.
    assert [tag for tag, _ in tags(html)] == ["div", "pre", "script"]
    assert not re.search(r"https?://|\bsrc=|<link|@import|url\(", html)
    for word in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "sendBeacon"):
        assert word not in html
    assert len(html.encode()) < 40_000
    # The mime bundle Jupyter asks for: the same HTML, and repr as text.
    bundle = id3._repr_mimebundle_()
    assert bundle["text/plain"] == repr(id3) == "ID3Classifier()"
    assert "Outlook = Overcast: Yes (4)" in bundle["text/html"]


def _without_ids(html: str) -> str:
    return re.sub(r"(sk-[a-z]+-id-)\d+", r"\1N", html)


@pytest.mark.parametrize(
    "estimator",
    [quercus.ID3Classifier(), quercus.CARTRegressor(max_depth=3), quercus.RandomForestClassifier()],
    ids=["ID3Classifier", "CARTRegressor", "RandomForestClassifier"],
)
def test_an_unfitted_estimator_shows_scikit_learns_box(estimator):
    html = estimator._repr_html_()
    assert "sk-top-container" in html
    assert _without_ids(html) == _without_ids(estimator_html_repr(estimator))
    assert _without_ids(estimator._repr_mimebundle_()["text/html"]) == _without_ids(html)


def test_display_text_turns_the_html_off(id3):
    with config_context(display="text"):
        assert not hasattr(id3, "_repr_html_")
        assert id3._repr_mimebundle_() == {"text/plain": "ID3Classifier()"}
    assert hasattr(id3, "_repr_html_")


def test_user_text_stays_text(tmp_path):
    nasty = ['</script><script>alert("x")</script>', "a & b <!--", "</style><b>"]
    X = pd.DataFrame({nasty[0]: ["<b>", "<b>", "&amp;", "&amp;"], nasty[1]: [1.0, 2, 3, 4]})
    y = pd.Series([nasty[2], nasty[2], "ok", "ok"], name="x</pre>y")
    tree = quercus.DecisionTreeClassifier(criterion="entropy").fit(X, y)
    html = tree._repr_html_()
    assert [tag for tag, _ in tags(html)] == ["div", "pre", "script"]
    script = html.split("<script>", 1)[1].rsplit("</script>", 1)[0]
    assert "</" not in script and "<!" not in script  # nothing can end the script element
    data = shown_data(html)
    assert data["features"] == nasty[:2]
    assert sorted(data["classes"]) == sorted([nasty[2], "ok"])


def test_a_deep_tree_is_cut_to_the_notebooks_budget():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(3000, 4)), columns=list("abcd"))
    y = X["a"] * 3 + rng.normal(size=3000)
    tree = quercus.CARTRegressor().fit(X, y)  # grown whole: thousands of nodes
    assert tree.tree_.node_count > 4 * notebook.MAX_NODES
    html = tree._repr_html_()
    data = shown_data(html)
    kept = data["tree"]
    assert len(kept["id"]) <= notebook.MAX_NODES
    assert kept["total"] == tree.tree_.node_count
    # Every node not drawn is counted below a drawn one.
    assert len(kept["id"]) + sum(kept["hidden"]) == tree.tree_.node_count
    assert data["value_range"][0] <= kept["value"][0] <= data["value_range"][1]
    # The text for a notebook that runs no script stops at TEXT_LINES lines.
    text = html.split('<pre class="quercus-text">', 1)[1].split("</pre>", 1)[0]
    assert text.count("\n") <= notebook.TEXT_LINES + 4
    assert len(html.encode()) < 100_000


def test_a_forest_shows_its_summary_and_first_tree(playtennis):
    X, y = playtennis
    forest = quercus.RandomForestClassifier(n_estimators=7, random_state=0).fit(X, y)
    html = forest._repr_html_()
    assert "RandomForestClassifier(n_estimators=7, random_state=0)" in html
    assert "7 trees, " in html
    data = shown_data(html)
    assert data["tree"]["total"] == forest.estimators_[0].tree_.node_count
    assert "Tree 0 of the forest's 7" in data["tree_note"]
    assert forest.estimators_[0].export_text().splitlines()[0] in html


def test_the_notebook_answers_every_question_report_js_asks_of_document():
    static = resources.files("quercus.report") / "static"
    report_js = (static / "report.js").read_text(encoding="utf-8")
    notebook_js = (static / "notebook.js").read_text(encoding="utf-8")
    asked = set(re.findall(r"\bdocument\.(\w+)", report_js))
    assert asked <= set(notebook.DOCUMENT_METHODS), asked - set(notebook.DOCUMENT_METHODS)
    for name in notebook.DOCUMENT_METHODS:
        assert f"{name}: function" in notebook_js
    assert "window." not in report_js  # report.js reaches the page only through `document`


# -- in a browser, as a notebook shows it ---------------------------------------------------------

# A notebook's page: its own style (which must not reach the tree) and output cells.
NOTEBOOK = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>notebook</title>
<style>
body { font-family: sans-serif; }
.jp-RenderedHTMLCommon ul { padding-left: 2em; list-style: disc; }
.jp-RenderedHTMLCommon li { color: rgb(255, 0, 0); }
.jp-RenderedHTMLCommon button { display: none; }
</style></head>
<body><main class="jp-Notebook">
<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea"><div class="jp-OutputArea-child">
<div class="jp-OutputArea-output jp-RenderedHTMLCommon jp-RenderedHTML"
 data-mime-type="text/html" id="cell-1"></div></div></div></div>
<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea"><div class="jp-OutputArea-child">
<div class="jp-OutputArea-output jp-RenderedHTMLCommon jp-RenderedHTML"
 data-mime-type="text/html" id="cell-2"></div></div></div></div>
</main></body></html>
"""

# How JupyterLab puts an HTML output in its cell: innerHTML, then each script replaced by a
# copy of itself, which the browser runs.
SHOW_OUTPUT = """([cell, html]) => {
  const host = document.getElementById(cell);
  host.innerHTML = html;
  for (const script of Array.from(host.getElementsByTagName("script"))) {
    const copy = document.createElement("script");
    for (const a of Array.from(script.attributes)) copy.setAttribute(a.name, a.value);
    copy.textContent = script.textContent;
    script.parentNode.replaceChild(copy, script);
  }
}"""


def notebook_html(estimator) -> str:
    """The ``text/html`` that Jupyter's display of ``estimator`` puts in the notebook."""
    formatters = pytest.importorskip(
        "IPython.core.formatters", reason="IPython is not installed (pip install -e '.[test]')"
    )
    bundle, _ = formatters.DisplayFormatter().format(estimator)
    assert bundle["text/plain"] == repr(estimator)
    return bundle["text/html"]


class Notebook:
    """A notebook's page in the browser, every request refused and recorded, with
    everything its console said."""

    def __init__(self, browser, *, scripts: bool = True):
        self.context = browser.new_context(
            viewport={"width": 1200, "height": 900}, java_script_enabled=scripts
        )
        self.page = self.context.new_page()
        self.problems = []
        self.requests = []
        record_problems(self.page, self.problems)

        def refuse(route):
            self.requests.append(route.request.url)
            route.abort()

        self.page.route("**/*", refuse)
        self.page.set_content(NOTEBOOK)

    def show(self, cell: str, html: str) -> None:
        self.page.evaluate(SHOW_OUTPUT, [cell, html])

    def node(self, cell: str, k: int):
        # Playwright's CSS locators look inside (open) shadow roots.
        return self.page.locator(f'#{cell} li[data-node="{k}"]')

    def close(self):
        self.context.close()


def test_a_notebook_shows_the_tree_and_its_branches_open_and_close(
    browser, id3, playtennis, tmp_path
):
    X, y = playtennis
    forest = quercus.RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    notebook = Notebook(browser)
    try:
        notebook.show("cell-1", notebook_html(id3))
        notebook.show("cell-2", notebook_html(forest))
        page = notebook.page
        root = notebook.node("cell-1", 0)
        root.wait_for()
        # The root's split is drawn, visible; the text for script-less notebooks is not.
        split = root.locator(":scope > .node-row .split")
        assert split.is_visible() and split.inner_text().startswith("Outlook")
        assert not page.locator("#cell-1 pre.quercus-text").is_visible()
        assert page.locator("#cell-1 li.node").count() == id3.tree_.node_count
        # The notebook's style does not reach the tree: its buttons show, its items are not red.
        toggle = root.locator(":scope > .node-row > .toggle")
        assert toggle.is_visible()
        assert root.evaluate("e => getComputedStyle(e).color") != "rgb(255, 0, 0)"
        # Clicking the root's toggle closes its branches, clicking again opens them.
        kids = [int(k) for k in id3.tree_.children[id3.tree_.child_start[0] :][:3]]
        assert all(notebook.node("cell-1", k).is_visible() for k in kids)
        toggle.click()
        assert not any(notebook.node("cell-1", k).is_visible() for k in kids)
        assert root.get_attribute("aria-expanded") == "false"
        toggle.click()
        assert all(notebook.node("cell-1", k).is_visible() for k in kids)
        # Clicking a node shows its rows in the details beside the tree.
        sunny = kids[2]
        notebook.node("cell-1", sunny).locator(":scope > .node-row").click()
        details = page.locator("#cell-1 #details")
        assert details.locator("h3").inner_text().startswith(f"Node {sunny}")
        assert "splits on Humidity" in details.inner_text()
        assert "tree.report(X, y, path)" in details.inner_text()
        # The second output, the forest, has its own tree: ids do not collide.
        assert notebook.node("cell-2", 0).is_visible()
        summary = page.locator("#cell-2 p.summary")
        assert summary.nth(0).inner_text() == repr(forest)
        assert summary.nth(1).inner_text().startswith("5 trees, ")
        count = forest.estimators_[0].tree_.node_count
        assert page.locator("#cell-2 li.node").count() == count
        assert page.locator("#cell-1 li.node").count() == id3.tree_.node_count
        shot = tmp_path / "notebook.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert notebook.requests == []
        assert notebook.problems == []
    finally:
        notebook.close()


def test_a_notebook_without_scripts_shows_the_tree_as_text(browser, id3):
    notebook = Notebook(browser, scripts=False)
    try:
        # Without scripts the output is put in the page as it is (an untrusted notebook
        # strips the script, which the browser then does not run either).
        html = notebook_html(id3)
        notebook.page.set_content(
            NOTEBOOK.replace('id="cell-1"></div>', f'id="cell-1">{html}</div>')
        )
        text = notebook.page.locator("#cell-1 pre.quercus-text")
        assert text.is_visible()
        assert "Outlook = Overcast: Yes (4)" in text.inner_text()
        assert notebook.page.locator("#cell-1 li.node").count() == 0
        assert notebook.requests == []
    finally:
        notebook.close()


def _other_trees():
    abalone = quercus.datasets.load("abalone").sample(600, random_state=0)
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    rng = np.random.default_rng(0)
    square = pd.DataFrame(rng.uniform(0, 1, size=(300, 2)), columns=["a", "b"])
    side = np.where(square["a"] + square["b"] > 1, "above", "below")
    return {
        "regression tree": lambda: quercus.CARTRegressor(max_depth=4).fit(X, y),
        "model tree": lambda: quercus.ModelTreeRegressor().fit(X, y),
        "oblique tree": lambda: quercus.CARTClassifier(split="oblique", random_state=0).fit(
            square, side
        ),
        "forest of regression trees": lambda: quercus.RandomForestRegressor(
            n_estimators=3, random_state=0
        ).fit(X, y),
    }


@pytest.mark.parametrize("kind", list(_other_trees()))
def test_every_kind_of_tree_is_drawn_without_an_error(browser, kind):
    estimator = _other_trees()[kind]()
    notebook = Notebook(browser)
    try:
        notebook.show("cell-1", notebook_html(estimator))
        root = notebook.node("cell-1", 0)
        root.wait_for()
        assert root.locator(":scope > .node-row .split").is_visible()
        root.locator(":scope > .node-row").click()
        assert notebook.page.locator("#cell-1 #details h3").inner_text().startswith("Node 0")
        assert notebook.requests == []
        assert notebook.problems == []
    finally:
        notebook.close()
