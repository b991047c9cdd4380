"""The oblique split of a node's rows: OC1's search (``_oblique.py``) on the node's own
standardised scale, mapped back to a test ``w . x <= t`` on the features as given.

A node of more than :data:`OBLIQUE_SAMPLE` complete rows searches the direction of its
hyperplane on a seeded sample of that many rows (each line search sorts the rows it sees),
then places the threshold by an exact line search over all of them and scores the split on
all of them: the sample only steers the search, so the split is still compared with the
axis-parallel one on the node's own rows.

A node's rows with a missing value in any of the searched features take no part in the
search; its gain is then the gain over the complete rows times their share of the node's
weight (C4.5's discount for unknown values), so that a split that sees fewer rows is not
preferred for it. Without missing values this is the plain impurity decrease, the gain the
axis-parallel search reports, and the two compare as equals.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import njit
from ..criteria._impurity import impurity
from ._histogram import rows_stats
from ._oblique import line_search, oc1_search
from ._partition import route_missing

#: OC1's random jumps tried at a node.
OBLIQUE_JUMPS = 10
#: The most rows a node's search steers by (a seeded sample of a larger node's rows).
OBLIQUE_SAMPLE = 20_000


class ObliqueSplit(NamedTuple):
    """An oblique split: rows with ``weights . x <= threshold`` go to the first child.
    ``weights`` has one entry per feature (0 for those not used); ``feature`` is the one of
    the largest standardised weight; ``gain`` is comparable to an axis-parallel split's."""

    weights: np.ndarray
    threshold: float
    gain: float
    feature: int


class ObliqueProblem(NamedTuple):
    """What the search needs besides the rows: the criterion's code, the task, the number
    of statistics, the least weight of a side and the jumps."""

    criterion: int
    regression: bool
    n_stats: int
    min_leaf: float
    jumps: int = OBLIQUE_JUMPS


def find_oblique_split(
    x: np.ndarray,
    y_class: np.ndarray,
    y_value: np.ndarray,
    w: np.ndarray,
    features: np.ndarray,
    start: tuple[int, float] | None,
    problem: ObliqueProblem,
    seed: int,
) -> ObliqueSplit | None:
    """The best oblique split OC1 finds over ``features`` (numeric columns of ``x``, the
    node's rows as float64), starting from the axis-parallel split ``start`` = ``(feature,
    threshold)`` when given. None when fewer than two of the features vary over the
    complete rows, or when the best hyperplane found tests one feature only (then it is an
    axis-parallel split, which the ordinary search already scores)."""
    z, yc, yv, wc = _complete_rows(x, y_class, y_value, w, features)
    if len(z) < 2:
        return None
    mean = z.mean(axis=0)
    spread = z.std(axis=0)
    varies = spread > 1e-12 * np.maximum(np.abs(mean), 1.0)
    if varies.sum() < 2:
        return None
    used = features[varies]
    if not varies.all():
        z = np.compress(varies, z, axis=1)
    mean, spread = mean[varies], spread[varies]
    # Standardised in place: the node's rows are copied once (C order, as the kernels read).
    z -= mean
    z /= spread
    q = z.shape[1]
    coef = np.zeros(q + 1)
    position = np.flatnonzero(used == start[0]) if start is not None else np.zeros(0, int)
    if len(position):
        k = int(position[0])
        coef[k] = 1.0
        coef[q] = -(start[1] - mean[k]) / spread[k]
    else:  # no axis-parallel split to start from: the first feature at its median
        coef[0] = 1.0
        coef[q] = -float(np.median(z[:, 0]))
    yc = np.ascontiguousarray(yc, dtype=np.int32)
    yv = np.ascontiguousarray(yv, dtype=np.float64)
    wc = np.ascontiguousarray(wc, dtype=np.float64)
    search = (problem.criterion, problem.regression)
    steer = _sample(len(z), seed)
    cost = oc1_search(
        z[steer],
        yc[steer],
        yv[steer],
        wc[steer],
        coef,
        *search,
        problem.n_stats,
        problem.min_leaf,
        problem.jumps,
        seed,
    )
    values = z @ coef[:q] + coef[q]
    stats = np.zeros((2, problem.n_stats))
    if isinstance(steer, np.ndarray):  # a sample steered: the threshold placed on every row
        cost, step = line_search(
            values, np.ones(len(z)), yc, yv, wc, *search, problem.min_leaf, stats
        )
        coef[q] += step
        values += step
    left = values <= 0.0
    if min(wc[left].sum(), wc[~left].sum()) < max(problem.min_leaf, 1e-300):
        return None  # a side too light (or empty): no admissible oblique split
    if np.count_nonzero(coef[:q]) < 2:
        return None
    # z . a + b <= 0  <=>  sum_j (a_j / s_j) x_j <= sum_j a_j m_j / s_j - b
    scaled = coef[:q] / spread
    threshold = float(scaled @ mean - coef[q])
    size = float(np.abs(scaled).max())
    weights = np.zeros(x.shape[1])
    weights[used] = scaled / size
    w_complete = rows_stats(yc, yv, wc, np.arange(len(yc)), problem.regression, stats)
    node_impurity = impurity(stats, 0, problem.criterion, problem.regression)
    gain = (w_complete * node_impurity - cost) / float(w.sum())
    return ObliqueSplit(weights, threshold / size, gain, int(used[np.argmax(np.abs(coef[:q]))]))


def _complete_rows(x, y_class, y_value, w, features):
    """The columns ``features`` of the rows of ``x`` with none of them missing (a C-ordered
    copy, which the caller may overwrite), and those rows' classes, targets and weights."""
    sub = np.take(x, features, axis=1)
    complete = ~np.isnan(sub).any(axis=1)
    if complete.all():
        return sub, y_class, y_value, w
    return sub[complete], y_class[complete], y_value[complete], w[complete]


def _sample(n: int, seed: int) -> np.ndarray | slice:
    """The rows a node's search steers by: all, or a seeded sample of
    :data:`OBLIQUE_SAMPLE` of them (in their order)."""
    if n <= OBLIQUE_SAMPLE:
        return slice(None)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, OBLIQUE_SAMPLE, replace=False))


@njit
def oblique_branches(sides, y_class, missing_child, by_class, class_w):
    """The branch (0 or 1) of each row of a node under an oblique split, from its side
    (``oblique_sides``: -1 where a feature it tests is missing); a row with a missing value
    goes where the missing-value policy sends it (``route_missing``)."""
    child_of = sides.astype(np.int32)
    counts = np.zeros(3, dtype=np.int64)
    route_missing(child_of, 0, len(child_of), y_class, missing_child, by_class, class_w, 2, counts)
    return child_of
