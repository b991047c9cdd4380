"""The ``missing=`` policies on the lectures' data with cells blanked out.

The fractional numbers are Quinlan's example of unknown values (C4.5, 1993, ch. 3): the golf
data with the outlook of one case (overcast, 72, 90, windy, Play) unknown. That case goes down
every branch of the outlook split with weight (branch's known cases) / 13: 5/13 to sunny,
3/13 to overcast, 5/13 to rain; the book's tree shows the leaves as (3.4/0.4), (3.2), ...
"""

from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import datasets
from quercus.export import weka_text

GOLF = pd.DataFrame(
    [
        ["sunny", 85, 85, "false", "no"],
        ["sunny", 80, 90, "true", "no"],
        ["overcast", 83, 86, "false", "yes"],
        ["rainy", 70, 96, "false", "yes"],
        ["rainy", 68, 80, "false", "yes"],
        ["rainy", 65, 70, "true", "no"],
        ["overcast", 64, 65, "true", "yes"],
        ["sunny", 72, 95, "false", "no"],
        ["sunny", 69, 70, "false", "yes"],
        ["rainy", 75, 80, "false", "yes"],
        ["sunny", 75, 70, "true", "yes"],
        [None, 72, 90, "true", "yes"],  # Quinlan's unknown outlook (an overcast case)
        ["overcast", 81, 75, "false", "yes"],
        ["rainy", 71, 91, "true", "no"],
    ],
    columns=["outlook", "temperature", "humidity", "windy", "play"],
)


def golf_c45():
    X, y = GOLF.iloc[:, :-1], GOLF.iloc[:, -1]
    return quercus.C45Classifier(pruning=None).fit(X, y), X, y


def node_for(est, path):
    """Node reached from the root by branch indexes ``path``."""
    node = 0
    for k in path:
        node = est.tree_.child(node, k)
    return node


def test_fractional_training_weights_are_quinlans():
    est, _, _ = golf_c45()
    assert weka_text(est) == (
        "outlook = overcast: yes (3.23)\n"
        "outlook = rainy\n"
        "|   windy = false: yes (3.0)\n"
        "|   windy = true: no (2.38/0.38)\n"
        "outlook = sunny\n"
        "|   humidity <= 75: yes (2.0)\n"
        "|   humidity > 75: no (3.38/0.38)\n"
    )
    tree = est.tree_
    yes = list(est.classes_).index("yes")
    expected = {  # (path, weight, weight of "yes")
        (0,): (3 + F(3, 13), 3 + F(3, 13)),
        (1,): (5 + F(5, 13), 3 + F(5, 13)),
        (1, 1): (2 + F(5, 13), F(5, 13)),
        (2,): (5 + F(5, 13), 2 + F(5, 13)),
        (2, 1): (3 + F(5, 13), F(5, 13)),
    }
    for path, (weight, of_yes) in expected.items():
        node = node_for(est, path)
        assert tree.weighted_n_node_samples[node] == pytest.approx(float(weight), abs=1e-12)
        assert tree.value[node, yes] == pytest.approx(float(of_yes), abs=1e-12)
    # The case appears once in each outlook branch: 14 rows at the root, 6 in rain and sunny.
    assert tree.n_node_samples[0] == 14
    assert tree.n_node_samples[node_for(est, (1,))] == 6


def test_fractional_prediction_mixes_the_leaves_reached():
    est, _, _ = golf_c45()
    case = pd.DataFrame(
        [[None, 70, 80, "false"]], columns=["outlook", "temperature", "humidity", "windy"]
    )
    # sunny (5 5/13 of 14) then humidity > 75: yes with 5/13 of 3 5/13; overcast (3 3/13):
    # yes; rain (5 5/13) then windy = false: yes.
    sunny, overcast, rain = 5 + F(5, 13), 3 + F(3, 13), 5 + F(5, 13)
    p_yes = (sunny * (F(5, 13) / (3 + F(5, 13))) + overcast + rain) / 14
    proba = est.predict_proba(case)[0]
    assert proba[list(est.classes_).index("yes")] == pytest.approx(float(p_yes), abs=1e-12)
    assert proba.sum() == pytest.approx(1.0)
    assert est.predict(case)[0] == "yes"
    # One leaf per row for apply(): the heaviest branch (rain and sunny tie; the first).
    assert est.apply(case)[0] == node_for(est, (1, 0))
    # A known value takes its one leaf, as without missing values.
    known = case.assign(outlook="sunny")
    assert est.predict_proba(known)[0].tolist() == pytest.approx(
        list(est.tree_.value[node_for(est, (2, 1))] / (3 + 5 / 13))
    )


def test_fractional_regression_prediction_is_the_weighted_mean():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan]})
    y = [0.0, 0.0, 10.0, 10.0, 5.0]
    est = quercus.DecisionTreeRegressor(missing="fractional", max_depth=1).fit(X, y)
    # Each leaf holds two known rows and half of the missing one: (0 + 0 + 2.5) / 2.5 = 1
    # and (10 + 10 + 2.5) / 2.5 = 9; a missing value predicts their average.
    assert est.predict(pd.DataFrame({"x": [1.0, 4.0, np.nan]})).tolist() == pytest.approx(
        [1.0, 9.0, 5.0]
    )


def blanked_playtennis(row, column="Outlook"):
    df = datasets.load("playtennis").astype(object)
    df.loc[row, column] = None
    return df.iloc[:, :-1], df.iloc[:, -1]


def root_children(est):
    """Child weights at the root by category name of the root's feature."""
    tree = est.tree_
    feature = est.schema_.features[tree.feature[0]]
    table = tree.category_branches(0, np.arange(feature.n_categories))
    return {
        cat: tree.weighted_n_node_samples[tree.child(0, int(child))]
        for cat, child in zip(feature.categories, table, strict=True)
    }


def test_majority_puts_a_missing_value_in_the_heaviest_branch():
    # D3 (Overcast, Yes) loses its outlook: known Overcast 3, Rain 5, Sunny 5; the heaviest
    # is Rain (the first of the two in category order), where D3 is counted and trained.
    X, y = blanked_playtennis(2)
    est = quercus.ID3Classifier().fit(X, y)
    assert est.missing == "majority"
    assert est.schema_.features[est.tree_.feature[0]].name == "Outlook"
    assert root_children(est) == {"Overcast": 3.0, "Rain": 6.0, "Sunny": 5.0}
    rain = list(est.schema_.features[0].categories).index("Rain")
    assert est.tree_.missing_child[0] == rain
    # The gain that chose Outlook is the gain with D3 imputed as Rain.
    imputed = X.copy()
    imputed.loc[2, "Outlook"] = "Rain"
    table = quercus.gain_table(imputed.assign(PlayTennis=y), "PlayTennis")
    assert table.index[0] == "Outlook"


def test_class_majority_uses_the_most_common_value_of_the_same_class():
    # D14 (Rain, ..., No) loses its outlook. Among the No cases the most common outlook is
    # Sunny (D1, D2, D8), so D14 trains in Sunny; prediction still uses the heaviest branch.
    X, y = blanked_playtennis(13)
    est = quercus.ID3Classifier(missing="class_majority").fit(X, y)
    assert root_children(est) == {"Overcast": 4.0, "Rain": 4.0, "Sunny": 6.0}
    sunny = list(est.schema_.features[0].categories).index("Sunny")
    assert est.tree_.missing_child[0] == sunny  # also the heaviest now


def test_learned_sends_missing_values_to_the_better_side():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan, np.nan]})
    y = [0, 0, 0, 1, 1, 1, 1, 1]
    new = pd.DataFrame({"x": [np.nan, 2.0, 5.0]})
    learned = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
    assert learned.predict(new).tolist() == [1, 0, 1]
    assert learned.get_n_leaves() == 2  # one split separates everything
    # Majority: at each cut the missing rows join the heavier side; the best cut is then
    # x <= 2 (pure left), with the missing rows in the right, heavier, side.
    majority = quercus.DecisionTreeClassifier(missing="majority", max_depth=1).fit(X, y)
    tree = majority.tree_
    assert tree.threshold[0] == 2.5 and tree.missing_child[0] == 1
    assert tree.weighted_n_node_samples[tree.child(0, 1)] == 6.0
    # scikit-learn learns the same side.
    from sklearn.tree import DecisionTreeClassifier as SkTree

    assert SkTree(random_state=0).fit(X, y).predict(new).tolist() == [1, 0, 1]


def test_learned_multiway_split_remembers_the_best_category():
    # Three extra "No" cases with no outlook: the split remembers the category whose gain
    # is highest with them in it, and sends missing values there.
    df = datasets.load("playtennis").astype(object)
    extra = pd.DataFrame([[None, "Hot", "High", "Weak", "No"]] * 3, columns=df.columns)
    df = pd.concat([df, extra], ignore_index=True)
    X, y = df.iloc[:, :-1], df.iloc[:, -1]
    est = quercus.ID3Classifier(missing="learned", max_depth=1).fit(X, y)
    root = est.schema_.features[est.tree_.feature[0]]
    assert root.name == "Outlook"
    child = est.tree_.missing_child[0]
    best = None
    for k, cat in enumerate(root.categories):
        filled = X.copy()
        filled.loc[X["Outlook"].isna(), "Outlook"] = cat
        gain = quercus.information_gain(filled["Outlook"], y)
        if best is None or gain > best[0] + 1e-12:
            best = (gain, k)
    assert child == best[1]
    assert est.predict(extra.iloc[:, :-1]).tolist() == ["No"] * 3


def test_policies_are_checked():
    X, y = blanked_playtennis(2)
    with pytest.raises(ValueError, match="missing must be one of"):
        quercus.DecisionTreeClassifier(missing="drop").fit(X, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        quercus.DecisionTreeRegressor(missing="class_majority").fit([[1.0], [2.0]], [1.0, 2.0])


@pytest.mark.parametrize("missing", ["fractional", "majority", "class_majority", "learned"])
def test_every_policy_fits_and_predicts_data_with_missing_values(missing, shared):
    X, y = quercus.read_table(shared("credit-a.csv"))
    assert X.isna().any().any()
    est = quercus.C45Classifier(missing=missing).fit(X, y)
    proba = est.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert (est.predict(X) == est.classes_[np.argmax(proba, axis=1)]).all()
    assert est.score(X, y) > 0.85
