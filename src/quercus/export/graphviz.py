"""The tree as Graphviz DOT text (no Python dependency), and SVG through Graphviz's ``dot``.

Inner nodes show the attribute they test and their training cases; each edge carries the
branch's condition (``= Sunny``, ``<= 75.5``, ``in {a, b}``); leaves show the prediction
and, as C4.5 prints it, ``(weight/errors)``.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from ._common import (
    children,
    conditions,
    distribution_text,
    fitted_tree,
    is_leaf,
    leaf_summary,
    printed_names,
)
from ._common import (
    tested as tested_name,
)

# Fill colours of the leaves by predicted class (cycled), when ``filled``.
_PALETTE = (
    "#a6cee3",
    "#b2df8a",
    "#fb9a99",
    "#fdbf6f",
    "#cab2d6",
    "#ffff99",
    "#1f78b4",
    "#33a02c",
    "#e31a1c",
    "#ff7f00",
)

INSTALL_HINT = (
    "Graphviz's 'dot' program was not found on PATH: install Graphviz (Debian/Ubuntu: "
    "apt-get install graphviz; macOS: brew install graphviz; conda: conda install graphviz), "
    "or use --format dot and render the file elsewhere"
)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def export_graphviz(
    estimator,
    *,
    feature_names: Sequence[str] | None = None,
    max_depth: int | None = None,
    decimals: int = 2,
    filled: bool = True,
) -> str:
    """DOT text of the fitted tree (``dot -Tsvg tree.dot > tree.svg`` draws it).

    ``max_depth`` limits the levels drawn (a deeper subtree is drawn as one box saying so);
    ``filled`` colours the leaves by their class.
    """
    tree = fitted_tree(estimator)
    names = printed_names(estimator, feature_names)
    lines = [
        "digraph tree {",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
        '  edge [fontname="Helvetica"];',
    ]

    def leaf_colour(node: int, parent: int) -> str:
        if not filled or tree.regression:
            return ""
        k = int(tree.node_class[node if tree.weighted_n_node_samples[node] > 0 else parent])
        return f", fillcolor={_quote(_PALETTE[k % len(_PALETTE)])}"

    stack = [(0, -1, 0)]
    while stack:
        node, parent, depth = stack.pop()
        if is_leaf(tree, node):
            label = leaf_summary(estimator, node, parent, decimals)
            lines.append(f"  n{node} [label={_quote(label)}{leaf_colour(node, parent)}];")
            continue
        stats = distribution_text(estimator, node, decimals)
        if max_depth is not None and depth >= max_depth:
            label = f"{leaf_summary(estimator, node, parent, decimals)}\n(subtree not shown)"
            lines.append(f"  n{node} [label={_quote(label)}, style=dashed];")
            continue
        tested = tested_name(tree, node, names)
        lines.append(f"  n{node} [label={_quote(tested + chr(10) + stats)}];")
        branches = list(zip(children(tree, node), conditions(estimator, node, names), strict=True))
        for kid, condition in branches:
            edge = f"{condition.op} {condition.text}" if condition.op != "=" else condition.text
            lines.append(f"  n{node} -> n{kid} [label={_quote(edge)}];")
        stack.extend((kid, node, depth + 1) for kid, _ in reversed(branches))
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
