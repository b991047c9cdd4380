"""Training rows in this process (``grow/rows.LocalRows``) and routing on bin codes
(``grow/bin_routing``): scores added on codes equal the trees' outputs on the raw values,
working targets grow the tree a regression tree grows on them, reductions sum every row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import assert_same_tree
from quercus.binning.binned import bin_frame
from quercus.estimators.params import shallow_params
from quercus.estimators.spec import DataFacts, growth_spec, tree_seed
from quercus.estimators.validate import routing_matrix, typed_rows
from quercus.grow.bin_routing import in_bin_space
from quercus.grow.rows import LocalRows, TreePlan
from quercus.tree._stack_predict import block_rows, forest_sum


def mixed(n: int, seed: int):
    """Numeric columns (one with missing values), a nominal one with missing values, and a
    class that depends on all three."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": np.round(rng.uniform(0, 10, n), 1),
            "colour": pd.Series(rng.choice(["red", "green", "blue", "grey"], n)).astype(object),
        }
    )
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "colour"] = np.nan
    signal = X["a"].fillna(0) + (X["b"] > 4) + 2 * (X["colour"] == "red")
    y = np.where(signal + rng.normal(scale=0.5, size=n) > 1.2, "yes", "no")
    return X, y


def raw_outputs(forest, X, values, initial) -> np.ndarray:
    """``initial`` plus, tree after tree, ``values`` of the leaf each row reaches, routing
    the rows' raw values."""
    matrix = routing_matrix(forest, typed_rows(forest, X))
    out = np.tile(np.asarray(initial, dtype=np.float64), (len(matrix), 1))
    tables = forest.trees_.routing_tables()
    forest_sum(matrix, *tables, values, out, block_rows(len(matrix)))
    return out


def local_rows(forest, X, y_value=None, max_bins="auto"):
    typed = typed_rows(forest, X)
    data = bin_frame(typed, forest.schema_, max_bins)
    y_value = np.zeros(len(X)) if y_value is None else y_value
    return LocalRows(data, np.zeros(len(X), dtype=np.int32), y_value, np.ones(len(X)), False)


@pytest.mark.parametrize("max_bins", ["auto", 8])
def test_scores_on_bin_codes_equal_the_outputs_on_raw_values(max_bins):
    """Exact bins, and quantile bins (8 a feature) for the rows the trees were grown on:
    every row reaches the leaf its raw values reach, in every tree."""
    X, y = mixed(3000, seed=1)
    forest = quercus.RandomForestClassifier(
        12, bootstrap=False, max_features=2, max_bins=max_bins, random_state=0
    ).fit(X, y)
    rows = local_rows(forest, X, max_bins=max_bins)
    values = forest.trees_.merged.leaf_values()
    rows.start_scores([0.25, -0.5])
    rows.add_scores(forest.trees_, values)
    expected = raw_outputs(forest, X, values, [0.25, -0.5])
    np.testing.assert_array_equal(rows.scores, expected)


def test_only_numeric_thresholds_move_to_bin_space():
    X, y = mixed(500, seed=2)
    forest = quercus.RandomForestClassifier(5, random_state=0).fit(X, y)
    data = bin_frame(typed_rows(forest, X), forest.schema_, "auto")
    moved = in_bin_space(forest.trees_, data).merged
    merged = forest.trees_.merged
    numeric = (merged.feature >= 0) & np.isin(merged.feature, [0, 1]) & (merged.kind == 1)
    assert numeric.any() and (merged.feature == 2).any()
    assert np.array_equal(moved.threshold[~numeric], merged.threshold[~numeric], equal_nan=True)
    cuts = moved.threshold[numeric] + 0.5
    assert np.array_equal(cuts, np.round(cuts))  # whole codes


def test_working_targets_grow_the_regression_tree_of_those_targets():
    """After ``retarget``, a tree grows on the working targets and weights: the tree a
    regression tree grows on them (same bins, same parameters)."""
    X, y = mixed(2000, seed=3)
    forest = quercus.RandomForestClassifier(3, random_state=0).fit(X, y)
    rows = local_rows(forest, X)
    rows.start_scores([0.0])
    rows.add_scores(forest.trees_, forest.trees_.merged.leaf_values()[:, :1])
    positive = (np.asarray(y) == "yes").astype(float)

    def newton(y_class, y_value, w, scores):
        p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
        return (positive - p) / (p * (1 - p)), w * p * (1 - p)

    rows.retarget(newton)
    target, weight = newton(None, None, np.ones(len(X)), rows.scores)
    regressor = quercus.DecisionTreeRegressor(max_depth=4, random_state=5, n_jobs=1)
    regressor.fit(X, target, sample_weight=weight)
    facts = DataFacts(3, float(weight.sum()), 3, int(rows.tables.mapper.n_bins.max()))
    seed = tree_seed(5)  # the regressor's
    spec = growth_spec(shallow_params(regressor), True, facts, seed)
    (tree,) = rows.grow(spec, [TreePlan(0, seed)])
    assert tree.node_count > 7
    assert_same_tree(tree, regressor.tree_)


def test_reduce_sums_every_row():
    X, y = mixed(700, seed=4)
    forest = quercus.RandomForestClassifier(2, random_state=0).fit(X, y)
    rows = local_rows(forest, X, y_value=np.arange(700.0))
    rows.start_scores([1.0, 2.0])
    total = rows.reduce(lambda y_class, y_value, w, scores: (y_value * w).sum() + scores.sum())
    assert total == np.arange(700.0).sum() + 700 * 3.0


def test_grouped_rows_take_no_scores():
    X, y = mixed(200, seed=5)
    X, y = pd.concat([X, X]), np.concatenate([y, y])  # every row twice: grouped
    forest = quercus.RandomForestClassifier(2, random_state=0).fit(X, y)
    data = bin_frame(typed_rows(forest, X), forest.schema_, "auto")
    rows = LocalRows(
        data, np.zeros(400, dtype=np.int32), np.zeros(400), np.ones(400), False,
        group_equal_rows=True,
    )  # fmt: skip
    with pytest.raises(ValueError, match="one by one"):
        rows.start_scores([0.0])
