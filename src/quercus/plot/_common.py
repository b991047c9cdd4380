"""What every drawing needs: matplotlib (imported when a drawing is made, with a clear
message when it is missing), the Axes to draw on (a new figure unless one is given), and
checks of the estimator."""

from __future__ import annotations

from sklearn.base import is_classifier, is_regressor
from sklearn.utils.validation import check_is_fitted

from ..export import colours

INSTALL_HINT = (
    'quercus.plot needs matplotlib: pip install "quercus[plot]" (or pip install matplotlib)'
)


def pyplot():
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return plt


def axes(ax, figsize=None):
    """``ax``, or when None the Axes of a new pyplot figure (of ``figsize`` inches, else
    matplotlib's default size): each drawing made without ``ax`` is a figure of its own,
    never added to the current Axes of an earlier one, and ``plt.show()`` shows it."""
    if ax is not None:
        return ax
    _, new = pyplot().subplots(figsize=figsize)
    return new


def fitted_estimator(estimator, what: str, *, classifier: bool | None = None):
    """Check that ``estimator`` is a fitted quercus tree (a classifier or a regressor when
    ``classifier`` says so); ``what`` names the drawing in messages."""
    # A tree estimator is told by its routing through one tree (BaseDecisionTree's
    # _tree_args), not by importing its class: the estimators reach these drawings through
    # their report, and the import would close a cycle.
    if not callable(getattr(estimator, "_tree_args", None)):
        raise TypeError(f"{what} needs a quercus tree estimator, got {type(estimator).__name__}")
    check_is_fitted(estimator, "tree_")
    if classifier is True and not is_classifier(estimator):
        raise TypeError(f"{what} needs a classifier, got the regressor {type(estimator).__name__}")
    if classifier is False and not is_regressor(estimator):
        raise TypeError(f"{what} needs a regressor, got {type(estimator).__name__}")
    return estimator


def class_colours(n_classes: int) -> list[str]:
    """The colours of the classes: those of every picture of a tree (the Graphviz export's
    and the report's too), all distinct."""
    return colours.class_colours(n_classes)
