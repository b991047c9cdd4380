"""The subcommands of ``quercus``: one function each, over the public API.

Every ``run_<command>(args, out)`` takes the parsed arguments and the stream for results,
and returns the exit status. Errors are raised, not printed: :class:`UsageError` for a
command line that cannot mean anything (exit 2), and ``DataError``, ``ModelError``,
``OSError``, ``ValueError`` (from fitting) and ``RuntimeError`` (from Graphviz) for input
that is wrong (exit 1); ``quercus.cli.main`` turns them into one line on stderr.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import warnings
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd
from sklearn.base import is_regressor

from .. import load as load_model
from ..criteria import entropy, gain_table
from ..data import DataError, read_table
from ..data.read import Table
from ..data.schema import NUMERIC, Schema
from ..estimators import (
    C45Classifier,
    C45RulesClassifier,
    CARTClassifier,
    CARTRegressor,
    ID3Classifier,
)
from ..export import export_graphviz, export_rules, export_text
from ..export.graphviz import render_svg
from .evaluate import cross_validate, format_confusion
from .progress import Progress

# --algorithm: name -> (the name people use, the classifier).
ALGORITHMS = {
    "id3": ("ID3", ID3Classifier),
    "c45": ("C4.5", C45Classifier),
    "c45rules": ("C4.5rules", C45RulesClassifier),
    "cart": ("CART", CARTClassifier),
}
# A numeric target with integer values and at most this many of them is a class column.
MAX_NUMERIC_CLASSES = 20


class UsageError(Exception):
    """A command line that cannot mean anything (exit status 2, like argparse's errors)."""


# -- shared steps ------------------------------------------------------------------------------


def _valid_params(algorithm: str, regression: bool | None) -> set[str]:
    """Parameter names of the estimator ``algorithm`` builds; ``regression=None`` (task not
    known yet) accepts the names of the classifier or, for CART, of either tree."""
    classes = [CARTRegressor] if regression else [ALGORITHMS[algorithm][1]]
    if regression is None and algorithm == "cart":
        classes.append(CARTRegressor)
    return {name for cls in classes for name in cls().get_params(deep=False)}


def check_settings(algorithm: str, settings: list, regression: bool | None = None) -> None:
    """A :class:`UsageError` naming the first ``--set`` parameter that the estimator does not
    have, and listing the valid ones."""
    valid = _valid_params(algorithm, regression)
    for name, _ in settings:
        if name not in valid:
            cls = CARTRegressor if regression else ALGORITHMS[algorithm][1]
            raise UsageError(
                f"unknown parameter {name!r} for --algorithm {algorithm} ({cls.__name__}); "
                f"valid parameters: {', '.join(sorted(valid))}"
            )


def make_estimator(algorithm: str, regression: bool, settings: list):
    """The estimator of ``algorithm`` for the task, with the ``--set`` parameters."""
    check_settings(algorithm, settings, regression)
    cls = CARTRegressor if regression else ALGORITHMS[algorithm][1]
    return cls(**dict(settings))


def _name(algorithm: str, estimator) -> str:
    return f"{ALGORITHMS[algorithm][0]} ({type(estimator).__name__})"


def target_task(table: Table) -> tuple[bool, pd.Series]:
    """Whether the target calls for regression, and the target to learn.

    A numeric target whose values are all integers, with at most ``MAX_NUMERIC_CLASSES``
    distinct values, is a class column (returned as integers); any other numeric target is
    a regression target.
    """
    y = table.y
    if table.schema.target_kind != NUMERIC:
        return False, y
    values = y.to_numpy(dtype=np.float64)
    integral = bool(np.all(values == np.round(values)))
    if integral and len(np.unique(values)) <= MAX_NUMERIC_CLASSES:
        return False, y.astype(np.int64)
    return True, y


def _numeric_target(table: Table) -> str:
    """Why the target is a regression target, for messages."""
    values = table.y.to_numpy(dtype=np.float64)
    distinct = len(np.unique(values))
    if np.all(values == np.round(values)):
        return f"numeric with {distinct} distinct values (more than {MAX_NUMERIC_CLASSES})"
    return f"numeric with {distinct} distinct values, not all integers"


def learning_task(table: Table, algorithm: str) -> tuple[bool, pd.Series]:
    """:func:`target_task`, with a :class:`DataError` when ``algorithm`` learns only classes
    and the target is a regression target."""
    regression, y = target_task(table)
    if regression and algorithm != "cart":
        raise DataError(
            f"{table.source}: target {table.schema.target!r} is {_numeric_target(table)}: "
            f"{ALGORITHMS[algorithm][0]} learns classes; use --algorithm cart for a regression "
            "tree",
            column=table.schema.target,
            source=table.source,
        )
    return regression, y


def _shown(labels, limit: int = 10) -> str:
    labels = [str(label) for label in labels]
    more = f", ... ({len(labels) - limit} more)" if len(labels) > limit else ""
    return ", ".join(labels[:limit]) + more


def task_line(table: Table, y: pd.Series, regression: bool, algorithm: str, estimator) -> str:
    """One line saying what is learned from what, and with which estimator."""
    target = table.schema.target
    size = f"{len(table):,} rows x {table.X.shape[1]} attributes"
    if regression:
        what = f"regression of {target!r} ({_numeric_target(table)})"
    else:
        labels = sorted(pd.unique(y)) if table.schema.target_kind == NUMERIC else None
        if labels is None:
            labels = [c for c in y.cat.categories if c in set(y.unique())]
        what = f"classification of {target!r} into {len(labels)} classes ({_shown(labels)})"
        if table.schema.target_kind == NUMERIC:
            what += " (a numeric target with few integer values: taken as classes)"
    return f"task: {what} with {_name(algorithm, estimator)}, {size}\n"


def write_text(text: str, path: str | None, out: TextIO) -> None:
    """``text`` to ``out``, or to the file ``path`` written atomically: a new file beside
    ``path`` replaces it only once complete, so an error never leaves a half-written file
    (nor loses the old one). The file gets the usual permissions (0666 less the umask)."""
    if path is None:
        out.write(text)
        return
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        fh = open(tmp, "x", encoding="utf-8", newline="")  # closed below
    except OSError as exc:
        raise OSError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_data(path: str, target: str | None) -> Table:
    """``read_table(path, target=target)`` (``None``: the last column); its warnings are
    passed on naming the file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_table(path, target=target)
    for warning in caught:
        message = str(warning.message)
        if path not in message:
            message = f"{path}: {message}"
        warnings.warn(message, warning.category, stacklevel=2)
    return table


def read_features(path: str, schema: Schema) -> pd.DataFrame:
    """The features of the data file ``path`` (its target column, if any, is left to the
    estimator, which ignores columns it was not trained on).

    Columns that were nominal with text categories in training are read as text, so that
    category codes like ``2`` or ``01`` match the training categories whatever the other
    values of the file look like.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = read_table(path, target=False)
    text = [
        f.name
        for f in schema.features
        if f.kind != NUMERIC
        and f.name in table.X.columns
        and all(isinstance(c, str) for c in f.categories)
    ]
    retype = [n for n in text if not isinstance(table.X[n].dtype, pd.CategoricalDtype)]
    if not retype and not caught:
        return table.X
    # Again, with those columns as text; warnings that still apply are shown this time.
    return read_table(path, target=False, nominal=text).X


# -- subcommands ---------------------------------------------------------------------------


def run_fit(args, out: TextIO) -> int:
    """``quercus fit``: learn a tree, print it and its training score, save it with -o."""
    check_settings(args.algorithm, args.set)
    with Progress(args.quiet) as progress:
        progress.update(f"fit: reading {args.data}")
        table = read_data(args.data, args.target)
        regression, y = learning_task(table, args.algorithm)
        estimator = make_estimator(args.algorithm, regression, args.set)
        progress.update(f"fit: learning {_name(args.algorithm, estimator)} from {len(y):,} rows")
        estimator.fit(table.X, y)
    if args.output:
        try:
            estimator.save(args.output)
        except OSError as exc:
            raise OSError(f"cannot write model file {args.output}: {exc.strerror or exc}") from None
        if not args.quiet:
            print(f"quercus: model saved to {args.output}", file=sys.stderr)
    out.write(task_line(table, y, regression, args.algorithm, estimator))
    out.write(export_text(estimator))
    if isinstance(estimator, C45RulesClassifier):
        out.write("\nRules:\n" + estimator.export_rules())
    if regression:
        out.write(f"training R^2: {estimator.score(table.X, y):.3f}\n")
    else:
        correct = int(np.sum(estimator.predict(table.X) == np.asarray(y, dtype=object)))
        out.write(f"training accuracy: {correct / len(y):.3f} ({correct} of {len(y)} rows)\n")
    return 0


def run_predict(args, out: TextIO) -> int:
    """``quercus predict``: predictions (and with --proba class probabilities) as CSV."""
    estimator = load_model(args.model)
    if args.proba and is_regressor(estimator):
        raise UsageError(
            f"--proba needs a classification model; {args.model} holds a regression tree"
        )
    with Progress(args.quiet) as progress:
        progress.update(f"predict: reading {args.data}")
        X = read_features(args.data, estimator.schema_)
        progress.update(f"predict: {len(X):,} rows")
        try:
            result = pd.DataFrame({"prediction": estimator.predict(X)})
            if args.proba:
                proba = estimator.predict_proba(X)
                for k, label in enumerate(estimator.classes_):
                    result[f"P({label})"] = proba[:, k]
        except DataError as exc:  # a column the model needs: say in which file
            raise DataError(f"{args.data}: {exc}", column=exc.column, source=args.data) from None
    write_text(result.to_csv(index=False, lineterminator="\n"), args.output, out)
    return 0


def run_show(args, out: TextIO) -> int:
    """``quercus show``: a saved model as text, rules, DOT, SVG or its JSON."""
    estimator = load_model(args.model)  # checks the file, whatever the format asked
    fmt = args.format
    if fmt == "text":
        text = export_text(estimator)
    elif fmt == "rules":
        if isinstance(estimator, C45RulesClassifier):
            text = estimator.export_rules()
        else:
            text = export_rules(estimator)
    elif fmt == "dot":
        text = export_graphviz(estimator)
    elif fmt == "svg":
        text = render_svg(export_graphviz(estimator))
    else:  # json
        document = json.loads(Path(args.model).read_text(encoding="utf-8"))
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_text(text, args.output, out)
    return 0


def _print_gain_table(out: TextIO, table: pd.DataFrame) -> None:
    """A gain table with 3 decimals, without the threshold column when no attribute is
    numeric."""
    shown = table.drop(columns=["threshold"]) if table["threshold"].isna().all() else table
    out.write(shown.to_string(float_format=lambda v: f"{v:.3f}", na_rep="") + "\n")


def run_gain(args, out: TextIO) -> int:
    """``quercus gain``: every attribute's gain on the whole data, or with --trace every
    candidate split of every node as the algorithm learns its tree."""
    if not args.trace and (args.algorithm is not None or args.set):
        raise UsageError("--algorithm and --set apply only with --trace")
    algorithm = args.algorithm or "id3"
    if args.trace:
        check_settings(algorithm, args.set)
    table = read_data(args.data, args.target)
    if not args.trace:
        regression, y = target_task(table)
        if regression:
            raise DataError(
                f"{args.data}: target {table.schema.target!r} is {_numeric_target(table)}: "
                "information gain needs classes (gain --trace --algorithm cart shows the "
                "variance decrease of each split of a regression tree)",
                column=table.schema.target,
                source=args.data,
            )
        out.write(f"Entropy({table.schema.target}) = {entropy(y):.3f} bits\n")
        _print_gain_table(out, gain_table(table.X, y))
        return 0
    regression, y = learning_task(table, algorithm)
    estimator = make_estimator(algorithm, regression, args.set)
    with Progress(args.quiet) as progress:
        progress.update(f"gain: learning {_name(algorithm, estimator)} from {len(y):,} rows")
        estimator.fit(table.X, y, trace=True)
    out.write(task_line(table, y, regression, algorithm, estimator))
    out.write(str(estimator.trace_))
    if not str(estimator.trace_).endswith("\n"):
        out.write("\n")
    return 0


def run_cv(args, out: TextIO) -> int:
    """``quercus cv``: k-fold cross-validated accuracy (or R^2) and the confusion matrix."""
    check_settings(args.algorithm, args.set)
    table = read_data(args.data, args.target)
    regression, y = learning_task(table, args.algorithm)
    estimator = make_estimator(args.algorithm, regression, args.set)
    with Progress(args.quiet) as progress:
        result = cross_validate(
            estimator,
            table.X,
            y,
            folds=args.folds,
            seed=args.seed,
            regression=regression,
            on_fold=lambda i, k: progress.update(f"cv: fold {i}/{k}"),
        )
    score = "R^2" if regression else "accuracy"
    kind = "" if regression else " stratified"
    out.write(task_line(table, y, regression, args.algorithm, estimator))
    out.write(f"{args.folds}-fold{kind} cross-validation (shuffled, seed {args.seed})\n")
    for i, value in enumerate(result.scores, start=1):
        out.write(f"  fold {i:>{len(str(args.folds))}}: {score} {value:.3f}\n")
    out.write(f"{score}: mean {result.mean:.3f}, standard deviation {result.std:.3f}\n")
    if not regression:
        out.write(
            "\nconfusion matrix of the pooled out-of-fold predictions "
            "(rows: true class, columns: predicted class)\n"
        )
        out.write(format_confusion(result.labels, result.confusion))
    return 0
