"""Input the fuzz guard (test_fuzz_read.py) and its kin turned up: values that are neither
numbers nor categories, numbers pandas leaves as text, and ARFF errors that liac-arff lets
through untranslated. Each gives a typed column or a DataError naming the file and column."""

import datetime
import decimal
import re

import numpy as np
import pandas as pd
import pytest

from quercus import DataError, DataWarning, read_table


def write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- values of a column --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1, 2], [3], None], "column 'v' holds lists (row 0: [1, 2])"),
        ([{"k": 1}, None, {"k": 2}], "column 'v' holds dicts (row 0: {'k': 1})"),
        ([None, {1}, {2}], "column 'v' holds sets (row 1: {1})"),
        (pd.Series([1 + 2j, 2.0, None], dtype=object), "column 'v' holds complex numbers (row"),
        (np.array([1 + 2j, 2, 3]), "column 'v' holds complex numbers"),
        ([datetime.date(2020, 1, 1), None, None], "column 'v' holds dates or times"),
        (pd.period_range("2020-01", periods=3, freq="M"), "column 'v' holds dates or times"),
    ],
)
def test_values_that_are_neither_numbers_nor_categories(values, message):
    frame = pd.DataFrame({"v": values, "y": ["a", "b", "a"]})
    with pytest.raises(DataError, match=re.escape(message)) as caught:
        read_table(frame)
    assert caught.value.column == "v"


def test_nested_parquet_column(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "data.parquet"
    pd.DataFrame({"v": [[1, 2], [3], None], "y": ["a", "b", "a"]}).to_parquet(path)
    with pytest.raises(DataError, match=re.escape(f"{path}: column 'v' holds lists (row 0:")):
        read_table(path)


def test_decimals_are_numbers(tmp_path):
    values = [decimal.Decimal("1.5"), None, decimal.Decimal("2")]
    table = read_table(pd.DataFrame({"d": values, "y": ["a", "b", "a"]}))
    assert table.schema["d"].kind == "numeric"
    assert table.X["d"].tolist()[::2] == [1.5, 2.0]
    pytest.importorskip("pyarrow")
    path = tmp_path / "data.parquet"  # a decimal column of a database, through Parquet
    pd.DataFrame({"d": values, "y": ["a", "b", "a"]}).to_parquet(path)
    assert read_table(path).schema["d"].kind == "numeric"


def test_integers_beyond_int64_and_uint64_are_numbers(tmp_path):
    # pandas reads 2**64 - 1 beside -2**63 - 1 as text (neither int64 nor uint64 holds both).
    path = write(tmp_path, "a,y\n18446744073709551615,p\n-9223372036854775809,q\n,p\n")
    table = read_table(path)
    assert table.schema["a"].kind == "numeric"
    assert table.X["a"].tolist()[:2] == [2.0**64, -(2.0**63)]


def test_integer_codes_declared_nominal_stay_text(tmp_path):
    path = write(tmp_path, "a,y\n18446744073709551615,p\n-9223372036854775809,q\n")
    table = read_table(path, nominal=["a"])
    assert table.schema["a"].categories == ("-9223372036854775809", "18446744073709551615")


# -- ARFF errors liac-arff lets through -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # an @attribute line without a name: liac-arff fails to unpack it
        ("@relation r\n@attribute\n@data\n", "not a valid ARFF file (line 2, '@attribute': "),
        # liac-arff formats the bad line into its message with %, which fails on a '%'
        (
            "@relation r\n@attribute a numeric\n@data\n0%,1\n",
            "not a valid ARFF file (Bad @DATA instance format in line 4: 0%,1)",
        ),
        # an escape liac-arff does not know
        (
            "@relation r\n@attribute a string\n@attribute c {x}\n@data\n'\\q',x\n",
            "not a valid ARFF file (line 5, \"'\\\\q',x\": Unsupported escape sequence: \\q)",
        ),
        (
            "@relation r\n@attribute a numeric\n@attribute c {x, y, x}\n@data\n1,x\n",
            "attribute 'c' declares the value 'x' twice",
        ),
        (
            "@relation r\n@attribute a numeric\n@attribute c {x,, y}\n@data\n1,x\n",
            "attribute 'c' declares an empty value among its values ['x', None, 'y']",
        ),
    ],
)
def test_arff_errors_name_the_file(tmp_path, text, message):
    path = write(tmp_path, text, "data.arff")
    with pytest.raises(DataError, match=re.escape(f"{path}: {message}")):
        read_table(path)


def test_control_character_beside_integers(tmp_path):
    # '\x1c05' is white space and digits to a regular expression's \s and \d, not to float().
    path = write(tmp_path, "a,y\n\x1c05,p\n07,q\n")
    with pytest.warns(DataWarning, match="column 'a' mixes numbers and words"):
        table = read_table(path)
    assert table.schema["a"].kind == "nominal"
