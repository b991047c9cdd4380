"""The level-wise grower over local statistics grows the compiled grower's tree exactly.

Each case fits an estimator twice on the same data: once with the compiled grower, once with
the growth kernel replaced by the level-wise grower (``grow.levelwise.grow_local``), which
finds splits from histograms a statistics provider sums. Binning, settings, pruning and
everything else are the estimator's own, so the comparison covers what a user would fit:
nominal features (multiway and subset splits), numeric and ordinal thresholds, missing values
under the ``learned``, ``majority`` and ``class_majority`` policies, C4.5's rules for
continuous attributes, the chi-square test and the stopping rules. The trees must be equal
field for field: kinds, features, thresholds, children, category tables, missing children,
statistics, impurities, weights and depths.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import quercus
from _helpers import assert_same_tree
from quercus._config import FRACTIONAL, LEARNED
from quercus.criteria.registry import ABSOLUTE_ERROR, ENTROPY
from quercus.grow import grower, levelwise
from quercus.grow._draws import root_draw_key
from quercus.grow._settings import Settings
from quercus.grow.statistics import LocalStatistics


def _frame(shared, name: str, nominal=()) -> tuple[pd.DataFrame, pd.Series]:
    table = quercus.read_table(shared(name), nominal=list(nominal))
    return table.X, table.y


def _with_missing(X: pd.DataFrame, share: float, seed: int) -> pd.DataFrame:
    """``X`` with a share of its cells missing, at random."""
    rng = np.random.default_rng(seed)
    out = X.copy()
    for col in out.columns:
        out.loc[rng.random(len(out)) < share, col] = np.nan
    return out


def _fit_both(estimator, X, y, monkeypatch, sample_weight=None):
    compiled = clone(estimator).fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", levelwise.grow_local)
        level_wise = clone(estimator).fit(X, y, sample_weight=sample_weight)
    return compiled.tree_, level_wise.tree_


CLASSIFICATION = [
    ("weather.nominal.csv", (), quercus.ID3Classifier()),
    ("car.csv", ("doors", "persons"), quercus.ID3Classifier()),
    ("car.csv", ("doors", "persons"), quercus.CARTClassifier()),
    ("iris.csv", (), quercus.CARTClassifier(criterion="entropy")),
    ("credit-a.csv", (), quercus.CARTClassifier(min_samples_leaf=5)),
    ("credit-a.csv", (), quercus.C45Classifier(missing="majority")),
    ("hepatitis.csv", (), quercus.C45Classifier(missing="class_majority")),
    ("hepatitis.csv", (), quercus.CARTClassifier(missing="learned", max_depth=4)),
    ("tic-tac-toe.csv", (), quercus.ID3Classifier(significance=0.05)),
    ("glass.csv", (), quercus.CARTClassifier(criterion="misclassification")),
    ("zoo.csv", (), quercus.DecisionTreeClassifier(criterion="gain_ratio")),
]


@pytest.mark.parametrize(("name", "nominal", "estimator"), CLASSIFICATION)
def test_classification_trees_are_identical(name, nominal, estimator, monkeypatch, shared):
    X, y = _frame(shared, name, nominal)
    compiled, level_wise = _fit_both(estimator, X, y, monkeypatch)
    assert compiled.node_count > 3
    assert_same_tree(compiled, level_wise)


@pytest.mark.parametrize("missing", ["learned", "majority", "class_majority"])
@pytest.mark.parametrize("nominal_split", ["multiway", "binary"])
def test_missing_value_policies(missing, nominal_split, monkeypatch, shared):
    X, y = _frame(shared, "credit-a.csv")
    X = _with_missing(X, 0.15, seed=3)
    estimator = quercus.DecisionTreeClassifier(
        criterion="entropy", missing=missing, nominal_split=nominal_split, min_samples_leaf=2
    )
    compiled, level_wise = _fit_both(estimator, X, y, monkeypatch)
    assert compiled.node_count > 3
    assert_same_tree(compiled, level_wise)


@pytest.mark.parametrize(
    "estimator",
    [
        quercus.DecisionTreeRegressor(max_depth=8),
        quercus.DecisionTreeRegressor(min_samples_leaf=20, min_impurity_decrease=0.001),
        quercus.DecisionTreeRegressor(nominal_split="multiway", missing="majority"),
    ],
)
def test_regression_trees_are_identical(estimator, monkeypatch, shared):
    X, y = _frame(shared, "boston.csv")
    X = _with_missing(X, 0.05, seed=1)
    compiled, level_wise = _fit_both(estimator, X, y, monkeypatch)
    assert compiled.node_count > 3
    assert_same_tree(compiled, level_wise)


def test_weighted_rows(monkeypatch, shared):
    X, y = _frame(shared, "diabetes.csv")
    weights = np.random.default_rng(0).integers(1, 4, len(y)).astype(float) / 2
    compiled, level_wise = _fit_both(
        quercus.CARTClassifier(max_depth=6), X, y, monkeypatch, sample_weight=weights
    )
    assert_same_tree(compiled, level_wise)


@pytest.mark.parametrize(
    ("name", "nominal", "estimator"),
    [
        ("car.csv", ("doors", "persons"), quercus.CARTClassifier(max_features=2, random_state=4)),
        ("credit-a.csv", (), quercus.CARTClassifier(max_features="sqrt", random_state=0)),
        ("boston.csv", (), quercus.DecisionTreeRegressor(max_features=0.4, random_state=9)),
    ],
)
def test_feature_draws_follow_the_node_not_the_order_of_growth(
    name, nominal, estimator, monkeypatch, shared
):
    """With ``max_features``, a node's features are drawn by its path from the root: the
    compiled grower (depth-first) and the level-wise grower (level by level) draw the same
    ones, and a different seed draws others."""
    X, y = _frame(shared, name, nominal)
    compiled, level_wise = _fit_both(estimator, X, y, monkeypatch)
    assert compiled.node_count > 7
    assert_same_tree(compiled, level_wise)
    reseeded = clone(estimator).set_params(random_state=estimator.random_state + 1).fit(X, y)
    assert not np.array_equal(reseeded.tree_.feature, compiled.feature)


@pytest.mark.parametrize(
    ("name", "nominal", "estimator"),
    [
        ("car.csv", ("doors", "persons"), quercus.ID3Classifier()),
        ("credit-a.csv", (), quercus.CARTClassifier(missing="learned", max_features=5,
                                                    random_state=2, min_impurity_decrease=1e-3)),
        ("hepatitis.csv", (), quercus.C45Classifier(missing="class_majority", max_depth=5)),
        ("boston.csv", (), quercus.DecisionTreeRegressor(max_depth=9)),
    ],
)  # fmt: skip
@pytest.mark.parametrize("small_rows", [1, 30, 200])
def test_small_nodes_handed_to_the_compiled_grower(
    name, nominal, estimator, small_rows, monkeypatch, shared
):
    """Nodes of at most ``small_rows`` rows are grown by the compiled grower and grafted
    in: depth, feature draws, the whole tree's weight (min_impurity_decrease) and the
    node numbers carry over, so the tree is the compiled grower's."""
    X, y = _frame(shared, name, nominal)
    X = _with_missing(X, 0.05, seed=8)
    compiled = clone(estimator).fit(X, y).tree_
    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", partial(levelwise.grow_local, small_rows=small_rows))
        handed = clone(estimator).fit(X, y).tree_
    assert compiled.node_count > 7
    assert_same_tree(compiled, handed)


def _settings(**changes) -> Settings:
    values = dict(
        multiway=False, criterion=ENTROPY, regression=False, n_stats=2, max_depth=-1, min_split=2.0,
        min_leaf=1.0, min_impurity_decrease=0.0, max_leaf_nodes=-1, max_features=3, seed=1,
        c45_classes=0, c45_tolerance=0.0, chi2_critical=np.zeros(1), missing_mode=LEARNED,
        trace_on=False,
    )  # fmt: skip
    values.update(changes)
    return Settings(**values, root_key=root_draw_key(values["seed"]))


@pytest.mark.parametrize(
    ("changes", "what"),
    [
        ({"missing_mode": FRACTIONAL}, "fractional"),
        ({"criterion": ABSOLUTE_ERROR, "regression": True}, "absolute_error"),
        ({"max_leaf_nodes": 8}, "max_leaf_nodes"),
        ({"trace_on": True}, "trace"),
    ],
)
def test_local_only_settings_are_refused(changes, what):
    with pytest.raises(ValueError, match=what):
        levelwise.check_level_wise(_settings(**changes))


def _add(a, b):
    """The sum of two answers (a tuple or named tuple of arrays)."""
    summed = [u + v for u, v in zip(a, b, strict=True)]
    return type(a)(*summed) if hasattr(a, "_fields") else tuple(summed)


class TwoShards:
    """A provider whose rows are split between two local providers, as rows are split
    between machines: every sum it gives is the sum of the shards' sums."""

    def __init__(self, first, second):
        self.shards = (first, second)

    def root(self):
        parts = [s.root() for s in self.shards]
        return sum(p[0] for p in parts), sum(p[1] for p in parts), sum(p[2] for p in parts)

    def _added(self, kind, items):
        """Both shards' answers to ``items``, added item by item."""
        first, second = (getattr(s, kind)(items) for s in self.shards)
        return [_add(a, b) for a, b in zip(first, second, strict=True)]

    def histograms(self, nodes):
        return self._added("histograms", nodes)

    def branch_weights(self, items):
        return self._added("branch_weights", items)

    def partition(self, items):
        return self._added("partition", items)

    def drop(self, keys):
        for s in self.shards:
            s.drop(keys)
        return [None] * len(keys)


@pytest.mark.parametrize("nominal_split", ["multiway", "binary"])
def test_sums_from_shards_grow_the_same_tree(nominal_split, monkeypatch, shared):
    """The provider seam adds up: rows held in two shards, with counts as weights (exact
    sums in any order), grow the tree of all rows in one place."""
    X, y = _frame(shared, "credit-a.csv")
    X = _with_missing(X, 0.1, seed=5)
    estimator = quercus.DecisionTreeClassifier(
        criterion="entropy", nominal_split=nominal_split, missing="class_majority", max_depth=6
    )
    compiled = clone(estimator).fit(X, y)

    def grow_in_two_shards(data, y_class, y_value, w, bins, s):
        half = len(w) // 2
        shards = [
            LocalStatistics(
                data[part],
                y_class[part],
                y_value[part],
                w[part],
                bins.n_bins,
                bins.missing_code,
                s.n_stats,
                s.regression,
            )  # fmt: skip
            for part in (slice(0, half), slice(half, None))
        ]
        return levelwise.grow_level_wise(TwoShards(*shards), bins, s)

    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", grow_in_two_shards)
        sharded = clone(estimator).fit(X, y)
    assert compiled.tree_.node_count > 7
    assert_same_tree(compiled.tree_, sharded.tree_)


def test_trees_grown_together_are_the_trees_grown_alone(monkeypatch, shared):
    """A forest's trees advance together (one round of requests answers every tree that
    asks), and each is the tree it would be alone; the trees end at different levels."""
    X, y = _frame(shared, "credit-a.csv")
    X = _with_missing(X, 0.05, seed=11)
    captured = {}

    def capture(data, y_class, y_value, w, bins, s):
        captured.update(rows=(data.copy(), y_class.copy(), y_value.copy(), w.copy()), bins=bins)
        captured["s"] = s
        return levelwise.grow_local(data, y_class, y_value, w, bins, s)

    with monkeypatch.context() as patch:
        patch.setattr(grower, "grow_tree", capture)
        quercus.CARTClassifier(missing="majority").fit(X, y)
    data, y_class, y_value, w = captured["rows"]
    bins, s = captured["bins"], captured["s"]
    rng = np.random.default_rng(0)
    weights = [w * rng.poisson(1.0, len(w)) for _ in range(5)]
    weights.append(w * (np.arange(len(w)) % 12 == 0))  # a small tree that ends early
    providers = [
        LocalStatistics(
            data, y_class, y_value, wt, bins.n_bins, bins.missing_code, s.n_stats, False
        )
        for wt in weights
    ]
    rounds = []

    def answer(kind, batch):
        rounds.append(len(batch))
        return [getattr(providers[tree], kind)(items) for tree, items in batch]

    together = levelwise.drive_together(
        [levelwise.level_steps(p.root(), bins, s) for p in providers], answer
    )
    assert max(rounds) == len(providers)
    assert min(rounds) < len(providers)
    for wt, grown in zip(weights, together, strict=True):
        alone = levelwise.grow_local(data, y_class, y_value, wt, bins, s)
        assert len(grown.nodes) == len(alone.nodes) > 1
        for a, b in zip(grown, alone, strict=True):
            if a is None:  # no oblique splits
                assert b is None
                continue
            for field in a.dtype.names or [None]:  # record fields one by one (NaN equal)
                np.testing.assert_array_equal(a[field] if field else a, b[field] if field else b)


def test_root_key_has_one_type_whatever_its_size(monkeypatch, shared):
    # As a Python int, a key below 2**63 types as int64 and one above as uint64: two
    # signatures of the compiled grower, of which a cached one may refuse the other's keys.
    seen = []
    compiled = grower.grow_tree

    def recording(*args):
        seen.append(args[-1].root_key)
        return compiled(*args)

    monkeypatch.setattr(grower, "grow_tree", recording)
    X, y = _frame(shared, "iris.csv", ())
    quercus.RandomForestClassifier(n_estimators=8, n_jobs=1, random_state=0).fit(X, y)
    assert len(seen) == 8
    assert all(isinstance(key, np.uint64) for key in seen)
    assert min(seen) < 2**63 <= max(seen)
