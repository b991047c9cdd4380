"""A NumPy array of numbers is typed without pandas' copies (``infer_numeric_schema``): the
same schema, typed frame, errors, warnings and trees as the same data given as a DataFrame."""

import warnings

import numpy as np
import pandas as pd
import pytest

import quercus
from _helpers import assert_same_tree
from quercus.data import DataError, DataWarning, infer_schema
from quercus.data.encode import infer_numeric_schema, is_numeric_array


def _mixed_array(n=600, seed=0):
    """Floats with NaNs, whole numbers, a column of few values and a constant column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[rng.random(n) < 0.1, 0] = np.nan
    X[:, 1] = rng.integers(-3, 4, n)
    X[:, 2] = np.round(X[:, 2])
    X[rng.random(n) < 0.05, 2] = np.nan
    X[:, 4] = 2.5
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] > 0).astype(int) + (X[:, 3] > 1)
    return X, y


def _frame(X):
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])


@pytest.mark.parametrize(
    "dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8], ids=lambda d: d.__name__
)
def test_schema_and_typed_frame_match_the_pandas_path(dtype):
    X, _ = _mixed_array()
    if np.dtype(dtype).kind in "iu":
        X = np.nan_to_num(np.abs(X) * 10).astype(dtype)
    else:
        X = X.astype(dtype)
    assert is_numeric_array(X)
    names = [f"x{i}" for i in range(X.shape[1])]
    typed, schema = infer_numeric_schema(X, names)
    expected_typed, expected_schema = infer_schema(_frame(X))
    assert schema == expected_schema
    pd.testing.assert_frame_equal(typed, expected_typed)


def test_a_float64_array_is_not_copied():
    X, y = _mixed_array()
    est = quercus.DecisionTreeClassifier()
    typed = est._validate_X(X, reset=True)
    assert np.shares_memory(typed.to_numpy(), X)
    est.fit(X, y)
    assert np.isnan(X[:, 0]).any()  # the caller's array is left as it was


def test_what_is_not_a_plain_numeric_array():
    X, _ = _mixed_array()
    assert not is_numeric_array(X > 0)  # booleans are nominal
    assert not is_numeric_array(np.ma.masked_invalid(X))
    assert not is_numeric_array(X[:, 0])
    assert not is_numeric_array(X.astype(object))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_bins", ["auto", 8, None])
def test_classifier_grows_the_same_tree_from_array_and_frame(criterion, max_bins):
    X, y = _mixed_array()
    params = {"criterion": criterion, "max_bins": max_bins, "random_state": 0}
    from_array = quercus.DecisionTreeClassifier(**params).fit(X, y)
    from_frame = quercus.DecisionTreeClassifier(**params).fit(_frame(X), y)
    assert from_array.schema_ == from_frame.schema_
    assert_same_tree(from_array.tree_, from_frame.tree_)
    np.testing.assert_array_equal(from_array.predict(X), from_frame.predict(_frame(X)))


def test_integer_array_grows_the_tree_of_its_floats():
    X, y = _mixed_array()
    ints = np.nan_to_num(X * 4).astype(np.int64)
    from_ints = quercus.DecisionTreeClassifier(random_state=0).fit(ints, y)
    from_floats = quercus.DecisionTreeClassifier(random_state=0).fit(ints.astype(float), y)
    from_frame = quercus.DecisionTreeClassifier(random_state=0).fit(_frame(ints), y)
    assert from_ints.schema_ == from_frame.schema_ == from_floats.schema_
    assert_same_tree(from_ints.tree_, from_frame.tree_)
    assert_same_tree(from_ints.tree_, from_floats.tree_)


def test_c45_regressor_and_forest_grow_the_same_trees():
    X, y = _mixed_array()
    for make in (
        lambda: quercus.C45Classifier(),
        lambda: quercus.DecisionTreeRegressor(random_state=0),
    ):
        assert_same_tree(make().fit(X, y).tree_, make().fit(_frame(X), y).tree_)
    forest = {"n_estimators": 4, "random_state": 0, "n_jobs": 2}
    a = quercus.RandomForestClassifier(**forest).fit(X, y)
    b = quercus.RandomForestClassifier(**forest).fit(_frame(X), y)
    for ta, tb in zip(a.estimators_, b.estimators_, strict=True):
        assert_same_tree(ta.tree_, tb.tree_)


def test_nominal_selection_takes_the_pandas_path():
    X, y = _mixed_array()
    est = quercus.DecisionTreeClassifier(nominal_features=[1]).fit(X, y)
    assert est.schema_.kinds == ["numeric", "nominal", "numeric", "numeric", "numeric"]


def test_errors_and_warnings_match_the_pandas_path():
    X, y = _mixed_array()
    X[7, 3] = -np.inf
    messages = []
    for data in (X, _frame(X)):
        with pytest.raises(DataError) as info:
            quercus.DecisionTreeClassifier().fit(data, y)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "'x3'" in messages[0] and "row 7" in messages[0]

    X, y = _mixed_array()
    X[:, 2] = np.nan
    caught = []
    for data in (X, _frame(X)):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            quercus.DecisionTreeClassifier().fit(data, y)
        caught.append([str(w.message) for w in record if issubclass(w.category, DataWarning)])
    assert caught[0] == caught[1] == ["column 'x2' is entirely missing; no split can use it"]
