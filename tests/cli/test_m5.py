"""``--algorithm m5``: M5's model trees (Weka's M5P) from the command line, driven as a user
drives them: fit, show, evaluate, cv and tune on abalone and on a small generated table, the
task of a numeric target of few integer values, and the errors of a class target, of
``--dask`` and of a parameter the model tree does not have."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import quercus
from _helpers import in_process as cli
from quercus.cli.evaluate import cv_splits
from quercus.cli.options import DEFAULT_GRIDS_HELP

ABALONE = quercus.datasets.path("abalone")
M5_PARAMETERS = (
    "leaf_model, max_depth, min_samples_split, n_jobs, nominal_features, ordinal_features, "
    "pruning, smoothing"
)


def ok(*argv) -> str:
    status, out, err = cli(*argv)
    assert status == 0, err
    return out


def error(status_expected: int, *argv) -> str:
    """The one error line of a failed run (after the usage lines of a usage error)."""
    status, _, err = cli(*argv)
    assert status == status_expected, err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A small table whose target y depends on x by pieces (a model tree's case), the same
    with y rounded to a few integer counts, and the same with the class colour last."""
    path = tmp_path_factory.mktemp("m5")
    rng = np.random.default_rng(0)
    n = 120
    x, z = rng.uniform(0, 10, n), rng.uniform(0, 5, n)
    colour = rng.choice(["red", "green", "blue"], n)
    y = np.where(x > 5, 2 * x, 10 - x) + z + (colour == "red") * 3 + rng.normal(0, 0.3, n)
    frame = pd.DataFrame({"x": x.round(3), "z": z.round(3), "colour": colour, "y": y.round(3)})
    frame.to_csv(path / "small.csv", index=False)
    counts = np.clip(np.round(y / 3), 0, 8).astype(int)
    frame.assign(y=counts).to_csv(path / "counts.csv", index=False)
    frame[["x", "z", "y", "colour"]].to_csv(path / "colours.csv", index=False)
    return path


@pytest.fixture(scope="module")
def abalone(tmp_path_factory):
    """``quercus fit abalone --algorithm m5 -o MODEL``: its output and the saved model."""
    model = tmp_path_factory.mktemp("m5-abalone") / "rings.json"
    out = ok("fit", ABALONE, "--algorithm", "m5", "-q", "-o", model)
    return out, model


def equations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("LM")]


def test_fit_prints_the_tree_its_linear_models_and_r2(abalone):
    out, path = abalone
    X, y = quercus.read_table(ABALONE)
    model = quercus.load(path)
    assert isinstance(model, quercus.ModelTreeRegressor)
    assert out.startswith(
        "task: regression of 'Class_Rings' (numeric with 28 distinct integer values, more "
        "than 20) with M5 model tree (ModelTreeRegressor), 4,177 rows x 8 attributes\n"
    )
    assert model.export_text() in out
    assert "LM1 (n=" in out
    first = equations(out)[0]
    assert first.startswith("LM1: Class_Rings = ") and " * Shell weight " in first
    assert len(equations(out)) == model.tree_.n_leaves
    assert out.endswith(f"training R^2: {model.score(X, y):.3f}\n")
    assert "defaults" not in out  # M5P's own defaults: nothing set by the command line


def test_smoothing_off_changes_the_equations_not_the_tree(abalone):
    smoothed, _ = abalone
    raw = ok("fit", ABALONE, "--algorithm", "m5", "--set", "smoothing=False", "-q")
    tree = [line for line in smoothed.splitlines() if "(n=" in line]
    assert tree == [line for line in raw.splitlines() if "(n=" in line]
    assert len(equations(raw)) == len(equations(smoothed))
    assert equations(raw) != equations(smoothed)


@pytest.mark.parametrize(
    "settings",
    [
        {"smoothing": False},
        {"pruning": False},
        {"leaf_model": "mean"},
        {"min_samples_split": 10},
        {"max_depth": 1, "smoothing": False},
    ],
)
def test_set_gives_the_estimators_parameters(work, settings):
    data = work / "small.csv"
    given = [arg for k, v in settings.items() for arg in ("--set", f"{k}={v}")]
    out = ok("fit", data, "--algorithm", "m5", *given, "-q")
    X, y = quercus.read_table(data)
    assert quercus.ModelTreeRegressor(**settings).fit(X, y).export_text() in out


def test_mean_leaves_are_constant_models(work):
    out = ok("fit", work / "small.csv", "--algorithm", "m5", "--set", "leaf_model=mean", "-q")
    for line in equations(out):
        float(line.split(" = ")[1])  # a number, no terms


def test_show_a_saved_model_tree(abalone):
    _, path = abalone
    model = quercus.load(path)
    assert ok("show", path) == model.export_text()
    assert ok("show", path, "--format", "rules") == model.export_rules()
    assert ok("show", path, "--format", "dot") == model.export_graphviz()
    document = json.loads(ok("show", path, "--format", "json"))
    assert document["format"] == "quercus-model"
    weka = ok("show", path, "--format", "weka")
    assert weka == model.export_text(style="weka")
    assert weka.startswith("M5 pruned model tree:\n(using smoothed linear models)\n")
    assert "LM num: 1\nClass_Rings = \n" in weka


def test_show_weka_of_other_trees(work, tmp_path):
    tree = tmp_path / "cart.json"
    ok("fit", work / "small.csv", "--algorithm", "cart", "-q", "-o", tree)
    message = error(1, "show", tree, "--format", "weka")
    assert message == (
        f"quercus: error: --format weka: {tree} holds a CARTRegressor; Weka's layouts are "
        "J48's, for classification trees, and M5P's, for model trees (--algorithm m5)"
    )
    j48 = tmp_path / "c45.json"
    ok("fit", work / "colours.csv", "--algorithm", "c45", "-q", "-o", j48)
    assert ok("show", j48, "--format", "weka") == quercus.load(j48).export_text(style="weka")
    message = error(2, "show", j48, "--format", "weka", "--max-depth", "1")
    assert message.endswith(
        "--max-depth does not apply to --format weka, which is Weka's whole tree"
    )


def test_evaluate_and_fit_test(abalone):
    _, path = abalone
    X, y = quercus.read_table(ABALONE)
    out = ok("evaluate", path, ABALONE)
    assert f"R^2:  {quercus.load(path).score(X, y):.4f}\n" in out
    assert "RMSE: " in out and "MAE: " in out


def test_cv_prints_r2_per_fold_and_the_pooled_rmse(work):
    data = work / "small.csv"
    out = ok("cv", data, "--algorithm", "m5", "--folds", 3, "-q")
    assert out.startswith("task: regression of 'y' (numeric with 120 distinct values, not all")
    assert "3-fold cross-validation (shuffled, seed 0)\n" in out
    assert "  fold 1: R^2 " in out and "R^2: mean " in out
    # The pooled out-of-fold errors, against the folds fitted here.
    X, y = quercus.read_table(data)
    predicted = np.empty(len(y))
    for train, test in cv_splits(y, folds=3, seed=0, regression=True):
        fitted = clone(quercus.ModelTreeRegressor()).fit(X.iloc[train], y.iloc[train])
        predicted[test] = fitted.predict(X.iloc[test])
    error_ = predicted - y.to_numpy()
    rmse, mae = np.sqrt(np.mean(error_**2)), np.mean(np.abs(error_))
    assert out.endswith(
        f"\nerrors of the pooled out-of-fold predictions\n  RMSE {rmse:.4g}, MAE {mae:.4g}\n"
    )


def test_cv_compares_m5_with_cart(work):
    out = ok("cv", work / "small.csv", "--algorithm", "cart", "--compare", "m5", "--folds", 3)
    assert "compared with M5 model tree (ModelTreeRegressor)\n" in out
    assert "R^2 of CART: mean " in out and "R^2 of M5 model tree: mean " in out
    assert "paired comparison on the same 3 folds" in out
    lines = out.splitlines()
    rmse = lines[lines.index("errors of the pooled out-of-fold predictions") + 1 :]
    assert [line.split()[0] for line in rmse] == ["CART", "M5"]
    assert all("RMSE " in line and ", MAE " in line for line in rmse)


def test_tune_searches_the_default_grid(work, tmp_path):
    best = tmp_path / "best.json"
    out = ok("tune", work / "small.csv", "--algorithm", "m5", "--folds", 3, "-q", "-o", best)
    assert "grid search: 6 candidates x 3 folds (shuffled, seed 0) = 18 fits, scored by R^2 " in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    assert lines[start].split() == ["rank", "min_samples_split", "smoothing", "R^2", "std"]
    rows = [line.split() for line in lines[start + 1 : start + 7]]
    assert sorted((r[1], r[2]) for r in rows) == [
        (split, smoothing) for split in ("10", "25", "4") for smoothing in ("False", "True")
    ]
    assert "best: M5 model tree (ModelTreeRegressor) with min_samples_split=" in out
    assert isinstance(quercus.load(best), quercus.ModelTreeRegressor)
    assert "m5 (regression only): min_samples_split=4|10|25, smoothing=True|False" in (
        DEFAULT_GRIDS_HELP
    )


def test_few_integer_values_are_a_regression_for_m5(work, tmp_path):
    data, model = work / "counts.csv", tmp_path / "counts.json"
    out = ok("fit", data, "--algorithm", "m5", "-q", "-o", model)
    assert out.startswith(
        "task: regression of 'y' (numeric with 7 distinct integer values, learned as numbers "
        "by M5 model tree; other algorithms take 20 or fewer as classes) with M5 model tree"
    )
    assert "LM1: y = " in out
    # The other algorithms read the same target as classes ...
    assert ok("fit", data, "--algorithm", "cart", "-q").startswith("task: classification")
    # ... and the model tree is evaluated on it as a regression.
    assert "R^2: " in ok("evaluate", model, data)
    # With m5 in a comparison, it is a regression for both.
    out = ok("cv", data, "--algorithm", "cart", "--compare", "m5", "--folds", 3, "-q")
    assert "with CART (CARTRegressor)" in out.splitlines()[0]


def test_a_class_target_is_a_data_error_naming_the_column(work):
    data = work / "colours.csv"
    expected = (
        f"quercus: error: {data}: target 'colour' is nominal with 3 classes (blue, green, red): "
        "M5 model tree learns numeric targets; use --algorithm id3, c45, c45rules, cart, "
        "forest or boost for classes"
    )
    assert error(1, "fit", data, "--algorithm", "m5") == expected
    assert error(1, "cv", data, "--algorithm", "m5") == expected
    assert error(1, "tune", data, "--algorithm", "m5") == expected
    assert error(1, "cv", data, "--algorithm", "c45", "--compare", "m5") == expected


def test_m5_with_a_classes_only_algorithm_is_a_data_error(work):
    data = work / "counts.csv"
    message = error(1, "cv", data, "--algorithm", "c45", "--compare", "m5")
    assert message == (
        f"quercus: error: {data}: target 'y' is numeric with 7 distinct integer values, a "
        "regression for --compare m5 (M5 model tree), but --algorithm c45 (C4.5) learns "
        "classes: the two cannot be compared (cart, forest and boost learn both)"
    )
    message = error(1, "tune", data, "--algorithm", "m5,id3")
    assert message == (
        f"quercus: error: {data}: target 'y' is numeric with 7 distinct integer values, a "
        "regression for --algorithm m5: ID3 learns classes; use --algorithm cart (or forest or "
        "boost) for regression, or m5 for a model tree"
    )


def test_dask_is_a_usage_error(work):
    message = error(2, "fit", work / "small.csv", "--algorithm", "m5", "--dask", "local")
    assert message == (
        "quercus fit: error: --algorithm m5 is not available with --dask: M5's model trees fit "
        "a linear model at every node and prune and smooth them over the rows in memory; use "
        "--algorithm cart, id3 or forest (or quercus fit without --dask)"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["fit", "--set", "min_samples_leaf=2"],
            "unknown parameter 'min_samples_leaf' (did you mean min_samples_split?) for "
            f"--algorithm m5 (ModelTreeRegressor); valid parameters: {M5_PARAMETERS}",
        ),
        (
            ["fit", "--set", "leaf_model=quadratic"],
            "--set leaf_model: leaf_model must be one of 'linear' or 'mean', got 'quadratic'",
        ),
        (["cv", "--set", "criterion=gini"], "unknown parameter 'criterion' for m5"),
        (["tune", "--grid", "min_samples_leaf=1,2"], "unknown parameter 'min_samples_leaf'"),
        (
            ["gain", "--trace"],
            "--trace follows the growth of id3, c45, c45rules or cart; --algorithm m5 (M5 "
            "model tree) scores its splits on its own terms and records no trace",
        ),
    ],
)
def test_usage_errors_before_the_data_is_read(tmp_path, argv, message):
    command, *options = argv
    line = error(2, command, tmp_path / "nowhere.csv", "--algorithm", "m5", *options)
    assert message in line
