"""ID3 learns the lectures' trees on the shipped data sets."""

import numpy as np

import quercus
from quercus import datasets


def nested(est, node=0):
    """The fitted tree as nested dicts {feature: {category: subtree}} with class leaves."""
    tree = est.tree_
    if tree.kind[node] == 0:
        return est.classes_[int(np.argmax(tree.value[node]))]
    feature = est.schema_.features[tree.feature[node]]
    branches = {}
    for code, category in enumerate(feature.categories):
        child = int(tree.category_branches(node, [code])[0])
        branches[category] = nested(est, tree.children[tree.child_start[node] + child])
    return {feature.name: branches}


def fit_id3(name):
    df = datasets.load(name)
    return quercus.ID3Classifier().fit(df.iloc[:, :-1], df.iloc[:, -1]), df


def test_playtennis_tree():
    est, df = fit_id3("playtennis")
    assert nested(est) == {
        "Outlook": {
            "Sunny": {"Humidity": {"High": "No", "Normal": "Yes"}},
            "Overcast": "Yes",
            "Rain": {"Wind": {"Strong": "No", "Weak": "Yes"}},
        }
    }
    assert est.score(df.iloc[:, :-1], df.iloc[:, -1]) == 1.0
    assert est.get_depth() == 2 and est.get_n_leaves() == 5


def test_weekend_tree():
    est, _ = fit_id3("weekend")
    tree = nested(est)
    assert list(tree) == ["Weather"]
    assert list(tree["Weather"]["Sunny"]) == ["Parents"]


def test_restaurant_tree():
    est, df = fit_id3("restaurant")
    tree = nested(est)
    assert list(tree) == ["Pat"]
    assert tree["Pat"]["None"] == "No" and tree["Pat"]["Some"] == "Yes"
    assert est.score(df.iloc[:, :-1], df.iloc[:, -1]) == 1.0


def test_empty_branch_predicts_parent_majority():
    # Under Outlook = Rain, Humidity has no 'High'... in this table every branch is seen, so
    # build one: the 'Sunny' rows never have Wind = 'Calm', a declared category.
    df = datasets.load("playtennis")
    X = df.iloc[:, :-1].copy()
    X["Wind"] = X["Wind"].astype("category").cat.add_categories(["Calm"])
    est = quercus.ID3Classifier().fit(X, df["PlayTennis"])
    tree = nested(est)
    assert tree["Outlook"]["Rain"]["Wind"]["Calm"] == "Yes"  # Rain days: 3 Yes, 2 No
    # Predicting a Rain day with Calm wind goes to that empty leaf.
    row = X.iloc[[3]].copy()
    row["Wind"] = "Calm"
    assert est.predict(row)[0] == "Yes"
    leaf = est.apply(row)[0]
    assert est.tree_.n_node_samples[leaf] == 0


def test_id3_does_not_test_a_nominal_attribute_twice():
    rng = np.random.default_rng(0)
    frame = datasets.load("restaurant")
    big = frame.sample(200, replace=True, random_state=0).reset_index(drop=True)
    big["WillWait"] = rng.permutation(big["WillWait"].to_numpy())  # noise: a deep tree
    est = quercus.ID3Classifier().fit(big.iloc[:, :-1], big["WillWait"])
    tree = est.tree_
    parent = {
        int(c): n
        for n in range(tree.node_count)
        for c in tree.children[tree.child_start[n] : tree.child_start[n] + tree.n_children[n]]
    }
    for node in range(tree.node_count):
        if tree.kind[node] == 0:
            continue
        up = parent.get(node)
        while up is not None:
            assert tree.feature[up] != tree.feature[node]
            up = parent.get(up)
