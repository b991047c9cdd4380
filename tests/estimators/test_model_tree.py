"""ModelTreeRegressor (M5) against Weka's M5P on the shared regression sets, same folds.

The reference trees, texts and cross-validated errors come from ``scripts/m5p_reference.py``
(Weka 3.6.14), stored in ``tests/fixtures/m5p_reference.json`` so that the suite needs no
Java. The other tests check what must hold of any model tree: its models are least-squares
fits, smoothing folded into a leaf is the blend along its path, and missing values are the
filled values.
"""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.export.m5p import m5p_text, weka_number
from quercus.tree.linear_fit import fit_linear, node_moments

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "m5p_reference.json").read_text())
DATASETS = FIXTURE["datasets"]
CONFIGS = {
    "default": {},
    "unsmoothed": {"smoothing": False},
    "unpruned": {"pruning": False},
    "regression_tree": {"leaf_model": "mean"},
}
LARGE = ("bike_sharing_hour", "cal_housing", "diamonds")  # some seconds a fit


def load(name, shared):
    ds = DATASETS[name]
    path = quercus.datasets.path("abalone") if name == "abalone" else shared(ds["file"])
    return quercus.read_table(path, nominal=ds["nominal_columns"])


def sets(large_slow=True):
    return [
        pytest.param(n, marks=pytest.mark.slow) if large_slow and n in LARGE else n
        for n in DATASETS
    ]


def body(text: str) -> list[str]:
    """The lines of M5P's text between its heading and ``Number of Rules``, as the fixture
    keeps them."""
    lines = text.splitlines()
    lines = lines[lines.index("") : next(i for i, s in enumerate(lines) if s.startswith("Number"))]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def same_line(ours: str, theirs: str) -> bool:
    """Equal, or equal but for numbers one unit apart in their last printed decimal (a
    coefficient rounded from a sum in another order)."""
    if ours == theirs:
        return True
    if _NUMBER.sub("#", ours) != _NUMBER.sub("#", theirs):
        return False
    for a, b in zip(_NUMBER.findall(ours), _NUMBER.findall(theirs), strict=True):
        decimals = max(len(a.partition(".")[2]), len(b.partition(".")[2]))
        if abs(float(a) - float(b)) > 1.5 * 10.0**-decimals:
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Against M5P


def test_boston_is_m5ps_tree_with_its_models(shared):
    """Boston, M5P's defaults: the same 19 leaves, sizes, split lines and error shares, and
    the same smoothed models for the leaves whose ancestors' grown subtrees are M5P's.
    (One of the 193 grown splits, deep under ``rm > 6.941``, is a tie within rounding that
    M5P breaks by its row order: the models above it differ in their candidate terms.)"""
    X, y = load("boston", shared)
    est = quercus.ModelTreeRegressor().fit(X, y)
    ours = body(m5p_text(est))
    theirs = DATASETS["boston"]["configs"]["default"]["full_tree"]["text"].splitlines()
    tree_end = theirs.index("")
    assert ours[:tree_end] == theirs[:tree_end]
    lm9 = theirs.index("LM num: 9")
    assert ours[tree_end:lm9] == theirs[tree_end:lm9]
    assert est.get_n_leaves() == 19


WITH_TEXT = [
    (n, c)
    for n, d in DATASETS.items()
    for c, conf in d["configs"].items()
    if conf["full_tree"]["text"] is not None and (n, c) != ("boston", "default")
]


@pytest.mark.parametrize(
    ("name", "config"),
    [pytest.param(*p, marks=pytest.mark.slow) if p[0] in LARGE else p for p in WITH_TEXT],
)
def test_text_is_m5ps(name, config, shared):
    X, y = load(name, shared)
    est = quercus.ModelTreeRegressor(**CONFIGS[config]).fit(X, y)
    expected = DATASETS[name]["configs"][config]["full_tree"]
    text = m5p_text(est)
    assert "\n".join(text.splitlines()[: text.splitlines().index("")]) == expected["heading"]
    ours, theirs = body(text), expected["text"].splitlines()
    assert len(ours) == len(theirs)
    apart = [(a, b) for a, b in zip(ours, theirs, strict=True) if not same_line(a, b)]
    assert apart == []
    assert est.export_text(style="weka") == text


def first_splits(est) -> dict:
    lines = body(m5p_text(est))
    root = lines[0]
    left = lines[1] if lines[1].startswith("|   ") and "LM" not in lines[0] else None
    right_index = next(
        i for i, s in enumerate(lines) if s.startswith(root.split(" <= ")[0] + " > ")
    )
    out = {"root": _split(root), "left": _split(left) if left else "leaf"}
    after = lines[right_index + 1] if right_index + 1 < len(lines) else ""
    out["right"] = (
        _split(after) if after.startswith("|   ") and "LM" not in lines[right_index] else "leaf"
    )
    return out


def _split(line: str) -> dict:
    attribute, threshold = re.match(r"^(?:\|   )*(.+?) <= (\S+) :", line).groups()
    return {"attribute": attribute, "threshold": float(threshold)}


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("name", sets())
def test_first_splits_and_rules_are_m5ps(name, config, shared):
    X, y = load(name, shared)
    est = quercus.ModelTreeRegressor(**CONFIGS[config]).fit(X, y)
    expected = DATASETS[name]["configs"][config]["full_tree"]
    assert first_splits(est) == expected["first_splits"]
    # The same count of rules but for ties within rounding deep in the trees.
    assert est.get_n_leaves() == pytest.approx(expected["rules"], rel=0.02)


def cross_validate(name, shared, **params):
    X, y = load(name, shared)
    folds = np.asarray(DATASETS[name]["folds"])
    sse, sae, rules = [], 0.0, []
    for k in range(DATASETS[name]["n_folds"]):
        train, test = folds != k, folds == k
        est = quercus.ModelTreeRegressor(**params).fit(X[train], y[train])
        error = est.predict(X[test]) - y[test].to_numpy()
        sse.append(float(error @ error))
        sae += float(np.abs(error).sum())
        rules.append(est.get_n_leaves())
    return np.asarray(sse), sae / len(y), rules


@pytest.fixture(scope="module")
def rmse_ratios():
    return {}


@pytest.mark.slow
@pytest.mark.cross_validation
@pytest.mark.parametrize("name", list(DATASETS))
def test_cross_validated_error_and_rules_near_m5p(name, shared, rmse_ratios):
    """The issue's bar: RMSE within 3% of M5P's, rules within 25%; per fold (diamonds' RMSE
    is one outlier's, so MAE and every fold are checked too)."""
    reference = DATASETS[name]["configs"]["default"]
    sse, mae, rules = cross_validate(name, shared)
    rmse = float(np.sqrt(sse.sum() / len(DATASETS[name]["folds"])))
    rmse_ratios[name] = rmse / reference["rmse"]
    assert rmse <= 1.03 * reference["rmse"]
    assert mae <= 1.03 * reference["mae"]
    assert np.mean(rules) == pytest.approx(reference["mean_rules"], rel=0.25)
    for fold, ours in zip(reference["per_fold"], sse, strict=True):
        assert np.sqrt(ours) <= 1.05 * np.sqrt(fold["sse"])


@pytest.mark.slow
@pytest.mark.cross_validation
def test_not_worse_than_m5p_on_average(rmse_ratios):
    if len(rmse_ratios) < len(DATASETS):
        pytest.skip("needs every data set's cross-validation (run with the tests above)")
    # Boston is 0.1% behind (a tie within rounding), the others equal M5P to 4 digits.
    assert np.mean(list(rmse_ratios.values())) <= 1.002


# ---------------------------------------------------------------------------------------------
# What any model tree must satisfy


def test_every_split_leaves_more_than_a_fifth_on_each_side(shared):
    X, y = load("boston", shared)
    tree = quercus.ModelTreeRegressor(pruning=False).fit(X, y).tree_
    for node in np.flatnonzero(tree.kind != 0):
        n = tree.n_node_samples[node]
        assert n >= 4
        for kid in tree.children[tree.child_start[node] : tree.child_start[node] + 2]:
            assert tree.n_node_samples[kid] > n / 5 and tree.n_node_samples[kid] >= 2


def test_model_is_least_squares_when_every_term_counts():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 4))
    y = z @ np.array([3.0, -2.0, 1.5, 0.7]) + 4.0 + rng.normal(scale=0.1, size=200)
    w = np.ones(200)
    model = fit_linear(node_moments(z, y, w), np.arange(4), 4)
    design = np.column_stack([z, np.ones(200)])
    expected = np.linalg.lstsq(design, y, rcond=None)[0]
    np.testing.assert_allclose(model.coef, expected[:4], rtol=1e-6)
    assert model.intercept == pytest.approx(expected[4], rel=1e-6)
    assert model.sse == pytest.approx(float(np.sum((design @ expected - y) ** 2)), rel=1e-6)
    assert model.n_params == 5


def test_model_drops_a_copied_term_and_useless_ones():
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    noise = rng.normal(size=300)
    z = np.column_stack([x, x, noise, np.full(300, 2.0)])  # a copy, noise, a constant
    y = 2.0 * x + 1.0 + rng.normal(scale=0.01, size=300)
    model = fit_linear(node_moments(z, y, np.ones(300)), np.arange(4), 4)
    assert np.count_nonzero(model.coef[:2]) == 1
    assert model.coef[:2].sum() == pytest.approx(2.0, rel=1e-3)
    assert model.coef[2] == 0.0 and model.coef[3] == 0.0


def test_smoothing_folded_into_a_leaf_is_the_blend_along_its_path(shared):
    X, y = load("boston", shared)
    smooth = quercus.ModelTreeRegressor().fit(X, y)
    raw = quercus.ModelTreeRegressor(smoothing=False).fit(X, y)
    tree = raw.tree_
    n_terms = raw.terms_.n_terms
    terms = raw.terms_.terms(raw._predict_matrix(X))
    path = raw.decision_path(X)
    leaf = raw.apply(X)
    for row in range(0, len(y), 37):
        nodes = path[row].indices[np.argsort(tree.depth[path[row].indices])][::-1]  # leaf up
        p = tree.leaf_params[nodes[0], :n_terms] @ terms[row] + tree.leaf_params[nodes[0], n_terms]
        for lower, upper in zip(nodes[:-1], nodes[1:], strict=True):
            q = tree.leaf_params[upper, :n_terms] @ terms[row] + tree.leaf_params[upper, n_terms]
            n = tree.weighted_n_node_samples[lower]
            p = (n * p + 15.0 * q) / (n + 15.0)
        assert smooth.predict(X.iloc[[row]])[0] == pytest.approx(p, rel=1e-9)
        assert leaf[row] == smooth.apply(X.iloc[[row]])[0]


def test_missing_values_and_unseen_categories_take_the_training_fill():
    frame = quercus.datasets.load("abalone")
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    est = quercus.ModelTreeRegressor().fit(X, y)
    gaps = X.iloc[:50].copy()
    gaps.loc[gaps.index[::2], "Shell weight"] = np.nan
    gaps.loc[gaps.index[::3], "Sex"] = np.nan
    filled = gaps.copy()
    filled["Shell weight"] = filled["Shell weight"].fillna(X["Shell weight"].mean())
    mode = X["Sex"].value_counts().idxmax()
    filled["Sex"] = filled["Sex"].fillna(mode)
    np.testing.assert_allclose(est.predict(gaps), est.predict(filled), rtol=1e-12)
    unseen = X.iloc[:5].assign(Sex="Z")
    np.testing.assert_allclose(
        est.predict(unseen), est.predict(X.iloc[:5].assign(Sex=mode)), rtol=1e-12
    )


def test_same_model_on_any_number_of_threads():
    X, y = load("abalone", None)
    one = quercus.ModelTreeRegressor(n_jobs=1).fit(X, y)
    two = quercus.ModelTreeRegressor(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.tree_.feature, two.tree_.feature)
    np.testing.assert_array_equal(one.tree_.leaf_params, two.tree_.leaf_params)


def test_nominal_feature_terms_are_ranked_by_their_mean_target():
    X = pd.DataFrame({"color": list("abcabcabcabc") * 5, "x": np.arange(60.0)})
    means = {"a": 5.0, "b": 9.0, "c": 1.0}  # ranks c < a < b
    y = X["color"].map(means) + 0.01 * X["x"]
    est = quercus.ModelTreeRegressor().fit(X, y)
    assert est.terms_.names == ("color=a,b", "color=b", "x")
    terms = est.terms_.terms(est._predict_matrix(X.iloc[:3]))
    np.testing.assert_array_equal(terms[:, :2], [[1, 0], [1, 1], [0, 0]])


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"pruning": "pessimistic"}, "pruning"),
        ({"leaf_model": "median"}, "leaf_model"),
        ({"smoothing": 1}, "smoothing"),
        ({"min_samples_split": 1}, "min_samples_split"),
    ],
)
def test_bad_parameters_are_named(params, name):
    with pytest.raises(quercus.InvalidParameterError, match=name):
        quercus.ModelTreeRegressor(**params).fit([[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0])


def test_weka_numbers_round_half_away_from_zero():
    assert weka_number(6.2625, 3) == "6.263"
    assert weka_number(-0.00004, 4) == "0"
    assert weka_number(15.0, 3) == "15"
    assert weka_number(-8.27172, 4) == "-8.2717"


# ---------------------------------------------------------------------------------------------
# Linear leaves on the other regression trees


def test_regression_tree_with_linear_leaves_fits_piecewise_lines():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=400)
    y = np.where(x < 0, 3.0 * x + 10.0, -2.0 * x - 10.0)  # the jump places the split at 0
    X = pd.DataFrame({"x": x, "noise": rng.normal(size=400)})
    mean = quercus.DecisionTreeRegressor(max_depth=1).fit(X, y)
    linear = quercus.DecisionTreeRegressor(max_depth=1, leaf_model="linear").fit(X, y)
    assert linear.get_n_leaves() == 2
    np.testing.assert_allclose(linear.predict(X), y, atol=1e-9)
    assert np.abs(mean.predict(X) - y).max() > 0.5
    assert linear.export_text().count("LM") == 4  # two leaves, two equations
    # An exact fit (no error left) eliminates no term, as in M5P: the noise's coefficient is ~0.
    assert re.search(r"LM1: y = 3 \* x .*\+ 10\n", linear.export_text())


def test_linear_leaves_are_each_leafs_own_fit():
    frame = quercus.datasets.load("abalone")
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].to_numpy(dtype=float)
    est = quercus.DecisionTreeRegressor(max_depth=2, leaf_model="linear").fit(X, y)
    terms = est.terms_.terms(est._predict_matrix(X))
    leaf = est.apply(X)
    for node in np.unique(leaf):
        rows = leaf == node
        own = fit_linear(
            node_moments(terms[rows], y[rows], np.ones(rows.sum())),
            np.arange(est.terms_.n_terms),
            est.terms_.n_terms,
        )
        np.testing.assert_allclose(est.tree_.leaf_params[node, :-2], own.coef)
        assert est.tree_.leaf_params[node, -2] == pytest.approx(own.intercept)


def test_linear_leaves_need_least_squares_and_a_local_fit():
    with pytest.raises(quercus.InvalidParameterError, match="leaf_model"):
        quercus.DecisionTreeRegressor(criterion="absolute_error", leaf_model="linear").fit(
            [[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0]
        )
    from quercus.distributed.estimators import refuse_local_only

    with pytest.raises(quercus.InvalidParameterError, match="leaf_model"):
        refuse_local_only({"leaf_model": "linear"})
    est = quercus.DecisionTreeRegressor(leaf_model="linear").fit([[1.0], [2.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="M5P's layout"):
        est.export_text(style="weka")
