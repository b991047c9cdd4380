"""Steps that several subcommands share: the algorithms' classes, reading data, the learning
task and building the estimator from ``--set`` (the parser's own pieces are
:mod:`quercus.cli.options`, writing results :mod:`quercus.cli.output`).

Errors are raised, not printed: :class:`UsageError` for a command line that cannot mean
anything (exit 2), ``DataError`` and ``OSError`` for input that is wrong (exit 1).
"""

from __future__ import annotations

import difflib
import re
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..capabilities import dask_refusal
from ..data import DataError, read_table
from ..data.read import Table
from ..data.schema import NUMERIC_KIND, Schema
from ..ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from ..estimators import (
    C45Classifier,
    C45RulesClassifier,
    CARTClassifier,
    CARTRegressor,
    ID3Classifier,
    ModelTreeRegressor,
)
from ..estimators.params import InvalidParameterError, check_param, check_params
from .options import ALGORITHM_CLASSES, UsageError
from .output import plural


@dataclass(frozen=True)
class Algorithm:
    """One ``--algorithm``: the name people use, its classifier and its regressor (either may
    be None: an algorithm learns classes, numbers or both)."""

    label: str
    classifier: type | None
    regressor: type | None = None


_CLASSES = {
    cls.__name__: cls
    for cls in (
        ID3Classifier,
        C45Classifier,
        C45RulesClassifier,
        CARTClassifier,
        CARTRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
        ModelTreeRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
    )
}
# The algorithms of quercus.cli.options (which names their classes, for the parser) with
# their classes.
ALGORITHMS = {
    name: Algorithm(entry.label, _CLASSES.get(entry.classifier), _CLASSES.get(entry.regressor))
    for name, entry in ALGORITHM_CLASSES.items()
}

# A numeric target with integer values and at most this many of them is a class column.
MAX_NUMERIC_CLASSES = 20

# A CART tree from the command line, of classes or of numbers, is meant to be read: rpart's
# defaults (at least 20 cases to split a node, 7 in a leaf) and cost-complexity pruning with
# the alpha chosen by 10-fold cross-validation and the one-standard-error rule. Unpruned, a
# classification tree fits its noise (credit-g: 384 lines, training accuracy 1.000). --set
# overrides any of them.
READABLE_CART = {
    "min_samples_split": 20,
    "min_samples_leaf": 7,
    "ccp_alpha": "cv",
    "random_state": 0,  # the same folds, so the same tree, at every run
}
# A forest from the command line reports its out-of-bag score, and is the same at every run.
FOREST_DEFAULTS = {"oob_score": True, "random_state": 0}
# A booster from the command line is the same at every run (its held-out rows for early
# stopping, its subsamples and its features' draws are seeded).
BOOST_DEFAULTS = {"random_state": 0}
# The parameters of the single trees and the forests that a booster does not have, and what
# stands for each in a booster (said by --set NAME and --grid NAME for --algorithm boost).
_UNPRUNED = (
    "a booster's trees are not pruned: max_leaf_nodes, max_depth, min_samples_leaf and "
    "min_child_weight bound their size"
)
NOT_FOR_BOOST = {
    "pruning": _UNPRUNED,
    "ccp_alpha": _UNPRUNED,
    "confidence": "it sets C4.5's pessimistic pruning, and a booster's trees are not pruned",
    "significance": "it sets a chi-square test of the splits of a classification tree; a "
    "booster's trees are regression trees on the gradients",
    "criterion": "a booster's trees split on the Newton gain of the loss (--set loss=...)",
    "n_estimators": "a booster grows max_iter iterations (--set max_iter=N)",
    "min_samples_split": "a booster's nodes are bounded by their leaves' rows and hessian sums "
    "(--set min_samples_leaf=N --set min_child_weight=F)",
    "oob_score": "a booster draws no bootstrap samples; early stopping holds out "
    "validation_fraction of the rows (--set early_stopping=True)",
    "bootstrap": "a booster draws no bootstrap samples; --set subsample=F grows each "
    "iteration on a share of the rows",
}


# -- the estimator ------------------------------------------------------------------------------


def estimator_classes(algorithm: str, regression: bool | None) -> list[type]:
    """The estimator classes ``algorithm`` may build; ``regression=None`` (task not known
    yet): the classifier, and the regressor where there is one. An algorithm that learns
    numbers only builds its regressor (:func:`learning_task` refuses a class target)."""
    entry = ALGORITHMS[algorithm]
    if regression or entry.classifier is None:
        return [entry.regressor]
    if regression is None and entry.regressor is not None:
        return [entry.classifier, entry.regressor]
    return [entry.classifier]


def check_settings(
    algorithm: str, settings: list, regression: bool | None = None, option: str = "--set"
) -> None:
    """A :class:`UsageError` naming the first ``--set`` parameter that the estimator does not
    have, with the closest valid name ("did you mean max_depth?") and the valid ones, or the
    first value it does not take (said as a value of ``option``)."""
    classes = estimator_classes(algorithm, regression)
    valid = {name for cls in classes for name in cls().get_params(deep=False)}
    for name, _ in settings:
        if name in valid:
            continue
        not_applicable(algorithm, name, option)
        close = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(
            f"unknown parameter {name!r}{hint} for --algorithm {algorithm} "
            f"({' or '.join(cls.__name__ for cls in classes)}); "
            f"valid parameters: {', '.join(sorted(valid))}"
        )
    # A value wrong for every estimator the algorithm may build is said before the data is
    # read; each is checked beside the other settings (confidence depends on c45_variant).
    candidates = []
    for cls in classes:
        own = cls().get_params(deep=False)
        candidates.append(cls(**{k: v for k, v in settings if k in own}))
    for name, value in settings:
        problems = []
        for estimator in candidates:
            if name not in estimator.get_params(deep=False):
                continue
            try:
                check_param(estimator, name, value)
            except InvalidParameterError as exc:
                problems.append(exc)
            else:
                break
        else:
            raise UsageError(f"{option} {name}: {problems[0]}")


def not_applicable(algorithm: str, name: str, option: str = "--set") -> None:
    """A :class:`UsageError` when the parameter ``name``, which ``algorithm`` does not have,
    is one of the trees' or the forests' that does not apply to it, saying why and what
    stands for it (:data:`NOT_FOR_BOOST`); nothing otherwise."""
    why = NOT_FOR_BOOST.get(name) if algorithm == "boost" else None
    if why is not None:
        raise UsageError(
            f"{option} {name} does not apply to --algorithm boost ({ALGORITHMS['boost'].label}): "
            f"{why}"
        )


def parameters_of(algorithm: str, regression: bool | None = None) -> set[str]:
    """The parameter names of the estimators ``algorithm`` may build."""
    return {
        name
        for cls in estimator_classes(algorithm, regression)
        for name in cls().get_params(deep=False)
    }


def settings_by_algorithm(
    algorithms: list[str], settings: list, option: str = "--set"
) -> dict[str, list]:
    """The ``(name, value)`` settings that apply to each of several algorithms (those it has
    a parameter for); a :class:`UsageError` for a name that none of them has."""
    known = {algorithm: parameters_of(algorithm) for algorithm in algorithms}
    for name, _ in settings:
        if not any(name in names for names in known.values()):
            if len(algorithms) == 1:
                not_applicable(algorithms[0], name, option)
            valid = sorted(set().union(*known.values()))
            close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(
                f"{option}: unknown parameter {name!r}{hint} for {' and '.join(algorithms)}; "
                f"valid parameters: {', '.join(valid)}"
            )
    return {
        algorithm: [(name, value) for name, value in settings if name in known[algorithm]]
        for algorithm in algorithms
    }


def make_estimator(algorithm: str, regression: bool, settings: list):
    """The estimator of ``algorithm`` for the task, with the command line's defaults
    (:func:`cli_params`) under the ``--set`` parameters."""
    check_settings(algorithm, settings, regression)
    (cls,) = estimator_classes(algorithm, regression)
    params, _ = cli_params(algorithm, regression, dict(settings))
    estimator = cls(**params)
    try:
        check_params(estimator)
    except InvalidParameterError as exc:
        raise set_error(exc) from None
    return estimator


def set_error(exc: InvalidParameterError) -> UsageError:
    """The :class:`UsageError` of a parameter value the estimator refuses, said in
    ``--set`` terms: the parameter at fault and, when the error knows a value that works,
    the option to add (``--set missing=majority``)."""
    fix = " ".join(f"--set {name}={value}" for name, value in exc.remedy.items())
    return UsageError(f"--set {exc.name}: {exc}" + (f" (add {fix})" if fix else ""))


def cli_defaults(algorithm: str, regression: bool) -> dict:
    """The parameters the command line sets where the estimator's own defaults differ."""
    if algorithm == "cart":
        return READABLE_CART
    if algorithm == "forest":
        return FOREST_DEFAULTS
    if algorithm == "boost":
        return BOOST_DEFAULTS
    return {}


def cli_params(
    algorithm: str, regression: bool, given: dict, on_dask: bool = False
) -> tuple[dict, dict]:
    """The parameters of the estimator of ``algorithm`` for the task: the command line's
    defaults (:func:`cli_defaults`) under the ``given`` ones, and the defaults left out
    (name -> value): ``on_dask``, those that a fit on Dask cannot take
    (:func:`quercus.capabilities.dask_refusal`), else none."""
    defaults = {k: v for k, v in cli_defaults(algorithm, regression).items() if k not in given}
    left_out = {k: v for k, v in defaults.items() if on_dask and dask_refusal({k: v}) is not None}
    kept = {k: v for k, v in defaults.items() if k not in left_out}
    return {**kept, **given}, left_out


def defaults_note(
    algorithm: str, regression: bool, settings: list, estimator, left_out: dict | None = None
) -> str:
    """A line saying which command-line defaults shaped the model (``estimator``, fitted,
    or None) and which were ``left_out`` (name -> value, :func:`cli_params`); '' when
    neither."""
    left_out = left_out or {}
    given = {name for name, _ in settings}
    used = {
        k: v
        for k, v in cli_defaults(algorithm, regression).items()
        if k not in given and k not in left_out
    }
    parts = _readable_defaults(used, estimator) if algorithm == "cart" else []
    notes = []
    if parts:  # not when every default is given (random_state alone shapes nothing said)
        notes.append(
            f"defaults for a readable {tree_kind(regression)} tree (as rpart's): "
            + ", ".join(parts)
        )
    if left_out:
        shown_left = ", ".join(
            f"{k}={v!r} ({dask_refusal({k: v}).reason()})" for k, v in left_out.items()
        )
        notes.append(f"left out on Dask: {shown_left}")
    if parts:
        notes.append(
            "--set min_samples_split=2 --set min_samples_leaf=1 --set ccp_alpha=0 grows the "
            "full tree"
        )
    return "; ".join(notes) + "\n" if notes else ""


def _readable_defaults(used: dict, estimator) -> list[str]:
    """What :func:`defaults_note` says of the defaults ``used`` of a CART tree: each as
    ``name=value``, and how ``ccp_alpha`` was chosen (its value, when ``estimator`` knows
    it)."""
    parts = [f"{k}={v}" for k, v in used.items() if k not in ("ccp_alpha", "random_state")]
    results = getattr(estimator, "cv_results_", None)
    if "ccp_alpha" in used and results is not None and np.isnan(results["mean_error"]).all():
        parts.append("ccp_alpha='cv' (nothing to prune: the tree is one leaf)")
    elif "ccp_alpha" in used:
        alpha = getattr(estimator, "ccp_alpha_", None)
        chosen = f" ({alpha:.6g})" if alpha is not None else ""
        parts.append(
            f"ccp_alpha chosen by 10-fold cross-validation with the one-standard-error rule{chosen}"
        )
    return parts


def tree_kind(regression: bool) -> str:
    """What a tree of the task is called in the notes: "regression" or "classification"."""
    return "regression" if regression else "classification"


def algorithm_name(algorithm: str, estimator) -> str:
    return f"{ALGORITHMS[algorithm].label} ({type(estimator).__name__})"


# -- the task -----------------------------------------------------------------------------------


class TaskData(NamedTuple):
    """The training data as the learning task is decided (:func:`decide_task`) and said
    (:func:`task_line`) from: the same whether its rows are in memory (:func:`task_data`
    of a table) or on a Dask cluster (:mod:`quercus.cli.dask_fit`)."""

    source: str  # the data, as its messages name it
    target: str  # the target column
    kind: str  # the target's kind: NUMERIC_KIND, or that of a column of classes
    n_rows: int  # rows whose target is known
    n_attributes: int
    distinct: int  # distinct known targets (of a column of classes: its classes; 0: not counted)
    integral: bool  # a numeric target whose known values are all whole numbers
    # The classes in order, should the task be classification; None: known only once a
    # model has learned them (a column of text on a Dask cluster), or a regression target.
    classes: tuple | None


def task_data(table: Table) -> TaskData:
    """The :class:`TaskData` of a table in memory."""
    y, kind = table.y, table.schema.target_kind
    shared = {"source": table.source, "target": table.schema.target, "kind": kind}
    shared.update(n_rows=len(table), n_attributes=table.X.shape[1])
    if kind != NUMERIC_KIND:
        present = set(y.dropna().unique())
        classes = tuple(c for c in y.cat.categories if c in present)
        return TaskData(**shared, distinct=len(classes), integral=False, classes=classes)
    values = y.to_numpy(dtype=np.float64)
    distinct = np.unique(values)
    integral = bool(np.all(values == np.round(values)))
    few = integral and len(distinct) <= MAX_NUMERIC_CLASSES
    classes = tuple(distinct.astype(np.int64).tolist()) if few else None
    return TaskData(**shared, distinct=len(distinct), integral=integral, classes=classes)


def is_regression_target(data: TaskData) -> bool:
    """Whether the target alone calls for regression: a numeric target is a regression
    target unless its values are all integers, at most ``MAX_NUMERIC_CLASSES`` distinct
    ones (a column of classes)."""
    if data.kind != NUMERIC_KIND:
        return False
    return not (data.integral and data.distinct <= MAX_NUMERIC_CLASSES)


def decide_task(data: TaskData, algorithm: str, model_trees: bool = True) -> bool:
    """Whether ``algorithm`` learns a regression of the target (:func:`is_regression_target`),
    with a :class:`DataError` when it cannot learn the task: an algorithm that learns only
    classes given a regression target (``model_trees``: whether m5 is offered instead, not
    on Dask), one that learns numbers only (m5) given a column of classes. An algorithm that
    learns numbers only takes any numeric target as a regression target (also a few integer
    values, which the others take as classes)."""
    if learns_numbers_only(algorithm):
        if data.kind != NUMERIC_KIND:
            raise numbers_only(data.source, data.target, class_target(data), algorithm)
        return True
    regression = is_regression_target(data)
    if regression and ALGORITHMS[algorithm].regressor is None:
        why = regression_why(data, algorithm)
        raise classes_only(data.source, data.target, why, algorithm, model_trees)
    return regression


def task_target(y, data: TaskData, regression: bool):
    """The target ``y`` (a pandas or dask Series) to learn for the task: a numeric target's
    classes as integers, its numbers as floats; classes of another kind as they are."""
    if data.kind != NUMERIC_KIND:
        return y
    dtype = np.float64 if regression else np.int64
    return y if y.dtype == dtype else y.astype(dtype)


def target_task(table: Table) -> tuple[bool, pd.Series]:
    """Whether the target of ``table`` calls for regression (:func:`is_regression_target`),
    and the target to learn (:func:`task_target`)."""
    data = task_data(table)
    regression = is_regression_target(data)
    return regression, task_target(table.y, data, regression)


def learning_task(table: Table, algorithm: str) -> tuple[bool, pd.Series]:
    """:func:`decide_task` of ``algorithm`` on ``table``, and the target to learn
    (:func:`task_target`)."""
    data = task_data(table)
    regression = decide_task(data, algorithm)
    return regression, task_target(table.y, data, regression)


def numeric_target_text(distinct: int, integral: bool) -> str:
    """Why a numeric target of ``distinct`` values, whole numbers if ``integral``, is a
    regression target."""
    if integral:
        return f"numeric with {distinct} distinct integer values, more than {MAX_NUMERIC_CLASSES}"
    return f"numeric with {distinct} distinct values, not all integers"


def learns_numbers_only(algorithm: str) -> bool:
    """Whether ``algorithm`` has no classifier: it learns numeric targets only (m5)."""
    return ALGORITHMS[algorithm].classifier is None


def common_task(table: Table, algorithms: list[str]) -> tuple[bool, pd.Series]:
    """The learning task of several algorithms searched or compared on the same target: an
    algorithm that learns numbers only (m5) makes a numeric target a regression target for
    all of them; a :class:`DataError` when one of them cannot learn the task."""
    data = task_data(table)
    lead = next((a for a in algorithms if learns_numbers_only(a)), algorithms[0])
    regression = decide_task(data, lead)
    for algorithm in algorithms:
        if regression and ALGORITHMS[algorithm].regressor is None:
            why = regression_why(data, lead, short=True)
            if not is_regression_target(data):  # a regression because lead learns numbers only
                why += f", a regression for --algorithm {lead}"
            raise classes_only(data.source, data.target, why, algorithm)
    return regression, task_target(table.y, data, regression)


def regression_why(data: TaskData, algorithm: str | None = None, short: bool = False) -> str:
    """Why the target is a regression target for ``algorithm``, for messages: its values
    (:func:`numeric_target_text`), or (a numeric target of few integer values) because
    ``algorithm`` learns numbers only; ``short``: without that reason. ``algorithm`` None:
    the target alone."""
    distinct, integral = data.distinct, data.integral
    numbers_only = algorithm is not None and learns_numbers_only(algorithm)
    if not numbers_only or not integral or distinct > MAX_NUMERIC_CLASSES:
        return numeric_target_text(distinct, integral)
    if short:
        return f"numeric with {distinct} distinct integer values"
    return (
        f"numeric with {distinct} distinct integer values, learned as numbers by "
        f"{ALGORITHMS[algorithm].label}; other algorithms take {MAX_NUMERIC_CLASSES} or fewer "
        "as classes"
    )


def _class_learners() -> str:
    """The ``--algorithm`` names that learn classes: ``id3, c45, ... or forest``."""
    names = [name for name, entry in ALGORITHMS.items() if entry.classifier is not None]
    return ", ".join(names[:-1]) + " or " + names[-1]


def classes_only(
    source: str, target: str, why: str, algorithm: str, model_trees: bool = True
) -> DataError:
    """The error of an ``algorithm`` that learns only classes given a regression target
    (``why``: :func:`regression_why`); ``model_trees``: whether the learners that need the
    rows in memory are offered, m5 and boost (not on Dask)."""
    others = "forest or boost" if model_trees else "forest"
    m5 = ", or m5 for a model tree" if model_trees else ""
    return DataError(
        f"{source}: target {target!r} is {why}: {ALGORITHMS[algorithm].label} learns classes; "
        f"use --algorithm cart (or {others}) for regression{m5}",
        column=target,
        source=source,
    )


def class_target(data: TaskData) -> str:
    """What the target is when it is not numeric, for messages: its kind and classes (when
    they are known)."""
    if data.classes is None:
        return data.kind
    classes = data.classes
    return f"{data.kind} with {plural(len(classes), 'class')} ({shown(classes, 5)})"


def numbers_only(source: str, target: str, why: str, algorithm: str) -> DataError:
    """The error of an ``algorithm`` that learns only numbers (m5) given a class target
    (``why``: :func:`class_target`), the counterpart of :func:`classes_only`."""
    return DataError(
        f"{source}: target {target!r} is {why}: {ALGORITHMS[algorithm].label} learns numeric "
        f"targets; use --algorithm {_class_learners()} for classes",
        column=target,
        source=source,
    )


def shown(labels, limit: int = 10) -> str:
    labels = [str(label) for label in labels]
    more = f", ... ({len(labels) - limit} more)" if len(labels) > limit else ""
    return ", ".join(labels[:limit]) + more


def task_line(data: TaskData, regression: bool, algorithm: str, estimator, others=()) -> str:
    """One line saying what is learned from what, and with which estimator (``others``: the
    other algorithms of the run, whose task it is too): a regression of the target and what
    makes it one, else a classification into its classes (those of ``data``, else those
    the fitted ``estimator`` learned)."""
    if regression:
        lead = next((a for a in (algorithm, *others) if learns_numbers_only(a)), algorithm)
        what = f"regression of {data.target!r} ({regression_why(data, lead)})"
    else:
        labels = data.classes if data.classes is not None else list(estimator.classes_)
        what = (
            f"classification of {data.target!r} into {plural(len(labels), 'class')} "
            f"({shown(labels)}"
        )
        if data.kind == NUMERIC_KIND:
            what += "; a numeric target with few integer values, taken as classes"
        what += ")"
    shape = f"{plural(data.n_rows, 'row')} x {plural(data.n_attributes, 'attribute')}"
    return f"task: {what} with {algorithm_name(algorithm, estimator)}, {shape}\n"


# -- reading and writing ------------------------------------------------------------------------


def read_data(path: str, target: str | None, nominal=None, ordinal=None) -> Table:
    """``read_table(path, target=target, nominal=..., ordinal=...)`` (target ``None``: the
    last column); its warnings and errors are passed on naming the file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = _read_naming_file(path, target, nominal=nominal, ordinal=ordinal)
    for warning in caught:
        message = str(warning.message)
        if path not in message:
            message = f"{path}: {message}"
        warnings.warn(message, warning.category, stacklevel=2)
    return table


def read_features(
    path: str, schema: Schema, keep: list[str] = (), text: list[str] = ()
) -> pd.DataFrame:
    """The features of the data file ``path`` (its target column, if any, is left to the
    estimator, which ignores columns it was not trained on), and the columns ``keep``, as
    :func:`read_for_model` reads them."""
    return read_for_model(path, schema, keep=keep, text=text).X


def read_for_model(
    path: str, schema: Schema, target=False, keep: list[str] = (), text: list[str] = ()
) -> Table:
    """The data file ``path`` read for a model of ``schema``: its features, the columns
    ``keep`` (a :class:`DataError` naming one that is absent) and, unless ``target`` is
    False, the target (None: the last column), as :func:`read_data` reads them. The
    columns ``text`` of ``keep`` that the model does not read are read as text, each value
    the text of its cell (an id column; missing cells are missing).

    The kinds are known: columns that were nominal with text categories in training (and a
    target whose classes were text) are read as text, so that category codes like ``2`` or
    ``01`` match the training categories whatever the other values of the file look like,
    and so that a column the model reads as categories is not said again to mix numbers
    and words. Warnings about columns the model does not read (an empty target column of
    data to predict, say) are dropped; the others are passed on naming the file.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = _read_naming_file(path, target)
    for name in keep:
        if name not in table.X.columns:
            raise DataError(
                f"{path}: column {name!r} not found; columns are {list(table.X.columns)}",
                column=name,
                source=path,
            )
    as_text = [
        f.name
        for f in schema.features
        if f.kind != NUMERIC_KIND
        and f.name in table.X.columns
        and all(isinstance(c, str) for c in f.categories)
    ]
    as_text += [name for name in text if name not in schema.names]
    retype = [n for n in as_text if not _is_text(table.X[n])]
    read_target = table.schema.target
    if read_target is not None and schema.classes is not None:
        if all(isinstance(c, str) for c in schema.classes):
            as_text.append(read_target)
            if not _is_text(table.y):
                retype.append(read_target)
    if retype or (caught and as_text):  # again, those columns as text: what still applies
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = _read_naming_file(path, target, nominal=as_text)
    read = {*schema.names, read_target}
    for warning in caught:
        message = str(warning.message)
        named = _NAMED_COLUMN.findall(message)
        if not named or set(named) & read:
            if path not in message:
                message = f"{path}: {message}"
            warnings.warn(message, warning.category, stacklevel=2)
    return table


def cell_text(path: str, X: pd.DataFrame, name: str) -> np.ndarray:
    """Column ``name`` of the data file ``path`` as the text of its cells (a missing cell:
    NaN), to copy it as it is written (an id, ``9`` not ``9.0``): from ``X`` when
    :func:`read_for_model` read it as text, else (a column the model reads as numbers)
    read again as text."""
    column = X[name]
    if not _is_text(column):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # said when the file was read for the model
            column = _read_naming_file(path, False, nominal=[name]).X[name]
    return column.to_numpy(dtype=object)


def _is_text(column: pd.Series) -> bool:
    """Whether a typed column holds categories that are all text."""
    dtype = column.dtype
    return isinstance(dtype, pd.CategoricalDtype) and all(
        isinstance(c, str) for c in dtype.categories
    )


def _read_naming_file(path: str, target, **columns) -> Table:
    """``read_table(path, target=target, **columns)`` (``nominal=``, ``ordinal=``), its
    errors naming the file."""
    try:
        return read_table(path, target=target, **columns)
    except DataError as exc:
        if path in str(exc):
            raise
        raise DataError(f"{path}: {exc}", column=exc.column, source=path) from None


_NAMED_COLUMN = re.compile(r"column '([^']*)'")
