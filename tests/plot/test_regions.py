"""quercus.plot.decision_regions: the rectangles drawn are the tree's own regions, and the
region drawn at a point is what ``predict`` says there."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import quercus
from quercus.plot import decision_regions

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
from matplotlib.patches import Rectangle  # noqa: E402


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def iris_petals():
    df = quercus.datasets.load("iris")
    return df[["petallength", "petalwidth"]], df["class"]


def grid(lo, hi, n):
    """Points strictly between the ends (none on a drawn edge: thresholds are midpoints)."""
    return np.linspace(lo, hi, n + 2)[1:-1] + 1e-7


def test_regions_of_two_numeric_attributes_equal_predict(ax):
    X, y = iris_petals()
    est = quercus.CARTClassifier(max_depth=3).fit(X, y)
    drawn = decision_regions(est, X, y, ax=ax)
    assert drawn.features == ("petallength", "petalwidth")
    # One rectangle per leaf (both axes numeric), their areas tiling the drawn frame.
    assert sorted(r.leaf for r in drawn.regions) == sorted(np.flatnonzero(est.tree_.kind == 0))
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    area = sum((r.x1 - r.x0) * (r.y1 - r.y0) for r in drawn.regions)
    assert area == pytest.approx((x1 - x0) * (y1 - y0))
    # The regions' edges are the tree's thresholds (2.45 cm, the lectures' first split of iris).
    edges = {r.x0 for r in drawn.regions} | {r.x1 for r in drawn.regions}
    assert 2.45 in {round(e, 6) for e in edges}
    xs, ys = np.meshgrid(grid(x0, x1, 40), grid(y0, y1, 40))
    points = pd.DataFrame({"petallength": xs.ravel(), "petalwidth": ys.ravel()})
    predicted = est.predict(points)
    for (px, py), label in zip(points.to_numpy(), predicted, strict=True):
        assert drawn.region_at(px, py).label == label
    # What is drawn: a rectangle per region, coloured by class, and the 150 points.
    patches = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_gid()]
    assert len(patches) == len(drawn.regions)
    for patch, region in zip(patches, drawn.regions, strict=True):
        assert patch.get_xy() == pytest.approx((region.x0, region.y0))
        assert patch.get_width() == pytest.approx(region.x1 - region.x0)
    assert sum(len(c.get_offsets()) for c in ax.collections) == 150
    assert drawn.ax_ is ax and ax.get_xlabel() == "petallength"


def test_a_nominal_axis_places_categories_at_positions(ax):
    df = quercus.datasets.load("playtennis")
    rows = pd.concat([df] * 3, ignore_index=True)
    rows["Temp"] = np.tile(np.arange(14.0), 3) * 2.0 + np.repeat([0.0, 0.3, 0.6], 14)
    X, y = rows[["Outlook", "Temp"]], rows["PlayTennis"]
    est = quercus.CARTClassifier(min_samples_leaf=2).fit(X, y)
    drawn = decision_regions(est, X, y, features=("Outlook", "Temp"), ax=ax)
    cats = drawn.categories[0]
    assert cats == ("Overcast", "Rain", "Sunny") and drawn.categories[1] is None
    assert [t.get_text() for t in ax.get_xticklabels()] == list(cats)
    y0, y1 = ax.get_ylim()
    for code, category in enumerate(cats):
        temps = grid(y0, y1, 60)
        points = pd.DataFrame({"Outlook": [category] * len(temps), "Temp": temps})
        for t, label in zip(temps, est.predict(points), strict=True):
            region = drawn.region_at(code, t)
            assert region is not None and region.label == label
    # A region never covers half a category: its x edges are cell edges.
    assert {r.x0 % 1 for r in drawn.regions} | {r.x1 % 1 for r in drawn.regions} == {0.5}


def test_axes_may_be_swapped_and_a_frame_may_hold_more_columns(ax):
    X, y = iris_petals()
    est = quercus.CARTClassifier(max_depth=2).fit(X, y)
    wider = X.assign(other=1.0)
    drawn = decision_regions(est, wider, y, features=("petalwidth", "petallength"), ax=ax)
    assert drawn.features == ("petalwidth", "petallength")
    point = pd.DataFrame({"petallength": [5.0], "petalwidth": [1.2]})
    assert drawn.region_at(1.2, 5.0).label == est.predict(point)[0]


def test_multiway_nominal_splits_and_ordinal_axes(ax):
    df = quercus.datasets.load("car")
    X = df[["safety", "persons"]].astype("category")
    order = {"safety": ["low", "med", "high"]}
    est = quercus.CARTClassifier(ordinal_features=order, max_depth=3).fit(X, df["class"])
    drawn = decision_regions(est, X, df["class"], ax=ax)
    assert drawn.categories[0] == ("low", "med", "high")
    for i, safety in enumerate(drawn.categories[0]):
        for j, persons in enumerate(drawn.categories[1]):
            point = pd.DataFrame({"safety": [safety], "persons": [persons]}).astype("category")
            assert drawn.region_at(i, j).label == est.predict(point)[0]
    multi = quercus.ID3Classifier().fit(X, df["class"])
    regions = decision_regions(multi, X, df["class"], ax=ax)
    assert len({r.leaf for r in regions.regions}) == multi.get_n_leaves()


def test_decision_regions_refuses_what_it_cannot_draw(ax):
    X, y = iris_petals()
    with pytest.raises(NotFittedError):
        decision_regions(quercus.CARTClassifier(), X, y, ax=ax)
    reg = quercus.CARTRegressor().fit(X, np.arange(150.0))
    with pytest.raises(TypeError, match="needs a classifier"):
        decision_regions(reg, X, y, ax=ax)
    df = quercus.datasets.load("iris")
    four = quercus.CARTClassifier().fit(df.iloc[:, :4], df["class"])
    with pytest.raises(ValueError, match="two features; this one has 4"):
        decision_regions(four, df.iloc[:, :4], df["class"], ax=ax)
    est = quercus.CARTClassifier().fit(X, y)
    with pytest.raises(ValueError, match="'sepalwidth' is not a column of X"):
        decision_regions(est, X, y, features=("petallength", "sepalwidth"), ax=ax)
    with pytest.raises(ValueError, match="is not one of the tree's features"):
        decision_regions(est, df, y, features=("petallength", "sepalwidth"), ax=ax)
    with pytest.raises(ValueError, match="two different columns"):
        decision_regions(est, X, y, features=("petallength", "petallength"), ax=ax)


def test_an_oblique_tree_has_a_polygon_per_leaf():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(400, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, "a", np.where(X[:, 0] > 0.7, "b", "c"))
    tree = quercus.DecisionTreeClassifier(split="oblique", random_state=0).fit(X, y)
    assert tree.tree_.kind[0] == 4  # the diagonal first
    result = decision_regions(tree, X, y)
    assert len(result.regions) == tree.tree_.n_leaves
    assert {len(r.vertices) for r in result.regions} >= {3}  # a triangle under the diagonal
    # Every point's polygon predicts what the tree predicts, and the polygons tile the
    # drawn rectangle (shoelace areas add up to it).
    for point, predicted in zip(X, tree.predict(X), strict=True):
        assert result.region_at(*point).label == predicted

    def area(corners):
        xs, ys = np.array(corners).T
        return 0.5 * abs(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1)))

    (x0, x1), (y0, y1) = result.ax_.get_xlim(), result.ax_.get_ylim()
    total = sum(area(r.vertices) for r in result.regions)
    assert total == pytest.approx((x1 - x0) * (y1 - y0))
    plt.close(result.figure_)


def test_each_call_without_ax_draws_its_own_figure():
    X, y = iris_petals()
    shallow = quercus.CARTClassifier(max_depth=1).fit(X, y)
    deep = quercus.CARTClassifier(max_depth=3).fit(X, y)
    drawn = [decision_regions(shallow, X, y), decision_regions(deep, X, y)]
    for result in drawn:
        plt.close(result.figure_)
    assert drawn[0].figure_ is not drawn[1].figure_
    for result, est in zip(drawn, (shallow, deep), strict=True):
        assert result.figure_.axes == [result.ax_]
        leaves = {p.get_gid() for p in result.ax_.patches if p.get_gid().startswith("leaf-")}
        assert len(leaves) == est.get_n_leaves()  # its own regions only
        assert len(result.ax_.get_legend().get_texts()) == 3
