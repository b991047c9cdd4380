"""Reduced-error pruning: validation accuracy can only fall from any further pruning."""

import copy

import numpy as np
import pytest
from sklearn.datasets import make_classification

import quercus
from quercus.pruning import collapse


def test_every_remaining_node_is_needed_on_validation_data():
    X, y = make_classification(2500, 8, flip_y=0.15, random_state=0)
    X_grow, y_grow, X_val, y_val = X[:1500], y[:1500], X[1500:2000], y[1500:2000]
    grown = quercus.ID3Classifier().fit(X_grow, y_grow)
    est = quercus.ID3Classifier(pruning="reduced_error").fit(
        X_grow, y_grow, X_val=X_val, y_val=y_val
    )
    assert est.get_n_leaves() < grown.get_n_leaves()
    accuracy = est.score(X_val, y_val)
    assert accuracy >= grown.score(X_val, y_val)
    # Replacing any remaining inner node by a leaf strictly lowers validation accuracy.
    tree = est.tree_
    for node in np.flatnonzero(tree.kind != 0):
        probe = copy.copy(est)
        mask = np.zeros(tree.node_count, dtype=bool)
        mask[node] = True
        probe.tree_ = collapse(tree, mask)
        assert probe.score(X_val, y_val) < accuracy


def test_held_out_fraction_is_seeded_and_stratified():
    X, y = make_classification(1200, 6, flip_y=0.1, random_state=1)
    a = quercus.CARTClassifier(pruning="reduced_error", random_state=3).fit(X, y)
    b = quercus.CARTClassifier(pruning="reduced_error", random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    # The tree was grown on 75 % of the rows.
    assert a.tree_.weighted_n_node_samples[0] == pytest.approx(900)


def test_validation_arguments_are_checked():
    X, y = make_classification(200, 4, random_state=0)
    with pytest.raises(ValueError, match="X_val needs y_val"):
        quercus.ID3Classifier(pruning="reduced_error").fit(X, y, X_val=X)
    with pytest.raises(ValueError, match="y_val has a class not seen in y"):
        quercus.ID3Classifier(pruning="reduced_error").fit(X, y, X_val=X[:3], y_val=[0, 1, 7])
    with pytest.raises(ValueError, match="validation_fraction must be in"):
        quercus.ID3Classifier(pruning="reduced_error", validation_fraction=1.5).fit(X, y)
