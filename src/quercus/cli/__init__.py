"""The ``quercus`` command: a thin argparse front end over the public API.

``quercus fit | predict | evaluate | show | gain | cv | tune | report | datasets | demo |
warm``
(also ``python -m quercus``). The subcommands live in :mod:`quercus.cli.commands`,
:mod:`quercus.cli.show`, :mod:`quercus.cli.cv`, :mod:`quercus.cli.tune` and
:mod:`quercus.cli.report` (their shared steps in :mod:`quercus.cli.tasks`; the data that
``fit`` learns from in :mod:`quercus.cli.source`, or on a Dask cluster in
:mod:`quercus.cli.dask_fit`); this module holds the parser and turns errors into exit
statuses: 0 success, 2 a usage error, 1 bad data, a bad model file or a failed step,
reported as one line ``quercus: error: <message>`` on stderr (a traceback only with
``quercus --debug ...``). What it prints shows control characters escaped
(:mod:`quercus.cli.output`): a name in the data cannot drive the terminal.

The parser is built from light modules only (:mod:`quercus.cli.options`): a subcommand's
module, with pandas, scikit-learn and Numba, is imported when that subcommand runs, so that
``quercus --help``, ``quercus COMMAND --help``, ``--version`` and usage errors are quick.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from .._version import __version__
from .options import (
    ALGORITHM_CLASSES,
    DEFAULT_GRIDS_HELP,
    FORMATS,
    UsageError,
    parse_address,
    parse_algorithms,
    parse_grid,
    parse_value,
)


def parse_setting(text: str) -> tuple[str, object]:
    """``name=value`` from ``--set`` as ``(name, value)``; argparse reports a bad one."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected name=value (for example max_depth=3), got {text!r}"
        )
    return name, parse_value(value)


def _folds(text: str) -> int:
    try:
        folds = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if folds < 2:
        raise argparse.ArgumentTypeError(f"at least 2 folds are needed, got {folds}")
    return folds


def _whole(low: int, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
            raise argparse.ArgumentTypeError(f"expected a number {bounds}, got {value}")
        return value

    return parse


def parse_ordinal(text: str) -> tuple[str, list[str]]:
    """``--ordinal COL=low<mid<high`` as ``(column, [low, mid, high])``."""
    name, sep, levels = text.partition("=")
    parts = [level.strip() for level in levels.split("<")]
    if not sep or not name.strip() or len(parts) < 2 or not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected COLUMN=low<...<high (for example size=small<medium<large), got {text!r}"
        )
    if len(set(parts)) != len(parts):
        raise argparse.ArgumentTypeError(f"--ordinal {text!r} repeats a level")
    return name.strip(), parts


class _Ordinals(argparse.Action):
    """Collect ``--ordinal`` options into one mapping column -> levels."""

    def __call__(self, parser, namespace, value, option_string=None):
        mapping = dict(getattr(namespace, self.dest) or {})
        mapping[value[0]] = value[1]
        setattr(namespace, self.dest, mapping)


class _Nominals(argparse.Action):
    """Collect ``--nominal a,b --nominal c`` into one list of column names."""

    def __call__(self, parser, namespace, value, option_string=None):
        names = list(getattr(namespace, self.dest) or [])
        names += [name.strip() for name in value.split(",") if name.strip()]
        setattr(namespace, self.dest, names)


def _shared_options() -> dict[str, argparse.ArgumentParser]:
    """Option groups that several subcommands take (argparse "parents")."""
    quiet = argparse.ArgumentParser(add_help=False)
    quiet.add_argument(
        "-q", "--quiet", action="store_true", help="no progress line, warnings or notices"
    )
    target = argparse.ArgumentParser(add_help=False)
    target.add_argument(
        "--target", metavar="COL", help="the class (or target) column (default: the last one)"
    )
    learner = argparse.ArgumentParser(add_help=False)
    learner.add_argument(
        "--set",
        metavar="NAME=VALUE",
        type=parse_setting,
        action="append",
        default=[],
        help="an estimator parameter, e.g. --set max_depth=3 --set criterion=entropy "
        "(values are Python literals where they are one, else text)",
    )
    columns = argparse.ArgumentParser(add_help=False)
    columns.add_argument(
        "--nominal",
        metavar="COL,...",
        action=_Nominals,
        default=None,
        help="columns to read as nominal whatever they look like (numeric codes); repeatable",
    )
    columns.add_argument(
        "--ordinal",
        metavar="COL=a<b<c",
        type=parse_ordinal,
        action=_Ordinals,
        default=None,
        help="an ordinal column and its levels from lowest to highest; repeatable",
    )
    return {"quiet": quiet, "target": target, "learner": learner, "columns": columns}


def _algorithm(parser: argparse.ArgumentParser, default: str | None, note: str = "") -> None:
    parser.add_argument(
        "--algorithm",
        choices=list(ALGORITHM_CLASSES),
        default=default,
        help="id3, c45 (C4.5), c45rules (C4.5's rules), cart (classification, or a regression "
        "tree for a numeric target), forest (a random forest of either), m5 (a model tree, "
        "M5P's: a linear model in each leaf; numeric targets only) or boost (gradient-boosted "
        f"trees of either; --set max_iter=N --set learning_rate=F){note}",
    )


def _subcommand(sub, name: str, run: str, parents, help: str, description: str = ""):
    """Add subcommand ``name``, run by ``run``: ``"module:function"`` of this package, which
    :func:`main` imports only when the subcommand runs."""
    parser = sub.add_parser(name, parents=parents, help=help, description=description or help)
    parser.set_defaults(run=run, subparser=parser)
    return parser


def _command(run: str):
    """The function that a subcommand's ``run`` (``"module:function"``) names, imported."""
    module, _, function = run.partition(":")
    return getattr(importlib.import_module(f".{module}", __name__), function)


_DATA_HELP = "a data file: CSV, TSV, ARFF, Parquet or C4.5 .names/.data"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors show control characters escaped (an argument it
    does not know is quoted as typed)."""

    def error(self, message: str):
        from .output import terminal_text  # on an error only: help stays light

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {terminal_text(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``quercus`` and its subcommands."""
    parser = _Parser(
        prog="quercus",
        description="Decision trees: ID3, C4.5, CART, M5, forests and gradient boosting.",
    )
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    shared = _shared_options()
    training = [shared["target"], shared["columns"], shared["learner"], shared["quiet"]]
    _add_fit(sub, training)
    _add_model_commands(sub, shared["quiet"])
    _add_gain_and_cv(sub, training)
    _add_tune(sub, training)
    _add_report(sub, training)
    data = _subcommand(
        sub,
        "datasets",
        "commands:run_datasets",
        [],
        "list the data sets shipped with quercus, or copy them as CSV files",
    )
    data.add_argument("names", metavar="NAME", nargs="*", help="only these data sets")
    data.add_argument("--copy", metavar="DIR", help="write the CSV files into DIR")

    _subcommand(sub, "demo", "demo:run_demo_command", [], "the lecture data sets, worked")
    _subcommand(
        sub,
        "warm",
        "warm:run_warm",
        [],
        "compile the kernels now, not at the first fit",
        "Compile quercus's Numba kernels into Numba's cache on disk. An install from a wheel "
        "(pip install quercus, pip install .) carries them compiled already; an editable "
        "install or a changed source compiles each kind of model's kernels at its first fit "
        "(a few minutes in all on a small machine, once). With the kernels compiled it "
        "takes a few seconds.",
    )
    return parser


def _add_fit(sub, training: list) -> None:
    """``quercus fit``."""
    fit = _subcommand(
        sub,
        "fit",
        "commands:run_fit",
        training,
        "learn a model, print it and its training score",
        "Learn a tree (or a forest, or a gradient booster) from DATA, print it (an ensemble: "
        "its summary) and its training accuracy (R^2 for regression), save it with -o, and "
        "evaluate it on a test file with --test. A CART "
        "tree, of classes or numbers, is grown readable by default (rpart's settings: at least "
        "20 rows to split, 7 in a leaf, cost-complexity pruning chosen by cross-validation); "
        "--algorithm m5 learns a model tree, as Weka's M5P (a numeric target, also one of a "
        "few integer values, is learned as numbers). With --dask, the rows stay on a Dask "
        "cluster: DATA is a Parquet file or directory, a CSV file, or a glob of either "
        "(data/part*.parquet), which the workers read, and the algorithm is cart, id3 or "
        "forest (C4.5, M5 and gradient boosting need the rows in memory); the output is a "
        "local fit's, and -o "
        "saves the same model file.",
    )
    fit.add_argument("data", metavar="DATA", help=_DATA_HELP + "; with --dask, see above")
    _algorithm(fit, None, " (default: c45; with --dask, give cart, id3 or forest)")
    fit.add_argument(
        "-o",
        "--output",
        metavar="MODEL",
        help="save the model here (a tree as JSON, a forest or a booster as a zip: name it .qf)",
    )
    fit.add_argument(
        "--test", metavar="TEST", help="also evaluate the model on this data file (as Weka's -T)"
    )
    fit.add_argument(
        "--dask",
        metavar="ADDRESS",
        type=parse_address,
        help="learn on a Dask cluster: the scheduler's address (tcp://host:8786), or local "
        "(a local cluster of one worker process per core, closed after the fit) or local:N "
        '(N processes); needs pip install "quercus[dask]"',
    )


def _add_model_commands(sub, quiet: argparse.ArgumentParser) -> None:
    """``quercus predict``, ``evaluate`` and ``show``: the commands that read a model file."""
    predict = _subcommand(
        sub,
        "predict",
        "commands:run_predict",
        [quiet],
        "predict with a saved model, as CSV",
        "Predict the rows of DATA with MODEL: CSV with a column 'prediction' (with --proba "
        "one column 'P(<class>)' per class, with --actual the true value and an error column "
        "as Weka's -p: '+' where a class is wrong, predicted minus actual for regression). "
        "Columns are matched by name; extra columns, such as the target, are ignored.",
    )
    predict.add_argument("model", metavar="MODEL", help="a model file saved by quercus fit -o")
    predict.add_argument("data", metavar="DATA", help=_DATA_HELP)
    predict.add_argument("-o", "--output", metavar="FILE", help="write the CSV here")
    predict.add_argument("--proba", action="store_true", help="also the class probabilities")
    predict.add_argument(
        "--actual", action="store_true", help="also the actual value and whether it is predicted"
    )
    predict.add_argument(
        "--target",
        metavar="COL",
        help="the target column for --actual (default: the one the model was trained on)",
    )
    predict.add_argument("--id", metavar="COL", help="copy this column of DATA first, as an id")

    evaluate = _subcommand(
        sub,
        "evaluate",
        "commands:run_evaluate",
        [quiet],
        "a saved model's accuracy (or R^2) on a data file",
        "Evaluate MODEL on DATA, which holds the target: accuracy, precision, recall and F1 "
        "per class and the confusion matrix; R^2, RMSE and MAE for regression.",
    )
    evaluate.add_argument("model", metavar="MODEL", help="a model file saved by quercus fit -o")
    evaluate.add_argument("data", metavar="DATA", help=_DATA_HELP)
    evaluate.add_argument(
        "--target",
        metavar="COL",
        help="the target column (default: the one the model was trained on, else the last)",
    )

    show = _subcommand(
        sub,
        "show",
        "show:run_show",
        [quiet],
        "show a saved model as text, rules, DOT, SVG, PNG, JSON or Weka's text",
        "Show a saved tree as text, rules, DOT, SVG, PNG, JSON or as Weka prints it, or "
        "summarise a saved forest (trees, leaves, out-of-bag score, importances) and show its "
        "tree K with --tree K, or summarise a saved gradient booster (iterations, losses, "
        "gain importances). SVG is drawn by Graphviz's dot when installed, else by "
        "matplotlib; PNG by matplotlib.",
    )
    show.add_argument("model", metavar="MODEL", help="a model file saved by quercus fit -o")
    show.add_argument(
        "--format",
        choices=list(FORMATS),
        default="text",
        help="text (default), rules, dot (Graphviz), svg, png (needs -o), json or weka (as "
        "Weka prints it: J48's layout for a classification tree, M5P's for a model tree)",
    )
    show.add_argument("--tree", metavar="K", type=_whole(0), help="tree K of a forest")
    show.add_argument(
        "--max-depth", metavar="D", type=_whole(0), help="show the tree down to depth D"
    )
    show.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


def _add_gain_and_cv(sub, training: list) -> None:
    """``quercus gain`` and ``quercus cv``."""
    gain = _subcommand(
        sub,
        "gain",
        "commands:run_gain",
        training,
        "every attribute's information gain, or the whole learning trace",
        "Print the gain table of DATA (every attribute's information gain, split "
        "information, gain ratio and Gini decrease, best first), or with --trace every "
        "candidate split of every node as the algorithm learns its tree. Both say how they "
        "count missing values.",
    )
    gain.add_argument("data", metavar="DATA", help=_DATA_HELP)
    gain.add_argument("--trace", action="store_true", help="the learning trace of a tree")
    _algorithm(gain, None, " (with --trace; default: id3)")

    cv = _subcommand(
        sub,
        "cv",
        "cv:run_cv",
        training,
        "k-fold cross-validated accuracy (or R^2), its spread, and two algorithms compared",
        "Cross-validate an algorithm on DATA: the score of every fold, their mean, standard "
        "deviation and 95% confidence interval, and the confusion matrix of the out-of-fold "
        "predictions (for regression, their RMSE and MAE). With --compare, a second algorithm "
        "on the same folds and the corrected resampled t-test of the two (Nadeau and Bengio "
        "2003, as Weka's Experimenter); --repeats repeats the cross-validation with other "
        "shuffles (r x k scores). --set applies to each algorithm that has the parameter.",
    )
    cv.add_argument("data", metavar="DATA", help=_DATA_HELP)
    _algorithm(cv, "c45", " (default: c45)")
    cv.add_argument(
        "--compare",
        metavar="ALGORITHM",
        choices=list(ALGORITHM_CLASSES),
        help="a second algorithm to score on the same folds and compare (a paired t-test)",
    )
    _folds_and_seed(cv)


def _folds_and_seed(parser: argparse.ArgumentParser) -> None:
    """``--folds``, ``--repeats`` and ``--seed`` of ``cv`` and ``tune``: the same folds."""
    parser.add_argument(
        "--folds", metavar="K", type=_folds, default=10, help="number of folds (default: 10)"
    )
    parser.add_argument(
        "--repeats",
        metavar="R",
        type=_whole(1, 100),
        default=1,
        help="repeat the cross-validation R times, shuffled with the seeds S, S+1, ... "
        "(default: 1)",
    )
    parser.add_argument(
        "--seed",
        metavar="S",
        type=_whole(0, 2**32 - 1),
        default=0,
        help="seed of the shuffle (default: 0)",
    )


def _add_tune(sub, training: list) -> None:
    """``quercus tune``."""
    tune = _subcommand(
        sub,
        "tune",
        "tune:run_tune",
        training,
        "choose an algorithm's parameters by cross-validation (a grid search)",
        "Search a grid of parameters by k-fold cross-validation (scikit-learn's "
        "GridSearchCV, on the folds of quercus cv): print every candidate's mean score, "
        "standard deviation and rank, the best one, and the best compared with the "
        "runner-up (or with the best of each other algorithm) by the corrected resampled "
        "t-test; save the best, refitted on all of DATA, with -o. Without --grid, each "
        "algorithm's default grid: " + DEFAULT_GRIDS_HELP,
    )
    tune.add_argument("data", metavar="DATA", help=_DATA_HELP)
    tune.add_argument(
        "--algorithm",
        metavar="ALGORITHM",
        type=parse_algorithms,
        action="extend",
        default=None,
        help="the algorithm to tune: id3, c45, c45rules, cart, forest, m5 or boost (default: "
        "c45); "
        "repeat it, or give a list (c45,cart), to search across algorithms (with m5, a "
        "numeric target is a regression for all)",
    )
    tune.add_argument(
        "--grid",
        metavar="NAME=V1,V2",
        type=parse_grid,
        action="append",
        default=[],
        help="a parameter and the values to try, e.g. --grid max_depth=2,4,None --grid "
        "criterion=gini,entropy (values are Python literals where they are one); replaces "
        "the default grid",
    )
    _folds_and_seed(tune)
    tune.add_argument(
        "-o",
        "--output",
        metavar="MODEL",
        help="save the best model, refitted on all of DATA, here (as quercus fit -o)",
    )


def _add_report(sub, training: list) -> None:
    """``quercus report``."""
    report = _subcommand(
        sub,
        "report",
        "report:run_report",
        training,
        "learn a model and write its report: one HTML page to open in a browser",
        "Learn a tree (or a forest, or a gradient booster) from DATA as quercus fit does, and "
        "write its report to -o: one self-contained HTML page (no network access) with the "
        "tree drawn interactively (click a node for its gain table, or why growth stopped "
        "there), the rules, the confusion matrix and per-class precision and recall (R^2 and "
        "RMSE for regression), the feature importances, for a forest its out-of-bag score, and "
        "for a booster its loss by iteration, its gain importances and split counts, and its "
        "first trees with each node's gradient and hessian sums and each split's Newton gain. "
        "The evaluation is on the training data unless --test gives a test file.",
    )
    report.add_argument("data", metavar="DATA", help=_DATA_HELP)
    _algorithm(report, "c45", " (default: c45)")
    report.add_argument("-o", "--output", metavar="HTML", required=True, help="the page to write")
    report.add_argument("--test", metavar="TEST", help="evaluate the model on this data file")


def _one_line(exc: object) -> str:
    """The message of ``exc`` on one line, its control characters escaped; for an OSError,
    the file it concerns first."""
    from .output import terminal_text  # once a command runs: help stays light

    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    else:
        message = str(exc) or type(exc).__name__
    return terminal_text(" ".join(line.strip() for line in message.strip().splitlines()))


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"quercus: warning: {_one_line(message)}", file=sys.stderr)


def _run(args) -> int:
    from .output import TerminalText

    # Imported before the warnings are caught, as when every module was imported at start-up.
    run = _command(args.run)
    with warnings.catch_warnings():
        if getattr(args, "quiet", False):
            warnings.simplefilter("ignore")
        else:
            warnings.showwarning = _show_warning
        return run(args, TerminalText(sys.stdout))


def main(argv: list[str] | None = None) -> int:
    """Run ``quercus`` with ``argv`` (default: the process's arguments); the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return _run(args)
    except UsageError as exc:
        if args.debug:
            raise
        args.subparser.print_usage(sys.stderr)
        print(f"{args.subparser.prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("quercus: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (quercus ... | head): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    # DataError and ModelError are ValueErrors (tests/cli/test_cli_imports.py checks it):
    # naming them here would import their modules, and pandas and scikit-learn with them.
    except (OSError, ValueError, RuntimeError) as exc:
        if args.debug:
            raise
        print(f"quercus: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: still one line, the traceback with --debug
        if args.debug:
            raise
        print(
            f"quercus: error: unexpected {type(exc).__name__}: {_one_line(exc)} "
            "(run quercus --debug ... to see the traceback)",
            file=sys.stderr,
        )
        return 1
