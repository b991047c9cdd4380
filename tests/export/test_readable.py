"""Reading a fitted tree: text, rules, Graphviz DOT, explanations, importances."""

import html
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.inspection import permutation_importance

import quercus
from quercus.export import export_graphviz, export_rules, export_text, to_rules

PLAYTENNIS_ID3 = """\
Outlook = Overcast: Yes (4)
Outlook = Rain
|   Wind = Strong: No (2)
|   Wind = Weak: Yes (3)
Outlook = Sunny
|   Humidity = High: No (3)
|   Humidity = Normal: Yes (2)
"""


def test_text_is_the_lecture_tree(id3):
    assert export_text(id3) == PLAYTENNIS_ID3
    assert id3.export_text() == PLAYTENNIS_ID3


def test_text_depth_limit_names_and_weka_style(id3):
    assert id3.export_text(max_depth=1).splitlines() == [
        "Outlook = Overcast: Yes (4)",
        "Outlook = Rain: Yes (5/2) [subtree of 2 leaves not shown]",
        "Outlook = Sunny: No (5/2) [subtree of 2 leaves not shown]",
    ]
    assert id3.export_text(max_depth=0) == "Yes (14/5) [subtree of 5 leaves not shown]\n"
    renamed = id3.export_text(feature_names=["O", "T", "H", "W"])
    assert renamed.splitlines()[0] == "O = Overcast: Yes (4)"
    assert id3.export_text(style="weka").splitlines()[0] == "Outlook = Overcast: Yes (4.0)"
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        id3.export_text(feature_names=["a", "b"])
    with pytest.raises(ValueError, match="feature_names must be a list of 4 names, got the"):
        id3.export_text(feature_names="OTHW")  # four characters, not four names
    with pytest.raises(ValueError, match="style must be one of"):
        id3.export_text(style="fancy")


def test_text_thresholds_subsets_errors_and_regression():
    X, y = load_iris(return_X_y=True, as_frame=True)
    c45 = quercus.C45Classifier().fit(X, y)
    lines = c45.export_text().splitlines()
    # J48's iris tree, in the plain layout: thresholds at training values, (weight/errors).
    assert lines[0] == "petal width (cm) <= 0.6: 0 (50)"
    assert "|   |   petal length (cm) <= 4.9: 1 (48/1)" in lines
    weather = pd.DataFrame({"Weather": ["sunny", "cloudy", "windy", "rainy"] * 2})
    cart = quercus.CARTClassifier().fit(weather, ["go", "go", "stay", "stay"] * 2)
    assert cart.export_text().splitlines() == [
        "Weather in {rainy, windy}: stay (4)",
        "Weather in {cloudy, sunny}: go (4)",
    ]
    reg = quercus.CARTRegressor(max_depth=1).fit(X[["petal length (cm)"]], X["petal width (cm)"])
    assert reg.export_text().splitlines() == [
        "petal length (cm) <= 2.45: 0.25 (n=50)",
        "petal length (cm) > 2.45: 1.68 (n=100)",
    ]
    assert reg.export_text(decimals=3).splitlines()[0] == "petal length (cm) <= 2.45: 0.246 (n=50)"


def test_rules_one_per_leaf_with_support_and_confidence(id3, playtennis):
    rules = to_rules(id3)
    assert [str(r) for r in rules] == [
        "IF Outlook = Overcast THEN Yes (support 4, confidence 100.0%)",
        "IF Outlook = Rain AND Wind = Strong THEN No (support 2, confidence 100.0%)",
        "IF Outlook = Rain AND Wind = Weak THEN Yes (support 3, confidence 100.0%)",
        "IF Outlook = Sunny AND Humidity = High THEN No (support 3, confidence 100.0%)",
        "IF Outlook = Sunny AND Humidity = Normal THEN Yes (support 2, confidence 100.0%)",
    ]
    assert export_rules(id3) == "".join(str(r) + "\n" for r in rules)
    # Every training row meets exactly the rule of its leaf.
    X, _ = playtennis
    matrix = id3._predict_matrix(X)
    met = np.array(
        [[all(c.satisfied(matrix)[i] for c in r.conditions) for r in rules] for i in range(len(X))]
    )
    assert (met.sum(axis=1) == 1).all()
    assert [rules[j].leaf for j in met.argmax(axis=1)] == id3.apply(X).tolist()


def test_rules_merge_conditions_on_one_feature():
    # The root tests x0 <= 4.5, its left child x0 <= 2.5: the first leaf's rule keeps only
    # the tighter bound, the second keeps one bound on each side.
    x = np.arange(10.0)
    y = np.array(["a", "a", "a", "b", "b", "c", "c", "c", "c", "c"])
    tree = quercus.DecisionTreeClassifier().fit(x.reshape(-1, 1), y)
    texts = [str(r).split(" THEN ")[0] for r in tree.to_rules()]
    assert texts == ["IF x0 <= 2.5", "IF x0 <= 4.5 AND x0 > 2.5", "IF x0 > 4.5"]
    for rule in tree.to_rules():
        assert len({(c.feature, c.op) for c in rule.conditions}) == len(rule.conditions)


def test_rules_of_a_regression_tree():
    X, _ = load_iris(return_X_y=True, as_frame=True)
    reg = quercus.CARTRegressor(max_depth=1).fit(X[["petal length (cm)"]], X["petal width (cm)"])
    assert [str(r) for r in reg.to_rules()] == [
        "IF petal length (cm) <= 2.45 THEN 0.25 (support 50)",
        "IF petal length (cm) > 2.45 THEN 1.68 (support 100)",
    ]


def test_graphviz_dot(id3, tmp_path):
    dot = export_graphviz(id3)
    assert dot.startswith("digraph tree {") and dot.rstrip().endswith("}")
    assert 'n0 [label="Outlook\\n14 samples: No 5, Yes 9"];' in dot
    assert 'n0 -> n1 [label="Overcast"];' in dot
    assert re.search(r'n1 \[label="Yes \(4\)", fillcolor="#[0-9a-f]{6}"\];', dot)
    assert dot.count("->") == id3.tree_.node_count - 1
    assert 'fillcolor="#' not in id3.export_graphviz(filled=False)
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed: the SVG is not drawn")
    from quercus.export.graphviz import render_svg

    svg = render_svg(dot)
    assert "<svg" in svg and "Outlook" in svg


def test_class_colours_are_distinct_and_keep_their_order():
    from quercus.export.colours import class_colour, class_colours, text_colour

    for n in (2, 10, 11, 20, 21, 60):
        colours = class_colours(n)
        assert len(colours) == len(set(colours)) == n, n  # above ten classes too
        assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours)
    # A class keeps its colour whatever the number of classes (the pictures and the report
    # agree), and the lectures' first two are those of the Paired palette.
    assert class_colours(60)[:20] == class_colours(20) and class_colours(3)[:2] == [
        "#a6cee3",
        "#b2df8a",
    ]
    assert [class_colour(k) for k in range(25)] == class_colours(25)
    assert text_colour("#1f78b4") == "white" and text_colour("#ffff99") == "black"
    assert text_colour("white") == "black"


def dot_legend(dot: str) -> str:
    """The legend of a DOT text: the graph's HTML-like label."""
    (legend,) = re.findall(r"^  label=(<.*>); labelloc=b; labeljust=l;", dot, re.M)
    return legend


def dot_sets(dot: str) -> dict[str, str]:
    """The sets the legend of a DOT text lists, by key, their wrapped lines joined."""
    sets, key = {}, None
    for line in map(html.unescape, re.findall(r'COLSPAN="\d+" ALIGN="LEFT">([^<]+)<', dot)):
        if line.startswith(" "):
            sets[key] += " " + line.strip()
        elif ": " in line:
            key, text = line.split(": ", 1)
            sets[key] = text
    return sets


def test_graphviz_names_many_classes_in_a_legend_in_distinct_colours():
    from _wide_data import SOYBEAN_CLASSES, soybean_like

    X, y = soybean_like()
    est = quercus.C45Classifier().fit(X, y)
    dot = export_graphviz(est)
    swatches = re.findall(
        r'BGCOLOR="(#\w{6})"[^>]*></TD><TD ALIGN="LEFT">([^<]+)<', dot_legend(dot)
    )
    named = {html.unescape(name): colour for colour, name in swatches}
    assert sorted(named) == sorted(SOYBEAN_CLASSES)
    assert len(set(named.values())) == 19  # one colour per class
    # Inner nodes name no class: their distribution is a bar of the classes' colours.
    inner = re.findall(r"^  n(\d+) \[label=<(.*)>\];$", dot, re.M)
    assert len(inner) == est.tree_.node_count - est.get_n_leaves()
    for node, label in inner:
        text = html.unescape(re.sub(r"<[^>]*>", " ", label))
        assert not any(c in text for c in SOYBEAN_CLASSES)
        assert re.search(r"\d+ samples", text)
        bar = re.findall(r'BGCOLOR="(#\w{6})"', label)
        present = [est.classes_[k] for k, c in enumerate(est.tree_.value[int(node)]) if c > 0]
        assert bar == [named[c] for c in present]
    # Leaves: their class, filled with its legend colour.
    leaves = re.findall(r'label="([^" ]+) \([^"]*\)", fillcolor="(#\w{6})"', dot)
    assert len(leaves) == est.get_n_leaves()
    assert all(named[name] == colour for name, colour in leaves)
    plain = export_graphviz(est, legend=False)
    assert "label=<" not in plain and "samples: " in plain
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed: the SVG is not drawn")
    from quercus.export.graphviz import render_svg

    svg = render_svg(dot)
    sizes = [float(x) for x in re.findall(r'font-size="([\d.]+)"', svg)]
    assert sizes and min(sizes) >= 14  # Graphviz's default size: nothing shrinks
    assert all(f">{name}<" in html.unescape(svg) for name in SOYBEAN_CLASSES)


def test_graphviz_names_long_category_sets_by_a_key():
    from _wide_data import ames_like

    X, y = ames_like()
    est = quercus.CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    dot, plain = export_graphviz(est), export_graphviz(est, legend=False)
    edge = r'^  n(\d+) -> (n\d+) \[label="([^"]*)"\];$'
    written = {(a, b): text for a, b, text in re.findall(edge, plain, re.M)}
    tested = dict(re.findall(r'^  n(\d+) \[label="([^"\\]+)\\n', plain, re.M))
    sets = dot_sets(dot)
    keyed = 0
    for parent, kid, label in re.findall(edge, dot, re.M):
        whole = written[parent, kid]
        n_listed = whole.count(",") + 1
        if whole.startswith("in {") and n_listed > 5:
            # A set of more than five: its key on the edge, the set in full in the legend.
            keyed += 1
            key = label.split()[2]
            assert label == f"in set {key} ({n_listed} values)"
            assert sets[key] == f"{tested[parent]} {whole}"
        else:
            assert label == whole
    assert keyed >= 2 and len(sets) >= 2
    assert "label=<" not in plain


def test_graphviz_says_how_to_get_dot(monkeypatch):
    from quercus.export import graphviz

    monkeypatch.setattr(graphviz.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        graphviz.render_svg("digraph tree {}")


def test_explain_one_example(id3, playtennis):
    X, _ = playtennis
    text = id3.explain(X.iloc[0])  # Sunny, Hot, High, Weak: No
    assert text.splitlines() == [
        "At the root: 14 samples: No 5, Yes 9",
        "1. Outlook is Sunny, so Outlook = Sunny: 5 samples: No 3, Yes 2",
        "2. Humidity is High, so Humidity = High: 3 samples: No 3",
        "Prediction: No (probability 1)",
    ]
    same = id3.explain(
        {"Outlook": "Sunny", "Temperature": "Hot", "Humidity": "High", "Wind": "Weak"}
    )
    assert same == text
    missing = id3.explain(
        {"Outlook": "Rain", "Temperature": "Hot", "Humidity": "High", "Wind": None}
    )
    assert "Wind is missing, so it takes the branch for missing values" in missing
    with pytest.raises(ValueError, match="one example"):
        id3.explain(X.iloc[:2])


def test_explain_fractional_missing_value():
    df = quercus.datasets.load("playtennis")
    X, y = df.iloc[:, :-1].copy(), df["PlayTennis"]
    c45 = quercus.C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    row = {"Outlook": None, "Temperature": "Hot", "Humidity": "High", "Wind": "Weak"}
    text = c45.explain(row)
    assert "Outlook is missing, so the example goes down every branch" in text
    proba = c45.predict_proba(pd.DataFrame([row]))[0]
    assert f"probability {round(proba.max(), 2):g}" in text.splitlines()[-1]


def test_permutation_importance_works_with_quercus(playtennis):
    X, y = playtennis
    est = quercus.ID3Classifier().fit(X, y)
    result = permutation_importance(est, X, y, n_repeats=20, random_state=0)
    assert result.importances_mean.shape == (4,)
    # Temperature is never tested: permuting it cannot change a prediction.
    assert result.importances_mean[list(X.columns).index("Temperature")] == 0.0
    assert result.importances_mean[list(X.columns).index("Outlook")] > 0.1


def test_impurity_importances_sum_to_one_and_name_the_root(id3):
    imp = id3.feature_importances_
    assert imp.sum() == pytest.approx(1.0)
    assert imp[1] == 0.0  # Temperature
    # Weighted entropy removed: Outlook 14 x 0.2467 bits, Humidity and Wind 5 x 0.9710 each.
    outlook, below = 14 * 0.24675, 5 * 0.97095
    total = outlook + 2 * below
    assert imp == pytest.approx([outlook / total, 0.0, below / total, below / total], abs=1e-4)


def _weekend_binary():
    df = quercus.datasets.load("weekend")
    X, y = df.iloc[:, :-1], df["Decision"]
    return quercus.DecisionTreeClassifier(criterion="entropy", nominal_split="binary").fit(X, y), X


def test_nested_subset_split_names_only_the_categories_that_reach_it():
    est, X = _weekend_binary()
    tree, schema = est.tree_, est.schema_
    weather = schema.names.index("Weather")
    # Every category test names only categories that the tests above let through, and the
    # rows of X reaching each branch have exactly such values.
    nested = 0
    path = est.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero((tree.kind != 0) & (tree.feature == weather)):
        above = [a for a in range(node) if path[path[:, node], a].all() and a != node]
        nested += any(tree.feature[a] == weather for a in above)
        first = tree.child_start[node]
        kids = tree.children[first : first + tree.n_children[node]]
        shown = quercus.export._common.conditions(est, node, schema.names)
        for kid, condition in zip(kids, shown, strict=True):
            reaching = set(X.loc[path[:, node], "Weather"])
            named = set(condition.text.strip("{}").split(", "))
            assert set(X.loc[path[:, kid], "Weather"]) <= named
            assert named <= reaching, (node, str(condition), reaching)
    assert nested > 0  # the weekend tree tests Weather twice on one path


WEEKEND_BINARY = """\
Parents = No
|   Weather in {Rainy, Windy}
|   |   Weather = Rainy: Stay in (1)
|   |   Weather = Windy
|   |   |   Money = Rich: Shopping (1)
|   |   |   Money = Poor: Cinema (1)
|   Weather = Sunny: Tennis (2)
Parents = Yes: Cinema (5)
"""


def test_nested_subset_split_in_text_graphviz_and_explain():
    est, X = _weekend_binary()
    # The inner test's table also sends Sunny right, but no Sunny case reaches it.
    assert export_text(est) == WEEKEND_BINARY
    dot = export_graphviz(est)
    assert 'n2 -> n4 [label="Windy"]' in dot and "Sunny, Windy" not in dot
    windy = X[(X.Weather == "Windy") & (X.Parents == "No")].iloc[0]
    assert "so Weather = Windy:" in quercus.export.explain(est, windy)
