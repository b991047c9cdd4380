"""The tree's arrays made from the compiled grower's node records (``NodeArrays.of_grown``),
and arrays in pages of their own (what threaded growth hands its pieces over in)."""

from __future__ import annotations

import mmap

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus._config import LEAF
from quercus.estimators import base
from quercus.tree import leaves
from quercus.tree.arrays import PER_NODE, NodeArrays


def _grown(estimator, regression: bool, monkeypatch):
    """The grower's arrays of a fit of ``estimator`` (one thread), and its leaf model."""
    seen = []
    tree_from_grown = base.tree_from_grown

    def keep(grown, params, regression):
        seen.append((grown, leaves.model_for(regression, params.criterion)))
        return tree_from_grown(grown, params, regression)

    monkeypatch.setattr(base, "tree_from_grown", keep)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=list("abc"))
    X["colour"] = rng.choice(["red", "green", "blue"], len(X))
    score = X["a"].to_numpy() + (X["colour"] == "red")
    y = score + rng.normal(size=len(X)) if regression else (score > 0.5).astype(int)
    estimator.set_params(n_jobs=1).fit(X, y)
    (grown,) = seen
    return grown


@pytest.mark.parametrize(
    ("estimator", "regression"),
    [
        # best-first: leaves keep the pending split they were never given in their records
        (quercus.DecisionTreeClassifier(max_leaf_nodes=4), False),
        (quercus.DecisionTreeClassifier(criterion="entropy", nominal_split="multiway"), False),
        (quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=5), True),
    ],
    ids=repr,
)
def test_node_arrays_are_the_records_with_the_tree_values_at_leaves(
    estimator, regression, monkeypatch
):
    grown, model = _grown(estimator, regression, monkeypatch)
    nodes = grown.nodes
    leaf = nodes["kind"] == LEAF
    if estimator.max_leaf_nodes:
        assert (nodes["feature"][leaf] >= 0).any()
    expected = {
        "kind": nodes["kind"],
        "feature": np.where(leaf, -1, nodes["feature"]),
        "threshold": np.where(leaf, np.nan, nodes["threshold"]),
        "child_start": np.where(leaf, 0, nodes["child_start"]),
        "n_children": np.where(leaf, 0, nodes["n_children"]),
        "cat_start": np.where(leaf, -1, nodes["cat_start"]),
        "missing_child": np.where(leaf, -1, nodes["missing_child"]),
        "value": grown.values,
        "impurity": nodes["impurity"],
        "n_node_samples": nodes["n_samples"],
        "weighted_n_node_samples": nodes["weight"],
        "depth": nodes["depth"],
        "leaf_params": nodes["median"].reshape(-1, 1) if regression else None,
        "children": grown.children,
        "cat_table": grown.cat_table,
    }
    for own_pages in (False, True):
        arrays = NodeArrays.of_grown(grown, model, own_pages=own_pages)
        for name, want in expected.items():
            got = getattr(arrays, name)
            if want is None:
                assert got is None, name
                continue
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert got.dtype == PER_NODE.get(name, np.int32), name


def _mapping(array: np.ndarray):
    """The object under ``array``'s chain of views (through the memoryview of a buffer)."""
    while isinstance(array, np.ndarray | memoryview):
        array = array.obj if isinstance(array, memoryview) else array.base
    return array


@pytest.mark.parametrize("n_nodes", [0, 1, 7])
def test_arrays_in_own_pages_lie_apart_in_one_mapping(n_nodes):
    arrays = NodeArrays.empty(n_nodes, 2 * n_nodes, 3, 3, 1, own_pages=True)
    present = {name: a for name, a in arrays._asdict().items() if a is not None}
    assert arrays.oblique is None  # oblique splits are grown level by level, not in pieces
    assert len(present) == len(NodeArrays._fields) - 1
    for i, array in enumerate(present.values()):
        array[...] = i + 1
    for i, (name, array) in enumerate(present.items()):
        assert (array == i + 1).all(), name
        assert array.ctypes.data % 8 == 0, name
        assert array.flags.writeable and array.flags.c_contiguous, name
    assert arrays.value.shape == (n_nodes, 3) and arrays.leaf_params.shape == (n_nodes, 1)
    assert len({id(_mapping(a)) for a in present.values()}) == 1
    assert isinstance(_mapping(arrays.kind), mmap.mmap)
    assert NodeArrays.empty(n_nodes, 0, 0, 2, 0, own_pages=True).leaf_params is None
