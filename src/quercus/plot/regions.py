"""The decision regions of a tree on two attributes: one axis-parallel rectangle (or a few,
for a nominal axis) per leaf, drawn from the tree's own tests, with the training points. A
tree with oblique splits (``split="oblique"``, two numeric attributes) has a convex polygon
per leaf instead: the drawn range cut by the half-planes of the tests on its path.

A numeric attribute is an axis of values; a nominal or ordinal one is an axis of positions,
one per category (ordinal: in their order), each category's cell one unit wide. A leaf's
region is the set of values its path admits: an interval ``(lo, hi]`` of a numeric
attribute (cut to the drawn range), a set of categories of a nominal one (a rectangle per
run of neighbouring positions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._config import LEAF, NUMERIC_SPLIT, OBLIQUE_SPLIT
from ..data.schema import NUMERIC_KIND
from ..estimators.validate import predict_matrix
from ._common import axes, class_colours, fitted_estimator

__all__ = ["DecisionRegions", "Region", "decision_regions"]

_MARGIN = 0.05  # share of a numeric axis's range drawn beyond the data on each side
_JITTER = 0.25  # points of one category spread this far either side of its position


class Region(NamedTuple):
    """A rectangle of the plane where the tree predicts ``label`` (leaf ``leaf``):
    ``x0 < x <= x1``, ``y0 < y <= y1`` on a numeric axis (its edges at the drawn range),
    category cells on a nominal one. In a tree with oblique splits, the convex polygon
    of corners ``vertices`` (in order), whose bounding box ``x0 .. y1`` is."""

    leaf: int
    label: object
    x0: float
    x1: float
    y0: float
    y1: float
    vertices: tuple = ()

    def holds(self, x: float, y: float) -> bool:
        """Whether the point ``(x, y)`` is in the region (its edges counted in)."""
        if not self.vertices:
            return self.x0 < x <= self.x1 and self.y0 < y <= self.y1
        corners = self.vertices
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
            if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < -1e-12:  # right of a ccw edge
                return False
        return True


@dataclass
class DecisionRegions:
    """The numbers of :func:`decision_regions`, with the Axes they are drawn on.

    Attributes
    ----------
    features : tuple of str
        The attributes on the x and y axes.
    regions : list of Region
        The rectangles drawn, leaf by leaf in the tree's order.
    categories : tuple
        For each axis, its categories in position order (None for a numeric axis).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    """

    features: tuple
    regions: list
    categories: tuple
    ax_: object = None
    figure_: object = None

    def region_at(self, x: float, y: float) -> Region | None:
        """The region holding the point ``(x, y)`` (axis positions for categories)."""
        for region in self.regions:
            if region.holds(x, y):
                return region
        return None


def _axes_of(estimator, X, features) -> list[int]:
    """The tree's feature index on each axis, after checking ``features``."""
    names = list(estimator.schema_.names)
    if len(names) != 2:
        raise ValueError(
            f"decision_regions needs a tree fitted on two features; this one has {len(names)}: "
            "fit it on the two columns to draw"
        )
    if features is None:
        return [0, 1]
    if isinstance(features, str) or len(features) != 2:
        raise ValueError(f"features must name two columns, got {features!r}")
    columns = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    out = []
    for feature in features:
        name = (
            names[feature] if isinstance(feature, int | np.integer) and columns is None else feature
        )
        if columns is not None and str(name) not in columns:
            raise ValueError(f"feature {name!r} is not a column of X")
        if str(name) not in names:
            raise ValueError(f"feature {name!r} is not one of the tree's features {names}")
        out.append(names.index(str(name)))
    if out[0] == out[1]:
        raise ValueError(f"features must be two different columns, got {features!r}")
    return out


def _leaf_boxes(tree, on_axis, limits, n_categories):
    """``(leaf, box)`` for every leaf: per axis, an interval ``[lo, hi]`` (numeric) or the
    set of category codes its path admits."""
    start = tuple(
        tuple(limits[axis]) if n_categories[axis] is None else frozenset(range(n_categories[axis]))
        for axis in range(2)
    )
    axis_of = {f: axis for axis, f in enumerate(on_axis)}
    out, stack = [], [(0, start)]
    while stack:
        node, box = stack.pop()
        if tree.kind[node] == LEAF:
            out.append((node, box))
            continue
        axis = axis_of[int(tree.feature[node])]
        first = tree.child_start[node]
        kids = tree.children[first : first + tree.n_children[node]]
        part = box[axis]
        branches = []
        if tree.kind[node] == NUMERIC_SPLIT:
            t = float(tree.threshold[node])
            if isinstance(part, frozenset):  # an ordinal axis: codes on either side
                sides = [frozenset(c for c in part if c <= t), frozenset(c for c in part if c > t)]
            else:
                sides = [(part[0], min(part[1], t)), (max(part[0], t), part[1])]
            branches = list(zip(kids, sides, strict=True))
        else:
            table = tree.category_branches(node, np.arange(n_categories[axis]))
            for k, kid in enumerate(kids):
                branches.append((kid, frozenset(c for c in part if table[c] == k)))
        for kid, side in reversed(branches):
            stack.append((int(kid), box[:axis] + (side,) + box[axis + 1 :]))
    return sorted(out)


def _leaf_polygons(tree, on_axis, limits):
    """``(leaf, corners)`` for every leaf of a tree on two numeric attributes with oblique
    splits: the drawn rectangle cut by the half-plane of each test on the leaf's path
    (corners counter-clockwise; an empty list where nothing of the range is left)."""
    (x0, x1), (y0, y1) = limits
    out, stack = [], [(0, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])]
    while stack:
        node, corners = stack.pop()
        if tree.kind[node] == LEAF:
            out.append((node, corners))
            continue
        if tree.kind[node] == OBLIQUE_SPLIT:
            weights = tree.oblique_weights(node)
            a = (float(weights[on_axis[0]]), float(weights[on_axis[1]]))
        else:
            axis = on_axis.index(int(tree.feature[node]))
            a = (1.0, 0.0) if axis == 0 else (0.0, 1.0)
        t = float(tree.threshold[node])
        first = tree.child_start[node]
        left, right = tree.children[first : first + 2]
        stack.append((int(right), _clip(corners, (-a[0], -a[1]), -t)))
        stack.append((int(left), _clip(corners, a, t)))
    return sorted(out)


def _polygon_regions(estimator, on_axis, limits) -> list[Region]:
    """The regions of a tree with oblique splits: a polygon per leaf that shows."""
    tree, out = estimator.tree_, []
    for leaf, corners in _leaf_polygons(tree, on_axis, limits):
        if len(corners) >= 3:
            xs, ys = zip(*corners, strict=True)
            label = estimator.classes_[tree.node_class[leaf]]
            out.append(Region(leaf, label, min(xs), max(xs), min(ys), max(ys), tuple(corners)))
    return out


def _clip(corners, a, t):
    """The convex polygon ``corners`` cut to the half-plane ``a . p <= t``
    (Sutherland-Hodgman, one edge)."""
    out = []
    for p, q in zip(corners, corners[1:] + corners[:1], strict=True):
        fp, fq = a[0] * p[0] + a[1] * p[1] - t, a[0] * q[0] + a[1] * q[1] - t
        if fp <= 0:
            out.append(p)
        if fp * fq < 0:  # the edge crosses the line
            share = fp / (fp - fq)
            out.append((p[0] + share * (q[0] - p[0]), p[1] + share * (q[1] - p[1])))
    return out


def _spans(part) -> list[tuple[float, float]]:
    """The intervals of one axis of a box: itself, or a cell run per neighbouring codes."""
    if not isinstance(part, frozenset):
        return [part] if part[1] > part[0] else []
    codes = sorted(part)
    runs, out = [], []
    for c in codes:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    for a, b in runs:
        out.append((a - 0.5, b + 0.5))
    return out


def _limits(values: np.ndarray) -> tuple[float, float]:
    known = values[np.isfinite(values)]
    if len(known) == 0:
        return -1.0, 1.0
    lo, hi = float(known.min()), float(known.max())
    pad = (hi - lo) * _MARGIN if hi > lo else 0.5
    return lo - pad, hi + pad


def decision_regions(
    estimator, X, y, features=None, *, ax=None, alpha: float = 0.35, jitter: bool = True
) -> DecisionRegions:
    """Draw the regions where a classification tree on two attributes predicts each class,
    with the training points.

    The rectangles are the tree's own: each leaf's region is bounded by the thresholds and
    category sets of the tests on its path (not a grid of predictions), so its edges are
    exactly the tree's decision boundaries. A tree with oblique splits has a convex polygon
    per leaf, cut by the half-planes of its tests.

    Parameters
    ----------
    estimator : fitted quercus tree classifier
        Fitted on exactly two attributes (numeric, nominal or ordinal).
    X : DataFrame or array of shape (n_samples, n_columns)
        The points to draw (usually the training data); a DataFrame may hold other
        columns too.
    y : array-like of shape (n_samples,)
        Their classes (colours of the points).
    features : pair of str or int, optional
        The columns on the x and y axes; default the tree's two features in its order.
    ax : matplotlib Axes, optional
        Where to draw; when None, a new figure (``figure_``) of its own.
    alpha : float, default 0.35
        Opacity of the regions.
    jitter : bool, default True
        Spread the points of a category across its cell (a fixed pseudo-random spread), so
        that equal points do not hide each other.

    Returns
    -------
    DecisionRegions
        The rectangles (or polygons) drawn (``regions``, with ``region_at(x, y)``), with
        ``ax_`` and ``figure_``.
    """
    fitted_estimator(estimator, "decision_regions", classifier=True)
    on_axis = _axes_of(estimator, X, features)
    schema, tree = estimator.schema_, estimator.tree_
    names = [schema.names[f] for f in on_axis]
    frame = X[list(schema.names)] if isinstance(X, pd.DataFrame) else X
    matrix = predict_matrix(estimator, frame)
    y = np.asarray(y)
    if len(y) != len(matrix):
        raise ValueError(f"X has {len(matrix)} samples but y has {len(y)}")
    coords = matrix[:, on_axis]
    categories, n_categories, limits = [], [], []
    for axis, f in enumerate(on_axis):
        feature = schema.features[f]
        if feature.kind == NUMERIC_KIND:
            categories.append(None)
            n_categories.append(None)
            limits.append(_limits(coords[:, axis]))
        else:
            categories.append(tuple(feature.categories))
            n_categories.append(feature.n_categories)
            limits.append((-0.5, feature.n_categories - 0.5))
    if tree.oblique is not None:  # both axes numeric: oblique splits test numbers only
        regions = _polygon_regions(estimator, on_axis, limits)
    else:
        regions = []
        for leaf, box in _leaf_boxes(tree, on_axis, limits, n_categories):
            label = estimator.classes_[tree.node_class[leaf]]
            for x0, x1 in _spans(box[0]):
                for y0, y1 in _spans(box[1]):
                    regions.append(Region(leaf, label, x0, x1, y0, y1))
    result = DecisionRegions(tuple(names), regions, tuple(categories))
    _draw_regions(result, estimator, coords, y, axes(ax), alpha, jitter, limits)
    return result


def _draw_regions(result, estimator, coords, y, ax, alpha, jitter, limits) -> None:
    from matplotlib.patches import Polygon, Rectangle

    colours = class_colours(len(estimator.classes_))
    index = {c: i for i, c in enumerate(estimator.classes_.tolist())}
    for region in result.regions:
        look = {
            "facecolor": colours[index[region.label]],
            "edgecolor": "0.4",
            "linewidth": 0.6,
            "alpha": alpha,
            "gid": f"leaf-{region.leaf}",
        }
        if region.vertices:
            ax.add_patch(Polygon(region.vertices, closed=True, **look))
        else:
            corner, width, height = (
                (region.x0, region.y0),
                region.x1 - region.x0,
                region.y1 - region.y0,
            )
            ax.add_patch(Rectangle(corner, width, height, **look))
    shown = np.isfinite(coords).all(axis=1)
    points = coords[shown].copy()
    rng = np.random.default_rng(0)
    for axis, cats in enumerate(result.categories):
        if cats is not None and jitter:
            points[:, axis] += rng.uniform(-_JITTER, _JITTER, len(points))
    labels = y[shown]
    for c, k in index.items():
        mine = np.array([v == c for v in labels.tolist()], dtype=bool)
        if mine.any():
            ax.scatter(
                points[mine, 0], points[mine, 1], color=colours[k], edgecolors="0.15",
                linewidths=0.6, s=28, label=str(c), zorder=3, gid=f"points-{k}",
            )  # fmt: skip
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    for axis, cats in enumerate(result.categories):
        if cats is not None:
            ticks = (ax.set_xticks, ax.set_yticks)[axis]
            ticks(range(len(cats)), [str(c) for c in cats])
    ax.set_xlabel(result.features[0])
    ax.set_ylabel(result.features[1])
    ax.set_title(f"{type(estimator).__name__}: decision regions")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", title="class")
    result.ax_, result.figure_ = ax, ax.figure
