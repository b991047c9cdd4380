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


# -- weights and targets too large for the sums of growth ------------------------------------
# Above quercus.estimators.validate's limits a node's sums overflowed without a word: weights
# of 1e308 gave NaN probabilities, targets near 1e300 a tree of one leaf.

TARGET_LIMIT = 1e100
WEIGHT_LIMIT = 1e50


def small_data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["u", "v", "w"])
    labels = np.where(X["u"] > 0, "p", "q")
    values = pd.Series(3 * X["u"] + X["v"], name="price")
    return X, labels, values


WEIGHTED = [
    quercus.DecisionTreeClassifier,
    quercus.C45Classifier,
    quercus.ID3Classifier,
    quercus.DecisionTreeRegressor,
    quercus.ModelTreeRegressor,
    quercus.RandomForestClassifier,
    quercus.RandomForestRegressor,
]


@pytest.mark.parametrize("cls", WEIGHTED, ids=lambda c: c.__name__)
@pytest.mark.parametrize("weight", [1e308, 1e49])
def test_weights_summing_above_the_limit_are_refused(cls, weight):
    X, labels, values = small_data()
    y = values if "Regressor" in cls.__name__ else labels
    with pytest.raises(ValueError, match=r"^sample_weight sums to .* over 60 rows, above 1e\+50"):
        cls().fit(X, y, sample_weight=np.full(60, weight))


def test_an_integer_weight_beyond_the_float_range_is_refused():
    X, labels, _ = small_data()
    weights = [10**400] + [1] * 59
    with pytest.raises(ValueError, match=r"sample_weight holds an integer beyond the float range"):
        quercus.C45Classifier().fit(X, labels, sample_weight=weights)


@pytest.mark.parametrize("weight", [np.inf, -1.0])
def test_a_weight_for_every_row_is_checked_as_the_others(weight):
    X, labels, _ = small_data()
    with pytest.raises(ValueError, match="sample_weight must be finite|Negative values"):
        quercus.DecisionTreeClassifier().fit(X, labels, sample_weight=weight)


def test_class_weights_are_in_the_total():
    X, labels, _ = small_data()
    tree = quercus.DecisionTreeClassifier(class_weight={"p": 1e60, "q": 1.0})
    with pytest.raises(ValueError, match=r"sample_weight x class_weight sums to .* above 1e\+50"):
        tree.fit(X, labels)


REGRESSORS = {
    "squared_error": lambda: quercus.DecisionTreeRegressor(),
    "absolute_error": lambda: quercus.DecisionTreeRegressor(criterion="absolute_error"),
    "linear_leaves": lambda: quercus.DecisionTreeRegressor(leaf_model="linear", max_depth=2),
    "m5": lambda: quercus.ModelTreeRegressor(),
}


@pytest.mark.parametrize("make", REGRESSORS.values(), ids=REGRESSORS.keys())
@pytest.mark.parametrize("scale", [1e300, 1e101])
def test_targets_above_the_limit_are_refused_naming_the_column(make, scale):
    X, _, values = small_data()
    with pytest.raises(
        DataError, match=r"^target 'price' holds .* in row 0, beyond 1e\+100"
    ) as info:
        make().fit(X, values * scale)
    assert info.value.column == "price"


def test_forest_targets_above_the_limit_are_refused():
    X, _, values = small_data()
    with pytest.raises(DataError, match=r"holds 2.45e\+299 in row 0, beyond 1e\+100 in size"):
        quercus.RandomForestRegressor(3).fit(X, values * 1e300)


@pytest.mark.parametrize("make", REGRESSORS.values(), ids=REGRESSORS.keys())
def test_targets_too_small_to_square_are_refused(make):
    X, _, values = small_data()
    with pytest.raises(DataError, match=r"target 'price' holds only values below 1e-100 in size"):
        make().fit(X, values * 1e-170)


def test_an_integer_target_beyond_the_float_range_is_refused():
    X, _, _ = small_data()
    y = pd.Series([10**400] + list(range(59)), name="count", dtype=object)
    with pytest.raises(DataError, match=r"target 'count' holds an integer beyond the float range"):
        quercus.DecisionTreeRegressor().fit(X, y)


# Within the limits, scaling by powers of two is exact in every sum: the trees are those of
# the data at scale 1, their numbers scaled. Weights of 2**160 sum to 8.8e49 over 60 rows;
# targets times 2**320 are below 2e97. (Weights count samples: a regression tree's linear
# leaves and a forest's bootstrap read them so, and the targets are scaled alone there.)
WEIGHT_SCALE, TARGET_SCALE = 2.0**160, 2.0**320


@pytest.mark.parametrize(
    "make",
    [quercus.DecisionTreeClassifier, quercus.C45Classifier, quercus.ID3Classifier],
    ids=["cart", "c45", "id3"],
)
def test_classifiers_at_the_weight_limit_grow_the_same_tree(make, tmp_path):
    X, labels, _ = small_data()
    base = make().fit(X, labels)
    heavy = make().fit(X, labels, sample_weight=np.full(60, WEIGHT_SCALE))
    assert heavy.get_n_leaves() == base.get_n_leaves()
    assert np.array_equal(heavy.predict_proba(X), base.predict_proba(X))
    heavy.save(tmp_path / "heavy.json")
    loaded = quercus.load(tmp_path / "heavy.json")
    assert np.array_equal(loaded.predict_proba(X), base.predict_proba(X))


@pytest.mark.parametrize("make", REGRESSORS.values(), ids=REGRESSORS.keys())
def test_regressors_at_the_target_limit_grow_the_same_tree(make, tmp_path):
    X, _, values = small_data()
    base = make().fit(X, values)
    big = make().fit(X, values * TARGET_SCALE)
    assert big.get_n_leaves() == base.get_n_leaves()
    assert np.allclose(big.predict(X) / TARGET_SCALE, base.predict(X), rtol=1e-12, atol=0)
    big.save(tmp_path / "big.json")
    assert np.array_equal(quercus.load(tmp_path / "big.json").predict(X), big.predict(X))


def test_forests_at_the_limits():
    X, labels, values = small_data()
    forest = quercus.RandomForestClassifier(5, random_state=0)
    base = forest.fit(X, labels).predict_proba(X)
    heavy = forest.fit(X, labels, sample_weight=np.full(60, WEIGHT_SCALE))
    assert np.array_equal(heavy.predict_proba(X), base)
    # (Not the same trees: the growth's tolerances on ties are absolute, in target units.)
    forest = quercus.RandomForestRegressor(5, random_state=0)
    big = forest.fit(X, values * TARGET_SCALE, sample_weight=np.full(60, WEIGHT_SCALE))
    assert np.isfinite(big.predict(X)).all() and big.score(X, values * TARGET_SCALE) > 0.9


@pytest.mark.parametrize("make", REGRESSORS.values(), ids=REGRESSORS.keys())
def test_targets_and_weights_at_their_limits_are_split(make, tmp_path):
    X = pd.DataFrame({"a": [0.0, 1.0] * 8})
    y = np.array([-TARGET_LIMIT, TARGET_LIMIT] * 8)
    model = make().fit(X, y, sample_weight=np.full(16, WEIGHT_LIMIT / 16))
    assert np.allclose(model.predict(X), y, rtol=1e-12, atol=0)
    model.save(tmp_path / "limits.json")  # every number finite: JSON takes it


def test_forest_drawing_each_row_a_thousand_times_at_the_limits():
    X = pd.DataFrame({"a": [0.0, 1.0] * 8})
    y = np.array([-TARGET_LIMIT, TARGET_LIMIT] * 8)
    forest = quercus.RandomForestRegressor(3, max_samples=16_000, random_state=0)
    forest.fit(X, y, sample_weight=np.full(16, WEIGHT_LIMIT / 16))
    assert np.allclose(forest.predict(X), y, rtol=1e-12, atol=0)


def test_linear_leaves_refuse_features_above_the_limit():
    X, _, values = small_data()
    X["v"] *= 1e160
    for model in (
        quercus.ModelTreeRegressor(),
        quercus.DecisionTreeRegressor(leaf_model="linear", max_depth=2),
    ):
        with pytest.raises(DataError, match=r"column 'v' holds .* in row 0, beyond 1e\+100"):
            model.fit(X, values)
    # Constant leaves compare the feature, never sum its products: fine.
    assert quercus.ModelTreeRegressor(leaf_model="mean").fit(X, values).get_n_leaves() > 1


def test_cli_fit_refuses_a_target_near_1e300(tmp_path, capsys):
    path = tmp_path / "huge_target.csv"
    X, _, values = small_data()
    X.assign(price=values * 1e300).to_csv(path, index=False)
    for algorithm in ("cart", "m5"):
        assert main(["fit", str(path), "--algorithm", algorithm, "-q"]) == 1
        _, err = capsys.readouterr()
        assert err.startswith("quercus: error: target 'price' holds 2.45e+299 in row 0, beyond")
        assert "\n" not in err.strip()
    assert main(["fit", str(path), "--algorithm", "forest", "-q"]) == 1
    assert "beyond 1e+100 in size" in capsys.readouterr().err


# -- integers beyond the float range in a file -------------------------------------------------

HUGE = "1" + "0" * 399  # 400 digits


def test_a_400_digit_integer_in_a_csv_is_a_clear_error(tmp_path):
    path = tmp_path / "huge_int.csv"
    path.write_text(f"a,b,class\n1,{HUGE},x\n2,-{HUGE},y\n3,4,x\n")
    with pytest.raises(DataError) as info:
        read_table(path)
    message = str(info.value)
    assert message.startswith(
        f"{path}: column 'b' holds 100000000000...0000 (400 digits) in row 0, a number beyond "
        "the float range"
    )
    assert len(message) < len(str(path)) + 300 and info.value.column == "b"


def test_a_400_digit_integer_target_in_a_csv_names_it(tmp_path, capsys):
    path = tmp_path / "huge_target.csv"
    path.write_text(f"a,t\n1,{HUGE}\n2,3\n3,4\n")
    assert main(["fit", str(path), "-q"]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"quercus: error: {path}: column 't' holds 100000000000...0000 (400")


def test_a_400_digit_integer_declared_nominal_is_a_label(tmp_path):
    path = tmp_path / "huge_id.csv"
    path.write_text(f"id,b,class\n{HUGE},1,x\n2,2,y\n")
    table = read_table(path, nominal=["id"])
    assert set(table.schema["id"].categories) == {"2", HUGE}


def test_an_integer_within_the_float_range_is_a_number(tmp_path):
    # 300 digits: read as the nearest float, as every number written in decimal is.
    digits = "9" * 300
    path = tmp_path / "long_int.csv"
    path.write_text(f"a,b,class\n1,{digits},x\n2,-1,y\n")
    assert list(read_table(path).X["b"]) == [float(int(digits)), -1.0]


def test_python_integers_beyond_the_float_range_in_memory():
    frame = pd.DataFrame({"a": [10**400, 1, 2], "b": [1.0, 2.0, 3.0]})
    with pytest.raises(DataError, match=r"column 'a' holds 100000000000\.\.\.0000 \(401 digits\)"):
        quercus.C45Classifier().fit(frame, ["x", "y", "x"])
    with pytest.raises(DataError, match=r"column 'x0' holds 100000000000\.\.\.0000"):
        quercus.C45Classifier().fit([[10**400], [1], [2]], ["x", "y", "x"])
    tree = quercus.C45Classifier().fit(pd.DataFrame({"a": [0, 1, 2]}), ["x", "y", "x"])
    with pytest.raises(DataError, match=r"column 'a' holds -10000000000\.\.\.0000"):
        tree.predict(pd.DataFrame({"a": [-(10**400)]}, dtype=object))


def test_python_integer_beyond_the_float_range_beside_words_is_a_category():
    # Whole numbers beside words read as labels (as car's doors: 2, 3, 4, 5more).
    frame = pd.DataFrame({"a": [10**400, "x", 1, "x"], "y": ["p", "q", "p", "q"]})
    table = read_table(frame)
    assert table.schema["a"].kind == "nominal"
    assert set(table.schema["a"].categories) == {"1", "x", str(10**400)}
