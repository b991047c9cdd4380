"""The learning trace of any rows at any node: every candidate split of a node, scored as the
tree scores them, and why a leaf stayed a leaf.

``fit(X, y, trace=True)`` records the numbers of the tree as it was grown. This module
computes the same numbers afterwards, for the rows of any data that reach a node of the
fitted tree: the rows are sent down the tree as growth sent them (a missing value by the
tree's missing-value policy: C4.5's fractional copies with their shares of the weight, the
branch of the row's class, or the branch the split remembers), and the node's rows are
scored by the grower itself (the same kernels, criterion, split kinds, admissibility rules
and C4.5's rules for continuous attributes), stopped after the node. On the training data of
an unpruned tree this is the trace, node by node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._config import CLASS_MAJORITY, FRACTIONAL, LEAF, MISSING_POLICIES, NUMERIC_SPLIT
from ..binning.binned import bin_frame
from ..criteria import registry
from ..data.errors import DataError
from ..estimators.params import shallow_params
from ..estimators.spec import DataFacts, growth_spec, tree_seed
from ..estimators.validate import routing_matrix, sample_weights, typed_rows
from ..grow._settings import LEAF_EPSILON
from ..grow.grower import GrowthSpec, grow_binned
from .trace import candidate_columns, split_text

__all__ = ["NodeScores", "STOP_REASONS", "score_nodes"]

#: Why a leaf of the tree is a leaf, in the order the grower tests them.
STOP_REASONS = {
    "empty": "no row reaches it",
    "pure": "pure: all its rows are of one class",
    "constant": "its rows all have the same target value",
    "max_depth": "it is at max_depth",
    "too_few": "too few rows to split",
    "no_admissible": "no attribute has an admissible split",
    "no_gain": "no split gains anything",
    "min_impurity_decrease": "the best split's impurity decrease is below min_impurity_decrease",
    "not_significant": "the best split is not significant (chi-square test)",
    "leaf_budget": "the leaf budget (max_leaf_nodes) was spent",
    "pruned": "pruned: the grower splits it, pruning made it a leaf",
    "other_data": "the grower splits these rows: the tree was grown on other data",
}

_COLUMNS = [
    "node",
    "attribute",
    "gain",
    "split_information",
    "gain_ratio",
    "split",
    "admissible",
    "chosen",
]


@dataclass
class NodeScores:
    """The rows of some data at one node of a fitted tree, and their candidate splits.

    ``candidates`` has the columns of the learning trace (``trace_.node(k)``): ``node``,
    ``attribute``, ``gain`` (under the tree's criterion, named ``gain_name``),
    ``split_information`` and ``gain_ratio`` (a classification tree's only), ``split`` (the
    split the attribute would make), ``admissible`` and ``chosen`` (the attribute this node
    of the tree splits on). It is
    empty where the grower scores no candidate (a pure node, too few rows). ``weight`` and
    ``n_rows`` are the weight and the number of rows (fractional copies counted) at the
    node, ``impurity`` their impurity under the tree's criterion; ``stopped`` is, for a leaf,
    a key of :data:`STOP_REASONS` (None for a split node), and ``stop_text`` its words.
    """

    node: int
    candidates: pd.DataFrame
    gain_name: str
    weight: float
    n_rows: int
    impurity: float
    stopped: str | None
    stop_text: str | None


# -- the rows at each node ----------------------------------------------------------------------


def _branches(tree, node: int, matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The child index of each of ``rows`` at ``node`` (-1 for a missing value)."""
    values = matrix[rows, tree.feature[node]]
    known = ~np.isnan(values)
    out = np.full(len(rows), -1, dtype=np.int64)
    if tree.kind[node] == NUMERIC_SPLIT:
        out[known] = np.where(values[known] <= tree.threshold[node], 0, 1)
    else:
        codes = values[known].astype(np.int64)
        out[known] = tree.category_branches(node, codes)
    return out


def _route_missing(tree, node, branch, rows, weights, y_class, policy):
    """The rows with a missing value at ``node``, placed as growth places them:
    ``(child index, rows, weights)`` per copy."""
    n_ch = int(tree.n_children[node])
    missing = branch < 0
    known_w = np.bincount(branch[~missing], weights=weights[~missing], minlength=n_ch)
    default = int(tree.missing_child[node])
    if not missing.any():
        return branch, rows, weights
    if policy == FRACTIONAL and known_w.sum() > 0:
        shares = known_w / known_w.sum()
        kids = np.flatnonzero(shares > 0)
        lost_rows, lost_w = rows[missing], weights[missing]
        copies_b = np.repeat(kids, len(lost_rows))
        copies_r = np.tile(lost_rows, len(kids))
        copies_w = np.concatenate([lost_w * shares[k] for k in kids])
        return (
            np.concatenate([branch[~missing], copies_b]),
            np.concatenate([rows[~missing], copies_r]),
            np.concatenate([weights[~missing], copies_w]),
        )
    branch = branch.copy()
    if policy == CLASS_MAJORITY and y_class is not None:
        n_classes = int(y_class.max()) + 1 if len(y_class) else 1
        by_class = np.zeros((n_ch, n_classes))
        np.add.at(by_class, (branch[~missing], y_class[rows[~missing]]), weights[~missing])
        for i in np.flatnonzero(missing):
            k = y_class[rows[i]]
            best = int(np.argmax(by_class[:, k]))  # the first on ties, as the grower
            branch[i] = best if by_class[best, k] > 0 else default
    else:
        branch[missing] = default
    return branch, rows, weights


def rows_at_nodes(tree, matrix, w, y_class, policy) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(rows, weights)`` of every node of ``tree``: the rows of the routing ``matrix``
    (weights ``w``) that reach it, placed as growth places them (``policy``, a missing-value
    code; ``y_class`` the class codes for CLASS_MAJORITY)."""
    at = [(np.zeros(0, dtype=np.int64), np.zeros(0))] * tree.node_count
    keep = np.flatnonzero(w > 0)  # a zero weight is an absent row, as in growing
    at[0] = (keep, w[keep])
    for node in range(tree.node_count):  # parents come before their children
        if tree.kind[node] == LEAF:
            continue
        rows, weights = at[node]
        branch = _branches(tree, node, matrix, rows)
        branch, rows, weights = _route_missing(tree, node, branch, rows, weights, y_class, policy)
        first = tree.child_start[node]
        for index in range(tree.n_children[node]):
            mine = branch == index
            at[int(tree.children[first + index])] = (rows[mine], weights[mine])
    return at


# -- scoring one node ---------------------------------------------------------------------------


@dataclass
class _Scorer:
    """What scoring a node needs, prepared once for every node of one tree."""

    estimator: object
    data: object  # BinnedData of all the rows
    y_class: np.ndarray
    y_value: np.ndarray
    spec: GrowthSpec  # of a one-node growth
    total_weight: float

    @property
    def params(self):
        return self.spec.params

    def grow(self, rows, weights, chi2=True):
        setup = self.spec.setup(trace=True)
        if not chi2:
            setup["chi2_critical"] = None
        return grow_binned(
            self.data,
            self.data.binned[rows],
            self.y_class[rows].astype(np.int32),
            self.y_value[rows].astype(np.float64),
            weights.astype(np.float64),
            self.spec.params,
            **setup,
        )


def _scorer(estimator, typed, y_class, y_value, w) -> _Scorer:
    data = bin_frame(typed, estimator.schema_, estimator.max_bins)
    total = float(w[w > 0].sum())
    regression = estimator.regression
    n_stats = 3 if regression else estimator.n_classes_
    facts = DataFacts.of(data, total, n_stats)
    spec = growth_spec(
        shallow_params(estimator), regression, facts, tree_seed(estimator.random_state)
    )
    # The node alone: scored, its children not; every attribute a candidate; the rules that
    # depend on the rest of the tree (depth, leaf budget, impurity decrease relative to the
    # root) are applied by _stop_reason. Single attributes only: a tree with an oblique
    # split is refused before, and one of split="oblique" without any scores as axis splits.
    spec = spec.with_params(
        max_depth=1,
        max_leaf_nodes=-1,
        max_features=typed.shape[1],
        min_impurity_decrease=0.0,
        oblique=False,
    )
    return _Scorer(estimator, data, y_class, y_value, spec, total)


def _candidates(estimator, grown, node: int, chosen_feature: int) -> pd.DataFrame:
    schema = estimator.schema_
    rows = grown.trace
    features = rows["feature"].astype(np.int64)
    info = rows["split_info"]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(info > 0, rows["gain"] / info, np.nan)
    admissible = rows["admissible"].astype(bool)
    frame = pd.DataFrame(
        {
            "node": np.full(len(rows), node, dtype=np.int64),
            "attribute": [schema.names[f] for f in features],
            "gain": np.where(admissible, rows["gain"], np.nan),
            "split_information": np.where(admissible, info, np.nan),
            "gain_ratio": np.where(admissible, ratio, np.nan),
            "split": [
                split_text(schema.features[f], ok, t, side)
                for f, ok, t, side in zip(
                    features, admissible, rows["threshold"], grown.trace_sides, strict=True
                )
            ],
            "admissible": admissible,
            "chosen": features == chosen_feature,
        },
        columns=candidate_columns(_COLUMNS, estimator.regression),
    )
    return frame


def _too_few(scorer, n_rows: int, weight: float) -> bool:
    p = scorer.params
    counted = n_rows if scorer.spec.c45_tolerance > 0.0 else weight
    return weight < p.min_split or counted < 2.0 * p.min_leaf or n_rows < 2


def _stop_reason(scorer, tree, node, grown, rows, weights) -> str:
    """Why ``node``, a leaf of ``tree``, is one: the grower's rules, in its order."""
    est = scorer.estimator
    n_rows, weight = len(rows), float(weights.sum())
    if n_rows == 0:
        return "empty"
    grown_ids = getattr(est, "grown_node_ids_", None)
    if grown_ids is not None and est.tree_grown_.kind[grown_ids[node]] != LEAF:
        return "pruned"  # the pruning's own record
    root = grown.nodes[0]
    if root["impurity"] <= LEAF_EPSILON:
        return "constant" if scorer.spec.regression else "pure"
    if est.max_depth is not None and tree.depth[node] >= est.max_depth:
        return "max_depth"
    if _too_few(scorer, n_rows, weight):
        return "too_few"
    admissible = grown.trace["admissible"].astype(bool)
    if not admissible.any():
        return "no_admissible"
    if root["kind"] == LEAF:
        untested = (
            scorer.grow(rows, weights, chi2=False) if len(scorer.spec.chi2_critical) > 1 else grown
        )
        # A split chosen without the chi-square test: the test turned it down.
        return "not_significant" if untested.nodes[0]["kind"] != LEAF else "no_gain"
    gain = grown.trace["gain"][grown.trace["feature"] == root["feature"]][0]
    improvement = weight / scorer.total_weight * gain
    if improvement + LEAF_EPSILON < est.min_impurity_decrease:
        return "min_impurity_decrease"
    if getattr(est, "pruning", None) or _cost_complexity(est) or getattr(est, "collapse", False):
        return "pruned"
    if est.max_leaf_nodes is not None:
        return "leaf_budget"
    return "other_data"


def _cost_complexity(est) -> bool:
    alpha = getattr(est, "ccp_alpha_", est.ccp_alpha)
    return isinstance(alpha, str) or float(alpha) > 0.0


# -- the public entry ---------------------------------------------------------------------------


def _encode_target(estimator, y, n: int):
    """Class codes (classification) or float targets (regression) of ``y`` for the tree."""
    from ..estimators.validate import as_1d

    y = as_1d(y, n)
    if estimator.regression:
        try:
            values = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise DataError("y must be numeric for a regression tree") from None
        return np.zeros(n, dtype=np.int64), values
    index = {c: i for i, c in enumerate(estimator.classes_.tolist())}
    labels = y.tolist()
    unknown = next((v for v in labels if v not in index), None)
    if unknown is not None:
        raise DataError(
            f"y has the class {unknown!r}, which the tree does not know "
            f"(its classes are {estimator.classes_.tolist()})"
        )
    return np.array([index[v] for v in labels], dtype=np.int64), np.zeros(n)


def score_nodes(estimator, X, y, sample_weight=None, nodes=None) -> list[NodeScores]:
    """The :class:`NodeScores` of ``nodes`` (default: every node) of a fitted tree, for the
    rows of ``X, y`` that reach each one (see the module docstring)."""
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    nodes = range(tree.node_count) if nodes is None else [int(k) for k in nodes]
    for k in nodes:
        if not 0 <= k < tree.node_count:
            raise ValueError(f"node must be in [0, {tree.node_count}), got {k!r}")
    typed = typed_rows(estimator, X)
    y_class, y_value = _encode_target(estimator, y, len(typed))
    w = sample_weights(estimator, sample_weight, len(typed))
    policy = MISSING_POLICIES[estimator.missing]
    regression = estimator.regression
    at = rows_at_nodes(
        tree,
        routing_matrix(estimator, typed),
        w,
        None if regression else y_class,
        policy,
    )
    scorer = _scorer(estimator, typed, y_class, y_value, w)
    gain_name = registry.get(estimator.criterion).gain_name
    out = []
    for k in nodes:
        rows, weights = at[k]
        split_feature = -1 if tree.kind[k] == LEAF else int(tree.feature[k])
        if len(rows) == 0:
            empty = pd.DataFrame({c: [] for c in candidate_columns(_COLUMNS, regression)})
            stopped = None if split_feature >= 0 else "empty"
            words = None if stopped is None else STOP_REASONS[stopped]
            out.append(NodeScores(k, empty, gain_name, 0.0, 0, 0.0, stopped, words))
            continue
        grown = scorer.grow(rows, weights)
        weight = float(weights.sum())
        stopped = None
        if tree.kind[k] == LEAF:
            stopped = _stop_reason(scorer, tree, k, grown, rows, weights)
        out.append(
            NodeScores(
                k,
                _candidates(estimator, grown, k, split_feature),
                gain_name,
                weight,
                len(rows),
                float(grown.nodes[0]["impurity"]),
                stopped,
                None if stopped is None else STOP_REASONS[stopped],
            )
        )
    return out
