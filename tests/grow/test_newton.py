"""The Newton learner (``grow/newton.py``): the tree the compiled grower grows with a
regression tree's statistics and the booster's rules, from exact integer sums; the same
tree on any number of threads; kernels against NumPy twins; scores added by the leaves'
rows equal to scores routed on the codes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import assert_same_tree
from quercus.binning.binned import bin_frame
from quercus.data.encode import infer_schema
from quercus.estimators.spec import DataFacts, growth_spec
from quercus.grow import newton
from quercus.grow._gradient_rows import (
    UNIT_CEILING,
    add_rows,
    partition_rows,
    to_units,
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
    rows.n_threads = 2
    two = next(rows.grow(spec, [TreePlan(0, 7)]))
    assert_same_tree(one, two)


def test_scores_added_by_leaf_rows_equal_scores_routed_on_codes():
    X, y, w = mixed_rows(2000, seed=6)
    rows, spec = rows_and_spec(X, y, w)
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
    unit = unit_for(values, len(values))
    units = np.empty(len(values), dtype=np.int64)
    to_units(values, unit, units)
    assert np.abs(units).astype(float).sum() < UNIT_CEILING
    assert np.all(np.abs(units * unit - values) <= unit / 2)
    assert unit_for(np.zeros(3), 3) == 1.0


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
