"""The report's HTML without a browser: one self-contained file, its sections, its data
equal to the estimator's numbers, every user text escaped, and clear errors."""

import html
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
    # Every node's rows equal estimator.gain_table(X, y, node=k) to three decimals, best
    # first (inadmissible candidates last).
    for i, node in enumerate(tree["id"]):
        scores = tree["scores"][i]
        table = id3.gain_table(X, y, node=node)
        table = table.sort_values("gain", ascending=False, kind="stable", na_position="last")
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
    table = tree.gain_table(X[:150], y[:150], node=0).sort_values("gain", ascending=False)
    assert [r[1] for r in root["rows"]] == [float(f"{g:.4g}") for g in table["gain"]]


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


# -- big trees: many classes, long sets of categories, large numbers -----------------------------


def test_twenty_classes_have_twenty_colours(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(0, 20, 400), "z": rng.normal(size=400)})
    y = np.array([f"class {int(v):02d}" for v in X["x"]])  # 20 classes
    tree = quercus.CARTClassifier().fit(X, y)
    data = page_data(render_report(tree, X, y))
    assert len(data["classes"]) == 20
    assert len(data["palette"]) == len(set(data["palette"])) == 20  # each class its colour
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in data["palette"])
    assert len(data["ink"]) == 20 and set(data["ink"]) <= {"black", "white"}
    assert data["ink"][data["palette"].index("#1f78b4")] == "white"  # light text on dark blue


def significant_digits(x: float) -> int:
    """The significant digits of ``x`` (123456.0 -> 6; 0.012 -> 2; 1.019e9 -> 4)."""
    mantissa = f"{x:.15g}".lstrip("-").split("e")[0]
    return len(mantissa.replace(".", "").strip("0"))


def rules_caption(text: str) -> str:
    """The words under the heading of the rules' section."""
    section = text[text.index('<section id="rules">') :]
    return html.unescape(re.search(r'<p class="hint">([^<]*)</p>', section).group(1))


def test_a_regression_report_writes_sensible_numbers():
    from _wide_data import ames_like

    X, y = ames_like()
    tree = quercus.CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    text = render_report(tree, X, y)
    # The evaluation: R² to three decimals, the errors in dollars to four significant
    # digits, written out (not 3.49e+04, not 34901.2345).
    cards = re.findall(r'<div class="big">([^<]+)</div>([^<]+)</div>', text)
    shown = {name.strip(): value for value, name in cards}
    assert re.fullmatch(r"0\.\d{3}", shown["R\u00b2"])
    for name in ("root mean squared error", "mean absolute error"):
        assert re.fullmatch(r"\d{2},\d{3}", shown[name]), shown[name]
    # The data: values to six significant digits, variance decreases to four (a twelve-digit
    # float such as 1018572338.255 is not a figure anyone reads).
    data = page_data(text)["tree"]
    assert max(significant_digits(v) for v in data["value"]) <= 6
    gains = [r[1] for s in data["scores"] for r in s["rows"] if len(r) > 1]
    assert gains and max(significant_digits(g) for g in gains) <= 4
    assert max(gains) > 1e8  # squared dollars: large numbers, cut to their digits
    # Rules of a regression tree: their value, no classes.
    caption = rules_caption(text)
    assert "the mean of the training targets in the leaf" in caption
    assert "class" not in caption and "confidence" not in caption


def test_rules_captions_of_each_kind_of_tree(playtennis):
    X, y = playtennis
    assert "confidence: the share of its predicted class" in rules_caption(
        render_report(quercus.ID3Classifier().fit(X, y), X, y)
    )
    abalone = quercus.datasets.load("abalone").head(300)
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1]
    for tree, words in (
        (quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=2), "the median"),
        (quercus.ModelTreeRegressor(), "the leaf's linear model of the target"),
    ):
        caption = rules_caption(render_report(tree.fit(X, y), X, y))
        assert words in caption and "confidence" not in caption, type(tree).__name__


def test_candidates_come_best_first_by_what_the_tree_ranks(shared):
    df = pd.read_csv(shared("credit-a.csv"))
    X, y = df.drop(columns=["class"]), df["class"]
    for tree, rank in (
        (quercus.C45Classifier(), "gain_ratio"),
        (quercus.CARTClassifier(max_depth=3), "gain"),
    ):
        tree.fit(X, y)
        data = page_data(render_report(tree, X, y))
        ratios = data["ratios"]
        for i, node in enumerate(data["tree"]["id"][:6]):
            rows = data["tree"]["scores"][i]["rows"]
            admissible = [r for r in rows if len(r) > 1]
            assert rows[: len(admissible)] == admissible  # inadmissible ones last
            column = 3 if rank == "gain_ratio" and ratios else 1
            key = [r[column] for r in admissible]
            assert key == sorted(key, reverse=True), (type(tree).__name__, node)


def test_long_category_sets_have_a_brief_form():
    from _wide_data import AMES_NEIGHBORHOODS, ames_like

    X, y = ames_like()
    tree = quercus.CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    data = page_data(render_report(tree, X, y))["tree"]
    briefs = 0
    for edge, brief in zip(data["edge"], data["brief"], strict=True):
        listed = edge.count(",") + 1 if "{" in edge else 0
        if listed <= 5:
            assert brief == ""
            continue
        briefs += 1
        # The attribute first, then the first three categories and how many more.
        head, names = edge.split(" in {")
        assert (
            brief == f"{head} in {{{', '.join(names.split(', ')[:3])}, \u2026 {listed - 3} more}}"
        )
        assert head == "Neighborhood" and set(names[:-1].split(", ")) <= set(AMES_NEIGHBORHOODS)
    assert briefs >= 2


def test_a_booster_shows_its_losses_importances_and_first_trees(tmp_path):
    from quercus.report.boosting import MAX_BOOSTER_TREES

    X, y = quercus.read_table(quercus.datasets.path("iris"))
    booster = quercus.GradientBoostingClassifier(max_iter=4, random_state=0).fit(X, y)
    text = render_report(booster, X, y)
    sections = [tag[1]["id"] for tag in parsed(text).tags if tag[0] == "section"]
    assert sections == ["booster", "tree", "evaluation", "importances", "curves"]
    booster_part = text[text.index('<section id="booster">') : text.index('<section id="tree">')]
    assert "iterations kept" in booster_part and "Loss by iteration" in booster_part
    assert "<svg" in booster_part and "no validation loss: early stopping was off" in booster_part
    importances = text[text.index('<section id="importances">') :]
    assert "<th>gain</th>" in importances and "<th>splits</th>" in importances
    for name, gain, count in zip(
        X.columns, booster.feature_importances_, booster.feature_split_counts_, strict=True
    ):
        assert f'<td>{name}</td><td class="num">{gain:.3f}</td>' in importances
        assert f'<td class="num">{count:,}</td>' in importances
    data = page_data(text)
    trees = data["booster"]["trees"]
    assert "tree" not in data and "forest" not in data and not data["regression"]
    assert len(trees) == MAX_BOOSTER_TREES  # 12 trees: 4 iterations of 3 classes
    assert [t["name"] for t in trees[:4]] == [
        "iteration 1, class Iris-setosa",
        "iteration 1, class Iris-versicolor",
        "iteration 1, class Iris-virginica",
        "iteration 2, class Iris-setosa",
    ]
    for t, record in enumerate(trees):
        tree = booster.trees_.tree(t)
        kept = record["id"]  # breadth first: every node of these small trees
        assert sorted(kept) == list(range(tree.node_count))
        newton = record["newton"]
        assert newton["n"] == tree.n_node_samples[kept].tolist()
        assert newton["H"] == pytest.approx(tree.value[kept, 0], rel=1e-5)
        assert newton["G"] == pytest.approx(-tree.value[kept, 1], rel=1e-5, abs=1e-12)
        inner = tree.kind[kept] != 0
        gains = tree.impurity_decrease()[kept]
        assert [g is None for g in newton["gain"]] == list(~inner)
        assert [g for g in newton["gain"] if g is not None] == pytest.approx(
            gains[inner], rel=1e-5, abs=1e-12
        )
        # What each leaf adds to its class's raw score: the learning rate times -G / H.
        steps = booster.learning_rate_ * tree.value[kept, 1] / tree.value[kept, 0]
        assert record["value"] == pytest.approx(steps, rel=1e-5, abs=1e-12)
        assert "dist" not in record and "scores" not in record
    # The bars of the leaves span their steps.
    leaf_steps = [
        v for t in trees for v, split in zip(t["value"], t["split"], strict=True) if split < 0
    ]
    assert data["value_range"] == [min(leaf_steps), max(leaf_steps)]
    assert data["value_name"] == "step"


def test_a_booster_that_kept_no_tree_is_said(tmp_path):
    X, y = quercus.read_table(quercus.datasets.path("iris"))
    booster = quercus.GradientBoostingClassifier(max_iter=2, random_state=0).fit(X, y)
    booster.trees_ = None  # as early stopping leaves it when no iteration beat the start
    with pytest.raises(ValueError, match="the booster kept no tree"):
        render_report(booster, X, y)
