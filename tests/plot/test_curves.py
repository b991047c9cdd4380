"""quercus.plot's curves: the overfitting curve along the estimator's own pruning sequence,
the learning curve through scikit-learn, and the impurity measures against p."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.model_selection import learning_curve as sklearn_learning_curve

import quercus
from quercus.criteria import registry
from quercus.criteria._impurity import impurity as impurity_kernel
from quercus.estimators.validate import training_cases
from quercus.plot import impurity_curves, learning_curve, overfitting_curve
from quercus.pruning.sequence import replay

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def line(ax, gid):
    (found,) = [x for x in ax.lines if x.get_gid() == gid]
    return found


def car():
    """The car data set, its attributes as categories ("doors" mixes 2 and 5more)."""
    df = quercus.datasets.load("car")
    return df.iloc[:, :-1].astype("category"), df.iloc[:, -1]


def noisy(n=900, seed=0):
    X, y = make_classification(n, 6, n_informative=3, flip_y=0.2, random_state=seed)
    return X, y


def tree_after(est, k, X=None, y=None):
    """A copy of ``est`` whose tree is its grown tree after the first ``k`` recorded steps
    (the reference: replayed and predicted, as if the estimator had stopped there)."""
    steps = [type(s)(**{**s.__dict__, "applied": i < k}) for i, s in enumerate(est.pruning_path_)]
    cases = impurity = None
    if est.pruning == "pessimistic":
        cases = training_cases(est, X, y, None)
        impurity = registry.get(est.criterion).impurity
    probe = copy.copy(est)
    probe.tree_, _ = replay(est.tree_grown_, steps, cases=cases, impurity=impurity)
    return probe


# -- the overfitting curve: its numbers against pruning and predicting ---------------------------


def test_cost_complexity_curve_scores_every_tree_of_the_path(ax):
    X, y = noisy()
    X_train, y_train, X_val, y_val = X[:600], y[:600], X[600:], y[600:]
    est = quercus.CARTClassifier(ccp_alpha=0.004).fit(X_train, y_train)
    curve = overfitting_curve(est, X_train, y_train, X_val=X_val, y_val=y_val, ax=ax)
    steps = est.pruning_path_
    assert curve.method == "cost_complexity" and curve.metric == "accuracy"
    np.testing.assert_array_equal(
        curve.n_leaves, [est.tree_grown_.n_leaves] + [s.n_leaves for s in steps]
    )
    assert curve.n_leaves[-1] == 1  # the path goes on to the root
    for k in range(len(steps) + 1):
        probe = tree_after(est, k)
        assert curve.train_scores[k] == pytest.approx(probe.score(X_train, y_train), abs=1e-12)
        assert curve.validation_scores[k] == pytest.approx(probe.score(X_val, y_val), abs=1e-12)
    assert curve.chosen_n_leaves == est.get_n_leaves()
    assert curve.validation_scores[curve.chosen_index] == pytest.approx(est.score(X_val, y_val))
    assert curve.train_scores[0] == 1.0  # the grown tree fits its training data
    # What is drawn is what is returned.
    np.testing.assert_array_equal(line(ax, "training").get_xdata(), curve.n_leaves)
    np.testing.assert_array_equal(line(ax, "training").get_ydata(), curve.train_scores)
    np.testing.assert_array_equal(line(ax, "validation").get_ydata(), curve.validation_scores)
    assert list(line(ax, "chosen").get_xdata()) == [est.get_n_leaves()] * 2
    assert curve.ax_ is ax and curve.figure_ is ax.figure
    assert ax.get_xlabel() == "number of leaves" and ax.get_ylabel() == "accuracy"


def test_reduced_error_curve_follows_the_pruning_past_its_stop(ax):
    X, y = noisy(1200, seed=3)
    X_grow, y_grow = X[:600], y[:600]
    X_prune, y_prune, X_test, y_test = X[600:900], y[600:900], X[900:], y[900:]
    est = quercus.ID3Classifier(pruning="reduced_error").fit(
        X_grow, y_grow, X_val=X_prune, y_val=y_prune
    )
    curve = overfitting_curve(
        est, X_grow, y_grow, X_val=X_test, y_val=y_test, ax=ax, metric="error"
    )
    steps = est.pruning_path_
    assert curve.method == "reduced_error"
    assert curve.chosen_index == sum(s.applied for s in steps) < len(steps)
    for k in (0, 1, curve.chosen_index, len(steps) // 2, len(steps)):
        probe = tree_after(est, k)
        assert curve.train_scores[k] == pytest.approx(1 - probe.score(X_grow, y_grow), abs=1e-12)
        assert curve.validation_scores[k] == pytest.approx(1 - probe.score(X_test, y_test))
    # On its own pruning cases, the kept tree is the best of the sequence (the lectures'
    # rule: prune while the accuracy does not fall).
    own = overfitting_curve(est, X_grow, y_grow, X_val=X_prune, y_val=y_prune, ax=ax)
    assert own.validation_scores[own.chosen_index] == pytest.approx(own.validation_scores.max())


def test_pessimistic_curve_with_raising_and_missing_values(shared, ax):
    X, y = quercus.read_table(shared("hepatitis.csv"))  # missing values, raised branches
    train = np.arange(len(y)) % 3 != 0
    X_train, y_train, X_val, y_val = X[train], y[train], X[~train], y[~train]
    est = quercus.C45Classifier().fit(X_train, y_train)
    assert any(s.action == "raise" for s in est.pruning_path_)
    curve = overfitting_curve(est, X_train, y_train, X_val=X_val, y_val=y_val, ax=ax)
    steps = est.pruning_path_
    assert curve.method == "pessimistic" and curve.chosen_index == len(steps)
    for k in range(len(steps) + 1):
        probe = tree_after(est, k, X_train, y_train)
        assert curve.train_scores[k] == pytest.approx(probe.score(X_train, y_train))
        assert curve.validation_scores[k] == pytest.approx(probe.score(X_val, y_val))
    assert curve.train_scores[-1] == pytest.approx(est.score(X_train, y_train))
    assert curve.validation_scores[-1] == pytest.approx(est.score(X_val, y_val))


def test_growth_curve_of_an_unpruned_tree_is_best_first_growth(ax):
    X, y = noisy(700, seed=5)
    X_train, y_train, X_val, y_val = X[:500], y[:500], X[500:], y[500:]
    est = quercus.CARTClassifier(min_samples_leaf=5).fit(X_train, y_train)
    curve = overfitting_curve(est, X_train, y_train, X_val=X_val, y_val=y_val, ax=ax)
    assert curve.method == "growth"
    leaves = list(curve.n_leaves)
    assert leaves == list(range(est.get_n_leaves(), 0, -1))  # binary splits: one leaf a step
    assert curve.chosen_n_leaves == est.get_n_leaves() and curve.chosen_index == 0
    for k in (2, 3, 7, 12, est.get_n_leaves()):
        small = quercus.CARTClassifier(min_samples_leaf=5, max_leaf_nodes=k).fit(X_train, y_train)
        i = leaves.index(k)
        assert curve.train_scores[i] == pytest.approx(small.score(X_train, y_train))
        assert curve.validation_scores[i] == pytest.approx(small.score(X_val, y_val))
    assert curve.train_scores[-1] == pytest.approx(max(np.mean(y_train), 1 - np.mean(y_train)))


def test_regression_curve_scores_r2_and_error(ax):
    data = quercus.datasets.load("abalone").iloc[:800]
    X, y = data.iloc[:, :-1], data.iloc[:, -1].to_numpy(dtype=float)
    est = quercus.CARTRegressor(ccp_alpha=0.02).fit(X.iloc[:500], y[:500])
    r2 = overfitting_curve(est, X.iloc[:500], y[:500], X_val=X.iloc[500:], y_val=y[500:], ax=ax)
    assert r2.metric == "r2" and r2.method == "cost_complexity"
    assert r2.train_scores[r2.chosen_index] == pytest.approx(est.score(X.iloc[:500], y[:500]))
    assert r2.validation_scores[r2.chosen_index] == pytest.approx(est.score(X.iloc[500:], y[500:]))
    assert r2.train_scores[-1] == pytest.approx(0.0, abs=1e-9)  # the mean predicts R² 0
    mse = overfitting_curve(
        est, X.iloc[:500], y[:500], X_val=X.iloc[500:], y_val=y[500:], metric="error", ax=ax
    )
    expected = np.mean((est.predict(X.iloc[500:]) - y[500:]) ** 2)
    assert mse.validation_scores[mse.chosen_index] == pytest.approx(expected)
    assert ax.get_ylabel() == "error"


def test_cross_validated_curve_averages_the_folds(ax):
    X, y = car()
    est = quercus.CARTClassifier(ccp_alpha=0.002).fit(X, y)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    curve = overfitting_curve(est, X, y, cv=folds, ax=ax)
    assert curve.validation == "3-fold cross-validation"
    grown, stump = [], []
    for train, test in folds.split(X, y):
        fold = quercus.CARTClassifier().fit(X.iloc[train], y.iloc[train])
        assert fold.get_n_leaves() <= curve.n_leaves[0]  # so the fold's grown tree counts
        grown.append(fold.score(X.iloc[test], y.iloc[test]))
        majority = y.iloc[train].value_counts().idxmax()
        stump.append(np.mean(y.iloc[test] == majority))
    assert curve.validation_scores[0] == pytest.approx(np.mean(grown))
    assert curve.validation_std[0] == pytest.approx(np.std(grown))
    assert curve.validation_scores[-1] == pytest.approx(np.mean(stump))
    spread = [p for p in ax.collections if p.get_gid() == "validation-spread"]
    assert len(spread) == 1


def test_default_validation_is_five_fold_cross_validation(ax):
    X, y = noisy(300, seed=1)
    est = quercus.C45Classifier().fit(X, y)
    curve = overfitting_curve(est, X, y, ax=ax)
    assert curve.validation == "5-fold cross-validation"
    assert np.isfinite(curve.validation_scores[curve.chosen_index])


def test_overfitting_curve_refuses_what_it_cannot_draw(ax, tmp_path):
    X, y = noisy(200)
    with pytest.raises(NotFittedError):
        overfitting_curve(quercus.CARTClassifier(), X, y, ax=ax)
    with pytest.raises(TypeError, match="needs a quercus tree estimator"):
        overfitting_curve(object(), X, y, ax=ax)
    forest = quercus.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="got RandomForestClassifier"):
        overfitting_curve(forest, X, y, ax=ax)
    est = quercus.C45Classifier().fit(X, y)
    with pytest.raises(ValueError, match="X_val and y_val go together"):
        overfitting_curve(est, X, y, X_val=X, ax=ax)
    with pytest.raises(ValueError, match="not both"):
        overfitting_curve(est, X, y, X_val=X, y_val=y, cv=3, ax=ax)
    with pytest.raises(ValueError, match="metric must be one of 'accuracy', 'error'"):
        overfitting_curve(est, X, y, metric="r2", ax=ax)
    with pytest.raises(ValueError, match="not the data the estimator was fitted on"):
        overfitting_curve(est, X[:150], y[:150], X_val=X, y_val=y, ax=ax)
    est.save(tmp_path / "model.json")
    with pytest.raises(ValueError, match="fit it again"):
        overfitting_curve(quercus.load(tmp_path / "model.json"), X, y, X_val=X, y_val=y, ax=ax)


# -- the learning curve --------------------------------------------------------------------------


def test_learning_curve_is_scikit_learns(ax):
    X, y = car()
    est = quercus.ID3Classifier()
    folds = StratifiedKFold(3, shuffle=True, random_state=0)  # car's rows are sorted
    curve = learning_curve(est, X, y, train_sizes=[0.2, 0.5, 1.0], cv=folds, ax=ax)
    sizes, train, validation = sklearn_learning_curve(
        est, X, y, train_sizes=[0.2, 0.5, 1.0], cv=folds, shuffle=True, random_state=0
    )
    np.testing.assert_array_equal(curve.train_sizes, sizes)
    np.testing.assert_array_equal(curve.train_scores, train)
    np.testing.assert_array_equal(curve.validation_scores, validation)
    np.testing.assert_array_equal(line(ax, "training").get_ydata(), train.mean(axis=1))
    np.testing.assert_array_equal(line(ax, "cross-validation").get_xdata(), sizes)
    np.testing.assert_array_equal(line(ax, "cross-validation").get_ydata(), validation.mean(axis=1))
    assert curve.scoring == "accuracy" and ax.get_ylabel() == "accuracy"
    assert validation.mean(axis=1)[-1] > validation.mean(axis=1)[0]  # more data, better tree


def test_learning_curve_of_a_regressor_and_its_errors(ax):
    data = quercus.datasets.load("abalone").iloc[:600]
    X, y = data.iloc[:, :-1], data.iloc[:, -1]
    curve = learning_curve(
        quercus.CARTRegressor(max_depth=4), X, y, cv=KFold(3), shuffle=False, ax=ax
    )
    assert curve.scoring == "R²" and curve.train_scores.shape == (5, 3)
    with pytest.raises(TypeError, match="needs an estimator"):
        learning_curve("tree", X, y, ax=ax)


# -- impurity against p --------------------------------------------------------------------------


def test_impurity_curves_are_the_lectures_and_the_kernels_numbers(ax):
    curves = impurity_curves(ax=ax)
    p = curves.p
    assert len(p) == 201 and p[0] == 0.0 and p[-1] == 1.0
    half, quarter = 100, 50  # p = 0.5, 0.25
    # The lectures: entropy 1 bit at (0.5, 0.5); Gini 2p(1 - p); error 1 - max(p, 1 - p).
    assert curves.entropy[half] == pytest.approx(1.0)
    assert curves.entropy[quarter] == pytest.approx(-(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75)))
    np.testing.assert_allclose(curves.gini, 2 * p * (1 - p), atol=1e-15)
    np.testing.assert_allclose(curves.misclassification, np.minimum(p, 1 - p), atol=1e-15)
    assert curves.entropy[0] == curves.entropy[-1] == 0.0
    # The compiled kernels the trees split with give the same numbers.
    stats = np.column_stack([p, 1 - p])
    for name, values in (
        ("entropy", curves.entropy),
        ("gini", curves.gini),
        ("misclassification", curves.misclassification),
    ):
        code = registry.get(name).code
        kernel = [impurity_kernel(stats, i, code, False) for i in range(len(p))]
        np.testing.assert_allclose(values, kernel, rtol=0, atol=1e-12)
    assert quercus.entropy(["a", "b", "b", "b"]) == pytest.approx(curves.entropy[quarter])
    # What is drawn.
    np.testing.assert_array_equal(line(ax, "gini").get_ydata(), curves.gini)
    assert line(ax, "entropy").get_label() == "entropy (bits)"


def test_scaled_entropy_meets_the_others_at_one_half(ax):
    curves = impurity_curves(scaled_entropy=True, n_points=5, ax=ax)
    np.testing.assert_allclose(curves.p, [0, 0.25, 0.5, 0.75, 1])
    assert curves.entropy[2] == curves.gini[2] == curves.misclassification[2] == 0.5
    assert curves.entropy_scale == 0.5
    with pytest.raises(ValueError, match="n_points"):
        impurity_curves(n_points=1, ax=ax)


def test_each_call_without_ax_draws_its_own_figure(tmp_path):
    # Three calls in one script: three figures, each with only its own lines and legend
    # (drawing on pyplot's current Axes gave one figure with nine lines and one legend).
    X, y = load_iris(return_X_y=True)
    est = quercus.CARTClassifier(max_depth=3).fit(X, y)
    before = set(plt.get_fignums())
    drawn = [
        impurity_curves(),
        overfitting_curve(est, X, y, cv=3),
        learning_curve(est, X, y, cv=3, train_sizes=(0.5, 1.0)),
    ]
    try:
        figures = [curve.figure_ for curve in drawn]
        assert len({id(f) for f in figures}) == 3
        assert len(set(plt.get_fignums()) - before) == 3  # pyplot's: plt.show() shows them
        own = [
            {"entropy", "gini", "error"},
            {"training", "validation", "chosen", "chosen-scores"},
            {"training", "cross-validation"},
        ]
        for curve, figure, gids in zip(drawn, figures, own, strict=True):
            assert figure.axes == [curve.ax_]
            assert {line.get_gid() for line in curve.ax_.lines} == gids
            (legend,) = [curve.ax_.get_legend()]
            assert len(legend.get_texts()) == len([g for g in gids if g != "chosen-scores"])
        figures[0].savefig(tmp_path / "impurity.svg")
    finally:
        for figure in figures:
            plt.close(figure)
    assert "<svg" in (tmp_path / "impurity.svg").read_text()
    assert pd.Series(drawn[0].gini).max() == 0.5


def test_with_ax_the_curve_draws_there(ax):
    curves = impurity_curves(ax=ax)
    assert curves.ax_ is ax and curves.figure_ is ax.figure
    assert len(ax.lines) == 3


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r'pip install "quercus\[plot\]"'):
        impurity_curves()


def test_counts_are_ticked_at_whole_numbers():
    # Iris's C4.5 sequence spans 5 to 7 leaves: matplotlib alone would tick 5.25, 5.5, ...
    X, y = load_iris(return_X_y=True)
    curve = overfitting_curve(quercus.C45Classifier().fit(X, y), X, y)
    ticks = curve.ax_.get_xticks()
    assert len(ticks) >= 2 and np.array_equal(ticks, np.round(ticks))
    plt.close(curve.figure_)


# -- the boosting curve ---------------------------------------------------------------------------


def test_boosting_curve_draws_the_losses_and_the_iteration_kept(ax):
    from quercus.plot import boosting_curve

    X, y = noisy(1500, seed=3)
    booster = quercus.GradientBoostingClassifier(
        max_iter=200, learning_rate=0.5, early_stopping=True, n_iter_no_change=4, random_state=0
    ).fit(X, y)
    curve = boosting_curve(booster, ax=ax)
    run = len(booster.train_score_) - 1
    assert run < 200 and curve.best_iteration == booster.n_iter_ == run - 4
    assert np.array_equal(line(ax, "training").get_ydata(), -booster.train_score_)
    validation = line(ax, "validation").get_ydata()
    assert np.argmin(validation) == booster.n_iter_  # the lowest validation loss is kept
    assert list(line(ax, "kept").get_xdata()) == [booster.n_iter_] * 2
    assert "early stopping" in ax.get_legend().get_texts()[-1].get_text()
    with pytest.raises(TypeError, match="needs a quercus gradient booster"):
        boosting_curve(quercus.DecisionTreeClassifier().fit(X, y), ax=ax)
    with pytest.raises(NotFittedError):
        boosting_curve(quercus.GradientBoostingRegressor(), ax=ax)
