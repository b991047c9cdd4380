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
SLOW = {"letter", "adult_train"}  # 20,000 and 32,561 rows: left to the benchmark


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
    X, y = load(name, shared)
    folds = np.asarray(DATASETS[name]["folds"])
    correct, leaves = 0, []
    for k in np.unique(folds):
        train, test = folds != k, folds == k
        est = quercus.C45Classifier().fit(X[train], y[train])
        correct += int((est.predict(X[test]) == y[test].to_numpy()).sum())
        leaves.append(est.get_n_leaves())
    return correct / len(y), float(np.mean(leaves))


@pytest.mark.parametrize("name", sorted(set(DATASETS) - SLOW))
def test_cross_validated_accuracy_and_size_near_j48(name, shared):
    accuracy, leaves = cross_validate(name, shared)
    reference = DATASETS[name]["configs"]["default"]
    assert abs(accuracy - reference["accuracy"]) <= 0.015
    assert abs(leaves - reference["mean_leaves"]) <= 0.25 * reference["mean_leaves"]


@pytest.mark.parametrize("name", WITH_TREE)
def test_unpruned_tree_equals_j48_unpruned(name, shared):
    # J48 -U does not prune but still collapses (C4.5 does the same while growing):
    # C45Classifier(pruning=None) with its default collapse=True.
    X, y = load(name, shared)
    est = quercus.C45Classifier(pruning=None).fit(X, y)
    expected = DATASETS[name]["configs"]["unpruned"]["full_tree"]
    assert weka_text(est).strip() == expected["text"].strip()
    assert est.get_n_leaves() == expected["leaves"]
