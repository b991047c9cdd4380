"""tree.gain_table(X, y, node=k): the rows at a node scored as the tree scores them, equal
to the learning trace on the training data of an unpruned tree; and why each leaf is one."""

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.export.node_scores import STOP_REASONS, score_nodes


@pytest.fixture(scope="module")
def playtennis():
    df = quercus.datasets.load("playtennis")
    return df.iloc[:, :-1], df["PlayTennis"]


def _frame(shared, name, target):
    df = pd.read_csv(shared(name))
    return df.drop(columns=[target]), df[target]


def _assert_trace_equal(estimator, X, y, sample_weight=None):
    """Every node's table equals the trace's rows of that node (the grower scores no
    candidate at max_depth, where the table still shows them)."""
    estimator.fit(X, y, sample_weight=sample_weight, trace=True)
    scores = score_nodes(estimator, X, y, sample_weight)
    assert len(scores) == estimator.tree_.node_count
    depth_limit = estimator.max_depth
    for s in scores:
        if depth_limit is not None and estimator.tree_.depth[s.node] >= depth_limit:
            assert estimator.trace_.node(s.node).empty
            assert s.stopped in ("max_depth", "pure", "constant")
            continue
        pd.testing.assert_frame_equal(
            s.candidates, estimator.trace_.node(s.node), check_dtype=False, rtol=1e-9
        )
        assert s.weight == pytest.approx(estimator.tree_.weighted_n_node_samples[s.node])
        assert s.n_rows == estimator.tree_.n_node_samples[s.node]
    return scores


def test_the_lectures_root_and_sunny_numbers(playtennis):
    X, y = playtennis
    tree = quercus.ID3Classifier().fit(X, y)
    root = tree.gain_table(X, y, node=0).set_index("attribute")
    # The lectures: gain(Outlook) = 0.247, gain(Humidity) = 0.152, gain(Wind) = 0.048,
    # gain(Temperature) = 0.029; Outlook chosen.
    assert root["gain"].round(3).to_dict() == {
        "Outlook": 0.247,
        "Temperature": 0.029,
        "Humidity": 0.152,
        "Wind": 0.048,
    }
    assert root["chosen"].to_dict() == {
        "Outlook": True,
        "Temperature": False,
        "Humidity": False,
        "Wind": False,
    }
    assert root["split_information"]["Outlook"] == pytest.approx(1.577, abs=5e-4)
    assert root["gain_ratio"]["Outlook"] == pytest.approx(0.156, abs=5e-4)
    sunny = tree.tree_.children[tree.tree_.child_start[0] + 2]  # Outlook = Sunny
    table = tree.gain_table(X, y, node=int(sunny)).set_index("attribute")
    # One level down, the Sunny days: Humidity 0.971, Temperature 0.571, Wind 0.020.
    assert table["gain"].round(3).to_dict() == {
        "Outlook": pytest.approx(np.nan, nan_ok=True),
        "Temperature": 0.571,
        "Humidity": 0.971,
        "Wind": 0.020,
    }
    # Outlook has one value there: no split to make.
    assert table.loc["Outlook", ["admissible", "split"]].tolist() == [False, "not admissible"]
    assert table["chosen"].idxmax() == "Humidity"
    with pytest.raises(ValueError, match=r"node must be in \[0, 8\)"):
        tree.gain_table(X, y, node=8)


def test_id3_playtennis_equals_the_trace_and_leaves_are_pure(playtennis):
    X, y = playtennis
    scores = _assert_trace_equal(quercus.ID3Classifier(), X, y)
    leaves = [s for s in scores if s.candidates.empty]
    assert len(leaves) == 5
    assert {s.stopped for s in leaves} == {"pure"}
    assert all(s.stopped is None for s in scores if not s.candidates.empty)


def test_c45_unpruned_with_missing_values_equals_the_trace(shared):
    # Fractional copies: a row with a missing value reaches several nodes with shares of
    # its weight, and C4.5's rules for continuous attributes apply.
    X, y = _frame(shared, "hepatitis.csv", "Class")
    assert X.isna().any().any()
    scores = _assert_trace_equal(quercus.C45Classifier(pruning=None, collapse=False), X, y)
    weights = [s.weight for s in scores]
    assert any(w != round(w) for w in weights)  # fractional weights did occur


@pytest.mark.parametrize("missing", ["majority", "class_majority", "learned"])
def test_binary_subsets_and_missing_policies_equal_the_trace(shared, missing):
    X, y = _frame(shared, "breast-cancer.csv", "Class")
    tree = quercus.DecisionTreeClassifier(missing=missing, max_depth=4, random_state=0)
    _assert_trace_equal(tree, X, y)


def test_regression_and_weights_equal_the_trace():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "x": rng.normal(size=80),
            "colour": rng.choice(["red", "green", "blue"], size=80),
        }
    )
    y = 2.0 * X["x"] + (X["colour"] == "red") + rng.normal(scale=0.1, size=80)
    w = rng.integers(1, 4, size=80).astype(float)
    scores = _assert_trace_equal(quercus.CARTRegressor(max_depth=3), X, y, sample_weight=w)
    assert scores[0].gain_name == "variance decrease"


def test_a_regression_gain_table_has_no_classification_columns():
    # Split information and gain ratio are C4.5's normalisation of an information gain: a
    # regression tree's table (and trace) has its variance decrease alone.
    df = quercus.datasets.load("abalone").head(400)
    X, y = df.iloc[:, :-1], df.iloc[:, -1]
    tree = quercus.CARTRegressor(max_depth=2).fit(X, y, trace=True)
    columns = ["node", "attribute", "gain", "split", "admissible", "chosen"]
    assert list(tree.gain_table(X, y).columns) == columns
    assert list(tree.trace_.candidates.columns) == columns
    assert "split information" not in str(tree.trace_)
    leaf = next(k for k in range(tree.tree_.node_count) if tree.tree_.kind[k] == 0)
    assert list(score_nodes(tree, X.head(0), y.head(0), nodes=[leaf])[0].candidates) == columns
    classes = quercus.CARTClassifier(max_depth=2).fit(X, y.astype(str))
    assert {"split_information", "gain_ratio"} <= set(classes.gain_table(X, y.astype(str)))


def test_why_leaves_stopped(playtennis):
    X, y = playtennis
    shallow = quercus.ID3Classifier(max_depth=1).fit(X, y)
    reasons = {s.node: s.stopped for s in score_nodes(shallow, X, y)}
    assert reasons == {0: None, 1: "pure", 2: "max_depth", 3: "max_depth"}
    # At max_depth the candidates are still scored: the Sunny branch's Humidity 0.971.
    sunny = shallow.gain_table(X, y, node=3).set_index("attribute")
    assert sunny["gain"]["Humidity"] == pytest.approx(0.971, abs=5e-4)
    assert not sunny["chosen"].any()

    few = quercus.ID3Classifier(min_samples_split=6).fit(X, y)
    assert {s.stopped for s in score_nodes(few, X, y) if s.stopped} == {"pure", "too_few"}

    tested = quercus.ID3Classifier(significance=0.01).fit(X, y)
    assert score_nodes(tested, X, y)[0].stopped == "not_significant"

    decrease = quercus.ID3Classifier(min_impurity_decrease=0.3).fit(X, y)
    assert score_nodes(decrease, X, y)[0].stopped == "min_impurity_decrease"

    pruned = quercus.DecisionTreeClassifier(criterion="entropy", ccp_alpha=1.0).fit(X, y)
    assert pruned.tree_.node_count == 1
    (root,) = score_nodes(pruned, X, y)
    assert root.stopped == "pruned"
    assert root.candidates["chosen"].sum() == 0 and root.candidates["admissible"].all()
    assert set(STOP_REASONS) >= {"pure", "max_depth", "too_few", "pruned", "not_significant"}


def test_other_rows_and_errors(playtennis):
    X, y = playtennis
    tree = quercus.ID3Classifier().fit(X, y)
    # Only the Sunny days: they all reach the Sunny node, none the others.
    sunny_rows = X["Outlook"] == "Sunny"
    scores = score_nodes(tree, X[sunny_rows], y[sunny_rows])
    assert [s.weight for s in scores][:2] == [5.0, 0.0]
    assert scores[1].stopped == "empty"
    with pytest.raises(ValueError, match="no case of X reaches node 1"):
        tree.gain_table(X[sunny_rows], y[sunny_rows], node=1)
    with pytest.raises(quercus.DataError, match="class 'Maybe'"):
        tree.gain_table(X, y.replace("Yes", "Maybe"), node=0)
    with pytest.raises(quercus.DataError, match="Wind"):
        tree.gain_table(X.drop(columns=["Wind"]), y, node=0)
