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
from quercus.export.colours import CLASS_COLOURS
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


def test_names_decimals_fontsize_and_a_figure_of_its_own(id3):
    fig = plt.figure()
    try:
        artists = texts(plot_tree(id3, feature_names=["O", "T", "H", "W"], fontsize=7))
        plt.close(artists[0].figure)
        assert artists[0].figure is not fig and not fig.axes  # not on the current figure
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
            assert to_hex(s.get_facecolor()) == to_hex(CLASS_COLOURS[k])
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


# -- big trees stay readable: a figure sized to the tree, long sets and many classes in a legend


def legend_parts(artists, kind) -> list:
    """The parts of type ``kind`` of the legend among ``artists``, in the order drawn."""
    (legend,) = [a for a in artists if a.get_gid() == "legend"]

    def walk(box):
        if isinstance(box, kind):
            yield box
        for child in box.get_children() if hasattr(box, "get_children") else []:
            yield from walk(child)

    return list(walk(legend))


def legend_texts(artists) -> list[str]:
    """The lines of text of the legend among ``artists``."""
    from matplotlib.offsetbox import TextArea

    areas = legend_parts(artists, TextArea)
    return [line for area in areas for line in area.get_text().split("\n")]


def legend_swatches(artists) -> dict[str, str]:
    """The colour of each class the legend names: each entry is a swatch beside a name."""
    from matplotlib.offsetbox import DrawingArea, HPacker

    out = {}
    for entry in legend_parts(artists, HPacker):
        swatch, *rest = entry.get_children()
        if isinstance(swatch, DrawingArea):
            (name,) = rest
            (patch,) = swatch.get_children()
            out[name.get_text()] = to_hex(patch.get_facecolor())
    return out


def test_a_figure_of_its_own_grows_with_the_tree_and_keeps_its_text_size():
    # Without ax, the figure is sized to the tree: the text stays at matplotlib's default
    # size however many leaves there are (a fixed figure shrank it to 1-2 pixels).
    X, y = load_iris(return_X_y=True, as_frame=True)
    widths = []
    for leaves in (3, 6, 12):
        est = quercus.CARTClassifier(max_leaf_nodes=leaves).fit(X, y)
        artists = plot_tree(est)
        fig = artists[0].figure
        try:
            assert {a.get_fontsize() for a in texts(artists)} == {plt.rcParams["font.size"]}
            drawn = extents(fig, boxes(artists))
            for a, b in combinations(drawn, 2):
                assert not overlap(a, b)
            canvas = fig.bbox
            assert all(canvas.x0 <= e.x0 and e.x1 <= canvas.x1 for e in drawn)
            widths.append(fig.get_size_inches()[0])
        finally:
            plt.close(fig)
    assert widths[0] < widths[1] < widths[2]
    assert widths[2] / widths[1] == pytest.approx(2, rel=0.25)  # in step with the leaves


def test_many_classes_are_named_in_a_legend_in_distinct_colours():
    from _wide_data import SOYBEAN_CLASSES, soybean_like

    X, y = soybean_like()
    est = quercus.C45Classifier().fit(X, y)
    artists = plot_tree(est, max_depth=2)
    fig = artists[0].figure
    try:
        size = plt.rcParams["font.size"]
        assert {a.get_fontsize() for a in texts(artists)} == {size}
        inner = [a.get_text() for a in boxes(artists) if "samples" in a.get_text()]
        assert inner and all(not any(c in t for c in SOYBEAN_CLASSES) for t in inner)
        assert inner[0] == f"{X.columns[est.tree_.feature[0]]}\n{len(X)} samples"
        # The legend: every class once, each in its own colour, the colour of its bars.
        lines = legend_texts(artists)
        assert sorted(c for c in lines if c in SOYBEAN_CLASSES) == sorted(SOYBEAN_CLASSES)
        named = legend_swatches(artists)
        assert sorted(named) == sorted(SOYBEAN_CLASSES)
        assert len(set(named.values())) == 19
        for segments in bars(artists).values():
            for k, segment in segments:
                assert to_hex(segment.get_facecolor()) == named[est.classes_[k]]
        # Under the tree, inside the figure.
        (legend,) = [a for a in artists if a.get_gid() == "legend"]
        fig.canvas.draw()
        key = legend.get_window_extent(fig.canvas.get_renderer())
        assert fig.bbox.y0 <= key.y0 and key.y1 <= min(e.y0 for e in extents(fig, boxes(artists)))
    finally:
        plt.close(fig)
    # Three classes: named in the nodes, no legend.
    few = plot_tree(quercus.ID3Classifier().fit(X.drop(columns="temp"), X["temp"]))
    plt.close(few[0].figure)
    assert "lt-norm" in boxes(few)[0].get_text()
    assert not [a for a in few if a.get_gid() == "legend"]


def test_long_category_sets_are_named_by_a_key_and_listed_in_the_legend():
    from _wide_data import ames_like

    X, y = ames_like()
    est = quercus.CARTRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    artists = plot_tree(est)
    full = plot_tree(est, legend=False)  # every label written out
    plt.close(artists[0].figure)
    plt.close(full[0].figure)
    assert not [a for a in full if a.get_gid() == "legend"]
    sets, key = {}, None
    for line in legend_texts(artists):  # "A: Neighborhood in {...}", maybe wrapped
        if line.startswith(" "):
            sets[key] += " " + line.strip()
        elif ": " in line:
            key, text = line.split(": ", 1)
            sets[key] = text
    tested = {a.get_gid()[5:]: a.get_text().split("\n")[0] for a in boxes(full)}
    written = {a.get_gid(): a.get_text() for a in edge_labels(full)}
    keyed = 0
    for label in edge_labels(artists):
        whole = written[label.get_gid()]
        n_listed = whole.count(",") + 1
        if whole.startswith("in {") and n_listed > 5:
            # A set of more than five: its key on the edge, the set in full in the legend.
            keyed += 1
            key = label.get_text().split()[2]
            assert label.get_text() == f"in set {key} ({n_listed} values)"
            parent = label.get_gid().split("-")[1]
            assert sets[key] == f"{tested[parent]} {whole}"
        else:
            assert label.get_text() == whole
    assert keyed >= 2 and len(sets) >= 2  # the neighbourhoods' sets of a dozen names
