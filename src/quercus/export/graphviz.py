"""The tree as Graphviz DOT text (no Python dependency), and SVG through Graphviz's ``dot``.

Inner nodes show the attribute they test and their training cases; each edge carries the
branch's condition (``= Sunny``, ``<= 75.5``, ``in {a, b}``); leaves show the prediction
and, as C4.5 prints it, ``(weight/errors)``. A big tree stays readable: a set of more than
:data:`~quercus.export.legend.MAX_LISTED` categories is named by a key on its edge and
listed in a legend under the tree, and with more than
:data:`~quercus.export.legend.MAX_NAMED_CLASSES` classes the inner nodes show their class
distribution as a bar of the classes' colours, which the legend names.
"""

from __future__ import annotations

import html
import shutil
import subprocess
from collections.abc import Sequence

from ._common import (
    children,
    conditions,
    distribution_text,
    fitted_tree,
    is_leaf,
    leaf_class,
    leaf_summary,
    printed_names,
)
from ._common import (
    tested as tested_name,
)
from .colours import class_colours, text_colour
from .legend import Legend

INSTALL_HINT = (
    "Graphviz's 'dot' program was not found on PATH: install Graphviz (Debian/Ubuntu: "
    "apt-get install graphviz; macOS: brew install graphviz; conda: conda install graphviz), "
    "or use --format dot and render the file elsewhere"
)

_BAR_POINTS = 96  # width of a node's class bar
_LEGEND_COLUMNS = 4  # classes per row of the legend


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _bar_label(text: str, counts, colours: list[str]) -> str:
    """An HTML-like label: ``text`` over a bar of the class distribution ``counts``, one
    segment per class of positive weight, as wide as its share, in the class's colour."""
    total = float(sum(counts))
    shares = [(k, c / total) for k, c in enumerate(counts) if c > 0] if total > 0 else []
    cells = "".join(
        f'<TD BGCOLOR="{colours[k]}" WIDTH="{max(1, round(_BAR_POINTS * share))}" HEIGHT="7" '
        'CELLPADDING="0" FIXEDSIZE="TRUE"></TD>'
        for k, share in shares
    )
    span = max(len(shares), 1)
    lines = "<BR/>".join(html.escape(line) for line in text.split("\n"))
    bar = f"<TR>{cells}</TR>" if cells else ""
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
        f'<TR><TD COLSPAN="{span}">{lines}</TD></TR>{bar}</TABLE>>'
    )


def _legend_label(legend: Legend) -> str:
    """The legend under the tree, as an HTML-like graph label: each class's colour, then
    the sets of categories named by key."""
    columns = min(_LEGEND_COLUMNS, max(len(legend.class_names), 1))
    rows = []
    if legend.class_names:
        rows.append(f'<TR><TD COLSPAN="{2 * columns}" ALIGN="LEFT"><B>classes</B></TD></TR>')
        pairs = list(zip(legend.colours, legend.class_names, strict=True))
        for first in range(0, len(pairs), columns):
            cells = "".join(
                f'<TD BGCOLOR="{colour}" WIDTH="12" HEIGHT="12" FIXEDSIZE="TRUE"></TD>'
                f'<TD ALIGN="LEFT">{html.escape(name)}</TD>'
                for colour, name in pairs[first : first + columns]
            )
            rows.append(f"<TR>{cells}</TR>")
    if legend.sets:
        rows.append(f'<TR><TD COLSPAN="{2 * columns}" ALIGN="LEFT"><B>sets</B></TD></TR>')
        for line in legend.set_lines():
            rows.append(
                f'<TR><TD COLSPAN="{2 * columns}" ALIGN="LEFT">{html.escape(line)}</TD></TR>'
            )
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="1">'
        + "".join(rows)
        + "</TABLE>>"
    )


def export_graphviz(
    estimator,
    *,
    feature_names: Sequence[str] | None = None,
    max_depth: int | None = None,
    decimals: int = 2,
    filled: bool = True,
    legend: bool = True,
) -> str:
    """DOT text of the fitted tree (``dot -Tsvg tree.dot > tree.svg`` draws it).

    ``max_depth`` limits the levels drawn (a deeper subtree is drawn as one box saying so);
    ``filled`` colours the leaves by their class. With ``legend`` (the default), a set of
    more than five categories is named by a key on its edge (``in set A (12 values)``) and
    listed under the tree, and a tree of more than six classes shows the class distribution
    of its inner nodes as a bar of the classes' colours, named in the legend; without it,
    every label is written out in full.
    """
    tree = fitted_tree(estimator)
    names = printed_names(estimator, feature_names)
    keys = Legend.of(estimator, legend)
    colours = class_colours(0 if tree.regression else len(estimator.classes_))
    lines = [
        "digraph tree {",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
    ]

    def leaf_colour(node: int, parent: int) -> str:
        if not filled or tree.regression:
            return ""
        colour = colours[leaf_class(tree, node, parent)]
        ink = text_colour(colour)
        return f", fillcolor={_quote(colour)}" + (f", fontcolor={ink}" if ink != "black" else "")

    def node_label(text: str, node: int) -> str:
        if keys.named_in_nodes:
            return _quote(text)
        return _bar_label(text, tree.value[node], colours)

    stack = [(0, -1, 0)]
    while stack:
        node, parent, depth = stack.pop()
        if is_leaf(tree, node):
            label = leaf_summary(estimator, node, parent, decimals)
            lines.append(f"  n{node} [label={_quote(label)}{leaf_colour(node, parent)}];")
            continue
        stats = distribution_text(estimator, node, decimals, classes=keys.named_in_nodes)
        if max_depth is not None and depth >= max_depth:
            label = f"{leaf_summary(estimator, node, parent, decimals)}\n(subtree not shown)"
            lines.append(f"  n{node} [label={_quote(label)}, style=dashed];")
            continue
        tested = tested_name(tree, node, names)
        lines.append(f"  n{node} [label={node_label(tested + chr(10) + stats, node)}];")
        branches = list(zip(children(tree, node), conditions(estimator, node, names), strict=True))
        for kid, condition in branches:
            lines.append(f"  n{node} -> n{kid} [label={_quote(keys.edge_text(condition))}];")
        stack.extend((kid, node, depth + 1) for kid, _ in reversed(branches))
    if keys:
        legend_label = _legend_label(keys)
        lines.append(f'  label={legend_label}; labelloc=b; labeljust=l; fontname="Helvetica";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_svg(dot_text: str) -> str:
    """SVG drawn by Graphviz's ``dot``; ``RuntimeError`` with install advice when missing."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(INSTALL_HINT)
    done = subprocess.run(
        [dot, "-Tsvg"], input=dot_text, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.strip()}")
    return done.stdout
