"""``quercus fit DATA --dask ADDRESS`` on a real Dask cluster (the session's LocalCluster of
``dask_client``, or one the command starts): what it prints is what ``quercus fit`` prints
on the same data in memory, its model file predicts as the local one, and its errors are
the command line's."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import one_line_error
from quercus.cli import main

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """car and iris as CSV files; car as a directory of 3 Parquet partitions, iris as a glob
    of 3 CSV files, abalone as a glob of 2."""
    path = tmp_path_factory.mktemp("dask-fit")
    quercus.datasets.copy(path, ["car", "iris", "abalone"])
    car = pd.read_csv(path / "car.csv", dtype=str)
    dd.from_pandas(car, npartitions=3).to_parquet(path / "car.parquet", write_index=False)
    for name, parts in (("iris", 3), ("abalone", 2)):
        frame = pd.read_csv(path / f"{name}.csv")
        for k, rows in enumerate(np.array_split(np.arange(len(frame)), parts)):
            frame.iloc[rows].to_csv(path / f"{name}-part{k}.csv", index=False)
    return path


@pytest.fixture(scope="module")
def address(dask_client):
    return dask_client.scheduler.address


def fit(capsys, *argv):
    """``quercus fit ARGV``: the exit status, stdout and stderr."""
    capsys.readouterr()
    status = main(["fit", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def same_as_local(dask_out: str) -> str:
    """A Dask fit's output as the local fit's: the estimator's class name without Dask."""
    return dask_out.replace(" (Dask", " (")


# The test file is read without --nominal, as a local fit reads it: doors and persons mix
# numbers and words (a warning).
@pytest.mark.filterwarnings("default::quercus.DataWarning")
def test_cart_from_parquet_prints_what_a_local_fit_prints(capsys, files, address, tmp_path):
    nominal = ["--nominal", "doors,persons"]
    test = ["--test", files / "car.csv"]
    # ccp_alpha=0: the command line's default ccp_alpha='cv' is a local fit's.
    nominal += ["--set", "ccp_alpha=0"]
    local_model, dask_model = tmp_path / "local.json", tmp_path / "dask.json"
    status, local, err = fit(
        capsys, files / "car.csv", "--algorithm", "cart", *nominal, *test, "-o", local_model
    )
    assert status == 0, err
    status, out, err = fit(
        capsys,
        files / "car.parquet",
        "--algorithm",
        "cart",
        *nominal,
        *test,
        "-o",
        dask_model,
        "--dask",
        address,
    )
    assert status == 0, err
    assert out.startswith(
        "task: classification of 'class' into 4 classes (acc, good, unacc, vgood) with CART "
        "(DaskCARTClassifier), 1,728 rows x 6 attributes\n"
    )
    assert "training accuracy: " in out
    assert same_as_local(out) == local
    # The saved model is a local model that predicts as the one fitted in memory.
    car = quercus.read_table(files / "car.csv", nominal=["doors", "persons"])
    from_dask, in_memory = quercus.load(dask_model), quercus.load(local_model)
    assert type(from_dask) is quercus.CARTClassifier
    np.testing.assert_array_equal(from_dask.predict(car.X), in_memory.predict(car.X))
    np.testing.assert_array_equal(from_dask.predict_proba(car.X), in_memory.predict_proba(car.X))


def test_id3_from_parquet_equals_the_local_fit(capsys, files, address):
    nominal = ["--nominal", "doors,persons"]
    status, local, err = fit(capsys, files / "car.csv", "--algorithm", "id3", *nominal)
    assert status == 0, err
    status, out, err = fit(
        capsys, files / "car.parquet", "--algorithm", "id3", *nominal, "--dask", address
    )
    assert status == 0, err
    assert "with ID3 (DaskID3Classifier), 1,728 rows x 6 attributes" in out
    assert same_as_local(out) == local


# subtree_bytes=0: every node split level by level over the partitions; by default, iris is
# small enough to be grown whole on one worker.
@pytest.mark.parametrize("subtrees", [[], ["--set", "subtree_bytes=0"]])
def test_cart_from_a_csv_glob_equals_the_local_fit(capsys, files, address, subtrees):
    # The full tree: the command line's defaults (rpart's) given their plain values.
    full = ["--set", "min_samples_split=2", "--set", "min_samples_leaf=1", "--set", "ccp_alpha=0"]
    status, local, err = fit(capsys, files / "iris.csv", "--algorithm", "cart", *full)
    assert status == 0, err
    status, out, err = fit(
        capsys,
        files / "iris-part*.csv",
        "--algorithm",
        "cart",
        *full,
        *subtrees,
        "--dask",
        address,
    )
    assert status == 0, err
    assert out.splitlines()[0] == (
        "task: classification of 'class' into 3 classes (Iris-setosa, Iris-versicolor, "
        "Iris-virginica) with CART (DaskCARTClassifier), 150 rows x 4 attributes"
    )
    assert out.splitlines()[-1] == "training accuracy: 1.000 (150 of 150 rows)"
    assert same_as_local(out) == local


def test_a_regression_tree_from_a_csv_glob_equals_the_local_fit(capsys, files, address):
    # ccp_alpha=0: the command line's default ccp_alpha='cv' is a local fit's.
    full = ["--algorithm", "cart", "--set", "ccp_alpha=0", "--set", "max_depth=4"]
    status, local, err = fit(capsys, files / "abalone.csv", *full)
    assert status == 0, err
    status, out, err = fit(capsys, files / "abalone-part*.csv", *full, "--dask", address)
    assert status == 0, err
    first, note = out.splitlines()[:2]
    # Rings: whole numbers, more than 20 of them, counted on the cluster.
    assert first == (
        "task: regression of 'Class_Rings' (numeric with 28 distinct integer values, more "
        "than 20) with CART (DaskCARTRegressor), 4,177 rows x 8 attributes"
    )
    assert note.startswith("defaults for a readable regression tree (as rpart's): ")
    assert "left out" not in note  # ccp_alpha given
    assert out.splitlines()[-1].startswith("training R^2: ")
    assert same_as_local(out) == local


def test_a_default_that_dask_refuses_is_left_out_and_said(capsys, files, address):
    status, out, err = fit(
        capsys,
        files / "abalone-part*.csv",
        "--algorithm",
        "cart",
        "--set",
        "max_depth=2",
        "--dask",
        address,
    )
    assert status == 0, err
    note = out.splitlines()[1]
    assert note == (
        "defaults for a readable regression tree (as rpart's): min_samples_split=20, "
        "min_samples_leaf=7; left out on Dask: ccp_alpha='cv' (cross-validating the pruning "
        "would grow ten more trees on the cluster; a fixed ccp_alpha prunes without it); --set "
        "min_samples_split=2 --set min_samples_leaf=1 --set ccp_alpha=0 grows the full tree"
    )
    # The tree is the local one with those defaults and no pruning.
    status, local, err = fit(
        capsys,
        files / "abalone.csv",
        "--algorithm",
        "cart",
        "--set",
        "max_depth=2",
        "--set",
        "ccp_alpha=0",
    )
    assert status == 0
    assert same_as_local(out).splitlines()[2:] == local.splitlines()[2:]


def test_a_forest_is_the_local_forest_with_poisson_bootstrap(capsys, files, address):
    trees = ["--algorithm", "forest", "--set", "n_estimators=5"]
    status, out, err = fit(capsys, files / "iris-part*.csv", *trees, "--dask", address)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[1] == "left out on Dask: oob_score=True (out-of-bag scores are computed locally)"
    # The Dask forest draws each row's weight in each tree from (seed, tree, row).
    local_trees = [*trees, "--set", "bootstrap='poisson'", "--set", "oob_score=False"]
    status, local, err = fit(capsys, files / "iris.csv", *local_trees)
    assert status == 0
    assert same_as_local("\n".join(lines[:1] + lines[2:]) + "\n") == local


@pytest.mark.parametrize("algorithm", ["c45", "c45rules"])
def test_c45_is_a_usage_error_saying_why(capsys, files, algorithm):
    result = fit(capsys, files / "iris.csv", "--algorithm", algorithm, "--dask", "local")
    assert one_line_error(result, 2) == (
        f"quercus fit: error: --algorithm {algorithm} is not available with --dask: C4.5's "
        "fractional missing values and pessimistic pruning need the rows in memory; use "
        "--algorithm cart, id3 or forest (or quercus fit without --dask)"
    )


def test_the_default_algorithm_is_c45_which_dask_has_not(capsys, files):
    result = fit(capsys, files / "iris.csv", "--dask", "local")
    message = one_line_error(result, 2)
    assert message.startswith(
        "quercus fit: error: --dask: the default algorithm, c45 (C4.5), is not available on "
        "Dask: C4.5's fractional missing values"
    )
    assert "give --algorithm cart, id3 or forest" in message


def test_a_setting_dask_refuses_is_a_usage_error_naming_it(capsys, files):
    result = fit(
        capsys,
        files / "iris.csv",
        "--algorithm",
        "cart",
        "--set",
        "max_leaf_nodes=8",
        "--dask",
        "tcp://127.0.0.1:1",
    )
    assert one_line_error(result, 2) == (
        "quercus fit: error: --set max_leaf_nodes: max_leaf_nodes=8 is not available on Dask: "
        "best-first growth is not level by level; the ordinary quercus estimator fits it on "
        "data in memory"
    )


def test_a_bad_dask_parameter_is_a_usage_error(capsys, files):
    result = fit(
        capsys,
        files / "iris.csv",
        "--algorithm",
        "cart",
        "--set",
        "subtree_bytes=-1",
        "--dask",
        "tcp://127.0.0.1:1",
    )
    assert one_line_error(result, 2) == (
        "quercus fit: error: --set subtree_bytes: subtree_bytes must be an integer >= 0 "
        "(bytes), got -1"
    )


@pytest.mark.parametrize("value", ["local:0", "local:two", ""])
def test_a_bad_local_cluster_is_a_usage_error(capsys, files, value):
    with pytest.raises(SystemExit) as exit:
        fit(capsys, files / "iris.csv", "--algorithm", "cart", "--dask", value)
    assert exit.value.code == 2
    assert "argument --dask: expected" in capsys.readouterr().err


def test_an_unreachable_scheduler_is_named_within_seconds(capsys, files):
    start = time.perf_counter()
    result = fit(capsys, files / "iris.csv", "--algorithm", "cart", "--dask", "tcp://127.0.0.1:1")
    assert time.perf_counter() - start < 20
    assert one_line_error(result, 1).startswith(
        "quercus: error: --dask tcp://127.0.0.1:1: cannot reach a Dask scheduler there within "
        "10 s ("
    )


def test_a_missing_target_column_is_the_local_error(capsys, files, address):
    result = fit(capsys, files / "iris.csv", "--algorithm", "cart", "--target", "kind")
    local = one_line_error(result, 1)
    pattern = files / "iris-part*.csv"
    result = fit(capsys, pattern, "--algorithm", "cart", "--target", "kind", "--dask", address)
    assert one_line_error(result, 1) == local.replace(str(files / "iris.csv"), str(pattern))
    assert "target column 'kind' not found; columns are ['sepallength'," in local


def test_data_dask_cannot_read_is_named(capsys, files, tmp_path):
    result = fit(capsys, tmp_path / "none-*.csv", "--algorithm", "cart", "--dask", "local")
    assert (
        one_line_error(result, 1) == f"quercus: error: {tmp_path / 'none-*.csv'}: no file matches"
    )
    arff = tmp_path / "iris.arff"
    arff.write_text("@relation iris\n")
    result = fit(capsys, arff, "--algorithm", "cart", "--dask", "local")
    assert one_line_error(result, 1) == (
        f"quercus: error: {arff}: a Dask fit reads CSV or Parquet files, not ARFF; convert "
        "it, or fit without --dask"
    )


@pytest.mark.filterwarnings("default::quercus.DataWarning")  # the command line shows it
def test_rows_without_a_target_are_dropped_as_locally(capsys, files, address, tmp_path):
    iris = pd.read_csv(files / "iris.csv", dtype=str)
    iris.loc[[3, 70, 140], "class"] = ["?", "", "?"]
    for k, rows in enumerate(np.array_split(np.arange(len(iris)), 2)):
        iris.iloc[rows].to_csv(tmp_path / f"iris-{k}.csv", index=False)
    pattern = tmp_path / "iris-*.csv"
    status, out, err = fit(capsys, pattern, "--algorithm", "cart", "--dask", address)
    assert status == 0, err
    assert err == (
        f"quercus: warning: {pattern}: dropped 3 of 150 rows whose target 'class' is missing\n"
    )
    assert ", 147 rows x 4 attributes" in out.splitlines()[0]
    # The command line's defaults of a CART tree of classes, as of numbers (regression).
    assert out.splitlines()[1].startswith(
        "defaults for a readable classification tree (as rpart's): min_samples_split=20, "
        "min_samples_leaf=7; left out on Dask: ccp_alpha='cv' (cross-validating"
    )
    assert out.splitlines()[-1].endswith(" of 147 rows)")


def test_a_column_typed_from_its_first_rows_is_named_with_its_line(capsys, address, tmp_path):
    # More than Dask's sample of the first bytes: the word comes after what typed the column.
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"x": rng.normal(size=40_000).round(3), "code": rng.integers(1, 9, 40_000)}
    )
    frame["y"] = np.where(frame["x"] > 0, "p", "n")
    frame["code"] = frame["code"].astype(object)
    frame.loc[35_000, "code"] = "many"
    path = tmp_path / "codes.csv"
    frame.to_csv(path, index=False)
    result = fit(capsys, path, "--algorithm", "cart", "--dask", address)
    assert one_line_error(result, 1) == (
        f"quercus: error: {path}: column 'code' holds 'many' on line 35002, but Dask typed the "
        "column as numbers from the first rows of the data; a column of numbers and words is "
        "nominal: give --nominal code, or write the data as Parquet, which stores each "
        "column's type"
    )
    status, out, err = fit(
        capsys,
        path,
        "--algorithm",
        "cart",
        "--set",
        "max_depth=1",
        "--nominal",
        "code",
        "--dask",
        address,
    )
    assert status == 0, err
    assert "40,000 rows x 2 attributes" in out


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_line_follows_the_levels(capsys, files, address, monkeypatch):
    import logging

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    level_wise = ["--set", "subtree_bytes=0"]  # else iris is grown whole on one worker
    status, out, _ = fit(
        capsys, files / "iris-part*.csv", "--algorithm", "cart", *level_wise, "--dask", address
    )
    assert status == 0
    shown = terminal.getvalue()
    assert f"fit: reading {files / 'iris-part*.csv'}" in shown
    assert "fit: level 0: splitting 1 node [" in shown
    # iris: the root's left child is a leaf (Iris-setosa)
    assert "fit: level 1: splitting 1 node [" in shown
    assert "fit: level 2: splitting 2 nodes [" in shown
    logger = logging.getLogger("quercus.distributed.rows")
    assert not logger.handlers
    assert logger.level == logging.NOTSET


def test_dask_not_installed_says_how_to_install_it(files):
    code = (
        "import sys; sys.modules['distributed'] = None; from quercus.cli import main; "
        f"sys.exit(main(['fit', {str(files / 'iris.csv')!r}, '--algorithm', 'cart', "
        "'--dask', 'local']))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith(
        'quercus: error: fitting on a Dask cluster (--dask) needs Dask: pip install "quercus[dask]"'
    )
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # two processes start, import quercus and load its kernels
def test_a_local_cluster_of_two_processes(files):
    """``--dask local:2`` starts its own cluster (and closes it): the local fit's output."""
    argv = [sys.executable, "-m", "quercus", "fit", files / "iris-part*.csv", "--algorithm", "id3"]
    local = subprocess.run(
        [*argv[:4], files / "iris.csv", *argv[5:]], capture_output=True, text=True, timeout=600
    )
    assert local.returncode == 0, local.stderr
    result = subprocess.run(
        [*argv, "--dask", "local:2"], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert same_as_local(result.stdout) == local.stdout


def test_a_classes_only_algorithm_on_a_regression_names_what_dask_fits(capsys, files, address):
    status, _, err = fit(
        capsys, files / "abalone-part*.csv", "--algorithm", "id3", "--dask", address
    )
    assert status == 1
    assert "ID3 learns classes; use --algorithm cart (or forest) for regression" in err
    assert "m5" not in err  # model trees are not grown on Dask
