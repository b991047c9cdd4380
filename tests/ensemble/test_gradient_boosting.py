"""Gradient boosting: one iteration against scikit-learn's HistGradientBoosting on data both
bin exactly, every iteration against a NumPy twin, the properties of the loop (staged
predictions, early stopping at the best iteration, the same model for any thread count,
keyed subsamples), the files, the command line's show and predict, and the errors."""

import copy
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from boosting_twin import TwinSettings, boost_twin
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus
from _helpers import run_cli
from quercus.ensemble import losses
from quercus.estimators.params import InvalidParameterError

RNG = np.random.default_rng(0)


def binned_data(n=3000, p=6, levels=40, seed=0):
    """Whole numbers below ``levels``: both libraries keep a bin per value, so their trees
    see the same cuts."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, (n, p)).astype(float)
    signal = X[:, 0] / levels + np.sin(X[:, 1] / 6) - (X[:, 2] > levels / 2)
    return X, signal + rng.normal(0, 0.3, n)


def assert_same_leaves(ours, theirs):
    """Rows that share a leaf in one model share one in the other (the values of one tree
    group the rows), and the values agree to float32's precision."""
    _, ours_leaf = np.unique(ours, return_inverse=True)
    _, theirs_leaf = np.unique(theirs, return_inverse=True)
    pairs = np.unique(np.column_stack([ours_leaf, theirs_leaf]), axis=0)
    assert len(pairs) == len(np.unique(ours_leaf)) == len(np.unique(theirs_leaf)) > 4
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def one_iteration(estimator, **options):
    return estimator(
        max_iter=1, learning_rate=1.0, early_stopping=False, max_leaf_nodes=8, **options
    )


@pytest.mark.parametrize(
    ("n_classes", "min_samples_leaf"), [(0, 1), (0, 20), (2, 1), (2, 60), (3, 20)]
)
def test_one_iteration_equals_hist_gradient_boosting(n_classes, min_samples_leaf):
    """scikit-learn's bar against LightGBM, here against HGB: one iteration, learning rate
    1, the same bins: the same leaves (the rows grouped alike), and the same values within
    HGB's float32 gradients."""
    X, signal = binned_data()
    options = {"min_samples_leaf": min_samples_leaf}
    hgb_options = {**options, "max_bins": 255}
    if n_classes == 0:
        ours = one_iteration(quercus.GradientBoostingRegressor, **options).fit(X, signal)
        theirs = one_iteration(HistGradientBoostingRegressor, **hgb_options).fit(X, signal)
        assert_same_leaves(ours.predict(X), theirs.predict(X))
        return
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    ours = one_iteration(quercus.GradientBoostingClassifier, **options).fit(X, y)
    theirs = one_iteration(HistGradientBoostingClassifier, **hgb_options).fit(X, y)
    for k in range(1 if n_classes == 2 else n_classes):
        ours_k = ours.decision_function(X)
        theirs_k = theirs.decision_function(X)
        if n_classes > 2:  # softmax scores are defined up to a constant: HGB's start differs
            ours_k, theirs_k = ours_k[:, k], theirs_k[:, k]
            assert np.ptp(ours_k - theirs_k) < 1e-6
            theirs_k = theirs_k + np.mean(ours_k - theirs_k)
        assert_same_leaves(ours_k, theirs_k)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-7)


def test_poisson_one_iteration_equals_hist_gradient_boosting():
    X, signal = binned_data(seed=1)
    y = RNG.poisson(np.exp(signal / 2))
    ours = one_iteration(quercus.GradientBoostingRegressor, loss="poisson", min_samples_leaf=1).fit(
        X, y
    )
    theirs = one_iteration(HistGradientBoostingRegressor, loss="poisson", min_samples_leaf=1).fit(
        X, y
    )
    assert_same_leaves(np.log(ours.predict(X)), np.log(theirs.predict(X)))


def test_boosting_lowers_the_training_loss_and_stages_end_at_predict():
    X, signal = binned_data(seed=2)
    y = (signal > np.median(signal)).astype(int)
    model = quercus.GradientBoostingClassifier(max_iter=25, early_stopping=False).fit(X, y)
    losses = -model.train_score_
    assert len(losses) == 26 and model.n_iter_ == 25
    assert np.all(np.diff(losses) < 0)  # each Newton step descends on the training rows
    staged = list(model.staged_predict_proba(X))
    assert len(staged) == 25
    np.testing.assert_allclose(staged[-1], model.predict_proba(X), rtol=1e-12)
    assert np.array_equal(list(model.staged_predict(X))[-1], model.predict(X))
    importances = model.feature_importances_
    assert importances.sum() == pytest.approx(1.0)
    assert set(np.argsort(importances)[-3:]) == {0, 1, 2}  # the features of the signal
    # gain importances are the splits' gains summed: the first tree's alone, recomputed
    first = quercus.GradientBoostingClassifier(max_iter=1, early_stopping=False).fit(X, y)
    tree = first.trees_.tree(0)
    inner = tree.kind != 0
    assert np.array_equal(
        first.feature_split_counts_, np.bincount(tree.feature[inner], minlength=X.shape[1])
    )
    gains = tree.impurity_decrease()[inner]
    expected = np.bincount(tree.feature[inner], weights=gains, minlength=X.shape[1])
    np.testing.assert_allclose(first.feature_importances_, expected / expected.sum())
    assert model.feature_split_counts_.sum() == sum(
        (model.trees_.tree(t).kind != 0).sum() for t in range(25)
    )


def test_early_stopping_keeps_the_best_iteration():
    X, signal = binned_data(n=4000, seed=3)
    y = signal + RNG.normal(0, 1.0, len(signal))  # noisy: validation loss turns up
    model = quercus.GradientBoostingRegressor(
        max_iter=300, learning_rate=0.5, early_stopping=True, n_iter_no_change=5, random_state=0
    ).fit(X, y)
    scores = model.validation_score_
    assert model.do_early_stopping_
    assert len(scores) - 1 < 300  # stopped
    assert model.n_iter_ == int(np.argmax(scores))  # the best, ties to the first
    assert len(scores) - 1 == model.n_iter_ + 5
    assert len(list(model.staged_predict(X))) == model.n_iter_


def test_validation_rows_given_to_fit():
    X, signal = binned_data(seed=4)
    y = (signal > 0.5).astype(int)
    labels = np.array(["no", "yes"])[y]
    model = quercus.GradientBoostingClassifier(max_iter=15, n_iter_no_change=100)
    model.fit(X[:2000], labels[:2000], X_val=X[2000:], y_val=labels[2000:])
    assert model.do_early_stopping_ and len(model.validation_score_) == 16
    direct = -np.mean(
        np.log(model.predict_proba(X[2000:])[np.arange(1000), y[2000:]])
    )  # the validation loss of the model kept
    assert -model.validation_score_[model.n_iter_] == pytest.approx(direct, rel=1e-9)
    with pytest.raises(ValueError, match="y_val has the class 'maybe'"):
        model.fit(X[:2000], labels[:2000], X_val=X[:3], y_val=["no", "maybe", "yes"])
    with pytest.raises(ValueError, match="X_val and y_val are given together"):
        model.fit(X, labels, X_val=X)


def test_same_model_for_any_thread_count_and_keyed_subsamples():
    X, signal = binned_data(seed=5)
    y = np.digitize(signal, [0.0, 0.7])  # three classes: three trees an iteration
    options = {"max_iter": 8, "subsample": 0.6, "max_features": 0.5, "random_state": 7}
    one = quercus.GradientBoostingClassifier(n_jobs=1, **options).fit(X, y)
    two = quercus.GradientBoostingClassifier(n_jobs=2, **options).fit(X, y)
    assert np.array_equal(one.decision_function(X), two.decision_function(X))
    other = quercus.GradientBoostingClassifier(n_jobs=1, **{**options, "random_state": 8})
    assert not np.array_equal(one.decision_function(X), other.fit(X, y).decision_function(X))


def test_progress_reports_change_nothing(capsys):
    """``verbose`` prints each iteration's losses (recorded at once, not by the next
    iteration's pass over the rows), and the model and its record stay the same."""
    X, signal = binned_data(seed=12)
    y = (signal > np.median(signal)).astype(int)
    options = {"max_iter": 6, "early_stopping": True, "n_iter_no_change": 10, "random_state": 0}
    quiet = quercus.GradientBoostingClassifier(**options).fit(X, y)
    loud = quercus.GradientBoostingClassifier(verbose=1, **options).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and lines[-1].startswith("[6/6] train loss ")
    assert f"{-quiet.train_score_[-1]:.5f}" in lines[-1]
    np.testing.assert_array_equal(loud.decision_function(X), quiet.decision_function(X))
    np.testing.assert_array_equal(loud.train_score_, quiet.train_score_)
    np.testing.assert_array_equal(loud.validation_score_, quiet.validation_score_)


def test_nominal_and_missing_values():
    n = 3000
    colour = RNG.choice(["red", "green", "blue", "grey", "pink"], n)
    size = RNG.normal(size=n)
    size[RNG.random(n) < 0.2] = np.nan
    y = np.isin(colour, ["red", "pink"]) * 2.0 + np.nan_to_num(size, nan=3.0)
    X = pd.DataFrame({"colour": colour, "size": size})
    model = quercus.GradientBoostingRegressor(max_iter=50, early_stopping=False).fit(X, y)
    assert np.sqrt(np.mean((model.predict(X) - y) ** 2)) < 0.1
    missing = pd.DataFrame({"colour": ["red", "blue"], "size": [np.nan, np.nan]})
    np.testing.assert_allclose(model.predict(missing), [5.0, 3.0], atol=0.1)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"loss": "hinge"}, "loss must be one of"),
        ({"learning_rate": 0}, "learning_rate must be a number > 0"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"subsample": 1.5}, "subsample must be a float in"),
        ({"early_stopping": "yes"}, "early_stopping must be"),
        ({"scoring": "roc_auk"}, "scoring must be 'loss'"),
        ({"missing": "fractional"}, "missing must be one of 'learned', 'majority'"),
        ({"loss": "quantile"}, "loss='quantile' needs the quantile to predict"),
        ({"nominal_smoothing": -1.0}, "nominal_smoothing must be a number >= 0"),
        ({"max_split_categories": 0}, "max_split_categories must be None or an integer >= 1"),
        ({"loss": "quantile", "quantile": 1.0}, r"quantile must be None or in \(0, 1\)"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, signal = binned_data(n=200)
    with pytest.raises(InvalidParameterError, match=message):
        quercus.GradientBoostingRegressor(**params).fit(X, signal)


@pytest.mark.parametrize(("loss", "quantile"), [("absolute_error", None), ("quantile", 0.9)])
def test_quantile_leaves_equal_hist_gradient_boosting(loss, quantile):
    """The trees grow on the gradients' signs, then each leaf takes the quantile of its rows'
    residuals: 20 iterations on heavy-tailed noise equal HGB's, row for row (unweighted
    quantiles interpolate as NumPy's percentile, as HGB's do)."""
    X, signal = binned_data(seed=7)
    y = signal + 0.5 * np.random.default_rng(7).standard_t(2, len(signal))
    settings = {"max_iter": 20, "learning_rate": 0.1, "early_stopping": False}
    settings |= {"max_leaf_nodes": 8, "loss": loss, "quantile": quantile}
    ours = quercus.GradientBoostingRegressor(**settings).fit(X, y)
    theirs = HistGradientBoostingRegressor(max_bins=255, **settings).fit(X, y)
    assert ours.trees_.merged.leaf_model == "step"  # the leaves keep their quantiles
    assert len(np.unique(ours.predict(X))) > 100
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("quantile", [0.1, 0.9])
def test_quantile_loss_covers_its_share_of_new_rows(quantile, tmp_path):
    """A model of the q-quantile has about q of new rows at or below its predictions, its
    pinball loss is below that of the constant quantile, and its file keeps its leaves."""
    X, signal = binned_data(n=12_000, seed=8)
    noise = np.random.default_rng(8).standard_t(3, len(signal))
    y = signal + noise * (0.5 + X[:, 3] / 40)  # the spread grows with x3
    train, test = slice(0, 9000), slice(9000, None)
    model = quercus.GradientBoostingRegressor(
        loss="quantile", quantile=quantile, max_iter=60, max_leaf_nodes=8
    ).fit(X[train], y[train])
    assert abs(np.mean(y[train] <= model.predict(X[train])) - quantile) < 0.005
    predicted = model.predict(X[test])
    assert abs(np.mean(y[test] <= predicted) - quantile) < 0.02

    def pinball(prediction):
        r = y[test] - prediction
        return np.mean(np.maximum(quantile * r, (quantile - 1) * r))

    assert pinball(predicted) < 0.9 * pinball(np.quantile(y[train], quantile))
    loaded = quercus.load(model.save(tmp_path / "quantile.qf"))
    np.testing.assert_array_equal(loaded.predict(X[test]), predicted)


@pytest.mark.parametrize(("early_stopping", "subsample"), [(False, 1.0), (True, 0.7)])
def test_warm_start_goes_on_to_the_model_of_one_fit(early_stopping, subsample):
    """25 iterations, then warm_start up to 60, make the model of 60 in one fit, bit for
    bit: the same held-out rows, the trees' seeds and subsamples numbered on, and the
    training rows' scores (out-of-sample rows' too) as prediction gives them."""
    X, signal = binned_data(seed=9)
    X = X + np.random.default_rng(9).normal(0, 0.01, X.shape)  # many bins a leaf leaves empty
    y = (signal > np.median(signal)).astype(int)
    settings = {"early_stopping": early_stopping, "subsample": subsample, "random_state": 3}
    settings |= {"validation_fraction": 0.2, "n_iter_no_change": 40}
    whole = quercus.GradientBoostingClassifier(max_iter=60, **settings).fit(X, y)
    resumed = quercus.GradientBoostingClassifier(max_iter=25, warm_start=True, **settings)
    resumed.fit(X, y)
    first_trees = resumed.trees_
    resumed.set_params(max_iter=60).fit(X, y)
    assert resumed.n_iter_ == whole.n_iter_ > 25
    assert len(resumed.trees_) == whole.n_iter_
    np.testing.assert_array_equal(resumed.decision_function(X), whole.decision_function(X))
    np.testing.assert_array_equal(resumed.train_score_, whole.train_score_)
    np.testing.assert_array_equal(resumed.validation_score_, whole.validation_score_)
    np.testing.assert_array_equal(resumed.trees_.merged.value[: first_trees.merged.node_count],
                                  first_trees.merged.value)  # fmt: skip
    trees = resumed.trees_
    assert resumed.fit(X, y).trees_ is trees  # no more iterations asked for: nothing added


def test_warm_start_refuses_what_would_change_the_fitted_trees():
    X, signal = binned_data(n=300, seed=10)
    y = (signal > np.median(signal)).astype(int)
    model = quercus.GradientBoostingClassifier(max_iter=10, warm_start=True).fit(X, y)
    with pytest.raises(InvalidParameterError, match="max_iter=5 is below the 10 iterations"):
        model.set_params(max_iter=5).fit(X, y)
    with pytest.raises(InvalidParameterError, match="learning_rate of the fitted trees"):
        model.set_params(max_iter=20, learning_rate=0.3).fit(X, y)
    with pytest.raises(ValueError, match="warm_start goes on with the classes of the first"):
        model.set_params(learning_rate=0.1).fit(X, y + 1)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.fit(X, y).n_iter_ == 20
    with pytest.raises(InvalidParameterError, match="which did not stop early"):
        model.set_params(max_iter=30, early_stopping=True).fit(X, y)


def test_early_stopping_on_a_scorer():
    """``scoring`` a scorer's name: each iteration's validation score is the scorer's value
    of the model of that iteration, and the model keeps the best one."""
    X, signal = binned_data(seed=11)
    y = (signal + RNG.normal(0, 0.5, len(signal)) > np.median(signal)).astype(int)
    train, val = slice(0, 2000), slice(2000, None)
    model = quercus.GradientBoostingClassifier(
        max_iter=200, scoring="roc_auc", n_iter_no_change=5, learning_rate=0.3
    ).fit(X[train], y[train], X_val=X[val], y_val=y[val])
    staged = [roc_auc_score(y[val], s) for s in model.staged_decision_function(X[val])]
    np.testing.assert_allclose(model.validation_score_[1 : model.n_iter_ + 1], staged)
    assert len(model.validation_score_) == model.n_iter_ + 6 < 201  # it stopped early
    best = model.validation_score_.max()
    assert model.validation_score_[model.n_iter_] == best
    assert np.all(model.validation_score_[model.n_iter_ + 1 :] <= best + 1e-7)
    # the estimator's own score (accuracy), and a callable scorer
    by_score = quercus.GradientBoostingClassifier(max_iter=20, scoring=None).fit(
        X[train], y[train], X_val=X[val], y_val=y[val]
    )
    last = list(by_score.staged_predict(X[val]))[-1]
    assert by_score.validation_score_[by_score.n_iter_] == accuracy_score(y[val], last)
    calls = []

    def scorer(estimator, X_, y_):
        calls.append(len(y_))
        return -np.mean(np.abs(estimator.predict_proba(X_)[:, 1] - y_))

    quercus.GradientBoostingClassifier(max_iter=4, scoring=scorer, n_iter_no_change=10).fit(
        X[train], y[train], X_val=X[val], y_val=y[val]
    )
    assert calls == [1000] * 5


def test_regression_losses_fit():
    X, signal = binned_data(seed=6)
    positive = np.exp(signal / 2)
    for loss, y in [("huber", signal), ("gamma", positive), ("tweedie", positive)]:
        model = quercus.GradientBoostingRegressor(loss=loss, max_iter=30, early_stopping=False)
        model.fit(X, y)
        assert -model.train_score_[-1] < -model.train_score_[0]
        if loss != "huber":
            assert np.all(model.predict(X) > 0)


@parametrize_with_checks(
    [
        quercus.GradientBoostingClassifier(max_iter=5, random_state=0),
        quercus.GradientBoostingRegressor(max_iter=20, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _rewrite_meta(path, edit):
    """The ensemble file at ``path`` with its ensemble.json edited by ``edit(meta)``."""
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for info, data in entries:
            if info.filename == "ensemble.json":
                meta = json.loads(data)
                edit(meta)
                data = json.dumps(meta).encode()
            archive.writestr(info, data)


def test_a_saved_booster_loads_and_predicts_the_same(tmp_path):
    n = 600
    X = pd.DataFrame(
        {"colour": RNG.choice(["red", "green", "blue"], n), "size": RNG.normal(size=n)}
    )
    X.loc[RNG.random(n) < 0.1, "size"] = np.nan
    y = np.where(X["colour"] == "red", "a", np.where(X["size"] > 0, "b", "c"))
    models = [
        quercus.GradientBoostingClassifier(max_iter=6, random_state=0).fit(X, y),
        quercus.GradientBoostingClassifier(max_iter=6).fit(X, y == "a"),
        quercus.GradientBoostingRegressor(loss="poisson", max_iter=6).fit(X, (y == "a") * 3.0),
    ]
    for k, model in enumerate(models):
        path = model.save(tmp_path / f"b{k}.qf")
        loaded = quercus.load(path)
        assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
        assert loaded.n_iter_ == model.n_iter_ == 6
        assert np.array_equal(loaded.train_score_, model.train_score_)
        predict = "predict_proba" if k < 2 else "predict"
        assert np.array_equal(getattr(loaded, predict)(X), getattr(model, predict)(X))
    # the steps are the fit's: parameters changed after it change no prediction
    model = models[2]
    expected = model.predict(X)
    model.set_params(learning_rate=0.9, l2_regularization=5.0)
    path = model.save(tmp_path / "changed.qf")
    assert np.array_equal(quercus.load(path).predict(X), expected)
    assert np.array_equal(copy.deepcopy(model).predict(X), expected)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["ensemble"].update(n_trees_per_iteration=1), "n_trees_per_iteration"),
        (lambda m: m["ensemble"].update(n_iter=2), "field ensemble.n_iter"),
        (lambda m: m["ensemble"].update(start=[0.0]), "field ensemble.start"),
        (lambda m: m["ensemble"].update(validation_score=[1.0]), "validation_score"),
        (lambda m: m["ensemble"].update(l2_regularization=-1.0), "l2_regularization"),
        (lambda m: m["training"].update(regression=False), "classification trees"),
    ],
)
def test_a_damaged_booster_file_is_refused(tmp_path, edit, message):
    X, signal = binned_data(n=300)
    y = np.digitize(signal, [0.0, 0.7])
    path = quercus.GradientBoostingClassifier(max_iter=3).fit(X, y).save(tmp_path / "b.qf")
    _rewrite_meta(path, edit)
    with pytest.raises(quercus.ModelError, match=message):
        quercus.load(path)


@pytest.mark.parametrize(
    ("task", "options"),
    [
        ("squared_error", {}),
        ("log_loss", {}),
        ("multinomial", {"max_depth": 3}),
        ("poisson", {"min_child_weight": 5.0}),
        ("squared_error", {"l2": 30.0}),
        ("log_loss", {"l2": 2.0, "l1": 1.5}),
        ("multinomial", {"l1": 3.0}),
        ("log_loss", {"min_samples_leaf": 15}),
    ],
)
def test_the_numpy_twin_boosts_the_same_scores(task, options):
    """The loop and its trees against a plain NumPy twin written from the formulas
    (``boosting_twin.py``): every iteration's raw scores of the training rows."""
    X, signal = binned_data(n=400, p=3, levels=12, seed=9)
    codes = X.astype(int)
    if task == "squared_error":
        y, model = signal, quercus.GradientBoostingRegressor()
    elif task == "poisson":
        y = RNG.poisson(np.exp(signal / 2)).astype(float)
        model = quercus.GradientBoostingRegressor(loss="poisson")
    else:
        y = np.digitize(signal, [0.0, 0.7] if task == "multinomial" else [0.3])
        model = quercus.GradientBoostingClassifier()
    settings = TwinSettings(
        learning_rate=0.3, max_iter=6, max_leaf_nodes=7, **{"min_samples_leaf": 1, **options}
    )
    names = {"l2": "l2_regularization", "l1": "l1_regularization"}
    model.set_params(
        learning_rate=0.3,
        max_iter=6,
        max_leaf_nodes=7,
        early_stopping=False,
        **{names.get(key, key): value for key, value in {"min_samples_leaf": 1, **options}.items()},
    )
    model.fit(X, y)
    staged = (
        model.staged_decision_function(X)
        if task in ("log_loss", "multinomial")
        else (np.log(p) if task == "poisson" else p for p in model.staged_predict(X))
    )
    if task in ("log_loss", "multinomial"):
        loss = losses.classification_loss("log_loss", len(np.unique(y)))
    else:
        loss = losses.regression_loss(task)
    history = boost_twin(codes, y, loss, settings)
    for it, ours in enumerate(staged, start=1):
        theirs = history[it] if task == "multinomial" else history[it][:, 0]
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10, err_msg=f"iteration {it}")


def test_quercus_show_and_predict_read_a_saved_booster(tmp_path):
    X, signal = binned_data(n=500, seed=11)
    y = np.digitize(signal, [0.0, 0.7])
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = quercus.GradientBoostingClassifier(max_iter=4).fit(frame, y)
    path = model.save(tmp_path / "b.qf")
    shown = run_cli("show", path)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("GradientBoostingClassifier: 4 iterations (3 trees each")
    assert "training loss: 1.0" in shown.stdout  # log 3 at the start, for three even classes
    top = frame.columns[np.argmax(model.feature_importances_)]
    assert lines[lines.index("attributes by gain importance:") + 1].split()[0] == top
    refused = run_cli("show", path, "--format", "dot")
    assert refused.returncode == 2 and "holds a gradient booster of 12 trees" in refused.stderr
    frame.to_csv(tmp_path / "x.csv", index=False)
    predicted = run_cli("predict", path, tmp_path / "x.csv")
    assert predicted.returncode == 0, predicted.stderr
    assert predicted.stdout.split()[1:] == [str(c) for c in model.predict(frame)]


def test_rows_of_vanishing_hessian_weigh_nothing():
    """A log-loss row scored far the wrong way has a subnormal hessian: its working target
    ``-g / h`` would overflow, so it weighs 0 (and the others keep their Newton targets)."""
    from quercus.ensemble.boosting import newton_targets

    loss = losses.classification_loss("log_loss", 2)
    scores = np.array([[-720.0], [-3.0], [2.0]])
    target, weight = newton_targets(loss, True, np.array([1, 1, 0]), None, np.ones(3), scores)
    assert np.all(np.isfinite(target)) and weight[0, 0] == 0.0 and target[0, 0] == 0.0
    g, h = loss.gradients(np.array([1, 0]), scores[1:], np.ones(2))
    np.testing.assert_allclose(target[1:], -g / h)
    np.testing.assert_allclose(weight[1:], h)


def constrained_data(n=3000, seed=0):
    """A response that goes up and down along x0, with an interaction of x1 and x2."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 4))
    X[rng.random(n) < 0.05, 3] = np.nan
    y = np.sin(3 * X[:, 0]) + X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 0.3, n)
    return X, y


def along(X, feature, model_predict, n_rows=60):
    """Predictions for rows of ``X`` with ``feature`` swept over its range (one row of
    results per row of ``X``)."""
    grid = np.linspace(-2.5, 2.5, 101)
    rows = np.repeat(X[:n_rows], len(grid), axis=0)
    rows[:, feature] = np.tile(grid, n_rows)
    return model_predict(rows).reshape(n_rows, len(grid))


@pytest.mark.parametrize("sign", [1, -1])
def test_monotonic_constraints_hold_on_a_grid(sign):
    """Predictions never go against the constraint along x0 (nor along x1, constrained
    the other way), and the fit is as good as HGB's under the same constraints."""
    X, y = constrained_data()
    cst = [sign, -sign, 0, 0]
    model = quercus.GradientBoostingRegressor(max_iter=40, monotonic_cst=cst).fit(X, y)
    for feature in (0, 1):
        steps = np.diff(along(X, feature, model.predict), axis=1) * cst[feature]
        assert steps.min() >= -1e-12
    hgb = HistGradientBoostingRegressor(max_iter=40, monotonic_cst=cst, early_stopping=False)
    assert abs(model.score(X, y) - hgb.fit(X, y).score(X, y)) < 0.01
    free = quercus.GradientBoostingRegressor(max_iter=40).fit(X, y)
    assert free.score(X, y) > model.score(X, y) + 0.01  # the constraints cost something
    assert np.diff(along(X, 0, free.predict), axis=1).min() < -0.01


def test_monotonic_constraint_of_a_binary_classifier_by_feature_name():
    X, y = constrained_data(seed=1)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    labels = np.where(y > np.median(y), "high", "low")
    model = quercus.GradientBoostingClassifier(max_iter=30, monotonic_cst={"a": 1}).fit(
        frame, labels
    )
    # class 1 is "low": its probability never goes up along "a"
    proba = along(
        X, 0, lambda rows: model.predict_proba(pd.DataFrame(rows, columns=frame.columns))[:, 1]
    )
    assert np.diff(proba, axis=1).max() <= 1e-12


def paths(tree) -> list[set]:
    """The features split on along each root-to-leaf path of ``tree``."""
    out, stack = [], [(0, frozenset())]
    while stack:
        node, seen = stack.pop()
        if tree.kind[node] == 0:
            out.append(set(seen))
            continue
        for child in tree.children[tree.child_start[node] : tree.child_start[node] + 2]:
            stack.append((child, seen | {int(tree.feature[node])}))
    return out


@pytest.mark.parametrize(
    ("cst", "groups", "hgb_cst"),
    [
        ([[0], [1, 2]], [{0}, {1, 2}, {3}], [[0], [1, 2]]),
        ("no_interactions", [{0}, {1}, {2}, {3}], "no_interactions"),
        ([["x1", "x2", "x3"]], [{1, 2, 3}, {0}], [[1, 2, 3]]),
    ],
)
def test_interaction_constraints_hold_on_every_path(cst, groups, hgb_cst):
    """Every path splits on features of one group (the features of no group make one),
    and the fit is as good as HGB's under the same constraints."""
    X, y = constrained_data(seed=2)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"])
    options = {"max_iter": 30, "learning_rate": 0.5, "interaction_cst": cst}
    model = quercus.GradientBoostingRegressor(**options).fit(frame, y)
    seen = set()
    for tree in model.trees_:
        for path in paths(tree):
            assert any(path <= g for g in groups), path
            seen |= path
    assert seen == {0, 1, 2, 3}
    options["interaction_cst"] = hgb_cst
    hgb = HistGradientBoostingRegressor(**options, early_stopping=False)
    assert abs(model.score(frame, y) - hgb.fit(X, y).score(X, y)) < 0.01


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"monotonic_cst": [1, 0]}, "monotonic_cst has 2 entries for 4 features"),
        ({"monotonic_cst": [2, 0, 0, 0]}, "monotonic_cst of 'x0' is 2"),
        ({"monotonic_cst": {"nope": 1}}, "no feature named 'nope'"),
        ({"monotonic_cst": "up"}, "monotonic_cst must be"),
        ({"interaction_cst": [[0, 7]]}, "7 is not a feature index below 4"),
        ({"interaction_cst": "all"}, "interaction_cst must be"),
    ],
)
def test_bad_constraints_are_named(params, message):
    X, y = constrained_data(n=200)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"])
    with pytest.raises(InvalidParameterError, match=message):
        quercus.GradientBoostingRegressor(max_iter=2, **params).fit(frame, y)


def test_monotonic_constraints_refused_where_they_mean_nothing():
    X = pd.DataFrame({"colour": ["r", "g", "b"] * 30, "x": np.arange(90.0)})
    y = np.arange(90) % 3
    with pytest.raises(InvalidParameterError, match="nominal feature's categories"):
        quercus.GradientBoostingRegressor(monotonic_cst=[1, 0]).fit(X, y * 1.0)
    with pytest.raises(InvalidParameterError, match="more than two classes"):
        quercus.GradientBoostingClassifier(monotonic_cst=[0, 1]).fit(X, y)


def test_a_booster_with_step_leaves_saves_and_loads(tmp_path):
    X, y = constrained_data(n=500)
    model = quercus.GradientBoostingRegressor(max_iter=5, monotonic_cst=[1, 0, 0, 0]).fit(X, y)
    assert model.trees_.merged.leaf_model == "step"
    loaded = quercus.load(model.save(tmp_path / "m.qf"))
    assert loaded.trees_.merged.leaf_model == "step"
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
