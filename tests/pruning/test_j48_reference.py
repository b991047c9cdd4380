"""C45Classifier against Weka's J48 (-C 0.25 -M 2) on the shared data sets, same folds.

The reference numbers and trees come from ``scripts/j48_reference.py`` (Weka 3.6.14), stored
in ``tests/fixtures/j48_reference.json`` so that the suite needs no Java.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import quercus
from quercus.export import weka_text

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "j48_reference.json").read_text())
DATASETS = FIXTURE["datasets"]


def load(name, shared):
    ds = DATASETS[name]
    return quercus.read_table(shared(ds["file"]), nominal=ds["nominal_columns"])


# Every data set whose J48 tree text is stored (all but letter and adult_train, whose trees
# are too long to keep): nominal-only ones as the issue asks, and the numeric ones too, with
# missing values (breast-cancer, credit-a, hepatitis) split fractionally as J48 does.
WITH_TREE = sorted(
    n for n, d in DATASETS.items() if d["configs"]["default"]["full_tree"]["text"] is not None
)


@pytest.mark.parametrize("name", WITH_TREE)
def test_pruned_tree_equals_j48(name, shared):
    X, y = load(name, shared)
    est = quercus.C45Classifier().fit(X, y)
    expected = DATASETS[name]["configs"]["default"]["full_tree"]
    assert weka_text(est).strip() == expected["text"].strip()
    assert est.get_n_leaves() == expected["leaves"]
    assert est.tree_.node_count == expected["size"]


def cross_validate(name, shared):
    """Pooled accuracy and per-fold (leaves, size) of C45Classifier on J48's folds."""
    X, y = load(name, shared)
    folds = np.asarray(DATASETS[name]["folds"])
    correct, sizes = 0, []
    for k in np.unique(folds):
        train, test = folds != k, folds == k
        est = quercus.C45Classifier().fit(X[train], y[train])
        correct += int((est.predict(X[test]) == y[test].to_numpy()).sum())
        sizes.append((est.get_n_leaves(), est.tree_.node_count))
    return correct / len(y), sizes


# Folds where the pruned tree is not J48's (data set -> fold indexes). adult_train fold 8:
# the unpruned trees are equal, and pessimistic pruning with subtree raising ends two
# leaves apart under "occupation = Sales" (J48 keeps 628 leaves, quercus 630).
FOLDS_APART = {"adult_train": {8}}


@pytest.fixture(scope="module")
def cv_results():
    return {}


@pytest.mark.slow
@pytest.mark.cross_validation
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_cross_validated_accuracy_and_size_near_j48(name, shared, cv_results):
    accuracy, sizes = cross_validate(name, shared)
    cv_results[name] = accuracy
    reference = DATASETS[name]["configs"]["default"]
    leaves = float(np.mean([n for n, _ in sizes]))
    assert abs(accuracy - reference["accuracy"]) <= 0.015
    assert abs(leaves - reference["mean_leaves"]) <= 0.25 * reference["mean_leaves"]
    # Closer than the issue asks: the same tree size as J48 on every fold but the listed.
    for k, (fold, (n_leaves, size)) in enumerate(zip(reference["per_fold"], sizes, strict=True)):
        if k not in FOLDS_APART.get(name, ()):
            assert (n_leaves, size) == (fold["leaves"], fold["size"]), f"fold {k}"


@pytest.mark.slow
@pytest.mark.cross_validation
def test_mean_accuracy_not_below_j48(cv_results):
    if len(cv_results) < len(DATASETS):
        pytest.skip("needs every data set's cross-validation (run the whole module)")
    ours = np.mean([cv_results[n] for n in DATASETS])
    theirs = np.mean([DATASETS[n]["configs"]["default"]["accuracy"] for n in DATASETS])
    assert ours >= theirs - 1e-12


@pytest.mark.parametrize("name", WITH_TREE)
def test_unpruned_tree_equals_j48_unpruned(name, shared):
    # J48 -U does not prune but still collapses (C4.5 does the same while growing):
    # C45Classifier(pruning=None) with its default collapse=True.
    X, y = load(name, shared)
    est = quercus.C45Classifier(pruning=None).fit(X, y)
    expected = DATASETS[name]["configs"]["unpruned"]["full_tree"]
    assert weka_text(est).strip() == expected["text"].strip()
    assert est.get_n_leaves() == expected["leaves"]
