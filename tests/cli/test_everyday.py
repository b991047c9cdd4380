"""The command line's everyday jobs as Weka's and C5.0's users run them: forests, evaluation
on a test file, predictions with the actual value, readable CART trees, column kinds
from flags, shipped data sets, and the messages that help a newcomer."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import BaggingClassifier
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import cross_val_score

import quercus
from _helpers import run_cli
from quercus.cli.tasks import READABLE_CART
from quercus.estimators.folds import cv_folds

# car's columns of codes that mix numbers and words (doors 5more, persons more)
CAR_CODES = ["doors", "persons"]


def ok(result):
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The shipped data sets as CSV files, through ``quercus datasets --copy``, and a
    train/test split of car."""
    path = tmp_path_factory.mktemp("everyday")
    ok(run_cli("datasets", "--copy", path))
    car = pd.read_csv(path / "car.csv", dtype=str)
    test = car.sample(frac=0.25, random_state=0)
    car.drop(test.index).to_csv(path / "car_train.csv", index=False)
    test.to_csv(path / "car_test.csv", index=False)
    return path


@pytest.mark.slow
def test_datasets_lists_and_copies_the_shipped_files(data, tmp_path):
    listed = ok(run_cli("datasets"))
    for name in quercus.datasets.names():
        assert name in listed
    written = ok(run_cli("datasets", "iris", "car", "--copy", tmp_path / "new")).split()
    assert [p.rsplit("/", 1)[-1] for p in written] == ["iris.csv", "car.csv"]
    assert (tmp_path / "new" / "car.csv").read_bytes() == quercus.datasets.path("car").read_bytes()
    assert run_cli("datasets", "nosuch", "--copy", tmp_path).returncode == 2


def test_datasets_path_reads_as_load(data):
    for name in ("car", "iris", "abalone"):
        # car's doors (2, 3, 4, 5more) and persons (2, 4, more) are category labels: read as
        # nominal without a warning (which the suite would turn into an error).
        X, y = quercus.read_table(quercus.datasets.path(name))
        frame = quercus.datasets.load(name)
        assert len(X) == len(frame) and y.name == frame.columns[-1]


# -- forests -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_forest_fit_predict_show_and_cv(data):
    model = data / "forest.qf"
    out = ok(
        run_cli(
            "fit",
            data / "car_train.csv",
            "--algorithm",
            "forest",
            "--set",
            "n_estimators=20",
            "--set",
            "random_state=0",
            "-o",
            model,
        )
    )
    assert "with random forest (RandomForestClassifier)" in out
    assert "RandomForestClassifier: 20 trees, classification into 4 classes" in out
    forest = quercus.load(model)
    assert f"out-of-bag accuracy: {forest.oob_score_:.4f}" in out
    shown = ok(run_cli("show", model))
    assert "attributes by impurity importance:" in shown
    best = forest.schema_.names[int(np.argmax(forest.feature_importances_))]
    assert shown.split("attributes by impurity importance:\n")[1].split()[0] == best
    tree3 = ok(run_cli("show", model, "--tree", "3"))
    assert tree3 == forest.estimators_[3].export_text()
    assert run_cli("show", model, "--tree", "20").returncode == 2
    assert run_cli("show", model, "--format", "dot").returncode == 2  # which tree?
    predicted = pd.read_csv(io.StringIO(ok(run_cli("predict", model, data / "car_test.csv"))))
    X_test, _ = quercus.read_table(data / "car_test.csv", nominal=CAR_CODES)
    assert predicted["prediction"].tolist() == forest.predict(X_test).tolist()
    cv = ok(run_cli("cv", data / "car.csv", "--algorithm", "forest", "--set", "n_estimators=5"))
    assert "10-fold stratified cross-validation" in cv


# -- evaluation ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_fit_with_a_test_file_and_evaluate_agree_with_scikit_learn(data):
    model = data / "c45.json"
    out = ok(run_cli("fit", data / "car_train.csv", "--test", data / "car_test.csv", "-o", model))
    report = out.split("\n\n", 1)[1] if "evaluation on" not in out.split("\n\n")[0] else out
    evaluated = ok(run_cli("evaluate", model, data / "car_test.csv"))
    assert evaluated in out  # the same report
    tree = quercus.load(model)
    X, y = quercus.read_table(data / "car_test.csv", nominal=CAR_CODES)
    predicted = tree.predict(X)
    truth = np.asarray(y.astype(object))
    accuracy = np.mean(predicted == truth)
    assert (
        f"accuracy: {accuracy:.4f} ({int((predicted == truth).sum()):,} of {len(y)} rows)" in report
    )
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, predicted, labels=list(tree.classes_), zero_division=0.0
    )
    for k, label in enumerate(tree.classes_):
        row = next(line.split() for line in evaluated.splitlines() if line.startswith(label + " "))
        assert row == [
            label,
            f"{precision[k]:.3f}",
            f"{recall[k]:.3f}",
            f"{f1[k]:.3f}",
            f"{support[k]:,}",
        ]
    assert "true \\ predicted" in evaluated


@pytest.mark.slow
def test_evaluate_a_regression_tree(data):
    model = data / "abalone.json"
    ok(run_cli("fit", data / "abalone.csv", "--algorithm", "cart", "-o", model, "-q"))
    out = ok(run_cli("evaluate", model, data / "abalone.csv"))
    tree = quercus.load(model)
    X, y = quercus.read_table(data / "abalone.csv")
    error = tree.predict(X) - y.to_numpy(dtype=float)
    assert f"RMSE: {np.sqrt(np.mean(error**2)):.4g}" in out
    assert f"MAE:  {np.mean(np.abs(error)):.4g}" in out
    assert f"R^2:  {tree.score(X, y):.4f}" in out


@pytest.mark.slow
def test_evaluate_skips_the_rows_whose_target_is_missing(data, tmp_path):
    model = data / "tennis_c45.json"
    ok(run_cli("fit", data / "playtennis.csv", "-o", model, "-q"))
    frame = pd.read_csv(data / "playtennis.csv")
    frame.loc[3, "PlayTennis"] = None
    frame.to_csv(tmp_path / "some_unknown.csv", index=False)
    result = run_cli("evaluate", model, tmp_path / "some_unknown.csv")
    assert result.returncode == 0, result.stderr
    assert "dropped 1 of 14 rows whose target 'PlayTennis' is missing" in result.stderr
    assert "(13 rows)" in result.stdout and "accuracy: 1.0000 (13 of 13 rows)" in result.stdout


@pytest.mark.slow
def test_evaluate_names_a_missing_target_column(data):
    model = data / "tennis.json"
    ok(run_cli("fit", data / "playtennis.csv", "-o", model, "-q"))
    result = run_cli("evaluate", model, data / "car.csv")
    assert result.returncode == 1
    assert "car.csv" in result.stderr and "'PlayTennis' not found" in result.stderr


@pytest.mark.slow
def test_predict_with_the_actual_value_and_an_id(data):
    model = data / "tennis_id3.json"
    ok(run_cli("fit", data / "car_train.csv", "--algorithm", "id3", "-o", model, "-q"))
    out = ok(run_cli("predict", model, data / "car_test.csv", "--actual", "--id", "safety"))
    table = pd.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)
    assert list(table.columns) == ["safety", "prediction", "actual", "error"]
    test = pd.read_csv(data / "car_test.csv", dtype=str)
    assert table["safety"].tolist() == test["safety"].tolist()
    assert table["actual"].tolist() == test["class"].tolist()
    wrong = table["prediction"] != table["actual"]
    assert (table["error"] == np.where(wrong, "+", "")).all()
    assert wrong.any() and not wrong.all()


@pytest.mark.slow
def test_predict_actual_of_a_regression_is_the_difference(data):
    model = data / "abalone_full.json"
    ok(
        run_cli(
            "fit", data / "abalone.csv", "--algorithm", "cart", "--set", "max_depth=3", "-o", model
        )
    )
    table = pd.read_csv(
        io.StringIO(ok(run_cli("predict", model, data / "abalone.csv", "--actual")))
    )
    np.testing.assert_allclose(table["error"], table["prediction"] - table["actual"])


# -- regression defaults, column kinds, messages ------------------------------------------------


@pytest.mark.slow
def test_a_regression_tree_is_readable_by_default_and_says_so(data):
    out = ok(run_cli("fit", data / "abalone.csv", "--algorithm", "cart"))
    note = out.splitlines()[1]
    assert note.startswith("defaults for a readable regression tree (as rpart's): ")
    assert "min_samples_split=20, min_samples_leaf=7" in note
    assert "ccp_alpha chosen by 10-fold cross-validation" in note
    X, y = quercus.read_table(data / "abalone.csv")
    tree = quercus.CARTRegressor(**READABLE_CART).fit(X, y)
    assert f"({tree.ccp_alpha_:.6g})" in note
    assert tree.get_n_leaves() < 100  # the full tree has about a leaf per row
    assert out.count(" (n=") == tree.get_n_leaves()
    full = ok(run_cli("fit", data / "abalone.csv", "--algorithm", "cart", "--set", "ccp_alpha=0.0"))
    assert "ccp_alpha chosen" not in full and full.count(" (n=") > tree.get_n_leaves()


def test_a_classification_tree_is_pruned_as_a_regression_tree_and_says_so(shared):
    # Not the full tree, which fits every training row (diabetes: 1.000), but rpart's
    # settings and the alpha of 10-fold cross-validation with the one-standard-error rule.
    path = shared("diabetes.csv")
    out = ok(run_cli("fit", path, "--algorithm", "cart")).splitlines()
    note = out[1]
    assert note.startswith("defaults for a readable classification tree (as rpart's): ")
    assert "min_samples_split=20, min_samples_leaf=7" in note
    assert "ccp_alpha chosen by 10-fold cross-validation with the one-standard-error rule" in note
    X, y = quercus.read_table(path)
    tree = quercus.CARTClassifier(**READABLE_CART).fit(X, y)
    assert f"({tree.ccp_alpha_:.6g})" in note and tree.ccp_alpha_ > 0
    assert out[2:-1] == tree.export_text().splitlines()
    full = quercus.CARTClassifier().fit(X, y)
    assert full.score(X, y) == 1.0 and tree.get_n_leaves() < full.get_n_leaves() / 5
    assert out[-1].startswith(f"training accuracy: {tree.score(X, y):.3f} ")
    # quercus cv scores that estimator, and says so.
    cv = ok(run_cli("cv", path, "--algorithm", "cart", "--folds", 5))
    assert cv.splitlines()[1].startswith("defaults for a readable classification tree")
    splits = cv_folds(5, 0, n_rows=len(y), classes=np.asarray(y))
    scores = cross_val_score(quercus.CARTClassifier(**READABLE_CART), X, y, cv=splits)
    assert (
        f"accuracy: mean {scores.mean():.3f}, standard deviation {scores.std(ddof=1):.3f} "
        "over 5 folds"
    ) in cv


@pytest.mark.slow
def test_nominal_and_ordinal_flags(data, tmp_path):
    frame = pd.DataFrame(
        {
            "code": [1, 2, 3, 1, 2, 3, 1, 2],
            "size": ["small", "large", "medium", "small", "large", "medium", "small", "large"],
            "y": ["a", "b", "b", "a", "b", "b", "a", "b"],
        }
    )
    frame.to_csv(tmp_path / "kinds.csv", index=False)
    model = tmp_path / "kinds.json"
    ok(
        run_cli(
            "fit",
            tmp_path / "kinds.csv",
            "--nominal",
            "code",
            "--ordinal",
            "size=small<medium<large",
            "--algorithm",
            "cart",
            "-o",
            model,
        )
    )
    schema = quercus.load(model).schema_
    assert schema["code"].kind == "nominal" and schema["code"].categories == ("1", "2", "3")
    assert schema["size"].kind == "ordinal"
    assert schema["size"].categories == ("small", "medium", "large")
    bad = run_cli("fit", tmp_path / "kinds.csv", "--ordinal", "size=small")
    assert bad.returncode == 2 and "COLUMN=low<...<high" in bad.stderr
    absent = run_cli("fit", tmp_path / "kinds.csv", "--nominal", "colour")
    assert absent.returncode == 1 and "kinds.csv" in absent.stderr and "'colour'" in absent.stderr


def test_a_misspelt_parameter_gets_a_suggestion(data):
    result = run_cli("fit", data / "playtennis.csv", "--set", "max_dept=3")
    assert result.returncode == 2
    assert "unknown parameter 'max_dept' (did you mean max_depth?)" in result.stderr


def test_one_class_is_said_in_the_singular(tmp_path):
    frame = pd.DataFrame({"x": ["a", "b", "a"], "z": [1, 2, 3], "y": ["p", "p", "p"]})
    frame.to_csv(tmp_path / "one.csv", index=False)
    out = ok(run_cli("fit", tmp_path / "one.csv", "--algorithm", "id3"))
    assert "into 1 class (p)" in out and "3 rows x 2 attributes" in out


@pytest.mark.slow
def test_gain_and_trace_say_how_they_count_missing_values_and_agree_when_it_is_the_same(
    tmp_path,
):
    rng = np.random.default_rng(1)
    n = 60
    frame = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.choice(["p", "q"], n),
            "c": rng.normal(size=n),
        }
    )
    frame["cls"] = np.where((frame["a"] == "x") | (frame["c"] > 0.5), "yes", "no")
    frame.loc[rng.random(n) < 0.2, "a"] = None
    frame.loc[rng.random(n) < 0.2, "c"] = np.nan
    frame.to_csv(tmp_path / "vote.csv", index=False)
    plain = ok(run_cli("gain", tmp_path / "vote.csv"))
    assert "missing values: gain on the cases whose value is known, times their share" in plain
    trace = ok(run_cli("gain", tmp_path / "vote.csv", "--trace"))
    assert "missing values: missing='majority': a case with a missing value counts" in trace
    same = ok(run_cli("gain", tmp_path / "vote.csv", "--trace", "--set", "missing=fractional"))
    assert "missing='fractional'" in same
    c45 = ok(run_cli("gain", tmp_path / "vote.csv", "--trace", "--algorithm", "c45"))
    assert "numeric attributes: C4.5's rule (the gain of a cut less log2" in c45

    X, y = quercus.read_table(tmp_path / "vote.csv")
    table = quercus.gain_table(X, y)
    tree = quercus.ID3Classifier(missing="fractional").fit(X, y, trace=True)
    at_root = tree.trace_.candidates[tree.trace_.candidates["node"] == 0]
    np.testing.assert_allclose(
        at_root.set_index("attribute")["gain"].sort_index(),
        table["information_gain"].sort_index(),
        rtol=1e-12,
    )
    for attribute, gain in table["information_gain"].items():
        assert f"{gain:.3f}" in plain and f"{gain:.3f}" in same, attribute


def gain_table_of(rows: dict) -> pd.DataFrame:
    """The gain table of one attribute whose value ``v`` has ``rows[v]`` cases of the
    classes p, q and r."""
    x, y = [], []
    for value, counts in rows.items():
        for label, count in zip("pqr", counts, strict=True):
            x += [value] * count
            y += [label] * count
    return quercus.gain_table(pd.DataFrame({"x": x}), y)


def test_no_negative_zero_in_gain_tables():
    # Branches with the class shares of the whole: the gain is 0, which rounding made
    # -2.2e-16 for these counts (printed as -0.000); likewise Gini's decrease.
    table = gain_table_of({"a": (8, 6, 6), "b": (16, 12, 12), "c": (8, 6, 6), "d": (8, 6, 6)})
    assert table.loc["x", "information_gain"] == 0.0
    assert "-0.000" not in table.to_string(float_format=lambda v: f"{v:.3f}")
    table = gain_table_of({"a": (8, 7, 7), "b": (24, 21, 21), "c": (24, 21, 21), "d": (8, 7, 7)})
    assert table.loc["x", "gini_decrease"] == 0.0


def test_mixed_column_warns_once_inside_bagging_and_cross_validation():
    rng = np.random.default_rng(0)
    n = 200
    mixed = rng.choice(["1.5", "2.5", "3.5", "many"], n)  # measurements and a word
    X = pd.DataFrame({"doors": mixed, "x": rng.normal(size=n)})
    y = np.where((mixed == "many") | (X["x"] > 0), "yes", "no")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cross_val_score(
            BaggingClassifier(quercus.CARTClassifier(), n_estimators=10, random_state=0),
            X,
            y,
            cv=3,
        )
    # Bagging passes the rows on as an array: the column is x0 to the trees.
    said = [w for w in caught if "mixes numbers and words" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in said]
    assert "column 'x0'" in str(said[0].message)
