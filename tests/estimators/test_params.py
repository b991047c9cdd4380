"""Every parameter of every estimator is checked before any work: a value it does not take is
an InvalidParameterError naming it from ``fit``, a usage error (exit 2) from ``--set``, and
a ModelError naming the field from a model file."""

import inspect

import numpy as np
import pytest

import quercus
from quercus.cli import main
from quercus.estimators.params import PARAM_RULES, check_params

ESTIMATORS = [
    quercus.DecisionTreeClassifier,
    quercus.DecisionTreeRegressor,
    quercus.ID3Classifier,
    quercus.C45Classifier,
    quercus.C45RulesClassifier,
    quercus.CARTClassifier,
    quercus.CARTRegressor,
    quercus.RandomForestClassifier,
    quercus.RandomForestRegressor,
    quercus.ModelTreeRegressor,
]

# A value each parameter refuses, and the words of its message.
BAD = {
    "criterion": ("chaos", "criterion must be one of"),
    "nominal_split": ("triple", "nominal_split must be one of 'multiway' or 'binary'"),
    "max_depth": (-1, "max_depth must be an integer >= 0 or None, got -1"),
    "min_samples_split": (1, "min_samples_split must be an integer >= 2 or a float in (0, 1]"),
    "min_samples_leaf": (0, "min_samples_leaf must be an integer >= 1 or a float in (0, 1]"),
    "min_impurity_decrease": (-0.5, "min_impurity_decrease must be a number >= 0"),
    "ccp_alpha": ("auto", "ccp_alpha must be a number >= 0 or 'cv', got 'auto'"),
    "pruning": ("prune", "pruning must be None, 'pessimistic', 'reduced_error' or"),
    "confidence": (0.75, "confidence must be in (0, 0.5]"),
    "subtree_raising": ("yes", "subtree_raising must be True or False, got 'yes'"),
    "validation_fraction": (1.0, "validation_fraction must be in (0, 1), got 1.0"),
    "significance": (5, "significance must be None or in (0, 1), got 5"),
    "c45_thresholds": (1, "c45_thresholds must be True or False, got 1"),
    "c45_variant": ("c5", "c45_variant must be one of 'j48' or 'release8'"),
    "collapse": ("no", "collapse must be True or False"),
    "missing": ("drop", "missing must be one of"),
    "max_leaf_nodes": (1, "max_leaf_nodes must be an integer >= 2 or None, got 1"),
    "max_features": (0, "max_features must be None, 'sqrt', 'log2', an integer >= 1"),
    "max_bins": (1, "max_bins must be 'auto', None or an integer >= 2, got 1"),
    "class_weight": ("even", "class_weight must be None, 'balanced'"),
    "nominal_features": (3.5, "nominal_features must be None, a column name or a list"),
    "ordinal_features": (["grade"], "ordinal_features must be None or a dict"),
    "random_state": (-1, "random_state must be None, an integer in [0, 2**32)"),
    "n_estimators": (0, "n_estimators must be an integer >= 1, got 0"),
    "feature_sampling": ("leaf", "feature_sampling must be one of 'node' or 'tree'"),
    "bootstrap": ("yes", "bootstrap must be True, False or 'poisson', got 'yes'"),
    "max_samples": (0.0, "max_samples must be None, an integer >= 1 or a float in (0, 1]"),
    "oob_score": ("on", "oob_score must be True or False"),
    "voting": ("majority", "voting must be one of 'soft' or 'hard'"),
    "n_jobs": (0, "n_jobs must be None or a non-zero integer"),
    "verbose": (-1, "verbose must be an integer >= 0, got -1"),
    "warm_start": ("no", "warm_start must be True or False"),
    "lookahead": (3, "lookahead must be 0, 1 or 2, got 3"),
    "split": ("diagonal", "split must be one of 'axis' or 'oblique'"),
    "leaf_model": ("median", "leaf_model must be one of 'linear' or 'mean'"),
    "smoothing": ("yes", "smoothing must be True or False, got 'yes'"),
}
# Where a class's parameter of the same name takes other values (a model tree's pruning is
# on or off).
BAD_OF_CLASS = {("ModelTreeRegressor", "pruning"): ("prune", "pruning must be True or False")}

CASES = [
    (cls, name)
    for cls in ESTIMATORS
    for name in inspect.signature(cls).parameters
    if name not in ("self",)
]


def test_every_parameter_has_a_rule_and_a_bad_value():
    names = {name for _, name in CASES}
    assert names <= set(PARAM_RULES)
    assert names <= set(BAD)


def test_the_defaults_pass():
    for cls in ESTIMATORS:
        check_params(cls())


@pytest.fixture(scope="module")
def iris():
    frame = quercus.datasets.load("iris")
    return frame.iloc[:, :-1], frame.iloc[:, -1]


@pytest.mark.parametrize("cls, name", CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_fit_names_the_parameter(cls, name, iris):
    X, y = iris
    value, words = BAD_OF_CLASS.get((cls.__name__, name), BAD[name])
    y = X.iloc[:, 0] if cls.regression else y
    with pytest.raises(quercus.InvalidParameterError) as info:
        cls(**{name: value}).fit(X, y)
    assert words in str(info.value)
    assert info.value.name == name


def test_values_that_are_taken():
    tree = quercus.C45Classifier
    for params in [
        {"max_depth": 0},
        {"max_depth": np.int64(3)},
        {"min_samples_leaf": 0.5},
        {"confidence": 0.5},
        {"c45_variant": "release8", "confidence": 0.75},
        {"significance": 0.01},
        {"ccp_alpha": "cv"},
        {"random_state": np.random.RandomState(0)},
        {"random_state": 2**32 - 1},
        {"class_weight": {"a": 2, "b": 0.5}},
        {"nominal_features": "colour"},
        {"ordinal_features": {"grade": ("low", "high")}},
        {"subtree_raising": np.bool_(False)},
    ]:
        check_params(tree(**params))
    check_params(quercus.RandomForestClassifier(class_weight="balanced_subsample", n_jobs=-1))


def test_the_pair_oob_score_without_bootstrap():
    with pytest.raises(quercus.InvalidParameterError, match="oob_score needs bootstrap=True"):
        check_params(quercus.RandomForestClassifier(oob_score=True, bootstrap=False))


CLI_CASES = [
    (algorithm, name)
    for algorithm, cls in [
        ("id3", quercus.ID3Classifier),
        ("c45rules", quercus.C45RulesClassifier),
        ("forest", quercus.RandomForestClassifier),
    ]
    for name in inspect.signature(cls).parameters
]


@pytest.mark.parametrize("algorithm, name", CLI_CASES, ids=[f"{a}-{n}" for a, n in CLI_CASES])
def test_a_bad_set_value_is_a_usage_error(algorithm, name, tmp_path, capsys):
    value, words = BAD[name]
    # No data file: the value is refused before any data is read.
    setting = f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}"
    status = main(["fit", str(tmp_path / "absent.csv"), "--algorithm", algorithm, "--set", setting])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"--set {name}: " in err and words in err
    assert "absent.csv" not in err


def test_a_value_right_for_the_regressor_waits_for_the_data(tmp_path, capsys):
    # criterion=squared_error is a CART regressor's: refused only once the target is known.
    data = quercus.datasets.path("playtennis")
    status = main(["fit", str(data), "--algorithm", "cart", "--set", "criterion=squared_error"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--set criterion: criterion must be one of 'gini'" in err
