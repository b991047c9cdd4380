"""A fitted tree drawn with matplotlib (the optional extra ``quercus[plot]``).

The drawing shows what the Graphviz export shows: inner nodes name the attribute they test
and their training cases (``Outlook`` / ``14 samples: No 5, Yes 9``), each edge carries the
branch's condition (``Sunny``, ``<= 75.5``, ``in {a, b}``), and leaves show the prediction
with ``(weight/errors)`` as C4.5 prints it, or the value and ``n=`` weight for regression.
In a classification tree, every box ends with a bar of the node's class distribution: one
segment per class, as wide as its share of the node's training weight, in the class's
colour (the colours of the leaves).

Layout: the leaves are spaced evenly from left to right in the order of the tree, each inner
node is centred above its first and last child, and each depth has its own row. Without
``ax``, the drawing is a figure of its own, sized to the tree: the text keeps its size (10
points, matplotlib's default) and the figure grows with the leaves and levels until no two
boxes of a row, and no two edge labels, overlap. On a given ``ax``, unless a ``fontsize`` is
given, the text is made as large as fits there instead (up to matplotlib's default size).

A big tree stays readable (:mod:`quercus.export.legend`, as in the Graphviz export): a set of
more than five categories is named by a key on its edge (``in set A (12 values)``) and
listed in a legend under the tree, and with more than six classes the inner nodes show their
class distribution as the bar alone, the legend naming each class's colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..export._common import (
    children,
    conditions,
    distribution_text,
    fitted_tree,
    is_leaf,
    leaf_class,
    leaf_summary,
    printed_names,
)
from ..export._common import (
    tested as tested_name,
)
from ..export.colours import class_colours, text_colour
from ..export.legend import Legend

__all__ = ["plot_tree"]

INSTALL_HINT = 'plot_tree needs matplotlib: pip install "quercus[plot]" (or pip install matplotlib)'
_PAD = 0.4  # padding of the boxes, in units of the font size
# The class bar, in units of the font size: its gap below the text, its height, and the room
# the box keeps below the text for both.
_BAR_GAP = 0.3
_BAR_HEIGHT = 0.7
_BAR_ROOM = _BAR_GAP + _BAR_HEIGHT + 0.1
_BAR_WIDTH = 0.85  # share of the text's width

# Room kept around the boxes when the font size is fitted: boxes side by side keep this
# share of their widths free between them, a row keeps this share of its height for edges.
_GAP = 1.15
_ROW = 1.3
_ROW_ARROW = 1.5  # below an edge label: room for the arrow's head
# Where an edge label may sit, as a share of the way from the parent to the child: the middle
# first, so that it wins ties.
_ALONG = tuple(sorted((0.3 + 0.025 * i for i in range(17)), key=lambda t: abs(t - 0.5)))
_SMALLEST = 0.5  # points: the fitted font size never goes below this

# A figure of its own (no ``ax``): the largest it grows to, in inches, before the text
# shrinks instead (16,000 pixels wide at 100 dots per inch, well inside the 2**16 pixels a
# side that Agg draws), and the smallest.
_MAX_INCHES = (160.0, 60.0)
_MIN_INCHES = (2.0, 1.0)
_ROOM = 1.03  # a figure sized to the tree keeps this share of room to spare
_LEGEND_GAP = 0.15  # inches between the tree and its legend
_LEGEND_COLUMNS = 4  # classes per row of the legend


@dataclass
class _Node:
    """One box of the drawing."""

    node: int
    parent: int
    depth: int
    label: str
    edge: str | None  # the condition of the branch from the parent (None at the root)
    colour: str
    dashed: bool  # a subtree below max_depth, drawn as one box
    ink: str = "black"  # the colour of the text: white on dark fills
    x: float = 0.0
    kids: tuple[int, ...] = ()  # positions in the node list of the boxes drawn below


def _check(max_depth, decimals, fontsize) -> None:
    if max_depth is not None and (
        isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0
    ):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
    if fontsize is not None and (
        isinstance(fontsize, bool) or not isinstance(fontsize, int | float) or fontsize <= 0
    ):
        raise ValueError(f"fontsize must be None or a number > 0, got {fontsize!r}")


def _boxes(estimator, names, max_depth, decimals, filled, legend: Legend) -> list[_Node]:
    """The boxes to draw in pre-order (so leaves come left to right), with their positions;
    the sets of categories their edges name by key go into ``legend``."""
    tree = estimator.tree_
    colours = class_colours(0 if tree.regression else len(estimator.classes_))
    boxes: list[_Node] = []
    stack: list[tuple[int, int, int, str | None, int]] = [(0, -1, 0, None, -1)]
    while stack:
        node, parent, depth, edge, up = stack.pop()
        here = len(boxes)
        if up >= 0:
            boxes[up].kids += (here,)
        summary = leaf_summary(estimator, node, parent, decimals)
        colour = "white"
        if is_leaf(tree, node):
            if filled and not tree.regression:
                colour = colours[leaf_class(tree, node, parent)]
            box = _Node(node, parent, depth, summary, edge, colour, False, text_colour(colour))
            boxes.append(box)
            continue
        if max_depth is not None and depth >= max_depth:
            label = f"{summary}\n(subtree not shown)"
            boxes.append(_Node(node, parent, depth, label, edge, colour, True))
            continue
        tested = tested_name(tree, node, names)
        stats = distribution_text(estimator, node, decimals, classes=legend.named_in_nodes)
        label = f"{tested}\n{stats}"
        boxes.append(_Node(node, parent, depth, label, edge, colour, False))
        branches = list(zip(children(tree, node), conditions(estimator, node, names), strict=True))
        texts = [legend.edge_text(condition) for _, condition in branches]  # keys in order
        for (kid, _), text in zip(reversed(branches), reversed(texts), strict=True):
            stack.append((kid, node, depth + 1, text, here))
    slot = 0
    for box in boxes:  # pre-order: the leaves in the order of the tree
        if not box.kids:
            box.x = float(slot)
            slot += 1
    for box in reversed(boxes):  # children before their parent
        if box.kids:
            box.x = (boxes[box.kids[0]].x + boxes[box.kids[-1]].x) / 2
    return boxes


def plot_tree(
    estimator,
    *,
    ax=None,
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    decimals: int = 2,
    fontsize: float | None = None,
    filled: bool = True,
    class_bars: bool = True,
    legend: bool = True,
) -> list:
    """Draw a fitted quercus tree with matplotlib.

    Parameters
    ----------
    estimator : fitted quercus tree
        Any of quercus's tree estimators, classification or regression (multiway nominal
        splits draw one edge per branch).
    ax : matplotlib Axes, optional
        Where to draw; its axis is turned off. When None, a new figure of its own, sized to
        the tree so that its text keeps ``fontsize`` (default ``rcParams["font.size"]``).
    max_depth : int, optional
        Levels of tests to draw; a deeper subtree is drawn as one dashed box with its root's
        prediction and "(subtree not shown)".
    feature_names : list of str, optional
        Names to print instead of the training column names (one per feature).
    decimals : int, default 2
        Decimals of weights and values.
    fontsize : float, optional
        Font size of all text. On a given ``ax``, when None, the largest size (up to
        ``rcParams["font.size"]``) at which the boxes fit: for a big tree, enlarge the
        figure, leave out ``ax`` or set ``max_depth``.
    filled : bool, default True
        Colour the leaves by their predicted class (classification only).
    class_bars : bool, default True
        Show each node's class distribution as a bar under its text (classification only):
        a segment per class of positive weight, as wide as its share, in the class's colour.
    legend : bool, default True
        Name long sets of categories by a key on their edges, and with more than six classes
        leave the class names out of the inner nodes, listing both in a legend under the
        tree (below the Axes: on a given ``ax``, leave room for it). Without it, every label
        is written out in full.

    Returns
    -------
    list of matplotlib artists
        The node boxes (``Annotation``) in pre-order (their ``gid`` is ``"node-<id>"``,
        ``<id>`` the node's index in ``tree_``), then the edge labels (``Text``, ``gid``
        ``"edge-<parent>-<child>"``), then the segments of the class bars (``Rectangle``,
        ``gid`` ``"bar-<id>-<class index>"``), then the legend if there is one (an
        ``AnchoredOffsetbox``, ``gid`` ``"legend"``).
    """
    fitted_tree(estimator)
    _check(max_depth, decimals, fontsize)
    names = printed_names(estimator, feature_names)
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error

    keys = Legend.of(estimator, legend)
    boxes = _boxes(estimator, names, max_depth, decimals, filled, keys)
    own_figure = ax is None
    if own_figure:
        import matplotlib.pyplot as plt

        ax = plt.figure().add_axes((0.0, 0.0, 1.0, 1.0))
    n_slots = sum(1 for box in boxes if not box.kids)
    n_rows = max(box.depth for box in boxes) + 1
    ax.set_xlim(-0.5, n_slots - 0.5)
    ax.set_ylim(-n_rows + 0.5, 0.5)
    ax.set_axis_off()

    size = float(fontsize) if fontsize is not None else float(matplotlib.rcParams["font.size"])
    bars = class_bars and not estimator.tree_.regression
    nodes, edges = _draw(ax, boxes, size, bars)
    key = _legend(ax, keys, size) if keys else None
    if own_figure:
        _size_figure(ax, boxes, nodes, edges, key)
    else:
        _arrange(ax, boxes, nodes, edges, fit=fontsize is None)
    segments = _class_bars(ax, boxes, nodes, estimator.tree_) if bars else []
    return nodes + edges + segments + ([key] if key is not None else [])


def _box_with_room_below(pad: float, room: float):
    """matplotlib's round box around the text, grown down by ``room`` font sizes."""
    from matplotlib.patches import BoxStyle

    round_box = BoxStyle.Round(pad=pad)

    def style(x0, y0, width, height, mutation_size):
        extra = room * mutation_size
        return round_box(x0, y0 - extra, width, height + extra, mutation_size)

    return style


def _draw(ax, boxes: list[_Node], size: float, bars: bool) -> tuple[list, list]:
    """The node boxes (each with the arrow from its parent) and the edge labels; with
    ``bars``, each box keeps room for a class bar under its text."""
    nodes, edges = [], []
    parent_of = {kid: i for i, box in enumerate(boxes) for kid in box.kids}
    shape = _box_with_room_below(_PAD, _BAR_ROOM) if bars else f"round,pad={_PAD}"
    for i, box in enumerate(boxes):
        style = dict(
            boxstyle=shape,
            facecolor=box.colour,
            edgecolor="0.25",
            linewidth=1.0,
            linestyle="--" if box.dashed else "-",
        )
        xy = (box.x, -box.depth)
        up = parent_of.get(i)
        start, arrow = xy, None
        if up is not None:
            start = (boxes[up].x, -boxes[up].depth)
            arrow = dict(arrowstyle="<-", color="0.35", linewidth=1.0, shrinkA=0, shrinkB=0)
        # The arrow starts at the parent's centre: a parent lies above its children (higher
        # zorder), so its box hides that end.
        nodes.append(
            ax.annotate(
                box.label,
                xy=start,
                xytext=xy,
                xycoords="data",
                textcoords="data",
                ha="center",
                va="center",
                fontsize=size,
                color=box.ink,
                bbox=style,
                arrowprops=arrow,
                zorder=100 - 2 * box.depth,
                gid=f"node-{box.node}",
            )
        )
        if up is not None:
            edges.append(
                ax.text(
                    *_along(start, xy, 0.5),
                    box.edge,
                    ha="center",
                    va="center",
                    fontsize=size,
                    fontstyle="italic",
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"),
                    zorder=101 - 2 * box.depth,
                    gid=f"edge-{boxes[up].node}-{box.node}",
                )
            )
    return nodes, edges


def _class_bars(ax, boxes: list[_Node], nodes, tree) -> list:
    """A bar under each box's text: one rectangle per class of positive weight at the node,
    as wide as its share, placed in points from the node's position (so that it stays
    under its text when the figure is resized or saved at another resolution)."""
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text
    from matplotlib.transforms import Affine2D, ScaledTranslation

    figure = ax.figure
    renderer = _renderer(figure)
    to_points = 72.0 / figure.dpi
    colours = class_colours(tree.value.shape[1])
    segments = []
    for box, artist in zip(boxes, nodes, strict=True):
        text = Text.get_window_extent(artist, renderer)  # the text alone, not the arrow
        cx, cy = ax.transData.transform((box.x, -box.depth))
        size = artist.get_fontsize()
        # Narrower than the text: at another resolution, hinting changes the text's width.
        width = text.width * to_points * _BAR_WIDTH
        left = ((text.x0 + text.x1) / 2 - cx) * to_points - width / 2
        top = (text.y0 - cy) * to_points - _BAR_GAP * size
        height = _BAR_HEIGHT * size
        place = (
            Affine2D().scale(1.0 / 72.0)
            + figure.dpi_scale_trans
            + ScaledTranslation(box.x, -box.depth, ax.transData)
        )
        counts = tree.value[box.node]
        total = counts.sum() if tree.weighted_n_node_samples[box.node] > 0 else 0.0
        x = left
        for k, count in enumerate(counts):
            if total <= 0 or count <= 0:
                continue
            share = width * count / total
            segments.append(
                ax.add_patch(
                    Rectangle(
                        (x, top - height),
                        share,
                        height,
                        transform=place,
                        facecolor=colours[k],
                        edgecolor="0.25",
                        linewidth=0.5,
                        zorder=artist.get_zorder() + 0.5,
                        gid=f"bar-{box.node}-{k}",
                    )
                )
            )
            x += share
    return segments


def _along(start, end, t: float) -> tuple[float, float]:
    """The point ``t`` of the way from ``start`` to ``end``."""
    return start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1])


def _renderer(figure):
    canvas = figure.canvas
    if hasattr(canvas, "get_renderer"):
        return canvas.get_renderer()
    return figure._get_renderer()  # backends without get_renderer (matplotlib >= 3.6)


def _arrange(ax, boxes: list[_Node], nodes, edges, fit: bool) -> None:
    """Place the edge labels of each row of edges where they have the most room, and when
    ``fit``, shrink the text until nothing overlaps (sizes scale near-linearly: few passes)."""
    for attempt in range(5):
        scale = min(_placed(ax, boxes, nodes, edges))
        if not fit or scale >= 1.0 or attempt == 4:
            break
        size = max(nodes[0].get_fontsize() * scale * 0.98, _SMALLEST)
        for artist in nodes + edges:
            artist.set_fontsize(size)
        if size <= _SMALLEST:
            break


def _placed(ax, boxes: list[_Node], nodes, edges) -> tuple[float, float]:
    """Place the edge labels of each row of edges where they have the most room; the
    factors of :func:`_room`."""
    parent_of = {kid: i for i, box in enumerate(boxes) for kid in box.kids}
    below = [i for i, box in enumerate(boxes) if box.edge is not None]
    across, down, where = _room(ax, boxes, nodes, edges)
    for i, label in zip(below, edges, strict=True):
        up = boxes[parent_of[i]]
        start, end = (up.x, -up.depth), (boxes[i].x, -boxes[i].depth)
        label.set_position(_along(start, end, where[up.depth]))
    return across, down


def _size_figure(ax, boxes: list[_Node], nodes, edges, key) -> None:
    """Size the figure of ``ax`` (the drawing's own, ``ax`` filling it) to the tree at its
    font size: grown or shrunk until the boxes and edge labels just fit, with the legend
    ``key`` (or None) under them. A tree too big for :data:`_MAX_INCHES` gets smaller text."""
    figure = ax.figure
    renderer = _renderer(figure)
    width, height = figure.get_size_inches()
    legend_width = legend_height = 0.0
    if key is not None:
        extent = key.get_window_extent(renderer)
        legend_width, legend_height = extent.width / figure.dpi, extent.height / figure.dpi
        legend_height += _LEGEND_GAP
    across = down = 0.0
    for _ in range(8):
        total = max(width, legend_width), height + legend_height
        figure.set_size_inches(*total)
        ax.set_position((0.0, legend_height / total[1], 1.0, height / total[1]))
        across, down = _placed(ax, boxes, nodes, edges)
        # Text keeps its size in points: the room it has grows in step with the figure.
        wanted = (
            min(max(total[0] / across * _ROOM, _MIN_INCHES[0]), _MAX_INCHES[0]),
            min(max(height / down * _ROOM, _MIN_INCHES[1]), _MAX_INCHES[1]),
        )
        settled = all(abs(a - b) <= 0.02 * b for a, b in zip(wanted, (width, height), strict=True))
        if across >= 1.0 and down >= 1.0 and settled:
            break
        width, height = wanted
    if across < 1.0 or down < 1.0:  # at the largest size: the text shrinks to fit
        _arrange(ax, boxes, nodes, edges, fit=True)


def _legend(ax, legend: Legend, size: float):
    """The legend under ``ax``: each class's colour and name (in rows of
    :data:`_LEGEND_COLUMNS`), then the sets of categories that edges name by key."""
    from matplotlib.offsetbox import AnchoredOffsetbox, DrawingArea, HPacker, TextArea, VPacker
    from matplotlib.patches import Rectangle

    plain = dict(fontsize=size)
    bold = dict(fontsize=size, fontweight="bold")
    parts = []
    if legend.class_names:
        entries = []
        for colour, name in zip(legend.colours, legend.class_names, strict=True):
            swatch = DrawingArea(size, size * 0.8)
            swatch.add_artist(
                Rectangle((0, 0), size, size * 0.8, facecolor=colour, edgecolor="0.25", lw=0.5)
            )
            entries.append(
                HPacker(children=[swatch, TextArea(name, textprops=plain)], sep=size * 0.4)
            )
        columns = min(_LEGEND_COLUMNS, len(entries))
        grid = HPacker(
            children=[
                VPacker(children=entries[c::columns], sep=size * 0.3, align="left")
                for c in range(columns)
            ],
            sep=size * 1.5,
            align="top",
        )
        parts += [TextArea("classes", textprops=bold), grid]
    if legend.sets:
        parts += [
            TextArea("sets", textprops=bold),
            TextArea("\n".join(legend.set_lines()), textprops=plain),
        ]
    box = AnchoredOffsetbox(
        loc="upper left",
        child=VPacker(children=parts, sep=size * 0.4, align="left"),
        pad=0.0,
        borderpad=0.0,
        frameon=False,
        bbox_to_anchor=(0.0, 0.0),
        bbox_transform=ax.transAxes,
    )
    box.set_gid("legend")
    ax.add_artist(box)
    return box


def _room(ax, boxes: list[_Node], nodes, edges) -> tuple[float, float, dict[int, float]]:
    """The factors by which the room across and the room down may shrink (or, below 1, must
    grow) before boxes overlap or leave the axes, which are also the factors by which the
    text may grow (or must shrink); and for each row of edges (by the parents' depth) how
    far down the edges their labels go."""
    renderer = _renderer(ax.figure)

    def extent(artist):
        if hasattr(artist, "update_positions"):  # an Annotation places its text when drawn
            artist.update_positions(renderer)
        artist.update_bbox_position_size(renderer)
        return artist.get_bbox_patch().get_window_extent(renderer)

    frame = ax.get_window_extent(renderer)
    to_pixels = ax.transData.transform
    pitch = abs(to_pixels((0, 0))[1] - to_pixels((0, -1))[1])  # height of a row
    across = down = float("inf")
    rows: dict[int, list] = {}
    heights: dict[int, float] = {}
    for box, artist in zip(boxes, nodes, strict=True):
        e = extent(artist)
        cx, cy = to_pixels((box.x, -box.depth))
        rows.setdefault(box.depth, []).append((cx, e.width))
        heights[box.depth] = max(heights.get(box.depth, 0.0), e.height)
        if e.width > 0:  # inside the axes
            across = min(across, (cx - frame.x0) / (e.width / 2), (frame.x1 - cx) / (e.width / 2))
        if e.height > 0:
            down = min(down, (cy - frame.y0) / (e.height / 2), (frame.y1 - cy) / (e.height / 2))
    for items in rows.values():
        across = min(across, _side_by_side(items))
    if len(rows) == 1:  # a single box: leave it room in its row
        down = min(down, pitch / (heights[0] * _ROW))

    parent_of = {kid: i for i, box in enumerate(boxes) for kid in box.kids}
    bands: dict[int, list] = {}
    labels: dict[int, float] = {}
    below = [i for i, box in enumerate(boxes) if box.edge is not None]
    for i, artist in zip(below, edges, strict=True):
        e = extent(artist)
        up = boxes[parent_of[i]]
        x0 = to_pixels((up.x, -up.depth))[0]
        x1 = to_pixels((boxes[i].x, -boxes[i].depth))[0]
        bands.setdefault(up.depth, []).append((x0, x1, e.width))
        labels[up.depth] = max(labels.get(up.depth, 0.0), e.height)
    where: dict[int, float] = {}
    for depth, members in bands.items():
        # room above the label: half the parents' row; below it: half the children's
        above = (heights[depth] + labels[depth]) / 2 * _ROW
        under = (heights[depth + 1] + labels[depth]) / 2 * _ROW_ARROW
        best, where[depth] = -1.0, 0.5
        for t in _ALONG:
            vertical = min(t * pitch / above, (1 - t) * pitch / under)
            side = _side_by_side([(x0 + t * (x1 - x0), w) for x0, x1, w in members])
            fits = min(vertical, side, 1.0)  # beyond what the text needs, the middle is best
            if fits > best * (1 + 1e-9):
                best, where[depth], room = fits, t, (side, vertical)
        across, down = min(across, room[0]), min(down, room[1])
    return across, down, where


def _side_by_side(items) -> float:
    """How much boxes in a row may grow (``items``: their centres x and widths)."""
    scale = float("inf")
    items = sorted(items)
    for (x0, w0), (x1, w1) in zip(items, items[1:], strict=False):
        if w0 + w1 > 0:
            scale = min(scale, (x1 - x0) / ((w0 + w1) / 2 * _GAP))
    return scale
