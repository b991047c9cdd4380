"""The report as one HTML page: the template, its style and script (package data) inlined,
the sections written here with every user text escaped, and the data of the tree as JSON
that cannot close its script element."""

from __future__ import annotations

import html
import json
from importlib import resources

import numpy as np

from .._version import __version__
from .evaluation import ClassScores, Evaluation, Importances

_STATIC = resources.files(__package__) / "static"


def static(name: str) -> str:
    return (_STATIC / name).read_text(encoding="utf-8")


def escape(text) -> str:
    """``text`` safe in an HTML element or a quoted attribute."""
    return html.escape(str(text), quote=True)


def script_json(data) -> str:
    """``data`` as JSON inside a script element. Only ``</`` (which could end the element)
    and ``<!`` (which could open a comment) mean anything to an HTML parser there: their
    ``<`` is written as an escape, which JSON reads back as ``<``. The many ``<=`` of the
    thresholds stay as they are."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "\\u003c/").replace("<!", "\\u003c!")


def number(x: float, decimals: int = 3) -> str:
    return "\u2013" if x is None or np.isnan(x) else f"{x:.{decimals}f}"


def significant(x: float, digits: int = 4) -> str:
    """A quantity in the target's units (an error of a regression tree) for people:
    ``digits`` significant digits, a whole number from ``10 ** (digits - 1)`` up to a
    million in full (``34,901``), powers of ten beyond it and below 0.001 (``2.225e+09``)."""
    if x is None or np.isnan(x):
        return "\u2013"
    size = abs(x)
    if size >= 1e6 or 0 < size < 1e-3:
        return f"{x:.{digits - 1}e}"
    if size >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def page(title: str, body: str, data: dict) -> str:
    """The whole page."""
    parts = {
        "@VERSION@": escape(__version__),
        "@TITLE@": escape(title),
        "@CSS@": static("report.css"),
        "@SCRIPT@": static("report.js"),
    }
    text = static("page.html")
    for marker, value in parts.items():
        text = text.replace(marker, value)
    # Body and data last: user text never passes through the marker replacement.
    head, rest = text.split("@BODY@")
    middle, tail = rest.split("@DATA@")
    return head + body + middle + script_json(data) + tail


# -- sections -----------------------------------------------------------------------------------


def section(anchor: str, heading: str, *content: str) -> str:
    return (
        f'<section id="{anchor}">\n<h2>{escape(heading)}</h2>\n'
        + "\n".join(content)
        + "\n</section>"
    )


def paragraph(text: str, cls: str = "") -> str:
    attribute = f' class="{cls}"' if cls else ""
    return f"<p{attribute}>{escape(text)}</p>"


def table(heads: list[str], rows: list[list[str]], cls: str = "", numeric=()) -> str:
    """A table of text cells (escaped here); columns in ``numeric`` right-aligned."""

    def cell(tag, i, text, extra=""):
        classes = " ".join(c for c in ("num" if i in numeric else "", extra) if c)
        attribute = f' class="{classes}"' if classes else ""
        return f"<{tag}{attribute}>{escape(text)}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(heads))
    body = "".join(
        "<tr>" + "".join(cell("td", i, text) for i, text in enumerate(row)) + "</tr>"
        for row in rows
    )
    attribute = f' class="{cls}"' if cls else ""
    return f"<table{attribute}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def cards(facts: list[tuple[str, str]]) -> str:
    """A row of cards, each a big value over its name (both escaped here)."""
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><div class="big">{escape(value)}</div>{escape(name)}</div>'
            for name, value in facts
        )
        + "</div>"
    )


def evaluation_section(evaluation: Evaluation) -> str:
    """The confusion matrix and per-class scores, or R^2, RMSE and MAE."""
    rows = f"{evaluation.n:,} rows"
    if evaluation.source == "training":
        where = paragraph(
            f"On the training data ({rows}): these are training-set figures, the data the "
            "model learned from, and flatter it. Pass a test set (X_test, y_test, or --test "
            "FILE) for figures on data it has not seen.",
            "warning",
        )
    else:
        where = paragraph(f"On the test data ({rows}), which the model did not learn from.")
    scores = evaluation.scores
    if not isinstance(scores, ClassScores):
        facts = [
            ("R\u00b2", number(scores.r2)),
            ("root mean squared error", significant(scores.rmse)),
            ("mean absolute error", significant(scores.mae)),
        ]
        return section("evaluation", "Evaluation", where, cards(facts))
    labels = [str(c) for c in scores.labels]
    matrix = ['<table class="confusion"><thead><tr><th>true \\ predicted</th>']
    matrix += [f'<th class="num">{escape(c)}</th>' for c in labels]
    matrix.append("</tr></thead><tbody>")
    for i, label in enumerate(labels):
        matrix.append(f"<tr><th>{escape(label)}</th>")
        for j in range(len(labels)):
            cls = "num diagonal" if i == j else "num"
            matrix.append(f'<td class="{cls}">{scores.confusion[i, j]:,}</td>')
        matrix.append("</tr>")
    matrix.append("</tbody></table>")
    per_class = table(
        ["class", "precision", "recall", "F1", "support"],
        [
            [label, number(p), number(r), number(f), f"{s:,}"]
            for label, p, r, f, s in zip(
                labels, scores.precision, scores.recall, scores.f1, scores.support, strict=True
            )
        ],
        numeric=(1, 2, 3, 4),
    )
    accuracy = (
        f'<div class="card"><div class="big">{number(scores.accuracy)}</div>accuracy '
        f"({int(np.trace(scores.confusion)):,} of {int(scores.confusion.sum()):,} rows)</div>"
    )
    grid = (
        '<div class="cards">'
        + accuracy
        + f'<div class="card"><h4>Confusion matrix</h4>{"".join(matrix)}</div>'
        + f'<div class="card"><h4>Per class</h4>{per_class}</div></div>'
    )
    return section("evaluation", "Evaluation", where, grid)


def _bar(value: float, largest: float, cls: str = "hbar") -> str:
    width = 0.0 if largest <= 0 or np.isnan(value) else max(value, 0.0) / largest * 200
    return f'<span class="{cls}" style="width:{width:.1f}px"></span>'


def importance_section(imp: Importances) -> str:
    """The attributes' importances as bars, largest first (by impurity decrease, or by
    permutation where the impurity decrease is not shown), and a booster's split counts."""
    first = imp.impurity if imp.impurity is not None else imp.permutation
    order = np.argsort(-first, kind="stable")
    heads = ["attribute"]
    if imp.impurity is not None:
        heads += [imp.impurity_name, ""]
    if imp.splits is not None:
        heads.append("splits")
    if imp.permutation is not None:
        heads += ["permutation", ""]
    rows = []
    for j in order:
        cells = [f"<td>{escape(imp.names[j])}</td>"]
        if imp.impurity is not None:
            cells += [
                f'<td class="num">{imp.impurity[j]:.3f}</td>',
                f'<td class="barcell">{_bar(imp.impurity[j], imp.impurity.max())}</td>',
            ]
        if imp.splits is not None:
            cells.append(f'<td class="num">{int(imp.splits[j]):,}</td>')
        if imp.permutation is not None:
            spread = f"{imp.permutation[j]:.3f} \u00b1 {imp.permutation_std[j]:.3f}"
            bar = _bar(imp.permutation[j], imp.permutation.max(), "hbar second")
            cells += [f'<td class="num">{spread}</td>', f'<td class="barcell">{bar}</td>']
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{escape(h)}</th>" for h in heads)
    notes = [paragraph(imp.note, "hint")] if imp.note else []
    if imp.impurity is not None:
        notes.append(paragraph(imp.impurity_note, "hint"))
    if imp.permutation is not None:
        notes.append(
            paragraph(
                "Permutation: how much the score (accuracy, or R\u00b2 for a regression) "
                "drops when the attribute's values are shuffled, on the "
                f"{imp.permutation_source} data (mean \u00b1 standard "
                "deviation over 5 shuffles; scikit-learn's permutation_importance).",
                "hint",
            )
        )
    body = (
        f'<table class="importance"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    return section("importances", "Feature importances", body, *notes)


def rules_section(rules: list[str], total: int, note: str) -> str:
    items = "".join(f"<li>{escape(rule)}</li>" for rule in rules)
    parts = [paragraph(note, "hint"), f'<ol class="rules">{items}</ol>']
    if total > len(rules):
        parts.append(
            paragraph(
                f"The first {len(rules):,} of {total:,} rules; export_rules() gives them all.",
                "note",
            )
        )
    return section("rules", "Rules", *parts)


def figure(svg: str | None, caption: str, missing: str) -> str:
    """An inline SVG figure, or the reason there is none."""
    if svg is None:
        return paragraph(missing, "warning")
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
