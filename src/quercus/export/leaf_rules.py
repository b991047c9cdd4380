"""The tree as IF ... THEN rules: one rule per leaf, the tests on its path as conditions.

Two tests on one numeric feature along a path keep the tighter bound (``x <= 5 AND x <= 3``
is ``x <= 3``); two category tests keep the categories both accept. Empty leaves (no
training weight) give no rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..tree import leaves
from ..tree.conditions import Condition, merge_conditions
from ._common import children, conditions, fitted_tree, is_leaf, number, printed_names


@dataclass(frozen=True)
class LeafRule:
    """``IF conditions THEN prediction``: the path to one leaf.

    ``prediction`` is the class, the value (regression) or the leaf's equation (a model
    tree's, as text: ``medv = 4.7924 * crim + ... + 25.4161``). ``support`` is the training
    weight reaching the leaf; ``confidence`` the share of it in the predicted class
    (classification; None for regression); ``distribution`` the leaf's class weights (or
    ``[weight, mean]`` for regression); ``leaf`` the node id in ``tree_``.
    """

    conditions: tuple[Condition, ...]
    prediction: object
    support: float
    confidence: float | None
    leaf: int
    distribution: np.ndarray = field(repr=False, compare=False)

    def text(self, decimals: int = 2) -> str:
        body = " AND ".join(str(c) for c in self.conditions) or "TRUE"
        numeric = self.confidence is None and not isinstance(self.prediction, str)
        prediction = number(self.prediction, decimals) if numeric else str(self.prediction)
        stats = f"support {number(self.support, decimals)}"
        if self.confidence is not None:
            stats += f", confidence {100 * self.confidence:.{max(decimals - 1, 0)}f}%"
        return f"IF {body} THEN {prediction} ({stats})"

    def __str__(self) -> str:
        return self.text()


def to_rules(estimator, *, feature_names: Sequence[str] | None = None) -> list[LeafRule]:
    """One :class:`LeafRule` per leaf with training weight, in the order the tree prints
    its leaves."""
    tree = fitted_tree(estimator)
    names = printed_names(estimator, feature_names)
    schema = estimator.schema_

    def categories_of(f):
        return schema.features[f].categories

    if tree.leaf_model == leaves.LINEAR:
        from .m5p import equations

        models = {k: text.split(": ", 1)[1] for k, text in enumerate(equations(estimator), start=1)}
    rules: list[LeafRule] = []
    # Each node on the stack with its path's conditions merged so far: merging one more
    # test into them is merging the whole path (as many conditions as features, at most,
    # where the path of a deep tree has as many as its depth).
    stack: list[tuple[int, tuple[Condition, ...]]] = [(0, ())]
    while stack:
        node, merged = stack.pop()
        if not is_leaf(tree, node):
            branches = zip(children(tree, node), conditions(estimator, node, names), strict=True)
            stack.extend(
                (kid, merge_conditions([*merged, c], categories_of))
                for kid, c in reversed(list(branches))
            )
            continue
        weight = float(tree.weighted_n_node_samples[node])
        if weight <= 0:
            continue
        if tree.regression:
            value = float(tree.leaf_values()[node, 0])
            prediction, confidence = value, None
            if tree.leaf_model == leaves.LINEAR:
                prediction = models[int(tree.leaf_number[node])]
            distribution = np.array([weight, value])
        else:
            k = int(tree.node_class[node])
            prediction = estimator.classes_[k]
            confidence = float(tree.value[node, k] / weight)
            distribution = tree.value[node].copy()
        rules.append(
            LeafRule(
                conditions=merged,
                prediction=prediction,
                support=weight,
                confidence=confidence,
                leaf=node,
                distribution=distribution,
            )
        )
    return rules


def export_rules(
    estimator, *, feature_names: Sequence[str] | None = None, decimals: int = 2
) -> str:
    """The rules of :func:`to_rules` as text, one line each.

    Each line is one rule, ``IF ... THEN ...``.
    """
    rules = to_rules(estimator, feature_names=feature_names)
    return "".join(rule.text(decimals) + "\n" for rule in rules)
