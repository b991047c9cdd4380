"""The growth kernel and the routing kernels against a plain-Python twin, on random data.

The twin grows a tree straight from the raw rows of a DataFrame by brute force: at each node
it tries every cut between adjacent values of every numeric or ordinal column, every
category prefix (binary nominal splits, categories ordered by the share of the node's
majority class or by mean target) or the one-branch-per-category split (multiway), scores
each from the rows of its children, keeps the best (lowest feature, then lowest cut on ties;
C4.5's average-gain filter and gain ratio for ``gain_ratio``), and stops by the estimator's
documented rules. Missing values follow ``missing="majority"``: they count in the heaviest
child when a split is scored and go there (the other policies are checked by the scan
kernels' twins and by the estimator tests). Best-first growth
(``max_leaf_nodes``) expands the leaf of largest improvement, lowest id on ties.

The data hold small integers and halves, so that statistics are exact and the Gini, error-rate
and variance twins run in rational arithmetic (a tie is a true tie); entropy runs in floats.
The estimator's tree must equal the twin's node for node (kind, feature, threshold, children,
missing child, category table, statistics) and both must predict the same. Where the two
choose differently at a node, the difference must be a floating-point near-tie (scores
within 1e-9 and, for exact twins, not equal): the test asserts it, then lets the twin follow
the estimator's choice so that the rest of the tree is still compared.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import quercus
from quercus._config import LEAF, MULTIWAY_SPLIT, NUMERIC_SPLIT, SUBSET_SPLIT
from quercus.tree._predict import apply_rows, path_rows

TOL = 1e-9  # float noise allowed between the estimator's scores and the twin's
C45_EPSILON = 1e-3  # C4.5's tolerance (average-gain filter, smallest split information)
PURE = np.finfo(np.float64).eps * 10  # impurity at or below which a node is pure

NUMBERS = [-1.5, -1.0, 0.0, 0.5, 2.0, 3.5]  # halves: every midpoint is exact
WORDS = ["a", "b", "c", "d"]
LEVELS = ["lo", "mid", "hi", "top"]
LABELS = ["p", "q", "r"]

pytestmark = pytest.mark.filterwarnings("ignore::quercus.DataWarning")


# ---------------------------------------------------------------------------------------------
# Random frames: numeric, nominal (strings) and ordinal columns with ties, constant columns
# and missing values; single-class targets included.


@st.composite
def column(draw, n, rng):
    """One column. Hypothesis picks its shape (kind, number of distinct values, share of
    missing cells); the cells come from a generator it seeds, since Hypothesis on its own
    mostly draws lists of one repeated value."""
    kind = draw(st.sampled_from(["numeric", "numeric", "nominal", "nominal", "ordinal"]))
    pool = {"numeric": NUMBERS, "nominal": WORDS, "ordinal": LEVELS}[kind]
    n_values = draw(st.sampled_from([2, 3, 4, 2, 3, 1]))  # 1: a constant column
    values = rng.choice(pool, n_values, replace=False).tolist()
    missing = draw(st.sampled_from([0.0, 0.1, 0.0, 0.3, 0.0, 1.0]))
    cells = [None if rng.random() < missing else values[rng.integers(n_values)] for _ in range(n)]
    if kind == "numeric":
        return pd.Series([np.nan if c is None else c for c in cells], dtype=np.float64)
    if kind == "nominal":
        return pd.Series(cells, dtype=object)
    return pd.Series(pd.Categorical(cells, categories=LEVELS, ordered=True))


@st.composite
def problems(draw, regression, deep=False):
    """``(frame, y, sample_weight, params)``; ``deep``: more rows, no size limits."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([None] * 8 + [1, 2])) or int(rng.integers(3, 31))
    if deep:
        n = int(rng.integers(30, 61))
    p = draw(st.integers(1, 4))
    frame = pd.DataFrame({f"c{j}": draw(column(n, rng)) for j in range(p)})
    if regression:
        n_targets = draw(st.sampled_from([5, 3, 2, 5, 1]))  # 1: a constant target
        y = rng.integers(0, n_targets, n).astype(np.float64)
        criterion = "squared_error"
    else:
        n_classes = draw(st.sampled_from([2, 3, 2, 3] if deep else [2, 3, 2, 3, 1]))
        y = rng.choice(LABELS[:n_classes], n)
        criterion = draw(st.sampled_from(["gini", "entropy", "misclassification", "gain_ratio"]))
    weights = draw(st.sampled_from([None, (1, 3), None, (0, 3)]))
    w = None
    if weights is not None:
        w = rng.integers(weights[0], weights[1] + 1, n).astype(np.float64)
        if not (w > 0).any():
            w[0] = 1.0
    params = dict(
        criterion=criterion,
        nominal_split=draw(st.sampled_from(["binary", "multiway"])),
        max_depth=draw(st.sampled_from([None, 3, None, 2, None, 1, None, 0])),
        min_samples_leaf=draw(st.sampled_from([1, 2, 1, 3, 1])),
        min_samples_split=draw(st.sampled_from([2, 3, 2, 5])),
        max_leaf_nodes=draw(st.sampled_from([None, 5, None, 3, None, 2])),
        min_impurity_decrease=draw(st.sampled_from([0.0, 0.0, 0.02, 0.0])),
        missing="majority",
    )
    if deep:
        params.update(
            max_depth=None,
            min_samples_leaf=1,
            min_samples_split=2,
            max_leaf_nodes=draw(st.sampled_from([None, None, 8])),
            min_impurity_decrease=0.0,
        )
    return frame, y, w, params


# ---------------------------------------------------------------------------------------------
# The twin's view of the data: per column its kind and raw values (numbers; category codes in
# sorted order for nominal, level codes for ordinal; NaN for missing).


def twin_columns(frame):
    columns = []
    for name in frame.columns:
        series = frame[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            levels = list(series.cat.categories)
            codes = [np.nan if pd.isna(v) else levels.index(v) for v in series]
            columns.append(("ordinal", np.asarray(codes, float), levels))
        elif series.dtype == object and series.notna().any():
            cats = sorted(v for v in set(series) if v is not None)
            codes = [np.nan if v is None else cats.index(v) for v in series]
            columns.append(("nominal", np.asarray(codes, float), cats))
        else:  # numbers (an all-missing text column is an all-missing numeric one)
            columns.append(("numeric", series.to_numpy(dtype=float), None))
    return columns


def twin_matrix(frame, columns):
    """Rows of ``frame`` in the twin's coding; a category unseen in training is missing."""
    out = np.empty((len(frame), len(columns)))
    for j, (kind, _, cats) in enumerate(columns):
        values = frame.iloc[:, j]
        if kind == "numeric":
            out[:, j] = [np.nan if v is None else v for v in values]
        else:
            out[:, j] = [cats.index(v) if v in cats else np.nan for v in values]
    return out


# ---------------------------------------------------------------------------------------------
# Impurity and gains, from the definitions.


class Rows:
    """Targets and integer weights of the training rows."""

    def __init__(self, y, w, regression, n_classes, criterion):
        self.y, self.w = y, w
        self.regression, self.n_classes, self.criterion = regression, n_classes, criterion

    def weight(self, idx):
        return int(self.w[idx].sum())

    def value(self, idx):
        y, w = self.y[idx], self.w[idx]
        if self.regression:
            return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()], dtype=float)
        return np.array([w[y == k].sum() for k in range(self.n_classes)], dtype=float)

    def impurity(self, idx):
        total = self.weight(idx)
        if total == 0:
            return Fraction(0)
        y, w = self.y[idx], self.w[idx]
        if self.regression:
            mean = Fraction(int((w * y).sum()), total)
            squares = (int(a) * (int(b) - mean) ** 2 for b, a in zip(y, w, strict=True))
            return sum(squares, Fraction(0)) / total
        shares = [Fraction(int(w[y == k].sum()), total) for k in range(self.n_classes)]
        if self.criterion == "gini":
            return 1 - sum(s * s for s in shares)
        if self.criterion == "misclassification":
            return 1 - max(shares)
        return -sum(float(s) * math.log2(s) for s in shares if s > 0)

    def gain(self, groups, known, node):
        """Impurity decrease over the rows ``known`` split into ``groups``, scaled by their
        share of the node's weight."""
        w_known = self.weight(known)
        after = sum(self.weight(g) * self.impurity(g) for g in groups)
        return (self.impurity(known) - after / w_known) * Fraction(w_known, self.weight(node))


def with_missing(groups, weights, missing, w_missing):
    """The groups and their weights with the missing rows in the heaviest group (the first
    on ties)."""
    heaviest = int(np.argmax(weights))
    groups = [np.concatenate([g, missing]) if i == heaviest else g for i, g in enumerate(groups)]
    weights = [b + w_missing if i == heaviest else b for i, b in enumerate(weights)]
    return groups, weights


def split_information(weights):
    total = sum(weights)
    return -sum(b / total * math.log2(b / total) for b in weights if b > 0)


def slack(x):
    return 0 if isinstance(x, Fraction) else 1e-12


class Option:
    """One admissible split of a node: ``assign`` gives each row's child (-1 = missing)."""

    def __init__(self, feature, kind, signature, gain, info, assign, n_children, **extra):
        self.feature, self.kind, self.signature = feature, kind, signature
        self.gain, self.info, self.assign, self.n_children = gain, info, assign, n_children
        self.threshold = extra.get("threshold", np.nan)
        self.left = extra.get("left")
        self.present = extra.get("present")


# ---------------------------------------------------------------------------------------------
# The twin grower.


class TwinTree:
    """Grow by brute force; with ``guide`` (the estimator's tree), check each decision against
    it and follow it through floating-point near-ties."""

    def __init__(self, columns, rows, params, guide=None):
        self.columns, self.rows, self.params, self.guide = columns, rows, params, guide
        self.min_leaf = float(params["min_samples_leaf"])
        self.min_split = float(params["min_samples_split"])
        self.max_depth = -1 if params["max_depth"] is None else params["max_depth"]
        self.multiway = params["nominal_split"] == "multiway"
        self.gain_ratio = params["criterion"] == "gain_ratio"
        self.nodes = []
        self.n_leaves = 0
        everything = np.arange(len(rows.y))
        self.w_root = rows.weight(everything)
        if params["max_leaf_nodes"] is None:
            self._grow_depth_first(everything, 0, -1)
        else:
            self._grow_best_first(everything, params["max_leaf_nodes"])

    # -- nodes ----------------------------------------------------------------------------

    def _create(self, idx, depth, parent):
        node = dict(
            id=len(self.nodes),
            kind=LEAF,
            feature=-1,
            threshold=np.nan,
            children=[],
            missing_child=-1,
            cat_map=None,
            rows=idx,
            n=len(idx),
            depth=depth,
            pending=None,
            improvement=None,
        )
        self.nodes.append(node)
        self.n_leaves += 1
        if len(idx) == 0:  # an empty branch of a multiway split
            node.update(value=self.nodes[parent]["value"].copy(), weight=0, impurity=0)
            return node["id"]
        node.update(value=self.rows.value(idx), weight=self.rows.weight(idx))
        node["impurity"] = self.rows.impurity(idx)
        if (
            (self.max_depth >= 0 and depth >= self.max_depth)
            or node["weight"] < self.min_split
            or node["weight"] < 2 * self.min_leaf
            or len(idx) < 2
            or node["impurity"] <= PURE
        ):
            return node["id"]
        node["options"] = self._options(node)
        chosen = self._choose(node["options"])
        if chosen is not None:
            improvement = Fraction(node["weight"], self.w_root) * chosen.gain
            if float(improvement) + 1e-12 >= self.params["min_impurity_decrease"]:
                node["pending"], node["improvement"] = chosen, improvement
        return node["id"]

    def _options(self, node):
        """Every admissible split of every feature, by feature."""
        idx = node["rows"]
        out = []
        for f, (kind, values, cats) in enumerate(self.columns):
            x = values[idx]
            known = idx[~np.isnan(x)]
            xk = values[known]
            w_missing = self.rows.weight(idx[np.isnan(x)])
            options = []
            if kind == "nominal" and self.multiway:
                present = np.unique(xk).astype(int)
                groups = [known[xk == c] for c in present]
                weights = [self.rows.weight(g) for g in groups]
                if sum(1 for b in weights if b >= self.min_leaf and b > 0) >= 2:
                    groups, placed = with_missing(groups, weights, idx[np.isnan(x)], w_missing)
                    options.append(
                        Option(
                            f,
                            MULTIWAY_SPLIT,
                            (f, "multiway"),
                            self.rows.gain(groups, idx, idx),
                            split_information(placed),
                            np.where(np.isnan(x), -1, np.nan_to_num(x)).astype(int),
                            len(cats),
                            present=present,
                        )
                    )
            else:
                if kind == "nominal":
                    present, ranked = self._category_ranks(node, x)
                else:
                    present, ranked = None, x
                steps = np.unique(ranked[~np.isnan(ranked)])
                for t, v in enumerate(steps[:-1]):
                    left, right = known[ranked[~np.isnan(x)] <= v], known[ranked[~np.isnan(x)] > v]
                    wl, wr = self.rows.weight(left), self.rows.weight(right)
                    if wl < self.min_leaf or wr < self.min_leaf or wl <= 0 or wr <= 0:
                        continue
                    assign = np.where(np.isnan(x), -1, (ranked > v).astype(int))
                    groups, placed = with_missing(
                        [left, right], [wl, wr], idx[np.isnan(x)], w_missing
                    )
                    gain = self.rows.gain(groups, idx, idx)
                    info = split_information(placed)
                    if kind == "nominal":
                        left_set = frozenset(int(c) for c in present[: t + 1])
                        options.append(
                            Option(
                                f,
                                SUBSET_SPLIT,
                                (f, left_set),
                                gain,
                                info,
                                assign,
                                2,
                                left=left_set,
                                present=present,
                            )
                        )
                    else:
                        nxt = steps[t + 1]
                        thr = v + 0.5 if kind == "ordinal" else (v + nxt) / 2
                        options.append(
                            Option(
                                f,
                                NUMERIC_SPLIT,
                                (f, float(thr)),
                                gain,
                                info,
                                assign,
                                2,
                                threshold=float(thr),
                            )
                        )
            out.append(options)
        return out

    def _category_ranks(self, node, x):
        """CART's order of the present categories: share of the node's majority class (the
        first on ties), or mean target; ties by code. Returns the ordered categories and each
        row's rank in that order (NaN when missing)."""
        key_class = 0 if self.rows.regression else int(np.argmax(node["value"]))
        idx = node["rows"]
        present = np.unique(x[~np.isnan(x)]).astype(int)
        keys = []
        for c in present:
            rows = idx[x == c]
            total = self.rows.weight(rows)
            if self.rows.regression:
                num = int((self.rows.w[rows] * self.rows.y[rows]).sum())
            else:
                num = int(self.rows.w[rows][self.rows.y[rows] == key_class].sum())
            keys.append(num / total if total > 0 else 0.0)
        order = sorted(range(len(present)), key=lambda i: (keys[i], i))
        ordered = present[order]
        rank = {int(c): r for r, c in enumerate(ordered)}
        ranked = np.array([np.nan if np.isnan(v) else rank[int(v)] for v in x])
        return ordered, ranked

    @staticmethod
    def _feature_best(options):
        """A feature's best option: the largest gain, the first (lowest cut) on ties."""
        if not options:
            return None
        top = max(o.gain for o in options)
        return next(o for o in options if o.gain >= top - slack(top))

    def _choose(self, by_feature):
        best = [self._feature_best(options) for options in by_feature]
        ok = [b for b in best if b is not None]
        if not ok:
            return None
        if not self.gain_ratio:
            top = max(b.gain for b in ok)
            return next(b for b in ok if b.gain >= top - slack(top))
        # C4.5: among the features with at least the average gain, the best gain ratio;
        # a split needs a positive gain and ratio.
        average = sum(b.gain for b in ok) / len(ok)
        eligible = [
            b
            for b in ok
            if b.gain >= average - C45_EPSILON and b.info > C45_EPSILON and b.gain > 1e-12
        ]
        eligible = [b for b in eligible if b.gain / b.info > 1e-12]
        if not eligible:
            return None
        top = max(b.gain / b.info for b in eligible)
        return next(b for b in eligible if b.gain / b.info >= top - 1e-12)

    # -- following the estimator through near-ties ----------------------------------------

    def _guide_signature(self, nid, options):
        g = self.guide
        f = int(g.feature[nid])
        kind = int(g.kind[nid])
        if kind == NUMERIC_SPLIT:
            return f, (f, float(g.threshold[nid]))
        if kind == MULTIWAY_SPLIT:
            return f, (f, "multiway")
        assert kind == SUBSET_SPLIT, kind
        present = sorted({int(c) for o in options[f] for c in o.present})
        table = g.category_branches(nid, present)
        return f, (f, frozenset(c for c, side in zip(present, table, strict=True) if side == 0))

    def _settle(self, node):
        """The split to apply at ``node``: the twin's, or the estimator's when the two differ
        only by a floating-point near-tie."""
        mine = node["pending"]
        if self.guide is None:
            return mine
        nid = node["id"]
        assert nid < len(self.guide.kind), f"estimator has no node {nid}"
        assert self.guide.kind[nid] != LEAF, (
            f"node {nid}: the twin splits on {mine.signature} (gain {float(mine.gain)!r}), "
            "the estimator makes a leaf"
        )
        f, signature = self._guide_signature(nid, node["options"])
        if signature == mine.signature:
            return mine
        theirs = next((o for o in node["options"][f] if o.signature == signature), None)
        assert theirs is not None, (
            f"node {nid}: estimator split {signature} is not an admissible split"
        )
        event("near-tie between splits: twin follows the estimator")
        if not self.gain_ratio:
            assert abs(float(theirs.gain - mine.gain)) <= TOL, (
                f"node {nid}: estimator split {signature} gain {float(theirs.gain)!r}, twin "
                f"split {mine.signature} gain {float(mine.gain)!r}"
            )
            if isinstance(theirs.gain, Fraction):
                assert theirs.gain != mine.gain, (
                    f"node {nid}: exact tie {signature} vs {mine.signature}: lowest must win"
                )
            return theirs
        feature_top = self._feature_best(node["options"][f]).gain
        assert theirs.gain >= feature_top - TOL, f"node {nid}: not the best cut of {f}"
        ok = [b for b in map(self._feature_best, node["options"]) if b is not None]
        average = sum(b.gain for b in ok) / len(ok)
        assert theirs.gain >= average - C45_EPSILON - TOL and theirs.info > C45_EPSILON - TOL
        ratio, top = theirs.gain / theirs.info, mine.gain / mine.info
        assert abs(ratio - top) <= TOL * max(1.0, abs(top)), (
            f"node {nid}: estimator ratio {ratio!r} ({signature}), twin {top!r} ({mine.signature})"
        )
        return theirs

    # -- growth ---------------------------------------------------------------------------

    def _apply(self, node, option):
        idx = node["rows"]
        assign = option.assign
        child_w = [self.rows.weight(idx[assign == c]) for c in range(option.n_children)]
        heaviest = int(np.argmax(child_w))  # the first on ties
        assign = np.where(assign < 0, heaviest, assign)
        node.update(
            kind=option.kind,
            feature=option.feature,
            threshold=option.threshold,
            missing_child=heaviest,
        )
        if option.kind == MULTIWAY_SPLIT:
            node["cat_map"] = list(range(option.n_children))
        elif option.kind == SUBSET_SPLIT:
            n_cats = len(self.columns[option.feature][2])
            node["cat_map"] = [
                0 if c in option.left else 1 if c in option.present else heaviest
                for c in range(n_cats)
            ]
        self.n_leaves -= 1
        return [idx[assign == c] for c in range(option.n_children)]

    def _grow_depth_first(self, idx, depth, parent):
        nid = self._create(idx, depth, parent)
        node = self.nodes[nid]
        if node["pending"] is None:
            if self.guide is not None and nid < len(self.guide.kind):
                assert self.guide.kind[nid] == LEAF, self._leaf_message(node)
            return nid
        for child_rows in self._apply(node, self._settle(node)):
            node["children"].append(self._grow_depth_first(child_rows, depth + 1, nid))
        return nid

    def _leaf_message(self, node):
        options = node.get("options") or []
        gains = {o.signature: float(o.gain) for opts in options for o in opts}
        return f"node {node['id']}: the twin makes a leaf, the estimator splits; options {gains}"

    def _grow_best_first(self, idx, max_leaves):
        self._create(idx, 0, -1)
        while self.n_leaves < max_leaves:
            candidates = []
            for node in self.nodes:
                if node["kind"] == LEAF and node["pending"] is not None:
                    n_new = node["pending"].n_children
                    if self.n_leaves - 1 + n_new <= max_leaves:
                        candidates.append(node)
            pick = None
            if candidates:
                top = max(c["improvement"] for c in candidates)
                pick = next(c for c in candidates if c["improvement"] >= top - slack(top))
            pick = self._guide_pick(pick, candidates)
            if pick is None:
                break
            first = len(self.nodes)
            for child_rows in self._apply(pick, self._settle(pick)):
                pick["children"].append(self._create(child_rows, pick["depth"] + 1, pick["id"]))
            assert pick["children"][0] == first

    def _guide_pick(self, pick, candidates):
        """The leaf the estimator expanded next: the one whose first child has the next id."""
        if self.guide is None:
            return pick
        g, next_id = self.guide, len(self.nodes)
        inner = np.flatnonzero(g.kind != LEAF)
        theirs = [int(k) for k in inner if g.children[g.child_start[k]] == next_id]
        if not theirs:
            assert pick is None, (
                f"the twin expands node {pick['id']}, the estimator stops at {next_id} nodes"
            )
            return None
        theirs = self.nodes[theirs[0]]
        assert pick is not None, f"the estimator expands node {theirs['id']}, the twin stops"
        if theirs is pick:
            return pick
        exact = theirs["improvement"] == pick["improvement"]
        event(f"{'exact' if exact else 'near'}-tie between leaves: twin follows the estimator")
        assert any(c is theirs for c in candidates), f"node {theirs['id']} is no candidate"
        assert abs(float(theirs["improvement"] - pick["improvement"])) <= TOL, (
            f"estimator expands node {theirs['id']} (improvement "
            f"{float(theirs['improvement'])!r}), twin node {pick['id']} "
            f"({float(pick['improvement'])!r})"
        )
        return theirs

    # -- prediction -----------------------------------------------------------------------

    def leaf(self, row):
        node = self.nodes[0]
        while node["kind"] != LEAF:
            v = row[node["feature"]]
            if np.isnan(v):
                child = node["missing_child"]
            elif node["kind"] == NUMERIC_SPLIT:
                child = 0 if v <= node["threshold"] else 1
            else:
                child = node["cat_map"][int(v)]
            node = self.nodes[node["children"][child]]
        return node["id"]

    def leaf_value(self, nid):
        value = self.nodes[nid]["value"]
        if self.rows.regression:
            return np.array([value[1] / value[0]])
        return value / value.sum()


# ---------------------------------------------------------------------------------------------
# Comparison.


def assert_matches_twin(tree, twin):
    """The flat tree ``tree`` holds the twin's nodes: structure, statistics and counts
    exactly, impurities within ``TOL``."""
    nodes = twin.nodes
    assert tree.node_count == len(nodes), (tree.node_count, len(nodes))
    for node in nodes:
        i = node["id"]
        where = f"node {i}"
        assert tree.kind[i] == node["kind"], where
        assert tree.feature[i] == node["feature"], where
        np.testing.assert_equal(tree.threshold[i], node["threshold"], err_msg=where)
        assert tree.n_children[i] == len(node["children"]), where
        kids = tree.children[tree.child_start[i] : tree.child_start[i] + tree.n_children[i]]
        assert kids.tolist() == node["children"], where
        assert tree.missing_child[i] == node["missing_child"], where
        if node["cat_map"] is not None:
            table = tree.category_branches(i, np.arange(len(node["cat_map"])))
            assert table.tolist() == node["cat_map"], where
        np.testing.assert_array_equal(tree.value[i], node["value"], err_msg=where)
        assert tree.n_node_samples[i] == node["n"], where
        assert tree.weighted_n_node_samples[i] == node["weight"], where
        assert tree.depth[i] == node["depth"], where
        assert tree.impurity[i] == pytest.approx(float(node["impurity"]), abs=TOL), where


def walk_arrays(tree, X):
    """Twin of ``apply_rows``/``path_rows``: follow each row through the flat arrays."""
    paths = []
    for row in X:
        node, path = 0, [0]
        while tree.kind[node] != LEAF:
            v = row[tree.feature[node]]
            if np.isnan(v):
                child = tree.missing_child[node]
            elif tree.kind[node] == NUMERIC_SPLIT:
                child = 0 if v <= tree.threshold[node] else 1
            else:
                child = int(tree.category_branches(node, [int(v)])[0])
            node = int(tree.children[tree.child_start[node] + child])
            path.append(node)
        paths.append(path)
    return paths


def fresh_rows(frame, columns, rng):
    """New rows: training values, values between and beyond them, unseen categories and
    missing values."""
    n = 12
    out = {}
    for (kind, _, _), name in zip(columns, frame.columns, strict=True):
        if kind == "numeric":
            pool = NUMBERS + [-3.0, 1.0, 2.75, 9.0, np.nan]
            out[name] = pd.Series(rng.choice(pool, n), dtype=float)
        else:
            pool = (WORDS if kind == "nominal" else LEVELS) + ["zz", None]
            out[name] = pd.Series([pool[k] for k in rng.integers(0, len(pool), n)], dtype=object)
    return pd.concat([frame.astype(object), pd.DataFrame(out)], ignore_index=True)


def check(estimator, frame, y, w, params, regression):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(frame, y, sample_weight=w)
    tree = estimator.tree_
    columns = twin_columns(frame)
    keep = np.ones(len(y), bool) if w is None else w > 0
    weights = np.ones(len(y), np.int64) if w is None else w.astype(np.int64)
    if regression:
        targets, n_classes = y.astype(np.int64), 3
    else:
        classes, targets = np.unique(y, return_inverse=True)
        n_classes = len(classes)
        assert list(estimator.classes_) == list(classes)
    rows = Rows(targets[keep], weights[keep], regression, n_classes, params["criterion"])
    kept = [(kind, values[keep], cats) for kind, values, cats in columns]
    twin = TwinTree(kept, rows, params, guide=tree)
    assert_matches_twin(tree, twin)
    event(f"tree with {len(twin.nodes)} node(s)")

    # Predictions, on the training rows and on new ones.
    new = fresh_rows(frame, columns, np.random.default_rng(len(frame)))
    X = twin_matrix(new, columns)
    leaves = [twin.leaf(row) for row in X]
    values = np.array([twin.leaf_value(i) for i in leaves])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert estimator.apply(new).tolist() == leaves
        if regression:
            np.testing.assert_array_equal(estimator.predict(new), values[:, 0])
        else:
            np.testing.assert_array_equal(estimator.predict_proba(new), values)
            np.testing.assert_array_equal(
                estimator.predict(new), estimator.classes_[np.argmax(values, axis=1)]
            )
        indicator = estimator.decision_path(new)

    # The routing kernels against a walk through the same arrays.
    paths = walk_arrays(tree, X)
    args = estimator._tree_args()  # the kernels' view of tree_, however it is packed
    assert apply_rows(X, *args).tolist() == [p[-1] for p in paths]
    indptr, indices = path_rows(X, *args, tree.max_depth + 1)
    assert indices.tolist() == [n for p in paths for n in p]
    assert np.diff(indptr).tolist() == [len(p) for p in paths]
    assert [sorted(r.indices.tolist()) for r in indicator] == [sorted(p) for p in paths]


@pytest.mark.slow
@given(problems(regression=False))
@settings(max_examples=150, deadline=None)
def test_classifier_tree_equals_brute_force_twin(problem):
    frame, y, w, params = problem
    check(quercus.DecisionTreeClassifier(**params), frame, y, w, params, regression=False)


@pytest.mark.slow
@given(problems(regression=True))
@settings(max_examples=100, deadline=None)
def test_regressor_tree_equals_brute_force_twin(problem):
    frame, y, w, params = problem
    check(quercus.DecisionTreeRegressor(**params), frame, y, w, params, regression=True)


@given(st.booleans().flatmap(lambda r: st.tuples(st.just(r), problems(r, deep=True))))
@settings(max_examples=40, deadline=None)
def test_deep_trees_equal_brute_force_twin(case):
    regression, (frame, y, w, params) = case
    cls = quercus.DecisionTreeRegressor if regression else quercus.DecisionTreeClassifier
    check(cls(**params), frame, y, w, params, regression=regression)
