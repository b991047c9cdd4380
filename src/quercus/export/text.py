"""The tree as text, drawn as the lectures draw it: one line per branch, indented by level.

```
Outlook = Overcast: Yes (4)
Outlook = Rain
|   Wind = Strong: No (2)
|   Wind = Weak: Yes (3)
Outlook = Sunny
|   Humidity = High: No (3)
|   Humidity = Normal: Yes (2)
```

A branch that ends in a leaf carries the leaf's class and, as C4.5 prints it, ``(weight)``
or ``(weight/errors)``: the training weight reaching the leaf and the weight of the other
classes there. Regression leaves carry their value and ``n=`` weight.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..tree import leaves
from ._common import children, conditions, fitted_tree, is_leaf, leaf_summary, printed_names
from .weka import weka_text

_STYLES = ("plain", "weka")


def export_text(
    estimator,
    *,
    style: str = "plain",
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    decimals: int = 2,
) -> str:
    """The fitted tree as indented text.

    Parameters
    ----------
    estimator : fitted quercus tree
    style : {'plain', 'weka'}
        'plain': the lectures' layout (``Humidity <= 75.5``, ``Weather in {windy, rainy}``);
        'weka': exactly as Weka's J48 prints a tree (for line-by-line comparison; classifiers
        only, and ``max_depth``, ``feature_names`` and ``decimals`` do not apply).
    max_depth : int, optional
        Show this many levels of tests; a deeper subtree is summed up as its root's class
        and the number of leaves not shown.
    feature_names : list of str, optional
        Names to print instead of the training column names.
    decimals : int, default 2
        Decimals of weights and values (thresholds print as learned, up to six decimals).

    Returns
    -------
    str
        One line per branch, ending in a newline.
    """
    tree = fitted_tree(estimator)
    if style not in _STYLES:
        raise ValueError(f"style must be one of {_STYLES}, got {style!r}")
    if style == "weka":
        if tree.leaf_model == leaves.LINEAR:
            from .m5p import m5p_text

            return m5p_text(estimator)
        if tree.regression:
            raise ValueError(
                "style='weka' is J48's layout for classification trees and M5P's for model"
                " trees (ModelTreeRegressor)"
            )
        return weka_text(estimator)
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}")
    if not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")
    names = printed_names(estimator, feature_names)
    if tree.leaf_model == leaves.LINEAR:
        from .m5p import equations

        after = "\n" + "\n".join(equations(estimator, max(decimals, 4))) + "\n"
    else:
        after = ""
    if is_leaf(tree, 0):
        return leaf_summary(estimator, 0, -1, decimals) + "\n" + after
    if max_depth == 0:
        return f"{leaf_summary(estimator, 0, -1, decimals)} {_hidden(tree, 0)}\n"
    lines: list[str] = []

    def branches(node: int, depth: int) -> list[tuple[int, int, int, object]]:
        """The branches of ``node`` as ``(depth, node, child, condition)``, last first (a
        stack's order: its first branch is printed next)."""
        pairs = zip(children(tree, node), conditions(estimator, node, names), strict=True)
        return [(depth, node, kid, condition) for kid, condition in reversed(list(pairs))]

    # A stack, not recursion: a tree deeper than Python's recursion limit prints too.
    stack = branches(0, 0)
    while stack:
        depth, node, kid, condition = stack.pop()
        prefix = "|   " * depth + str(condition)
        if is_leaf(tree, kid):
            lines.append(f"{prefix}: {leaf_summary(estimator, kid, node, decimals)}")
        elif max_depth is not None and depth + 1 >= max_depth:
            summary = leaf_summary(estimator, kid, node, decimals)
            lines.append(f"{prefix}: {summary} {_hidden(tree, kid)}")
        else:
            lines.append(prefix)
            stack.extend(branches(kid, depth + 1))
    return "\n".join(lines) + "\n" + after


def _hidden(tree, node: int) -> str:
    """``[subtree of N leaves not shown]`` for a subtree below the depth limit."""
    n, stack = 0, [node]
    while stack:
        current = stack.pop()
        if is_leaf(tree, current):
            n += 1
        else:
            stack.extend(children(tree, current))
    return f"[subtree of {n} leaves not shown]"
