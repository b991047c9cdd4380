"""The losses of gradient boosting: each one's gradient, hessian, starting score and link.

A booster's trees fit the Newton step of a loss: each row's gradient ``g`` and hessian ``h``
of the loss with respect to its raw score (the margin: the log-odds of a class, the log of a
Poisson or Gamma mean, the prediction itself for squared error), weighted by its sample
weight. A tree grown with weights ``h`` on the working target ``-g / h`` holds the sums
``H`` and ``-G`` at each node, so its mean leaf ``-G / H`` is the Newton step and its squared
error gain is Newton's (``ensemble/boosting.py``).

Each loss is a :class:`Loss` record of plain functions over NumPy arrays, written for whole
columns of rows (so that a Dask partition evaluates them on its own rows); their checks
against finite differences are in ``tests/ensemble/test_losses.py``. Absolute error and the
quantile loss have no curvature: their hessian is 1 (the step of the tree is then a first
guess), and :attr:`Loss.leaf_quantile` says that each leaf is set afterwards to the weighted
quantile of its rows' residuals, as Friedman (2001) does for least absolute deviation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logsumexp, xlogy

from .._parallel import thread_pool
from ._loss_kernels import (
    binary_log_loss_targets,
    multinomial_log_loss_targets,
    squared_error_targets,
)

#: Names of the regression losses, in the order the docstrings list them.
REGRESSION_LOSSES = (
    "squared_error",
    "absolute_error",
    "quantile",
    "huber",
    "poisson",
    "gamma",
    "tweedie",
)
#: Names of the classification losses: ``log_loss`` is binary or multinomial by the classes.
CLASSIFICATION_LOSSES = ("log_loss",)

#: Raw scores of the log-link losses are clipped to this magnitude before ``exp``: a mean
#: of e**700 is already beyond any target, and e**710 overflows.
MAX_LOG_SCORE = 700.0


@dataclass(frozen=True)
class Loss:
    """One loss of gradient boosting, as functions of the rows' targets ``y`` (class codes
    for ``log_loss``), raw scores ``raw`` and sample weights ``w``.

    ``n_scores``: raw scores per row (the number of classes for a multinomial loss, else 1);
    ``raw`` has shape ``(rows, n_scores)`` in every function.

    - ``start(y, w)``: the raw score of every row before the first tree, shape
      ``(n_scores,)``: the constant that minimises the loss.
    - ``gradients(y, raw, w)``: ``(g, h)``, each of shape ``(rows, n_scores)``: the first and
      second derivatives of each row's loss in its raw score (for a multinomial loss the
      diagonal of the hessian), times the row's weight.
    - ``value(y, raw, w)``: the weighted mean loss.
    - ``predict(raw)``: what the model predicts from the raw scores: the mean (regression),
      or the class probabilities, shape ``(rows, classes)``.
    - ``leaf_quantile``: None, or the quantile of the residuals ``y - raw`` (weighted) that
      each leaf's value is set to after the tree is grown.
    - ``fused``: None, or ``fused(y, raw, w, n_threads=1, sums_only=False) -> (target,
      weight, [loss sum, weight sum])`` (``sums_only``: the targets None, not kept):
      the Newton working targets ``-g / h`` and weights ``h`` (as
      :func:`quercus.ensemble.boosting.newton_targets` makes them from ``gradients``) and
      the weighted loss sum, in one pass (:mod:`quercus.ensemble._loss_kernels`).
    """

    name: str
    n_scores: int
    start: Callable[[np.ndarray, np.ndarray], np.ndarray]
    gradients: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple]
    value: Callable[[np.ndarray, np.ndarray, np.ndarray], float]
    predict: Callable[[np.ndarray], np.ndarray]
    leaf_quantile: float | None = None
    fused: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple] | None = None


def weighted_quantile(values: np.ndarray, w: np.ndarray, q: float) -> float:
    """The weighted ``q``-quantile of ``values`` (rows of weight 0 left out).

    Rows of equal weights: NumPy's default percentile, interpolated linearly between the
    two values around position ``q (n - 1)`` (HistGradientBoosting's without sample
    weights; the median of an even count is the mean of the middle pair). Unequal
    weights: the smallest value whose cumulative weight (in increasing order of the
    values) reaches ``q`` of the total, the mean of the two values around it where the
    cumulative weight equals ``q`` of the total exactly."""
    kept = w > 0
    if not kept.all():
        values, w = values[kept], w[kept]
    if w.min() == w.max():
        return float(np.percentile(values, 100.0 * q))
    order = np.argsort(values, kind="stable")
    v = values[order]
    cum = np.cumsum(w[order])
    target = q * cum[-1]
    i = int(np.searchsorted(cum, target, side="left"))
    i = min(i, len(v) - 1)
    if cum[i] == target and i + 1 < len(v):
        return 0.5 * (v[i] + v[i + 1])
    return float(v[i])


#: Rows of one call of a ``fused`` kernel: the blocks a pass is cut into, whatever the
#: threads, so that the loss sums (one per block, then added in order) do not depend on them.
FUSED_BLOCK_ROWS = 1 << 16


def _fused(kernel) -> Callable:
    """A loss's ``fused`` from one of :mod:`quercus.ensemble._loss_kernels`: the rows in
    blocks of :data:`FUSED_BLOCK_ROWS`, on ``n_threads`` threads."""

    def run(y, raw, w, n_threads: int = 1, sums_only: bool = False):
        raw = np.ascontiguousarray(raw, dtype=np.float64)
        y = np.ascontiguousarray(y)
        w = np.ascontiguousarray(w, dtype=np.float64)
        starts = range(0, len(raw), FUSED_BLOCK_ROWS)
        sums = np.zeros((max(len(starts), 1), 2))
        if sums_only:  # the targets of a block only, written and dropped
            target = weight = None
        else:  # column-major: each raw score's tree reads its column of targets as one run
            target = np.empty(raw.shape, order="F")
            weight = np.empty(raw.shape, order="F")

        def block(i: int) -> None:
            a = starts[i]
            b = min(a + FUSED_BLOCK_ROWS, len(raw))
            if target is None:
                t = np.empty((b - a, raw.shape[1]), order="F")
                h = np.empty_like(t)
            else:
                t, h = target[a:b], weight[a:b]
            sums[i] = kernel(y[a:b], raw[a:b], w[a:b], t, h)

        if n_threads > 1 and len(starts) > 1:
            list(thread_pool(n_threads).map(block, range(len(starts))))
        else:
            for i in range(len(starts)):
                block(i)
        return target, weight, sums.sum(axis=0)

    return run


def _mean(values: np.ndarray, w: np.ndarray) -> float:
    return float(np.sum(values * w) / np.sum(w))


def _column(y: np.ndarray) -> np.ndarray:
    return np.asarray(y, dtype=np.float64).reshape(-1, 1)


def _constant_hessian(g: np.ndarray, w: np.ndarray) -> tuple:
    return g, np.broadcast_to(w.reshape(-1, 1), g.shape).copy()


# ------------------------------------------------------------------------------- regression


def squared_error() -> Loss:
    """Half the squared error ``(y - raw)**2 / 2``: ``g = raw - y``, ``h = 1``."""

    def gradients(y, raw, w):
        return _constant_hessian((raw - _column(y)) * w.reshape(-1, 1), w)

    def value(y, raw, w):
        return _mean(0.5 * (_column(y) - raw)[:, 0] ** 2, w)

    return Loss(
        "squared_error",
        1,
        lambda y, w: np.array([_mean(y, w)]),
        gradients,
        value,
        lambda raw: raw[:, 0],
        fused=_fused(squared_error_targets),
    )


def _pinball(alpha: float, name: str) -> Loss:
    def gradients(y, raw, w):
        below = _column(y) < raw  # the prediction is above the target
        g = np.where(below, 1.0 - alpha, -alpha) * w.reshape(-1, 1)
        return _constant_hessian(g, w)

    def value(y, raw, w):
        r = _column(y)[:, 0] - raw[:, 0]
        return _mean(np.where(r >= 0, alpha * r, (alpha - 1.0) * r), w)

    return Loss(
        name,
        1,
        lambda y, w: np.array([weighted_quantile(np.asarray(y, float), w, alpha)]),
        gradients,
        value,
        lambda raw: raw[:, 0],
        leaf_quantile=alpha,
    )


def absolute_error() -> Loss:
    """The absolute error ``|y - raw|``: ``g = sign(raw - y)``, ``h = 1``; each leaf is set
    to the weighted median of its residuals."""
    median = _pinball(0.5, "absolute_error")

    def gradients(y, raw, w):
        return _constant_hessian(np.sign(raw - _column(y)) * w.reshape(-1, 1), w)

    def value(y, raw, w):
        return _mean(np.abs(_column(y)[:, 0] - raw[:, 0]), w)

    return Loss("absolute_error", 1, median.start, gradients, value, median.predict, 0.5)


def quantile(alpha: float) -> Loss:
    """The pinball loss of quantile ``alpha`` (0 < alpha < 1): ``alpha * r`` for residuals
    ``r = y - raw >= 0``, ``(alpha - 1) * r`` below; each leaf is set to the weighted
    ``alpha``-quantile of its residuals."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"quantile must be strictly between 0 and 1, got {alpha!r}")
    return _pinball(float(alpha), "quantile")


def huber(delta: float) -> Loss:
    """Huber's loss: ``r**2 / 2`` for residuals ``|r| <= delta``, ``delta * (|r| - delta /
    2)`` beyond; ``g = -r`` or ``-delta * sign(r)``, ``h = 1`` (LightGBM's choice: a zero
    hessian beyond ``delta`` would stop the rows there from moving)."""
    if not delta > 0.0:
        raise ValueError(f"huber_delta must be positive, got {delta!r}")

    def gradients(y, raw, w):
        r = _column(y) - raw
        g = -np.clip(r, -delta, delta) * w.reshape(-1, 1)
        return _constant_hessian(g, w)

    def value(y, raw, w):
        r = np.abs(_column(y)[:, 0] - raw[:, 0])
        return _mean(np.where(r <= delta, 0.5 * r * r, delta * (r - 0.5 * delta)), w)

    def start(y, w):
        return np.array([huber_location(np.asarray(y, dtype=np.float64), w, delta)])

    return Loss(
        "huber",
        1,
        start,
        gradients,
        value,
        lambda raw: raw[:, 0],
    )


def huber_location(y: np.ndarray, w: np.ndarray, delta: float) -> float:
    """The constant of least weighted Huber loss: the root of ``sum w clip(y - c, -delta,
    delta)``, a decreasing function of ``c``, found by bisection between the smallest and
    the largest target (to the last bit, at most 64 halvings of a double's range)."""
    lo, hi = float(np.min(y)), float(np.max(y))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if np.sum(w * np.clip(y - mid, -delta, delta)) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _log_mean_start(y, w):
    mean = _mean(y, w)
    if not mean > 0.0:
        raise ValueError(
            "the weighted mean of y is 0: a loss with a log link needs some positive targets"
        )
    return np.array([np.log(mean)])


def _mu(raw):
    return np.exp(np.clip(raw, -MAX_LOG_SCORE, MAX_LOG_SCORE))


def poisson() -> Loss:
    """Half the Poisson deviance, ``exp(raw) - y * raw`` plus terms in ``y`` only (``raw``
    the log of the mean ``mu``): ``g = mu - y``, ``h = mu``."""

    def gradients(y, raw, w):
        mu = _mu(raw)
        ww = w.reshape(-1, 1)
        return (mu - _column(y)) * ww, mu * ww

    def value(y, raw, w):
        y1 = _column(y)[:, 0]
        return _mean(_mu(raw)[:, 0] - y1 * raw[:, 0] + xlogy(y1, y1) - y1, w)

    return Loss("poisson", 1, _log_mean_start, gradients, value, lambda raw: _mu(raw)[:, 0])


def gamma() -> Loss:
    """Half the Gamma deviance, ``y * exp(-raw) + raw`` plus terms in ``y`` only: ``g = 1 -
    y / mu``, ``h = y / mu``."""

    def gradients(y, raw, w):
        ratio = _column(y) * _mu(-raw)
        ww = w.reshape(-1, 1)
        return (1.0 - ratio) * ww, ratio * ww

    def value(y, raw, w):
        y1 = _column(y)[:, 0]
        return _mean(y1 * _mu(-raw)[:, 0] + raw[:, 0] - np.log(y1) - 1.0, w)

    return Loss("gamma", 1, _log_mean_start, gradients, value, lambda raw: _mu(raw)[:, 0])


def tweedie(power: float) -> Loss:
    """Half the Tweedie deviance of ``power`` p (1 < p < 2: compound Poisson-Gamma) on the
    log of the mean: ``-y mu**(1-p) / (1-p) + mu**(2-p) / (2-p)`` plus terms in ``y``
    only."""
    p = float(power)
    if not 1.0 < p < 2.0:
        raise ValueError(
            f"power must be strictly between 1 and 2, got {power!r} (loss='poisson' is "
            "power 1, loss='gamma' power 2)"
        )

    def gradients(y, raw, w):
        a = _column(y) * _mu((1.0 - p) * raw)
        b = _mu((2.0 - p) * raw)
        ww = w.reshape(-1, 1)
        return (b - a) * ww, ((2.0 - p) * b - (1.0 - p) * a) * ww

    def value(y, raw, w):
        y1 = _column(y)[:, 0]
        r = raw[:, 0]
        per_row = -y1 * _mu((1.0 - p) * r) / (1.0 - p) + _mu((2.0 - p) * r) / (2.0 - p)
        return _mean(per_row + np.maximum(y1, 0.0) ** (2.0 - p) / ((1.0 - p) * (2.0 - p)), w)

    return Loss("tweedie", 1, _log_mean_start, gradients, value, lambda raw: _mu(raw)[:, 0])


# --------------------------------------------------------------------------- classification


def binary_log_loss() -> Loss:
    """The log-loss of two classes on the log-odds of class 1: ``log(1 + e**raw) - y *
    raw``: ``g = p - y``, ``h = p (1 - p)``."""

    def start(y, w):
        p = _mean(y, w)
        if not 0.0 < p < 1.0:
            raise ValueError("log_loss needs rows of both classes with positive weight")
        return np.array([np.log(p / (1.0 - p))])

    def gradients(y, raw, w):
        p = expit(raw)
        ww = w.reshape(-1, 1)
        return (p - _column(y)) * ww, p * (1.0 - p) * ww

    def value(y, raw, w):
        r = raw[:, 0]
        return _mean(np.logaddexp(0.0, r) - np.asarray(y, float) * r, w)

    def predict(raw):
        p = expit(raw[:, 0])
        return np.column_stack([1.0 - p, p])

    return Loss(
        "log_loss", 1, start, gradients, value, predict, fused=_fused(binary_log_loss_targets)
    )


def multinomial_log_loss(n_classes: int) -> Loss:
    """The log-loss of ``n_classes`` classes on one raw score per class (the softmax's):
    ``logsumexp(raw) - raw[y]``: ``g_k = p_k - [y = k]``, ``h_k = p_k (1 - p_k)`` (the
    hessian's diagonal, as scikit-learn's and LightGBM's boosters take it)."""

    def start(y, w):
        prior = np.bincount(y, weights=w, minlength=n_classes) / np.sum(w)
        if np.any(prior <= 0.0):
            raise ValueError("log_loss needs rows of every class with positive weight")
        return np.log(prior)

    def gradients(y, raw, w):
        p = _softmax(raw)
        g = p.copy()
        g[np.arange(len(g)), y] -= 1.0
        ww = w.reshape(-1, 1)
        return g * ww, p * (1.0 - p) * ww

    def value(y, raw, w):
        return _mean(logsumexp(raw, axis=1) - raw[np.arange(len(raw)), y], w)

    return Loss(
        "log_loss", n_classes, start, gradients, value, _softmax,
        fused=_fused(multinomial_log_loss_targets),
    )  # fmt: skip


def _softmax(raw):
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def regression_loss(
    name: str, *, quantile_alpha: float = 0.5, huber_delta: float = 1.0, power: float = 1.5
) -> Loss:
    """The regression loss called ``name`` (:data:`REGRESSION_LOSSES`) with its parameter."""
    if name == "squared_error":
        return squared_error()
    if name == "absolute_error":
        return absolute_error()
    if name == "quantile":
        return quantile(quantile_alpha)
    if name == "huber":
        return huber(huber_delta)
    if name == "poisson":
        return poisson()
    if name == "gamma":
        return gamma()
    if name == "tweedie":
        return tweedie(power)
    raise ValueError(f"loss must be one of {', '.join(REGRESSION_LOSSES)}; got {name!r}")


def classification_loss(name: str, n_classes: int) -> Loss:
    """The log-loss of ``n_classes`` classes: binary (one raw score) or multinomial."""
    if name != "log_loss":
        raise ValueError(f"loss must be 'log_loss' for a classifier; got {name!r}")
    if n_classes < 2:
        raise ValueError(f"log_loss needs at least 2 classes, got {n_classes}")
    return binary_log_loss() if n_classes == 2 else multinomial_log_loss(n_classes)


__all__ = [
    "CLASSIFICATION_LOSSES",
    "Loss",
    "REGRESSION_LOSSES",
    "absolute_error",
    "binary_log_loss",
    "classification_loss",
    "gamma",
    "huber",
    "huber_location",
    "multinomial_log_loss",
    "poisson",
    "quantile",
    "regression_loss",
    "squared_error",
    "tweedie",
    "weighted_quantile",
]
