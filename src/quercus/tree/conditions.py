"""The conditions of a flat tree's branches: ``Outlook = Sunny``, ``x <= 2.45``,
``Weather in {windy, rainy}``, and the merging of the conditions along a path.

Shared by rule post-pruning (C4.5rules) and by the readable exports (rules, text,
explanations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._config import NUMERIC_SPLIT, OBLIQUE_SPLIT
from ..data.schema import ORDINAL_KIND
from .arrays import Tree


def format_threshold(x: float) -> str:
    """A threshold as J48 prints it: at most six decimals, no trailing zeros; beyond 1e15 in
    size, in exponent notation (-1e+308, not its 309 digits)."""
    if abs(x) >= 1e15:
        return f"{x:.6g}"
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class Condition:
    """One test of a rule: ``name op value``.

    ``op`` is ``<=`` or ``>`` (numeric and ordinal features: ``threshold`` compares the value,
    or the level code), ``=`` (one category) or ``in`` (a set of categories); ``codes`` are
    the category codes it accepts and ``text`` is the value as printed. An oblique test
    compares ``sum(w * x[f] for f, w in terms)`` with the threshold; its ``name`` is that
    sum written out and ``feature`` the feature of its largest weight.
    """

    feature: int
    name: str
    op: str
    threshold: float | None = None
    codes: frozenset[int] = frozenset()
    text: str = ""
    terms: tuple[tuple[int, float], ...] = ()

    def satisfied(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of ``X`` (routing matrix) meeting the condition; a missing
        value (NaN) meets none."""
        if self.terms:
            features, weights = zip(*self.terms, strict=True)
            v = X[:, list(features)] @ np.asarray(weights)
        else:
            v = X[:, self.feature]
        if self.op == "<=":
            return v <= self.threshold
        if self.op == ">":
            return v > self.threshold
        return np.isin(v, list(self.codes))

    def __str__(self) -> str:
        return f"{self.name} {self.op} {self.text}"


def branch_conditions(tree: Tree, schema, node: int) -> list[Condition]:
    """The condition of each branch of the split at ``node``."""
    return [branch_condition(tree, schema, node, k) for k in range(tree.n_children[node])]


def branch_condition(tree: Tree, schema, node: int, branch: int) -> Condition:
    """The condition of branch ``branch`` of the split at ``node``."""
    f = int(tree.feature[node])
    feature = schema.features[f]
    name = feature.name
    if tree.kind[node] == OBLIQUE_SPLIT:
        t = float(tree.threshold[node])
        terms = oblique_terms(tree, node)
        name = linear_sum(terms, schema.names)
        op = "<=" if branch == 0 else ">"
        return Condition(f, name, op, t, text=format_threshold(t), terms=terms)
    if tree.kind[node] == NUMERIC_SPLIT:
        t = float(tree.threshold[node])
        if feature.kind == ORDINAL_KIND:  # thresholds sit between level codes
            text = str(feature.categories[int(t - 0.5)])
        else:
            text = format_threshold(t)
        return Condition(f, name, "<=" if branch == 0 else ">", t, text=text)
    table = tree.category_branches(node, np.arange(feature.n_categories))
    return category_condition(f, name, feature.categories, np.flatnonzero(table == branch))


def reaching_branch_conditions(tree: Tree, schema, node: int) -> list[Condition]:
    """The condition of each branch of ``node`` as a reader needs it: a category test names
    only the categories that can reach ``node``.

    A subset split below another split on the same attribute has a table over every category,
    including those the splits above sent elsewhere (inside ``Weather in {Rainy, Windy}``, a
    test ``Weather in {Sunny, Windy}`` can only meet ``Windy``). Rules intersect the tests of
    a path and read the same either way; the branch conditions of rule pruning keep the whole
    table (a test may outlive the tests above it there).
    """
    out = branch_conditions(tree, schema, node)
    if tree.kind[node] in (NUMERIC_SPLIT, OBLIQUE_SPLIT):
        return out
    reaching = _reaching_codes(tree, schema, node, int(tree.feature[node]))
    if reaching is None:
        return out
    feature = schema.features[int(tree.feature[node])]
    return [
        category_condition(c.feature, c.name, feature.categories, sorted(c.codes & reaching))
        if c.codes & reaching
        else c
        for c in out
    ]


def _reaching_codes(tree: Tree, schema, node: int, f: int) -> frozenset[int] | None:
    """The codes of category feature ``f`` that the splits above ``node`` let through to it,
    or None when no split above tests ``f``."""
    n_categories = schema.features[f].n_categories
    reaching = None
    child, up = node, int(tree.parent[node])
    while up >= 0:
        if tree.kind[up] not in (NUMERIC_SPLIT, OBLIQUE_SPLIT) and tree.feature[up] == f:
            first = tree.child_start[up]
            kids = tree.children[first : first + tree.n_children[up]]
            index = int(np.flatnonzero(kids == child)[0])
            table = tree.category_branches(up, np.arange(n_categories))
            codes = frozenset(np.flatnonzero(table == index).tolist())
            reaching = codes if reaching is None else reaching & codes
        child, up = up, int(tree.parent[up])
    return reaching


def oblique_terms(tree: Tree, node: int) -> tuple[tuple[int, float], ...]:
    """The ``(feature, weight)`` of each feature an oblique split weighs, in feature order."""
    weights = tree.oblique_weights(node)
    return tuple((int(f), float(weights[f])) for f in np.flatnonzero(weights))


def linear_sum(terms, names) -> str:
    """``0.7071*x1 - 0.7071*x2``: the weighted sum of an oblique test, four significant
    digits a weight (the model file keeps them whole)."""
    out = ""
    for f, w in terms:
        text = f"{abs(w):.4g}*{names[f]}"
        out += ("-" + text if w < 0 else text) if not out else (" - " if w < 0 else " + ") + text
    return out


def category_condition(f: int, name: str, categories, codes) -> Condition:
    codes = frozenset(int(c) for c in codes)
    names = [str(categories[c]) for c in sorted(codes)]
    if len(names) == 1:
        return Condition(f, name, "=", codes=codes, text=names[0])
    return Condition(f, name, "in", codes=codes, text="{" + ", ".join(names) + "}")


def merge_conditions(conditions: list[Condition], categories_of) -> tuple[Condition, ...]:
    """One condition per (feature, side): the tightest numeric bound, the intersection of
    category sets; in the order of their first appearance on the path."""
    merged: dict[tuple, Condition] = {}
    for c in conditions:
        key = (c.feature, c.op if c.op in ("<=", ">") else "in", c.terms)
        old = merged.get(key)
        if old is None:
            merged[key] = c
        elif c.op == "<=":
            merged[key] = c if c.threshold < old.threshold else old
        elif c.op == ">":
            merged[key] = c if c.threshold > old.threshold else old
        else:
            merged[key] = category_condition(
                c.feature, c.name, categories_of(c.feature), old.codes & c.codes
            )
    return tuple(merged.values())
