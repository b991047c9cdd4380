"""quercus.plot.plot_tree: a fitted tree drawn with matplotlib (the optional extra)."""

import sys
from itertools import combinations

import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

import quercus
from quercus.plot import plot_tree

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

EDGES = {"Overcast", "Rain", "Sunny", "Strong", "Weak", "High", "Normal"}


@pytest.fixture(scope="module")
def id3():
    df = quercus.datasets.load("playtennis")
    return quercus.ID3Classifier().fit(df.iloc[:, :-1], df["PlayTennis"])


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def boxes(artists):
    return [a for a in artists if a.get_gid().startswith("node-")]


def edge_labels(artists):
    return [a for a in artists if a.get_gid().startswith("edge-")]


def extents(fig, artists):
    """Window extents of the artists' boxes, as drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [a.get_bbox_patch().get_window_extent(renderer) for a in artists]


def overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_every_node_and_edge_is_labelled(id3, ax):
    artists = plot_tree(id3, ax=ax)
    texts = [a.get_text() for a in artists]
    assert "Outlook\n14 samples: No 5, Yes 9" in texts
    assert "Humidity\n5 samples: No 3, Yes 2" in texts
    assert {"Yes (4)", "No (2)", "Yes (3)", "No (3)", "Yes (2)"} <= set(texts)
    assert sorted(a.get_text() for a in edge_labels(artists)) == sorted(EDGES)
    assert len(boxes(artists)) == id3.tree_.node_count
    assert not ax.axison
    # Leaves are coloured by class (No and Yes apart), inner nodes are white.
    fill = {a.get_text(): a.get_bbox_patch().get_facecolor() for a in boxes(artists)}
    assert fill["No (2)"] == fill["No (3)"] != fill["Yes (4)"] == fill["Yes (2)"]
    assert fill["Outlook\n14 samples: No 5, Yes 9"] == (1.0, 1.0, 1.0, 1.0)
    plain = plot_tree(id3, ax=ax, filled=False)
    assert {a.get_bbox_patch().get_facecolor() for a in boxes(plain)} == {(1.0, 1.0, 1.0, 1.0)}


def test_layout_parents_above_and_between_children(id3, ax):
    artists = boxes(plot_tree(id3, ax=ax))
    tree = id3.tree_
    at = {int(a.get_gid().split("-")[1]): a.get_position() for a in artists}
    leaves_x = []
    for node, (x, y) in at.items():
        first = tree.child_start[node]
        kids = [int(k) for k in tree.children[first : first + tree.n_children[node]]]
        if not kids:
            leaves_x.append(x)
        for kid in kids:
            assert at[kid][1] < y
        if kids:
            assert min(at[k][0] for k in kids) <= x <= max(at[k][0] for k in kids)
    # One row per depth; leaves evenly spaced.
    assert {y for _, y in at.values()} == {0, -1, -2}
    assert sorted(leaves_x) == [0, 1, 2, 3, 4]


def test_nothing_overlaps_and_text_keeps_a_readable_size(id3, ax):
    artists = plot_tree(id3, ax=ax)
    assert artists[0].get_fontsize() >= 8  # the default figure holds the lecture tree
    drawn = extents(ax.figure, artists)
    for a, b in combinations(drawn, 2):
        assert not overlap(a, b)
    frame = ax.get_window_extent()
    assert all(frame.x0 <= e.x0 and e.x1 <= frame.x1 for e in drawn)


def test_max_depth_draws_a_deeper_subtree_as_one_box(id3, ax):
    artists = boxes(plot_tree(id3, ax=ax, max_depth=1))
    assert len(artists) == 4
    hidden = [a.get_text() for a in artists if "(subtree not shown)" in a.get_text()]
    assert hidden == ["Yes (5/2)\n(subtree not shown)", "No (5/2)\n(subtree not shown)"]
    only_root = boxes(plot_tree(id3, ax=ax, max_depth=0))
    assert [a.get_text() for a in only_root] == ["Yes (14/5)\n(subtree not shown)"]


def test_names_decimals_fontsize_and_current_axes(id3):
    fig = plt.figure()
    try:
        artists = plot_tree(id3, feature_names=["O", "T", "H", "W"], fontsize=7)
        assert plt.gca() is artists[0].axes
        assert artists[0].get_text().startswith("O\n")
        assert {a.get_fontsize() for a in artists} == {7}
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        plot_tree(id3, feature_names=["a", "b"])
    for bad in ({"max_depth": -1}, {"decimals": 1.5}, {"fontsize": 0}):
        with pytest.raises(ValueError):
            plot_tree(id3, **bad)


def test_regression_and_subset_splits_draw(ax):
    X, _ = load_iris(return_X_y=True, as_frame=True)
    reg = quercus.CARTRegressor(max_depth=2).fit(X.iloc[:, :3], X["petal width (cm)"])
    artists = plot_tree(reg, ax=ax, decimals=3)
    texts = [a.get_text() for a in artists]
    assert len(boxes(artists)) == reg.tree_.node_count
    assert texts[0] == "petal length (cm)\n150 samples, mean 1.199"
    assert "<= 2.45" in texts and "> 2.45" in texts
    assert "1.984 (n=55)" in texts
    weather = pd.DataFrame({"Weather": ["sunny", "windy", "rainy", "sunny", "windy", "rainy"]})
    cart = quercus.CARTClassifier().fit(weather, ["go", "stay", "stay", "go", "stay", "go"])
    edges = [a.get_text() for a in edge_labels(plot_tree(cart, ax=ax))]
    assert any(e.startswith("in {") for e in edges)


def test_single_leaf_tree_draws_one_box(ax):
    stump = quercus.ID3Classifier().fit(pd.DataFrame({"a": ["x", "y", "z"]}), ["c", "c", "c"])
    artists = plot_tree(stump, ax=ax)
    assert [a.get_text() for a in artists] == ["c (3)"]


def test_figure_saves_to_png(id3, tmp_path):
    fig, ax = plt.subplots()
    try:
        plot_tree(id3, ax=ax)
        fig.savefig(tmp_path / "tree.png")
    finally:
        plt.close(fig)
    assert (tmp_path / "tree.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_matplotlib_says_how_to_install(id3, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r'pip install "quercus\[plot\]"'):
        plot_tree(id3)


def test_unfitted_or_foreign_estimator_is_refused(ax):
    with pytest.raises(NotFittedError):
        plot_tree(quercus.ID3Classifier(), ax=ax)
    with pytest.raises(TypeError, match="expected a fitted quercus tree"):
        plot_tree(object(), ax=ax)
