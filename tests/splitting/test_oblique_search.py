"""The oblique split search (OC1, ``splitting/_oblique.py``) against plain NumPy: its exact
line search is the best of every step along the line, and on a diagonal boundary it finds
the diagonal where every axis-parallel split leaves errors."""

import numpy as np
import pytest

from quercus.criteria import registry
from quercus.splitting._oblique import line_search, oc1_search, split_cost

GINI = registry.CRITERIA["gini"]


def cost_twin(values, y, w, classes):
    """Weighted Gini of the split ``values <= 0``, in NumPy."""
    total = 0.0
    for side in (values <= 0, values > 0):
        counts = np.bincount(y[side], weights=w[side], minlength=classes)
        if counts.sum() > 0:
            total += counts.sum() * registry.get("gini").impurity(counts)
    return total


def line_twin(values, direction, y, w, classes, min_leaf):
    """Every step between two crossing points, and past the last: the least cost."""
    crossing = np.sort(np.unique(-values[direction != 0] / direction[direction != 0]))
    steps = list((crossing[:-1] + crossing[1:]) / 2) + [crossing[-1] + 1.0, crossing[0] - 1.0]
    best = cost_twin(values, y, w, classes)
    for s in steps:
        moved = values + s * direction
        left, right = w[moved <= 0].sum(), w[moved > 0].sum()
        if left >= min_leaf and right >= min_leaf:
            best = min(best, cost_twin(moved, y, w, classes))
    return best


@pytest.mark.parametrize("seed", range(8))
def test_line_search_is_the_best_step_along_the_line(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 30))
    values = rng.normal(size=n).round(1)
    direction = rng.normal(size=n).round(1)
    direction[rng.random(n) < 0.2] = 0.0
    y = rng.integers(0, 3, size=n).astype(np.int32)
    w = rng.integers(1, 3, size=n).astype(float)
    cost, step = line_search(
        values, direction, y, np.zeros(n), w, GINI, False, 2.0, np.zeros((2, 3))
    )
    assert cost == pytest.approx(line_twin(values, direction, y, w, 3, 2.0), abs=1e-9)
    moved = values + step * direction
    assert cost == pytest.approx(cost_twin(moved, y, w, 3), abs=1e-9)
    assert split_cost(moved, y, np.zeros(n), w, 3, GINI, False, np.zeros((2, 3))) == (
        pytest.approx(cost)
    )


def test_oc1_finds_a_diagonal_boundary():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(400, 3))
    y = (z[:, 0] + z[:, 1] > 0.3).astype(np.int32)  # a diagonal line; z[:, 2] is noise
    w = np.ones(400)
    # Start from the best axis-parallel split of z[:, 0].
    best = min((cost_twin(z[:, 0] - t, y, w, 2), t) for t in np.unique(z[:, 0]))
    coef = np.array([1.0, 0.0, 0.0, -best[1]])
    cost = oc1_search(z, y, np.zeros(400), w, coef, GINI, False, 2, 1.0, 5, 7)
    assert best[0] > 40  # the axis-parallel split leaves a mixed region
    assert cost == pytest.approx(0.0, abs=1e-9)
    values = z @ coef[:3] + coef[3]
    assert cost_twin(values, y, w, 2) == pytest.approx(0.0, abs=1e-9)
    # The direction found is the diagonal's, up to scale.
    assert abs(coef[0] / coef[1] - 1.0) < 0.2 and abs(coef[2] / coef[0]) < 0.2


def test_oc1_is_seeded():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(200, 4))
    y = (z @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(scale=0.5, size=200) > 0).astype(np.int32)
    runs = []
    for _ in range(2):
        coef = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
        cost = oc1_search(z, y, np.zeros(200), np.ones(200), coef, GINI, False, 2, 1.0, 5, 11)
        runs.append((cost, coef.copy()))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
