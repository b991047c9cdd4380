"""``quercus report``: learn a model from a data file and write its report, one
self-contained HTML page (:func:`quercus.report.write_report`)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ..data.errors import DataError
from ..data.read import check_readable
from ..estimators.validate import typed_rows
from ..report import render_report, write_report
from .fitted import as_model_labels, check_output
from .output import to_stdout, write_text
from .progress import Progress
from .tasks import (
    ALGORITHMS,
    algorithm_name,
    check_settings,
    learning_task,
    make_estimator,
    read_data,
    read_for_model,
)


def _test_set(path: str, estimator, target: str):
    """The features and target of the test file, as the model reads them."""
    table = read_for_model(path, estimator.schema_, target)
    features = table.X  # the rows whose target is known
    try:  # the columns the model needs, named with the file they are missing from
        typed_rows(estimator, features)
    except DataError as exc:
        raise DataError(f"{path}: {exc}", column=exc.column, source=path) from None
    truth = table.y
    if hasattr(estimator, "classes_"):
        truth = as_model_labels(truth, estimator.classes_)
    return features, truth


def run_report(args, out: TextIO) -> int:
    """``quercus report``: fit, then write the page and say where it is (or write the page
    to the standard output for ``-o -``)."""
    check_settings(args.algorithm, args.set)
    check_output(args.output)  # before the work, not after it
    if args.test:
        check_readable(args.test)
    with Progress(args.quiet) as progress:
        progress.update(f"report: reading {args.data}")
        table = read_data(args.data, args.target, nominal=args.nominal, ordinal=args.ordinal)
        regression, y = learning_task(table, args.algorithm)
        estimator = make_estimator(args.algorithm, regression, args.set)
        name = algorithm_name(args.algorithm, estimator)
        progress.update(f"report: learning {name} from {len(y):,} rows")
        estimator.fit(table.X, y)
        X_test = y_test = None
        if args.test:
            progress.update(f"report: reading {args.test}")
            X_test, y_test = _test_set(args.test, estimator, table.schema.target)
        progress.update(f"report: writing {args.output}")
        title = f"{ALGORITHMS[args.algorithm].label} on {Path(args.data).name}"
        if to_stdout(args.output):
            page = render_report(estimator, table.X, y, X_test=X_test, y_test=y_test, title=title)
            write_text(page, args.output, out)
            return 0
        path = write_report(
            estimator, table.X, y, args.output, X_test=X_test, y_test=y_test, title=title
        )
    size = path.stat().st_size
    out.write(f"report of {name} written to {path} ({size / 1024:,.0f} KB): open it in a browser\n")
    return 0
