"""A fitted model tree as text: Weka's M5P layout line for line, and the leaves' equations.

M5P prints the tree with each split on one term (a nominal feature's splits on its
indicator terms, ``Sex=M,F <= 0.5``), each leaf as ``LMk (n/e%)`` (``n`` training rows,
``e`` the leaf model's training RMSE before smoothing in percent of the target's standard
deviation), then each leaf's equation, its numbers rounded half away from zero as Weka's
``Utils.doubleToString`` rounds them (3 decimals in the tree, 4 in the equations).
"""

from __future__ import annotations

import math

import numpy as np

from .._config import LEAF, NUMERIC_SPLIT
from ..tree import leaves
from ._common import fitted_tree

__all__ = ["equations", "leaf_numbers", "m5p_text", "weka_number"]


def weka_number(x: float, decimals: int) -> str:
    """``x`` as Weka's ``Utils.doubleToString`` writes it: rounded half away from zero to
    ``decimals`` places on the scaled double, without trailing zeros (``0`` for zero)."""
    scaled = float(x) * 10.0**decimals
    if not math.isfinite(scaled) or abs(scaled) >= 2.0**63:
        return repr(float(x))
    whole = math.floor(abs(scaled) + 0.5)
    if whole == 0:
        return "0"
    digits = str(whole).rjust(decimals + 1, "0")
    text = digits[:-decimals] + "." + digits[-decimals:] if decimals else digits
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return ("-" if scaled < 0 else "") + text


def leaf_numbers(tree) -> dict[int, int]:
    """Each leaf's number (1, 2, ...) in preorder, the ``k`` of ``LMk``, in leaf order."""
    order = tree.preorder()
    return {int(node): int(tree.leaf_number[node]) for node in order[tree.kind[order] == LEAF]}


def _split_term(estimator, node: int) -> tuple[str, float]:
    """The term a split tests and its threshold: a numeric feature and its threshold, or a
    category feature's indicator term and 0.5."""
    tree, terms = estimator.tree_, estimator.terms_
    f = int(tree.feature[node])
    rank = terms.ranks[f]
    if rank is None:
        return terms.names[int(np.flatnonzero(terms.term_feature == f)[0])], tree.threshold[node]
    if tree.kind[node] == NUMERIC_SPLIT:  # an ordinal feature: between rank r - 1 and r
        first_rank = int(tree.threshold[node] + 0.5)
    else:  # a nominal feature's categories of rank >= r go right
        table = tree.category_branches(node, np.arange(len(rank)))
        first_rank = int(rank[table == 1].min())
    term = np.flatnonzero((terms.term_feature == f) & (terms.term_rank == first_rank))[0]
    return terms.names[int(term)], 0.5


def _spread(tree) -> float:
    """The training target's standard deviation, from the root's statistics."""
    w, total, squares = tree.value[0]
    mean = total / w
    return math.sqrt(max(squares / w - mean * mean, 0.0))


def _tree_lines(estimator, numbers: dict[int, int]) -> list[str]:
    tree = estimator.tree_
    spread = _spread(tree)
    n_terms = estimator.terms_.n_terms

    def leaf(node: int) -> str:
        n = int(tree.n_node_samples[node])
        if spread <= 0.0:
            return f"LM{numbers[node]} ({n})"
        error = 100.0 * tree.leaf_params[node, n_terms + 1] / spread
        return f"LM{numbers[node]} ({n}/{weka_number(error, 3)}%)"

    if tree.kind[0] == LEAF:
        return [leaf(0)]
    lines: list[str] = []

    def branches(node: int, depth: int) -> list:
        name, threshold = _split_term(estimator, node)
        t = weka_number(threshold, 3)
        kids = tree.children[tree.child_start[node] : tree.child_start[node] + 2]
        return [
            (depth, int(kid), f"{'|   ' * depth}{name} {op} {t} : ")
            for kid, op in zip(kids, ("<=", "> "), strict=True)
        ]

    # A stack of branches still to print, not Python's: a tree may be thousands of levels deep.
    todo = branches(0, 0)[::-1]
    while todo:
        depth, kid, prefix = todo.pop()
        if tree.kind[kid] == LEAF:
            lines.append(prefix + leaf(kid))
        else:
            lines.append(prefix)
            todo.extend(branches(kid, depth + 1)[::-1])
    return lines


def _model_terms(estimator, node: int) -> tuple[list[tuple[float, str]], float]:
    """A node's model: ``(coefficient, term name)`` of its nonzero terms in term order, and
    its intercept."""
    params = estimator.tree_.leaf_params[node]
    n_terms = estimator.terms_.n_terms
    names = estimator.terms_.names
    terms = [(float(params[t]), names[t]) for t in np.flatnonzero(params[:n_terms] != 0.0)]
    return terms, float(params[n_terms])


def _equation_lines(estimator, node: int, target: str) -> list[str]:
    """M5P's lines of one leaf's equation: the target, then a term a line, the intercept."""
    terms, intercept = _model_terms(estimator, node)
    lines = [f"{target} = "]
    for c, name in terms:
        if len(lines) == 1:
            lines.append(f"\t{weka_number(c, 4)} * {name} ")
        else:
            lines.append(f"\t{'+' if c > 0 else '-'} {weka_number(abs(c), 4)} * {name} ")
    lines.append(f"\t{'+' if intercept > 0 else '-'} {weka_number(abs(intercept), 4)}")
    return lines


def _target_name(estimator) -> str:
    return estimator.schema_.target or "y"


def m5p_text(estimator) -> str:
    """The model tree as Weka's M5P prints it (``M5 pruned model tree:`` to ``Number of
    Rules``). Its options show in the heading: unpruned, regression tree (constant
    leaves), without smoothed models."""
    tree = fitted_tree(estimator)
    if tree.leaf_model != leaves.LINEAR or not hasattr(estimator, "smoothing"):
        raise ValueError("M5P's layout is for M5's model trees (ModelTreeRegressor)")
    pruned = "pruned" if estimator.pruning else "unpruned"
    kind = "model" if estimator.leaf_model == "linear" else "regression"
    lines = [f"M5 {pruned} {kind} tree:"]
    if estimator.smoothing:
        lines.append("(using smoothed linear models)")
    numbers = leaf_numbers(tree)
    lines += ["", *_tree_lines(estimator, numbers), ""]
    for node, k in numbers.items():
        lines += [f"LM num: {k}", *_equation_lines(estimator, node, _target_name(estimator)), ""]
    lines.append(f"Number of Rules : {len(numbers)}")
    return "\n".join(lines) + "\n"


def equations(estimator, decimals: int = 4) -> list[str]:
    """Each leaf's model as one line, ``LM1: medv = 4.7924 * crim - 0.4795 * indus + 25.4161``,
    in leaf order."""
    tree = fitted_tree(estimator)
    target = _target_name(estimator)
    out = []
    for node, k in leaf_numbers(tree).items():
        terms, intercept = _model_terms(estimator, node)
        parts = [
            f"{'-' if c < 0 else '+'} {weka_number(abs(c), decimals)} * {name}" for c, name in terms
        ]
        parts.append(f"{'-' if intercept < 0 else '+'} {weka_number(abs(intercept), decimals)}")
        text = " ".join(parts)
        text = text[2:] if text.startswith("+ ") else "-" + text[2:]
        out.append(f"LM{k}: {target} = {text}")
    return out
