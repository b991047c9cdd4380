"""Cutting subtrees: the nodes kept, level by level, against a walk under each cut node."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus._config import LEAF, NUMERIC_SPLIT
from quercus.pruning.subtree import descendants, kept_nodes
from quercus.tree import Tree


def random_tree(rng) -> Tree:
    """A tree of random shape (2- and 3-way nodes), node ids in the order made."""
    kids, open_leaves = {0: []}, [0]
    for _ in range(int(rng.integers(0, 30))):
        node = open_leaves.pop(int(rng.integers(len(open_leaves))))
        for _ in range(int(rng.choice([2, 3]))):
            kids[node].append(len(kids))
            kids[len(kids)] = []
            open_leaves.append(len(kids) - 1)
    n = len(kids)
    kind = np.array([NUMERIC_SPLIT if kids[i] else LEAF for i in range(n)], dtype=np.int8)
    n_children = np.array([len(kids[i]) for i in range(n)], dtype=np.int32)
    child_start = (np.cumsum(n_children) - n_children).astype(np.int32)
    depth = np.zeros(n, dtype=np.int32)
    for i in range(n):
        depth[kids[i]] = depth[i] + 1
    return Tree(
        kind=kind,
        feature=np.where(kind == LEAF, -1, 0).astype(np.int32),
        threshold=np.where(kind == LEAF, np.nan, 0.5),
        child_start=child_start,
        n_children=n_children,
        children=np.array([k for i in range(n) for k in kids[i]], dtype=np.int32),
        cat_start=np.full(n, -1, dtype=np.int32),
        cat_table=np.zeros(0, dtype=np.int32),
        missing_child=np.where(kind == LEAF, -1, 0).astype(np.int32),
        value=np.ones((n, 2)),
        impurity=np.zeros(n),
        n_node_samples=np.ones(n, dtype=np.int32),
        weighted_n_node_samples=np.ones(n),
        depth=depth,
    )


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_kept_nodes_are_those_under_no_cut_node(seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng)
    make_leaf = rng.random(tree.node_count) < rng.choice([0.0, 0.1, 0.3, 1.0])
    keep = np.ones(tree.node_count, dtype=bool)
    for node in np.flatnonzero(make_leaf & (tree.kind != LEAF)):
        keep[descendants(tree, node)] = False
    np.testing.assert_array_equal(kept_nodes(tree, make_leaf), np.flatnonzero(keep))
