"""quercus.plot.plot_tree: a fitted tree drawn with matplotlib (the optional extra), each
node with a bar of its class distribution."""

import sys
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

import quercus
from quercus.export.graphviz import _PALETTE
from quercus.plot import plot_tree

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.text import Text  # noqa: E402

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


def texts(artists):
    return boxes(artists) + edge_labels(artists)


def bars(artists):
    """``{node: [(class index, segment), ...]}`` of the class bars."""
    out = {}
    for a in artists:
        if a.get_gid().startswith("bar-"):
            _, node, k = a.get_gid().split("-")
            out.setdefault(int(node), []).append((int(k), a))
    return out


def extents(fig, artists):
    """Window extents of the artists' boxes, as drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [a.get_bbox_patch().get_window_extent(renderer) for a in artists]


def overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_every_node_and_edge_is_labelled(id3, ax):
    artists = plot_tree(id3, ax=ax)
    texts = [a.get_text() for a in boxes(artists) + edge_labels(artists)]
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
    artists = texts(plot_tree(id3, ax=ax))
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
        artists = texts(plot_tree(id3, feature_names=["O", "T", "H", "W"], fontsize=7))
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
    assert not bars(artists)  # regression nodes have no class bar
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
    assert [a.get_text() for a in texts(artists)] == ["c (3)"]
    assert [k for k, _ in bars(artists)[0]] == [0]


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


# -- the class bars ----------------------------------------------------------------------------


def test_each_node_shows_its_class_distribution_as_a_bar(id3, ax):
    artists = plot_tree(id3, ax=ax)
    by_node = bars(artists)
    tree = id3.tree_
    assert set(by_node) == set(range(tree.node_count))
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    frames = {int(a.get_gid().split("-")[1]): a for a in boxes(artists)}
    for node, segments in by_node.items():
        counts = tree.value[node]
        # One segment per class present, as wide as its share, in the class's colour.
        assert [k for k, _ in segments] == [k for k in range(len(counts)) if counts[k] > 0]
        widths = np.array([s.get_width() for _, s in segments])
        np.testing.assert_allclose(widths / widths.sum(), counts[counts > 0] / counts.sum())
        for k, s in segments:
            assert to_hex(s.get_facecolor()) == to_hex(_PALETTE[k])
        # Side by side, under the text, inside the node's box.
        box = frames[node].get_bbox_patch().get_window_extent(renderer)
        text = Text.get_window_extent(frames[node], renderer)
        drawn = [s.get_window_extent(renderer) for _, s in segments]
        for left, right in zip(drawn, drawn[1:], strict=False):
            assert right.x0 == pytest.approx(left.x1, abs=0.01)
        for e in drawn:
            assert box.x0 <= e.x0 and e.x1 <= box.x1 + 0.01
            assert box.y0 <= e.y0 and e.y1 <= text.y0
    # The root: No 5, Yes 9.
    root = [s.get_width() for _, s in by_node[0]]
    assert root[0] / root[1] == pytest.approx(5 / 9)


def test_bars_stay_in_their_boxes_when_the_figure_changes_size(id3):
    fig, ax = plt.subplots(figsize=(6, 3))
    try:
        artists = plot_tree(id3, ax=ax)
        fig.set_size_inches(9, 4.5)
        fig.set_dpi(150)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        frames = {int(a.get_gid().split("-")[1]): a for a in boxes(artists)}
        for node, segments in bars(artists).items():
            box = frames[node].get_bbox_patch().get_window_extent(renderer)
            for _, s in segments:
                e = s.get_window_extent(renderer)
                assert box.x0 <= e.x0 and e.x1 <= box.x1 + 0.01
                assert box.y0 <= e.y0 and e.y1 <= box.y1
    finally:
        plt.close(fig)


def test_class_bars_can_be_left_out(id3, ax):
    artists = plot_tree(id3, ax=ax, class_bars=False)
    assert not bars(artists)
    assert len(artists) == 2 * id3.tree_.node_count - 1
