"""The boosting curve: a gradient booster's training and validation loss against the
iterations, with the iteration early stopping kept."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._common import axes

__all__ = ["BoostingCurve", "boosting_curve"]


@dataclass
class BoostingCurve:
    """The numbers of :func:`boosting_curve`, with the Axes they are drawn on.

    Attributes
    ----------
    iterations : int ndarray (n_iterations + 1,)
        0 (the start, before the first tree) to the last iteration run.
    train_loss : ndarray (n_iterations + 1,)
        The mean loss on the training rows after each iteration.
    validation_loss : ndarray (n_iterations + 1,) or None
        The same on the validation rows (None without early stopping).
    best_iteration : int
        The iterations the model kept (``n_iter_``).
    loss : str
        The loss's name.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    """

    iterations: np.ndarray
    train_loss: np.ndarray
    validation_loss: np.ndarray | None
    best_iteration: int
    loss: str
    ax_: object = None
    figure_: object = None


def boosting_curve(booster, *, ax=None) -> BoostingCurve:
    """Draw the training (and validation) loss of the fitted gradient ``booster``
    (:class:`~quercus.GradientBoostingClassifier`,
    :class:`~quercus.GradientBoostingRegressor`) against the iterations, and mark the
    iteration it kept: with early stopping, the lowest validation loss (the iterations run
    after it were dropped from the model)."""
    if not hasattr(type(booster), "supported_losses"):  # the boosters' class attribute
        raise TypeError(
            f"boosting_curve needs a quercus gradient booster, got {type(booster).__name__}"
        )
    check_is_fitted(booster, "start_")
    train = -np.asarray(booster.train_score_, dtype=np.float64)
    validation = None
    if len(booster.validation_score_):
        validation = -np.asarray(booster.validation_score_, dtype=np.float64)
    curve = BoostingCurve(
        iterations=np.arange(len(train)),
        train_loss=train,
        validation_loss=validation,
        best_iteration=int(booster.n_iter_),
        loss=str(booster.loss),
    )
    _draw(curve, axes(ax), type(booster).__name__)
    return curve


def _draw(curve: BoostingCurve, ax, name: str) -> None:
    x = curve.iterations
    ax.plot(x, curve.train_loss, label="training", gid="training")
    if curve.validation_loss is not None:
        ax.plot(x, curve.validation_loss, ls="--", label="validation", gid="validation")
    best = curve.best_iteration
    stopped = curve.validation_loss is not None and best < x[-1]
    label = f"kept: {best} iterations" + (" (early stopping)" if stopped else "")
    ax.axvline(best, color="0.3", ls=":", label=label, gid="kept")
    ax.set_xlabel("iteration")
    ax.set_ylabel(f"mean {curve.loss.replace('_', ' ')}")
    ax.set_title(f"{name}: loss by iteration")
    ax.legend(loc="best")
    curve.ax_, curve.figure_ = ax, ax.figure
