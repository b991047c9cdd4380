"""The data source of ``quercus fit DATA --dask ADDRESS``: the training rows on a Dask cluster.

:func:`quercus.cli.commands.run_fit` fits over a data source
(:class:`quercus.cli.source.FitSource`); :class:`DaskSource` is the one whose rows stay on
the workers. DATA is read by
``dask.dataframe`` (:mod:`quercus.cli.dask_read`) on the cluster of ``ADDRESS``
(:mod:`quercus.cli.cluster`): the client sees column names, types and a few small
summaries. The task is decided as a local fit decides it, from one small computation over
the target column; the algorithm's Dask estimator (:mod:`quercus.dask`) learns the model;
the training score is summed partition by partition on the cluster. A scheduler lost during
the command (stopped, or out of reach for longer than :data:`CONNECT_TIMEOUT`) is one line
naming its address (:class:`~quercus.distributed.estimators.ClusterLostError`), not
distributed's errors.

Only the algorithms that grow level by level over sums of rows run on Dask: ``cart``,
``id3`` and ``forest``; those of :data:`quercus.capabilities.LOCAL_LEARNERS` (C4.5, M5,
gradient boosting) need the rows in memory, and so do the command line's defaults that
:func:`quercus.capabilities.dask_refusal` refuses (``ccp_alpha='cv'`` of a CART tree,
``oob_score=True`` of a forest), which are left out on Dask.
"""

from __future__ import annotations

import logging
import warnings
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._config import MISSING_STRINGS
from ..capabilities import LOCAL_LEARNERS
from ..data import DataError, DataWarning
from ..data.read import resolve_target
from ..data.schema import NOMINAL_KIND, NUMERIC_KIND, ORDINAL_KIND
from ..estimators.params import InvalidParameterError
from .cluster import cluster, import_dask
from .dask_read import DataFiles, dask_read_errors, data_files, read_frame
from .fitted import score_line
from .options import UsageError
from .progress import Progress
from .source import FitSource
from .tasks import (
    MAX_NUMERIC_CLASSES,
    TaskData,
    check_settings,
    cli_params,
    set_error,
    task_target,
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
_LEVELS_LOGGER = "quercus.distributed.rows"


class DaskSource(FitSource):
    """The training rows of DATA on a Dask cluster (``--dask``): the rows whose target is
    known, read on the cluster of ``client``; ``module``:
    :mod:`quercus.distributed.estimators`."""

    in_memory = False  # the learners of LOCAL_LEARNERS (m5) are not offered

    @classmethod
    def checked_algorithm(cls, args) -> str:
        """The algorithm of ``args``, with a :class:`UsageError` for one that needs the rows
        in memory (C4.5, the default of ``quercus fit``) and for a ``--set`` value that the
        Dask estimator refuses (one that only a local fit takes, a bad ``subtree_bytes``),
        before any work."""
        algorithm = _dask_algorithm(args.algorithm)
        module = import_dask()
        check_settings(algorithm, _local_settings(args.set, module))
        _refuse_settings(algorithm, args.set, module)
        return algorithm

    @classmethod
    @contextmanager
    def opened(cls, args, progress: Progress):
        """The source of ``args.data`` on the cluster of ``args.dask``, open (with the
        cluster) within the block; the errors of reading DATA on the cluster are
        :class:`DataError`\\ s naming the file, and a scheduler lost on the way is one line
        naming it, not distributed's errors."""
        module = import_dask()
        files = data_files(args.data)
        with (
            cluster(args.dask, progress, CONNECT_TIMEOUT) as client,
            module.scheduler_lost(client),
        ):
            progress.update(f"fit: reading {args.data}")
            frame = read_frame(files, args.nominal)
            with dask_read_errors(files, frame, client):
                yield cls(frame, files, args, client, module)

    def __init__(self, frame, files: DataFiles, args, client, module) -> None:
        self.client = client
        self.module = module
        self.place = f" on {args.dask}"  # where the rows are, for the progress lines
        self.frame, self.data = _training_rows(frame, files, args, client)
        target = self.data.target
        # A local fit reads the columns' kinds with the data; a Dask fit types them on the
        # workers, as the estimator's parameters say.
        columns = {
            "nominal_features": [n for n in args.nominal or () if n != target] or None,
            "ordinal_features": {k: v for k, v in (args.ordinal or {}).items() if k != target}
            or None,
        }
        self.columns = {k: v for k, v in columns.items() if v is not None}

    def estimator(self, algorithm: str, regression: bool, settings: list):
        """The Dask estimator of ``algorithm`` for the task, with the command line's
        defaults that Dask takes and the attributes of ``--nominal`` and ``--ordinal`` under
        the ``--set`` parameters, and the defaults left out (name -> value); a
        :class:`UsageError` naming the ``--set`` parameter that Dask refuses."""
        module = self.module
        check_settings(algorithm, _local_settings(settings, module), regression)
        given = {**self.columns, **dict(settings)}
        params, left_out = cli_params(algorithm, regression, given, on_dask=True)
        dask_name = DASK_ESTIMATORS[algorithm][1 if regression else 0]
        estimator = getattr(module, dask_name)(client=self.client, **params)
        try:
            module.check_dask_params(estimator)  # the checks of its fit, before the data is read
        except InvalidParameterError as exc:
            raise set_error(exc) from None
        return estimator, left_out

    def training(self, regression: bool) -> tuple:
        """The attributes and the target to learn, as Dask collections."""
        target = self.data.target
        y = task_target(self.frame[target], self.data, regression)
        return self.frame.drop(columns=[target]), y

    def shown(self, estimator, progress: Progress):
        """Within the block, the progress line follows the levels of the fit."""
        return levels_shown(progress)

    def local_model(self, estimator):
        """The fitted model as the ordinary quercus estimator."""
        return estimator.to_local()

    def score(self, model, regression: bool, progress: Progress) -> str:
        """The training score line (:func:`quercus.cli.fitted.score_line`) of the fitted
        ``model`` (the local estimator), summed on the cluster: each partition predicts its
        rows and compares them with their targets, and only a row of sums per partition
        comes back."""
        progress.update(f"fit: scoring {self.data.n_rows:,} rows{self.place}")
        columns = ["rows", "mean", "squares", "error"] if regression else ["rows", "correct"]
        sums = self.frame.map_partitions(
            _partition_sums,
            model,
            self.data.target,
            regression,
            meta=pd.DataFrame({name: pd.Series(dtype=np.float64) for name in columns}),
        )
        sums = self.client.compute(sums).result()
        if regression:
            return score_line(True, _r2(sums.to_numpy()))
        n_rows, correct = (int(v) for v in sums.sum(axis=0))
        return score_line(False, correct / n_rows, correct, n_rows)


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


# -- the training rows --------------------------------------------------------------------------


def _training_rows(frame, files: DataFiles, args, client) -> tuple[object, TaskData]:
    """The rows of DATA (``frame``, :func:`quercus.cli.dask_read.read_frame`) to learn
    ``args.target`` from (the last column when None): the rows whose target is known, and
    their :class:`~quercus.cli.tasks.TaskData`, as a table read in memory gives them (a
    numeric target is counted; a target of text is classes, which the model will say)."""
    names = [str(name) for name in frame.columns]
    target = resolve_target(args.target, names, files.name)
    if len(names) == 1:
        raise DataError(
            f"{files.name} has only the target column {target!r}: no attribute to learn from",
            column=target,
            source=files.name,
        )
    ordinal = target in (args.ordinal or {})
    forced = target in (args.nominal or ()) or ordinal
    dtype = frame[target].dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    numeric = numeric and not forced
    counts = target_counts(frame[target], numeric, client)
    if counts.rows == 0:
        raise DataError(
            f"{files.name}: no rows (the table has a header but no data)", source=files.name
        )
    if counts.known == 0:
        raise DataError(
            f"{files.name}: target column {target!r} is entirely missing",
            column=target,
            source=files.name,
        )
    if counts.known < counts.rows:
        warnings.warn(
            f"{files.name}: dropped {counts.rows - counts.known} of {counts.rows} rows "
            f"whose target {target!r} is missing",
            DataWarning,
            stacklevel=2,
        )
        frame = frame.map_partitions(_known_target, target, meta=frame._meta)
    shared = {"source": files.name, "target": target, "n_rows": counts.known}
    shared["n_attributes"] = len(names) - 1
    if not numeric:
        kind = ORDINAL_KIND if ordinal else NOMINAL_KIND
        return frame, TaskData(**shared, kind=kind, distinct=0, integral=False, classes=None)
    distinct = len(counts.values)
    if distinct > MAX_NUMERIC_CLASSES:  # the exact count, for the task line
        distinct = int(client.compute(frame[target].nunique()).result())
    few = counts.integral and distinct <= MAX_NUMERIC_CLASSES
    classes = tuple(counts.values.astype(np.int64).tolist()) if few else None
    data = TaskData(
        **shared, kind=NUMERIC_KIND, distinct=distinct, integral=counts.integral, classes=classes
    )
    return frame, data


class TargetCounts(NamedTuple):
    """What decides the task, summed over the partitions of the target column."""

    rows: int
    known: int  # rows whose target is not missing
    integral: bool  # every known (numeric) target is a whole number
    values: np.ndarray  # the smallest distinct targets, at most MAX_NUMERIC_CLASSES + 1


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


def _count_target(column: pd.Series, numeric: bool) -> TargetCounts:
    missing = _target_missing(column)
    known = int(len(column) - missing.sum())
    if not numeric:
        return TargetCounts(len(column), known, False, np.empty(0))
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)[~missing]
    integral = bool(np.all(values == np.round(values)))
    return TargetCounts(len(column), known, integral, np.unique(values)[: MAX_NUMERIC_CLASSES + 1])


def _merge_counts(counts: list[TargetCounts]) -> TargetCounts:
    values = np.unique(np.concatenate([c.values for c in counts]))
    return TargetCounts(
        sum(c.rows for c in counts),
        sum(c.known for c in counts),
        all(c.integral for c in counts),
        values[: MAX_NUMERIC_CLASSES + 1],
    )


def target_counts(column, numeric: bool, client) -> TargetCounts:
    """The :class:`TargetCounts` of the dask Series ``column``: one small task per
    partition and one that adds them (a partition keeps at most
    ``MAX_NUMERIC_CLASSES + 1`` of its distinct values: more already mean a regression)."""
    import dask

    parts = [dask.delayed(_count_target)(part, numeric) for part in column.to_delayed()]
    return client.compute(dask.delayed(_merge_counts)(parts)).result()


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
