"""``c45_variant``: Weka's J48 (the default) or Quinlan's C4.5 release 8, where they differ.

The differences (REFERENCE-FACTS): J48 compares gains and threshold placement within 1e-6,
C4.5 exactly; J48's pessimistic estimate uses the exact normal deviate and ``n - e`` at the
high end, C4.5 its interpolated table and ``0.67 (n - e)`` (the vectors are in
``test_error_estimates.py``); both raise the last of equally large branches.
"""

import numpy as np
import pytest

import quercus
from quercus._config import LEAF
from quercus.export import weka_text
from quercus.pruning.error_estimates import pessimistic_errors


def diabetes(shared):
    return quercus.read_table(shared("diabetes.csv"))


def test_threshold_placement_tolerance(shared):
    # A cut between 0.557 and 0.565 has the midpoint 0.5609999999999999 in floating point;
    # J48 takes 0.561 as "at or below" it (within 1e-6), release 8 takes 0.56.
    X, y = diabetes(shared)
    j48 = weka_text(quercus.C45Classifier().fit(X, y))
    r8 = weka_text(quercus.C45Classifier(c45_variant="release8").fit(X, y))
    assert "pedi <= 0.561:" in j48 and "pedi <= 0.56:" not in j48
    assert "pedi <= 0.56:" in r8 and "pedi <= 0.561:" not in r8


def estimates(est, variant):
    """Pessimistic errors of every node as a leaf, and of the subtree below it."""
    tree = est.tree_
    n = tree.weighted_n_node_samples
    errors = n - tree.value.max(axis=1)
    as_leaf = np.array(
        [
            pessimistic_errors(n[i], errors[i], 0.25, variant) if n[i] > 0 else 0.0
            for i in range(len(n))
        ]
    )
    subtree = as_leaf.copy()
    for node in np.argsort(-tree.depth, kind="stable"):  # children first
        if tree.kind[node] != LEAF:
            first = tree.child_start[node]
            subtree[node] = subtree[tree.children[first : first + tree.n_children[node]]].sum()
    return as_leaf, subtree


@pytest.mark.parametrize("name", ["diabetes", "car", "credit-a"])
def test_every_kept_split_beats_its_leaf_by_the_variants_estimate(name, shared):
    # A split survives pruning only if the node as a leaf is estimated worse than its
    # subtree by more than 0.1 (else it would be a leaf, or its largest branch raised).
    codes = ["doors", "persons"] if name == "car" else None  # 2, 3, 4, 5more: nominal
    X, y = quercus.read_table(shared(f"{name}.csv"), nominal=codes)
    for c45_variant, errors_variant in [("j48", "j48"), ("release8", "c45")]:
        est = quercus.C45Classifier(c45_variant=c45_variant).fit(X, y)
        as_leaf, subtree = estimates(est, errors_variant)
        inner = est.tree_.kind != LEAF
        assert (as_leaf[inner] > subtree[inner] + 0.1 - 1e-6).all(), c45_variant


def test_the_variants_prune_differently(shared):
    X, y = diabetes(shared)
    j48 = quercus.C45Classifier().fit(X, y)
    r8 = quercus.C45Classifier(c45_variant="release8").fit(X, y)
    assert j48.get_n_leaves() != r8.get_n_leaves()
    # The estimates differ (deviate 0.6925 vs 0.6745; 0.67 (n - e) vs n - e for leaves with
    # almost all cases wrong): here release 8 keeps splits that J48's estimates prune.
    assert r8.get_n_leaves() > j48.get_n_leaves()
    as_leaf, subtree = estimates(r8, "j48")
    inner = r8.tree_.kind != LEAF
    assert not (as_leaf[inner] > subtree[inner] + 0.1 - 1e-6).all()


def test_confidence_bounds_follow_the_variant():
    X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 0.5\]"):
        quercus.C45Classifier(confidence=0.75).fit(X, y)
    quercus.C45Classifier(confidence=0.75, c45_variant="release8").fit(X, y)
    with pytest.raises(ValueError, match="c45_variant must be"):
        quercus.C45Classifier(c45_variant="c5").fit(X, y)
