"""``quercus tune``, driven as a user drives it: the table of candidates against
scikit-learn's ``cross_val_score`` on the folds of ``quercus cv``, the saved model against a
fit with the winning parameters, and the errors of a bad grid, said before the data is read."""

import argparse
import io
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score

import quercus
from _helpers import one_line_error, run_cli
from quercus.cli.options import parse_grid
from quercus.cli.progress import Progress
from quercus.cli.tasks import READABLE_CART
from quercus.cli.tune import _Scorer
from quercus.estimators.folds import cv_folds
from quercus.model_selection import corrected_ttest, score_spread


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    path = tmp_path_factory.mktemp("tune")
    quercus.datasets.copy(path, ["iris", "playtennis"])
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 10, 60)
    y = np.where(x > 5, 20.0, 5.0) + rng.normal(0, 1.0, 60)
    with open(path / "numeric.csv", "w") as out:
        out.write("x,y\n" + "".join(f"{a:.4f},{b:.4f}\n" for a, b in zip(x, y, strict=True)))
    return path


def table_rows(out):
    """The rows of the printed table of candidates, as lists of cells."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return lines[start].split(), rows


def iris_folds(table, folds=5, seed=0):
    y = np.asarray(table.y)
    return cv_folds(folds, seed, n_rows=len(y), classes=y)


@pytest.fixture(scope="module")
def cart_depths(work):
    """``quercus tune`` of CART's depth on iris, the best model saved."""
    model = work / "best.json"
    result = run_cli(
        "tune",
        work / "iris.csv",
        "--algorithm",
        "cart",
        "--grid",
        "max_depth=1,2,None",
        "--folds",
        5,
        "-o",
        model,
    )
    return result, model


def test_the_table_is_cross_val_score_on_the_folds_of_cv(work, cart_depths):
    result, _ = cart_depths
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "grid search: 3 candidates x 5 stratified folds (shuffled, seed 0) = 15 fits, "
        "scored by accuracy\n"
    ) in out
    header, rows = table_rows(out)
    assert header == ["rank", "max_depth", "accuracy", "std"]
    table = quercus.read_table(work / "iris.csv")
    splits = iris_folds(table)
    expected = {}
    for depth in (1, 2, None):
        # The command line's CART: rpart's settings, pruned by cross-validation.
        cart = quercus.CARTClassifier(**READABLE_CART, max_depth=depth)
        scores = cross_val_score(cart, table.X, table.y, cv=splits)
        expected[str(depth)] = scores
    assert sorted(row[1] for row in rows) == ["1", "2", "None"]
    for _rank, depth, mean, std in rows:
        assert float(mean) == pytest.approx(np.mean(expected[depth]), abs=5e-4)
        assert float(std) == pytest.approx(np.std(expected[depth], ddof=1), abs=5e-4)
    means = [float(row[2]) for row in rows]
    assert means == sorted(means, reverse=True)  # best first
    assert rows[0][0] == "1" and rows[-1][1] == "1"  # a stump is the worst on 3 classes
    best, second = rows[0][1], rows[1][1]
    assert f"best: CART (CARTClassifier) with max_depth={best}\n" in out
    spread = score_spread(expected[best], n_train=120, n_test=30)
    assert f"95% confidence interval of the mean: [{spread.low:.3f}, " in out
    test = corrected_ttest(expected[best], expected[second], n_train=120, n_test=30)
    assert f"the best against the runner-up (rank {rows[1][0]}: max_depth={second})" in out
    assert f"t = {test.t:.3f} with 4 degrees of freedom, p = {test.p_value:.4f}" in out
    assert "best model saved to" in result.stderr


def test_quercus_cv_scores_a_candidate_as_tune_does(work, cart_depths):
    result, _ = cart_depths
    _, rows = table_rows(result.stdout)
    (row,) = [row for row in rows if row[1] == "2"]
    cv = run_cli(
        "cv", work / "iris.csv", "--algorithm", "cart", "--set", "max_depth=2", "--folds", 5
    )
    assert cv.returncode == 0, cv.stderr
    assert f"accuracy: mean {row[2]}, standard deviation {row[3]} over 5 folds" in cv.stdout


def test_the_saved_model_is_the_winner_refitted_on_all_rows(work, cart_depths):
    result, model = cart_depths
    best = re.search(r"best: .* with max_depth=(\S+)", result.stdout)[1]
    saved = quercus.load(model)
    assert isinstance(saved, quercus.CARTClassifier)
    table = quercus.read_table(work / "iris.csv")
    depth = None if best == "None" else int(best)
    refit = quercus.CARTClassifier(**READABLE_CART, max_depth=depth).fit(table.X, table.y)
    assert saved.get_params() == refit.get_params()
    assert saved.export_text() == refit.export_text()
    # The file is a model file as quercus fit -o writes it: quercus show reads it.
    shown = run_cli("show", model)
    assert shown.returncode == 0 and shown.stdout == refit.export_text()


def test_a_search_across_algorithms(work):
    result = run_cli(
        "tune",
        work / "playtennis.csv",
        "--algorithm",
        "id3",
        "--algorithm",
        "cart",
        "--grid",
        "max_depth=1,None",
        "--folds",
        3,
        "-q",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # -q: no progress, notices or warnings
    out = result.stdout
    assert "also searched: CART (CARTClassifier)" in out
    header, rows = table_rows(out)
    assert header == ["rank", "algorithm", "max_depth", "accuracy", "std"]
    assert sorted((row[1], row[2]) for row in rows) == [
        ("cart", "1"),
        ("cart", "None"),
        ("id3", "1"),
        ("id3", "None"),
    ]
    other = "cart" if rows[0][1] == "id3" else "id3"
    assert f"the best against the best of {other} (rank " in out
    assert "with 2 degrees of freedom" in out


def test_the_default_grid(work):
    result = run_cli("tune", work / "playtennis.csv", "--folds", 3, "--set", "min_samples_leaf=1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # C4.5's default grid without min_samples_leaf, which --set fixes: 3 + 2 candidates.
    assert "grid search: 5 candidates x 3 stratified folds" in out and "(the default grid)" in out
    header, rows = table_rows(out)
    assert header == ["rank", "pruning", "confidence", "accuracy", "std"]
    assert sorted((row[1], row[2]) for row in rows) == [
        ("None", "-"),
        ("pessimistic", "0.1"),
        ("pessimistic", "0.25"),
        ("pessimistic", "0.5"),
        ("reduced_error", "-"),
    ]


def test_the_default_grid_leaves_out_what_set_excludes(work):
    # Oblique splits lower an impurity: CART's regression grid loses absolute_error.
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 1, size=(60, 2))
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": X @ [2.0, 1.0]}).to_csv(
        work / "plane.csv", index=False
    )
    result = run_cli(
        "tune",
        work / "plane.csv",
        "--algorithm",
        "cart",
        "--set",
        "split=oblique",
        "--set",
        "ccp_alpha=0.0",
        "--folds",
        3,
    )
    assert result.returncode == 0, result.stderr
    assert "grid search: 3 candidates x 3 folds" in result.stdout
    header, rows = table_rows(result.stdout)
    assert header == ["rank", "criterion", "min_samples_leaf", "R^2", "std"]
    assert {row[1] for row in rows} == {"squared_error"}


def test_a_regression_is_scored_by_r2(work):
    result = run_cli(
        "tune",
        work / "numeric.csv",
        "--algorithm",
        "cart",
        "--grid",
        "min_samples_leaf=1,5",
        "--set",
        "ccp_alpha=0.0",
        "--folds",
        4,
    )
    assert result.returncode == 0, result.stderr
    header, rows = table_rows(result.stdout)
    assert header == ["rank", "min_samples_leaf", "R^2", "std"]
    assert "grid search: 2 candidates x 4 folds (shuffled, seed 0)" in result.stdout
    assert "scored by R^2" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grid", "max_depth=-1,2"], "--grid max_depth: max_depth must be an integer >= 0"),
        (["--grid", "max_depth=2.5"], "max_depth must be an integer >= 0 or None, got 2.5"),
        (["--grid", "maxdepth=2"], "unknown parameter 'maxdepth' (did you mean max_depth?)"),
        (["--grid", "confidence=0.25,0.6"], "--grid confidence: confidence must be in (0, 0.5]"),
        (
            [
                "--algorithm",
                "cart",
                "--set",
                "nominal_split=multiway",
                "--grid",
                "criterion=twoing",
            ],
            "--grid criterion='twoing' for --algorithm cart: criterion 'twoing' scores binary "
            "splits only",
        ),
        (["--grid", "max_depth=2,2"], "--grid max_depth repeats the value 2"),
        (["--grid", "max_depth="], "expected name=value,value,..."),
        (["--grid", "max_depth=2", "--grid", "max_depth=3"], "--grid max_depth is given twice"),
        (["--grid", "max_depth=2", "--set", "max_depth=3"], "also fixed by --set max_depth"),
        (["--algorithm", "c45,tree"], "unknown algorithm 'tree': choose from id3, c45"),
        (["--algorithm", "forest", "--grid", "confidence=0.1"], "unknown parameter 'confidence'"),
    ],
)
def test_a_bad_grid_is_a_usage_error_before_the_data_is_read(work, args, message):
    # The data file does not exist: the grid is refused first.
    result = run_cli("tune", work / "nowhere.csv", *args)
    assert message in one_line_error(result, 2)


def test_data_errors(work):
    message = one_line_error(run_cli("tune", work / "playtennis.csv", "--folds", 10), 1)
    assert "the largest, 'Yes', has 9: use --folds 9 or fewer" in message
    message = one_line_error(run_cli("tune", work / "numeric.csv", "--algorithm", "cart,id3"), 1)
    assert "ID3 learns classes; use --algorithm cart (or forest or boost)" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("max_depth=2,4,None", ("max_depth", [2, 4, None])),
        ("criterion=gini,'entropy'", ("criterion", ["gini", "entropy"])),
        ("class_weight=None,{'Yes': 2, 'No': 1}", ("class_weight", [None, {"Yes": 2, "No": 1}])),
        ("nominal_features=[0, 1],None", ("nominal_features", [[0, 1], None])),
        ("min_samples_leaf=1,1.0", ("min_samples_leaf", [1, 1.0])),  # an int and a float
    ],
)
def test_grid_values_are_literals_split_at_top_level_commas(text, expected):
    assert parse_grid(text) == expected


def test_a_grid_value_repeated_is_refused():
    with pytest.raises(argparse.ArgumentTypeError, match="repeats the value 0.25"):
        parse_grid("confidence=0.25,0.1,0.25")


def test_the_scorer_counts_the_fits_on_the_progress_bar():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    class Fitted:
        def score(self, X, y):
            return 0.5

    stream = Terminal()
    with Progress(stream=stream) as progress:
        scorer = _Scorer(progress, 2, "tune: refitting")
        assert scorer(Fitted(), None, None) == 0.5
        assert "tune: fits: 1/2" in stream.getvalue()
        scorer(Fitted(), None, None)
        assert "tune: refitting" in stream.getvalue()  # the refit, once every fold is scored
