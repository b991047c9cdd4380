"""The report's curves as inline SVG: the overfitting curve along the tree's own pruning (or
growth) sequence and the learning curve, drawn by :mod:`quercus.plot` with matplotlib's SVG
backend. Without matplotlib the page says so instead."""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass

from . import page

MISSING_MATPLOTLIB = (
    'The curves need matplotlib, which is not installed: pip install "quercus[plot]" (or '
    "pip install matplotlib) and write the report again."
)
#: Folds of the cross-validation behind both curves when no test set is given.
FOLDS = 5
#: Shares of the training part of each fold that the learning curve fits on.
TRAIN_SIZES = (0.25, 0.5, 0.75, 1.0)

# What matplotlib's SVG carries that a page inside HTML does not need: the XML prologue,
# the metadata (with its namespace addresses) and the namespace declarations (HTML gives
# an inline svg element its namespace).
_PROLOGUE = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_NAMESPACES = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')


@dataclass
class Figure:
    """One figure of the page: its SVG (None when it could not be drawn), its caption, and
    the reason it is missing or the warnings its drawing gave."""

    title: str
    svg: str | None
    caption: str
    notes: list[str]


def _inline(svg: str) -> str:
    svg = _PROLOGUE.sub("", svg)
    svg = _METADATA.sub("", svg)
    return _NAMESPACES.sub("", svg).strip()


def _draw(title: str, caption: str, draw) -> Figure:
    """``draw(ax)`` on a new matplotlib figure, saved as SVG text (its words as text, not
    outlines, which keeps it small)."""
    try:
        import matplotlib
        from matplotlib.figure import Figure as MatplotlibFigure
    except ImportError:
        return Figure(title, None, caption, [MISSING_MATPLOTLIB])
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = MatplotlibFigure(figsize=(6.2, 3.9), layout="constrained")
        try:
            draw(figure.add_subplot())
        except (ValueError, RuntimeError, TypeError, ImportError) as exc:
            return Figure(title, None, caption, [f"Not drawn: {exc}"])
        buffer = io.StringIO()
        rc = {"svg.fonttype": "none", "svg.hashsalt": "quercus"}
        with matplotlib.rc_context(rc):
            figure.savefig(buffer, format="svg", metadata={"Date": None})
    notes += sorted({str(w.message) for w in caught})
    return Figure(title, _inline(buffer.getvalue()), caption, notes)


def curve_figures(
    estimator, X, y, X_test, y_test, sample_weight, forest: bool, pruning_curve: bool = True
) -> list[Figure]:
    """The overfitting curve (a single tree, with ``pruning_curve``) and the learning curve
    (none where this quercus draws no curves)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [Figure("Curves", None, "", [MISSING_MATPLOTLIB])]
    from .. import plot

    if not hasattr(plot, "learning_curve"):
        return []
    held_out = X_test is not None
    how = "the test data" if held_out else f"{FOLDS}-fold cross-validation"
    figures = []
    if not forest and pruning_curve:
        options = {"X_val": X_test, "y_val": y_test} if held_out else {"cv": FOLDS}
        figures.append(
            _draw(
                "Overfitting curve",
                "Training and held-out score against the number of leaves along the tree's "
                f"own pruning sequence (or its growth), the kept tree marked; held out: {how}.",
                lambda ax: plot.overfitting_curve(
                    estimator, X, y, sample_weight=sample_weight, ax=ax, **options
                ),
            )
        )
    figures.append(
        _draw(
            "Learning curve",
            "Training and cross-validated score against the number of training cases "
            f"({FOLDS} folds, scikit-learn's learning_curve on the data given).",
            lambda ax: plot.learning_curve(
                estimator, X, y, train_sizes=TRAIN_SIZES, cv=FOLDS, ax=ax
            ),
        )
    )
    return figures


def boosting_figure(booster) -> Figure:
    """A gradient booster's training (and validation) loss by iteration, the iteration it
    kept marked (:func:`quercus.plot.boosting_curve`)."""
    from .. import plot  # matplotlib is imported by the drawing (_draw says if it is missing)

    title = "Loss by iteration"
    if booster.do_early_stopping_:
        caption = (
            "The mean loss on the training rows and on the validation rows after each "
            "iteration; early stopping kept the iterations up to the lowest validation loss."
        )
    else:
        caption = (
            "The mean loss on the training rows after each iteration (no validation loss: "
            "early stopping was off; --set early_stopping=True holds out "
            "validation_fraction of the rows and draws their loss too)."
        )
    return _draw(title, caption, lambda ax: plot.boosting_curve(booster, ax=ax))


def figure_html(fig: Figure) -> str:
    """One figure with its title and caption, or the reason it is missing."""
    parts = [f'<div class="curve"><h4>{page.escape(fig.title)}</h4>']
    if fig.svg is not None:
        parts.append(
            f"<figure>{fig.svg}<figcaption>{page.escape(fig.caption)}</figcaption></figure>"
        )
    for note in fig.notes:
        parts.append(page.paragraph(note, "warning" if fig.svg is None else "note"))
    parts.append("</div>")
    return "".join(parts)


def curves_section(figures: list[Figure]) -> str:
    parts = "".join(figure_html(fig) for fig in figures)
    return page.section("curves", "Curves", f'<div class="curves">{parts}</div>')
