"""A fitted tree or forest as a notebook shows it: the report's tree view, small and
self-contained.

The view is the report's own: its script (``static/report.js``) and style, run unchanged in
a shadow root of the output's element, where neither the notebook's style nor another
output (whose elements have the same ids) can reach it. Clicking a node shows its rows, its
class distribution or value and its path; ▸ and ▾ open and close branches. The gain tables
need the training data, which a notebook's display does not have: ``report(X, y, path)``
shows them.

Everything is in the output: the style, the script and the data, no request of any kind. A
tree is cut breadth first at :data:`MAX_NODES` nodes, as the report cuts at its larger
budget (a node whose children are cut says how many nodes are not shown). A forest shows
its parameters, its size and out-of-bag score, and its first tree: the other trees are alike
in kind, one is enough to see what they test, and the output stays as small as a tree's.
Where a notebook runs no script (one that is not trusted, a page that strips scripts), the
output shows the tree as text (:func:`quercus.export.export_text`, to the depth that fits in
:data:`TEXT_LINES` lines) instead.

An unfitted estimator shows scikit-learn's box of its parameters.
"""

from __future__ import annotations

import re
import uuid

from sklearn.base import is_regressor

from . import build, page
from .trees import tree_record

#: Nodes of a tree in a notebook's output (breadth first; deeper nodes are counted).
MAX_NODES = 250
#: Lines of the tree as text shown where the notebook runs no script.
TEXT_LINES = 40
#: What report.js may ask of ``document``: in the notebook, the shadow root answers.
DOCUMENT_METHODS = (
    "getElementById",
    "querySelector",
    "querySelectorAll",
    "createElement",
    "createTextNode",
)


def _fitted(estimator) -> bool:
    return hasattr(estimator, "estimators_" if build.is_forest(estimator) else "tree_")


def notebook_html(estimator) -> str:
    """The HTML of ``estimator`` in a notebook: its tree when fitted, else scikit-learn's
    box of parameters."""
    if not _fitted(estimator):
        from sklearn.utils import estimator_html_repr

        return estimator_html_repr(estimator)
    forest = build.is_forest(estimator)
    regression = is_regressor(estimator)
    shown = estimator.estimators_[0] if forest else estimator
    summary = _summary(estimator, forest, regression)
    data = build.common_data(estimator, regression)
    data["node_budget"] = (
        f"a notebook shows at most {MAX_NODES:,} nodes of a tree; report(X, y, path) "
        f"shows up to {build.MAX_NODES:,}"
    )
    data["tree"] = tree_record(shown, MAX_NODES)
    if regression:
        data["value_range"] = build.value_range([shown.tree_])
    if forest:
        data["tree_note"] = (
            f"Tree 0 of the forest's {len(estimator.estimators_)}: forest.estimators_[k] "
            "shows tree k, and forest.report(X, y, path) pages through them all."
        )
    else:
        data["tree_note"] = (
            "The gain of every candidate split needs the data: tree.report(X, y, path) "
            "shows it for every node, tree.gain_table(X, y, node=k) for one."
        )
    hint = "Click a node to see its rows; \u25b8 opens a branch, \u25be closes it." + (
        " The forest's first tree:" if forest else ""
    )
    content = (
        f"<style>{_style()}</style>"
        + "".join(f'<p class="summary">{page.escape(line)}</p>' for line in summary)
        + '<div class="toolbar"><button type="button" id="expand-all">Open all</button>'
        '<button type="button" id="collapse-all">Close all</button>'
        f'<span class="hint">{page.escape(hint)}</span></div>'
        '<div class="tree-layout"><div id="tree-view" class="tree-view" role="tree"></div>'
        '<aside id="details" class="details" aria-live="polite"></aside></div>'
        f'<script type="application/json" id="report-data">{page.script_json(data)}</script>'
    )
    element = f"quercus-{uuid.uuid4().hex}"
    script = page.static("notebook.js").replace("@ID@", element)
    script = script.replace("@SCRIPT@", page.static("report.js"))
    # The content last: no text of the data passes through the markers' replacement.
    before, after = script.split("@CONTENT@")
    script = before + page.script_json(content) + after
    text = "\n".join([*summary, "", _text(shown).rstrip("\n")])
    return (
        f'<div id="{element}" class="quercus-tree">'
        f'<pre class="quercus-text">{page.escape(text)}</pre></div>\n'
        f"<script>\n{script}</script>"
    )


def _style() -> str:
    """The report's style, its page-wide rules made the shadow root's (``:root`` is its
    host there), and the notebook's sizes."""
    css = re.sub(r"^:root\b", ":host", page.static("report.css"), flags=re.M)
    return css + page.static("notebook.css")


def _summary(estimator, forest: bool, regression: bool) -> list[str]:
    """The estimator's parameters, then what it is: its size, its classes."""
    first = build.parameters(estimator)
    if forest:
        leaves, depths = estimator.trees_.n_leaves(), estimator.trees_.depths()
        size = (
            f"{len(estimator.trees_):,} trees, {leaves.mean():,.1f} leaves per tree on "
            f"average, depth up to {depths.max()}"
        )
        if hasattr(estimator, "oob_score_"):
            what = "R\u00b2" if regression else "accuracy"
            size += f", out-of-bag {what} {estimator.oob_score_:.4f}"
    else:
        size = (
            f"{estimator.get_n_leaves():,} leaves, depth {estimator.get_depth()}, "
            f"{estimator.tree_.node_count:,} nodes"
        )
    target = build.target_name(estimator, None)
    if regression:
        size += f"; predicts {target}" if target != "the target" else ""
    else:
        classes = [str(c) for c in estimator.classes_.tolist()]
        listed = ", ".join(classes[:10]) + (", ..." if len(classes) > 10 else "")
        of = f" of {target}" if target != "the target" else ""
        size += f"; {len(classes)} classes{of}: {listed}"
    return [first, size + "."]


def _text(estimator) -> str:
    """The tree as text to the deepest level that fits in :data:`TEXT_LINES` lines (cut
    there if even its first level does not fit)."""
    from ..export import export_text

    deepest = int(estimator.tree_.max_depth)
    text = export_text(estimator, max_depth=min(1, deepest))
    for depth in range(2, deepest + 1):
        deeper = export_text(estimator, max_depth=depth)
        if deeper.count("\n") > TEXT_LINES:
            break
        text = deeper
    lines = text.splitlines()
    if len(lines) > TEXT_LINES:
        lines = [*lines[:TEXT_LINES], f"... {len(lines) - TEXT_LINES} more lines"]
    return "\n".join(lines) + "\n"
