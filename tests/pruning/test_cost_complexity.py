"""CART's cost-complexity pruning: scikit-learn's path and pruned trees, and its properties."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import quercus
from quercus import datasets


def float32_safe(X):
    return X.astype(np.float32).astype(np.float64)  # scikit-learn fits on float32


@pytest.mark.parametrize(
    ("loader", "ours", "theirs"),
    [
        (load_breast_cancer, quercus.CARTClassifier, DecisionTreeClassifier),
        (load_wine, quercus.CARTClassifier, DecisionTreeClassifier),
        (load_diabetes, quercus.CARTRegressor, DecisionTreeRegressor),
    ],
)
def test_path_and_pruned_trees_match_sklearn(loader, ours, theirs):
    X, y = loader(return_X_y=True)
    X = float32_safe(X)
    path = ours().cost_complexity_pruning_path(X, y)
    reference = theirs(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(path.ccp_alphas, reference.ccp_alphas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(path.impurities, reference.impurities, rtol=1e-9, atol=1e-12)
    # Between two steps of the path, away from the boundaries that rounding decides.
    alphas = reference.ccp_alphas
    for k in (len(alphas) // 5, len(alphas) // 2, 4 * len(alphas) // 5):
        alpha = (alphas[k] + alphas[k + 1]) / 2
        a = ours(ccp_alpha=alpha).fit(X, y)
        b = theirs(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert a.get_n_leaves() == b.get_n_leaves()
        assert a.score(X, y) == pytest.approx(b.score(X, y))


def test_path_properties_and_ends():
    X, y = load_breast_cancer(return_X_y=True)
    path = quercus.CARTClassifier().cost_complexity_pruning_path(X, y)
    assert path.ccp_alphas[0] == 0.0
    assert np.all(np.diff(path.ccp_alphas) >= -1e-15)
    assert np.all(np.diff(path.impurities) >= -1e-15)
    full = quercus.CARTClassifier().fit(X, y)
    assert path.impurities[0] == pytest.approx(
        np.sum(full.tree_.impurity * full.tree_.weighted_n_node_samples * (full.tree_.kind == 0))
        / len(y)
    )
    stump = quercus.CARTClassifier(ccp_alpha=path.ccp_alphas[-1]).fit(X, y)
    assert stump.get_n_leaves() == 1
    assert stump.tree_.impurity[0] == pytest.approx(path.impurities[-1])


def test_pruned_tree_is_a_cut_of_the_full_tree():
    # Every leaf of the pruned tree is a node of the full tree: same statistics, and each
    # sample's pruned leaf lies on its full-tree path.
    X, y = load_wine(return_X_y=True)
    full = quercus.CARTClassifier().fit(X, y)
    pruned = quercus.CARTClassifier(ccp_alpha=0.02).fit(X, y)
    assert 1 < pruned.get_n_leaves() < full.get_n_leaves()
    paths = full.decision_path(X)
    full_values = full.tree_.value
    for i, leaf in enumerate(pruned.apply(X)):
        on_path = paths[i].indices
        matches = [
            n
            for n in on_path
            if np.array_equal(full_values[n], pruned.tree_.value[leaf])
            and full.tree_.depth[n] == pruned.tree_.depth[leaf]
        ]
        assert matches


def test_multiway_trees_prune_too():
    df = datasets.load("restaurant")
    X, y = df.iloc[:, :-1], df["WillWait"]
    big = pd.concat([X] * 3, ignore_index=True)
    labels = pd.concat([y] * 3, ignore_index=True)
    id3 = quercus.ID3Classifier()
    path = id3.cost_complexity_pruning_path(big, labels)
    assert len(path.ccp_alphas) > 1
    pruned = quercus.ID3Classifier(ccp_alpha=path.ccp_alphas[1]).fit(big, labels)
    assert pruned.get_n_leaves() < quercus.ID3Classifier().fit(big, labels).get_n_leaves()
    assert np.allclose(pruned.predict_proba(big).sum(axis=1), 1.0)


def test_ccp_alpha_is_validated():
    X, y = load_wine(return_X_y=True)
    for bad in (-0.1, "cv?", None):
        with pytest.raises(ValueError, match="ccp_alpha must be a number >= 0 or 'cv'"):
            quercus.CARTClassifier(ccp_alpha=bad).fit(X, y)


def test_alpha_chosen_by_cross_validation_with_one_standard_error():
    from sklearn.datasets import make_classification

    X, y = make_classification(1500, 8, flip_y=0.15, random_state=0)
    est = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    results = est.cv_results_
    mean, se = results["mean_error"], results["std_error"]
    best = int(np.argmin(mean))
    chosen = int(np.flatnonzero(results["ccp_alphas"] == est.ccp_alpha_)[0])
    assert mean[chosen] <= mean[best] + se[best] + 1e-12
    assert all(mean[j] > mean[best] + se[best] for j in range(chosen + 1, len(mean)))
    full = quercus.CARTClassifier().fit(X, y)
    assert est.get_n_leaves() < full.get_n_leaves()
    again = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    assert again.ccp_alpha_ == est.ccp_alpha_


def test_pruning_cost_complexity_is_one_parameter_away():
    from sklearn.datasets import make_classification

    X, y = make_classification(600, 6, flip_y=0.15, random_state=1)
    by_name = quercus.CARTClassifier(pruning="cost_complexity", random_state=0).fit(X, y)
    by_cv = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X, y)
    assert by_name.ccp_alpha_ == by_cv.ccp_alpha_
    assert by_name.export_text() == by_cv.export_text()
    fixed = quercus.CARTClassifier(pruning="cost_complexity", ccp_alpha=0.01).fit(X, y)
    assert not hasattr(fixed, "ccp_alpha_")
    assert fixed.export_text() == quercus.CARTClassifier(ccp_alpha=0.01).fit(X, y).export_text()
