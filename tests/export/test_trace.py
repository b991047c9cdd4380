"""The learning trace: every candidate's gain at every node, and the choice made."""

import numpy as np
import pytest

import quercus


@pytest.fixture(scope="module")
def playtennis():
    df = quercus.datasets.load("playtennis")
    return df.iloc[:, :-1], df["PlayTennis"]


def test_id3_trace_has_the_lecture_numbers(playtennis):
    X, y = playtennis
    tree = quercus.ID3Classifier().fit(X, y, trace=True)
    root = tree.trace_.node(0).set_index("attribute")
    # The lecture: Gain(Outlook) 0.246, Humidity 0.151, Wind 0.048, Temperature 0.029.
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
    gains = quercus.gain_table(X, y)["information_gain"]
    assert np.allclose(root["gain"], gains[root.index], atol=1e-12)
    sunny = tree.trace_.nodes.query("path == 'Outlook = Sunny'")["node"].item()
    at_sunny = tree.trace_.node(sunny).set_index("attribute")
    # Outlook, tested above, has one branch here: not admissible.
    assert at_sunny["gain"].dropna().round(3).to_dict() == {
        "Temperature": 0.571,
        "Humidity": 0.971,
        "Wind": 0.020,
    }
    assert not at_sunny.loc["Outlook", "admissible"]
    assert at_sunny.loc["Humidity", "chosen"]
    text = str(tree.trace_)
    assert text.splitlines()[0] == "node 0 (root): 14 samples: No 5, Yes 9"
    assert "Outlook                 0.247              1.577       0.156" in text
    assert "node 1 (Outlook = Overcast): 4 samples: Yes 4 -> leaf" in text


@pytest.mark.parametrize(
    "make",
    [
        lambda: quercus.CARTClassifier(),
        lambda: quercus.C45Classifier(pruning=None),
        lambda: quercus.DecisionTreeClassifier(criterion="entropy", max_depth=3),
    ],
)
def test_the_chosen_candidate_is_the_best_by_the_criterion(make, shared):
    X, y = quercus.read_table(shared("credit-a.csv"))
    tree = make().fit(X, y, trace=True)
    trace = tree.trace_
    split_nodes = trace.nodes[trace.nodes["split"].notna()]["node"]
    assert len(split_nodes) > 3
    for node in split_nodes:
        rows = trace.node(node)
        ok = rows[rows["admissible"]]
        chosen = rows[rows["chosen"]]
        assert len(chosen) == 1
        if tree.criterion == "gain_ratio":
            eligible = ok[ok["gain"] >= ok["gain"].mean() - 1e-3]
            best = eligible["gain_ratio"].max()
            assert chosen["gain_ratio"].item() == pytest.approx(best, abs=1e-6)
        else:
            assert chosen["gain"].item() == pytest.approx(ok["gain"].max(), abs=1e-12)


def test_trace_does_not_change_the_tree(playtennis):
    X, y = playtennis
    plain = quercus.C45Classifier().fit(X, y)
    traced = quercus.C45Classifier().fit(X, y, trace=True)
    assert plain.export_text() == traced.export_text()
    assert not hasattr(plain, "trace_")
    traced.fit(X, y)
    assert not hasattr(traced, "trace_")


def test_regression_trace_names_its_criterion():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 3 * X[:, 1] + rng.normal(scale=0.1, size=200)
    tree = quercus.CARTRegressor(max_depth=2).fit(X, y, trace=True)
    assert tree.trace_.gain_name == "variance decrease"
    assert tree.trace_.node(0).set_index("attribute")["chosen"].idxmax() == "x1"
