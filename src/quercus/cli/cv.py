"""``quercus cv``: k-fold cross-validated accuracy (or R^2), its spread, and the paired
comparison of two algorithms on the same folds.

The folds are :func:`quercus.estimators.folds.cv_folds`'s (shuffled, stratified by class),
repeated with the seeds ``seed``, ``seed + 1``, ... for ``--repeats``; both algorithms of
``--compare`` are scored on the same folds and compared by the corrected resampled t-test
(:func:`quercus.model_selection.corrected_ttest`).
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..data import DataError
from ..model_selection import corrected_ttest
from ..warm import announce_compiling
from .evaluate import (
    CVResult,
    cross_validate,
    cv_splits,
    format_comparison,
    format_confusion,
    format_spread,
    splits_text,
)
from .options import UsageError
from .progress import Progress
from .tasks import (
    ALGORITHMS,
    algorithm_name,
    check_settings,
    defaults_note,
    learning_task,
    learns_numbers_only,
    make_estimator,
    read_data,
    regression_why,
    settings_by_algorithm,
    task_data,
    task_line,
)


def _check_compare(args) -> dict[str, list]:
    """The ``--set`` settings of each algorithm, checked before the data is read."""
    algorithms = [args.algorithm]
    if args.compare is not None:
        if args.compare == args.algorithm:
            raise UsageError(
                f"--compare {args.compare} is the --algorithm itself: compare two algorithms"
            )
        algorithms.append(args.compare)
    settings = settings_by_algorithm(algorithms, args.set)
    for algorithm in algorithms:
        check_settings(algorithm, settings[algorithm])
    return settings


def _cv_task(table, algorithm: str, compare: str | None):
    """The task of ``algorithm`` (:func:`learning_task`), which both algorithms must learn:
    an algorithm that learns numbers only (m5), either of the two, makes a numeric target a
    regression for both; a :class:`DataError` when the target calls for regression and the
    other learns classes only."""
    if compare is None:
        return learning_task(table, algorithm)
    lead, other = algorithm, compare
    if learns_numbers_only(compare):
        lead, other = compare, algorithm
    regression, y = learning_task(table, lead)
    if regression and ALGORITHMS[other].regressor is None:
        option = {algorithm: "--algorithm", compare: "--compare"}
        why = regression_why(task_data(table), lead, short=True)
        raise DataError(
            f"{table.source}: target {table.schema.target!r} is "
            f"{why}, a regression for {option[lead]} {lead} "
            f"({ALGORITHMS[lead].label}), but {option[other]} {other} "
            f"({ALGORITHMS[other].label}) learns classes: the two cannot be compared "
            "(cart, forest and boost learn both)",
            column=table.schema.target,
            source=table.source,
        )
    return regression, y


def _partial_settings(given: list, settings: dict[str, list]) -> str:
    """A line for each ``--set`` parameter that only some of the algorithms have."""
    lines = []
    for name, _ in given:
        having = [ALGORITHMS[a].label for a, own in settings.items() if name in dict(own)]
        if len(having) < len(settings):
            lines.append(f"--set {name} applies to {' and '.join(having)} only\n")
    return "".join(lines)


def _fold_table(results: dict[str, CVResult], folds: int, score: str) -> str:
    """The score of every fold (or, when repeated, the mean of every repetition), one
    column per algorithm, and their difference when there are two."""
    names = list(results)
    first = next(iter(results.values()))
    repeats = first.repeats
    rows = [r.scores.reshape(repeats, folds) for r in results.values()]
    if repeats > 1:
        label, values = "repetition", [block.mean(axis=1) for block in rows]
    else:
        label, values = "fold", [block[0] for block in rows]
    if len(names) == 1:
        width = len(str(len(values[0])))
        what = f"{score} (mean of its {folds} folds)" if repeats > 1 else score
        return "".join(
            f"  {label} {i:>{width}}: {what} {value:.3f}\n"
            for i, value in enumerate(values[0], start=1)
        )
    headers = [label, *names, "difference"]
    columns = [
        [str(i) for i in range(1, len(values[0]) + 1)],
        *([f"{v:.3f}" for v in column] for column in values),
        [f"{a - b:+.3f}" for a, b in zip(values[0], values[1], strict=True)],
    ]
    widths = [max(len(h), *(len(c) for c in col)) for h, col in zip(headers, columns, strict=True)]
    lines = ["  " + "  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    for cells in zip(*columns, strict=True):
        lines.append("  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
    return "\n".join(lines) + "\n"


def run_cv(args, out: TextIO) -> int:
    """``quercus cv``: k-fold cross-validated accuracy (or R^2) with its spread and the
    confusion matrix; with --compare, a second algorithm on the same folds and the corrected
    resampled t-test of the two; with --repeats, the cross-validation repeated."""
    settings = _check_compare(args)
    table = read_data(args.data, args.target, nominal=args.nominal, ordinal=args.ordinal)
    regression, y = _cv_task(table, args.algorithm, args.compare)
    algorithms = list(settings)
    estimators = {a: make_estimator(a, regression, settings[a]) for a in algorithms}
    splits = cv_splits(
        y, folds=args.folds, seed=args.seed, repeats=args.repeats, regression=regression
    )
    results = {}
    with (
        Progress(args.quiet) as progress,
        announce_compiling(sys.stderr, before=progress.clear, quiet=args.quiet),
    ):
        bar = progress.bar(len(splits) * len(algorithms), "cv: folds")
        for k, (algorithm, estimator) in enumerate(estimators.items()):
            done = k * len(splits)  # folds of the algorithms before this one
            results[ALGORITHMS[algorithm].label] = cross_validate(
                estimator,
                table.X,
                y,
                repeats=args.repeats,
                regression=regression,
                splits=splits,
                on_fold=lambda i, n, done=done: bar.update(done + i - 1 - bar.n),
            )
        bar.close()
    score = "R^2" if regression else "accuracy"
    first = algorithms[0]
    out.write(task_line(task_data(table), regression, first, estimators[first], algorithms[1:]))
    if args.compare is not None:
        out.write(f"compared with {algorithm_name(args.compare, estimators[args.compare])}\n")
    for algorithm in algorithms:
        out.write(defaults_note(algorithm, regression, settings[algorithm], None))
    out.write(_partial_settings(args.set, settings))
    kind = "" if regression else " stratified"
    repeated = (
        f", repeated {args.repeats} times (seeds {args.seed} to {args.seed + args.repeats - 1})"
        if args.repeats > 1
        else ""
    )
    same = ", the same folds for both" if len(algorithms) > 1 else ""
    out.write(
        f"{args.folds}-fold{kind} cross-validation (shuffled, seed {args.seed}){repeated}{same}\n"
    )
    out.write(_fold_table(results, args.folds, score))
    spread_of = splits_text(args.folds, args.repeats)
    for name, result in results.items():
        what = f"{score} of {name}" if len(results) > 1 else score
        out.write(format_spread(result.spread(), what, spread_of, bounded=not regression))
    if len(results) > 1:
        (name_a, a), (name_b, b) = results.items()
        test = corrected_ttest(a.scores, b.scores, n_train=a.n_train, n_test=a.n_test)
        out.write(format_comparison(test, (name_a, name_b), score, spread_of))
    if regression:
        counted = f", over the {args.repeats} repetitions" if args.repeats > 1 else ""
        out.write(f"\nerrors of the pooled out-of-fold predictions{counted}\n")
        width = max(len(name) for name in results)
        for name, result in results.items():
            label = f"{name:<{width}}  " if len(results) > 1 else ""
            out.write(f"  {label}RMSE {result.rmse:.4g}, MAE {result.mae:.4g}\n")
    elif len(results) == 1:
        (result,) = results.values()
        counted = f", summed over the {args.repeats} repetitions" if args.repeats > 1 else ""
        out.write(
            "\nconfusion matrix of the pooled out-of-fold predictions "
            f"(rows: true class, columns: predicted class{counted})\n"
        )
        out.write(format_confusion(result.labels, result.confusion))
    return 0


__all__ = ["run_cv"]
