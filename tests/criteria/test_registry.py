"""Every registered criterion through both its kernel and its twin, on random statistics.

The registry (:mod:`quercus.criteria.registry`) pairs each criterion's code, which the
compiled kernels dispatch on, with its plain NumPy twin, which the teaching functions use.
These tests run every record through both and assert that they agree, so a criterion added
to the registry is checked here without a new test: node impurities of random class counts
(zeros included) and regression moments, the exact gain of binary and multiway splits, and
the per-cut score the threshold scan ranks cuts by (which may differ from the gain only by a
term equal for every cut of a node). Absolute error, whose statistics are the rows
themselves, goes through its row-ranking kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

import quercus
from quercus.criteria import registry, twins
from quercus.criteria._impurity import (
    binary_gain,
    cut_score,
    impurity,
    impurity_decrease,
    pair_score,
    stats_weight,
)
from quercus.estimators.params import InvalidParameterError, check_params
from quercus.splitting._absolute import (
    AbsoluteScratch,
    absolute_split,
    node_ranks,
    weighted_median,
)
from quercus.splitting._rules import SplitRules
from quercus.splitting._scan import scan_multiway

CASES = 150  # random nodes per criterion
RTOL = 1e-10


def close(kernel, twin, scale=1.0):
    """Equal up to float noise relative to the numbers' size."""
    return abs(kernel - twin) <= RTOL * max(1.0, abs(twin), scale)


# ---------------------------------------------------------------------------------------------
# Random statistics of the branches of a split


def random_class_counts(rng, n_branches):
    """Class weights of ``n_branches`` sets: zeros, integers and fractions mixed, some
    classes absent from the whole node."""
    n_classes = int(rng.integers(1, 6))
    kind = rng.integers(3)
    if kind == 0:
        counts = rng.integers(0, 9, size=(n_branches, n_classes)).astype(float)
    elif kind == 1:
        counts = rng.random((n_branches, n_classes)) * 5.0
    else:
        counts = rng.integers(0, 4, size=(n_branches, n_classes)) * rng.random(n_classes)
    counts[rng.random(counts.shape) < 0.3] = 0.0
    if rng.random() < 0.2:
        counts[:, rng.integers(n_classes)] = 0.0  # a class the node does not have
    return counts


def random_moments(rng, n_branches):
    """``[weight, sum of w*y, sum of w*y^2]`` of ``n_branches`` sets of random rows."""
    out = np.zeros((n_branches, 3))
    for b in range(n_branches):
        n = int(rng.integers(0, 8))
        y = rng.normal(size=n) * 3.0
        if rng.random() < 0.2:
            y = np.round(y)  # ties, and constant sets
        w = rng.integers(1, 4, size=n) * (rng.random(n) if rng.random() < 0.5 else 1.0)
        out[b] = [w.sum(), (w * y).sum(), (w * y * y).sum()]
    return out


def random_branches(rng, criterion, n_branches):
    if criterion.stats == registry.CLASS_COUNTS:
        return random_class_counts(rng, n_branches)
    return random_moments(rng, n_branches)


def nonempty_cut(rng, criterion):
    """Two branches that both have weight (a cut the scans would score)."""
    while True:
        branches = random_branches(rng, criterion, 2)
        if min(criterion.weight(b) for b in branches) > 0:
            return branches


SUMMED = [c for c in registry.REGISTRY if c.stats != registry.ROWS]


# ---------------------------------------------------------------------------------------------
# Kernels against twins


@pytest.mark.parametrize("criterion", SUMMED, ids=lambda c: c.name)
def test_node_impurity(criterion):
    rng = np.random.default_rng(criterion.code)
    regression = criterion.task == registry.REGRESSION
    for _ in range(CASES):
        stats = random_branches(rng, criterion, 3)
        for i in range(3):
            kernel = impurity(stats, i, criterion.code, regression)
            assert close(kernel, criterion.impurity(stats[i])), (criterion.name, stats[i])
            assert stats_weight(stats, i, regression) == pytest.approx(criterion.weight(stats[i]))


@pytest.mark.parametrize("criterion", SUMMED, ids=lambda c: c.name)
def test_binary_gain(criterion):
    rng = np.random.default_rng(100 + criterion.code)
    regression = criterion.task == registry.REGRESSION
    for _ in range(CASES):
        left, right = nonempty_cut(rng, criterion)
        # rows: the parent, then the two sides (the layout of the scan's scratch rows)
        acc = np.vstack([left + right, left, right])
        w = stats_weight(acc, 0, regression)
        wl = stats_weight(acc, 1, regression)
        gain = binary_gain(acc, 0, 1, 2, wl, w - wl, w, criterion.code, regression)
        twin = criterion.split_gain([left, right])
        assert close(gain, twin, abs(criterion.impurity(left + right))), (criterion.name, acc)


@pytest.mark.parametrize("criterion", SUMMED, ids=lambda c: c.name)
def test_cut_scores_rank_cuts_as_the_gain(criterion):
    """The scan's per-cut score is ``w x gain`` plus a term equal for every cut of a node:
    of one node's cuts, the score and the twin's gain differ by the same amount."""
    rng = np.random.default_rng(200 + criterion.code)
    regression = criterion.task == registry.REGRESSION
    for _ in range(CASES):
        n_bins = int(rng.integers(2, 7))
        bins = random_branches(rng, criterion, n_bins)
        prefix = np.cumsum(bins, axis=0)
        total = prefix[-1:].copy()
        w = stats_weight(total, 0, regression)
        offsets = []
        for i in range(n_bins - 1):
            left, right = prefix[i], total[0] - prefix[i]
            wl = stats_weight(prefix, i, regression)
            wr = w - wl
            if min(criterion.weight(left), criterion.weight(right)) <= 0 or wl <= 0 or wr <= 0:
                continue
            score = cut_score(prefix, i, total, wl, wr, criterion.code, regression)
            sides = np.vstack([left, right])
            assert score == pytest.approx(
                pair_score(sides, 0, 1, wl, wr, criterion.code, regression), rel=1e-12, abs=1e-9
            )
            offsets.append(score - w * criterion.split_gain([left, right]))
        scale = max(1.0, w, abs(float(bins.sum())))
        if offsets:
            assert max(offsets) - min(offsets) <= 1e-9 * scale, (criterion.name, bins, offsets)


@pytest.mark.parametrize("criterion", [c for c in SUMMED if c.multiway], ids=lambda c: c.name)
def test_multiway_gain(criterion):
    rng = np.random.default_rng(300 + criterion.code)
    regression = criterion.task == registry.REGRESSION
    for _ in range(CASES):
        n_branches = int(rng.integers(2, 6))
        stats = random_branches(rng, criterion, n_branches)
        present = np.arange(n_branches, dtype=np.int64)
        missing = np.zeros((1, stats.shape[1]))
        rules = SplitRules(criterion.code, regression, 0.0)  # no missing rows here
        gain, ok, _, _ = scan_multiway(present, stats, n_branches, missing, rules)
        if sum(criterion.weight(b) > 0 for b in stats) < 2:
            assert ok == -1
            continue
        twin = criterion.split_gain(list(stats))
        assert ok == 1
        assert close(gain, twin, abs(criterion.impurity(stats.sum(axis=0)))), criterion.name
        # the gain from the weighted branch impurities, as the scans compute it
        parent = stats.sum(axis=0, keepdims=True)
        after = sum(
            stats_weight(stats, i, regression) * impurity(stats, i, criterion.code, regression)
            for i in range(n_branches)
        )
        w = stats_weight(parent, 0, regression)
        decrease = impurity_decrease(parent, 0, after, w, criterion.code, regression)
        assert close(decrease, twin, abs(criterion.impurity(parent[0])))


# ---------------------------------------------------------------------------------------------
# Absolute error: its statistics are the rows, its kernel ranks them


def absolute_kernel(codes, y, w, mode):
    """``absolute_split`` on one node of one feature (``codes``: small ints, no missing)."""
    m = len(y)
    data = codes.astype(np.uint8).reshape(-1, 1)
    rank = np.zeros(m, dtype=np.int64)
    sorted_y = np.zeros(m)
    node_ranks(y, 0, m, rank, sorted_y)
    fenwick = [np.zeros(m + 1) for _ in range(4)]
    n_codes = int(codes.max()) + 1
    scratch = AbsoluteScratch(
        rank,
        sorted_y,
        *fenwick,
        rows=np.zeros(m, dtype=np.int64),
        codes=np.zeros(m, dtype=np.uint8),
        group_start=np.zeros(m + 1, dtype=np.int64),
        medians=np.zeros(n_codes),
    )
    present = np.zeros(n_codes, dtype=np.int64)
    return absolute_split(data, y, w, 0, m, 0, 255, mode, 0.0, present, scratch)


def test_absolute_error_kernel_and_twin():
    criterion = registry.get("absolute_error")
    assert criterion.code == registry.ABSOLUTE_ERROR and criterion.stats == registry.ROWS
    rng = np.random.default_rng(400)
    for _ in range(CASES):
        m = int(rng.integers(2, 14))
        codes = rng.integers(0, 4, size=m)
        y = np.round(rng.normal(size=m) * 3.0, int(rng.integers(0, 3)))
        w = rng.integers(1, 4, size=m).astype(float)
        groups = [np.column_stack([y[codes == c], w[codes == c]]) for c in np.unique(codes)]
        if len(groups) < 2:
            continue
        # multiway: one branch per code
        gain, ok, _, _, _ = absolute_kernel(codes, y, w, 1)
        assert ok == 1
        assert close(gain, criterion.split_gain(groups)), (codes, y, w)
        # threshold: the best prefix of the codes
        gain, cut, _, _, _ = absolute_kernel(codes, y, w, 0)
        cuts = [
            criterion.split_gain([np.vstack(groups[: i + 1]), np.vstack(groups[i + 1 :])])
            for i in range(len(groups) - 1)
        ]
        assert close(gain, max(cuts)), (codes, y, w, cuts)
        assert cuts[cut] >= max(cuts) - 1e-9


def test_weighted_median_kernel_and_twin_are_sklearns_leaf_value():
    # scikit-learn's absolute-error leaf value (the root of a tree that cannot split): the
    # midpoint of the two middle values where the cumulative weight meets half exactly.
    from sklearn.tree import DecisionTreeRegressor as SkTree

    rng = np.random.default_rng(401)
    midpoints = 0
    for case in range(CASES):
        m = int(rng.integers(1, 12))
        y = rng.integers(-4, 5, size=m).astype(float) / 4.0
        w = rng.integers(0, 4, size=m).astype(float)
        if case % 3 == 0:
            w /= 8.0  # fractions whose sums are exact, as scikit-learn's comparison needs
        if w.sum() == 0:
            w[0] = 1.0
        leaf = SkTree(criterion="absolute_error").fit(np.zeros((m, 1)), y, sample_weight=w)
        expected = leaf.tree_.value[0, 0, 0]
        assert weighted_median(y, w) == pytest.approx(expected, abs=1e-12), (y, w)
        assert twins.weighted_median(y, w) == pytest.approx(expected, abs=1e-12), (y, w)
        midpoints += expected not in y
        # Shares of the rows (as boosting passes them) give the median of equal weights,
        # though their sum misses half by rounding (where scikit-learn's may not).
        shares = np.full(m, 1.0 / m)
        unit = SkTree(criterion="absolute_error").fit(np.zeros((m, 1)), y).tree_.value[0, 0, 0]
        assert weighted_median(y, shares) == pytest.approx(unit, abs=1e-12), y
        assert twins.weighted_median(y, shares) == pytest.approx(unit, abs=1e-12), y
    assert midpoints > 10
    assert weighted_median(np.array([1.2, 1.0, 1.3, 1.1]), np.ones(4)) == pytest.approx(1.15)
    # Two huge middle values: their midpoint, without the overflow of their sum.
    huge = np.array([1e308, np.finfo(np.float64).max])
    for median in (weighted_median, twins.weighted_median):
        assert median(huge, np.ones(2)) == 0.5 * huge[0] + 0.5 * huge[1] < np.inf


# ---------------------------------------------------------------------------------------------
# The registry is what the package reads


def test_codes_and_names_are_defined_once():
    codes = [c.code for c in registry.REGISTRY]
    assert len(set(codes)) == len(codes)
    all_names = [n for c in registry.REGISTRY for n in c.names]
    assert len(set(all_names)) == len(all_names)
    assert registry.CRITERIA == {n: c.code for c in registry.REGISTRY for n in c.names}
    assert registry.get("information_gain") is registry.get("entropy")
    for c in registry.REGISTRY:
        assert registry.get(c.code) is c and registry.get(c.name) is c
        assert c.task in (registry.CLASSIFICATION, registry.REGRESSION)


@pytest.mark.parametrize(
    "estimator_class", [quercus.DecisionTreeClassifier, quercus.DecisionTreeRegressor]
)
def test_estimators_accept_exactly_the_registered_names(estimator_class):
    task = registry.REGRESSION if estimator_class.regression else registry.CLASSIFICATION
    for c in registry.REGISTRY:
        for name in c.names:
            estimator = estimator_class(criterion=name)
            if c.task == task:
                check_params(estimator)
            else:
                with pytest.raises(InvalidParameterError, match="criterion must be one of"):
                    check_params(estimator)
    with pytest.raises(InvalidParameterError, match="criterion must be one of"):
        check_params(estimator_class(criterion="chi_square"))  # a name no record has


def test_teaching_functions_are_the_twins():
    counts = [9, 5, 0]
    assert quercus.entropy(counts, counts=True) == registry.get("entropy").impurity(counts)
    assert quercus.gini(counts, counts=True) == registry.get("gini").impurity(counts)
    assert quercus.misclassification_error(counts, counts=True) == registry.get(
        "misclassification"
    ).impurity(counts)
    # the gain of a split: the twin's, scaled by the known share (C4.5)
    x = ["a", "a", "b", "b", "b", None]
    y = [0, 1, 1, 1, 0, 1]
    by_hand = registry.get("entropy").split_gain([[1, 1], [1, 2]]) * 5 / 6
    assert quercus.information_gain(x, y) == pytest.approx(by_hand, abs=1e-15)
