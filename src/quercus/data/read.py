"""Reading tables: CSV, ARFF, Parquet files, pandas DataFrames and NumPy arrays.

Parsers: pandas for CSV and Parquet (Parquet through pyarrow, an optional extra), and
``liac-arff`` for ARFF (Weka's format), the parser OpenML relies on: it keeps nominal
declarations in their declared order and handles quoting, ``%`` comments, ``?``, string
attributes and the sparse layout.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._config import MISSING_STRINGS
from .c45 import read_c45
from .errors import DataError, DataWarning
from .schema import (
    NOMINAL_KIND,
    NUMERIC_KIND,
    Schema,
    check_column_names,
    column_at,
    column_selection,
    is_position,
    ordinal_selection,
    type_frame,
)


@dataclass
class Table:
    """A typed table: features ``X``, target ``y`` (or ``None``) and their :class:`Schema`.

    ``X`` holds numeric columns as float64 (NaN = missing) and nominal/ordinal columns as
    pandas Categoricals with their categories in order; estimators take it as it is.
    Unpacks as ``X, y = read_table(...)``.
    """

    X: pd.DataFrame
    y: pd.Series | None
    schema: Schema
    source: str = "<data>"

    def __iter__(self) -> Iterator:
        yield self.X
        yield self.y

    def __len__(self) -> int:
        return len(self.X)


_FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".arff": "arff",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".names": "c45",
    ".data": "c45",
    ".test": "c45",
}
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zip", ".zst")


def check_readable(source) -> str:
    """``source`` as a path string, or a DataError naming it when it is no file that can be
    read (missing, a directory, no permission)."""
    path = str(source)
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file", source=path)
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a data file", source=path)
    if not os.access(path, os.R_OK):
        raise DataError(f"{path}: permission denied", source=path)
    return path


def detect_format(path: str | os.PathLike) -> str:
    """The format of a file from its name (compression suffixes are looked through)."""
    name = Path(path).name.lower()
    for comp in _COMPRESSIONS:
        if name.endswith(comp):
            name = name[: -len(comp)]
    fmt = _FORMATS.get(Path(name).suffix)
    if fmt is None:
        raise DataError(
            f"{path}: unknown file type {Path(name).suffix or '(none)'!r}; "
            "give format='csv', 'tsv', 'arff', 'parquet' or 'c45'",
            source=str(path),
        )
    return fmt


def read_table(
    source,
    target: str | int | bool | None = None,
    nominal: Iterable | None = None,
    ordinal: Mapping | None = None,
    *,
    format: str | None = None,
    columns: list[str] | None = None,
    sep: str | None = None,
) -> Table:
    """Read a table and infer its schema.

    Parameters
    ----------
    source : path, pandas.DataFrame or numpy.ndarray
        A CSV/TSV (optionally compressed), ARFF or Parquet file, C4.5's ``.names`` with
        ``.data`` (or a ``.data``/``.test`` file beside its ``.names``), or data in memory.
    target : str, int, bool or None, default None
        The target column, by name or position. ``None`` takes the last column (the
        convention of Weka and of the data sets shipped with quercus); ``False`` reads a
        table without a target (data to predict).
    nominal : str, int or iterable of str or int, optional
        Columns to treat as nominal whatever they look like (for example numeric codes), by
        name or position. A string is one column name (``"ab"`` is the column ``ab``).
    ordinal : mapping of column -> list of levels, optional
        Ordinal columns (by name or position) with their levels from lowest to highest.
    format : {'csv', 'tsv', 'arff', 'parquet', 'c45'}, optional
        File format; by default taken from the file name.
    columns : list of str, optional
        Column names for a NumPy array (default ``x0, x1, ...``); a string is one name.
    sep : str, optional
        Field separator for text files (default ``,``; tab for ``.tsv``).

    Returns
    -------
    Table
        ``X`` (typed DataFrame), ``y`` (Series or None) and ``schema``.

    Notes
    -----
    Missing values are NaN, None, an empty cell or ``?``. Rows whose target is missing are
    dropped with a warning that says how many. A column that mixes numbers and words is read
    as nominal, with a warning unless its values read as labels (a few whole numbers beside
    words, as car's doors 2, 3, 4, 5more: :func:`~quercus.data.schema.reads_as_labels`);
    infinite values, duplicate or blank column names, a missing target column and an empty
    table are errors that name the column or file at fault. A position (``target``,
    ``nominal``, ``ordinal``) counts from 0, or from -1 at the end; one beyond the table is
    an error naming it and the number of columns. An integer too large for a float (309
    digits or more) is an error naming its column, row and value, as ``1e400`` is; shorter
    ones are numbers, rounded to the nearest float as every decimal number is (a column
    declared nominal keeps them as text, as labels). In a text file, a row with more
    fields than the header is an error naming its line; a row with fewer has its last
    values missing (as ``1,2`` under ``a,b,c`` reads ``c`` as missing, the convention of
    pandas and R that lets a writer omit trailing empty cells).
    With ``target=False`` (data to predict) a table may have no rows.
    """
    frame, name, declared = _load(source, format=format, columns=columns, sep=sep, nominal=nominal)
    if frame.shape[1] == 0:
        raise DataError(
            f"{name}: no columns (a table needs at least one attribute column)", source=name
        )
    names = check_column_names(frame.columns, source=name)
    frame.columns = names
    target_name = resolve_target(target, names, name)
    if target_name is not None and len(names) == 1:
        raise DataError(
            f"{name} has only the target column {target_name!r}: no attribute to learn from",
            column=target_name,
            source=name,
        )
    if len(frame) == 0 and target is not False:  # data to predict may have no rows
        raise DataError(f"{name}: no rows (the table has a header but no data)", source=name)

    try:
        nominal, ordinal = selection_by_name(names, nominal, ordinal)
    except DataError as exc:
        raise _naming_file(exc, name) from None
    nominal += [c for c in declared if c not in nominal and c not in (ordinal or {})]

    y = None
    if target_name is not None:
        frame, y = _split_target(frame, target_name, name)
    try:
        X, features = type_frame(
            frame.drop(columns=[target_name]) if target_name else frame,
            nominal=[c for c in nominal if c != target_name],
            ordinal={k: v for k, v in (ordinal or {}).items() if k != target_name},
        )
        target_kind = classes = None
        if y is not None:
            y, target_kind, classes = _type_target(
                y,
                target_name,
                force_nominal=target_name in nominal,
                levels=(ordinal or {}).get(target_name),
            )
    except DataError as exc:
        raise _naming_file(exc, name) from None
    schema = Schema(tuple(features), target_name, target_kind, classes)
    return Table(X, y, schema, source=name)


def selection_by_name(names: list[str], nominal, ordinal) -> tuple[list[str], Mapping | None]:
    """``nominal`` and ``ordinal`` (as :func:`read_table` takes them) with every column
    given by position named instead: a string is one column name, and a position beyond
    ``names`` is an error naming it (names not among ``names`` are left for
    :func:`~quercus.data.schema.type_frame` to name)."""

    def by_name(key, what: str) -> str:
        return column_at(names, key, what) if is_position(key) else str(key)

    if ordinal:
        ordinal = {by_name(k, "ordinal"): v for k, v in ordinal_selection(ordinal).items()}
    nominal = [by_name(k, "nominal") for k in column_selection(nominal, "nominal")]
    return nominal, ordinal


def _naming_file(exc: DataError, name: str) -> DataError:
    """``exc`` with the file name in front of its message (the column checks of
    :mod:`.schema` know the column, not the file); data in memory is left as it is."""
    if name.startswith("<") or str(exc).startswith(name):
        return exc
    return DataError(f"{name}: {exc}", column=exc.column, source=name)


# ---------------------------------------------------------------------------------------------
# Loading raw frames


def _load(source, *, format, columns, sep, nominal):
    """A raw DataFrame, a display name, and the columns the source declares nominal."""
    if isinstance(source, pd.DataFrame):
        return source.copy(), "<DataFrame>", []
    if isinstance(source, np.ndarray):
        return _from_array(source, columns), "<array>", []
    if not isinstance(source, str | os.PathLike):
        raise DataError(
            f"cannot read a table from {type(source).__name__}: give a file path, "
            "a pandas DataFrame or a NumPy array"
        )
    path = check_readable(source)
    fmt = format or detect_format(path)
    try:
        if fmt in ("csv", "tsv"):
            return _read_csv(path, sep or ("\t" if fmt == "tsv" else ","), nominal), path, []
        if fmt == "arff":
            frame, declared = _read_arff(path)
            return frame, path, declared
        if fmt == "parquet":
            return _read_parquet(path), path, []
        if fmt == "c45":
            frame, nominal, _ = read_c45(path)
            return frame, path, nominal
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position {exc.start}); "
            "save the file as UTF-8",
            source=path,
        ) from None
    except (OSError, EOFError) as exc:
        raise DataError(f"{path}: cannot be read ({exc})", source=path) from None
    raise DataError(f"unknown format {fmt!r}; use 'csv', 'tsv', 'arff' or 'parquet'", source=path)


def _from_array(array: np.ndarray, columns) -> pd.DataFrame:
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise DataError(f"a table must be 2-dimensional, got an array of shape {array.shape}")
    if columns is None:
        columns = [f"x{i}" for i in range(array.shape[1])]
    columns = column_selection(columns, "columns")  # a string is one name
    if len(columns) != array.shape[1]:
        raise DataError(
            f"{len(columns)} column name{'' if len(columns) == 1 else 's'} given for "
            f"{array.shape[1]} column{'' if array.shape[1] == 1 else 's'}"
        )
    return pd.DataFrame(array, columns=columns)


# pandas' message for a row longer than the first: "Expected 3 fields in line 4, saw 5".
_FIELD_COUNT = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read_csv(path: str, sep: str, nominal) -> pd.DataFrame:
    # The python engine reads separators of more than one character (the C engine would
    # fall back to it with a warning).
    options = {"sep": sep, "skipinitialspace": True, "engine": "c" if len(sep) == 1 else "python"}
    # One pass over the whole file: in chunks, the C engine may type one column twice
    # (numbers in one chunk, text in the next) and warn about it.
    whole = {"low_memory": False} if options["engine"] == "c" else {}
    header, width = _csv_header(path, options)
    names = check_column_names(header, source=path, place="in the header")
    # Fields beyond the header's (trailing separators, as some programs write them) are read
    # into spare columns that must stay empty: given fewer names than fields, pandas would
    # silently take the first columns as the row index and shift every name.
    spare = [f"spare {i}" for i in range(width - len(names))]
    while set(spare) & set(names):
        spare = ["_" + s for s in spare]
    # Columns forced nominal are read as text, so that codes like '01' keep their spelling.
    as_text = {}
    for key in column_selection(nominal, "nominal"):
        # (A position out of range is named by selection_by_name, after reading.)
        col = names[key] if is_position(key) and -len(names) <= key < len(names) else str(key)
        if col in names:
            as_text[col] = str

    def read(dtype):
        return pd.read_csv(
            path,
            header=0,
            names=names + spare,
            index_col=False,
            dtype={**dtype, **dict.fromkeys(spare, str)},
            keep_default_na=False,
            na_values=list(MISSING_STRINGS),
            **whole,
            **options,
        )

    try:
        frame = read(as_text)
        # pandas turns TRUE/False/... into booleans: keep such words as they are written.
        booleans = [c for c in frame.columns if pd.api.types.is_bool_dtype(frame[c].dtype)]
        if booleans:
            frame = read({**as_text, **dict.fromkeys(booleans, str)})
    except pd.errors.ParserError as exc:
        raise _csv_error(path, exc, len(names)) from None
    for column in spare:
        filled = frame[column].map(lambda v: not pd.isna(v) and bool(str(v).strip()))
        filled = filled.to_numpy(dtype=bool)
        if filled.any():
            row = int(np.flatnonzero(filled)[0])
            raise DataError(
                f"{path}: data row {row + 1} has a value ({frame[column].iloc[row]!r}) beyond "
                f"the last column {names[-1]!r}: the header names {len(names)} columns "
                f"(a column without a name, or a value holding an unquoted {sep!r}?)",
                source=path,
            )
    frame = frame.drop(columns=spare)
    for column in frame.columns:
        dtype = frame[column].dtype
        if column not in as_text and (
            pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype)
        ):
            frame[column] = _big_integers(frame[column])
    return frame


def _big_integers(column: pd.Series) -> pd.Series:
    """The column as float64 if it holds only integers, else as it is: pandas leaves integers
    as text when they fit neither int64 nor uint64 (2**64 beside -1), and a column of
    numbers must not become a nominal one for that."""
    integer = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")  # ASCII: float() agrees
    # (pandas may leave the missing markers in such a column as they are.)
    present = [
        v for v in column.dropna() if not (isinstance(v, str) and v.strip() in MISSING_STRINGS)
    ]
    # The first value settles most columns (words) without a pass over all of them.
    if not present or not integer.fullmatch(str(present[0])):
        return column
    if not all(isinstance(v, str) and integer.fullmatch(v) for v in present):
        return column
    return column.map(
        lambda v: np.nan if pd.isna(v) or v.strip() in MISSING_STRINGS else float(v)
    ).astype(np.float64)


def _csv_header(path: str, options: dict) -> tuple[list[str], int]:
    """The header's cells as written, and how many fields a row may have: the header's, or
    more when the first data row is longer (trailing separators)."""

    def first(nrows):
        return pd.read_csv(
            path, header=None, nrows=nrows, dtype=str, keep_default_na=False, **options
        )

    try:
        try:
            rows = first(2)
            width = rows.shape[1]
        except pd.errors.ParserError as exc:
            match = _FIELD_COUNT.search(str(exc))
            if match is None:
                raise
            rows = first(1)
            width = int(match.group(3))
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty", source=path) from None
    except pd.errors.ParserError as exc:
        raise _csv_error(path, exc, None) from None
    return rows.iloc[0].tolist(), width


def _csv_error(path: str, exc: Exception, n_names: int | None) -> DataError:
    """A parser error as a DataError naming the file (and the line, where pandas says it)."""
    match = _FIELD_COUNT.search(str(exc))
    if match is not None and n_names is not None:
        line, saw = match.group(2), match.group(3)
        return DataError(
            f"{path}: line {line} has {saw} fields, but the header names {n_names} columns",
            source=path,
        )
    reason = " ".join(str(exc).split())
    return DataError(f"{path}: not a valid CSV file ({reason})", source=path)


def _read_arff(path: str) -> tuple[pd.DataFrame, list[str]]:
    import arff  # liac-arff

    decoder = arff.ArffDecoder()
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        parsed = decoder.decode(text, encode_nominal=False, return_type=arff.DENSE)
    except arff.ArffException as exc:
        raise DataError(
            f"{path}: not a valid ARFF file ({_arff_reason(exc)})", source=path
        ) from None
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        # liac-arff lets a few errors of its own parsing through as they are (an
        # "@attribute" line without a name, an unknown escape like '\q'): show the line.
        line = getattr(decoder, "_current_line", 0)
        lines = text.strip("\r\n ").split("\n")  # as liac-arff counts them
        shown = f"line {line}, {lines[line - 1].strip()[:60]!r}: " if 0 < line <= len(lines) else ""
        raise DataError(f"{path}: not a valid ARFF file ({shown}{exc})", source=path) from None
    columns, declared = {}, []
    attributes = parsed["attributes"]
    check_column_names(
        [a[0] for a in attributes], source=path, place="in its @attribute declaration"
    )
    data = parsed["data"]
    for j, (name, kind) in enumerate(attributes):
        values = [row[j] for row in data]
        if isinstance(kind, list | tuple):  # nominal: {a, b, c} in declared order
            if any(v is None or not str(v).strip() for v in kind):
                raise DataError(
                    f"{path}: attribute {name!r} declares an empty value among its values "
                    f"{list(kind)}",
                    column=name,
                    source=path,
                )
            twice = sorted({v for v in kind if list(kind).count(v) > 1})
            if twice:
                raise DataError(
                    f"{path}: attribute {name!r} declares the value {twice[0]!r} twice",
                    column=name,
                    source=path,
                )
            columns[name] = pd.Categorical(values, categories=list(kind))
            declared.append(name)
        elif str(kind).upper() in ("NUMERIC", "REAL", "INTEGER"):
            columns[name] = _arff_numbers(path, name, values)
        elif str(kind).upper() == "STRING":
            columns[name] = pd.Series(values, dtype=object)
        else:
            raise DataError(
                f"{path}: attribute {name!r} has type {kind}, which quercus does not read "
                "(use NUMERIC, a nominal {...} list or STRING)",
                column=name,
                source=path,
            )
    return pd.DataFrame(columns), declared


def _arff_reason(exc) -> str:
    """liac-arff's message; it formats the line number into the message with ``%``, which
    fails when the bad line itself holds a ``%``."""
    try:
        return str(exc)
    except (TypeError, ValueError):
        message = str(getattr(exc, "message", "") or type(exc).__name__)
        return message.replace("%d", str(getattr(exc, "line", "?")), 1)


def _arff_numbers(path: str, name: str, values: list):
    """A numeric attribute's values as float64; liac-arff hands some values it could not
    convert back as text."""
    numbers = []
    for row, v in enumerate(values):
        try:
            numbers.append(np.nan if v is None else float(v))
        except (TypeError, ValueError):
            raise DataError(
                f"{path}: attribute {name!r} is numeric but holds {v!r} in data row {row + 1}",
                column=name,
                source=path,
            ) from None
    return pd.array(numbers, dtype=np.float64)


def _read_parquet(path: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(
            f"{path}: reading Parquet needs pyarrow: pip install 'quercus[parquet]'", source=path
        ) from None
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise DataError(f"{path}: not a valid Parquet file ({exc})", source=path) from None


# ---------------------------------------------------------------------------------------------
# Target


def resolve_target(target, names: list[str], source: str) -> str | None:
    """The name of the target column among ``names``: None for ``target=False`` (no
    target), the last column for None or True, else the column at a position or of a name;
    a column not found is an error starting with ``source``."""
    if target is False:
        return None
    if target is None or target is True:
        return names[-1]
    if is_position(target):
        try:
            return column_at(names, target, "target")
        except DataError as exc:
            raise DataError(f"{source}: {exc}", source=source) from None
    if str(target) not in names:
        raise DataError(
            f"{source}: target column {str(target)!r} not found; columns are {names}",
            column=str(target),
            source=source,
        )
    return str(target)


def _split_target(frame: pd.DataFrame, target: str, source: str):
    y = frame[target]
    missing = y.isna()
    if y.dtype == object or pd.api.types.is_string_dtype(y.dtype):
        missing |= y.astype(object).map(
            lambda v: isinstance(v, str) and v.strip() in MISSING_STRINGS
        )
    missing = missing.to_numpy(dtype=bool)
    if missing.all():
        raise DataError(
            f"{source}: target column {target!r} is entirely missing", column=target, source=source
        )
    if missing.any():
        warnings.warn(
            f"{source}: dropped {int(missing.sum())} of {len(frame)} rows whose target "
            f"{target!r} is missing",
            DataWarning,
            stacklevel=3,
        )
        frame = frame.loc[~missing].reset_index(drop=True)
    return frame, frame[target]


def _type_target(y: pd.Series, name: str, *, force_nominal: bool, levels):
    typed, feature_list = type_frame(
        y.to_frame(name),
        nominal=[name] if force_nominal else None,
        ordinal={name: levels} if levels is not None else None,
    )
    feature = feature_list[0]
    column = typed[name]
    if feature.kind == NUMERIC_KIND:
        return column.rename(name), NUMERIC_KIND, None
    # Class labels keep the declared order; labels declared but never seen are dropped.
    seen = set(column.dropna().unique())
    classes = tuple(c for c in feature.categories if c in seen)
    column = column.cat.set_categories(list(classes))
    return column.rename(name), NOMINAL_KIND, classes
