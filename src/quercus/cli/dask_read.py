"""DATA of ``quercus fit --dask`` read by ``dask.dataframe``, and the errors of reading it.

DATA is a Parquet file or directory, a CSV (or TSV) file, or a glob of either, or a URL that
the workers read (``s3://...``). :func:`data_files` says which files it names before any
cluster is started, :func:`read_frame` reads them as a Dask DataFrame (its rows stay on
the workers), and :func:`dask_read_errors` turns what goes wrong when the workers read them
into :class:`~quercus.data.DataError`\\ s naming the file (and, for a CSV column that Dask
typed as numbers from its first rows, the column, the line and the value).
"""

from __future__ import annotations

import glob
import os
import re
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._config import MISSING_STRINGS
from ..data import DataError
from ..data.read import check_readable, detect_format

_GLOB = re.compile(r"[*?\[]")


class DataFiles(NamedTuple):
    """What DATA names: ``paths`` (files, a Parquet directory, or a URL that Dask reads) in
    one ``format``, 'csv', 'tsv' or 'parquet'; ``name``: DATA as given."""

    name: str
    format: str
    paths: list[str]


def data_files(path: str) -> DataFiles:
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
    return DataFiles(path, fmt, matches)


def read_frame(files: DataFiles, nominal) -> object:
    """DATA as a ``dask.dataframe.DataFrame``: Parquet as it is stored; CSV with the
    command line's missing-value markers, columns forced ``nominal`` read as text (so codes
    like ``01`` keep their spelling) and integer columns read as floats."""
    import dask.dataframe as dd

    paths = files.paths[0] if len(files.paths) == 1 else files.paths
    try:
        if files.format == "parquet":
            return dd.read_parquet(paths)
        options = {
            "sep": "\t" if files.format == "tsv" else ",",
            "skipinitialspace": True,
            "keep_default_na": False,
            "na_values": list(MISSING_STRINGS),
        }
        if any(p.lower().endswith((".gz", ".bz2", ".xz", ".zip", ".zst")) for p in files.paths):
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
        raise DataError(f"{files.name}: the file is empty", source=files.name) from None
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        kind = "Parquet" if files.format == "parquet" else "CSV"
        raise DataError(
            f"{files.name}: not readable as {kind} by dask.dataframe ({_one_line(exc)})",
            source=files.name,
        ) from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


@contextmanager
def dask_read_errors(files: DataFiles, frame, client):
    """The errors of reading DATA (``frame``) on the cluster as :class:`DataError`\\ s
    naming the file, and for a CSV column that Dask typed as numbers from the first rows,
    the column, the line and the value."""
    try:
        yield
    except pd.errors.ParserError as exc:
        raise DataError(
            f"{files.name}: not a valid CSV file ({_one_line(exc)})", source=files.name
        ) from None
    except ValueError as exc:
        # Dask's check of a block's types, or pandas' own when reading a block as numbers.
        words = ("Mismatched dtypes", "could not convert string to float")
        if isinstance(exc, DataError) or not any(w in str(exc) for w in words):
            raise
        raise _words_in_numbers(files, frame, exc, client) from None


def _words_in_numbers(files: DataFiles, frame, exc: ValueError, client) -> DataError:
    """The error of a CSV column that Dask typed as numbers from the first rows, whose later
    rows hold words: a column of numbers and words, which a local read takes for nominal."""
    advice = (
        "a column of numbers and words is nominal: give --nominal {}, or write the data as "
        "Parquet, which stores each column's type"
    )
    numeric = [str(c) for c, t in frame.dtypes.items() if pd.api.types.is_numeric_dtype(t)]
    found = []
    if files.format != "parquet" and numeric:
        sep = "\t" if files.format == "tsv" else ","
        futures = client.map(_first_word, files.paths, columns=numeric, sep=sep, pure=False)
        found = [where for where in client.gather(futures) if where is not None]
    if not found:
        return DataError(
            f"{files.name}: a column typed as numbers from the first rows of the data holds "
            f"words further on ({_one_line(exc)}); {advice.format('COLUMN')}",
            source=files.name,
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
