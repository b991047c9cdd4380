"""``quercus fit DATA --dask ADDRESS``: the fit of ``quercus fit`` on a Dask cluster.

DATA is read by ``dask.dataframe`` (a Parquet file or directory, a CSV file, or a glob of
either), so its rows stay on the workers: the client sees column names, types and a few
small summaries. The task is decided as a local fit decides it, from one small computation
over the target column; the algorithm's Dask estimator (:mod:`quercus.dask`) learns the
model; the training score is summed partition by partition on the cluster. What is printed
is what a local fit prints, and ``-o`` saves the same model file. ``ADDRESS`` is a
scheduler's address, or ``local`` / ``local:N`` for a cluster of worker processes started
here for the fit (and closed after it). A scheduler lost during the command (stopped, or out
of reach for longer than :data:`CONNECT_TIMEOUT`) is one line naming its address
(:class:`~quercus.distributed.estimators.ClusterLostError`), not distributed's errors.

Only the algorithms that grow level by level over sums of rows run on Dask: ``cart``,
``id3`` and ``forest``. C4.5 needs the rows in memory (a row with a missing value goes down
every branch with a fraction of its weight, and pessimistic pruning re-routes the rows),
and so does M5 (``m5``: a linear model fitted at every node, then pruned and smoothed), as
do the command line's defaults ``ccp_alpha='cv'`` (a CART tree) and
``oob_score=True`` (a forest), which are left out on Dask.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import warnings
from contextlib import contextmanager
from typing import NamedTuple, TextIO

import numpy as np
import pandas as pd

from .._config import MISSING_STRINGS
from ..capabilities import LOCAL_LEARNERS, dask_refusal
from ..data import DataError, DataWarning
from ..data.read import check_readable, detect_format
from ..data.read import resolve_target as _resolve_target
from ..estimators.params import InvalidParameterError
from .fitted import check_output, describe, evaluation, score_line
from .options import DaskAddress, UsageError
from .output import results_stream, save_model
from .progress import Progress
from .tasks import (
    ALGORITHMS,
    MAX_NUMERIC_CLASSES,
    algorithm_name,
    check_settings,
    classes_only,
    cli_defaults,
    numeric_target_text,
    set_error,
    task_text,
    tree_kind,
)

# Seconds to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = 10
# The Dask estimators of each algorithm: (classifier, regressor), by name in quercus.dask.
DASK_ESTIMATORS = {
    "id3": ("DaskID3Classifier", None),
    "cart": ("DaskCARTClassifier", "DaskCARTRegressor"),
    "forest": ("DaskRandomForestClassifier", "DaskRandomForestRegressor"),
}
# What to use instead of an algorithm that needs the rows in memory.
_INSTEAD = "use --algorithm cart, id3 or forest (or quercus fit without --dask)"
_INSTALL = 'fitting on a Dask cluster (--dask) needs Dask: pip install "quercus[dask]"'
_LEVELS_LOGGER = "quercus.distributed.rows"
_GLOB = re.compile(r"[*?\[]")


def run_dask_fit(args, out: TextIO) -> int:
    """``quercus fit DATA --dask ADDRESS``: :func:`quercus.cli.commands.run_fit` on a Dask
    cluster (see the module's description)."""
    algorithm = _dask_algorithm(args.algorithm)
    dask_estimators = _import_dask()
    check_settings(algorithm, _local_settings(args.set, dask_estimators))
    _refuse_settings(algorithm, args.set, dask_estimators)
    check_output(args.output)
    if args.test:
        check_readable(args.test)  # before the work, not after it
    source = data_source(args.data)
    with (
        Progress(args.quiet) as progress,
        cluster(args.dask, progress) as client,
        # A scheduler lost on the way: one line naming it, not distributed's errors.
        dask_estimators.scheduler_lost(client),
    ):
        progress.update(f"fit: reading {args.data}")
        frame = read_frame(source, args.nominal)
        with dask_read_errors(source, frame, client):
            data = training_data(frame, source, args.target, args.nominal, args.ordinal, client)
            if data.why is not None and ALGORITHMS[algorithm].regressor is None:
                raise classes_only(args.data, data.target, data.why, algorithm, model_trees=False)
            estimator, left_out = dask_estimator(
                algorithm, data.why is not None, args, data.target, client, dask_estimators
            )
            progress.update(
                f"fit: learning {algorithm_name(algorithm, estimator)} from {data.n_rows:,} "
                f"rows on {args.dask}"
            )
            with levels_shown(progress):
                estimator.fit(data.X, data.y)
            progress.update(f"fit: scoring {data.n_rows:,} rows on {args.dask}")
            model = estimator.to_local()
            score = cluster_score(model, data, client)
    if args.output:
        save_model(model, args.output, out, args.quiet)
    out = results_stream(args.output, out)  # the standard error when the model went out
    out.write(_task_line(data, algorithm, estimator))
    out.write(dask_defaults_note(algorithm, data.why is not None, args.set, left_out))
    out.write(describe(model))
    out.write(score)
    if args.test:
        out.write("\n" + evaluation(model, args.test, data.target, args.quiet))
    return 0


# -- the command line ---------------------------------------------------------------------------


def _dask_algorithm(algorithm: str | None) -> str:
    """The algorithm of a Dask fit; a :class:`UsageError` for C4.5, the default algorithm
    of ``quercus fit``, which needs the rows in memory."""
    if algorithm is None:
        raise UsageError(
            "--dask: the default algorithm, c45 (C4.5), is not available on Dask: "
            + f"{LOCAL_LEARNERS['c45']}; {_INSTEAD.replace('use', 'give', 1)}"
        )
    if algorithm not in DASK_ESTIMATORS:
        why = LOCAL_LEARNERS.get(algorithm, LOCAL_LEARNERS["c45"])
        raise UsageError(f"--algorithm {algorithm} is not available with --dask: {why}; {_INSTEAD}")
    return algorithm


def _import_dask():
    """The module of the Dask estimators, importing Dask; a RuntimeError saying how to
    install it when it is absent."""
    try:
        import dask.dataframe  # noqa: F401

        import distributed  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"{_INSTALL} ({exc})") from None
    from ..distributed import estimators

    return estimators


def _local_settings(settings: list, module) -> list:
    """The ``--set`` parameters of the local estimator: all but those a Dask estimator adds
    (``subtree_bytes``)."""
    return [(name, value) for name, value in settings if name not in module.DASK_PARAMS]


def _refuse_settings(algorithm: str, settings: list, module) -> None:
    """A :class:`UsageError` naming the first ``--set`` value that a Dask estimator refuses
    (one that only a local fit takes, or a bad ``subtree_bytes``), before any work."""
    for name, value in settings:
        try:
            module.refuse_local_only({name: value})
            if name in module.DASK_PARAMS:
                dask_class = getattr(module, DASK_ESTIMATORS[algorithm][0])
                module.check_dask_params(dask_class(**{name: value}))
        except InvalidParameterError as exc:
            raise UsageError(f"--set {name}: {exc}") from None


@contextmanager
def cluster(address: DaskAddress, progress: Progress):
    """A ``distributed.Client`` of the scheduler at ``address``, or of a local cluster
    started for the block and closed after it."""
    import distributed

    if address.scheduler is None:
        n_workers = address.n_workers or os.cpu_count() or 1
        progress.update(f"fit: starting a local Dask cluster of {n_workers} worker processes")
        with (
            distributed.LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                # Port 0: no clash with a cluster already running here (the scheduler's
                # HTTP server would otherwise take 8787, or warn that it cannot).
                dashboard_address="127.0.0.1:0",
                # A task's error reaches the command's one line; workers do not log it too.
                silence_logs=logging.CRITICAL,
            ) as local,
            distributed.Client(local, set_as_default=False) as client,
        ):
            yield client
        return
    progress.update(f"fit: connecting to the Dask scheduler at {address}")
    try:
        client = distributed.Client(
            address.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False
        )
    except ValueError as exc:  # not an address at all (no port, an unknown protocol)
        raise UsageError(f"--dask {address}: {exc}") from None
    except OSError as exc:
        raise ConnectionError(
            f"--dask {address}: cannot reach a Dask scheduler there within {CONNECT_TIMEOUT} s "
            f"({exc}); is it running, and is the address right?"
        ) from None
    with client:
        yield client


# -- reading ------------------------------------------------------------------------------------


class DataSource(NamedTuple):
    """What DATA names: ``paths`` (files, a Parquet directory, or a URL that Dask reads) in
    one ``format``, 'csv', 'tsv' or 'parquet'; ``name``: DATA as given."""

    name: str
    format: str
    paths: list[str]


def data_source(path: str) -> DataSource:
    """The files DATA names, or a :class:`DataError` saying why it names none that Dask can
    read."""
    if "://" in path:  # s3://..., hdfs://...: what the workers read, not this machine
        matches = [path]
    elif os.path.isdir(path):
        matches = [path]
    elif _GLOB.search(path):
        matches = sorted(glob.glob(path))
        if not matches:
            raise DataError(f"{path}: no file matches", source=path)
    else:
        matches = [check_readable(path)]
    formats = {"parquet" if os.path.isdir(m) else detect_format(m) for m in matches}
    if len(formats) > 1:
        raise DataError(
            f"{path}: the files are of several formats ({', '.join(sorted(formats))}); a "
            "Dask fit reads files of one format",
            source=path,
        )
    (fmt,) = formats
    if fmt not in ("csv", "tsv", "parquet"):
        raise DataError(
            f"{path}: a Dask fit reads CSV or Parquet files, not {fmt.upper()}; convert it, or "
            "fit without --dask",
            source=path,
        )
    return DataSource(path, fmt, matches)


def read_frame(source: DataSource, nominal) -> object:
    """DATA as a ``dask.dataframe.DataFrame``: Parquet as it is stored; CSV with the
    command line's missing-value markers, columns forced ``nominal`` read as text (so codes
    like ``01`` keep their spelling) and integer columns read as floats."""
    import dask.dataframe as dd

    paths = source.paths[0] if len(source.paths) == 1 else source.paths
    try:
        if source.format == "parquet":
            return dd.read_parquet(paths)
        options = {
            "sep": "\t" if source.format == "tsv" else ",",
            "skipinitialspace": True,
            "keep_default_na": False,
            "na_values": list(MISSING_STRINGS),
        }
        if any(p.lower().endswith((".gz", ".bz2", ".xz", ".zip", ".zst")) for p in source.paths):
            options["blocksize"] = None  # a compressed file is one partition
        frame = dd.read_csv(paths, **options)
        # Dask types each column from the first rows: an integer column whose missing value
        # comes later is floats there, and pandas reads TRUE/False as booleans (quercus
        # keeps such words as written), so both are typed here once for every block.
        dtypes = {name: str for name in nominal or () if name in frame.columns}
        for name, dtype in frame.dtypes.items():
            if name in dtypes:
                continue
            if pd.api.types.is_bool_dtype(dtype):
                dtypes[name] = str
            elif pd.api.types.is_integer_dtype(dtype):
                dtypes[name] = "float64"
        return dd.read_csv(paths, dtype=dtypes, **options) if dtypes else frame
    except pd.errors.EmptyDataError:
        raise DataError(f"{source.name}: the file is empty", source=source.name) from None
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        kind = "Parquet" if source.format == "parquet" else "CSV"
        raise DataError(
            f"{source.name}: not readable as {kind} by dask.dataframe ({_one_line(exc)})",
            source=source.name,
        ) from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class TrainingData(NamedTuple):
    """The training rows of a Dask fit, on the cluster, and what the command line says of
    them."""

    frame: object  # dask DataFrame of the rows whose target is known
    X: object  # dask DataFrame of the attributes
    y: object  # dask Series of the targets: class labels, or numbers for a regression
    target: str
    n_rows: int  # rows whose target is known
    n_attributes: int
    why: str | None  # what makes the target a regression target; None: classes
    numeric: bool  # classes of a numeric target (whole numbers, few of them)


class TargetSummary(NamedTuple):
    """What decides the task, summed over the partitions of the target column."""

    rows: int
    known: int  # rows whose target is not missing
    integral: bool  # every known (numeric) target is a whole number
    values: np.ndarray  # the smallest distinct targets, at most MAX_NUMERIC_CLASSES + 1


def training_data(frame, source: DataSource, target, nominal, ordinal, client) -> TrainingData:
    """The rows of DATA (``frame``, :func:`read_frame`) to learn ``target`` from (the last
    column when None): the rows whose target is known, its task decided as
    :func:`quercus.cli.tasks.target_task` decides it (a numeric target with few
    whole-number values is classes)."""
    names = [str(name) for name in frame.columns]
    target = _resolve_target(target, names, source.name)
    if len(names) == 1:
        raise DataError(
            f"{source.name} has only the target column {target!r}: no attribute to learn from",
            column=target,
            source=source.name,
        )
    forced = target in (nominal or ()) or target in (ordinal or {})
    dtype = frame[target].dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    numeric = numeric and not forced
    summary = target_summary(frame[target], numeric, client)
    if summary.rows == 0:
        raise DataError(f"{source.name}: no rows (the table has a header but no data)")
    if summary.known == 0:
        raise DataError(
            f"{source.name}: target column {target!r} is entirely missing",
            column=target,
            source=source.name,
        )
    if summary.known < summary.rows:
        warnings.warn(
            f"{source.name}: dropped {summary.rows - summary.known} of {summary.rows} rows "
            f"whose target {target!r} is missing",
            DataWarning,
            stacklevel=2,
        )
        frame = frame.map_partitions(_known_target, target, meta=frame._meta)
    y = frame[target]
    why = None
    if numeric:
        distinct = len(summary.values)
        if summary.integral and distinct <= MAX_NUMERIC_CLASSES:
            y = y.astype(np.int64)
        else:
            if distinct > MAX_NUMERIC_CLASSES:  # the exact count, for the task line
                distinct = int(client.compute(y.nunique()).result())
            why = numeric_target_text(distinct, summary.integral)
            y = y.astype(np.float64)
    return TrainingData(
        frame=frame,
        X=frame.drop(columns=[target]),
        y=y,
        target=target,
        n_rows=summary.known,
        n_attributes=len(names) - 1,
        why=why,
        numeric=numeric and why is None,
    )


def _target_missing(column: pd.Series) -> np.ndarray:
    """Which targets are missing, as a local read sees them (a missing-value marker in a
    text column too)."""
    missing = column.isna().to_numpy(dtype=bool)
    if column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
        marker = column.astype(object).map(
            lambda v: isinstance(v, str) and v.strip() in MISSING_STRINGS
        )
        missing = missing | marker.to_numpy(dtype=bool)
    return missing


def _known_target(part: pd.DataFrame, target: str) -> pd.DataFrame:
    return part.loc[~_target_missing(part[target])]


def _summarize_target(column: pd.Series, numeric: bool) -> TargetSummary:
    missing = _target_missing(column)
    known = int(len(column) - missing.sum())
    if not numeric:
        return TargetSummary(len(column), known, False, np.empty(0))
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)[~missing]
    integral = bool(np.all(values == np.round(values)))
    return TargetSummary(len(column), known, integral, np.unique(values)[: MAX_NUMERIC_CLASSES + 1])


def _merge_summaries(summaries: list[TargetSummary]) -> TargetSummary:
    values = np.unique(np.concatenate([s.values for s in summaries]))
    return TargetSummary(
        sum(s.rows for s in summaries),
        sum(s.known for s in summaries),
        all(s.integral for s in summaries),
        values[: MAX_NUMERIC_CLASSES + 1],
    )


def target_summary(column, numeric: bool, client) -> TargetSummary:
    """The :class:`TargetSummary` of the dask Series ``column``: one small task per
    partition and one that adds them (a partition keeps at most
    ``MAX_NUMERIC_CLASSES + 1`` of its distinct values: more already mean a regression)."""
    import dask

    parts = [dask.delayed(_summarize_target)(part, numeric) for part in column.to_delayed()]
    return client.compute(dask.delayed(_merge_summaries)(parts)).result()


# -- errors of reading on the cluster -----------------------------------------------------------


@contextmanager
def dask_read_errors(source: DataSource, frame, client):
    """The errors of reading DATA (``frame``) on the cluster as :class:`DataError`\\ s
    naming the file, and for a CSV column that Dask typed as numbers from the first rows,
    the column, the line and the value."""
    try:
        yield
    except pd.errors.ParserError as exc:
        raise DataError(
            f"{source.name}: not a valid CSV file ({_one_line(exc)})", source=source.name
        ) from None
    except ValueError as exc:
        # Dask's check of a block's types, or pandas' own when reading a block as numbers.
        words = ("Mismatched dtypes", "could not convert string to float")
        if isinstance(exc, DataError) or not any(w in str(exc) for w in words):
            raise
        raise _words_in_numbers(source, frame, exc, client) from None


def _words_in_numbers(source: DataSource, frame, exc: ValueError, client) -> DataError:
    """The error of a CSV column that Dask typed as numbers from the first rows, whose later
    rows hold words: a column of numbers and words, which a local read takes for nominal."""
    advice = (
        "a column of numbers and words is nominal: give --nominal {}, or write the data as "
        "Parquet, which stores each column's type"
    )
    numeric = [str(c) for c, t in frame.dtypes.items() if pd.api.types.is_numeric_dtype(t)]
    found = []
    if source.format != "parquet" and numeric:
        sep = "\t" if source.format == "tsv" else ","
        futures = client.map(_first_word, source.paths, columns=numeric, sep=sep, pure=False)
        found = [where for where in client.gather(futures) if where is not None]
    if not found:
        return DataError(
            f"{source.name}: a column typed as numbers from the first rows of the data holds "
            f"words further on ({_one_line(exc)}); {advice.format('COLUMN')}",
            source=source.name,
        )
    path, line, name, value = found[0]
    return DataError(
        f"{path}: column {name!r} holds {value!r} on line {line}, but Dask typed the column "
        f"as numbers from the first rows of the data; {advice.format(name)}",
        column=name,
        source=path,
    )


def _first_word(path: str, columns: list[str], sep: str):
    """``(path, line, column, value)`` of the first value in the CSV file ``path`` that is
    neither a number nor missing in one of ``columns``, or None (run on a worker, which
    reads the file)."""
    values = pd.read_csv(
        path,
        sep=sep,
        usecols=lambda name: name in columns,
        dtype=str,
        skipinitialspace=True,
        keep_default_na=False,
        na_values=list(MISSING_STRINGS),
    )
    first = None
    for name in values.columns:
        column = values[name]
        words = column.notna().to_numpy() & pd.to_numeric(column, errors="coerce").isna()
        if words.any():
            row = int(np.flatnonzero(words.to_numpy())[0])
            if first is None or row < first[0]:
                first = (row, name, column.iloc[row])
    if first is None:
        return None
    row, name, value = first
    return path, row + 2, name, value  # line 1 is the header


# -- the estimator ------------------------------------------------------------------------------


def dask_estimator(algorithm: str, regression: bool, args, target: str, client, module):
    """The Dask estimator of ``algorithm`` for the task, with the command line's defaults
    that Dask takes and the attributes of ``--nominal`` and ``--ordinal`` under the ``--set``
    parameters, and the defaults left out (name -> value); a :class:`UsageError` naming the
    ``--set`` parameter that Dask refuses."""
    check_settings(algorithm, _local_settings(args.set, module), regression)
    dask_name = DASK_ESTIMATORS[algorithm][1 if regression else 0]
    # A local fit reads the columns' kinds with the data; a Dask fit types them on the
    # workers, as the estimator's parameters say.
    columns = {
        "nominal_features": [name for name in args.nominal or () if name != target] or None,
        "ordinal_features": {k: v for k, v in (args.ordinal or {}).items() if k != target} or None,
    }
    given = {**{k: v for k, v in columns.items() if v is not None}, **dict(args.set)}
    defaults = {k: v for k, v in cli_defaults(algorithm, regression).items() if k not in given}
    left_out = {}
    for name, value in defaults.items():
        try:
            module.refuse_local_only({name: value})
        except InvalidParameterError:
            left_out[name] = value
    params = {k: v for k, v in defaults.items() if k not in left_out}
    estimator = getattr(module, dask_name)(client=client, **params, **given)
    try:
        module.check_dask_params(estimator)  # the checks of its fit, before the data is read
    except InvalidParameterError as exc:
        raise set_error(exc) from None
    return estimator, left_out


def dask_defaults_note(algorithm: str, regression: bool, settings: list, left_out: dict) -> str:
    """A line saying which command-line defaults shaped the model and which were left out
    on Dask ('' when neither)."""
    given = {name for name, _ in settings}
    used = {
        k: v
        for k, v in cli_defaults(algorithm, regression).items()
        if k not in given and k not in left_out and k != "random_state"
    }
    readable = algorithm == "cart" and used
    notes = []
    if readable:
        shown_used = ", ".join(f"{k}={v}" for k, v in used.items())
        notes.append(
            f"defaults for a readable {tree_kind(regression)} tree (as rpart's): {shown_used}"
        )
    if left_out:
        shown_left = ", ".join(
            f"{k}={v!r} ({dask_refusal({k: v}).reason()})" for k, v in left_out.items()
        )
        notes.append(f"left out on Dask: {shown_left}")
    if readable:
        notes.append(
            "--set min_samples_split=2 --set min_samples_leaf=1 --set ccp_alpha=0 grows the "
            "full tree"
        )
    return "; ".join(notes) + "\n" if notes else ""


def _task_line(data: TrainingData, algorithm: str, estimator) -> str:
    """:func:`quercus.cli.tasks.task_line` of a Dask fit (the classes: the model's)."""
    learner = algorithm_name(algorithm, estimator)
    size = (data.n_rows, data.n_attributes)
    if data.why is not None:
        return task_text(data.target, learner, size, why=data.why)
    return task_text(
        data.target, learner, size, labels=list(estimator.classes_), numeric=data.numeric
    )


# -- fitting and scoring ------------------------------------------------------------------------


class _LevelLine(logging.Handler):
    """Shows each level the Dask estimators log as the progress line."""

    def __init__(self, progress: Progress) -> None:
        super().__init__(logging.INFO)
        self.progress = progress

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.progress.update(f"fit: {record.getMessage()}")
        except Exception:  # a log line must never break the fit
            self.handleError(record)


@contextmanager
def levels_shown(progress: Progress):
    """Within the block, the progress line follows the levels of a Dask fit (the INFO
    records of the logger ``quercus.distributed.rows``)."""
    if not progress.enabled:
        yield
        return
    logger = logging.getLogger(_LEVELS_LOGGER)
    handler = _LevelLine(progress)
    level = logger.level
    logger.addHandler(handler)
    if not logger.isEnabledFor(logging.INFO):
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def cluster_score(model, data: TrainingData, client) -> str:
    """The training score line (:func:`quercus.cli.fitted.score_line`) of the fitted
    ``model`` (the local estimator), summed on the cluster: each partition predicts its
    rows and compares them with their targets, and only a row of sums per partition comes
    back."""
    regression = data.why is not None
    columns = ["rows", "mean", "squares", "error"] if regression else ["rows", "correct"]
    sums = data.frame.map_partitions(
        _partition_sums,
        model,
        data.target,
        regression,
        meta=pd.DataFrame({name: pd.Series(dtype=np.float64) for name in columns}),
    )
    sums = client.compute(sums).result()
    if regression:
        return score_line(True, _r2(sums.to_numpy()))
    n_rows, correct = (int(v) for v in sums.sum(axis=0))
    return score_line(False, correct / n_rows, correct, n_rows)


def _partition_sums(part: pd.DataFrame, model, target: str, regression: bool) -> pd.DataFrame:
    """A partition's rows and correct predictions; for a regression, its rows, mean target,
    sum of squares about that mean and squared error."""
    truth = part[target].to_numpy(dtype=np.float64 if regression else object)
    if not len(part):
        sums = [0.0] * (4 if regression else 2)
    else:
        predicted = model.predict(part.drop(columns=[target]))
        if regression:
            mean = truth.mean()
            squares = np.sum((truth - mean) ** 2)
            sums = [len(truth), mean, squares, np.sum((truth - predicted) ** 2)]
        else:
            sums = [len(truth), np.sum(np.asarray(predicted, dtype=object) == truth)]
    names = ["rows", "mean", "squares", "error"] if regression else ["rows", "correct"]
    return pd.DataFrame([sums], columns=names, dtype=np.float64)


def _r2(sums: np.ndarray) -> float:
    """R^2 from the partitions' sums, their sums of squares combined about the overall mean
    (Chan et al.'s update), as ``r2_score`` computes it in one pass."""
    sums = sums[sums[:, 0] > 0]
    n, means, squares, errors = sums.T
    mean = np.sum(n * means) / np.sum(n)
    total = np.sum(squares) + np.sum(n * (means - mean) ** 2)
    error = np.sum(errors)
    if total == 0.0:  # a constant target: r2_score's convention
        return 1.0 if error == 0.0 else 0.0
    return float(1.0 - error / total)
