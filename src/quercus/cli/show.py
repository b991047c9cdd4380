"""``quercus show``: a saved tree as text, rules, DOT, SVG, PNG, JSON or Weka's text (J48's
layout, or M5P's for a model tree); a saved forest as a summary, or one of its trees.

Pictures: SVG is drawn by Graphviz's ``dot`` when it is installed, else (like PNG, always)
by matplotlib through :func:`quercus.plot.plot_tree`; a note on stderr says which drew it.

A tree's file is shown from a :class:`~quercus.persist.model_view.ModelView`: checked as
:func:`quercus.load` checks it, but without the estimator, so that neither scikit-learn nor
the forests' modules nor Numba are imported. A forest's file is loaded as a forest.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from typing import TextIO

import numpy as np

from .._config import LEAF
from ..export import export_graphviz, export_rules, export_text
from ..export.graphviz import render_svg
from ..persist.booster_file import BOOSTER_ESTIMATORS
from ..persist.ensemble_file import is_ensemble_file
from ..persist.forest_file import FOREST_ESTIMATORS
from ..persist.model_view import read_model_view
from .options import UsageError
from .output import note, plural, write_bytes, write_text


def run_show(args, out: TextIO) -> int:
    """``quercus show``: a saved model as text, rules, DOT, SVG, PNG, JSON or Weka's text."""
    model = _read(args.model)  # checks the file, whatever the format asked
    fmt = args.format
    if fmt == "png" and args.output is None:
        raise UsageError("--format png writes a picture: give the file with -o FILE.png")
    if _is_booster(model):
        if args.tree is not None or fmt not in ("text", "json"):
            raise UsageError(
                f"{args.model} holds a gradient booster of {len(model.trees_)} trees: quercus "
                "show gives its summary (--format text) or its file's metadata (--format json)"
            )
        text = booster_summary(model) if fmt == "text" else _forest_json(args.model)
        write_text(text, args.output, out)
        return 0
    if _is_forest(model):
        if args.tree is None:
            if fmt not in ("text", "json"):
                raise UsageError(
                    f"{args.model} holds a forest of {len(model.estimators_)} trees: --format "
                    f"{fmt} shows one tree; choose it with --tree K (0 to "
                    f"{len(model.estimators_) - 1})"
                )
            text = forest_summary(model) if fmt == "text" else _forest_json(args.model)
            write_text(text, args.output, out)
            return 0
        model = _forest_tree(model, args.tree, args.model)
    elif args.tree is not None:
        raise UsageError(f"--tree K picks a tree of a forest; {args.model} holds a single tree")
    depth = args.max_depth
    if fmt == "weka" and depth is not None:
        raise UsageError("--max-depth does not apply to --format weka, which is Weka's whole tree")
    if fmt == "png":
        picture, drawn = _matplotlib_picture(model, "png", depth)
        write_bytes(picture, args.output, out)
        _note(args, drawn)
        return 0
    if fmt == "svg":
        text, drawn = _svg(model, depth)
        write_text(text, args.output, out)
        _note(args, drawn)
        return 0
    if fmt == "text":
        text = export_text(model, max_depth=depth)
    elif fmt == "weka":
        text = _weka_text(model, args.model)
    elif fmt == "rules":
        text = model.export_rules() if getattr(model, "_has_rules", False) else export_rules(model)
    elif fmt == "dot":
        text = export_graphviz(model, max_depth=depth)
    elif args.tree is not None:  # json of one tree of a forest: the tree's own model file
        text = _tree_json(model)
    else:
        document = json.loads(Path(args.model).read_text(encoding="utf-8"))
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_text(text, args.output, out)
    return 0


def _weka_text(model, path: str) -> str:
    """The tree as Weka prints it: J48's layout for a classification tree, M5P's for a model
    tree; a ValueError naming the file for a regression tree, which has neither."""
    try:
        return export_text(model, style="weka")
    except ValueError:
        name = type(model).__name__.removesuffix("View")
        raise ValueError(
            f"--format weka: {path} holds a {name}; Weka's layouts are J48's, for "
            "classification trees, and M5P's, for model trees (--algorithm m5)"
        ) from None


def _read(path: str):
    """A forest file's forest, or a tree file's :class:`ModelView`."""
    if is_ensemble_file(path):
        from ..persist.loader import load

        return load(path)
    return read_model_view(path)


def _is_forest(model) -> bool:
    """Whether ``model``, from :func:`quercus.load`, is a forest. Told by its class's name
    (load builds only quercus's own classes), so that a tree's file does not import the
    forest classes."""
    return type(model).__name__ in FOREST_ESTIMATORS


def _is_booster(model) -> bool:
    """Whether ``model``, from :func:`quercus.load`, is a gradient booster (by its class's
    name, as :func:`_is_forest`)."""
    return type(model).__name__ in BOOSTER_ESTIMATORS


def _note(args, text: str) -> None:
    if not args.quiet:
        note(text)


def _forest_tree(forest, k: int, path: str):
    n = len(forest.estimators_)
    if not 0 <= k < n:
        raise UsageError(f"--tree {k}: {path} holds trees 0 to {n - 1}")
    return forest.estimators_[k]


def forest_summary(forest) -> str:
    """What a forest is: its trees' sizes, its out-of-bag score, its attributes by
    importance."""
    from ..ensemble import RandomForestRegressor  # imported already: the forest is one

    trees = forest.trees_
    leaves, depths = trees.n_leaves(), trees.depths()
    task = (
        "regression"
        if isinstance(forest, RandomForestRegressor)
        else (f"classification into {plural(len(forest.classes_), 'class')}")
    )
    lines = [
        f"{type(forest).__name__}: {plural(len(trees), 'tree')}, {task}, "
        f"{plural(forest.n_features_in_, 'attribute')}",
        f"leaves per tree: mean {leaves.mean():,.1f}, min {leaves.min():,}, max {leaves.max():,}"
        f" ({leaves.sum():,} in all)",
        f"depth: mean {depths.mean():.1f}, max {depths.max()}",
    ]
    if hasattr(forest, "oob_score_"):
        what = "R^2" if isinstance(forest, RandomForestRegressor) else "accuracy"
        lines.append(f"out-of-bag {what}: {forest.oob_score_:.4f}")
    else:
        lines.append("out-of-bag score: not computed (fit with oob_score=True)")
    lines.append("attributes by impurity importance:")
    lines += _ranked(forest.schema_.names, forest.feature_importances_)
    lines.append("quercus show MODEL --tree K [--format text|rules|dot|svg|png] shows tree K")
    return "\n".join(lines) + "\n"


def booster_summary(booster) -> str:
    """What a gradient booster is: its iterations and trees, its losses, its attributes by
    gain importance."""
    trees = booster.trees_
    leaves = trees.n_leaves()
    per = booster.n_trees_per_iteration_
    task = (
        "regression"
        if booster.regression
        else f"classification into {plural(len(booster.classes_), 'class')}"
    )
    each = "1 tree each" if per == 1 else f"{per} trees each, one per class"
    lines = [
        f"{type(booster).__name__}: {plural(booster.n_iter_, 'iteration')} ({each}), loss "
        f"{booster.loss}, {task}, {plural(booster.n_features_in_, 'attribute')}",
        f"leaves per tree: mean {leaves.mean():,.1f}, min {leaves.min():,}, max {leaves.max():,}"
        f" ({leaves.sum():,} in all); learning rate {booster.learning_rate_:g}",
        f"training loss: {-booster.train_score_[0]:.5f} at the start, "
        f"{-booster.train_score_[booster.n_iter_]:.5f} after the last iteration kept",
    ]
    if booster.do_early_stopping_:
        run = len(booster.validation_score_) - 1
        lines.append(
            f"validation loss: {-booster.validation_score_[booster.n_iter_]:.5f}, the lowest "
            f"(early stopping ran {plural(run, 'iteration')} and kept {booster.n_iter_})"
        )
    lines.append("attributes by gain importance:")
    lines += _ranked(booster.schema_.names, booster.feature_importances_)
    return "\n".join(lines) + "\n"


def _ranked(names, importances) -> list[str]:
    """The attributes by decreasing importance (the first on ties), a line each."""
    width = max(len(n) for n in names)
    order = np.argsort(-importances, kind="stable")
    return [f"  {names[j]:<{width}}  {importances[j]:.4f}" for j in order]


def _forest_json(path: str) -> str:
    """The forest file's metadata document (its arrays are binary)."""
    from ..persist.ensemble_file import metadata_entry

    with zipfile.ZipFile(path) as archive:
        document = json.loads(archive.read(metadata_entry(archive.namelist())))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _tree_json(tree) -> str:
    """One tree of a forest as the document of its own model file."""
    from ..persist.model_file import model_to_dict

    return json.dumps(model_to_dict(tree), indent=2, ensure_ascii=False) + "\n"


def _svg(model, depth: int | None) -> tuple[str, str]:
    """SVG text and what drew it: Graphviz's dot when installed, else matplotlib."""
    if shutil.which("dot") is not None:
        return render_svg(export_graphviz(model, max_depth=depth)), "Graphviz's dot"
    svg, drawn = _matplotlib_picture(model, "svg", depth)
    return svg.decode("utf-8"), f"{drawn}; Graphviz's dot was not found"


# The largest drawing matplotlib makes by default: deeper trees are cut at the depth whose
# widest level fits (a subtree below is one box saying so).
_MAX_BOXES_ACROSS = 24
# Pictures without the time they were made: the same model gives the same file.
_NO_DATE = {"svg": {"Date": None}, "png": {}}


def _matplotlib_picture(model, fmt: str, depth: int | None) -> tuple[bytes, str]:
    """The tree drawn by :func:`quercus.plot.plot_tree` as PNG or SVG bytes, and a note of
    what drew it (and to which depth)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError(
            f"--format {fmt} without Graphviz needs matplotlib: pip install "
            '"quercus[plot]" (or install Graphviz, whose dot draws SVG)'
        ) from None
    from ..plot import plot_tree

    shown_depth = _fitting_depth(model) if depth is None else depth
    # Without an Axes, plot_tree sizes a figure of its own to the tree, its text at
    # matplotlib's default size; SVG keeps its words as text (small, searchable).
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "quercus"}):
        figure = plot_tree(model, max_depth=shown_depth)[0].figure
        try:
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, bbox_inches="tight", dpi=100, metadata=_NO_DATE[fmt])
        finally:
            plt.close(figure)
    drawn = "drawn by matplotlib (quercus.plot.plot_tree)"
    if shown_depth < model.tree_.max_depth:
        drawn += (
            f", levels 0 to {shown_depth} of {model.tree_.max_depth} (--max-depth D draws more or "
            "fewer)"
        )
    return buffer.getvalue(), drawn


def _boxes_across(model, depth: int) -> int:
    """The boxes in a drawing cut at ``depth``: the leaves above it and the nodes at it."""
    tree = model.tree_
    at = (tree.depth == depth) | ((tree.depth < depth) & (tree.kind == LEAF))
    return max(int(at.sum()), 1)


def _fitting_depth(model) -> int:
    """The deepest cut whose drawing has at most ``_MAX_BOXES_ACROSS`` boxes in a row."""
    depth = model.tree_.max_depth
    while depth > 1 and _boxes_across(model, depth) > _MAX_BOXES_ACROSS:
        depth -= 1
    return depth
