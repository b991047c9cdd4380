"""The Newton learner (``grow/newton.py``): the tree the compiled grower grows with a
regression tree's statistics and the booster's rules, from exact integer sums; the same
tree on any number of threads; kernels against NumPy twins; scores added by the leaves'
rows equal to scores routed on the codes."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import assert_same_tree
from quercus._config import NOMINAL
from quercus.binning.binned import bin_frame
from quercus.data.encode import infer_schema
from quercus.estimators.spec import DataFacts, growth_spec
from quercus.grow import newton
from quercus.grow._gradient_rows import (
    UNIT_CEILING,
    add_columns,
    add_rows,
    add_rows_grouped,
    partition_rows,
    row_units,
    scan_rows,
)
from quercus.grow.newton import NewtonSetup, unit_for
from quercus.grow.rows import LocalRows, TreePlan
from quercus.splitting._newton_scan import NewtonRules, best_split


def mixed_rows(n: int, seed: int, nominal_levels: int = 5):
    """Numeric columns (one with missing values, one of few values), a nominal one with
    missing values, a continuous target and positive weights (a booster's hessians)."""
    rng = np.random.default_rng(seed)
    levels = [f"c{i}" for i in range(nominal_levels)]
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": np.round(rng.uniform(0, 10, n), 0),
            "colour": pd.Series(rng.choice(levels, n)).astype(object),
            "d": rng.normal(size=n),
        }
    )
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "colour"] = np.nan
    effect = dict(zip(levels, rng.normal(size=nominal_levels), strict=True))
    y = (
        X["a"].fillna(-1.0)
        + (X["b"] > 4)
        + X["colour"].map(effect).fillna(0.5).to_numpy()
        + rng.normal(scale=0.3, size=n)
    ).to_numpy()
    w = rng.uniform(0.05, 0.25, n)  # hessians of a log-loss lie in (0, 1/4]
    return X, y, w


def rows_and_spec(X, y, w, **params):
    typed, schema = infer_schema(X, nominal=["colour"])
    data = bin_frame(typed, schema, 16)
    rows = LocalRows(data, np.zeros(len(y), np.int32), y, w, True)
    tree_params = {
        "criterion": "squared_error",
        "nominal_split": "binary",
        "max_depth": None,
        "min_samples_split": 2,
        "min_samples_leaf": 1,
        "min_impurity_decrease": 0.0,
        "max_leaf_nodes": 12,
        "max_features": None,
        "missing": "learned",
        **params,
    }
    facts = DataFacts.of(rows.tables, rows.total_weight, 3)
    spec = growth_spec(tree_params, True, facts, seed=0).with_params(min_leaf=0.3, min_split=0.6)
    return rows, spec


def newton_setup(spec) -> NewtonSetup:
    p = spec.params
    return NewtonSetup(
        max_leaf_nodes=p.max_leaf_nodes,
        max_depth=p.max_depth,
        min_child_weight=p.min_leaf,
        min_rows=1,
        l2=p.l2,
        l1=p.l1,
        missing=p.missing,
        max_features=p.max_features,
        seed=0,
    )


def sorted_nodes(tree) -> list:
    """Each node's depth, feature, threshold, missing branch and rows, sorted."""
    return sorted(
        zip(
            tree.depth.tolist(),
            tree.feature.tolist(),
            np.nan_to_num(tree.threshold, nan=-1.0).round(9).tolist(),
            tree.missing_child.tolist(),
            tree.n_node_samples.tolist(),
            strict=True,
        )
    )


CASES = {
    "learned missing": {},
    "majority missing": {"missing": "majority"},
    "depth limit": {"max_depth": 3, "max_leaf_nodes": 20},
    "features drawn per node": {"max_features": 2},
    "no leaf limit": {"max_leaf_nodes": None, "max_depth": 4},
}


@pytest.mark.parametrize("regularised", [False, True])
@pytest.mark.parametrize("case", list(CASES))
def test_grows_the_compiled_growers_tree(case, regularised):
    """The compiled grower, told the same rules with a regression tree's float sums, grows
    the very tree: splits, thresholds, category tables, missing branches, rows, and
    statistics equal to rounding."""
    X, y, w = mixed_rows(3000, seed=4)
    rows, spec = rows_and_spec(X, y, w, **CASES[case])
    if regularised:
        spec = spec.with_params(l2=0.5, l1=0.05)
    plan = TreePlan(0, 12345)
    compiled = next(rows.grow(spec, [plan]))
    learned = next(rows.grow(replace(spec, newton=newton_setup(spec)), [plan]))
    assert learned.node_count > 7
    if CASES[case].get("max_leaf_nodes", 12) is None:
        # The compiled grower numbers the nodes depth first there: compare the nodes.
        assert sorted_nodes(learned) == sorted_nodes(compiled)
        return
    assert_same_tree(learned, compiled, close=("value", "impurity", "weighted_n_node_samples"),
                     rtol=1e-9, atol=1e-12)  # fmt: skip


def test_same_tree_on_any_number_of_threads(monkeypatch):
    """Leaves summed and partitioned in runs on two threads give the very tree (integer
    sums add up alike in any grouping)."""
    X, y, w = mixed_rows(4000, seed=5)
    rows, spec = rows_and_spec(X, y, w)
    spec = replace(spec, newton=newton_setup(spec))
    monkeypatch.setattr(newton, "THREADED_ROWS", 50)
    one = next(rows.grow(spec, [TreePlan(0, 7)]))
    one_rows = list(rows.leaf_runs[0].by_leaf())
    rows.n_threads = 2
    two = next(rows.grow(spec, [TreePlan(0, 7)]))
    runs = rows.leaf_runs[0]
    assert len(runs.nodes) > len(np.unique(runs.nodes))  # leaves in runs of both regions
    assert_same_tree(one, two)  # statistics too: the sums of squares in the same order
    two_rows = list(rows.leaf_runs[0].by_leaf())
    assert [node for node, _ in one_rows] == [node for node, _ in two_rows]
    for (_, a), (_, b) in zip(one_rows, two_rows, strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.all(np.diff(a) > 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_scores_added_by_leaf_rows_equal_scores_routed_on_codes(threads, monkeypatch):
    """Scores added by the leaves' rows (on two threads: each a stretch of the rows, the
    trees grown on two regions) equal scores routed on the codes."""
    monkeypatch.setattr(quercus.grow.rows, "THREADED_SCORES", 100)
    monkeypatch.setattr(newton, "THREADED_ROWS", 50)
    X, y, w = mixed_rows(2000, seed=6)
    rows, spec = rows_and_spec(X, y, w)
    rows.n_threads = threads
    spec = replace(spec, newton=newton_setup(spec))
    trees = quercus.tree.stack.stack_trees(list(rows.grow(spec, [TreePlan(0, 3), TreePlan(1, 4)])))
    values = np.zeros((trees.merged.node_count, 2))
    values[:, 0] = np.random.default_rng(0).normal(size=len(values))
    values[:, 1] = np.random.default_rng(1).normal(size=len(values))
    rows.start_scores([0.5, -0.5])
    rows.add_scores(trees, values)  # by the leaves' rows
    by_runs = rows.scores.copy()
    rows.start_scores([0.5, -0.5])
    rows.leaf_runs = {}
    rows.add_scores(trees, values)  # routed on the codes
    np.testing.assert_array_equal(by_runs, rows.scores)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_histograms_equal_their_numpy_twin(dtype):
    """Every feature's bins (the missing code at the last one) sum the rows' units and
    count them, for rows in any order."""
    rng = np.random.default_rng(0)
    n, p, n_bins = 500, 3, 9
    missing = np.iinfo(dtype).max
    codes = rng.integers(0, n_bins, (n, 8)).astype(dtype)
    codes[rng.random((n, 8)) < 0.1] = missing
    units = rng.integers(-(2**40), 2**40, (n, 2))
    rows = rng.permutation(n)[:300].astype(np.int64)
    out = np.zeros((p, n_bins + 1, 3), dtype=np.int64)
    add_rows(codes, rows, 50, 280, units, p, out)
    expected = np.zeros_like(out)
    for f in range(p):
        c = np.minimum(codes[rows[50:280], f].astype(np.int64), n_bins)
        np.add.at(expected[f, :, 0], c, units[rows[50:280], 0])
        np.add.at(expected[f, :, 1], c, units[rows[50:280], 1])
        np.add.at(expected[f, :, 2], c, 1)
    np.testing.assert_array_equal(out, expected)


def test_column_histograms_equal_their_numpy_twin():
    """The root's kernel (every row between two bounds, feature by feature in groups of
    four, here 7 features: a group and three alone) sums as NumPy does, the missing code
    (255) in the last of 256 bins."""
    rng = np.random.default_rng(4)
    n, p = 700, 7
    codes = rng.integers(0, 40, (n, 8)).astype(np.uint8)
    codes[rng.random((n, 8)) < 0.1] = 255
    columns = np.ascontiguousarray(codes[:, :p].T)
    units = rng.integers(-(2**40), 2**40, (n, 2))
    out = np.zeros((p, 256, 3), dtype=np.int64)
    add_columns(columns, 30, 650, units, p, out)
    expected = np.zeros_like(out)
    for f in range(p):
        c = codes[30:650, f].astype(np.int64)
        np.add.at(expected[f, :, 0], c, units[30:650, 0])
        np.add.at(expected[f, :, 1], c, units[30:650, 1])
        np.add.at(expected[f, :, 2], c, 1)
    np.testing.assert_array_equal(out, expected)
    # Rows of a leaf gathered in blocks (of 1,024 rows, and the last one), summed four
    # features at a time: as the plain kernel sums them.
    rows = np.sort(rng.choice(np.arange(n).repeat(4), 2500, replace=False) % n)
    out = np.zeros((p, 256, 3), dtype=np.int64)
    add_rows_grouped(codes, rows, 100, 2400, units, p, out)
    expected = np.zeros_like(out)
    add_rows(codes, rows, 100, 2400, units, p, expected)
    np.testing.assert_array_equal(out, expected)


def test_partition_is_stable_and_complete():
    rng = np.random.default_rng(1)
    column = rng.integers(0, 6, 1000).astype(np.uint8)
    column[::7] = 255
    goes_left = np.zeros(256, dtype=np.uint8)
    goes_left[[1, 4, 255]] = 1
    rows = np.sort(rng.choice(1000, 400, replace=False)).astype(np.int64)
    before = rows.copy()
    n_left = partition_rows(column, rows, 100, 350, goes_left, np.empty(250, np.int64))
    run = before[100:350]
    left = goes_left[column[run]] == 1
    np.testing.assert_array_equal(rows[100:350], np.concatenate([run[left], run[~left]]))
    assert n_left == left.sum()
    np.testing.assert_array_equal(rows[:100], before[:100])
    np.testing.assert_array_equal(rows[350:], before[350:])


def test_whole_units_never_overflow_and_round_by_half_a_unit():
    """Values of any size on the grid of ``unit_for``: their sum stays within int64 (below
    2**62 in magnitude) and each is off by at most half a unit."""
    rng = np.random.default_rng(2)
    values = rng.normal(size=10_000) * 10.0 ** rng.integers(-300, 300, 10_000)
    values[0] = np.finfo(np.float64).max / 2
    unit = unit_for(np.abs(values).max(), len(values))
    units = np.empty((len(values), 2), dtype=np.int64)
    rows = np.arange(len(values))
    row_units(values, np.ones(len(values)), rows, 0, len(rows), unit, 1.0, units)  # R = value
    assert np.abs(units[:, 0]).astype(float).sum() < UNIT_CEILING
    assert np.all(np.abs(units[:, 0] * unit - values) <= unit / 2)
    assert unit_for(0.0, 3) == 1.0


def test_row_units_equal_their_numpy_twin():
    """The learner's set-up in one pass each: the rows of positive weight and the largest
    ``|w y|`` and ``w`` (``scan_rows``), then each row's ``R`` and ``H`` in units
    (``row_units``), as NumPy makes them."""
    rng = np.random.default_rng(3)
    target = rng.normal(size=5000) * 10.0 ** rng.integers(-5, 5, 5000)
    weight = rng.uniform(0.0, 2.0, 5000)
    weight[::7] = 0.0
    rows = np.full(5000, -1, dtype=np.int64)
    n, top_r, top_h = scan_rows(target, weight, 1000, 4000, rows)  # a region of the rows
    kept = 1000 + np.flatnonzero(weight[1000:4000] > 0)
    np.testing.assert_array_equal(rows[1000 : 1000 + n], kept)
    assert np.all(rows[:1000] == -1) and np.all(rows[1000 + n :] == -1)
    assert (top_r, top_h) == (np.abs(weight * target)[kept].max(), weight[kept].max())
    units = np.zeros((5000, 2), dtype=np.int64)
    row_units(target, weight, rows, 1000, 1000 + n, 1e-6, 1e-9, units)
    np.testing.assert_array_equal(units[kept, 0], np.rint(weight * target / 1e-6)[kept])
    np.testing.assert_array_equal(units[kept, 1], np.rint(weight / 1e-9)[kept])
    assert not units[np.setdiff1d(np.arange(5000), kept)].any()  # no other row touched


def test_a_split_needs_min_rows_on_each_side():
    """``min_rows``: no cut leaves fewer rows on a side (here only the middle cut may)."""
    hist = np.zeros((1, 5, 3), dtype=np.int64)
    # Four bins of 1, 5, 5, 1 rows; the targets say split after the first bin.
    hist[0, :4, 0] = [100, -10, -10, -100]
    hist[0, :4, 1] = [1, 5, 5, 1]
    hist[0, :4, 2] = [1, 5, 5, 1]
    totals = hist[0].sum(axis=0)
    kinds = np.zeros(1, dtype=np.int64)
    n_bins = np.array([4])
    features = np.zeros(1, dtype=np.int64)
    goes_left = np.empty(5, dtype=np.bool_)
    for min_rows, left_rows in [(1, 1), (2, 6)]:
        rules = NewtonRules(0.0, 0.0, 0.0, min_rows, True, 1.0, 1.0)
        feature, gain, _, left = best_split(
            hist, totals, kinds, n_bins, features, 1, rules, goes_left, kinds, -np.inf, np.inf
        )
        assert feature == 0 and gain > 0 and left[2] == left_rows


def nominal_split(hist_f, smoothing, min_rows, cap):
    """NumPy twin of a nominal feature's regularised scan (no missing values, l2 = l1 = 0,
    one row a side): the categories of at least ``min_rows`` rows sorted by ``R / (H +
    smoothing)`` (stable), every prefix whose smaller side holds at most ``cap`` of them
    (None: any) the left side, the rest (the unsorted categories too) the right; the best
    ``(score, left categories)``, the first of equal scores."""
    present = np.flatnonzero(hist_f[:, 2] > 0)
    scanned = present[hist_f[present, 2] >= min_rows]
    keys = hist_f[scanned, 0] / (hist_f[scanned, 1] + smoothing)
    order = scanned[np.argsort(keys, kind="stable")]
    total = hist_f.sum(axis=0)
    best = (-np.inf, None)
    for i in range(len(order) - 1):
        if cap is not None and min(i + 1, len(order) - 1 - i) > cap:
            continue
        left = hist_f[order[: i + 1]].sum(axis=0)
        right = total - left
        score = left[0] ** 2 / left[1] + right[0] ** 2 / right[1]
        if score > best[0] * (1 + 1e-12) + 1e-12:
            best = (score, set(order[: i + 1].tolist()))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_nominal_splits_regularised_as_their_numpy_twin(seed):
    """The scan of a nominal feature: without regularisation, Fisher's order finds the best
    of all two-subset partitions (checked against every one of them); with smoothing, a
    least number of rows a category and a cap on the smaller side, it finds what its
    NumPy twin finds, and the left-out categories go right."""
    rng = np.random.default_rng(seed)
    n_categories = 9
    hist = np.zeros((1, n_categories + 1, 3), dtype=np.int64)
    rows = rng.integers(1, 40, n_categories)
    rows[rng.random(n_categories) < 0.2] = 0  # categories absent from the node
    hist[0, :n_categories, 2] = rows
    hist[0, :n_categories, 1] = rows * rng.integers(1, 4, n_categories)
    hist[0, :n_categories, 0] = rng.integers(-30, 30, n_categories) * rows
    totals = hist[0].sum(axis=0)
    kinds = np.array([NOMINAL], dtype=np.int64)
    n_bins = np.array([n_categories])
    features = np.zeros(1, dtype=np.int64)
    goes_left = np.empty(n_categories + 1, dtype=np.bool_)
    present = np.flatnonzero(rows > 0)
    no_constraint = np.zeros(1, dtype=np.int64)

    def kernel(smoothing, min_rows, cap):
        rules = NewtonRules(0.0, 0.0, 0.0, 1, True, 1.0, 1.0, smoothing, min_rows, cap)
        feature, gain, _, left = best_split(
            hist, totals, kinds, n_bins, features, 1, rules, goes_left, no_constraint,
            -np.inf, np.inf,
        )  # fmt: skip
        parent = totals[0] ** 2 / totals[1]
        sides = set(present[goes_left[present]].tolist())
        return feature, gain + parent, sides, left

    feature, score, sides, _ = kernel(0.0, 0, -1)
    every = max(
        sum(hist[0, present[np.array(pick, bool)], 0]) ** 2
        / max(sum(hist[0, present[np.array(pick, bool)], 1]), 1)
        + sum(hist[0, present[~np.array(pick, bool)], 0]) ** 2
        / max(sum(hist[0, present[~np.array(pick, bool)], 1]), 1)
        for pick in itertools.product([0, 1], repeat=len(present))
        if 0 < sum(pick) < len(present)
    )
    assert feature == 0 and score == pytest.approx(every, rel=1e-12)
    for smoothing, min_rows, cap in [(10.0, 0, None), (0.0, 15, None), (5.0, 10, 2), (0, 0, 1)]:
        twin_score, twin_left = nominal_split(hist[0, :n_categories], smoothing, min_rows, cap)
        feature, score, sides, left = kernel(smoothing, min_rows, -1 if cap is None else cap)
        if twin_left is None:
            assert feature == -1
            continue
        assert feature == 0 and score == pytest.approx(twin_score, rel=1e-12)
        assert sides == twin_left and left[2] == rows[sorted(twin_left)].sum()
        if min_rows:  # the categories of too few rows go right
            assert not goes_left[present[rows[present] < min_rows]].any()
