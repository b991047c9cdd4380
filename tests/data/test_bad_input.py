"""Every bad input of the data layer gets a message that names the column or file at fault."""

import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from quercus import DataError, DataWarning, read_table


def write(tmp_path, text, name="t.csv", mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_target_column_absent(tmp_path):
    path = write(tmp_path, "a,b\n1,2\n")
    with pytest.raises(
        DataError, match=r"target column 'class' not found; columns are \['a', 'b'\]"
    ):
        read_table(path, target="class")


def test_target_entirely_missing(tmp_path):
    path = write(tmp_path, "a,y\n1,\n2,?\n")
    with pytest.raises(DataError, match="target column 'y' is entirely missing"):
        read_table(path)


def test_rows_with_missing_target_are_dropped_with_count(tmp_path):
    path = write(tmp_path, "a,y\n1,p\n2,\n3,?\n4,q\n")
    with pytest.warns(DataWarning, match=r"dropped 2 of 4 rows whose target 'y' is missing"):
        table = read_table(path)
    assert list(table.X["a"]) == [1.0, 4.0]
    assert list(table.y) == ["p", "q"]


def test_column_entirely_missing_warns(tmp_path):
    path = write(tmp_path, "a,empty,y\n1,,p\n2,?,q\n")
    with pytest.warns(DataWarning, match="column 'empty' is entirely missing"):
        table = read_table(path)
    assert table.X["empty"].isna().all()


def test_mixed_numbers_and_words_become_nominal(tmp_path):
    path = write(tmp_path, "a,mixed,y\n1,3,p\n2,abc,q\n3,4.5,p\n")
    with pytest.warns(DataWarning, match=r"column 'mixed' mixes numbers and words .*'3'.*'abc'"):
        table = read_table(path)
    assert table.schema["mixed"].kind == "nominal"
    assert set(table.schema["mixed"].categories) == {"3", "abc", "4.5"}


def test_category_labels_among_numbers_read_without_a_warning(tmp_path):
    """car's doors (2, 3, 4, 5more) and persons (2, 4, more): a few whole numbers beside
    words are category labels, read as nominal without a warning (the suite would turn one
    into an error): there is nothing to fix, and declaring them nominal changes nothing."""
    import quercus

    table = read_table(quercus.datasets.path("car"))
    declared = read_table(quercus.datasets.path("car"), nominal=["doors", "persons"])
    assert table.schema == declared.schema
    assert table.schema["doors"].categories == ("2", "3", "4", "5more")
    path = write(tmp_path, "grade,y\n1,p\n2,q\n03,p\n-1,q\nnone,p\n")
    assert read_table(path).schema["grade"].kind == "nominal"


@pytest.mark.parametrize("dtype", [object, "string"])
def test_strings_named_nominal_read_once_each_without_a_warning(dtype):
    """A column of strings the user names nominal is read once per distinct string, as an
    unnamed one is: the same categories and codes (missing markers missing), and no warning
    that it mixes numbers and words (the user said what it is)."""
    cells = ["1.5", "huge", "", "2.5", "?", "huge", None, "1.5"] * 50
    frame = pd.DataFrame({"m": pd.Series(cells, dtype=dtype), "y": ["p", "q"] * 200})
    with pytest.warns(DataWarning, match="mixes numbers and words"):
        inferred = read_table(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        named = read_table(frame, nominal=["m"])
    assert named.schema["m"] == inferred.schema["m"]
    assert named.schema["m"].categories == ("1.5", "2.5", "huge")
    np.testing.assert_array_equal(named.X["m"].cat.codes, inferred.X["m"].cat.codes)
    assert named.X["m"].isna().sum() == 3 * 50  # "", "?" and None


@pytest.mark.parametrize(
    ("cells", "shown"),
    [
        (["1.5", "2.5", "3.5", "huge"], "'1.5' and 'huge'"),  # measurements
        ([str(v) for v in range(30)] + ["unknown"], "'0' and 'unknown'"),  # many numbers
        (["999", "1,234", "5"], "'5' and '1,234'"),  # a thousands separator
        (["\x1c05", "07"], r"'07' and '\x1c05'"),  # a number garbled by white space
    ],
)
def test_numbers_with_words_to_fix_still_warn(tmp_path, cells, shown):
    quoted = [f'"{c}"' for c in cells]
    path = write(tmp_path, "m,y\n" + "".join(f"{c},p\n" for c in quoted))
    with pytest.warns(
        DataWarning, match=re.escape(f"column 'm' mixes numbers and words (e.g. {shown})")
    ):
        table = read_table(path)
    assert table.schema["m"].kind == "nominal"


def test_mixed_python_objects_in_dataframe():
    frame = pd.DataFrame({"m": [1, "two", 3.0], "y": ["a", "b", "a"]})
    with pytest.warns(DataWarning, match="column 'm' mixes numbers and words"):
        table = read_table(frame)
    assert table.schema["m"].categories == ("1", "3.0", "two")


@pytest.mark.parametrize("bad", ["inf", "-inf"])
def test_infinite_values(tmp_path, bad):
    path = write(tmp_path, f"a,big,y\n1,2,p\n2,{bad},q\n")
    with pytest.raises(DataError, match=r"column 'big' has an infinite value .* in row 1"):
        read_table(path)


def test_infinite_values_in_array():
    with pytest.raises(DataError, match="column 'x1' has an infinite value"):
        read_table(np.array([[1.0, np.inf, 0.0]]))


def test_duplicate_column_names_csv(tmp_path):
    path = write(tmp_path, "a,b,a,y\n1,2,3,p\n")
    with pytest.raises(DataError, match="duplicate column names: 'a'"):
        read_table(path)


def test_duplicate_column_names_dataframe():
    frame = pd.DataFrame([[1, 2, "p"]], columns=["a", "a", "y"])
    with pytest.raises(DataError, match="duplicate column names: 'a'"):
        read_table(frame)


def test_duplicate_attribute_names_arff(tmp_path):
    text = "@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n1,2\n"
    path = write(tmp_path, text, "t.arff")
    # liac-arff's own message names the attribute and both lines.
    with pytest.raises(DataError, match=r"t.arff: .*Bad @ATTRIBUTE name a at line 3"):
        read_table(path)


def test_no_rows(tmp_path):
    path = write(tmp_path, "a,b,y\n")
    with pytest.raises(DataError, match=r"t.csv: no rows"):
        read_table(path)
    with pytest.raises(DataError, match="no rows"):
        read_table(pd.DataFrame({"a": [], "y": []}))


def test_empty_file(tmp_path):
    path = write(tmp_path, "")
    with pytest.raises(DataError, match=r"t.csv: the file is empty"):
        read_table(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DataError, match=r"nope.csv: no such file"):
        read_table(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="is a directory"):
        read_table(tmp_path)


def test_unreadable_file(tmp_path, monkeypatch):
    path = write(tmp_path, "a,y\n1,p\n")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads any file: stand in for the kernel's refusal
        monkeypatch.setattr(os, "access", lambda p, mode: False)
    with pytest.raises(DataError, match=r"t.csv: permission denied"):
        read_table(path)


def test_non_utf8_file(tmp_path):
    path = write(tmp_path, "a,y\n1,caf\xe9\n".encode("latin-1"), mode="wb")
    with pytest.raises(DataError, match=r"t.csv: not UTF-8 text \(byte 0xe9 at position \d+\)"):
        read_table(path)


def test_non_utf8_arff(tmp_path):
    text = "@relation r\n@attribute a {caf\xe9}\n@data\ncaf\xe9\n".encode("latin-1")
    path = write(tmp_path, text, "t.arff", mode="wb")
    with pytest.raises(DataError, match="not UTF-8 text"):
        read_table(path)


def test_broken_arff(tmp_path):
    path = write(tmp_path, "@relation r\n@attribute a {x, y}\n@data\nz\n", "t.arff")
    with pytest.raises(DataError, match=r"t.arff: not a valid ARFF file"):
        read_table(path)


def test_unknown_extension(tmp_path):
    path = write(tmp_path, "a\n1\n", "t.xlsx")
    with pytest.raises(DataError, match=r"unknown file type '.xlsx'"):
        read_table(path)


def test_value_outside_declared_levels():
    frame = pd.DataFrame({"size": ["low", "huge"], "y": ["a", "b"]})
    with pytest.raises(DataError, match=r"column 'size': value 'huge' is not one of its declared"):
        read_table(frame, ordinal={"size": ["low", "high"]})


def test_unknown_nominal_column():
    with pytest.raises(DataError, match="nominal column 'zz' not found"):
        read_table(pd.DataFrame({"a": [1], "y": ["p"]}), nominal=["zz"])


def test_dates_are_refused_by_name():
    frame = pd.DataFrame({"when": pd.to_datetime(["2024-01-01", "2024-02-01"]), "y": ["a", "b"]})
    with pytest.raises(DataError, match="column 'when' holds dates"):
        read_table(frame)


def test_one_class_is_allowed(tmp_path):
    path = write(tmp_path, "a,y\n1,p\n2,p\n")
    table = read_table(path)
    assert table.schema.classes == ("p",)
