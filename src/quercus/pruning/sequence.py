"""Pruning sequences: every pruning records the steps it takes, in order.

A fitted tree estimator that prunes keeps the tree as grown (``tree_grown_``) and the steps
that made its tree of it (``pruning_path_``, a list of the records below, one per step):
which node (by its id in the grown tree, and its path from the root), what became of it (a
leaf, or its largest branch raised into its place), the number of leaves after the step and
the numbers that decided it. The steps marked ``applied`` give, replayed on the grown tree
(:func:`replay`), exactly the estimator's tree; the steps after them (reduced-error and
cost-complexity pruning go on to the root) are those further pruning in the same order
would take, for the overfitting curve.

The stages are recorded as the estimators run them (:class:`PruningLog`): cost-complexity
pruning, then C4.5's collapse of subtrees that do not reduce the training errors, then
reduced-error or pessimistic pruning. Only the last stage's steps past its stopping point
are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._config import LEAF
from ..tree import Tree
from ..tree.conditions import Condition, branch_condition, category_condition
from .cost_complexity import pruning_steps, steps_at
from .pessimistic import pessimistic_decisions, rebuild
from .reduced_error import reduced_error_order
from .subtree import collapse, kept_nodes, parents, training_errors, unhelpful_subtrees

__all__ = [
    "CollapseStep",
    "CostComplexityStep",
    "PessimisticStep",
    "PruningLog",
    "PruningStep",
    "ReducedErrorStep",
    "leaves_after_cuts",
    "replay",
]

LEAF_ACTION, RAISE_ACTION = "leaf", "raise"


@dataclass(frozen=True)
class PruningStep:
    """One step of a pruning sequence (the fields every method records).

    Attributes
    ----------
    step : int
        Its place in the sequence, from 1.
    method : {'cost_complexity', 'collapse', 'reduced_error', 'pessimistic'}
        The pruning that takes it.
    node : int
        The node changed, by its id in the grown tree (``tree_grown_``).
    path : str
        The conditions from the root to the node, in the tree as it was before the step
        (``""`` for the root).
    action : {'leaf', 'raise'}
        'leaf': the node's subtree is replaced by a leaf; 'raise': by its largest branch.
    n_leaves : int
        Leaves of the whole tree after the step.
    applied : bool
        Whether the estimator's tree includes the step (the applied steps come first).
    """

    step: int
    method: str
    node: int
    path: str
    action: str
    n_leaves: int
    applied: bool


@dataclass(frozen=True)
class CostComplexityStep(PruningStep):
    """A weakest link cut (CART): its effective ``alpha`` and the ``impurity`` of the whole
    tree after the step (the leaves' impurities weighted by their share of the training
    weight)."""

    alpha: float = 0.0
    impurity: float = 0.0


@dataclass(frozen=True)
class CollapseStep(PruningStep):
    """A subtree that does not reduce the training errors made a leaf (C4.5, J48): the
    training weight it gets wrong as a leaf and as the subtree."""

    errors_as_leaf: float = 0.0
    errors_as_subtree: float = 0.0


@dataclass(frozen=True)
class ReducedErrorStep(PruningStep):
    """A node made a leaf by reduced-error pruning: the validation weight it gets wrong as a
    leaf and as the subtree it was (the step is applied while it is not more)."""

    errors_as_leaf: float = 0.0
    errors_as_subtree: float = 0.0


@dataclass(frozen=True)
class PessimisticStep(PruningStep):
    """A node made a leaf, or replaced by its largest branch ``raised`` (a grown node id;
    -1 for a leaf), by C4.5's pessimistic pruning: the estimated errors of its training
    cases as a leaf, as the subtree and as the largest branch, at ``confidence``."""

    raised: int = -1
    estimate_as_leaf: float = 0.0
    estimate_as_subtree: float = 0.0
    estimate_as_branch: float = 0.0
    confidence: float = 0.25


def leaves_after_cuts(tree: Tree, nodes) -> np.ndarray:
    """The number of leaves of ``tree`` after each of ``nodes`` in turn is made a leaf
    (none under an earlier one). int64 (len(nodes),)."""
    parent = parents(tree)
    below = (tree.kind == LEAF).astype(np.int64)
    for node in np.argsort(-tree.depth, kind="stable"):  # children before their parent
        if parent[node] >= 0:
            below[parent[node]] += below[node]
    out = np.empty(len(nodes), dtype=np.int64)
    total = int(below[0])
    for i, node in enumerate(nodes):
        removed = int(below[node]) - 1
        total -= removed
        up = int(node)
        while up >= 0:
            below[up] -= removed
            up = int(parent[up])
        out[i] = total
    return out


@dataclass
class PruningLog:
    """The grown tree, the tree its prunings have made of it so far, and their steps.

    ``origin[i]`` is the id in ``grown`` of node ``i`` of ``tree``; ``schema`` names the
    features in the steps' paths; ``ran`` says whether a pruning ran (even one that took no
    step).
    """

    grown: Tree
    schema: object
    tree: Tree = None
    origin: np.ndarray = None
    steps: list = field(default_factory=list)
    ran: bool = False

    def __post_init__(self):
        if self.tree is None:
            self.tree = self.grown
            self.origin = np.arange(self.grown.node_count)
        self._conditions: dict[tuple[int, int], Condition] = {}
        # Path prefixes (tuples of (split, branch) pairs) -> (condition texts, the category
        # codes each tested feature lets through): paths share their beginnings.
        self._prefixes: dict[tuple, tuple[tuple[str, ...], dict]] = {(): ((), {})}
        self._grown_pairs: dict[int, tuple] = {0: ()}

    # -- paths ---------------------------------------------------------------------------

    def _condition(self, split: int, branch: int) -> Condition:
        if (split, branch) not in self._conditions:
            condition = branch_condition(self.grown, self.schema, split, branch)
            self._conditions[split, branch] = condition
        return self._conditions[split, branch]

    def _path_text(self, pairs) -> str:
        """The conditions of a path of ``(split node, branch)`` pairs; a category test names
        only the categories the tests above it on the path let through (as the readable
        exports print them)."""
        key: tuple = ()
        texts, reaching = self._prefixes[key]
        for split, branch in pairs:
            key = (*key, (int(split), int(branch)))
            known = self._prefixes.get(key)
            if known is None:
                c = self._condition(key[-1][0], key[-1][1])
                if c.op in ("=", "in"):
                    codes = c.codes & reaching.get(c.feature, c.codes)
                    reaching = {**reaching, c.feature: codes}
                    if codes and codes != c.codes:
                        categories = self.schema.features[c.feature].categories
                        c = category_condition(c.feature, c.name, categories, sorted(codes))
                known = self._prefixes[key] = ((*texts, str(c)), reaching)
            texts, reaching = known
        return " AND ".join(texts)

    def _grown_path(self, node: int) -> str:
        """The path to a node of the grown tree, in the grown tree."""
        return self._path_text(self._pairs_to(node))

    def _pairs_to(self, node: int) -> tuple:
        """The ``(split node, branch)`` pairs from the root to a node of the grown tree."""
        below = []  # the nodes from ``node`` up to the first one whose pairs are known
        while node not in self._grown_pairs:
            below.append(node)
            node = int(parents(self.grown)[node])
        pairs = self._grown_pairs[node]
        for kid in reversed(below):
            up = int(parents(self.grown)[kid])
            first = self.grown.child_start[up]
            kids = self.grown.children[first : first + self.grown.n_children[up]]
            pairs = self._grown_pairs[kid] = (*pairs, (up, int(np.flatnonzero(kids == kid)[0])))
        return pairs

    # -- stages --------------------------------------------------------------------------

    def _settle(self) -> None:
        """Drop the steps a previous stage would take past its stopping point: the next
        stage goes on from the tree it kept."""
        self.ran = True
        self.steps = [s for s in self.steps if s.applied]

    def _cut(self, record, nodes, applied, numbers) -> None:
        """Record cuts of ``nodes`` (ids in ``tree``) as ``record`` steps with their
        ``numbers`` (dicts), and keep the tree the ``applied`` ones make."""
        self._settle()
        leaves = leaves_after_cuts(self.tree, nodes)
        first = len(self.steps) + 1
        for i, (node, done, extra) in enumerate(zip(nodes, applied, numbers, strict=True)):
            grown_id = int(self.origin[node])
            self.steps.append(
                record(
                    step=first + i,
                    node=grown_id,
                    path=self._grown_path(grown_id),
                    action=LEAF_ACTION,
                    n_leaves=int(leaves[i]),
                    applied=bool(done),
                    **extra,
                )
            )
        mask = np.zeros(self.tree.node_count, dtype=bool)
        mask[[n for n, done in zip(nodes, applied, strict=True) if done]] = True
        if mask.any():
            self.origin = self.origin[kept_nodes(self.tree, mask)]
            self.tree = collapse(self.tree, mask)

    def cost_complexity(self, ccp_alpha: float) -> None:
        """CART's weakest links to the root; those of effective alpha up to ``ccp_alpha``
        are applied (as :func:`~quercus.pruning.prune_cost_complexity` prunes)."""
        nodes, alphas, impurities = pruning_steps(self.tree)
        n_applied = int(steps_at(alphas, np.array([ccp_alpha]))[0])
        numbers = [
            {"method": "cost_complexity", "alpha": float(a), "impurity": float(r)}
            for a, r in zip(alphas, impurities[1:], strict=True)
        ]
        self._cut(CostComplexityStep, nodes, np.arange(len(nodes)) < n_applied, numbers)

    def collapse_unhelpful(self) -> None:
        """C4.5's collapse (:func:`~quercus.pruning.subtree.collapse_unhelpful`), one step
        per collapsed subtree that is not inside another, in node order."""
        as_leaf, below = training_errors(self.tree)
        mask = unhelpful_subtrees(self.tree, (as_leaf, below))
        nodes = [n for n in kept_nodes(self.tree, mask) if mask[n]]
        numbers = [
            {
                "method": "collapse",
                "errors_as_leaf": float(as_leaf[n]),
                "errors_as_subtree": float(below[n]),
            }
            for n in nodes
        ]
        self._cut(CollapseStep, nodes, [True] * len(nodes), numbers)

    def reduced_error(self, leaf_of_rows, y_val, w_val) -> None:
        """Reduced-error pruning on validation rows (``leaf_of_rows``: their leaves in
        ``tree``), recorded to the root."""
        order = reduced_error_order(self.tree, leaf_of_rows, y_val, w_val)
        numbers = [
            {
                "method": "reduced_error",
                "errors_as_leaf": r.errors_as_leaf,
                "errors_as_subtree": r.errors_as_subtree,
            }
            for r in order
        ]
        self._cut(ReducedErrorStep, [r.node for r in order], [r.taken for r in order], numbers)

    def pessimistic(self, X, y, w, n_classes, impurity, *, confidence, raising, variant) -> None:
        """C4.5's pessimistic pruning (:func:`~quercus.pruning.prune_pessimistic` without
        collapse) on the training cases ``X, y, w``."""
        self._settle()
        pruned, positions, decisions = pessimistic_decisions(
            self.tree,
            X,
            y,
            w,
            n_classes,
            impurity,
            confidence=confidence,
            subtree_raising=raising,
            variant=variant,
        )
        first = len(self.steps) + 1
        origin = self.origin
        for i, d in enumerate(decisions):
            self.steps.append(
                PessimisticStep(
                    step=first + i,
                    method="pessimistic",
                    node=int(origin[d.node]),
                    path=self._path_text((origin[s], b) for s, b in d.path),
                    action=d.action,
                    n_leaves=d.n_leaves,
                    applied=True,
                    raised=int(origin[d.raised]) if d.raised >= 0 else -1,
                    estimate_as_leaf=d.as_leaf,
                    estimate_as_subtree=d.as_subtree,
                    estimate_as_branch=d.as_branch,
                    confidence=float(confidence),
                )
            )
        self.tree = pruned
        self.origin = origin[positions]

    def thresholds(self, move) -> None:
        """Apply ``move`` (a function of a tree that changes only its thresholds, as C4.5's
        placement at training values) to the grown tree and the current one alike."""
        self.grown = move(self.grown)
        self.tree = move(self.tree)
        self._conditions.clear()  # the texts of numeric tests change
        self._prefixes = {(): ((), {})}


def replay(grown: Tree, steps, *, cases=None, impurity=None) -> tuple[Tree, np.ndarray]:
    """The tree that the applied ``steps`` of a pruning sequence make of ``grown``, and the
    id in ``grown`` of each of its nodes.

    A sequence with pessimistic steps needs the training cases it was pruned on: ``cases``
    ``(X, y, w)`` (routing matrix, class codes, weights of the rows of positive weight) and
    the criterion's ``impurity`` of a class distribution; the tree's statistics are then
    recomputed from the cases, as pessimistic pruning computes them.
    """
    applied = [s for s in steps if s.applied]
    tree, origin, decisions = pessimistic_stage(grown, applied)
    if cases is None:
        if decisions:
            raise ValueError("replaying pessimistic pruning needs the training cases")
        return tree, origin
    X, y, w = cases
    rebuilt, positions = rebuild(tree, decisions, X, y, w, grown.value.shape[1], impurity)
    return rebuilt, origin[positions]


def pessimistic_stage(grown: Tree, steps) -> tuple[Tree, np.ndarray, list]:
    """``(tree, origin, decisions)``: the tree the cuts among ``steps`` make of ``grown``
    (all of them taken, pessimistic steps come after), the id in ``grown`` of each of its
    nodes, and the pessimistic steps as ``(node, action, raised)`` in that tree's ids."""
    cut = np.zeros(grown.node_count, dtype=bool)
    cut[[s.node for s in steps if s.method != "pessimistic"]] = True
    origin = kept_nodes(grown, cut)
    local = {int(g): i for i, g in enumerate(origin)}
    decisions = [
        (local[s.node], s.action, local.get(s.raised, -1))
        for s in steps
        if s.method == "pessimistic"
    ]
    return collapse(grown, cut), origin, decisions
