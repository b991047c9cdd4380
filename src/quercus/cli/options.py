"""What the parser of ``quercus`` holds and checks, with nothing heavier than the standard
library.

argparse builds every subcommand's parser before it parses, and runs the ``type=``
functions as it parses: the algorithm names, ``show``'s formats, ``tune``'s default grids
and the functions that read ``--set``, ``--grid``, ``--algorithm`` and ``--dask`` values
are here, so that ``quercus --help``, ``quercus COMMAND --help`` and a usage error import
neither pandas, scikit-learn nor Numba. The subcommands' modules, which do, are imported
when one runs (:func:`quercus.cli.main`); they take these names from here.
"""

from __future__ import annotations

import argparse
import ast
from typing import NamedTuple

from .._grids import DEFAULT_GRIDS


class UsageError(Exception):
    """A command line that cannot mean anything (exit status 2, like argparse's errors)."""


def parse_value(text: str):
    """A ``--set`` (or ``--grid``) value: a Python literal where it is one (``3``, ``0.5``,
    ``None``, ``True``, ``'gini'``, ``[0, 1]``), else the text itself (``entropy``)."""
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


# -- the algorithms -----------------------------------------------------------------------------


class AlgorithmClasses(NamedTuple):
    """One ``--algorithm``: the name people use, and the names of its classifier's class (if
    it has one) and its regressor's (if it has one), which
    :data:`quercus.cli.tasks.ALGORITHMS` resolves. An algorithm without a classifier learns
    numeric targets only (M5's model trees)."""

    label: str
    classifier: str | None
    regressor: str | None = None


#: Each ``--algorithm`` by the name the command line takes, in the order help lists them.
ALGORITHM_CLASSES = {
    "id3": AlgorithmClasses("ID3", "ID3Classifier"),
    "c45": AlgorithmClasses("C4.5", "C45Classifier"),
    "c45rules": AlgorithmClasses("C4.5rules", "C45RulesClassifier"),
    "cart": AlgorithmClasses("CART", "CARTClassifier", "CARTRegressor"),
    "forest": AlgorithmClasses("random forest", "RandomForestClassifier", "RandomForestRegressor"),
    "m5": AlgorithmClasses("M5 model tree", None, "ModelTreeRegressor"),
    "boost": AlgorithmClasses(
        "gradient boosting", "GradientBoostingClassifier", "GradientBoostingRegressor"
    ),
}


# -- quercus show --------------------------------------------------------------------------------

FORMATS = ("text", "rules", "dot", "svg", "png", "json", "weka")


# -- quercus fit --dask ------------------------------------------------------------------------


class DaskAddress(NamedTuple):
    """Where ``--dask`` fits: a scheduler's address, or a local cluster of ``n_workers``
    processes (None: one per core)."""

    scheduler: str | None
    n_workers: int | None = None

    def __str__(self) -> str:
        if self.scheduler is not None:
            return self.scheduler
        return "local" if self.n_workers is None else f"local:{self.n_workers}"


def parse_address(text: str) -> DaskAddress:
    """``--dask``'s value: ``local``, ``local:N`` or a scheduler address; argparse reports a
    bad one."""
    text = text.strip()
    if not text:
        raise argparse.ArgumentTypeError(
            "expected a scheduler address (tcp://host:8786), local or local:N"
        )
    name, sep, count = text.partition(":")
    if name != "local":
        return DaskAddress(text)
    if not sep:
        return DaskAddress(None)
    if not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(
            f"expected local:N with N the number of worker processes (>= 1), got {text!r}"
        )
    return DaskAddress(None, int(count))


# -- quercus tune --------------------------------------------------------------------------------


def parse_algorithms(text: str) -> list[str]:
    """``--algorithm c45,cart`` as ``["c45", "cart"]``; argparse reports an unknown name."""
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if name not in ALGORITHM_CLASSES:
            raise argparse.ArgumentTypeError(
                f"unknown algorithm {name!r}: choose from {', '.join(ALGORITHM_CLASSES)}"
            )
    return names


def _split_top_level(text: str) -> list[str]:
    """``text`` cut at the commas that are not inside brackets or quotes
    (``2,[0, 1],'a,b'`` -> ``2``, ``[0, 1]``, ``'a,b'``)."""
    parts, depth, quote, start = [], 0, None, 0
    for i, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_grid(text: str) -> tuple[str, list]:
    """``--grid name=v1,v2,...`` as ``(name, [v1, v2, ...])``, each value a Python literal
    where it is one (as ``--set``'s); argparse reports a bad one."""
    name, sep, values = text.partition("=")
    name = name.strip()
    pieces = [piece.strip() for piece in _split_top_level(values)]
    if not sep or not name.isidentifier() or not all(pieces):
        raise argparse.ArgumentTypeError(
            f"expected name=value,value,... (for example max_depth=2,4,None), got {text!r}"
        )
    parsed = [parse_value(piece) for piece in pieces]
    for i, value in enumerate(parsed):
        if any(_same(value, other) for other in parsed[:i]):
            raise argparse.ArgumentTypeError(f"--grid {name} repeats the value {pieces[i]}")
    return name, parsed


def _same(a, b) -> bool:
    """Equal and of the same type (``1`` and ``True``, ``1`` and ``1.0`` are different
    values of a parameter)."""
    return type(a) is type(b) and a == b


def value_text(value) -> str:
    """A parameter value as ``tune`` prints it: text as it is, anything else as its repr."""
    return value if isinstance(value, str) else repr(value)


def _grid_text(grid: list[dict]) -> str:
    """A grid as help shows it: ``a=1|2, b=x`` (``{...} or {...}`` for several)."""
    entries = [
        ", ".join(f"{name}={'|'.join(value_text(v) for v in values)}" for name, values in e.items())
        for e in grid
    ]
    return " or ".join(f"{{{entry}}}" if len(grid) > 1 else entry for entry in entries)


def _default_grids_help() -> str:
    """Each algorithm's default grid, and its regressor's where it has one of its own (an
    algorithm without a classifier: its regressor's alone), in one text."""
    parts = []
    for name, entry in ALGORITHM_CLASSES.items():
        if entry.classifier is None:
            parts.append(f"{name} (regression only): {_grid_text(DEFAULT_GRIDS[entry.regressor])}")
            continue
        grids = [f"{_grid_text(DEFAULT_GRIDS[entry.classifier])}"]
        own = DEFAULT_GRIDS.get(entry.regressor) != DEFAULT_GRIDS[entry.classifier]
        if entry.regressor is not None and own:
            grids.append(f"for regression {_grid_text(DEFAULT_GRIDS[entry.regressor])}")
        parts.append(f"{name}: {'; '.join(grids)}")
    return ". ".join(parts) + "."


#: ``quercus tune --help``'s list of the grids searched without ``--grid``.
DEFAULT_GRIDS_HELP = _default_grids_help()
