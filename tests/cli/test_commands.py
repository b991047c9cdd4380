"""The subcommands of ``quercus``, driven as a user drives them (through a subprocess), and
a few in-process checks of the pieces that a subprocess cannot reach cheaply."""

import io
import json
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import one_line_error, run_cli
from quercus.cli import main, parse_setting, parse_value
from quercus.cli.evaluate import cross_validate
from quercus.cli.progress import Progress
from quercus.cli.tasks import read_features, target_task


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A directory with PlayTennis as CSV and a small numeric table for regression."""
    path = tmp_path_factory.mktemp("cli")
    quercus.datasets.load("playtennis").to_csv(path / "playtennis.csv", index=False)
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 80)
    colour = rng.choice(["red", "green", "blue"], 80)
    y = np.where(x > 5, 20.0, 5.0) + (colour == "red") * 3 + rng.normal(0, 0.5, 80)
    pd.DataFrame({"x": x, "colour": colour, "y": y.round(3)}).to_csv(
        path / "numeric.csv", index=False
    )
    return path


@pytest.fixture(scope="module")
def id3_model(work):
    """``quercus fit`` of ID3 on PlayTennis, saved with -o: the run and the model path."""
    model = work / "id3.json"
    result = run_cli(
        "fit", work / "playtennis.csv", "--target", "PlayTennis", "--algorithm", "id3", "-o", model
    )
    return result, model


# -- fit, predict ------------------------------------------------------------------------------


def test_fit_prints_the_tree_and_its_accuracy_and_saves_it(id3_model):
    result, model = id3_model
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("task: classification of 'PlayTennis' into 2 classes (No, Yes)")
    assert "ID3 (ID3Classifier)" in out
    assert "Outlook = Overcast: Yes (4)" in out
    assert "|   Humidity = High: No (3)" in out
    assert "training accuracy: 1.000 (14 of 14 rows)" in out
    assert model.exists() and isinstance(quercus.load(model), quercus.ID3Classifier)


def test_predict_gives_the_estimators_predictions(id3_model, work):
    _, model = id3_model
    result = run_cli("predict", model, work / "playtennis.csv")
    assert result.returncode == 0, result.stderr
    predicted = pd.read_csv(io.StringIO(result.stdout), dtype=str)
    assert list(predicted.columns) == ["prediction"]
    X, y = quercus.read_table(work / "playtennis.csv", target="PlayTennis")
    expected = quercus.ID3Classifier().fit(X, y).predict(X)
    assert predicted["prediction"].tolist() == list(expected)


def test_predict_proba_to_a_file(id3_model, work):
    _, model = id3_model
    out = work / "proba.csv"
    # The data without its target column: the model does not need it.
    features = work / "features.csv"
    quercus.datasets.load("playtennis").drop(columns=["PlayTennis"]).to_csv(features, index=False)
    result = run_cli("predict", model, features, "--proba", "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    table = pd.read_csv(out)
    assert list(table.columns) == ["prediction", "P(No)", "P(Yes)"]
    assert len(table) == 14
    np.testing.assert_allclose(table[["P(No)", "P(Yes)"]].sum(axis=1), 1.0)
    assert (table["prediction"] == np.where(table["P(Yes)"] > 0.5, "Yes", "No")).all()


# -- show ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("text", "Outlook = Overcast: Yes (4)"),
        ("rules", "IF Outlook = Rain AND Wind = Strong THEN No"),
        ("dot", "digraph tree {"),
        ("json", '"format": "quercus-model"'),
    ],
)
def test_show_formats(id3_model, fmt, expected):
    _, model = id3_model
    result = run_cli("show", model, "--format", fmt)
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout
    if fmt == "json":
        assert json.loads(result.stdout)["estimator"] == "ID3Classifier"
        assert result.stdout.startswith("{\n  ")  # pretty-printed


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_show_svg(id3_model, work):
    _, model = id3_model
    result = run_cli("show", model, "--format", "svg", "-o", work / "tree.svg")
    assert result.returncode == 0, result.stderr
    assert "<svg" in (work / "tree.svg").read_text()


def test_show_svg_without_graphviz_is_drawn_by_matplotlib(id3_model, monkeypatch, capsys):
    _, model = id3_model
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert main(["show", str(model), "--format", "svg"]) == 0
    captured = capsys.readouterr()
    assert captured.out.lstrip().startswith("<?xml") and "<svg" in captured.out
    assert captured.err == (
        "quercus: drawn by matplotlib (quercus.plot.plot_tree); Graphviz's dot was not found\n"
    )


def test_show_svg_without_graphviz_or_matplotlib_says_what_to_install(
    id3_model, monkeypatch, capsys
):
    _, model = id3_model
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    assert main(["show", str(model), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: --format svg without Graphviz needs matplotlib")
    assert "install Graphviz" in err and err.count("\n") == 1


@pytest.mark.slow
def test_show_png_draws_the_tree(id3_model, work):
    _, model = id3_model
    result = run_cli("show", model, "--format", "png", "-o", work / "tree.png")
    assert result.returncode == 0, result.stderr
    assert (work / "tree.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.stderr == "quercus: drawn by matplotlib (quercus.plot.plot_tree)\n"
    assert run_cli("show", model, "--format", "png").returncode == 2  # a picture needs -o


def svg_fonts(svg: str) -> list[float]:
    """The font size of every text of a matplotlib SVG, in its user units (points at the
    picture's natural size)."""
    import re

    return [float(x) for x in re.findall(r"<text[^>]*font-size: ([\d.]+)px", svg)]


@pytest.mark.parametrize("data", ["soybean", "ames"])
def test_show_pictures_of_wide_trees_stay_readable(data, tmp_path, monkeypatch, capsys):
    # Readable: at its natural size, the smallest text of the picture is 10 points (the
    # PNG, at 100 dots per inch, is the same picture: its text 14 pixels high), whatever
    # the width of the tree; long sets and many classes go to the legend under the tree.
    pytest.importorskip("matplotlib")
    from PIL import Image  # matplotlib's

    from _wide_data import SOYBEAN_CLASSES, ames_like, soybean_like

    if data == "soybean":
        est = quercus.C45Classifier().fit(*soybean_like())
        in_legend = list(SOYBEAN_CLASSES)
    else:
        est = quercus.CARTRegressor(max_depth=4, min_samples_leaf=20).fit(*ames_like())
        in_legend = ["in set A (", "A: Neighborhood in {"]
    model = tmp_path / "model.json"
    est.save(model)
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)  # no Graphviz
    assert main(["show", str(model), "--format", "svg", "-o", str(tmp_path / "tree.svg")]) == 0
    assert main(["show", str(model), "--format", "png", "-o", str(tmp_path / "tree.png")]) == 0
    capsys.readouterr()
    svg = (tmp_path / "tree.svg").read_text()
    fonts = svg_fonts(svg)
    assert len(fonts) > est.get_n_leaves() and min(fonts) >= 10
    assert all(words in svg.replace("&amp;", "&") for words in in_legend)
    width, height = (float(v) for v in svg.split('viewBox="0 0 ', 1)[1].split('"')[0].split())
    assert width > 1000  # the figure grew with the tree instead of shrinking its text
    with Image.open(tmp_path / "tree.png") as png:  # the tight frame differs by a few pixels
        assert png.size == pytest.approx((width * 100 / 72, height * 100 / 72), rel=0.015)


@pytest.mark.slow
def test_c45_rules_are_shown_as_c45rules_prints_them(work):
    model = work / "rules.json"
    fitted = run_cli("fit", work / "playtennis.csv", "--algorithm", "c45rules", "-o", model, "-q")
    assert fitted.returncode == 0, fitted.stderr
    assert fitted.stderr == ""  # --quiet: not even the "model saved" notice
    assert "Rules:" in fitted.stdout
    result = run_cli("show", model, "--format", "rules")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().splitlines()[-1].startswith("Default class: ")


# -- gain, cv --------------------------------------------------------------------------------


def test_gain_prints_the_gain_table(work):
    result = run_cli("gain", work / "playtennis.csv", "--target", "PlayTennis")
    assert result.returncode == 0, result.stderr
    assert "Entropy(PlayTennis) = 0.940 bits" in result.stdout
    lines = result.stdout.splitlines()
    rows = [
        line.split()
        for line in lines[lines.index(next(x for x in lines if x.startswith("attribute"))) + 1 :]
    ]
    assert [(row[0], row[2]) for row in rows] == [
        ("Outlook", "0.247"),
        ("Humidity", "0.152"),
        ("Wind", "0.048"),
        ("Temperature", "0.029"),
    ]


def test_gain_trace_shows_every_candidate_split(work):
    result = run_cli("gain", work / "playtennis.csv", "--trace")
    assert result.returncode == 0, result.stderr
    assert "node 0 (root)" in result.stdout
    assert "<- chosen" in result.stdout
    assert "ID3 (ID3Classifier)" in result.stdout


def test_cv_prints_fold_accuracies_and_the_confusion_matrix(work):
    result = run_cli("cv", work / "playtennis.csv", "--folds", "3", "--algorithm", "id3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "3-fold stratified cross-validation (shuffled, seed 0)" in out
    for fold in (1, 2, 3):
        assert f"fold {fold}: accuracy 0." in out or f"fold {fold}: accuracy 1.000" in out
    assert "accuracy: mean " in out and ", standard deviation " in out
    lines = out.splitlines()
    header = lines.index("true \\ predicted  No  Yes")
    matrix = [line.split()[1:] for line in lines[header + 1 : header + 3]]
    assert [line.split()[0] for line in lines[header + 1 : header + 3]] == ["No", "Yes"]
    counts = np.array(matrix, dtype=int)
    assert counts.sum(axis=1).tolist() == [5, 9]  # rows: the true classes


def test_cv_with_more_folds_than_a_class_has_rows_warns_and_runs(work):
    result = run_cli("cv", work / "playtennis.csv", "--folds", "6")
    assert result.returncode == 0, result.stderr
    assert "6-fold stratified cross-validation" in result.stdout
    assert "fold 6: accuracy" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "quercus: warning: class 'No' has only 5 rows, fewer than the 6 folds: some folds "
        "have none of it"
    ]


def test_cv_with_more_folds_than_any_class_has_rows(work):
    message = one_line_error(run_cli("cv", work / "playtennis.csv", "--folds", "10"))
    assert "the largest, 'Yes', has 9" in message and "--folds 9" in message


# -- regression ------------------------------------------------------------------------------


def test_cart_on_a_numeric_target_is_a_regression(work):
    result = run_cli(
        "fit",
        work / "numeric.csv",
        "--algorithm",
        "cart",
        "--set",
        "max_depth=2",
        "--set",
        "criterion=absolute_error",
    )
    assert result.returncode == 0, result.stderr
    first, *tree, score = result.stdout.splitlines()
    assert first.startswith("task: regression of 'y' (numeric with ")
    assert first.count("(") == first.count(")") == 2  # no parentheses within parentheses
    assert "CART (CARTRegressor)" in first
    assert not any(line.startswith("|   |   ") for line in tree)  # max_depth=2
    assert score.startswith("training R^2: 0.9")


def test_id3_on_a_numeric_target_says_to_use_cart(work):
    message = one_line_error(run_cli("fit", work / "numeric.csv", "--algorithm", "id3"))
    assert "target 'y' is numeric" in message
    assert "--algorithm cart" in message


def test_cv_of_a_regression_tree(work):
    result = run_cli("cv", work / "numeric.csv", "--algorithm", "cart", "--folds", "4")
    assert result.returncode == 0, result.stderr
    assert "4-fold cross-validation" in result.stdout
    assert "fold 4: R^2 " in result.stdout
    assert "R^2: mean " in result.stdout
    assert "confusion" not in result.stdout


# -- errors ----------------------------------------------------------------------------------


def test_missing_data_file(work):
    message = one_line_error(run_cli("fit", work / "nowhere.csv"))
    assert "nowhere.csv: no such file" in message


def test_unknown_target_column(work):
    message = one_line_error(run_cli("fit", work / "playtennis.csv", "--target", "Play"))
    assert "'Play' not found" in message and "playtennis.csv" in message


def test_corrupt_model_file(id3_model, work):
    _, model = id3_model
    truncated = work / "truncated.json"
    truncated.write_text(model.read_text()[:200])
    message = one_line_error(run_cli("show", truncated))
    assert "truncated.json" in message and "not valid JSON" in message


def test_prediction_data_lacking_a_column(id3_model, work):
    _, model = id3_model
    data = work / "no_wind.csv"
    quercus.datasets.load("playtennis").drop(columns=["Wind"]).to_csv(data, index=False)
    out = work / "kept.csv"
    out.write_text("an earlier result\n")
    message = one_line_error(run_cli("predict", model, data, "-o", out))
    assert "no_wind.csv" in message and "column 'Wind' is missing" in message
    assert out.read_text() == "an earlier result\n"  # an error leaves the output as it was


def test_unknown_parameter_is_a_usage_error(work):
    result = run_cli("fit", work / "playtennis.csv", "--set", "depth=3")
    assert result.returncode == 2
    assert "unknown parameter 'depth'" in result.stderr
    assert "max_depth" in result.stderr  # the valid ones are listed


def test_set_without_equals_is_a_usage_error(work):
    result = run_cli("cv", work / "playtennis.csv", "--set", "max_depth")
    assert result.returncode == 2
    assert "expected name=value" in result.stderr


def test_value_rejected_before_reading_the_data(work):
    # A bad value is a usage error (exit 2), found before the data file is read.
    result = run_cli("fit", work / "nowhere.csv", "--set", "max_depth=-1")
    assert result.returncode == 2
    assert "max_depth must be an integer >= 0 or None, got -1" in result.stderr


def test_lookahead_with_the_default_algorithm_says_what_to_type(work):
    """c45, the default, handles missing values fractionally, which look-ahead cannot: the
    refusal names the policies that work and the option that gives one; with it, it fits."""
    result = run_cli("fit", work / "playtennis.csv", "--set", "lookahead=1")
    assert result.returncode == 2
    message = result.stderr.strip().splitlines()[-1]
    assert "missing='fractional', the default of C45Classifier" in message
    assert "look-ahead works with missing='majority', 'class_majority' or 'learned'" in message
    assert message.endswith("(add --set missing=majority)")
    fitted = run_cli(
        "fit", work / "playtennis.csv", "--set", "lookahead=1", "--set", "missing=majority"
    )
    assert fitted.returncode == 0, fitted.stderr
    assert "training accuracy: 1.000" in fitted.stdout


def test_debug_shows_the_traceback(work):
    result = run_cli("--debug", "fit", work / "nowhere.csv")
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "DataError" in result.stderr


# -- in-process ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("3", 3),
        ("0.25", 0.25),
        ("None", None),
        ("True", True),
        ("entropy", "entropy"),
        ("'gini'", "gini"),
        ("[1, 2]", [1, 2]),
        ("sqrt", "sqrt"),
    ],
)
def test_set_values_are_literals_where_they_are_one(text, value):
    assert parse_value(text) == value
    assert parse_setting(f"name={text}") == ("name", value)


def test_a_numeric_target_with_few_integer_values_is_a_class(work):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "grade": [1, 2, 2, 3]})
    frame.to_csv(work / "grades.csv", index=False)
    regression, y = target_task(quercus.read_table(work / "grades.csv"))
    assert not regression and y.tolist() == [1, 2, 2, 3] and y.dtype == np.int64
    regression, _ = target_task(quercus.read_table(work / "numeric.csv"))
    assert regression


def test_cross_validation_with_integer_classes():
    X = pd.DataFrame({"x": np.arange(12.0)})
    y = pd.Series([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    result = cross_validate(quercus.CARTClassifier(), X, y, folds=2)
    assert result.labels == [0, 1, 2]
    assert result.confusion.sum() == 12 and len(result.scores) == 2


def test_prediction_data_is_read_with_the_training_categories(work):
    # 'doors' is nominal in training (category labels, numbers and a word); a file to
    # predict whose doors are all numbers must still match the categories '2' and '3', not
    # 2.0 and 3.0.
    train = pd.DataFrame(
        {"doors": ["2", "3", "5more", "2", "3", "5more"], "ok": ["n", "y", "y", "n", "y", "y"]}
    )
    train.to_csv(work / "doors.csv", index=False)
    X, y = quercus.read_table(work / "doors.csv")
    model = quercus.ID3Classifier().fit(X, y)
    train.iloc[:2].to_csv(work / "doors_numbers.csv", index=False)
    features = read_features(str(work / "doors_numbers.csv"), model.schema_)
    assert features["doors"].astype(str).tolist() == ["2", "3"]
    assert model.predict(features).tolist() == ["n", "y"]


def _measured_with_words(path):
    """A table whose column 'size' mixes measurements and a word (a genuinely mixed column:
    reading it warns), with a numeric column 'x' and the class 'ok'."""
    rng = np.random.default_rng(3)
    size = rng.choice(["1.5", "2.5", "3.5", "huge"], 60)
    x = rng.integers(0, 9, 60)
    ok = np.where((size == "huge") | (x > 5), "y", "n")
    pd.DataFrame({"size": size, "x": x, "ok": ok}).to_csv(path, index=False)


def test_a_mixed_column_warns_when_its_kind_is_first_read(tmp_path):
    _measured_with_words(tmp_path / "sizes.csv")
    result = run_cli("fit", tmp_path / "sizes.csv", "--algorithm", "id3")
    assert result.returncode == 0, result.stderr
    assert "column 'size' mixes numbers and words (e.g. '1.5' and 'huge')" in result.stderr


def test_evaluate_reads_the_data_with_the_models_kinds(tmp_path):
    """The model knows 'size' is nominal: evaluating it on a file warns of nothing."""
    _measured_with_words(tmp_path / "sizes.csv")
    model = tmp_path / "sizes.json"
    fitted = run_cli("fit", tmp_path / "sizes.csv", "--algorithm", "id3", "-o", model, "-q")
    assert fitted.returncode == 0, fitted.stderr
    result = run_cli("evaluate", model, tmp_path / "sizes.csv")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "accuracy: 1.0000 (60 of 60 rows)" in result.stdout


def test_fit_reads_the_test_file_with_the_training_kinds(tmp_path):
    """--nominal declares 'size' for the training file; the test file is read as the model
    reads it, without a warning the declaration has answered."""
    _measured_with_words(tmp_path / "sizes.csv")
    data = tmp_path / "sizes.csv"
    result = run_cli("fit", data, "--algorithm", "id3", "--nominal", "size", "--test", data)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "evaluation on" in result.stdout


def test_predict_copies_the_id_column_as_written(tmp_path):
    """--id copies each cell's text: integer ids stay integers (9, not 9.0) with or without
    missing cells, codes keep their zeros, and an id the model also reads as a number is
    copied as written too; a missing cell is an empty one."""
    pd.DataFrame({"x": [1.5, 2.5, 3.5, 4.5], "y": ["p", "q", "p", "q"]}).to_csv(
        tmp_path / "train.csv", index=False
    )
    model = tmp_path / "m.json"
    fitted = run_cli("fit", tmp_path / "train.csv", "--algorithm", "id3", "-o", model, "-q")
    assert fitted.returncode == 0, fitted.stderr
    rows = ["number,Seniority,code,x", "1,9,A1,1.5", "2,,007,2.50", "3,12,,3.5", "40,7,B 2,4.5"]
    (tmp_path / "new.csv").write_text("\n".join(rows) + "\n")
    expected = {
        "number": ["1", "2", "3", "40"],
        "Seniority": ["9", "", "12", "7"],
        "code": ["A1", "007", "", "B 2"],
        "x": ["1.5", "2.50", "3.5", "4.5"],  # also a feature of the model, read as a number
    }
    for column, cells in expected.items():
        result = run_cli("predict", model, tmp_path / "new.csv", "--id", column)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0] == f"{column},prediction"
        assert [line.rsplit(",", 1)[0] for line in lines[1:]] == cells, column
        assert [line.rsplit(",", 1)[1] for line in lines[1:]] == ["p", "q", "p", "q"]


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal_and_not_when_quiet():
    terminal = _Terminal()
    with Progress(stream=terminal) as progress:
        progress.update("fit: reading car.csv")
        progress.update("fit: learning")
        bar = progress.bar(10, "cv: folds")
        bar.update(3)
        bar.close()
    shown = terminal.getvalue()
    assert "fit: reading car.csv [00:00]" in shown and "fit: learning [00:00]" in shown
    assert "cv: folds: 3/10" in shown  # done / total, then elapsed and time left
    assert shown.endswith("\r")  # erased when done: the cursor back at the start of the line
    for quiet, stream in ((True, _Terminal()), (False, io.StringIO())):
        with Progress(quiet=quiet, stream=stream) as progress:
            progress.update("cv: fold 1/10")
            bar = progress.bar(10, "cv: folds")
            bar.update(1)
            bar.close()
        assert stream.getvalue() == ""


@pytest.mark.parametrize("seed", ["-1", "4294967296", "x"])
def test_a_bad_seed_is_a_usage_error(work, seed):
    result = run_cli("cv", work / "playtennis.csv", "--folds", "3", "--seed", seed)
    assert result.returncode == 2
    assert "argument --seed: expected" in result.stderr


def test_a_missing_test_file_is_found_before_the_fit(work, tmp_path):
    result = run_cli(
        "fit", work / "playtennis.csv", "--test", tmp_path / "absent.csv", "-o", tmp_path / "m.json"
    )
    assert one_line_error(result).endswith("absent.csv: no such file")
    assert result.stdout == "" and not (tmp_path / "m.json").exists()


@pytest.mark.slow
def test_predict_says_nothing_of_columns_the_model_does_not_read(work, tmp_path):
    model = tmp_path / "m.json"
    run_cli("fit", work / "playtennis.csv", "-o", model, "-q")
    data = tmp_path / "new.csv"
    data.write_text("Outlook,Temperature,Humidity,Wind,PlayTennis\nSunny,Hot,High,Weak,\n")
    result = run_cli("predict", model, data)
    assert result.returncode == 0 and result.stderr == ""
    data.write_text("Outlook,Temperature,Humidity,Wind,PlayTennis\n,Hot,High,Weak,\n")
    result = run_cli("predict", model, data)
    assert "column 'Outlook' is entirely missing" in result.stderr


def test_oblique_splits_from_the_command_line(work):
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(300, 2))
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    frame["side"] = np.where(X[:, 0] + X[:, 1] > 1, "above", "below")
    frame.to_csv(work / "diagonal.csv", index=False)
    model = work / "oblique.json"
    result = run_cli(
        "fit", work / "diagonal.csv", "--algorithm", "cart", "--set", "split=oblique", "-o", model
    )
    assert result.returncode == 0, result.stderr
    note = result.stdout.splitlines()[1]  # the command line's defaults, then the tree
    assert note.startswith("defaults for a readable classification tree (as rpart's): ")
    tree = result.stdout.splitlines()[2:-1]
    assert "*a + " in tree[0] and "*b <= " in tree[0]
    assert len(tree) <= 6  # a few leaves
    assert result.stdout.splitlines()[-1].startswith("training accuracy: ")
    shown = run_cli("show", model)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == tree[0]
    predicted = run_cli("predict", model, work / "diagonal.csv")
    assert predicted.returncode == 0, predicted.stderr
    assert (np.array(predicted.stdout.split()[1:]) == frame["side"]).mean() > 0.95
    # Nothing to combine: a warning, and the ordinary tree.
    nominal = run_cli(
        "fit", work / "playtennis.csv", "--algorithm", "cart", "--set", "split=oblique"
    )
    # C4.5's gain ratio is not an impurity an oblique search can lower: a usage error.
    c45 = run_cli("fit", work / "diagonal.csv", "--set", "split=oblique")
    assert c45.returncode == 2 and "needs criterion 'gini'" in c45.stderr
    assert nominal.returncode == 0, nominal.stderr
    assert "split='oblique' combines numeric features" in nominal.stderr
