"""The subcommands of ``quercus``: one function each, over the public API.

Every ``run_<command>(args, out)`` takes the parsed arguments and the stream for results,
and returns the exit status. Errors are raised, not printed: :class:`UsageError` for a
command line that cannot mean anything (exit 2), and ``DataError``, ``ModelError``,
``OSError``, ``ValueError`` (from fitting) and ``RuntimeError`` (from Graphviz) for input
that is wrong (exit 1); ``quercus.cli.main`` turns them into one line on stderr.
"""

from __future__ import annotations

from typing import TextIO

import numpy as np
import pandas as pd
from sklearn.base import is_regressor

from .. import datasets
from .. import load as load_model
from ..criteria import entropy, gain_table
from ..data import DataError
from ..data.read import Table, check_readable
from ..data.schema import NUMERIC_KIND
from .fitted import (
    ENSEMBLES,
    as_model_labels,
    check_output,
    describe,
    evaluation,
)
from .options import UsageError
from .output import results_stream, save_model, write_text
from .progress import Progress
from .source import LocalSource
from .tasks import (
    ALGORITHMS,
    algorithm_name,
    cell_text,
    check_settings,
    decide_task,
    defaults_note,
    learning_task,
    learns_numbers_only,
    make_estimator,
    read_data,
    read_features,
    regression_why,
    target_task,
    task_data,
    task_line,
)

# How each missing-value policy counts a case whose value is missing when it scores a split.
MISSING_RULES = {
    "fractional": "gain on the cases whose value is known, times their share of the weight "
    "(C4.5's rule)",
    "majority": "a case with a missing value counts in the branch with the most weight",
    "class_majority": "a case with a missing value counts in the branch where its class "
    "weighs most",
    "learned": "the cases with a missing value go to the side that gives the higher score",
}


def _read_training(args) -> Table:
    return read_data(args.data, args.target, nominal=args.nominal, ordinal=args.ordinal)


# -- fit, predict, evaluate ---------------------------------------------------------------------


def run_fit(args, out: TextIO) -> int:
    """``quercus fit``: learn a model, print it and its training score, save it with -o,
    evaluate it on a test file with --test; over the data read into memory
    (:class:`~quercus.cli.source.LocalSource`) or, with --dask, held on a Dask cluster
    (:class:`~quercus.cli.dask_fit.DaskSource`)."""
    if args.dask is None:
        kind = LocalSource
    else:
        from .dask_fit import DaskSource as kind
    algorithm = kind.checked_algorithm(args)
    check_output(args.output)
    if args.test:
        check_readable(args.test)  # before the work, not after it
    with Progress(args.quiet) as progress, kind.opened(args, progress) as source:
        data = source.data
        regression = decide_task(data, algorithm, model_trees=source.in_memory)
        estimator, left_out = source.estimator(algorithm, regression, args.set)
        name = algorithm_name(algorithm, estimator)
        progress.update(f"fit: learning {name} from {data.n_rows:,} rows{source.place}")
        X, y = source.training(regression)
        with source.shown(estimator, progress):
            estimator.fit(X, y)
        model = source.local_model(estimator)
        score = source.score(model, regression, progress)
    if args.output:
        save_model(model, args.output, out, args.quiet)
    out = results_stream(args.output, out)  # the standard error when the model went out
    out.write(task_line(data, regression, algorithm, estimator))
    out.write(defaults_note(algorithm, regression, args.set, model, left_out))
    out.write(describe(model))
    out.write(score)
    if args.test:
        out.write("\n" + evaluation(model, args.test, data.target, args.quiet))
    return 0


def _model_target(args, estimator) -> str | None:
    return args.target or estimator.schema_.target


def run_evaluate(args, out: TextIO) -> int:
    """``quercus evaluate``: a saved model's scores on a data file with the target."""
    estimator = load_model(args.model)
    out.write(evaluation(estimator, args.data, _model_target(args, estimator), args.quiet))
    return 0


def run_predict(args, out: TextIO) -> int:
    """``quercus predict``: predictions as CSV, with --proba class probabilities, --actual
    the true value and whether (or by how much) the prediction is wrong, --id a column of
    the data to identify the rows."""
    estimator = load_model(args.model)
    regression = is_regressor(estimator)
    if args.proba and regression:
        raise UsageError(
            f"--proba needs a classification model; {args.model} holds a regression model"
        )
    check_output(args.output)
    target = _model_target(args, estimator) if args.actual else None
    if args.actual and target is None:
        raise UsageError(
            f"--actual needs the target column: {args.model} does not name it; give --target COL"
        )
    keep = [c for c in (args.id, target) if c is not None]
    with Progress(args.quiet) as progress:
        progress.update(f"predict: reading {args.data}")
        ids = [args.id] if args.id is not None else []
        X = read_features(args.data, estimator.schema_, keep=keep, text=ids)
        progress.update(f"predict: {len(X):,} rows")
        try:
            predicted = estimator.predict(X)
            result = pd.DataFrame({"prediction": predicted})
            if args.id is not None:
                result.insert(0, args.id, cell_text(args.data, X, args.id))
            if args.actual:
                actual = X[target]
                if regression:
                    values = pd.to_numeric(actual, errors="coerce").to_numpy(dtype=np.float64)
                    result["actual"] = values
                    result["error"] = predicted - values
                else:
                    labels = as_model_labels(actual, estimator.classes_)
                    result["actual"] = labels
                    result["error"] = np.where(
                        actual.isna(), "", np.where(labels == predicted, "", "+")
                    )
            if args.proba:
                proba = estimator.predict_proba(X)
                for k, label in enumerate(estimator.classes_):
                    result[f"P({label})"] = proba[:, k]
        except DataError as exc:  # a column the model needs: say in which file
            raise DataError(f"{args.data}: {exc}", column=exc.column, source=args.data) from None
    write_text(result.to_csv(index=False, lineterminator="\n"), args.output, out)
    return 0


# -- gain -------------------------------------------------------------------------------------


def _print_gain_table(out: TextIO, table: pd.DataFrame) -> None:
    """A gain table with 3 decimals, without the threshold column when no attribute is
    numeric."""
    shown = table.drop(columns=["threshold"]) if table["threshold"].isna().all() else table
    out.write(shown.to_string(float_format=lambda v: f"{v:.3f}", na_rep="") + "\n")


def run_gain(args, out: TextIO) -> int:
    """``quercus gain``: every attribute's gain on the whole data, or with --trace every
    candidate split of every node as the algorithm learns its tree. Both say which
    missing-value rule their numbers follow."""
    if not args.trace and (args.algorithm is not None or args.set):
        raise UsageError("--algorithm and --set apply only with --trace")
    algorithm = args.algorithm or "id3"
    if args.trace and learns_numbers_only(algorithm):
        raise UsageError(
            f"--trace follows the growth of id3, c45, c45rules or cart; --algorithm {algorithm} "
            f"({ALGORITHMS[algorithm].label}) scores its splits on its own terms and records no "
            "trace"
        )
    if args.trace and ALGORITHMS[algorithm].classifier in ENSEMBLES:
        raise UsageError(
            f"--trace follows the growth of one tree; --algorithm {algorithm} "
            f"({ALGORITHMS[algorithm].label}) grows many: use --algorithm id3, c45, c45rules "
            "or cart"
        )
    if args.trace:
        check_settings(algorithm, args.set)
    table = _read_training(args)
    if not args.trace:
        regression, y = target_task(table)
        if regression:
            raise DataError(
                f"{args.data}: target {table.schema.target!r} is "
                f"{regression_why(task_data(table))}: "
                "information gain needs classes (gain --trace --algorithm cart shows the "
                "variance decrease of each split of a regression tree)",
                column=table.schema.target,
                source=args.data,
            )
        out.write(
            "gain table at the root: one branch per value of a nominal attribute, the best "
            "binary cut of a numeric one\n"
        )
        if table.X.isna().any().any():
            out.write(
                f"missing values: {MISSING_RULES['fractional']}; the same numbers as "
                "gain --trace --algorithm id3 --set missing=fractional at node 0\n"
            )
        out.write(f"Entropy({table.schema.target}) = {entropy(y):.3f} bits\n")
        _print_gain_table(out, gain_table(table.X, y))
        return 0
    regression, y = learning_task(table, algorithm)
    estimator = make_estimator(algorithm, regression, args.set)
    with Progress(args.quiet) as progress:
        progress.update(
            f"gain: learning {algorithm_name(algorithm, estimator)} from {len(y):,} rows"
        )
        estimator.fit(table.X, y, trace=True)
    out.write(task_line(task_data(table), regression, algorithm, estimator))
    params = estimator.get_params()
    if table.X.isna().any().any():
        missing = params["missing"]
        out.write(f"missing values: missing={missing!r}: {MISSING_RULES[missing]}\n")
    numeric = any(f.kind == NUMERIC_KIND for f in table.schema.features)
    if numeric and params.get("c45_thresholds") and not regression:
        out.write(
            "numeric attributes: C4.5's rule (the gain of a cut less log2(candidate cuts) / "
            "cases at the node, as J48)\n"
        )
    trace = str(estimator.trace_)
    out.write(trace if trace.endswith("\n") else trace + "\n")
    return 0


# -- datasets -----------------------------------------------------------------------------------


def run_datasets(args, out: TextIO) -> int:
    """``quercus datasets``: list the shipped data sets, or copy their CSV files."""
    if args.copy is None:
        width = max(len(name) for name in datasets.names())
        for name, description in datasets.names().items():
            out.write(f"{name:<{width}}  {description}\n")
        out.write("quercus datasets --copy DIR writes them as CSV files into DIR\n")
        return 0
    try:
        written = datasets.copy(args.copy, args.names or None)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        out.write(f"{path}\n")
    return 0


__all__ = [
    "ALGORITHMS",
    "UsageError",
    "run_datasets",
    "run_evaluate",
    "run_fit",
    "run_gain",
    "run_predict",
]
