"""Numba kernels: the Newton working targets of the common losses and their loss sum, in
one pass over the rows.

Each iteration of the boosting loop needs every row's gradient ``g`` and hessian ``h`` at
its raw score (the working target ``-g / h`` and weight ``h`` its tree grows on), and the
training loss at the same scores. The NumPy forms (:mod:`quercus.ensemble.losses`) take
about ten passes over the rows for both; these kernels take one, sharing the exponential.
A row whose hessian is 0 or subnormal weighs 0 and has target 0, as
:func:`quercus.ensemble.boosting.newton_targets` makes it. The NumPy forms are their twins
in the tests.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import njit

#: The smallest normal float64: a hessian below it weighs 0.
TINY = np.finfo(np.float64).tiny
#: Rows of weight 1 whose logarithms are summed as the logarithm of their product: a
#: logarithm costs three times an exponential (``bench/README.md``), and a product of 32
#: factors of at most 2 (the logistic's ``1 + e``), or of at most ``k`` (the softmax's
#: normaliser), neither overflows nor loses more than 32 roundings (an absolute 4e-15).
LOG_BLOCK = 32


@njit(refcounts=False, inline="always")
def _add_log(total, product, factors, factor):
    """``log(factor)`` added to the sum ``total`` by way of a running ``product`` of
    ``factors`` factors: the product's logarithm joins the sum every :data:`LOG_BLOCK`
    factors (the caller adds the last ``log(product)``). Returns the three anew."""
    product *= factor
    factors += 1
    if factors == LOG_BLOCK:
        return total + math.log(product), 1.0, 0
    return total, product, factors


@njit(refcounts=False)
def squared_error_targets(y, raw, w, target, weight):
    """Squared error ``(y - raw)**2 / 2``: ``g = raw - y``, ``h = 1`` (times the weight):
    the target is the residual. Returns ``(weighted loss sum, weight sum)``."""
    total = 0.0
    weights = 0.0
    for i in range(y.shape[0]):
        wi = w[i]
        residual = y[i] - raw[i, 0]
        if wi >= TINY:
            target[i, 0] = residual
            weight[i, 0] = wi
        else:
            target[i, 0] = 0.0
            weight[i, 0] = 0.0
        total += wi * 0.5 * residual * residual
        weights += wi
    return total, weights


@njit(refcounts=False)
def binary_log_loss_targets(y, raw, w, target, weight):
    """Binary log-loss ``log(1 + e**raw) - y raw``: ``g = p - y``, ``h = p (1 - p)``
    (``p`` the logistic of ``raw``, computed without overflow). Returns ``(weighted loss
    sum, weight sum)``; the ``log(1 + e**-|raw|)`` of rows of weight 1 are summed
    :data:`LOG_BLOCK` at a time."""
    total = 0.0
    weights = 0.0
    product = 1.0
    factors = 0
    for i in range(y.shape[0]):
        r = raw[i, 0]
        e = math.exp(-abs(r))
        p = 1.0 / (1.0 + e) if r >= 0.0 else e / (1.0 + e)
        wi = w[i]
        yi = float(y[i])
        h = p * (1.0 - p) * wi
        if h >= TINY:
            target[i, 0] = (yi - p) * wi / h
            weight[i, 0] = h
        else:
            target[i, 0] = 0.0
            weight[i, 0] = 0.0
        linear = max(r, 0.0) - yi * r  # the loss less log(1 + e)
        if wi == 1.0:
            total, product, factors = _add_log(total + linear, product, factors, 1.0 + e)
        else:
            total += wi * (linear + math.log1p(e))
        weights += wi
    return total + math.log(product), weights


@njit(refcounts=False)
def multinomial_log_loss_targets(y, raw, w, target, weight):
    """Multinomial log-loss ``logsumexp(raw) - raw[y]``: ``g_k = p_k - [y = k]``, ``h_k =
    p_k (1 - p_k)`` (``p`` the softmax of the row's raw scores; each exponential is
    computed once, kept in ``target`` until its row's targets replace it). Returns
    ``(weighted loss sum, weight sum)``; the normalisers' logarithms of rows of weight 1 are
    summed :data:`LOG_BLOCK` at a time."""
    total = 0.0
    weights = 0.0
    product = 1.0
    factors = 0
    k = raw.shape[1]
    for i in range(y.shape[0]):
        top = raw[i, 0]
        for j in range(1, k):
            top = max(top, raw[i, j])
        norm = 0.0
        for j in range(k):
            target[i, j] = math.exp(raw[i, j] - top)
            norm += target[i, j]
        wi = w[i]
        c = y[i]
        for j in range(k):
            p = target[i, j] / norm
            g = (p - (1.0 if j == c else 0.0)) * wi
            h = p * (1.0 - p) * wi
            if h >= TINY:
                target[i, j] = -g / h
                weight[i, j] = h
            else:
                target[i, j] = 0.0
                weight[i, j] = 0.0
        if wi == 1.0:
            total, product, factors = _add_log(total + (top - raw[i, c]), product, factors, norm)
        else:
            total += wi * (top + math.log(norm) - raw[i, c])
        weights += wi
    return total + math.log(product), weights
