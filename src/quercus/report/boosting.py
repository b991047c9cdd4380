"""A gradient booster in the report: its loss by iteration, its gain importances and split
counts, and its first trees one at a time, each node with the sums its tree grew on.

A booster's tree is a regression tree grown on the rows' Newton working targets (weights
``h``, targets ``-g / h``), so a node's statistics, the columns of its ``value``, are
``[H, -G, sum of h (g / h)**2]``: the hessian sum, minus the gradient sum, and the
weighted sum of squares. The page shows for each node its rows, ``G``, ``H`` and the step
it adds to the raw score as a leaf (the learning rate times ``-G / (H + l2)``, ``|G|`` less
``l1`` first, or the step the tree keeps where the loss sets it otherwise:
:func:`quercus.ensemble.boosting.leaf_steps`), and for each split its Newton
gain: the node's weighted squared error less its children's
(:meth:`quercus.tree.Tree.impurity_decrease`, ``G_L**2 / H_L + G_R**2 / H_R - G**2 / H``),
the gains that ``feature_importances_`` sums. The trees are drawn by the report's tree view
(:func:`quercus.report.trees.tree_record`), the same as a forest's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import LEAF
from ..data.schema import Schema
from ..ensemble.boosting import leaf_steps
from ..tree import Tree
from . import page
from .evaluation import Importances
from .figures import boosting_figure, figure_html
from .trees import budgeted_records, rounded

#: Trees of a booster shown in the page, from the first (each one at a time, from a list).
MAX_BOOSTER_TREES = 6

#: What a booster's gain importances are, said under their table.
GAIN_NOTE = (
    "Gain: each attribute's share of the Newton gain of all the splits on it, over every "
    "tree (feature_importances_, LightGBM's importance_type='gain'). Splits: how many "
    "splits of all the trees test it (feature_split_counts_)."
)


class TreeOfBooster(NamedTuple):
    """One tree of a booster as the tree view reads a tree estimator: its tree and the
    booster's schema."""

    tree_: Tree
    schema_: Schema


def is_booster(estimator) -> bool:
    """Whether ``estimator`` is a quercus gradient booster: told by the class attribute the
    boosters share (as :func:`quercus.plot.boosting_curve` tells it), so that the report
    does not import the estimators, which import it."""
    return hasattr(type(estimator), "supported_losses")


def tree_name(booster, t: int) -> str:
    """Tree ``t`` of ``booster`` by its iteration (and its class, when each class has a
    tree of its own)."""
    per = booster.n_trees_per_iteration_
    if per == 1:
        return f"iteration {t + 1}"
    return f"iteration {t // per + 1}, class {booster.classes_[t % per]}"


def node_steps(booster) -> np.ndarray:
    """What each node of every tree of ``booster`` adds to its raw score as a leaf (its
    step times the learning rate), as prediction adds it
    (:func:`quercus.ensemble.boosting.leaf_steps`), shape ``(nodes,)``."""
    steps = leaf_steps(
        booster.trees_,
        booster.n_trees_per_iteration_,
        booster.learning_rate_,
        booster.l2_regularization_,
        booster.l1_regularization_,
    )
    return steps.sum(axis=1)  # each node's step is in its tree's column, the others are 0


def newton_fields(record: dict, tree: Tree, steps: np.ndarray) -> None:
    """Set the Newton numbers of each node of ``record`` (the :func:`tree_record` of
    ``tree``, whose nodes' steps are ``steps``): its step as the node's value, and
    ``newton``: its rows ``n``, gradient sum ``G``, hessian sum ``H`` and, for a split, its
    Newton ``gain`` (None for a leaf). A class distribution means nothing here: it is
    dropped."""
    kept = np.asarray(record["id"], dtype=np.int64)
    value = tree.value[kept]
    steps = steps[kept]
    gain = tree.impurity_decrease()[kept]
    split = tree.kind[kept] != LEAF
    record["value"] = [rounded(s) for s in steps]
    record["newton"] = {
        "n": [int(tree.n_node_samples[n]) for n in kept],
        "G": [rounded(-v) for v in value[:, 1]],
        "H": [rounded(v) for v in value[:, 0]],
        "gain": [rounded(g) if s else None for g, s in zip(gain, split, strict=True)],
    }
    record.pop("dist", None)
    record.pop("pred", None)


def booster_data(booster, max_nodes: int, budget: int) -> dict:
    """The first :data:`MAX_BOOSTER_TREES` trees of ``booster`` that fit ``budget`` nodes
    in all (each cut at ``max_nodes``), with their Newton numbers and names, and the note
    that a node's details show where a single tree's show its candidate splits."""
    count = min(MAX_BOOSTER_TREES, len(booster.trees_))
    views = [TreeOfBooster(booster.trees_.tree(t), booster.schema_) for t in range(count)]
    records = budgeted_records(views, max_nodes, budget)
    steps, starts = node_steps(booster), booster.trees_.node_offsets
    for t, record in enumerate(records):
        newton_fields(record, views[t].tree_, steps[starts[t] : starts[t + 1]])
        record["name"] = tree_name(booster, t)
    shown = f"its first {len(records)}" if len(records) > 1 else "its first"
    note = (
        f"The booster has {len(booster.trees_):,} trees; the page holds {shown}. Each grows on "
        "the gradients of the loss, not on the target: a node shows its gradient sum G, its "
        "hessian sum H and the step it adds to the raw score as a leaf (the learning rate "
        "times -G / H, with the regularisation), a split its Newton gain (G_L\u00b2/H_L + "
        "G_R\u00b2/H_R - G\u00b2/H, the gains that the importances sum). The page shows no "
        "candidate splits for them."
    )
    return {"trees": records, "note": note}


def step_range(trees: list[dict]) -> list[float]:
    """The least and the largest step of the leaves of the trees' records."""
    steps = [
        v
        for record in trees
        for v, split in zip(record["value"], record["split"], strict=True)
        if split < 0 and v is not None
    ]
    return [float(min(steps)), float(max(steps))] if steps else [0.0, 0.0]


def booster_section(booster, regression: bool) -> str:
    """The booster's numbers (iterations, trees, leaves, learning rate, losses) and its loss
    by iteration."""
    trees = booster.trees_
    per = booster.n_trees_per_iteration_
    facts = [
        ("iterations kept", f"{booster.n_iter_:,}"),
        ("trees" if per == 1 else f"trees ({per} per iteration, one per class)", f"{len(trees):,}"),
        ("leaves per tree", f"{trees.n_leaves().mean():,.1f}"),
        ("learning rate", f"{booster.learning_rate_:g}"),
        (f"training {booster.loss}", f"{-booster.train_score_[booster.n_iter_]:.5g}"),
    ]
    if booster.do_early_stopping_:
        facts.append(
            (f"validation {booster.loss}", f"{-booster.validation_score_[booster.n_iter_]:.5g}")
        )
    if regression:
        what = (
            "the raw score: the prediction, or its logarithm for a Poisson, gamma or Tweedie loss"
        )
    elif per == 1:
        what = f"the raw score: the log-odds of {booster.classes_[1]}"
    else:
        what = "one raw score per class, whose softmax is the classes' probabilities"
    hint = page.paragraph(
        f"Each iteration adds a tree to {what}, which starts at the best constant. A tree "
        "grows best first on the gradients and hessians of the loss at the rows' current "
        "scores, and each of its leaves moves the scores of its rows by its step.",
        "hint",
    )
    return page.section(
        "booster",
        "The booster",
        page.cards(facts),
        hint,
        f'<div class="curves">{figure_html(boosting_figure(booster))}</div>',
    )


def gain_importances(importances: Importances, booster) -> Importances:
    """``importances`` (the booster's gain as their impurity importances) said as a
    booster's, with its split counts."""
    importances.impurity_name = "gain"
    importances.impurity_note = GAIN_NOTE
    importances.splits = np.asarray(booster.feature_split_counts_)
    return importances
