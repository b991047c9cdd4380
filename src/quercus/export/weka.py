"""A fitted classification tree in the text layout of Weka's J48, line for line.

J48 writes one line per branch: ``attr = value``, ``attr <= t`` / ``attr > t`` or (for a
binary nominal split) ``attr in {a, b}`` / ``attr not in {a, b}``, indented by ``|   `` per
level; a branch that ends in a leaf carries ``: class (n)`` or ``: class (n/e)``, with ``n``
the training weight reaching the leaf and ``e`` the weight of other classes, both rounded to
two decimals and printed as Java prints a double. A tree that is one leaf prints as
``: class (n/e)``. Thresholds print with at most six decimals and no trailing zeros.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import J48_SMALL, LEAF, NUMERIC_SPLIT, OBLIQUE_SPLIT, SUBSET_SPLIT
from ..data.schema import ORDINAL_KIND
from ..tree.conditions import branch_conditions, format_threshold


def _java_double(x: float) -> str:
    """``Utils.roundDouble(x, 2)`` as Java's ``Double.toString`` shows it."""
    x = math.floor(float(x) * 100.0 + 0.5) / 100.0 + 0.0  # Math.round: half up
    return repr(float(x)) if x != int(x) else f"{int(x)}.0"


def _j48_max_class(distribution) -> int:
    """J48's majority class: a later class wins only by more than the tolerance."""
    best, most = 0, 0.0
    for k, weight in enumerate(distribution):
        if weight - most > J48_SMALL:
            best, most = k, weight
    return best


def _leaf(est, node: int, parent: int) -> str:
    # A leaf whose weight is zero within J48's tolerance prints its parent's class (an
    # empty leaf carries the parent's distribution anyway); the errors print when positive.
    value = est.tree_.value[node]
    total = est.tree_.weighted_n_node_samples[node]
    label = _j48_max_class(est.tree_.value[parent] if total <= J48_SMALL and parent >= 0 else value)
    errors = total - value[label] if total > 0 else 0.0
    counts = _java_double(total)
    if errors > J48_SMALL:
        counts += "/" + _java_double(errors)
    return f"{est.classes_[label]} ({counts})"


def _branch_labels(est, node: int) -> list[str]:
    tree, schema = est.tree_, est.schema_
    feature = schema.features[tree.feature[node]]
    name = feature.name
    if tree.kind[node] == OBLIQUE_SPLIT:
        return [str(c) for c in branch_conditions(tree, schema, node)]
    if tree.kind[node] == NUMERIC_SPLIT:
        if feature.kind == ORDINAL_KIND:
            level = feature.categories[int(tree.threshold[node] - 0.5)]
            return [f"{name} <= {level}", f"{name} > {level}"]
        t = format_threshold(tree.threshold[node])
        return [f"{name} <= {t}", f"{name} > {t}"]
    table = tree.category_branches(node, np.arange(feature.n_categories))
    if tree.kind[node] == SUBSET_SPLIT:
        left = ", ".join(
            str(c) for c, side in zip(feature.categories, table, strict=True) if side == 0
        )
        return [f"{name} in {{{left}}}", f"{name} not in {{{left}}}"]
    labels = [""] * tree.n_children[node]
    for category, child in zip(feature.categories, table, strict=True):
        labels[child] = f"{name} = {category}"
    return labels


def weka_text(estimator) -> str:
    """The fitted tree as J48 prints it (the part between its header and "Number of
    Leaves")."""
    tree = estimator.tree_
    if tree.kind[0] == LEAF:
        return ": " + _leaf(estimator, 0, -1) + "\n"
    lines: list[str] = []

    def branches(node: int, depth: int) -> list:
        first = tree.child_start[node]
        labels = _branch_labels(estimator, node)
        return [
            (depth, node, int(tree.children[first + k]), label) for k, label in enumerate(labels)
        ]

    # A stack of branches still to print, not Python's: a tree may be thousands of levels deep.
    todo = branches(0, 0)[::-1]
    while todo:
        depth, node, child, label = todo.pop()
        prefix = "|   " * depth + label
        if tree.kind[child] == LEAF:
            lines.append(f"{prefix}: {_leaf(estimator, child, node)}")
        else:
            lines.append(prefix)
            todo.extend(branches(child, depth + 1)[::-1])
    return "\n".join(lines) + "\n"
