"""Pruning sequences: every pruning records its steps (``pruning_path_`` on ``tree_grown_``),
and the recorded steps, replayed, give exactly the estimator's tree."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import quercus
from _helpers import assert_same_tree
from quercus.criteria import registry
from quercus.estimators.validate import training_cases
from quercus.pruning import pessimistic_errors
from quercus.pruning.pessimistic_path import pessimistic_path_errors
from quercus.pruning.sequence import (
    CollapseStep,
    CostComplexityStep,
    PessimisticStep,
    ReducedErrorStep,
    pessimistic_stage,
    replay,
)
from quercus.tree.conditions import reaching_branch_conditions


def replayed(est, X, y):
    """The estimator's tree, replayed from its grown tree and recorded steps."""
    cases = impurity = None
    if getattr(est, "pruning", None) == "pessimistic":
        cases = training_cases(est, X, y, None)
        impurity = registry.get(est.criterion).impurity
    return replay(est.tree_grown_, est.pruning_path_, cases=cases, impurity=impurity)


def check_sequence(est, X, y):
    """The properties every recorded sequence has, and the replay."""
    steps = est.pruning_path_
    assert [s.step for s in steps] == list(range(1, len(steps) + 1))
    applied = [s.applied for s in steps]
    assert applied == sorted(applied, reverse=True)  # the applied steps come first
    leaves = [est.tree_grown_.n_leaves] + [s.n_leaves for s in steps]
    assert all(a > b for a, b in zip(leaves, leaves[1:], strict=False))
    n_applied = sum(applied)
    assert leaves[n_applied] == est.get_n_leaves()
    tree, origin = replayed(est, X, y)
    assert_same_tree(tree, est.tree_)
    np.testing.assert_array_equal(origin, est.grown_node_ids_)
    return steps


def lecture(name):
    """A shipped data set; its attributes are categories (car's "doors" mixes 2 and 5more)."""
    df = quercus.datasets.load(name)
    return df.iloc[:, :-1].astype("category"), df.iloc[:, -1]


def shipped(shared, name):
    return quercus.read_table(shared(f"{name}.csv"))


# -- replay on the lectures' data and shipped sets, with and without missing values ---------

CONFIGS = {
    "c45": lambda: quercus.C45Classifier(),
    "c45-no-raising": lambda: quercus.C45Classifier(subtree_raising=False),
    "c45-release8": lambda: quercus.C45Classifier(c45_variant="release8", confidence=0.1),
    "id3-reduced-error": lambda: quercus.ID3Classifier(pruning="reduced_error", random_state=0),
    "c45-reduced-error": lambda: quercus.C45Classifier(pruning="reduced_error", random_state=1),
    "cart-alpha": lambda: quercus.CARTClassifier(ccp_alpha=0.01),
    "cart-unpruned-c45": lambda: quercus.C45Classifier(pruning=None),
}


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", ["playtennis", "restaurant", "car"])
def test_replay_gives_the_tree_on_the_lectures_data(config, name):
    X, y = lecture(name)
    est = CONFIGS[config]().fit(X, y)
    if not hasattr(est, "pruning_path_"):  # nothing to prune with: nothing recorded
        assert config == "cart-unpruned-c45" or est.pruning is None
        return
    check_sequence(est, X, y)


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name", ["credit-a", "hepatitis", "breast-cancer", "diabetes"])
def test_replay_gives_the_tree_on_shipped_sets(config, name, shared):
    X, y = shipped(shared, name)  # credit-a, hepatitis and breast-cancer have missing values
    est = CONFIGS[config]().fit(X, y)
    steps = check_sequence(est, X, y)
    if config.startswith("c45") and config != "c45-reduced-error":
        assert {s.method for s in steps} <= {"collapse", "pessimistic"}


def test_some_sequences_raise_branches_and_collapse(shared):
    # The replay above is only a test of raising if some pruning raises: hepatitis does.
    X, y = shipped(shared, "hepatitis")
    steps = quercus.C45Classifier().fit(X, y).pruning_path_
    kinds = {(s.method, s.action) for s in steps}
    assert ("pessimistic", "raise") in kinds and ("pessimistic", "leaf") in kinds
    assert any(isinstance(s, CollapseStep) for s in steps)
    raised = [s for s in steps if s.action == "raise"]
    assert all(s.raised >= 0 for s in raised)
    assert all(
        s.raised == -1 for s in steps if isinstance(s, PessimisticStep) and s.action == "leaf"
    )


def test_regression_tree_records_its_cost_complexity_path():
    X, y = lecture("restaurant")
    data = quercus.datasets.load("abalone")
    Xr, yr = data.iloc[:400, :-1], data.iloc[:400, -1]
    est = quercus.CARTRegressor(ccp_alpha=0.05).fit(Xr, yr)
    check_sequence(est, Xr, yr)
    path = quercus.CARTRegressor().cost_complexity_pruning_path(Xr, yr)
    steps = est.pruning_path_
    assert all(isinstance(s, CostComplexityStep) for s in steps)
    # The same path as cost_complexity_pruning_path: alphas and impurities, to the root.
    np.testing.assert_array_equal([s.alpha for s in steps], path.ccp_alphas[1:])
    np.testing.assert_array_equal([s.impurity for s in steps], path.impurities[1:])
    assert steps[-1].n_leaves == 1
    assert [s.applied for s in steps] == [s.alpha <= 0.05 for s in steps]
    assert len(X)  # the lecture data import stays used


# -- the numbers that decided each step --------------------------------------------------------


def test_pessimistic_step_records_the_estimates_of_the_lecture_rule():
    # x splits 16 cases; pruned as a leaf when its estimated errors are within 0.1 of the
    # subtree's (the hand rule of test_pessimistic.test_leaf_versus_subtree_rule).
    counts = {"a": (6, 0), "b": (9, 1), "c": (1, 0)}
    rows = [(c, lab) for c, (yes, no) in counts.items() for lab in ["yes"] * yes + ["no"] * no]
    frame = pd.DataFrame(rows, columns=["x", "y"])
    est = quercus.C45Classifier(min_samples_leaf=1, collapse=False).fit(frame[["x"]], frame["y"])
    (step,) = est.pruning_path_
    assert (step.method, step.action, step.node, step.path, step.n_leaves) == (
        "pessimistic",
        "leaf",
        0,
        "",
        1,
    )
    assert step.estimate_as_leaf == pytest.approx(pessimistic_errors(17, 1))
    as_tree = sum(pessimistic_errors(yes + no, min(yes, no)) for yes, no in counts.values())
    assert step.estimate_as_subtree == pytest.approx(as_tree)
    # The largest branch (b, 10 cases) with all 17 cases: 9 + 6 + 1 "yes" and 1 "no".
    assert step.estimate_as_branch == pytest.approx(pessimistic_errors(17, 1))
    assert step.confidence == 0.25 and step.applied


def test_reduced_error_numbers_are_the_validation_errors_of_the_trees():
    X, y = make_classification(1200, 6, flip_y=0.2, random_state=2)
    X_grow, y_grow, X_val, y_val = X[:800], y[:800], X[800:], y[800:]
    est = quercus.ID3Classifier(pruning="reduced_error").fit(
        X_grow, y_grow, X_val=X_val, y_val=y_val
    )
    steps = est.pruning_path_
    assert all(isinstance(s, ReducedErrorStep) for s in steps)
    assert steps[-1].n_leaves == 1  # recorded to the root
    kept_errors = int((est.predict(X_val) != y_val).sum())
    errors = []
    probe = quercus.ID3Classifier().fit(X_grow, y_grow)  # a shell to predict with
    for k in range(len(steps) + 1):
        marked = [ReducedErrorStep(**{**s.__dict__, "applied": i < k}) for i, s in enumerate(steps)]
        probe.tree_, _ = replay(est.tree_grown_, marked)
        errors.append(int((probe.predict(X_val) != y_val).sum()))
    for k, s in enumerate(steps):
        # Each step changes the validation errors by (as a leaf) - (as the subtree).
        assert errors[k + 1] - errors[k] == pytest.approx(s.errors_as_leaf - s.errors_as_subtree)
    n_applied = sum(s.applied for s in steps)
    assert errors[n_applied] == kept_errors
    # Applied while no step loses accuracy; the first step not applied loses some.
    assert all(s.errors_as_leaf <= s.errors_as_subtree for s in steps[:n_applied])
    assert steps[n_applied].errors_as_leaf > steps[n_applied].errors_as_subtree


def conditions_to(tree, schema, node):
    """The conditions from the root to ``node`` of ``tree`` as the readable exports print
    them (a category test names the categories that reach it)."""
    if node == 0:
        return []
    for up in range(tree.node_count):
        first = tree.child_start[up]
        kids = list(tree.children[first : first + tree.n_children[up]])
        if tree.kind[up] != 0 and node in kids:
            condition = reaching_branch_conditions(tree, schema, up)[kids.index(node)]
            return [*conditions_to(tree, schema, up), str(condition)]
    raise AssertionError(f"node {node} has no parent")


def test_paths_name_the_conditions_from_the_root():
    X, y = lecture("playtennis")
    # Grown on ten days, pruned on the other four: every inner node is in the order.
    est = quercus.ID3Classifier(pruning="reduced_error").fit(
        X.iloc[:10], y.iloc[:10], X_val=X.iloc[10:], y_val=y.iloc[10:]
    )
    grown = est.tree_grown_
    for s in est.pruning_path_:
        assert s.path == " AND ".join(conditions_to(grown, est.schema_, s.node))
    assert est.pruning_path_[-1].path == ""  # the root, last
    first_level = {
        " AND ".join(conditions_to(grown, est.schema_, k)) for k in np.flatnonzero(grown.depth == 1)
    }
    assert first_level == {"Outlook = Overcast", "Outlook = Rain", "Outlook = Sunny"}


def test_paths_of_nested_subset_splits_name_the_categories_that_reach():
    # f in {a, d} -> X; inside f in {b, c}: f = b -> Y, and f = c splits on g. The nested
    # split's table covers every category, but only b and c reach it.
    cells = [("a", "0", "X", 6), ("a", "1", "X", 6), ("d", "0", "X", 6), ("d", "1", "X", 6)]
    cells += [("b", "0", "Y", 5), ("b", "1", "Y", 5), ("c", "0", "Z", 3), ("c", "1", "W", 3)]
    frame = pd.DataFrame([c[:3] for c in cells for _ in range(c[3])], columns=["f", "g", "y"])
    est = quercus.CARTClassifier(ccp_alpha=0.01).fit(frame[["f", "g"]], frame["y"])
    paths = [s.path for s in est.pruning_path_]
    assert paths == ["f in {b, c} AND f = c", "f in {b, c}", ""]
    for s in est.pruning_path_:
        assert s.path == " AND ".join(conditions_to(est.tree_grown_, est.schema_, s.node))
    assert "f = c" in est.export_text()  # as the text export prints it


def test_cost_complexity_by_cv_records_its_path():
    X, y = lecture("car")
    est = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    steps = check_sequence(est, X, y)
    assert [s.applied for s in steps] == [s.alpha <= est.ccp_alpha_ for s in steps]


# -- what is kept, and what is not -------------------------------------------------------------


def test_an_unpruned_tree_keeps_no_sequence_and_a_refit_forgets_it():
    X, y = lecture("car")
    est = quercus.CARTClassifier(ccp_alpha=0.01).fit(X, y)
    assert hasattr(est, "tree_grown_")
    est.set_params(ccp_alpha=0.0).fit(X, y)
    for name in ("tree_grown_", "pruning_path_", "grown_node_ids_"):
        assert not hasattr(est, name)


def test_model_files_do_not_keep_the_grown_tree(tmp_path):
    X, y = lecture("car")
    est = quercus.C45Classifier().fit(X, y)
    est.save(tmp_path / "c45.json")
    loaded = quercus.load(tmp_path / "c45.json")
    assert not hasattr(loaded, "tree_grown_") and not hasattr(loaded, "pruning_path_")
    text = (tmp_path / "c45.json").read_text()
    assert "pruning_path" not in text and "tree_grown" not in text


def test_pruned_nodes_are_nodes_of_the_grown_tree():
    # A cut keeps each node's test: node i of tree_ is node grown_node_ids_[i] of the
    # grown tree.
    X, y = lecture("car")
    for est in (
        quercus.CARTClassifier(ccp_alpha=0.005).fit(X, y),
        quercus.ID3Classifier(pruning="reduced_error", random_state=0).fit(X, y),
        quercus.C45Classifier(subtree_raising=False).fit(X, y),
    ):
        ids, tree, grown = est.grown_node_ids_, est.tree_, est.tree_grown_
        inner = tree.kind != 0
        np.testing.assert_array_equal(tree.feature[inner], grown.feature[ids[inner]])
        np.testing.assert_array_equal(tree.depth, grown.depth[ids])


# -- the errors of every tree along pessimistic pruning, without rebuilding each ------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: quercus.C45Classifier(),  # fractional missing values, raising
        lambda: quercus.C45Classifier(confidence=0.5, min_samples_leaf=1),
        lambda: quercus.CARTClassifier(pruning="pessimistic"),  # learned missing branches
        lambda: quercus.ID3Classifier(pruning="pessimistic"),  # majority branch
    ],
    ids=["c45", "c45-cf0.5", "cart", "id3"],
)
@pytest.mark.parametrize("name", ["hepatitis", "credit-a"])
def test_path_errors_equal_rebuilding_and_predicting(make, name, shared):
    X, y = shipped(shared, name)
    train = np.arange(len(y)) % 3 != 0
    est = make().fit(X[train], y[train])
    cases = training_cases(est, X[train], y[train], None)
    impurity = registry.get(est.criterion).impurity
    steps = est.pruning_path_
    tree, _, decisions = pessimistic_stage(est.tree_grown_, steps)
    codes = np.arange(est.n_classes_)
    row_sets = []
    for rows in (train, ~train):
        target = np.searchsorted(est.classes_, y[rows].to_numpy())
        row_sets.append((est._predict_matrix(X[rows]), target, codes))
    fast = pessimistic_path_errors(tree, decisions, *cases, est.n_classes_, row_sets)
    n_cuts = len(steps) - len(decisions)
    probe = copy.copy(est)
    for i in range(len(decisions) + 1):
        probe.tree_, _ = replay(
            est.tree_grown_, steps[: n_cuts + i], cases=cases, impurity=impurity
        )
        for j, rows in enumerate((train, ~train)):
            assert fast[i, j] == int((probe.predict(X[rows]) != y[rows].to_numpy()).sum())
    assert len(decisions) > 0


def test_cost_complexity_pruning_path_gives_the_leaves_of_each_tree():
    X, y = lecture("car")
    cart = quercus.CARTClassifier()
    path = cart.cost_complexity_pruning_path(X, y)
    assert len(path.n_leaves) == len(path.ccp_alphas) == len(path.impurities)
    assert path.n_leaves[0] == cart.fit(X, y).get_n_leaves() and path.n_leaves[-1] == 1
    distinct = np.flatnonzero(np.diff(path.ccp_alphas) > 1e-12)  # the last of equal alphas
    for i in distinct[:: max(len(distinct) // 6, 1)]:
        pruned = quercus.CARTClassifier(ccp_alpha=path.ccp_alphas[i]).fit(X, y)
        assert pruned.get_n_leaves() == path.n_leaves[i]
    # A C4.5 tree's path is that of its tree grown without pessimistic pruning.
    c45 = quercus.C45Classifier().cost_complexity_pruning_path(X, y)
    assert c45.n_leaves[0] == quercus.C45Classifier(pruning=None).fit(X, y).get_n_leaves()
