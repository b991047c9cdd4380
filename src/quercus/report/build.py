"""Gather what the report shows from a fitted estimator and its data, and write the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.base import is_regressor
from sklearn.utils.validation import check_is_fitted

from .._files import check_writable, write_file
from ..criteria import registry
from ..data.errors import DataError
from ..estimators.validate import typed_rows
from ..export.colours import class_colours, text_colour
from ..export.m5p import equations, leaf_numbers
from ..export.node_scores import STOP_REASONS, score_nodes
from ..tree import leaves
from . import page
from .boosting import (
    booster_data,
    booster_section,
    gain_importances,
    is_booster,
    step_range,
)
from .evaluation import evaluate, importances
from .figures import curve_figures, curves_section
from .pruning import pruned_by, pruning_section
from .trees import budgeted_records, kept_nodes, tree_record

#: Nodes of a tree drawn in the page (breadth first; deeper nodes are counted, not drawn).
MAX_NODES = 5_000
#: Nodes of a forest's trees in the page, all trees together.
MAX_FOREST_NODES = 5_000
#: Rules listed at most.
MAX_RULES = 200
#: A tree of at most this many nodes opens whole; a larger one down to depth OPEN_DEPTH.
OPEN_ALL_BELOW = 60
OPEN_DEPTH = 3
#: Why a model tree's importances are permutation importances, said on the page.
MODEL_TREE_IMPORTANCE = (
    "A model tree's leaves predict with linear models of attributes that its splits need "
    "not test, so the impurity decrease of its splits would put all the importance on the "
    "attributes split on: these are permutation importances, which count an attribute "
    "wherever it enters a prediction, in a split or in a leaf's model."
)


def is_forest(estimator) -> bool:
    return hasattr(estimator, "estimators_") or hasattr(estimator, "n_estimators")


def _check_fitted(estimator) -> None:
    if not (hasattr(estimator, "fit") and hasattr(estimator, "schema_") or is_forest(estimator)):
        if not hasattr(estimator, "fit"):
            raise TypeError(
                "expected a quercus tree, forest or gradient booster, got "
                f"{type(estimator).__name__}"
            )
    if is_booster(estimator):
        check_is_fitted(estimator, "start_")
        if estimator.trees_ is None:
            raise ValueError(
                "the booster kept no tree (early stopping found no iteration better than the "
                "start): there is no model to report"
            )
        return
    check_is_fitted(estimator, "estimators_" if is_forest(estimator) else "tree_")


def _checked_data(estimator, X, y, what: str):
    """``X`` typed against the model's columns (an error names the column and ``what``)."""
    try:
        typed_rows(estimator, X)
    except DataError as exc:
        raise DataError(f"{what}: {exc}", column=exc.column) from None
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if y is None or len(y) != len(X):
        given = "no" if y is None else f"{len(y)}"
        raise ValueError(f"{what}: X has {len(X)} rows but y has {given} labels")


def target_name(estimator, y) -> str:
    name = getattr(estimator.schema_, "target", None) or getattr(y, "name", None)
    return str(name) if name else "the target"


def parameters(estimator) -> str:
    """``Name(a=1, b='x')`` with the parameters that differ from the class's defaults."""
    defaults = type(estimator)().get_params(deep=False)
    changed = {
        k: v
        for k, v in estimator.get_params(deep=False).items()
        if k != "verbose" and not _same(v, defaults.get(k))
    }
    inner = ", ".join(f"{k}={v!r}" for k, v in changed.items())
    return f"{type(estimator).__name__}({inner})"


def _same(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


def _summary(estimator, X, y, regression: bool) -> list[str]:
    target = target_name(estimator, y)
    size = f"{len(X):,} rows \u00d7 {estimator.n_features_in_} attributes"
    if regression:
        task = f"Regression of {target!r}"
    else:
        classes = ", ".join(str(c) for c in estimator.classes_.tolist()[:10])
        more = ", ..." if len(estimator.classes_) > 10 else ""
        task = (
            f"Classification of {target!r} into {len(estimator.classes_)} classes ({classes}{more})"
        )
    lines = [f"{task}, learned from {size}.", parameters(estimator)]
    if is_booster(estimator):
        trees = estimator.trees_
        per = estimator.n_trees_per_iteration_
        each = "" if per == 1 else f" ({per} per iteration, one per class)"
        lines.append(
            f"{estimator.n_iter_:,} iterations, {len(trees):,} trees{each}, "
            f"{trees.n_leaves().mean():,.1f} leaves per tree on average."
        )
    elif is_forest(estimator):
        leaves_per_tree = estimator.trees_.n_leaves()
        lines.append(
            f"{len(estimator.trees_)} trees, {leaves_per_tree.mean():,.1f} leaves per tree "
            f"on average."
        )
    else:
        lines.append(
            f"{estimator.get_n_leaves():,} leaves, depth {estimator.get_depth()}, "
            f"{estimator.tree_.node_count:,} nodes."
        )
    return lines


def common_data(estimator, regression: bool) -> dict:
    booster = is_booster(estimator)
    first = estimator.estimators_[0] if is_forest(estimator) else estimator
    # A booster's trees are regression trees on the gradients, whatever its task.
    criterion = registry.get("squared_error" if booster else first.criterion)
    palette = class_colours(1 if regression else len(estimator.classes_))
    data = {
        "features": [str(n) for n in estimator.schema_.names],
        "kinds": [f.kind for f in estimator.schema_.features],
        "regression": regression,
        # One colour per class, all distinct (the pictures' colours of the classes), and
        # the colour of text on each: white on the dark ones.
        "palette": palette,
        "ink": [text_colour(c) for c in palette],
        "gain_name": criterion.gain_name,
        "ratios": criterion.gain_name == "information gain",
        "stops": STOP_REASONS,
        "open_all_below": OPEN_ALL_BELOW,
        "open_depth": OPEN_DEPTH,
        "node_budget": f"the page draws at most {MAX_NODES:,} nodes of a tree",
    }
    if booster:
        data["value_name"] = "step"
    elif regression:
        data["value_name"] = leaves.name_of_value(first.tree_.leaf_model)
    if not regression:
        data["classes"] = [str(c) for c in estimator.classes_.tolist()]
    return data


def value_range(trees) -> list[float]:
    values = np.concatenate([t.leaf_values(keep=False)[:, 0] for t in trees])
    return [float(values.min()), float(values.max())]


def _tree_section(ensemble: str | None) -> str:
    """The tree view, and for an ``ensemble`` ("forest", "booster") the list its trees are
    chosen from."""
    if ensemble == "booster":
        hint = (
            "Click a node to see its rows, its gradient and hessian sums, its step and its "
            "split's Newton gain; \u25b8 opens a branch, \u25be closes it."
        )
    else:
        hint = (
            "Click a node to see its rows and, for a single tree, every candidate split "
            "scored as the tree scores them; \u25b8 opens a branch, \u25be closes it."
        )
    select = (
        f'<label>Tree of the {ensemble} <select id="tree-select"></select></label>'
        if ensemble
        else ""
    )
    return page.section(
        "tree",
        f"One tree of the {ensemble}" if ensemble else "The tree",
        page.paragraph(hint, "hint"),
        '<div class="toolbar"><button type="button" id="expand-all">Open all</button>'
        f'<button type="button" id="collapse-all">Close all</button>{select}</div>',
        '<div class="tree-layout"><div id="tree-view" class="tree-view" role="tree"></div>'
        '<aside id="details" class="details" aria-live="polite"></aside></div>',
        "<noscript><p>The tree is drawn by the page's script: allow scripts to see it.</p>"
        "</noscript>",
    )


def _forest_data(forest) -> tuple[dict, list[str]]:
    """The trees of the forest that fit in :data:`MAX_FOREST_NODES`, and lines about it."""
    trees = budgeted_records(forest.estimators_, MAX_NODES, MAX_FOREST_NODES)
    n = len(forest.estimators_)
    shown = f"all {n} trees" if len(trees) == n else f"trees 0 to {len(trees) - 1} of {n}"
    note = (
        f"The page holds {shown} (at most {MAX_FOREST_NODES:,} nodes in all); "
        "quercus show MODEL --tree K shows any tree of a saved forest. A forest's trees grow "
        "on bootstrap samples with attributes drawn at random, so the page shows no gain "
        "tables for them: fit a single tree to see those."
    )
    return {"trees": trees, "note": note}, [note]


def _forest_facts(forest, regression: bool) -> str:
    facts = [("trees", f"{len(forest.trees_):,}")]
    depths = forest.trees_.depths()
    leaves_per_tree = forest.trees_.n_leaves()
    facts.append(("leaves per tree", f"{leaves_per_tree.mean():,.1f}"))
    facts.append(("depth (mean, max)", f"{depths.mean():.1f}, {depths.max()}"))
    what = "out-of-bag R\u00b2" if regression else "out-of-bag accuracy"
    if hasattr(forest, "oob_score_"):
        facts.insert(0, (what, f"{forest.oob_score_:.4f}"))
    else:
        facts.insert(0, (what, "not computed (fit with oob_score=True)"))
    note = page.paragraph(
        "The out-of-bag score rates each row by the trees that did not see it in their "
        "bootstrap sample: an estimate on unseen data without a test set.",
        "hint",
    )
    return page.section("forest", "The forest", page.cards(facts), note)


def _rules(estimator) -> str | None:
    if is_forest(estimator) or is_booster(estimator):
        return None
    lines = [line for line in estimator.export_rules().splitlines() if line.strip()]
    if hasattr(estimator, "rules_"):
        note = (
            "C4.5's rules, simplified, chosen and ordered: the first rule that a case meets "
            "decides its class, else the default class."
        )
    elif estimator.tree_.leaf_model == leaves.LINEAR:
        note = (
            "One rule per leaf, the tests on its path, then the leaf's linear model of the "
            "target (support: the training weight of the leaf)."
        )
    elif estimator.tree_.regression:
        value = leaves.name_of_value(estimator.tree_.leaf_model)
        note = (
            "One rule per leaf, the tests on its path, then the value it predicts: the "
            f"{value} of the training targets in the leaf (support: the training weight of "
            "the leaf)."
        )
    else:
        note = (
            "One rule per leaf, the tests on its path (support: the training weight of the "
            "leaf; confidence: the share of its predicted class)."
        )
    return page.rules_section(lines[:MAX_RULES], len(lines), note)


def render_report(
    estimator, X, y, *, X_test=None, y_test=None, sample_weight=None, title=None
) -> str:
    """The report of a fitted tree, forest or gradient booster on ``X, y`` as the text of an
    HTML page (see :func:`write_report`)."""
    _check_fitted(estimator)
    _checked_data(estimator, X, y, "X")
    if X_test is not None or y_test is not None:
        if X_test is None or y_test is None:
            raise ValueError("a test set needs both X_test and y_test")
        _checked_data(estimator, X_test, y_test, "X_test")
    regression = is_regressor(estimator)
    forest = is_forest(estimator)
    booster = is_booster(estimator)
    # A model tree: linear models in the leaves.
    model_tree = not (forest or booster) and hasattr(estimator, "terms_")
    data = common_data(estimator, regression)
    sections = []
    if booster:
        data["booster"] = booster_data(estimator, MAX_NODES, MAX_FOREST_NODES)
        data["value_range"] = step_range(data["booster"]["trees"])
        sections.append(booster_section(estimator, regression))
    elif forest:
        data["forest"], _ = _forest_data(estimator)
        if regression:
            data["value_range"] = value_range([estimator.trees_.merged])  # every tree's nodes
        sections.append(_forest_facts(estimator, regression))
    else:
        _tree_data(estimator, X, y, sample_weight, data, model_tree)
        if regression:
            data["value_range"] = value_range([estimator.tree_])
    sections.append(_tree_section("booster" if booster else "forest" if forest else None))
    if model_tree:
        sections.append(_leaf_models(estimator))
    held_out = X_test is not None
    source = "test" if held_out else "training"
    X_scored, y_scored = (X_test, y_test) if held_out else (X, y)
    sections.append(
        page.evaluation_section(evaluate(estimator, X_scored, y_scored, source, regression))
    )
    # A model tree's leaves use attributes that no split tests: see MODEL_TREE_IMPORTANCE.
    importance = importances(
        estimator,
        X_scored,
        y_scored,
        source,
        permutation=forest or booster or model_tree,
        impurity=not model_tree,
    )
    if model_tree:
        importance.note = MODEL_TREE_IMPORTANCE
    if booster:
        importance = gain_importances(importance, estimator)
    sections.append(page.importance_section(importance))
    rules = _rules(estimator)
    if rules:
        sections.append(rules)
    if model_tree and hasattr(estimator, "smoothing"):  # M5's pruning and smoothing
        sections.append(_model_tree_pruning(estimator))
    elif not (forest or booster):
        sections.append(pruning_section(estimator))
    # The overfitting curve follows a pruning sequence, which M5's pruning does not make,
    # nor an ensemble's trees.
    figures = curve_figures(
        estimator,
        X,
        y,
        X_test,
        y_test,
        sample_weight,
        forest,
        pruning_curve=not (model_tree or booster),
    )
    if figures:
        sections.append(curves_section(figures))
    title = title or f"{type(estimator).__name__}: {target_name(estimator, y)}"
    return page.page(title, _layout(title, _summary(estimator, X, y, regression), sections), data)


def _tree_data(estimator, X, y, sample_weight, data: dict, model_tree: bool) -> None:
    """Set the page's data of a single tree: its record with the candidate splits of the
    nodes shown, where they are scored on single attributes, else a note saying why not."""
    # A model tree's splits are searched on its terms, an oblique tree's over weighted
    # sums (also where it kept none: they were candidates, and scoring its nodes again
    # would need them): neither is a table of single attributes.
    searched_oblique = estimator.get_params().get("split") == "oblique"
    oblique = estimator.tree_.oblique is not None or searched_oblique
    # Only the nodes the page shows are scored: a deep tree has far more.
    shown = kept_nodes(estimator.tree_, MAX_NODES)
    scores = (
        None if model_tree or oblique else score_nodes(estimator, X, y, sample_weight, nodes=shown)
    )
    data["tree"] = tree_record(estimator, MAX_NODES, scores, pruned_by(estimator))
    if model_tree:
        data["tree_note"] = (
            "A model tree's candidate splits are not shown: they are scored on its terms"
            " (filled values, ranked categories)."
        )
    elif oblique:
        data["tree_note"] = (
            "The candidate splits are not shown: an oblique split is searched over "
            "weighted sums of the numeric features, not among single attributes."
        )


def _leaf_models(estimator) -> str:
    """A model tree's leaves and their linear models, named LM1, LM2, ... in preorder as
    Weka's M5P names them (and the tree's leaves show the names)."""
    tree = estimator.tree_
    rows = []
    for (node, k), line in zip(leaf_numbers(tree).items(), equations(estimator), strict=True):
        rows.append([f"LM{k}", f"{int(tree.n_node_samples[node]):,}", line.split(": ", 1)[1]])
    note = page.paragraph(
        "Each leaf predicts with its own linear model of the target, named as the tree names "
        "the leaf (LM1, LM2, ... from the left, as Weka's M5P names them). A term "
        "attribute=a,b is an indicator of a nominal attribute: 1 where its value is a or b, "
        "else 0.",
        "hint",
    )
    return page.section(
        "models",
        "Leaf models",
        note,
        page.table(["leaf", "training rows", "linear model"], rows, numeric=(1,)),
    )


def _model_tree_pruning(estimator) -> str:
    """A model tree's pruning and smoothing, in words."""
    pruned = (
        "Pruned by M5's estimate: a node became a leaf with its linear model where the model's "
        "training RMSE times (n + 2v) / (n - v) was at most its subtree's."
        if estimator.pruning
        else "Not pruned (pruning=False)."
    )
    smoothed = (
        " Each leaf's model is smoothed with the models above it, (n p + 15 q) / (n + 15)."
        if estimator.smoothing
        else " The leaves' models are not smoothed (smoothing=False)."
    )
    return page.section("pruning", "Pruning", page.paragraph(pruned + smoothed))


def _layout(title: str, summary: list[str], sections: list[str]) -> str:
    header = f"<header><h1>{page.escape(title)}</h1>" + "".join(
        page.paragraph(line) for line in summary
    )
    header += "</header>"
    links = []
    for text in sections:
        anchor = text.split('"', 2)[1]
        heading = text.split("<h2>", 1)[1].split("</h2>", 1)[0]
        links.append(f'<a href="#{anchor}">{heading}</a>')
    nav = "<nav>" + "".join(links) + "</nav>"
    footer = (
        "<footer>Written by quercus. One self-contained file: no script, style or picture is "
        "loaded from anywhere else.</footer>"
    )
    return header + nav + "<main>" + "\n".join(sections) + "</main>" + footer


def write_report(
    estimator, X, y, path, *, X_test=None, y_test=None, sample_weight=None, title=None
) -> Path:
    """Write the report of a fitted tree or forest to ``path``: one self-contained HTML page.

    The page shows the tree drawn interactively (nodes open and close; clicking one shows
    its rows and every candidate split scored as the tree scores them, as
    ``estimator.gain_table(X, y, node=k)``, or why growth stopped at a leaf), the
    evaluation (confusion matrix and per-class precision and recall, or R^2, RMSE and
    MAE: on ``X_test, y_test`` when given, else training-set figures, which the page says),
    the feature importances and the rules. For a forest: its out-of-bag score, impurity and
    permutation importances, and one tree at a time from a selector. The page loads nothing
    from anywhere: its style, script and data are inlined.

    Parameters
    ----------
    estimator : fitted quercus tree or forest
    X, y : the data to show the tree on (the training data, usually)
    path : str or Path
        The HTML file to write (atomically: a failed write leaves no half-written file).
    X_test, y_test : optional
        A test set for the evaluation.
    sample_weight : array-like, optional
        Weights of the rows of ``X``, as given to ``fit``.
    title : str, optional
        The page's title (default: the estimator and the target).

    Returns
    -------
    pathlib.Path
        The path written.
    """
    check_writable(path)  # before the work
    text = render_report(
        estimator,
        X,
        y,
        X_test=X_test,
        y_test=y_test,
        sample_weight=sample_weight,
        title=title,
    )
    data = text.encode("utf-8")
    return write_file(path, lambda out: out.write(data))
