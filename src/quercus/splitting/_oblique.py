"""Numba kernels: the search for an oblique split ``a . x <= t`` of a node's rows (OC1).

An oblique split tests a linear combination of numeric features. Finding the best one is
NP-hard; this is OC1's search (Murthy, Kasif and Salzberg 1994), which builds on CART's
linear-combination search (Breiman et al. 1984, section 5.2):

1. Start from a hyperplane (the best axis-parallel split, so the result is never worse).
2. **Coordinate steps** (CART-LC's): for one coefficient at a time, find the value that
   minimises the impurity with the others held, exactly: each row changes sides at one
   value of the coefficient, so sorting those values and moving the rows across one by one
   scores every distinct split along that line. Repeat over all coefficients (the
   threshold last) while the impurity falls.
3. **Random jumps** (OC1's): when no coefficient helps, try a random direction, with the
   same exact line search along it; a better hyperplane is taken and the coordinate steps
   start again. ``jumps`` directions are tried in all (a bound on the work: a jump that
   gains starts the coordinate steps again, and on many rows each gains a little).

The rows are taken on the node's standardised scale (each feature centred, divided by its
standard deviation) so that the coefficients are comparable; the caller maps the
hyperplane back. The impurity is the criterion's, weighted by the sides' weights. Everything
random comes from ``seed`` (a node's own seed: the same tree for any thread count).
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from ..criteria._impurity import impurity, stats_weight


@njit
def split_cost(values, yc, yv, w, n_stats, criterion, regression, stats):
    """Weighted impurity of the split ``values <= 0`` (left) / ``> 0`` (right): the sum
    over the sides of weight x impurity (``stats``: scratch of two rows)."""
    stats[:, :] = 0.0
    for i in range(values.shape[0]):
        _add_row(stats, 0 if values[i] <= 0.0 else 1, i, yc, yv, w, regression)
    return _sides_cost(stats, criterion, regression)


@njit(inline="always")
def _add_row(stats, side, i, yc, yv, w, regression):
    """Add row ``i`` to side ``side`` of ``stats``."""
    if regression:
        stats[side, 0] += w[i]
        stats[side, 1] += w[i] * yv[i]
        stats[side, 2] += w[i] * yv[i] * yv[i]
    else:
        stats[side, yc[i]] += w[i]


@njit
def _sides_cost(stats, criterion, regression):
    cost = 0.0
    for side in range(2):
        wt = stats_weight(stats, side, regression)
        if wt > 0.0:
            cost += wt * impurity(stats, side, criterion, regression)
    return cost


@njit
def _move(stats, i, yc, yv, w, regression, to_left):
    """Move row ``i`` between the sides of ``stats`` (to the left, or to the right)."""
    src, dst = (1, 0) if to_left else (0, 1)
    if regression:
        for k, v in enumerate((w[i], w[i] * yv[i], w[i] * yv[i] * yv[i])):
            stats[src, k] -= v
            stats[dst, k] += v
    else:
        stats[src, yc[i]] -= w[i]
        stats[dst, yc[i]] += w[i]


@njit
def line_search(values, direction, yc, yv, w, criterion, regression, min_leaf, stats):
    """The best step ``s`` along ``direction``: the split ``values + s * direction <= 0``
    of least cost whose sides both weigh at least ``min_leaf``. Returns ``(cost, s)``;
    ``s`` = 0 and the current cost when no step is admissible or better.

    A row with ``direction > 0`` is on the left for ``s`` below its crossing point
    ``-values / direction`` and on the right above it (the reverse for ``direction < 0``);
    a row with ``direction = 0`` keeps its side. Sorting the crossings scores every split
    along the line in one pass."""
    n = values.shape[0]
    current = split_cost(values, yc, yv, w, stats.shape[1], criterion, regression, stats)
    crossing = np.empty(n)
    movable = np.zeros(n, dtype=np.bool_)
    # Far to the left on the line (s -> -inf): rows with direction > 0 are left.
    stats[:, :] = 0.0
    for i in range(n):
        if direction[i] != 0.0:
            movable[i] = True
            crossing[i] = -values[i] / direction[i]
            left = direction[i] > 0.0
        else:
            crossing[i] = np.inf
            left = values[i] <= 0.0
        _add_row(stats, 0 if left else 1, i, yc, yv, w, regression)
    order = np.argsort(crossing, kind="mergesort")
    best_cost, best_step = current, 0.0
    for t in range(n):
        i = order[t]
        if not movable[i]:
            break
        _move(stats, i, yc, yv, w, regression, direction[i] < 0.0)
        if t + 1 < n and movable[order[t + 1]] and crossing[order[t + 1]] == crossing[i]:
            continue  # rows crossing at the same point move together
        if t + 1 < n and movable[order[t + 1]]:
            step = 0.5 * (crossing[i] + crossing[order[t + 1]])
        else:
            step = crossing[i] + 1.0  # past the last crossing
        if (
            stats_weight(stats, 0, regression) < min_leaf
            or stats_weight(stats, 1, regression) < min_leaf
        ):
            continue
        cost = _sides_cost(stats, criterion, regression)
        if cost < best_cost - 1e-12 * max(abs(best_cost), 1.0):
            best_cost, best_step = cost, step
    return best_cost, best_step


@njit
def oc1_search(z, yc, yv, w, coef, criterion, regression, n_stats, min_leaf, jumps, seed):
    """Improve the hyperplane ``coef`` (``z @ coef[:-1] + coef[-1] <= 0`` goes left; ``z``
    standardised rows) in place by coordinate steps and random jumps; returns its cost."""
    n, q = z.shape
    stats = np.zeros((2, n_stats))
    values = z @ coef[:q] + coef[q]
    cost = split_cost(values, yc, yv, w, n_stats, criterion, regression, stats)
    direction = np.empty(n)
    # Numba compiles only the legacy API: its own generator, one per thread, seeded per node.
    np.random.seed(seed)  # noqa: NPY002
    tried = 0
    while True:
        improved = True
        while improved:
            improved = False
            for m in range(q + 1):
                for i in range(n):
                    direction[i] = z[i, m] if m < q else 1.0
                new, step = line_search(
                    values, direction, yc, yv, w, criterion, regression, min_leaf, stats
                )
                if new < cost - 1e-12 * max(abs(cost), 1.0):
                    coef[m] += step
                    values += step * direction
                    cost = new
                    improved = True
        if tried >= jumps:
            return cost
        tried += 1
        r = np.random.standard_normal(q + 1)  # noqa: NPY002
        for i in range(n):
            direction[i] = z[i] @ r[:q] + r[q]
        new, step = line_search(
            values, direction, yc, yv, w, criterion, regression, min_leaf, stats
        )
        if new < cost - 1e-12 * max(abs(cost), 1.0):
            coef += step * r
            values += step * direction
            cost = new
