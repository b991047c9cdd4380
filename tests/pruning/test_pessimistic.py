"""C4.5's pessimistic pruning (as J48): the decision rule on hand-made cases, and properties."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_classification

import quercus
from quercus.pruning import pessimistic_errors


def test_playtennis_keeps_the_lecture_tree():
    df = quercus.datasets.load("playtennis")
    est = quercus.C45Classifier().fit(df.iloc[:, :-1], df["PlayTennis"])
    # J48 on the same 14 days keeps all five leaves (outlook, then humidity / wind).
    assert est.get_n_leaves() == 5 and est.score(df.iloc[:, :-1], df["PlayTennis"]) == 1.0


@pytest.mark.parametrize(
    ("counts", "pruned"),
    [
        # (yes, no) per category of x; whether the split on x should be pruned away.
        ({"a": (6, 0), "b": (9, 1), "c": (1, 0)}, True),
        ({"a": (20, 0), "b": (0, 20)}, False),
        ({"a": (8, 3), "b": (3, 8)}, None),  # decided by the numbers below
    ],
)
def test_leaf_versus_subtree_rule(counts, pruned):
    rows = [
        (cat, label) for cat, (yes, no) in counts.items() for label in ["yes"] * yes + ["no"] * no
    ]
    frame = pd.DataFrame(rows, columns=["x", "y"])
    est = quercus.C45Classifier(min_samples_leaf=1).fit(frame[["x"]], frame["y"])
    total_yes = sum(c[0] for c in counts.values())
    total_no = sum(c[1] for c in counts.values())
    n = total_yes + total_no
    as_leaf = pessimistic_errors(n, min(total_yes, total_no))
    as_tree = sum(pessimistic_errors(yes + no, min(yes, no)) for yes, no in counts.values())
    expected = as_leaf <= as_tree + 0.1  # the largest branch is a leaf: same as the node leaf
    if pruned is not None:
        assert expected == pruned  # the hand reasoning agrees with the formula
    assert (est.get_n_leaves() == 1) == expected


def test_pruning_shrinks_and_confidence_orders():
    # Midpoint thresholds without C4.5's MDL cost, so that a large tree is grown to prune
    # (with the cost, C4.5 grows only 2 leaves here: every gain below the root is smaller).
    X, y = make_classification(2000, 8, flip_y=0.15, random_state=0)
    grown = quercus.C45Classifier(pruning=None, c45_thresholds=False).fit(X, y)
    leaves = {
        cf: quercus.C45Classifier(confidence=cf, c45_thresholds=False).fit(X, y).get_n_leaves()
        for cf in (0.05, 0.25, 0.5)
    }
    assert leaves[0.05] <= leaves[0.25] <= leaves[0.5] < grown.get_n_leaves()
    pruned = quercus.C45Classifier(c45_thresholds=False).fit(X, y)
    assert pruned.score(X, y) <= grown.score(X, y)
    # Statistics are recomputed from the training cases: they add up at every node.
    t = pruned.tree_
    for node in np.flatnonzero(t.kind != 0):
        kids = t.children[t.child_start[node] : t.child_start[node] + t.n_children[node]]
        np.testing.assert_allclose(t.value[kids].sum(axis=0), t.value[node])
    assert t.value[0].sum() == len(y)


def test_without_raising_the_tree_is_a_cut_of_the_grown_tree():
    X, y = load_breast_cancer(return_X_y=True)
    grown = quercus.C45Classifier(pruning=None).fit(X, y)
    cut = quercus.C45Classifier(subtree_raising=False).fit(X, y)
    assert cut.get_n_leaves() < grown.get_n_leaves()
    grown_splits = set(zip(grown.tree_.feature, grown.tree_.threshold, strict=True))
    for f, thr in zip(cut.tree_.feature, cut.tree_.threshold, strict=True):
        if f >= 0:
            assert (f, thr) in grown_splits
    with pytest.raises(ValueError, match="confidence must be in"):
        quercus.C45Classifier(confidence=0.7).fit(X, y)
    with pytest.raises(ValueError, match="pruning must be"):
        quercus.CARTClassifier(pruning="magic").fit(X, y)
