"""Values at the ends of the float range and targets with nothing in them: correct results and
clear errors, without NumPy's overflow or cast warnings reaching the user."""

import warnings

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DataError, read_table
from quercus.binning import midpoints, numeric_bins
from quercus.cli import main

BIG = np.finfo(np.float64).max  # 1.7976931348623157e308

ESTIMATORS = [
    quercus.ID3Classifier,
    quercus.C45Classifier,
    quercus.CARTClassifier,
    quercus.DecisionTreeClassifier,
    quercus.CARTRegressor,
    quercus.DecisionTreeRegressor,
]


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_midpoints_of_huge_values_are_finite():
    below = np.array([-BIG, -1e308, -1e308, 1.0, 5e-324])
    above = np.array([BIG, 1e308, 0.0, 2.0, 1e-323])
    edges = midpoints(below, above)
    assert np.isfinite(edges).all()
    assert ((below <= edges) & (edges < above)).all()
    assert list(edges[:4]) == [0.0, 0.0, -5e307, 1.5]


def test_bins_of_huge_values():
    edges, lo, hi = numeric_bins(np.array([1e308, -1e308, BIG, -BIG, 0.0]), max_bins=None)
    assert list(edges) == [-BIG / 2 - 5e307, -5e307, 5e307, 1e308 / 2 + BIG / 2]
    assert list(lo) == [-BIG, -1e308, 0.0, 1e308, BIG]


def huge_frame():
    X = pd.DataFrame({"a": [1e308, -1e308] * 4, "b": [1.0, 1.0, 2.0, 2.0] * 2})
    return X, np.array(["x", "y"] * 4), np.array([1.0, 2.0] * 4)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_trees_split_between_huge_values(cls):
    X, labels, values = huge_frame()
    y = values if "Regressor" in cls.__name__ else labels
    tree = cls().fit(X, y)
    assert list(tree.predict(X)) == list(y)
    thresholds = tree.tree_.threshold[tree.tree_.feature >= 0]
    assert np.isfinite(thresholds).all()
    # New values route by their side of the threshold: -1e308 with the small ones.
    assert list(tree.predict(pd.DataFrame({"a": [-BIG, BIG], "b": [1.5, 1.5]}))) == list(y[1::-1])


@pytest.mark.parametrize(
    "cls", [quercus.RandomForestClassifier, quercus.RandomForestRegressor], ids=lambda c: c.__name__
)
def test_forests_split_between_huge_values(cls):
    X, labels, values = huge_frame()
    y = values if "Regressor" in cls.__name__ else labels
    forest = cls(n_estimators=5, max_features=None, bootstrap=False, random_state=0).fit(X, y)
    assert list(forest.predict(X)) == list(y)


def test_read_table_keeps_huge_values(tmp_path):
    path = tmp_path / "huge.csv"
    path.write_text("a,b,class\n1e308,1,x\n-1e308,2,y\n1.7976931348623157e308,3,x\n")
    table = read_table(path)
    assert list(table.X["a"]) == [1e308, -1e308, BIG]


def test_cli_fit_with_huge_values(tmp_path, capsys):
    path = tmp_path / "huge.csv"
    path.write_text("a,b,class\n" + "1e308,1,x\n-1e308,2,y\n" * 3)
    # The full tree: the command line's rpart settings would keep these 6 rows in one leaf.
    full = ["--set", "min_samples_split=2", "--set", "min_samples_leaf=1", "--set", "ccp_alpha=0"]
    assert main(["fit", str(path), "--algorithm", "cart", *full]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err
    assert "training accuracy: 1.000" in out


# -- a target with nothing in it -----------------------------------------------------------------


def test_all_missing_numeric_target_in_a_file(tmp_path):
    path = tmp_path / "empty_target.csv"
    path.write_text("a,b,t\n1,2,\n3,4,\n")
    with pytest.raises(DataError, match=f"{path}: target column 't' is entirely missing"):
        read_table(path)


def test_all_missing_target_in_a_dataframe():
    frame = pd.DataFrame({"a": [1.0, 2.0], "t": [np.nan, np.nan]})
    with pytest.raises(DataError, match="target column 't' is entirely missing"):
        read_table(frame)


def test_cli_fit_all_missing_target(tmp_path, capsys):
    path = tmp_path / "empty_target.csv"
    path.write_text("a,b,t\n1e308,2,\n-1e308,4,\n")
    assert main(["fit", str(path)]) == 1
    _, err = capsys.readouterr()
    assert err.strip() == f"quercus: error: {path}: target column 't' is entirely missing"


def test_the_midpoint_between_the_largest_floats_is_zero():
    # The threshold halfway between -1e308 and 1e308, in the tree and in the gain table,
    # computed without overflow (a warning would fail this test).
    X = pd.DataFrame({"a": [-1e308, -1e308, 1e308, 1e308]})
    y = np.array(["p", "p", "q", "q"])
    tree = quercus.DecisionTreeClassifier().fit(X, y)
    assert tree.tree_.threshold[0] == 0.0
    assert list(tree.predict(pd.DataFrame({"a": [-5e307, 5e307]}))) == ["p", "q"]
    table = quercus.gain_table(X, y)
    assert table.loc["a", "threshold"] == 0.0 and table.loc["a", "information_gain"] == 1.0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_float_class_target_with_nan_or_inf_is_refused_without_a_warning(bad):
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    for model in (quercus.C45Classifier(), quercus.RandomForestClassifier(3)):
        with pytest.raises(ValueError, match="Input y contains NaN or infinity"):
            model.fit(X, np.array([0.0, bad, 1.0]))
