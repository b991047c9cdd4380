"""Column names as the header writes them: blank names, rows longer than the header, and a
table that holds nothing but its target. Each error names the file and the column at fault."""

import re

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DataError, read_table


def write(tmp_path, text, name="data.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- only the target column ----------------------------------------------------------------------


def test_only_the_target_column(tmp_path):
    path = write(tmp_path, "play\nyes\nno\nyes\n")
    message = f"{path} has only the target column 'play': no attribute to learn from"
    with pytest.raises(DataError, match=re.escape(message)) as caught:
        read_table(path)
    assert caught.value.column == "play"
    assert caught.value.source == str(path)


def test_only_the_target_column_named(tmp_path):
    path = write(tmp_path, "play\nyes\nno\n")
    with pytest.raises(DataError, match="only the target column 'play'"):
        read_table(path, target="play")


def test_one_column_without_target_is_a_table(tmp_path):
    # Data to predict may well hold a single attribute.
    table = read_table(write(tmp_path, "a\n1\n2\n"), target=False)
    assert list(table.X.columns) == ["a"]
    assert table.y is None


def test_only_the_target_column_through_the_estimator():
    X = pd.DataFrame(index=range(3))  # no columns at all
    with pytest.raises(DataError, match=r"no columns \(a table needs at least one attribute"):
        quercus.C45Classifier().fit(X, ["a", "b", "a"])


# -- blank names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("a,,b,class", "column 2 has no name in the header (between 'a' and 'b')"),
        ("a,b,class,", "column 4 has no name in the header (after 'class')"),
        ("a,  ,b,class", "column 2 has no name in the header (between 'a' and 'b')"),
        ("a,b,\t,class", "column 3 has a blank name ('\\t') in the header (between 'b' and"),
        ("a,,,class", "column 2 has no name in the header (between 'a' and 'class')"),
        (",a,class", "column 1 has no name in the header (before 'a'); a file written by "),
    ],
)
def test_blank_header_cell(tmp_path, header, message):
    rows = ",".join(str(i) for i in range(header.count(",") + 1))
    path = write(tmp_path, f"{header}\n{rows}\n{rows}\n")
    with pytest.raises(DataError, match=re.escape(f"{path}: {message}")):
        read_table(path)


def test_pandas_index_column(tmp_path):
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": [1, 2], "class": ["x", "y"]}).to_csv(path)  # index=True
    with pytest.raises(DataError, match="column 1 has no name .*to_csv .*index=False"):
        read_table(path)


def test_a_column_may_be_called_unnamed(tmp_path):
    # pandas' name for a blank cell is a legitimate name when the header writes it.
    path = write(tmp_path, "Unnamed: 0,b,class\n1,2,x\n3,4,y\n")
    table = read_table(path)
    assert list(table.X.columns) == ["Unnamed: 0", "b"]


def test_blank_name_arff(tmp_path):
    text = "@relation r\n@attribute a numeric\n@attribute ' ' numeric\n@attribute c {x,y}\n"
    path = write(tmp_path, text + "@data\n1,2,x\n", "data.arff")
    message = f"{path}: column 2 has a blank name (' ') in its @attribute declaration"
    with pytest.raises(DataError, match=re.escape(message)):
        read_table(path)


def test_blank_name_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "data.parquet"
    pd.DataFrame({"a": [1.0, 2.0], "": [3.0, 4.0], "class": ["x", "y"]}).to_parquet(path)
    with pytest.raises(DataError, match=re.escape(f"{path}: column 2 has no name (between")):
        read_table(path)


@pytest.mark.parametrize("blank", ["", " "])
def test_blank_name_dataframe(blank):
    frame = pd.DataFrame({"a": [1.0, 2.0], blank: [3.0, 4.0], "y": ["p", "q"]})
    with pytest.raises(DataError, match="column 2 has .*name .*between 'a' and 'y'"):
        read_table(frame)
    with pytest.raises(DataError, match="column 2 has .*name"):
        quercus.CARTClassifier().fit(frame[["a", blank]], frame["y"])


# -- rows longer than the header -----------------------------------------------------------------


def test_trailing_separators_on_every_row(tmp_path):
    # Some programs end every data row with the separator: the empty field is dropped (pandas
    # alone would take the first column as the row index and shift every name).
    table = read_table(write(tmp_path, "a,b,class\n1,2,x,\n3,4,y,\n"))
    assert table.X.to_dict("list") == {"a": [1.0, 3.0], "b": [2.0, 4.0]}
    assert list(table.y) == ["x", "y"]


def test_values_beyond_the_header(tmp_path):
    path = write(tmp_path, "a,b,class\n1,2,x,9\n3,4,y,8\n")
    message = f"{path}: data row 1 has a value ('9') beyond the last column 'class'"
    with pytest.raises(DataError, match=re.escape(message)):
        read_table(path)


def test_value_beyond_the_header_in_a_later_row(tmp_path):
    path = write(tmp_path, "a,b,class\n1,2,x,\n3,4,y,8\n")
    with pytest.raises(DataError, match="data row 2 has a value \\('8'\\) beyond"):
        read_table(path)


def test_longer_row_later(tmp_path):
    path = write(tmp_path, "a,b,class\n1,2,x\n3,4,y,8\n")
    message = f"{path}: line 3 has 4 fields, but the header names 3 columns"
    with pytest.raises(DataError, match=re.escape(message)):
        read_table(path)


def test_shorter_rows_are_missing_values(tmp_path):
    table = read_table(write(tmp_path, "a,b,class\n1,,x\n3,4,y\n5\n"), target="a")
    assert np.isnan(table.X["b"].iloc[0])
    assert table.X["class"].isna().tolist() == [False, False, True]


def test_separator_of_several_characters(tmp_path):
    # pandas reads it with its python engine (the C engine would fall back with a warning).
    table = read_table(write(tmp_path, "a::class\n1::x\n2::y\n"), sep="::")
    assert list(table.X["a"]) == [1.0, 2.0]


def test_column_error_names_the_file(tmp_path):
    path = write(tmp_path, "a,big,y\n1,2,p\n2,inf,q\n")
    with pytest.raises(DataError, match=re.escape(f"{path}: column 'big' has an infinite")) as e:
        read_table(path)
    assert e.value.column == "big"
    assert e.value.source == str(path)
