"""What every reader of a fitted tree needs: its branches' conditions, the names to print,
and numbers and class distributions written for people."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .._config import LEAF, OBLIQUE_SPLIT
from ..tree import leaves
from ..tree.conditions import (
    Condition,
    linear_sum,
    oblique_terms,
    reaching_branch_conditions,
)


def fitted_tree(estimator):
    """The estimator's tree, or a clear error when it is not fitted (or not a quercus tree)."""
    if not hasattr(estimator, "schema_") and hasattr(estimator, "fit"):
        from sklearn.utils.validation import check_is_fitted  # an estimator: sklearn is loaded

        check_is_fitted(estimator, "tree_")
    if not hasattr(estimator, "tree_") or not hasattr(estimator, "schema_"):
        raise TypeError(f"expected a fitted quercus tree estimator, got {type(estimator).__name__}")
    return estimator.tree_


def printed_names(estimator, names: Sequence[str] | None) -> list[str]:
    """The names to print: the training columns, or ``names`` (one per feature)."""
    own = estimator.schema_.names
    if names is None:
        return list(own)
    if isinstance(names, str):  # "ab" is no list of the names "a" and "b"
        raise ValueError(
            f"feature_names must be a list of {len(own)} names, got the string {names!r}"
        )
    names = [str(n) for n in names]
    if len(names) != len(own):
        raise ValueError(f"feature_names has {len(names)} names, the tree has {len(own)} features")
    return names


def conditions(estimator, node: int, names: Sequence[str]) -> list[Condition]:
    """The condition of each branch of ``node``, with the features called ``names`` (a
    category test names only the categories that can reach ``node``)."""
    out = reaching_branch_conditions(estimator.tree_, estimator.schema_, node)
    return [
        replace(c, name=linear_sum(c.terms, names) if c.terms else names[c.feature]) for c in out
    ]


def tested(tree, node: int, names: Sequence[str]) -> str:
    """What the split at ``node`` tests: a feature's name, or an oblique split's sum."""
    if tree.kind[node] == OBLIQUE_SPLIT:
        return linear_sum(oblique_terms(tree, node), names)
    return names[tree.feature[node]]


def children(tree, node: int) -> list[int]:
    first = tree.child_start[node]
    return [int(c) for c in tree.children[first : first + tree.n_children[node]]]


def is_leaf(tree, node: int) -> bool:
    return tree.kind[node] == LEAF


def number(x: float, decimals: int) -> str:
    """``x`` rounded to ``decimals``, without trailing zeros (4.0 -> "4", 2.10 -> "2.1");
    beyond 1e15 in size, in exponent notation (1e+308, not 309 digits)."""
    if abs(x) >= 1e15:
        return f"{float(x):.{max(decimals, 1)}g}"
    text = f"{float(x):.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def leaf_class(tree, node: int, parent: int) -> int:
    """Class index a node predicts; an empty node (weight 0) predicts its parent's class."""
    if tree.weighted_n_node_samples[node] <= 0 and parent >= 0:
        node = parent
    return int(tree.node_class[node])


def leaf_summary(estimator, node: int, parent: int, decimals: int) -> str:
    """``class (weight/errors)`` as C4.5 prints a leaf, or ``value (n=weight)`` for
    regression."""
    tree = estimator.tree_
    weight = float(tree.weighted_n_node_samples[node])
    if tree.leaf_model == leaves.LINEAR and tree.kind[node] == LEAF:  # equations follow
        return f"LM{tree.leaf_number[node]} (n={number(weight, decimals)})"
    if tree.regression:
        value = tree.leaf_values()[node, 0]
        return f"{number(value, decimals)} (n={number(weight, decimals)})"
    k = leaf_class(tree, node, parent)
    errors = weight - float(tree.value[node, k]) if weight > 0 else 0.0
    counts = number(weight, decimals)
    if errors > 0.5 * 10.0**-decimals:
        counts += "/" + number(errors, decimals)
    return f"{estimator.classes_[k]} ({counts})"


def distribution_text(estimator, node: int, decimals: int, classes: bool = True) -> str:
    """The training cases at ``node`` in words: ``14 samples: no 5, yes 9`` or ``12 samples,
    mean 23.4``; without ``classes``, only ``14 samples`` for a classification tree (a
    picture of many classes shows them as colours)."""
    tree = estimator.tree_
    weight = float(tree.weighted_n_node_samples[node])
    head = f"{number(weight, decimals)} sample{'' if weight == 1 else 's'}"
    if not tree.regression and not classes:
        return head
    if tree.regression:
        return f"{head}, {leaves.name_of_value(tree.leaf_model)} " + number(
            tree.leaf_values()[node, 0], decimals
        )
    counts = tree.value[node] if weight > 0 else np.zeros(tree.value.shape[1])
    parts = [
        f"{label} {number(c, decimals)}"
        for label, c in zip(estimator.classes_, counts, strict=True)
        if c > 0
    ]
    return head + (": " + ", ".join(parts) if parts else "")
