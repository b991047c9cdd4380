"""CART's cost-complexity pruning: scikit-learn's path and pruned trees, and its properties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import quercus
from quercus import datasets
from quercus._config import LEAF, NUMERIC_SPLIT
from quercus.tree import Tree


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


# -- the compiled path against its slow, obvious twin -----------------------------------------


def slow_weakest_links(tree, ccp_alpha):
    """Weakest-link pruning by rescanning every node at every step (quadratic): prune the
    inner node of smallest effective alpha (lowest id on ties) while it is <= ccp_alpha.
    Returns ``(alphas, impurities, pruned_mask)`` with ``alphas[0] = 0``."""
    from quercus.pruning.subtree import descendants, parents

    n = tree.node_count
    total = tree.weighted_n_node_samples[0]
    r_node = tree.impurity * tree.weighted_n_node_samples / total
    is_leaf = tree.kind == LEAF
    parent = parents(tree)
    r_sub = np.where(is_leaf, r_node, 0.0)
    leaves = is_leaf.astype(np.int64)
    for node in np.argsort(-tree.depth, kind="stable"):  # children before parents
        if parent[node] >= 0:
            r_sub[parent[node]] += r_sub[node]
            leaves[parent[node]] += leaves[node]
    alive = np.ones(n, dtype=bool)
    pruned = np.zeros(n, dtype=bool)
    alphas, impurities = [0.0], [r_sub[0]]
    while True:
        candidates = np.flatnonzero(alive & ~is_leaf & ~pruned)
        if len(candidates) == 0:
            break
        effective = (r_node[candidates] - r_sub[candidates]) / (leaves[candidates] - 1)
        k = int(np.argmin(effective))
        alpha, node = float(effective[k]), int(candidates[k])
        if alpha > ccp_alpha:
            break
        delta_r = r_node[node] - r_sub[node]
        delta_leaves = leaves[node] - 1
        pruned[node] = True
        alive[descendants(tree, node)] = False
        up = node
        while up >= 0:
            r_sub[up] += delta_r
            leaves[up] -= delta_leaves
            up = parent[up]
        alphas.append(alpha)
        impurities.append(r_sub[0])
    return np.asarray(alphas), np.asarray(impurities), pruned


@st.composite
def random_trees(draw):
    """A tree of random shape (2- and 3-way nodes, node ids in depth-first or breadth-first
    order) whose impurities and weights come from a few small values, so that effective
    alphas tie often (and some are negative: impurity may rise below a node)."""
    n_inner = draw(st.integers(0, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kids = {0: []}
    open_leaves = [0]
    for _ in range(n_inner):
        node = open_leaves.pop(int(rng.integers(len(open_leaves))))
        for _ in range(int(rng.choice([2, 2, 3]))):
            kids[node].append(len(kids))
            kids[len(kids)] = []
            open_leaves.append(len(kids) - 1)
    # Renumber: depth first (preorder) or breadth first.
    order, frontier = [], [0]
    depth_first = draw(st.booleans())
    while frontier:
        node = frontier.pop() if depth_first else frontier.pop(0)
        order.append(node)
        frontier.extend(reversed(kids[node]) if depth_first else kids[node])
    new = {old: i for i, old in enumerate(order)}
    n = len(order)
    kind = np.zeros(n, dtype=np.int8)
    child_start = np.zeros(n, dtype=np.int32)
    n_children = np.zeros(n, dtype=np.int32)
    depth = np.zeros(n, dtype=np.int32)
    children = []
    for old in order:
        i = new[old]
        if kids[old]:
            kind[i] = NUMERIC_SPLIT
            child_start[i] = len(children)
            n_children[i] = len(kids[old])
            for kid in kids[old]:
                children.append(new[kid])
                depth[new[kid]] = depth[i] + 1
    impurity = rng.choice([0.0, 0.25, 0.5, 0.5, 1.0], size=n)
    weight = rng.choice([1.0, 2.0, 4.0], size=n)
    weight[0] = 8.0
    inner = kind != LEAF
    return Tree(
        kind=kind,
        feature=np.where(inner, 0, -1).astype(np.int32),
        threshold=np.where(inner, 0.0, np.nan),
        child_start=child_start,
        n_children=n_children,
        children=np.asarray(children, dtype=np.int32),
        cat_start=np.full(n, -1, dtype=np.int32),
        cat_table=np.zeros(0, dtype=np.int32),
        missing_child=np.where(inner, 0, -1).astype(np.int32),
        value=np.ones((n, 2)),
        impurity=impurity,
        n_node_samples=weight.astype(np.int32),
        weighted_n_node_samples=weight,
        depth=depth,
    )


def assert_same_links(fast, slow):
    for ours, twin in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(ours, twin)  # the same floats, not close ones


@settings(max_examples=300, deadline=None)
@given(tree=random_trees(), pick=st.integers(0, 10**6))
def test_compiled_path_equals_its_twin_on_random_trees_with_ties(tree, pick):
    from quercus.pruning.cost_complexity import _weakest_links

    path = slow_weakest_links(tree, np.inf)
    assert_same_links(_weakest_links(tree, np.inf), path)
    alphas = path[0]
    # Stop exactly at a step's alpha (ties with ccp_alpha prune), just below it, and at 0.
    alpha = alphas[pick % len(alphas)]
    for ccp_alpha in (alpha, np.nextafter(alpha, -np.inf), 0.0, -1.0):
        assert_same_links(_weakest_links(tree, ccp_alpha), slow_weakest_links(tree, ccp_alpha))


@pytest.mark.parametrize("make", [quercus.CARTClassifier, quercus.CARTRegressor])
def test_compiled_path_equals_its_twin_on_grown_trees(make):
    from sklearn.datasets import make_classification

    from quercus.pruning.cost_complexity import _weakest_links

    X, y = make_classification(800, 6, n_informative=4, flip_y=0.2, random_state=3)
    X = np.round(X, 1)  # ties between values, and between the gains of splits
    if make is quercus.CARTRegressor:
        y = np.round(X[:, 0] * 2 + y, 0)
    tree = make().fit(X, y).tree_
    path = slow_weakest_links(tree, np.inf)
    assert len(path[0]) > 20
    assert_same_links(_weakest_links(tree, np.inf), path)
    for ccp_alpha in path[0][5::7]:
        assert_same_links(_weakest_links(tree, ccp_alpha), slow_weakest_links(tree, ccp_alpha))
