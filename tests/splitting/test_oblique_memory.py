"""The memory of oblique splits (``split="oblique"``) stays a small multiple of the data's.

Measured with tracemalloc, which counts NumPy's arrays (not timing: the machine is shared).
40,000 x 100 numeric rows (31 MiB) once failed with a MemoryError at 7.9 GB: about 250
times the data. A node's search copies the node's rows once, standardised in place; a whole
fit holds the data, its bins and the histograms of one batch of nodes at a time.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import quercus
from quercus.criteria import registry
from quercus.splitting.oblique import ObliqueProblem, find_oblique_split

#: A node's search may hold this many times the node's numeric rows (float64) at once: its
#: standardised copy, and the deviations that NumPy's standard deviation makes.
SEARCH_MULTIPLE = 2.5
#: A whole oblique fit may hold this many times its data (float64): the routing matrix and
#: the provider's copy of a node's rows (1 each), the search's copy and its deviations (2),
#: the bins' tables with exact bins (5: edges, lowest and highest values, as many as the
#: rows), one node's histograms (3 to 4 here) and the level's search records (10 to 12 in
#: all on this data).
FIT_MULTIPLE = 16.0


def diagonal_rows(n: int, p: int, seed: int = 0):
    """``n`` rows of ``p`` normal features (all distinct: one bin a row), classed by the
    diagonal ``x0 + x1`` with noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def peak_bytes(run) -> int:
    """The most bytes NumPy (and Python) held at once during ``run()``, beyond those held
    before."""
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base


def test_a_node_search_copies_its_rows_once():
    X, y = diagonal_rows(20_000, 40)
    y_class = y.astype(np.int32)
    problem = ObliqueProblem(registry.CRITERIA["gini"], False, 2, 1.0)
    features = np.arange(X.shape[1])

    def search():
        return find_oblique_split(
            X, y_class, y.astype(float), np.ones(len(y)), features, (0, 0.0), problem, 7
        )

    assert search() is not None  # compiled, and the diagonal found
    # It was 3.1 times: the rows copied, then copied again to standardise and to lay them
    # out in C order.
    assert peak_bytes(search) <= SEARCH_MULTIPLE * X.nbytes


@pytest.mark.parametrize("regression", [False, True])
def test_an_oblique_fit_holds_a_small_multiple_of_its_data(regression):
    X, y = diagonal_rows(2_000, 30)
    cls = quercus.DecisionTreeRegressor if regression else quercus.DecisionTreeClassifier
    target = X[:, 0] + X[:, 1] if regression else y
    cls(split="oblique", max_depth=2, random_state=0).fit(X[:200], target[:200])  # compiled
    fitted = []

    def fit():
        fitted.append(cls(split="oblique", max_depth=8, random_state=0).fit(X, target))

    peak = peak_bytes(fit)
    # Levels of many nodes, each of which held its histograms over one bin a row (30
    # features x 2,000 bins x its statistics) until the whole level was searched, and the
    # previous level's until the next one's were made: 80 times the data (classes), 700
    # times (regression, 235 leaves).
    assert fitted[0].tree_.max_depth == 8 and fitted[0].tree_.n_leaves >= 40
    assert peak <= FIT_MULTIPLE * X.nbytes, f"peak {peak / X.nbytes:.1f} x the data"
