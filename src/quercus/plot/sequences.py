"""The trees of an estimator's pruning sequence, or of its growth, and their scores.

The sequence of a pruned estimator is its own (``pruning_path_`` on ``tree_grown_``): the
grown tree, then the tree after each step. An estimator that does not prune gets the
sequence of best-first growth: a copy is grown best-first without a leaf limit, and the tree
with ``k`` leaves is the one its first splits make (what ``max_leaf_nodes=k`` grows); the
sequence takes those splits back, last first.

Scores come from one pass of the rows through the grown tree where the trees of the
sequence are cuts of it that keep its statistics (cost-complexity, reduced-error, collapse
and growth steps: :func:`quercus.pruning.cost_complexity.errors_along_cuts`). Pessimistic
pruning recomputes the statistics of the cases of every node it keeps, and subtree raising
sends a node's cases through its branch: along its steps, the training cases and the rows
are routed again under each changed node only
(:func:`quercus.pruning.pessimistic_path.pessimistic_path_errors`), which gives the errors of
the trees :func:`quercus.pruning.sequence.replay` would rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone, is_classifier

from .._config import LEAF
from ..criteria import registry
from ..estimators.validate import predict_matrix, training_cases
from ..pruning.cost_complexity import errors_along_cuts
from ..pruning.pessimistic_path import pessimistic_path_errors
from ..pruning.sequence import leaves_after_cuts, pessimistic_stage, replay
from ..tree import Tree

__all__ = ["TreeSequence", "estimator_sequence", "sequence_scores"]

GROWTH = "growth"
_NO_LIMIT = 2**31 - 1  # best-first growth without a leaf limit


@dataclass
class TreeSequence:
    """The trees of a pruning (or growth) sequence.

    Attributes
    ----------
    method : {'cost_complexity', 'reduced_error', 'pessimistic', 'growth'}
    grown : Tree
        The first tree of the sequence.
    steps : list
        The pruning steps (``PruningStep`` records); for growth, one per split taken back,
        as cuts.
    n_leaves : int ndarray (n_steps + 1,)
        Leaves of each tree, the grown tree first.
    chosen : int
        Index of the estimator's own tree in the sequence.
    cases : tuple or None
        The training cases ``(X, y, w)`` whose statistics the trees after pessimistic steps
        have.
    """

    method: str
    grown: Tree
    steps: list
    n_leaves: np.ndarray
    chosen: int
    cases: tuple | None = None


@dataclass(frozen=True)
class _Cut:
    """A growth step taken back: the node made a leaf (the fields the sequence reads)."""

    node: int
    method: str = GROWTH
    applied: bool = False


def pruning_method(estimator) -> str:
    """The pruning whose sequence the estimator's curve follows, or 'growth'."""
    pruning = getattr(estimator, "pruning", None)
    if pruning in ("reduced_error", "pessimistic"):
        return pruning
    steps = getattr(estimator, "pruning_path_", None) or []
    if any(s.method == "cost_complexity" for s in steps) or _prunes_by_cost(estimator):
        return "cost_complexity"
    return GROWTH


def _prunes_by_cost(estimator) -> bool:
    alpha = estimator.ccp_alpha
    by_name = getattr(estimator, "pruning", None) == "cost_complexity"
    return isinstance(alpha, str) or alpha > 0 or by_name


def estimator_sequence(estimator, X, y, sample_weight=None) -> TreeSequence:
    """The sequence of a fitted estimator, fitted on ``X, y`` (and ``sample_weight``)."""
    method = pruning_method(estimator)
    if method == GROWTH:
        return _growth_sequence(estimator, X, y, sample_weight)
    if not hasattr(estimator, "tree_grown_"):
        raise ValueError(
            f"{type(estimator).__name__} has no pruning sequence (tree_grown_, pruning_path_): "
            "fit it again (model files do not keep them)"
        )
    steps = list(estimator.pruning_path_)
    grown = estimator.tree_grown_
    leaves = np.array([grown.n_leaves] + [s.n_leaves for s in steps], dtype=np.int64)
    chosen = sum(1 for s in steps if s.applied)
    if method != "pessimistic":
        return TreeSequence(method, grown, steps, leaves, chosen)
    cases = training_cases(estimator, X, y, sample_weight)
    impurity = registry.get(estimator.criterion).impurity
    sequence = TreeSequence(method, grown, steps, leaves, chosen, cases)
    kept, _ = replay(grown, steps, cases=cases, impurity=impurity)
    if not _same_tree(kept, estimator.tree_):
        raise ValueError(
            "X, y are not the data the estimator was fitted on: its pruning does not replay "
            "on them (give the training data, and its sample_weight)"
        )
    return sequence


def _same_tree(a: Tree, b: Tree) -> bool:
    return (
        a.node_count == b.node_count
        and np.array_equal(a.kind, b.kind)
        and np.array_equal(a.feature, b.feature)
        and np.array_equal(a.children, b.children)
        and np.allclose(a.value, b.value)
    )


def _growth_sequence(estimator, X, y, sample_weight) -> TreeSequence:
    """Best-first growth of a copy of ``estimator``, taken back split by split."""
    params = {"max_leaf_nodes": _NO_LIMIT, "ccp_alpha": 0.0}
    own = estimator.get_params()
    params.update({k: v for k, v in (("pruning", None), ("collapse", False)) if k in own})
    best_first = clone(estimator).set_params(**params)
    best_first.fit(X, y, sample_weight=sample_weight)
    tree = best_first.tree_
    inner = np.flatnonzero(tree.kind != LEAF)
    # Best-first growth numbers a node's children when it splits the node: the order of the
    # splits is the order of their first children.
    last_first = inner[np.argsort(-tree.children[tree.child_start[inner]], kind="stable")]
    leaves = np.concatenate(([tree.n_leaves], leaves_after_cuts(tree, last_first)))
    own_leaves = estimator.tree_.n_leaves
    at_most = np.flatnonzero(leaves <= own_leaves)
    chosen = int(at_most[0]) if len(at_most) else len(leaves) - 1
    steps = [_Cut(int(node)) for node in last_first]
    return TreeSequence(GROWTH, tree, steps, leaves.astype(np.int64), chosen)


# -- scores -------------------------------------------------------------------------------


def targets(estimator, y) -> tuple[np.ndarray, np.ndarray | None]:
    """``(target, class_codes)``: class codes of ``y`` in ``estimator.classes_`` (-1 for a
    label it does not know) and the code of each class column, or the values of ``y``."""
    y = np.asarray(y)
    if not is_classifier(estimator):
        return y.astype(np.float64), None
    index = {c: i for i, c in enumerate(estimator.classes_.tolist())}
    target = np.array([index.get(v, -1) for v in y.tolist()], dtype=np.float64)
    return target, np.arange(len(estimator.classes_))


def sequence_errors(sequence: TreeSequence, matrix, target, class_codes) -> np.ndarray:
    """The total error (0/1, or squared) of every tree of ``sequence`` on rows of
    ``matrix`` (routing matrix) with targets ``target`` (unit weights). float64 (n_trees,)."""
    weight = np.ones(len(target))
    steps, grown = sequence.steps, sequence.grown
    n_cuts = next((i for i, s in enumerate(steps) if s.method == "pessimistic"), len(steps))
    errors = np.empty(len(steps) + 1)
    errors[: n_cuts + 1] = errors_along_cuts(
        grown, [s.node for s in steps[:n_cuts]], matrix, target, weight, class_codes
    )
    if sequence.method != "pessimistic":
        return errors
    # The trees after pessimistic steps, and the estimator's own, have the statistics of
    # their training cases: scored along the steps.
    tree, _, decisions = pessimistic_stage(grown, steps)
    X, y, w = sequence.cases
    wrong = pessimistic_path_errors(
        tree, decisions, X, y, w, grown.value.shape[1], [(matrix, target, class_codes)]
    )[:, 0]
    errors[n_cuts + 1 :] = wrong[1:]
    if sequence.chosen == n_cuts:
        errors[n_cuts] = wrong[0]
    return errors


def sequence_scores(sequence: TreeSequence, estimator, X, y, metric: str) -> np.ndarray:
    """``metric`` of every tree of ``sequence`` on ``X, y``: 'accuracy' or 'error'
    (misclassification rate) for classes, 'r2' or 'error' (mean squared error) for values.
    float64 (n_trees,)."""
    matrix = predict_matrix(estimator, X)
    target, class_codes = targets(estimator, y)
    errors = sequence_errors(sequence, matrix, target, class_codes)
    n = len(target)
    if metric == "error":
        return errors / n
    if metric == "accuracy":
        return 1.0 - errors / n
    spread = float(((target - target.mean()) ** 2).sum())
    return 1.0 - errors / spread if spread > 0 else np.where(errors > 0, -np.inf, 1.0)
