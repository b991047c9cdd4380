"""``--algorithm boost``: gradient-boosted trees from the command line, driven as a user
drives them: fit, predict, show and evaluate of the saved booster, cv and tune against
scikit-learn's ``cross_val_score`` on the same folds, on iris (three classes: a tree per
class and iteration) and a small regression table, and the errors of what does not apply
to a booster (pruning, ``--dask``, ``gain --trace``)."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score

import quercus
from _helpers import in_process, one_line_error
from quercus.cli.evaluate import cv_splits
from quercus.cli.options import DEFAULT_GRIDS_HELP
from quercus.cli.show import booster_summary
from quercus.estimators.folds import cv_folds
from quercus.model_selection import default_grid

# Few iterations: each run takes a second or so. The command line seeds every fit.
SETTINGS = {"max_iter": 8, "learning_rate": 0.2}
SET = [arg for name, value in SETTINGS.items() for arg in ("--set", f"{name}={value}")]


def ok(*argv) -> str:
    status, out, err = in_process(*argv)
    assert status == 0, err
    return out


def usage_error(*argv) -> str:
    return one_line_error(in_process(*argv), status=2)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """iris as shipped, and a regression table of 240 rows whose target depends on a number
    and on a nominal colour (with a few missing values)."""
    path = tmp_path_factory.mktemp("boost")
    quercus.datasets.copy(path, ["iris"])
    rng = np.random.default_rng(0)
    n = 240
    x = rng.uniform(0, 10, n)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    y = np.where(x > 5, 20.0, 5.0) + (colour == "red") * 4 + rng.normal(0, 1.0, n)
    x[::31] = np.nan
    frame = pd.DataFrame({"x": x.round(3), "colour": colour, "y": y.round(3)})
    frame.to_csv(path / "numeric.csv", index=False)
    return path


@pytest.fixture(scope="module")
def iris(work):
    """``quercus fit iris.csv --algorithm boost -o MODEL``: its output, the model file, and
    the booster fitted in Python with the same parameters."""
    model = work / "iris.qf"
    out = ok("fit", work / "iris.csv", "--algorithm", "boost", *SET, "-o", model, "-q")
    X, y = quercus.read_table(work / "iris.csv")
    fitted = quercus.GradientBoostingClassifier(**SETTINGS, random_state=0).fit(X, y)
    return out, model, fitted


def test_fit_prints_the_booster_and_saves_it(iris, work):
    out, model, fitted = iris
    assert out.startswith(
        "task: classification of 'class' into 3 classes (Iris-setosa, Iris-versicolor, "
        "Iris-virginica) with gradient boosting (GradientBoostingClassifier), 150 rows x 4 "
        "attributes\n"
    )
    assert booster_summary(fitted) in out
    assert "GradientBoostingClassifier: 8 iterations (3 trees each, one per class)" in out
    X, y = quercus.read_table(work / "iris.csv")
    correct = int((fitted.predict(X) == y.to_numpy(dtype=object)).sum())
    assert out.endswith(f"training accuracy: {correct / 150:.3f} ({correct} of 150 rows)\n")
    saved = quercus.load(model)
    assert isinstance(saved, quercus.GradientBoostingClassifier)
    assert saved.get_params() == fitted.get_params()  # --set reached the booster
    assert saved.learning_rate_ == 0.2 and saved.n_iter_ == 8 and len(saved.trees_) == 24
    np.testing.assert_array_equal(saved.predict_proba(X), fitted.predict_proba(X))


def test_predict_and_show_read_the_saved_booster(iris, work):
    out, model, fitted = iris
    X, _ = quercus.read_table(work / "iris.csv")
    predicted = pd.read_csv(io.StringIO(ok("predict", model, work / "iris.csv", "--proba")))
    assert predicted["prediction"].tolist() == fitted.predict(X).tolist()
    proba = predicted[[f"P({c})" for c in fitted.classes_]].to_numpy()
    np.testing.assert_allclose(proba, fitted.predict_proba(X), rtol=1e-15, atol=1e-15)
    shown = ok("show", model)
    assert shown == booster_summary(fitted) and shown in out
    best = fitted.schema_.names[int(np.argmax(fitted.feature_importances_))]
    assert shown.split("attributes by gain importance:\n")[1].split()[0] == best
    document = json.loads(ok("show", model, "--format", "json"))
    assert document["estimator"] == "GradientBoostingClassifier"
    message = usage_error("show", model, "--tree", "0")
    assert "holds a gradient booster of 24 trees" in message


def test_evaluate_the_saved_booster(iris, work):
    _, model, fitted = iris
    X, y = quercus.read_table(work / "iris.csv")
    correct = int((fitted.predict(X) == y.to_numpy(dtype=object)).sum())
    out = ok("evaluate", model, work / "iris.csv")
    assert f"accuracy: {correct / 150:.4f} ({correct} of 150 rows)" in out
    assert "true \\ predicted" in out


def test_a_numeric_target_is_a_boosted_regression(work, tmp_path):
    data, model = work / "numeric.csv", tmp_path / "numeric.qf"
    out = ok("fit", data, "--algorithm", "boost", *SET, "--test", data, "-o", model, "-q")
    assert out.startswith("task: regression of 'y' (numeric with ")
    assert "with gradient boosting (GradientBoostingRegressor), 240 rows x 2 attributes" in out
    X, y = quercus.read_table(data)
    fitted = quercus.GradientBoostingRegressor(**SETTINGS, random_state=0).fit(X, y)
    score = fitted.score(X, y)
    assert booster_summary(fitted) in out
    assert f"training R^2: {score:.3f}\n" in out
    assert f"R^2:  {score:.4f}\n" in out  # the evaluation of --test, the same rows
    saved = quercus.load(model)
    assert isinstance(saved, quercus.GradientBoostingRegressor)
    np.testing.assert_array_equal(saved.predict(X), fitted.predict(X))
    assert f"R^2:  {score:.4f}\n" in ok("evaluate", model, data)


def fold_scores(out: str) -> list[str]:
    """The score of each fold, as printed."""
    return [line.split()[-1] for line in out.splitlines() if line.startswith("  fold ")]


def test_cv_fold_scores_are_cross_val_score_on_the_same_folds(work):
    out = ok("cv", work / "iris.csv", "--algorithm", "boost", "--folds", 3, *SET, "-q")
    assert "3-fold stratified cross-validation (shuffled, seed 0)\n" in out
    table = quercus.read_table(work / "iris.csv")
    y = np.asarray(table.y)
    booster = quercus.GradientBoostingClassifier(**SETTINGS, random_state=0)
    expected = cross_val_score(booster, table.X, y, cv=cv_folds(3, 0, n_rows=len(y), classes=y))
    assert fold_scores(out) == [f"{s:.3f}" for s in expected]
    assert f"accuracy: mean {np.mean(expected):.3f}, " in out


def test_cv_of_a_regression_and_compared_with_cart(work):
    data = work / "numeric.csv"
    out = ok("cv", data, "--algorithm", "boost", "--folds", 3, *SET, "-q")
    X, y = quercus.read_table(data)
    splits = cv_splits(y, folds=3, seed=0, regression=True)
    booster = quercus.GradientBoostingRegressor(**SETTINGS, random_state=0)
    expected = cross_val_score(booster, X, y, cv=splits)
    assert fold_scores(out) == [f"{s:.3f}" for s in expected]
    out = ok("cv", data, "--algorithm", "cart", "--compare", "boost", "--folds", 3, *SET)
    assert "compared with gradient boosting (GradientBoostingRegressor)\n" in out
    assert "--set max_iter applies to gradient boosting only\n" in out
    assert "R^2 of CART: mean " in out and "R^2 of gradient boosting: mean " in out


def test_tune_searches_the_default_grid(work, tmp_path):
    best = tmp_path / "best.qf"
    data = work / "iris.csv"
    # --set max_iter fixes the iterations, which the default grid holds at 50.
    out = ok("tune", data, "--algorithm", "boost", "--folds", 3, "--set", "max_iter=5", "-o", best)
    assert (
        "grid search: 9 candidates x 3 stratified folds (shuffled, seed 0) = 27 fits, scored "
        "by accuracy (the default grid)\n"
    ) in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    assert lines[start].split() == ["rank", "learning_rate", "max_leaf_nodes", "accuracy", "std"]
    rows = [line.split() for line in lines[start + 1 : start + 10]]
    assert sorted((float(r[1]), int(r[2])) for r in rows) == [
        (rate, leaves) for rate in (0.05, 0.1, 0.2) for leaves in (15, 31, 63)
    ]
    table = quercus.read_table(data)
    y = np.asarray(table.y)
    splits = cv_folds(3, 0, n_rows=len(y), classes=y)
    for _rank, rate, leaves, mean, _std in rows[:3]:
        booster = quercus.GradientBoostingClassifier(
            max_iter=5, learning_rate=float(rate), max_leaf_nodes=int(leaves), random_state=0
        )
        scores = cross_val_score(booster, table.X, y, cv=splits)
        assert float(mean) == pytest.approx(np.mean(scores), abs=5e-4)
    _, rate, leaves, *_ = rows[0]
    assert (
        f"best: gradient boosting (GradientBoostingClassifier) with learning_rate={rate}, "
        f"max_leaf_nodes={leaves}\n"
    ) in out
    saved = quercus.load(best)
    refit = quercus.GradientBoostingClassifier(
        max_iter=5, learning_rate=float(rate), max_leaf_nodes=int(leaves), random_state=0
    ).fit(table.X, y)
    assert saved.get_params() == refit.get_params()
    np.testing.assert_array_equal(saved.predict_proba(table.X), refit.predict_proba(table.X))


def test_the_default_grid_is_documented():
    grid = [{"learning_rate": [0.05, 0.1, 0.2], "max_leaf_nodes": [15, 31, 63], "max_iter": [50]}]
    assert default_grid(quercus.GradientBoostingClassifier()) == grid
    assert default_grid(quercus.GradientBoostingRegressor) == grid
    assert "boost: learning_rate=0.05|0.1|0.2, max_leaf_nodes=15|31|63, max_iter=50." in (
        DEFAULT_GRIDS_HELP
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["fit", "--set", "pruning=None"],
            "--set pruning does not apply to --algorithm boost (gradient boosting): a booster's "
            "trees are not pruned: max_leaf_nodes, max_depth, min_samples_leaf and "
            "min_child_weight bound their size",
        ),
        (["report", "-o", "r.html", "--set", "ccp_alpha=0.01"], "--set ccp_alpha does not apply"),
        (["cv", "--set", "n_estimators=5"], "a booster grows max_iter iterations"),
        (["tune", "--grid", "confidence=0.1,0.25"], "--grid confidence does not apply to"),
        (
            ["fit", "--dask", "local"],
            "--algorithm boost is not available with --dask: gradient boosting on a Dask "
            "cluster does not exist yet: a booster learns from the rows in memory; use "
            "--algorithm cart, id3 or forest (or quercus fit without --dask)",
        ),
        (
            ["gain", "--trace"],
            "--trace follows the growth of one tree; --algorithm boost (gradient boosting) "
            "grows many: use --algorithm id3, c45, c45rules or cart",
        ),
        (["fit", "--set", "max_iter=0"], "--set max_iter: "),
        (["fit", "--set", "max_ite=5"], "unknown parameter 'max_ite' (did you mean max_iter?)"),
    ],
)
def test_what_does_not_apply_to_a_booster_is_a_usage_error(tmp_path, argv, message):
    command, *options = argv
    data = tmp_path / "nowhere.csv"  # said before the data is read
    assert message in usage_error(command, data, "--algorithm", "boost", *options)
