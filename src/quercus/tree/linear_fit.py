"""The linear model of one node of a model tree, fitted as M5 fits it.

Weka's M5P fits each node's model with its ``LinearRegression`` at the default settings,
which this module follows (Wang & Witten 1997 leave these details open):

1. Terms constant at the node are left out.
2. The model is a least-squares fit on standardised terms with a ridge of 1e-8 (raised
   tenfold while the system is singular), the intercept unpenalised.
3. Colinear terms go: while a standardised coefficient ``|b_j s_j / s_y|`` exceeds 1.5, the
   largest goes and the model is refitted.
4. Backward elimination: the term of smallest standardised coefficient goes while that
   lowers ``SSE / SSE_0 * (n - p_0) + 2 p`` (Mallows' Cp plus n, with ``p`` the model's
   parameters and the intercept, ``_0`` the model after step 3).

Everything is computed from the node's centred cross-products (its Gram matrix), so each
refit costs a solve of the selected terms, not a pass over the rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

RIDGE = 1e-8
COLINEAR = 1.5

__all__ = ["LinearModel", "NodeMoments", "fit_linear", "node_moments"]


class NodeMoments(NamedTuple):
    """What a node's rows tell a linear fit: their weight, the weighted means of the terms
    and the target, and the centred cross-products of terms and target."""

    weight: float
    mean: np.ndarray  # (p,) the terms' weighted means
    y_mean: float
    gram: np.ndarray  # (p, p) sum w (z - mean)(z - mean)'
    cross: np.ndarray  # (p,) sum w (z - mean)(y - y_mean)
    y_squares: float  # sum w (y - y_mean)^2
    varies: np.ndarray  # (p,) bool: the term takes two values or more at the node


class LinearModel(NamedTuple):
    """A fitted model: ``coef`` over the node's terms (0 for those left out), the
    ``intercept``, and its weighted sum of squared errors on the node's rows."""

    coef: np.ndarray
    intercept: float
    sse: float

    @property
    def n_params(self) -> int:
        """Nonzero coefficients and the intercept (M5's count of parameters)."""
        return int(np.count_nonzero(self.coef)) + 1


def node_moments(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> NodeMoments:
    """The :class:`NodeMoments` of rows of terms ``z`` (n, p), targets ``y`` and weights
    ``w``."""
    weight = float(w.sum())
    mean = w @ z / weight
    y_mean = float(w @ y / weight)
    dz = z - mean
    dy = y - y_mean
    wz = dz * w[:, None]
    varies = (z.max(axis=0) > z.min(axis=0)) if len(z) else np.zeros(z.shape[1], dtype=bool)
    return NodeMoments(weight, mean, y_mean, wz.T @ dz, wz.T @ dy, float(w @ (dy * dy)), varies)


def _sse(m: NodeMoments, selected: np.ndarray, b: np.ndarray) -> float:
    """Weighted squared error of coefficients ``b`` on the ``selected`` terms (the
    intercept makes the residuals' mean zero)."""
    g = m.gram[np.ix_(selected, selected)]
    sse = m.y_squares - 2.0 * b @ m.cross[selected] + b @ g @ b
    return max(float(sse), 0.0)


def _solve(m: NodeMoments, selected: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of the ``selected`` terms (``scale``: their standard
    deviations), on the standardised scale with M5's ridge, in the terms' units."""
    s = scale[selected]
    a = m.gram[np.ix_(selected, selected)] / np.outer(s, s)
    rhs = m.cross[selected] / s
    ridge = RIDGE
    eye = np.eye(len(selected))
    while True:
        try:
            beta = np.linalg.solve(a + ridge * eye, rhs)
        except np.linalg.LinAlgError:
            beta = None
        if beta is not None and np.all(np.isfinite(beta)):
            return beta / s
        ridge *= 10.0
        if ridge > 1e12:  # nothing to fit: no term is of use
            return np.zeros(len(selected))


def fit_linear(m: NodeMoments, candidates: np.ndarray, n_terms: int) -> LinearModel:
    """The node's model over the ``candidates`` (term indexes) among ``n_terms`` terms,
    selected as the module docstring says."""
    coef = np.zeros(n_terms)
    local = np.arange(len(candidates))
    denominator = max(m.weight - 1.0, 0.0)
    scale = np.sqrt(np.maximum(np.diag(m.gram), 0.0) / denominator) if denominator > 0 else None
    y_scale = np.sqrt(m.y_squares / denominator) if denominator > 0 else 0.0
    if scale is None or y_scale <= 0.0:
        return LinearModel(coef, m.y_mean, m.y_squares)
    selected = local[m.varies & (scale > 0.0)]
    b = _solve(m, selected, scale)
    # Colinear terms: the largest standardised coefficient above 1.5 goes, one at a time.
    while len(selected):
        standard = np.abs(b * scale[selected] / y_scale)
        worst = int(np.argmax(standard))
        if standard[worst] <= COLINEAR:
            break
        selected = np.delete(selected, worst)
        b = _solve(m, selected, scale)
    sse0 = _sse(m, selected, b)
    n = m.weight  # M5P counts rows; with weights, weight stands for rows
    p0 = len(selected) + 1
    best = float(n + p0)
    params = p0
    while len(selected) and sse0 > 0.0:
        params -= 1
        standard = np.abs(b * scale[selected] / y_scale)
        weakest = int(np.argmin(standard))
        trial = np.delete(selected, weakest)
        trial_b = _solve(m, trial, scale)
        criterion = _sse(m, trial, trial_b) / sse0 * (n - p0) + 2.0 * params
        if not criterion < best:
            break
        best, selected, b = criterion, trial, trial_b
    coef[candidates[selected]] = b
    intercept = m.y_mean - float(b @ m.mean[selected])
    return LinearModel(coef, intercept, _sse(m, selected, b))
