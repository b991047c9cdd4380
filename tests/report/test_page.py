"""The report's HTML without a browser: one self-contained file, its sections, its data
equal to the estimator's numbers, every user text escaped, and clear errors."""

import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.report import render_report, write_report
from quercus.report.page import script_json

DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def playtennis():
    df = quercus.datasets.load("playtennis")
    return df.iloc[:, :-1], df["PlayTennis"]


@pytest.fixture(scope="module")
def id3(playtennis):
    X, y = playtennis
    return quercus.ID3Classifier().fit(X, y)


def page_data(text: str) -> dict:
    return json.loads(DATA.search(text).group(1))


class _Tags(HTMLParser):
    """Every start tag with its attributes; the text of script and style elements."""

    def __init__(self):
        super().__init__()
        self.tags = []
        self.scripts = []
        self._in = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)

    def handle_endtag(self, tag):
        self._in = None


def parsed(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    return parser


def test_the_page_is_self_contained(id3, playtennis, tmp_path):
    X, y = playtennis
    path = id3.report(X, y, tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "http://" not in text and "https://" not in text
    tags = parsed(text).tags
    for tag, attrs in tags:
        # Nothing loaded from elsewhere: no src at all, only in-page links.
        assert "src" not in attrs, (tag, attrs)
        if "href" in attrs:
            assert attrs["href"].startswith("#"), (tag, attrs)
    assert not any(tag in ("link", "img", "iframe", "object", "embed") for tag, _ in tags)
    # The script fetches nothing: no request API appears in it.
    for word in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "navigator.sendBeacon"):
        assert word not in text
    # The page's policy forbids any load by the browser, should one creep in.
    assert "default-src 'none'" in text
    assert len(text.encode()) < 80_000  # PlayTennis: about 25 KB, 60 KB with the curves


def test_the_sections_and_the_lecture_numbers(id3, playtennis):
    X, y = playtennis
    text = render_report(id3, X, y)
    for anchor in ("tree", "evaluation", "importances", "rules", "pruning"):
        assert f'<section id="{anchor}">' in text
    assert "training-set figures" in text  # no test set: said so
    assert "IF Outlook = Overcast THEN Yes (support 4, confidence 100.0%)" in text
    data = page_data(text)
    tree = data["tree"]
    assert data["features"] == ["Outlook", "Temperature", "Humidity", "Wind"]
    assert data["classes"] == ["No", "Yes"]
    assert data["gain_name"] == "information gain" and data["ratios"]
    assert tree["id"][0] == 0 and tree["parent"][0] == -1
    # The root's gain table: the lectures' 0.247, 0.029, 0.152, 0.048; Outlook chosen.
    root = tree["scores"][0]
    gains = {data["features"][r[0]]: r[1] for r in root["rows"]}
    assert gains == {"Outlook": 0.247, "Temperature": 0.029, "Humidity": 0.152, "Wind": 0.048}
    assert data["features"][root["chosen"]] == "Outlook"
    assert [r[2] for r in root["rows"]][0] == 1.577  # split information of Outlook
    # Every node's rows equal estimator.gain_table(X, y, node=k) to three decimals.
    for i, node in enumerate(tree["id"]):
        scores = tree["scores"][i]
        table = id3.gain_table(X, y, node=node)
        assert [data["features"][r[0]] for r in scores["rows"]] == table["attribute"].tolist()
        for r, row in zip(scores["rows"], table.itertuples(), strict=True):
            if row.admissible:
                expected = [round(row.gain, 3), round(row.split_information, 3)]
                assert r[1:3] == pytest.approx(expected, abs=1e-12)
            else:
                assert len(r) == 1
        assert (scores["stop"] is None) == (id3.tree_.kind[node] != 0)
    # Leaves: why they stopped.
    assert {s["stop"] for s in tree["scores"] if s["stop"]} == {"pure"}
    assert data["stops"]["pure"].startswith("pure")


def test_user_text_is_escaped(tmp_path):
    # Attribute, category and class names holding markup, quotes and ampersands.
    nasty = ['<script>alert("x")</script>', "a & b", 'it\'s "quoted"', "</script><!--"]
    X = pd.DataFrame(
        {
            nasty[0]: ["<b>", "<b>", "&amp;", "&amp;", "<b>", "&amp;"],
            nasty[1]: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    y = pd.Series([nasty[2], nasty[2], nasty[3], nasty[3], nasty[2], nasty[3]], name="x<y")
    tree = quercus.DecisionTreeClassifier(criterion="entropy").fit(X, y)
    text = write_report(tree, X, y, tmp_path / "r.html").read_text(encoding="utf-8")
    # No markup from the data outside the data's script element, whose text can neither
    # end it ("</") nor open a comment ("<!").
    raw = DATA.search(text).group(1)
    assert "</" not in raw and "<!" not in raw
    outside = text.replace(raw, "")
    assert outside.count("<script") == 2
    assert "<b>" not in outside.replace("<body>", "")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text  # in the rules
    # The data reads back as the names themselves.
    data = page_data(text)
    assert data["features"] == [nasty[0], nasty[1]]
    assert sorted(data["classes"]) == sorted([nasty[2], nasty[3]])
    parser = parsed(text)
    assert [tag for tag, attrs in parser.tags if tag == "script"] == ["script", "script"]


def test_script_json_cannot_end_its_element():
    text = script_json({"a": "</script><!-- <= &"})
    assert "</" not in text and "<!" not in text
    assert json.loads(text) == {"a": "</script><!-- <= &"}


def test_a_test_set_and_a_regression_tree(tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 200), "kind": rng.choice(["a", "b"], 200)})
    y = np.where(X["x"] > 5, 3.0, 1.0) + (X["kind"] == "a") + rng.normal(0, 0.1, 200)
    tree = quercus.CARTRegressor(max_depth=3).fit(X[:150], y[:150])
    text = render_report(tree, X[:150], y[:150], X_test=X[150:], y_test=y[150:])
    assert "On the test data (50 rows)" in text and "training-set figures" not in text
    assert "R\u00b2" in text and "root mean squared error" in text
    data = page_data(text)
    assert data["regression"] and data["gain_name"] == "variance decrease"
    assert not data["ratios"]
    assert data["tree"]["value"][0] == pytest.approx(np.mean(y[:150]), rel=1e-5)
    root = data["tree"]["scores"][0]
    table = tree.gain_table(X[:150], y[:150], node=0)
    assert [r[1] for r in root["rows"]] == pytest.approx(table["gain"].round(3).tolist())


def test_a_forest_bounds_its_trees(tmp_path):
    car = quercus.datasets.load("car")
    X, y = car.iloc[:, :-1], car.iloc[:, -1]
    forest = quercus.RandomForestClassifier(
        n_estimators=30, oob_score=True, random_state=0, nominal_features=list(X.columns)
    ).fit(X, y)
    text = render_report(forest, X, y)
    assert "out-of-bag accuracy" in text and f"{forest.oob_score_:.4f}" in text
    assert "permutation" in text
    data = page_data(text)
    trees = data["forest"]["trees"]
    from quercus.report.build import MAX_FOREST_NODES

    assert 1 <= len(trees) <= 30
    assert sum(len(t["id"]) for t in trees) <= MAX_FOREST_NODES
    assert trees[0]["total"] == forest.estimators_[0].tree_.node_count
    assert "tree" not in data and "scores" not in trees[0]
    assert len(text.encode()) < 400_000


def test_a_pruned_tree_lists_its_steps(shared):
    df = pd.read_csv(shared("breast-cancer.csv"))
    X, y = df.drop(columns=["Class"]), df["Class"]
    tree = quercus.C45Classifier().fit(X, y)
    text = render_report(tree, X, y)
    section = text[text.index('<section id="pruning">') :]
    assert "pessimistic pruning" in section and "estimated errors as a leaf" in section
    data = page_data(text)["tree"]
    assert any(data["pruned"])  # pruned leaves say which step made them leaves
    stops = {s["stop"] for s in data["scores"] if s["stop"]}
    assert "pruned" in stops


def test_errors_name_what_is_at_fault(id3, playtennis, tmp_path):
    X, y = playtennis
    with pytest.raises(quercus.DataError, match="Wind"):
        render_report(id3, X.drop(columns=["Wind"]), y)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        id3.report(X, y, tmp_path / "missing" / "r.html")
    with pytest.raises(ValueError, match="X_test and y_test"):
        render_report(id3, X, y, X_test=X)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        quercus.ID3Classifier().report(X, y, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_a_read_only_directory_is_refused(id3, playtennis, tmp_path, monkeypatch):
    X, y = playtennis
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    # As root every directory is writable: the check is made to see this one as it is.
    import quercus._files as files

    real = files.os.access
    monkeypatch.setattr(
        files.os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode)
    )
    with pytest.raises(PermissionError, match=f"directory {locked} is not writable"):
        id3.report(X, y, locked / "r.html")
    assert list(locked.iterdir()) == []


def test_curves_are_inline_svg(id3, playtennis):
    plot = pytest.importorskip("quercus.plot")
    pytest.importorskip("matplotlib")
    if not hasattr(plot, "overfitting_curve"):
        pytest.skip("this quercus draws no overfitting curve")
    X, y = playtennis
    text = render_report(id3, X, y)
    section = text[text.index('<section id="curves">') :]
    assert section.count("<svg") == 2
    assert "Overfitting curve" in section and "Learning curve" in section
    assert "http://" not in text and "<?xml" not in text and "<metadata" not in text
    assert "5-fold cross-validation" in section
    for _, attrs in parsed(text).tags:
        assert "src" not in attrs
        assert attrs.get("href", "#").startswith("#")
        assert attrs.get("xlink:href", "#").startswith("#")


def test_without_matplotlib_the_page_says_so(id3, playtennis, monkeypatch):
    import sys

    X, y = playtennis
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    text = render_report(id3, X, y)
    assert "The curves need matplotlib, which is not installed" in text
    assert "<svg" not in text
