"""``quercus cv``'s spread and ``--compare``: the fold scores, the interval and the corrected
resampled t-test printed by the command, against scikit-learn's ``cross_val_score`` on the
same folds and :func:`quercus.model_selection.corrected_ttest`."""

import re

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score

import quercus
from _helpers import one_line_error, run_cli
from quercus.cli.tasks import READABLE_CART
from quercus.estimators.folds import cv_folds
from quercus.model_selection import corrected_ttest, score_spread


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """The shipped iris and car as CSV files, and a small regression table."""
    path = tmp_path_factory.mktemp("cv")
    quercus.datasets.copy(path, ["iris", "car"])
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 60)
    y = np.where(x > 5, 20.0, 5.0) + rng.normal(0, 1.0, 60)
    with open(path / "numeric.csv", "w") as out:
        out.write("x,y\n" + "".join(f"{a:.4f},{b:.4f}\n" for a, b in zip(x, y, strict=True)))
    return path


def cli_cart():
    """The command line's CART classifier: rpart's settings, pruned by cross-validation."""
    return quercus.CARTClassifier(**READABLE_CART)


def reference_scores(table, estimator, folds, seeds):
    """Accuracy of every fold by scikit-learn's cross_val_score on quercus's folds."""
    y = np.asarray(table.y)
    splits = [s for seed in seeds for s in cv_folds(folds, seed, n_rows=len(y), classes=y)]
    return cross_val_score(estimator, table.X, table.y, cv=splits)


def comparison(out):
    """t, degrees of freedom, p and the verdict of the printed comparison."""
    found = re.search(r"t = (\S+) with (\d+) degrees of freedom, p = (\S+): (.*)", out)
    assert found, out
    return float(found[1]), int(found[2]), float(found[3]), found[4]


def test_compare_prints_both_algorithms_and_the_corrected_t_test(work):
    result = run_cli("cv", work / "iris.csv", "--algorithm", "c45", "--compare", "cart")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    table = quercus.read_table(work / "iris.csv")
    c45 = reference_scores(table, quercus.C45Classifier(), 10, [0])
    cart = reference_scores(table, cli_cart(), 10, [0])
    assert "compared with CART (CARTClassifier)" in out
    assert "10-fold stratified cross-validation (shuffled, seed 0), the same folds for both" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+[01]\.\d{3}", line)]
    assert [int(r[0]) for r in rows] == list(range(1, 11))
    np.testing.assert_allclose([float(r[1]) for r in rows], c45, atol=5e-4)
    np.testing.assert_allclose([float(r[2]) for r in rows], cart, atol=5e-4)
    np.testing.assert_allclose([float(r[3]) for r in rows], c45 - cart, atol=1e-3)
    test = corrected_ttest(c45, cart, n_train=135, n_test=15)
    t, df, p, verdict = comparison(out)
    assert (t, df, p) == (round(test.t, 3), 9, round(test.p_value, 4))
    assert verdict == "not significant at 0.05"
    spread = score_spread(c45, n_train=135, n_test=15)
    assert (
        f"accuracy of C4.5: mean {spread.mean:.3f}, standard deviation {spread.std:.3f} "
        "over 10 folds\n"
        f"95% confidence interval of the mean: [{spread.low:.3f}, {min(spread.high, 1):.3f}]"
    ) in out
    assert "confusion matrix" not in out


def test_a_significant_difference_names_the_better_algorithm(work):
    # CART's full tree (the --set values, ID3's own defaults, undo the command line's
    # pruning) against ID3's: the pruned tree's lead over C4.5 or ID3 is not significant.
    full = ["--set", "min_samples_split=2", "--set", "min_samples_leaf=1", "--set", "ccp_alpha=0"]
    result = run_cli(
        "cv",
        work / "car.csv",
        "--nominal",
        "doors,persons",
        "--algorithm",
        "id3",
        "--compare",
        "cart",
        *full,
        "--folds",
        5,
    )
    assert result.returncode == 0, result.stderr
    table = quercus.read_table(work / "car.csv", nominal=["doors", "persons"])
    id3 = reference_scores(table, quercus.ID3Classifier(), 5, [0])
    cart = reference_scores(table, quercus.CARTClassifier(), 5, [0])
    test = corrected_ttest(id3, cart, n_train=len(table) * 0.8, n_test=len(table) * 0.2)
    assert test.significant  # CART's binary splits suit car's ordered levels
    t, df, p, verdict = comparison(result.stdout)
    assert (t, df, p) == (round(test.t, 3), 4, round(test.p_value, 4))
    assert verdict == "significant at 0.05: CART is better"


def test_repeats_give_r_times_k_scores_and_r_k_minus_1_degrees_of_freedom(work):
    result = run_cli(
        "cv", work / "iris.csv", "--compare", "id3", "--folds", 5, "--repeats", 3, "--seed", 7
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "5-fold stratified cross-validation (shuffled, seed 7), repeated 3 times (seeds 7 to 9)"
        in out
    )
    table = quercus.read_table(work / "iris.csv")
    c45 = reference_scores(table, quercus.C45Classifier(), 5, [7, 8, 9])
    id3 = reference_scores(table, quercus.ID3Classifier(), 5, [7, 8, 9])
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+[123]\s+0\.\d{3}", line)]
    assert [r[0] for r in rows] == ["1", "2", "3"]  # one row per repetition: its mean
    np.testing.assert_allclose(
        [float(r[1]) for r in rows], c45.reshape(3, 5).mean(axis=1), atol=5e-4
    )
    test = corrected_ttest(c45, id3, n_train=120, n_test=30)
    assert comparison(out)[:3] == (round(test.t, 3), 14, round(test.p_value, 4))
    assert "over 3 x 5 folds" in out


def test_repeats_without_compare_sum_the_confusion_matrices(work):
    result = run_cli("cv", work / "iris.csv", "--folds", 5, "--repeats", 2, "--algorithm", "cart")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "summed over the 2 repetitions" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("true \\ predicted"))
    counts = np.array([line.split()[1:] for line in lines[header + 1 : header + 4]], dtype=int)
    assert counts.sum(axis=1).tolist() == [100, 100, 100]  # 50 irises each, counted twice
    scores = reference_scores(quercus.read_table(work / "iris.csv"), cli_cart(), 5, [0, 1])
    # Every row is predicted once per repetition: the diagonal is the accuracy times 300.
    assert np.trace(counts) == round(float(np.mean(scores)) * 300)


def test_compare_on_a_regression_target(work):
    result = run_cli(
        "cv",
        work / "numeric.csv",
        "--algorithm",
        "cart",
        "--compare",
        "forest",
        "--set",
        "n_estimators=10",
        "--folds",
        4,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "4-fold cross-validation (shuffled, seed 0)" in out
    assert "--set n_estimators applies to random forest only" in out
    assert "R^2 of CART: mean " in out and "R^2 of random forest: mean " in out
    assert comparison(out)[1] == 3


def test_compare_a_regression_with_a_classifier_is_an_error(work):
    message = one_line_error(
        run_cli("cv", work / "numeric.csv", "--algorithm", "cart", "--compare", "id3"), 1
    )
    assert "numeric.csv: target 'y' is numeric" in message
    assert "--compare id3 (ID3) learns classes" in message


def test_compare_with_itself_and_a_bad_repeats_are_usage_errors(work):
    message = one_line_error(run_cli("cv", work / "nowhere.csv", "--compare", "c45"), 2)
    assert message.endswith("--compare c45 is the --algorithm itself: compare two algorithms")
    message = one_line_error(run_cli("cv", work / "iris.csv", "--repeats", 0), 2)
    assert "argument --repeats: expected a number in [1, 100], got 0" in message


def test_set_applies_to_the_algorithms_that_have_it(work):
    message = one_line_error(
        run_cli("cv", work / "nowhere.csv", "--compare", "cart", "--set", "n_estimators=5"), 2
    )
    assert "--set: unknown parameter 'n_estimators' for c45 and cart" in message


def test_a_small_class_is_one_warning_however_many_repetitions(work, tmp_path):
    quercus.datasets.copy(tmp_path, ["playtennis"])
    result = run_cli("cv", tmp_path / "playtennis.csv", "--folds", 6, "--repeats", 3)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "quercus: warning: class 'No' has only 5 rows, fewer than the 6 folds: some folds "
        "have none of it"
    ]
    assert "over 3 x 6 folds" in result.stdout
