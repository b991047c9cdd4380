"""The compiled pessimistic pruning against a NumPy twin, on random trees and data.

The twin prunes one node at a time, as quercus did before the pruning was compiled: the
cases at a node are a pair of arrays ``(rows, weights)``, a node's cases are split among its
children with NumPy (a missing value in a fractional tree goes down every branch with the
branch's share of the known weight), and the recursion follows C4.5's rule. The kernel must
take the same decisions, with the same estimates to the last bit, and build the same tree,
array for array, on trees grown by C4.5 (fractional missing values), CART (learned missing
branches, subset splits) and ID3 (the majority branch), with ties, missing values, single
classes and fractional weights.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import quercus
from _helpers import assert_same_tree
from quercus._config import J48_SMALL, LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, SUBSET_SPLIT
from quercus.criteria import registry
from quercus.estimators.validate import training_cases
from quercus.pruning import pessimistic_errors
from quercus.pruning._pessimistic import added_errors as compiled_added_errors
from quercus.pruning._pessimistic import numpy_sum
from quercus.pruning.error_estimates import added_errors, deviate
from quercus.pruning.pessimistic import pessimistic_decisions, rebuild
from quercus.pruning.pessimistic_path import _child_of_rows, _split_cases
from quercus.splitting.category_sets import BITSET, pack_sides
from quercus.tree import Tree

pytestmark = pytest.mark.filterwarnings("ignore::quercus.DataWarning")

# ---------------------------------------------------------------------------------------------
# The twin


# A case's branch and the cases of each child: the NumPy routing the pruning path's
# module keeps (pessimistic_path.py), the kernel's reference.
child_of_rows = _child_of_rows
split_cases = _split_cases


def add(values) -> float:
    """Floats added in order (Python's ``sum`` compensates from 3.12 on)."""
    total = 0.0
    for v in values:
        total += v
    return total


class TwinPruner:
    """C4.5's pessimistic pruning with subtree raising, a node at a time."""

    def __init__(self, tree, X, y, w, n_classes, cf, raising, variant):
        self.tree, self.X, self.y, self.n_classes = tree, X, y, n_classes
        self.cf, self.raising, self.variant = cf, raising, variant
        self.split_of = np.arange(tree.node_count)
        self.kids = {}
        for node in np.flatnonzero(tree.kind != LEAF):
            first = tree.child_start[node]
            self.kids[int(node)] = tree.children[first : first + tree.n_children[node]].tolist()
        self.decisions = []
        self.n_leaves = self.leaves(0)
        self.root_part = (np.arange(len(y)), np.asarray(w, dtype=np.float64))

    def leaves(self, node):
        if node not in self.kids:
            return 1
        return sum(self.leaves(kid) for kid in self.kids[node])

    def route(self, node, part):
        rows, w = part
        split = self.split_of[node]
        child = child_of_rows(self.tree, split, self.X, rows)
        n_kids = len(self.kids[node])
        return split_cases(child, rows, w, n_kids, self.tree.missing_child[split])

    def distribution(self, part):
        rows, w = part
        return np.bincount(self.y[rows], weights=w, minlength=self.n_classes)

    def leaf_errors(self, part):
        dist = self.distribution(part)
        total = dist.sum()
        if total <= 0:
            return 0.0
        return pessimistic_errors(total, total - dist.max(), self.cf, self.variant)

    def subtree_errors(self, node, part):
        if node not in self.kids:
            return self.leaf_errors(part)
        subs = self.route(node, part)
        return add(self.subtree_errors(k, s) for k, s in zip(self.kids[node], subs, strict=True))

    def prune(self, node, part, path=()):
        if node not in self.kids:
            return self.leaf_errors(part)
        subs = self.route(node, part)
        split = int(self.split_of[node])
        as_tree = add(
            self.prune(kid, sub, (*path, (split, k)))
            for k, (kid, sub) in enumerate(zip(self.kids[node], subs, strict=True))
        )
        tolerance = J48_SMALL if self.variant == "j48" else 0.0
        largest, most = -1, 0.0
        for k, (_, w) in enumerate(subs):
            if w.sum() >= most - tolerance:
                largest, most = k, w.sum()
        branch = self.kids[node][largest]
        as_leaf = self.leaf_errors(part)
        as_branch = self.subtree_errors(branch, part)
        numbers = (as_leaf, as_tree, as_branch, path)
        slack = 0.1
        if as_leaf <= as_tree + slack + J48_SMALL and as_leaf <= as_branch + slack + J48_SMALL:
            self.record(node, "leaf", -1, 1, *numbers)
            del self.kids[node]
            return as_leaf
        if self.raising and as_branch <= as_tree + slack + J48_SMALL:
            self.record(node, "raise", branch, self.leaves(branch), *numbers)
            if branch in self.kids:
                self.kids[node] = self.kids[branch]
                self.split_of[node] = self.split_of[branch]
            else:
                del self.kids[node]
            return self.prune(node, part, path)
        return as_tree

    def record(self, node, action, raised, after, as_leaf, as_tree, as_branch, path):
        self.n_leaves -= self.leaves(node) - after
        self.decisions.append(
            (node, action, raised, as_leaf, as_tree, as_branch, tuple(path), self.n_leaves)
        )

    def build(self, impurity):
        """The pruned tree, statistics from the cases, and the grown id of each node."""
        t = self.tree
        order = []
        stack = [(0, 0, self.root_part, -1)]
        while stack:
            node, depth, part, parent = stack.pop()
            order.append((node, depth, part, parent))
            if node in self.kids:
                here = len(order) - 1
                subs = self.route(node, part)
                for kid, sub in reversed(list(zip(self.kids[node], subs, strict=True))):
                    stack.append((kid, depth + 1, sub, here))
        new_id = {node: i for i, (node, _, _, _) in enumerate(order)}
        n = len(order)
        out = {
            "kind": np.zeros(n, dtype=np.int8),
            "feature": np.full(n, -1, dtype=np.int32),
            "threshold": np.full(n, np.nan),
            "child_start": np.zeros(n, dtype=np.int32),
            "n_children": np.zeros(n, dtype=np.int32),
            "cat_start": np.full(n, -1, dtype=np.int32),
            "missing_child": np.full(n, -1, dtype=np.int32),
            "value": np.zeros((n, self.n_classes)),
            "depth": np.zeros(n, dtype=np.int32),
            "n_node_samples": np.zeros(n, dtype=np.int32),
            "weighted_n_node_samples": np.zeros(n),
        }
        children = []
        for i, (node, depth, part, parent) in enumerate(order):
            value = self.distribution(part) if len(part[0]) else out["value"][parent]
            out["value"][i] = value
            out["weighted_n_node_samples"][i] = part[1].sum()
            out["n_node_samples"][i] = len(part[0])
            out["depth"][i] = depth
            if node in self.kids:
                split = self.split_of[node]
                for name in ("kind", "feature", "threshold", "cat_start", "missing_child"):
                    out[name][i] = getattr(t, name)[split]
                out["child_start"][i] = len(children)
                out["n_children"][i] = len(self.kids[node])
                children.extend(new_id[k] for k in self.kids[node])
        tree = Tree(
            **out,
            children=np.asarray(children, dtype=np.int32),
            cat_table=t.cat_table.copy(),
            impurity=np.array([impurity(v) for v in out["value"]]),
            fractional=t.fractional,
        )
        return tree, np.array([node for node, _, _, _ in order], dtype=np.int64)


def twin_decisions(tree, X, y, w, n_classes, impurity, cf, raising, variant):
    pruner = TwinPruner(tree, X, y, w, n_classes, cf, raising, variant)
    pruner.prune(0, pruner.root_part)
    pruned, origin = pruner.build(impurity)
    return pruned, origin, pruner.decisions


# ---------------------------------------------------------------------------------------------
# Comparing


def check_against_twin(tree, cases, n_classes, criterion, cf, raising, variant):
    """The kernel's decisions and tree are the twin's; replaying its decisions gives the
    same tree. Returns the number of decisions and of raises."""
    impurity = registry.get(criterion).impurity
    X, y, w = cases
    pruned, origin, decisions = pessimistic_decisions(
        tree, X, y, w, n_classes, impurity, confidence=cf, subtree_raising=raising, variant=variant
    )
    twin_tree, twin_origin, twin = twin_decisions(
        tree, X, y, w, n_classes, impurity, cf, raising, variant
    )
    assert [tuple(d) for d in decisions] == twin
    assert_same_tree(pruned, twin_tree)
    np.testing.assert_array_equal(origin, twin_origin)
    replayed, replayed_origin = rebuild(tree, decisions, X, y, w, n_classes, impurity)
    assert_same_tree(replayed, pruned)
    np.testing.assert_array_equal(replayed_origin, origin)
    return len(decisions), sum(d.action == "raise" for d in decisions)


# ---------------------------------------------------------------------------------------------
# Random problems

NUMBERS = [-1.0, 0.0, 0.5, 2.0, 3.5]
WORDS = ["a", "b", "c", "d"]


@st.composite
def problems(draw):
    """``(estimator, X, y, sample_weight)``: a few columns of few values (ties), some of
    them skewed, with missing cells; one to three classes that follow the first column with
    much noise (so that there is something to prune); weights that are ones, small integers
    or fractions."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(rng.integers(2, 200))
    columns = {}
    for j in range(int(rng.integers(1, 5))):
        missing = float(rng.choice([0.0, 0.0, 0.05, 0.3]))
        pool = NUMBERS if rng.random() < 0.5 else WORDS
        values = rng.choice(pool, int(rng.integers(1, len(pool) + 1)), replace=False).tolist()
        odds = rng.random(len(values)) ** 3 + 0.02  # often one value is most of the column
        cells = rng.choice(len(values), n, p=odds / odds.sum())
        cells = [None if rng.random() < missing else values[c] for c in cells]
        if pool is NUMBERS:
            columns[f"x{j}"] = pd.Series([np.nan if c is None else c for c in cells], dtype=float)
        else:
            columns[f"x{j}"] = pd.Series(cells, dtype=object)
    X = pd.DataFrame(columns)
    n_classes = int(rng.choice([1, 2, 2, 3]))
    signal = pd.factorize(X.iloc[:, 0])[0] + 1  # missing: code -1
    noise = rng.random(n) < rng.choice([0.2, 0.5, 1.0])
    codes = np.where(noise, rng.integers(0, n_classes, n), signal % n_classes)
    y = pd.Series(np.array(["p", "q", "r"])[codes])
    weights = rng.choice(["ones", "integers", "fractions"])
    w = {
        "ones": np.ones(n),
        "integers": rng.integers(1, 4, n).astype(float),
        "fractions": rng.choice([0.25, 0.5, 1.0, 1.5, 2.0 / 3.0], n),
    }[weights]
    make = draw(st.sampled_from(["c45", "c45", "cart", "id3"]))
    leaf = int(rng.choice([1, 2]))
    est = {
        "c45": quercus.C45Classifier(pruning=None, min_samples_leaf=leaf),
        "cart": quercus.CARTClassifier(min_samples_leaf=leaf),
        "id3": quercus.ID3Classifier(),
    }[make]
    return est, X, y, w


@st.composite
def random_trees(draw):
    """``(tree, (X, y, w), n_classes)``: a tree of random splits over a routing matrix of
    numbers and category codes with ties and missing values, and classes that follow the
    first column with noise, so that a split on another column above one on it is often
    worth raising away. Multiway and binary category splits, a missing branch, fractional
    or not (a subset split's bitset sends each category one way)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, p = int(rng.integers(1, 250)), int(rng.integers(1, 5))
    numeric = rng.random(p) < 0.5
    X = np.where(numeric, rng.choice(NUMBERS, (n, p)), rng.integers(0, 4, (n, p)).astype(float))
    X[rng.random((n, p)) < rng.choice([0.0, 0.05, 0.3])] = np.nan
    n_classes = int(rng.choice([1, 2, 3]))
    codes = np.where(np.isnan(X[:, 0]), 0, X[:, 0] * 2).astype(np.int64) % n_classes
    noisy = rng.random(n) < rng.choice([0.0, 0.1, 0.3])
    y = np.where(noisy, rng.integers(0, n_classes, n), codes)
    w = [np.ones(n), rng.integers(1, 3, n).astype(float), rng.choice([0.5, 1.0, 1.0 / 3.0], n)]
    w = w[int(rng.choice([0, 0, 1, 2]))]  # ones often: branches of equal weight tie
    arrays = {name: [-1] for name in ("kind", "feature", "threshold", "cat_start", "missing")}
    kids, depth, table = {}, [0], []
    stack = [0]
    while stack:
        node = stack.pop()
        if depth[node] >= 5 or rng.random() < 0.2:
            arrays["kind"][node] = LEAF
            continue
        f = int(rng.integers(p))
        arrays["feature"][node] = f
        if numeric[f]:
            arrays["kind"][node], n_kids = NUMERIC_SPLIT, 2
            arrays["threshold"][node] = float(rng.choice([-0.5, 0.25, 1.0, 2.5]))
        else:
            multiway = rng.random() < 0.5
            arrays["kind"][node] = MULTIWAY_SPLIT if multiway else SUBSET_SPLIT
            n_kids = 4 if multiway else 2
            if not multiway:  # a multiway split sends category c to branch c
                arrays["cat_start"][node] = len(table)
                table.extend(_either_table(rng.integers(0, 2, 4), rng))
        arrays["missing"][node] = int(rng.integers(n_kids))
        kids[node] = list(range(len(depth), len(depth) + n_kids))
        for _ in range(n_kids):
            depth.append(depth[node] + 1)
            for values in arrays.values():
                values.append(-1)
        stack.extend(reversed(kids[node]))
    m = len(depth)
    child_start = np.zeros(m, dtype=np.int32)
    n_children = np.zeros(m, dtype=np.int32)
    children = []
    for node in sorted(kids):
        child_start[node], n_children[node] = len(children), len(kids[node])
        children.extend(kids[node])
    kind = np.array(arrays["kind"])
    kind[kind < 0] = LEAF
    tree = Tree(
        kind=kind.astype(np.int8),
        feature=np.array(arrays["feature"], dtype=np.int32),
        threshold=np.where(kind == NUMERIC_SPLIT, arrays["threshold"], np.nan),
        child_start=child_start,
        n_children=n_children,
        children=np.array(children, dtype=np.int32),
        cat_start=np.array(arrays["cat_start"], dtype=np.int32),
        cat_table=np.array(table, dtype=np.int32),
        missing_child=np.array(arrays["missing"], dtype=np.int32),
        value=np.zeros((m, n_classes)),
        impurity=np.zeros(m),
        n_node_samples=np.zeros(m, dtype=np.int32),
        weighted_n_node_samples=np.zeros(m),
        depth=np.array(depth, dtype=np.int32),
        fractional=bool(rng.random() < 0.6),
    )
    return tree, (X, y, w), n_classes


@given(
    problem=problems(),
    cf=st.sampled_from([0.05, 0.25, 0.5, 0.75]),
    raising=st.booleans(),
    variant=st.sampled_from(["j48", "c45"]),
)
@settings(max_examples=150, deadline=None)
def test_kernel_equals_twin_on_random_trees(problem, cf, raising, variant):
    est, X, y, w = problem
    if variant == "j48" and cf > 0.5:
        variant = "c45"
    est.fit(X, y, sample_weight=w)
    cases = training_cases(est, X, y, w)
    criterion = getattr(est, "criterion", "entropy")
    n_decisions, n_raised = check_against_twin(
        est.tree_, cases, est.n_classes_, criterion, cf, raising, variant
    )
    event(f"decisions: {min(n_decisions, 3)}+, raises: {min(n_raised, 1)}+")
    event(f"missing values: {bool(np.isnan(cases[0]).any())}, fractional: {est.tree_.fractional}")


@given(
    problem=random_trees(),
    cf=st.sampled_from([0.05, 0.25, 0.5, 0.75]),
    raising=st.booleans(),
    variant=st.sampled_from(["j48", "c45"]),
)
@settings(max_examples=300, deadline=None)
def test_kernel_equals_twin_on_random_splits(problem, cf, raising, variant):
    tree, cases, n_classes = problem
    if variant == "j48" and cf > 0.5:
        variant = "c45"
    n_decisions, n_raised = check_against_twin(tree, cases, n_classes, "gini", cf, raising, variant)
    event(f"decisions: {min(n_decisions, 3)}+, raises: {min(n_raised, 2)}+")
    event(f"nodes: {min(tree.node_count // 10 * 10, 40)}+, fractional: {tree.fractional}")


@pytest.mark.parametrize("name", ["credit-a", "hepatitis", "breast-cancer"])
@pytest.mark.parametrize("variant", ["j48", "c45"])
def test_kernel_equals_twin_on_shipped_sets(name, variant, shared):
    X, y = quercus.read_table(shared(f"{name}.csv"))
    est = quercus.C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    cases = training_cases(est, X, y, None)
    n_decisions, _ = check_against_twin(
        est.tree_, cases, est.n_classes_, "gain_ratio", 0.25, True, variant
    )
    assert n_decisions > 0


# ---------------------------------------------------------------------------------------------
# The small kernels


@given(st.integers(0, 2**32 - 1), st.integers(0, 1100))
@settings(max_examples=200, deadline=None)
def test_numpy_sum_is_numpys_sum_to_the_last_bit(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.random(n + 7) * 10.0 ** rng.uniform(-8, 8, n + 7)
    lo = int(rng.integers(0, 8))
    assert numpy_sum(a, lo, n) == a[lo : lo + n].sum()


def test_compiled_added_errors_equal_the_estimates():
    for variant in ("j48", "c45"):
        for cf in (0.001, 0.1, 0.25, 0.5) + ((0.75,) if variant == "c45" else ()):
            z = deviate(cf, variant)
            for n in (0.0, 0.3, 0.9, 1.0, 1.5, 2.0, 7.0, 40.0, 1000.5):
                for e in (0.0, 1e-7, 0.5, 0.99995, 1.0, 1.2, n / 2, n - 0.4, n):
                    if 0 <= e <= n:
                        expected = added_errors(n, e, cf, variant)
                        assert compiled_added_errors(n, e, cf, z, variant == "c45") == expected


def _either_table(sides, rng) -> list:
    """A subset split's table of ``sides`` in one of its two forms, drawn at random: a
    header and a bitset, or a header and the codes of one branch (either)."""
    if rng.random() < 0.5:
        return [BITSET, *pack_sides(sides).tolist()]
    side = int(rng.integers(2))
    listed = np.flatnonzero(sides == side).tolist()
    return [2 * len(listed) + side, *listed]
