"""A standing fuzz guard for the readers: valid CSV, ARFF and Parquet files, damaged at
random (bytes flipped, inserted or deleted, the file cut short, lines duplicated, rows made
ragged, cells and header names replaced by odd text), must each give a Table or a DataError
that names the file, and no warning but quercus's own DataWarning about the data.

Derandomized and without Hypothesis's example database, so every run (and CI) tries the
same files; about 150 files per format keep it to a few seconds.
"""

import importlib.util
import io
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quercus.data import DataError, DataWarning, Table, read_table

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CSV = (
    b"outlook,temp,humidity,windy,code,play\n"
    b"sunny,85,85.5,FALSE,01,no\n"
    b"sunny,80,90,TRUE,02,no\n"
    b"overcast,83,,FALSE,03,yes\n"
    b'rainy,70,96,FALSE,"04",yes\n'
    b"rainy,68,80,?,05,yes\n"
    b"rainy,65,70,TRUE,06,no\n"
    b'"over, cast",64,65,TRUE,07,yes\n'
    b"sunny,-1e308,95,FALSE,08,no\n"
    b"sunny,1e308,70,FALSE,09,yes\n"
)

ARFF = (
    b"% the weather\n"
    b"@relation weather\n"
    b"@attribute outlook {sunny, overcast, rainy}\n"
    b"@attribute temperature numeric\n"
    b"@attribute 'rel humidity' real\n"
    b"@attribute note string\n"
    b"@attribute play {yes, no}\n"
    b"@data\n"
    b"sunny,85,85,'hot day',no\n"
    b"sunny,80,90,?,no\n"
    b"overcast,83,?,'x, y',yes\n"
    b"rainy,70,96,plain,yes\n"
    b"rainy,-1e308,80,plain,yes\n"
    b"?,65,70,'',no\n"
)


def _parquet() -> bytes | None:
    if importlib.util.find_spec("pyarrow") is None:
        return None
    frame = pd.DataFrame(
        {
            "outlook": pd.Categorical(["sunny", "rainy", "overcast", None]),
            "temp": [85.0, None, 1e308, -1e308],
            "count": [1, 2, 3, 4],
            "windy": [True, False, True, False],
            "play": ["no", "yes", "yes", None],
        }
    )
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    return buffer.getvalue()


PARQUET = _parquet()


# Text that trips parsers: separators, quotes, markers of missing values, huge and odd
# numbers, white space, and characters from beyond ASCII.
ODD_TEXT = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "?",
            ",",
            '"',
            "'",
            '"a,b"',
            "\t",
            "\n",
            "\r\n",
            "inf",
            "-inf",
            "nan",
            "NaN",
            "1e309",
            "1e308",
            "-1.7976931348623157e308",
            "5e-324",
            "99999999999999999999999",
            "0x10",
            "TRUE",
            "None",
            "%",
            "@data",
            "{",
            "}",
            "Unnamed: 0",
            "\ufeff",
            "\x00",
            "é",
            "日本",
            "\U0001f333",
        ]
    ),
    st.text(max_size=8),
)


@st.composite
def mutated(draw, data: bytes, text: bool) -> bytes:
    """``data`` after one to three random mutations (line- and cell-wise ones for text)."""
    byte_ops = ["flip", "insert", "delete", "truncate"]
    ops = byte_ops + (["duplicate", "drop", "ragged", "cell", "header"] if text else [])
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(ops))
        if not data:
            data = draw(st.binary(max_size=16))
            continue
        at = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        elif op == "insert":
            insert = draw(st.one_of(st.binary(min_size=1, max_size=8), ODD_TEXT.map(str.encode)))
            data = data[:at] + insert + data[at:]
        elif op == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 16)) :]
        elif op == "truncate":
            data = data[:at]
        else:
            data = _mutate_lines(draw, op, data)
    return data


def _mutate_lines(draw, op: str, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = draw(st.integers(0, len(lines) - 1))
    if op == "header":
        i = next((k for k, line in enumerate(lines) if line and not line.startswith(b"%")), 0)
    if op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "drop":
        del lines[i]
    else:
        cells = lines[i].split(b",")
        j = draw(st.integers(0, len(cells) - 1))
        if op == "ragged":
            if draw(st.booleans()):
                cells.insert(j, draw(ODD_TEXT).encode())
            else:
                del cells[j]
        else:  # "cell" or "header": a value or a name replaced
            cells[j] = draw(ODD_TEXT).encode(errors="surrogatepass")
        lines[i] = b",".join(cells)
    return b"\n".join(lines)


def check_read(data: bytes, suffix: str) -> None:
    """``read_table`` on ``data`` gives a Table, or a DataError naming the file; any
    warning is quercus's DataWarning."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                table = read_table(path)
            except DataError as exc:
                assert str(path) in str(exc), f"the message does not name the file: {exc}"
            else:
                assert isinstance(table, Table)
                assert len(table.X) == len(table.y) > 0
        others = [w for w in caught if not issubclass(w.category, DataWarning)]
        assert not others, [f"{w.category.__name__}: {w.message}" for w in others]


def test_seed_files_are_valid():
    """The files the fuzzers damage are read as they are."""
    for data, suffix in ((CSV, ".csv"), (ARFF, ".arff"), (PARQUET, ".parquet")):
        if data is not None:
            check_read(data, suffix)


@SETTINGS
@given(data=mutated(CSV, text=True))
def test_fuzz_csv(data):
    check_read(data, ".csv")


@SETTINGS
@given(data=mutated(ARFF, text=True))
def test_fuzz_arff(data):
    check_read(data, ".arff")


@pytest.mark.skipif(PARQUET is None, reason="reading Parquet needs pyarrow")
@SETTINGS
@given(data=mutated(PARQUET or b"", text=False))
def test_fuzz_parquet(data):
    check_read(data, ".parquet")
