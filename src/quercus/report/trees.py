"""A fitted tree as the compact record the page's script draws: one array per node field.

The nodes are kept in breadth-first order up to a budget of nodes (a node whose children
do not fit is shown with the size of its hidden subtree), so a deep tree cannot make the
page large. Weights and values are rounded to six significant digits; the scores of the
gain tables to the three decimals the page shows (rounded once, here, so the page shows
what ``gain_table`` gives to three decimals), or for a regression tree, whose variance
decreases are in the target's units squared, to four significant digits. Each node's
candidates come best first. A class distribution keeps its non-zero classes only, as pairs
``[class, weight, class, weight, ...]``. An edge that tests a set of more than
:data:`~quercus.export.legend.MAX_LISTED` categories also has a brief form, its first
categories and how many more, which the tree view shows (the node's details show it whole).
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF, OBLIQUE_SPLIT
from ..criteria import registry
from ..export._common import children, conditions, leaf_class, tested
from ..export.legend import MAX_LISTED
from ..export.node_scores import NodeScores
from ..tree import leaves

#: The split of a candidate that makes one branch per value, as the page's data writes it.
ONE_BRANCH_PER_VALUE = "*"
#: Categories the brief form of a long set names before saying how many more there are.
BRIEF_CATEGORIES = 3


def rounded(x: float) -> float | None:
    """``x`` to six significant digits for the page's data (None for NaN)."""
    x = float(x)
    if np.isnan(x):
        return None
    return float(f"{x:.6g}")


def shown(x: float, regression: bool = False) -> float | None:
    """A score as the page shows it: three decimals, or four significant digits for a
    regression tree (None for NaN)."""
    x = float(x)
    if np.isnan(x):
        return None
    return float(f"{x:.4g}") if regression else float(f"{x:.3f}")


def brief(condition, schema) -> str:
    """The brief form of a test of a set of more than :data:`MAX_LISTED` categories:
    ``Neighborhood in {Blmngtn, ClearCr, Crawfor, … 9 more}``; empty for any other test."""
    if condition.op != "in" or len(condition.codes) <= MAX_LISTED:
        return ""
    categories = schema.features[condition.feature].categories
    names = [str(categories[c]) for c in sorted(condition.codes)]
    shown_names = ", ".join(names[:BRIEF_CATEGORIES])
    return f"{condition.name} in {{{shown_names}, \u2026 {len(names) - BRIEF_CATEGORIES} more}}"


def sparse(counts) -> list:
    """The non-zero entries of ``counts`` as ``[index, value, index, value, ...]``."""
    out = []
    for k in np.flatnonzero(counts):
        out += [int(k), rounded(counts[k])]
    return out


def kept_nodes(tree, max_nodes: int) -> list[int]:
    """The nodes to embed: breadth first, a node's children all or none, at most
    ``max_nodes`` (the root always)."""
    kept = [0]
    frontier = [0]
    while frontier:
        following = []
        for node in frontier:
            kids = children(tree, node) if tree.kind[node] != LEAF else []
            if len(kept) + len(kids) > max_nodes:
                continue
            kept.extend(kids)
            following.extend(kids)
        frontier = following
    return kept


def subtree_sizes(tree) -> np.ndarray:
    """Number of nodes below each node (itself excluded)."""
    size = np.zeros(tree.node_count, dtype=np.int64)
    for node in range(tree.node_count - 1, -1, -1):  # children come after their parents
        if tree.kind[node] != LEAF:
            size[node] = sum(1 + size[k] for k in children(tree, node))
    return size


def tree_record(
    estimator,
    max_nodes: int,
    scores: list[NodeScores] | None = None,
    pruned: dict[int, str] | None = None,
) -> dict:
    """The record of ``estimator``'s tree: per embedded node its parent (an index into the
    embedded nodes), the condition of the branch from it, the attribute it splits on (-1
    for a leaf), its training weight, class weights or value, predicted class, and the
    number of nodes hidden below it; with ``scores``, each node's candidate table; with
    ``pruned``, the words of the pruning step that made a node a leaf."""
    tree = estimator.tree_
    names = list(estimator.schema_.names)
    kept = kept_nodes(tree, max_nodes)
    position = {node: i for i, node in enumerate(kept)}
    parent = [-1] * len(kept)
    edge = [""] * len(kept)
    short = [""] * len(kept)
    for node in kept:
        if tree.kind[node] == LEAF:
            continue
        for kid, condition in zip(
            children(tree, node), conditions(estimator, node, names), strict=True
        ):
            if kid in position:
                parent[position[kid]] = position[node]
                edge[position[kid]] = str(condition)
                short[position[kid]] = brief(condition, estimator.schema_)
    sizes = subtree_sizes(tree)
    record = {
        "id": kept,
        "parent": parent,
        "edge": edge,
        "split": [int(tree.feature[n]) if tree.kind[n] != LEAF else -1 for n in kept],
        "w": [rounded(tree.weighted_n_node_samples[n]) for n in kept],
        "hidden": [
            int(sizes[n]) if tree.kind[n] != LEAF and children(tree, n)[0] not in position else 0
            for n in kept
        ],
        "total": int(tree.node_count),
    }
    if any(short):
        record["brief"] = short
    if tree.oblique is not None:  # an oblique split tests a weighted sum
        record["tested"] = [
            tested(tree, n, names) if tree.kind[n] == OBLIQUE_SPLIT else "" for n in kept
        ]
    if tree.regression:
        record["value"] = [rounded(tree.leaf_values()[n, 0]) for n in kept]
    if tree.leaf_model == leaves.LINEAR:  # a model tree: each leaf's equation
        from ..export.m5p import equations

        models = equations(estimator)
        record["model"] = [
            models[tree.leaf_number[n] - 1] if tree.kind[n] == LEAF else "" for n in kept
        ]
    else:
        parents = {n: (kept[parent[i]] if parent[i] >= 0 else -1) for i, n in enumerate(kept)}
        record["dist"] = [sparse(tree.value[n]) for n in kept]
        record["pred"] = [leaf_class(tree, n, parents[n]) for n in kept]
    if pruned:
        record["pruned"] = [pruned.get(n, "") for n in kept]
    if scores is not None:
        by_node = {s.node: s for s in scores}
        ratios = registry.get(estimator.criterion).gain_name == "information gain"
        rank = "gain_ratio" if estimator.criterion == "gain_ratio" else "gain"
        record["scores"] = [
            _scores_record(by_node[n], names, ratios, rank, tree.regression) for n in kept
        ]
    return record


def budgeted_records(models, max_nodes: int, budget: int) -> list[dict]:
    """The :func:`tree_record` of each of ``models`` (fitted tree estimators, or anything
    with their ``tree_`` and ``schema_``) in order while their nodes fit ``budget`` in all,
    each cut at ``max_nodes``: the first always (cut to the budget), a later one only
    whole or cut at ``max_nodes``."""
    records: list[dict] = []
    used = 0
    for model in models:
        room = min(max_nodes, budget - used)
        if records and room < min(model.tree_.node_count, max_nodes):
            break
        records.append(tree_record(model, max(room, 1)))
        used += len(records[-1]["id"])
    return records


def _split_words(split: str, name: str) -> str:
    """The split of a candidate without its attribute's name (the table names it): ``*``
    for one branch per value, the threshold of ``<= threshold``, ``in {...}`` as it is."""
    if split == "one branch per value":
        return ONE_BRANCH_PER_VALUE
    words = split[len(name) + 1 :] if split.startswith(name + " ") else split
    return words.removeprefix("<= ")


def _scores_record(
    scores: NodeScores, names: list[str], ratios: bool, rank: str, regression: bool
) -> dict:
    """One node's candidates, best first by ``rank`` (the column the tree ranks them by)
    and the inadmissible ones last, as rows ``[attribute index, gain, split]`` (with
    ``ratios``, ``[attribute index, gain, split information, gain ratio, split]``), an
    inadmissible one as ``[attribute index]``; and the node's weight, rows and stop reason."""
    index = {name: j for j, name in enumerate(names)}
    rows = []
    chosen = -1
    # Stable: ties keep the attributes' order.
    ranked = scores.candidates.sort_values(rank, ascending=False, kind="stable", na_position="last")
    for c in ranked.itertuples(index=False):
        j = index[c.attribute]
        if c.chosen:
            chosen = j
        if not c.admissible:
            rows.append([j])
            continue
        numbers = [shown(c.gain, regression)]
        if ratios:
            numbers += [shown(c.split_information), shown(c.gain_ratio)]
        rows.append([j, *numbers, _split_words(c.split, c.attribute)])
    return {
        "rows": rows,
        "chosen": chosen,
        "w": rounded(scores.weight),
        "n": scores.n_rows,
        "stop": scores.stopped,
    }
