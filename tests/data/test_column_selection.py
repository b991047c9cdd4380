"""Columns selected by name or position (``nominal=``, ``ordinal=``, ``nominal_features=``,
``target=``, ``columns=``): a string is one column name, never one column per character,
and a position beyond the table is an error naming it and the number of columns."""

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DataError, read_table
from quercus.cli import main
from quercus.data.schema import type_frame


def frame():
    """Five columns, among them ``ab`` beside ``a`` and ``b`` (numbers)."""
    return pd.DataFrame(
        {
            "ab": [1, 2, 1, 2, 1, 2],
            "a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "b": [1, 1, 2, 2, 3, 3],
            "c": [0.5, 0.1, 0.3, 0.2, 0.9, 0.4],
            "d": [1.0, 2.0, 1.0, 2.0, 1.0, 2.0],
        }
    )


LABELS = ["p", "q", "p", "q", "p", "q"]
OUT_OF_RANGE = (
    r"column position 99 is out of range: the table has 5 columns \(positions 0 to 4, or -5 "
    r"to -1 from the end\)"
)


def kinds(schema):
    return {f.name: f.kind for f in schema.features}


# -- a string is one column name --------------------------------------------------------------


def test_nominal_features_string_is_one_column():
    tree = quercus.DecisionTreeClassifier().fit(frame(), LABELS)
    assert kinds(tree.schema_)["ab"] == "numeric"
    tree = quercus.DecisionTreeClassifier(nominal_features="ab").fit(frame(), LABELS)
    assert kinds(tree.schema_) == {
        "ab": "nominal",
        "a": "numeric",
        "b": "numeric",
        "c": "numeric",
        "d": "numeric",
    }


def test_forest_and_model_tree_nominal_features_string_is_one_column():
    forest = quercus.RandomForestClassifier(3, nominal_features="ab", random_state=0)
    assert kinds(forest.fit(frame(), LABELS).schema_)["a"] == "numeric"
    m5 = quercus.ModelTreeRegressor(nominal_features="ab").fit(frame(), np.arange(6.0))
    assert kinds(m5.schema_) == {
        "ab": "nominal",
        "a": "numeric",
        "b": "numeric",
        "c": "numeric",
        "d": "numeric",
    }


def test_read_table_nominal_string_is_one_column():
    table = read_table(frame(), target="d", nominal="ab")
    assert kinds(table.schema) == {"ab": "nominal", "a": "numeric", "b": "numeric", "c": "numeric"}


def test_read_csv_nominal_string_reads_only_that_column_as_text(tmp_path):
    # Columns forced nominal are read as text (to keep '01' as written): 'a' and 'b' must not be.
    path = tmp_path / "codes.csv"
    path.write_text("ab,a,b,y\n01,1,2,p\n02,3,4,q\n01,5,6,p\n")
    table = read_table(path, nominal="ab")
    assert kinds(table.schema) == {"ab": "nominal", "a": "numeric", "b": "numeric"}
    assert table.schema["ab"].categories == ("01", "02")
    assert list(table.X["a"]) == [1.0, 3.0, 5.0]


def test_type_frame_nominal_string_is_one_column():
    _, features = type_frame(frame(), nominal="ab")
    assert [f.kind for f in features] == ["nominal", "numeric", "numeric", "numeric", "numeric"]


def test_ordinal_levels_given_as_a_string_are_refused():
    sizes = pd.DataFrame({"size": ["s", "m", "l", "s"], "y": [1, 2, 3, 1]})
    with pytest.raises(DataError, match=r"ordinal column 'size': its levels must be a list"):
        read_table(sizes, ordinal={"size": "sml"})
    table = read_table(sizes, ordinal={"size": ["s", "m", "l"]})
    assert table.schema["size"].categories == ("s", "m", "l")


def test_ordinal_that_is_not_a_mapping_is_refused():
    with pytest.raises(DataError, match=r"ordinal columns must be a mapping of column -> list"):
        read_table(frame(), ordinal="ab")


def test_nominal_of_another_kind_is_refused():
    with pytest.raises(DataError, match=r"nominal must be a column name, a position or a list"):
        read_table(frame(), nominal=2.5)


def test_array_columns_string_is_one_name():
    table = read_table(np.array([[1.0], [2.0]]), target=False, columns="ab")
    assert table.schema.names == ["ab"]
    with pytest.raises(DataError, match="1 column name given for 2 columns"):
        read_table(np.array([[1.0, 2.0], [3.0, 4.0]]), target=False, columns="ab")


def test_cli_set_nominal_features_string(tmp_path, capsys):
    path, saved = tmp_path / "codes.csv", tmp_path / "model.json"
    path.write_text("ab,a,b,y\n1,1,2,p\n2,3,4,q\n1,5,6,p\n2,7,8,q\n")
    assert main(["fit", str(path), "-q", "--set", "nominal_features=ab", "-o", str(saved)]) == 0
    model = quercus.load(saved)
    assert kinds(model.schema_) == {"ab": "nominal", "a": "numeric", "b": "numeric"}


# -- positions out of range ------------------------------------------------------------------


@pytest.mark.parametrize("key", [99, -6, np.int64(99)], ids=["99", "-6", "int64"])
def test_nominal_features_position_out_of_range(key):
    with pytest.raises(DataError, match=r"nominal column position -?\d+ is out of range") as info:
        quercus.DecisionTreeClassifier(nominal_features=[key]).fit(frame(), LABELS)
    assert f"position {int(key)} " in str(info.value) and "5 columns" in str(info.value)


def test_nominal_features_position_out_of_range_on_an_array():
    with pytest.raises(DataError, match="nominal " + OUT_OF_RANGE):
        quercus.C45Classifier(nominal_features=[99]).fit(frame().to_numpy(), LABELS)


def test_ordinal_features_position_out_of_range():
    with pytest.raises(DataError, match="ordinal " + OUT_OF_RANGE):
        quercus.DecisionTreeClassifier(ordinal_features={99: [1, 2]}).fit(frame(), LABELS)


def test_numpy_integer_positions_select_columns():
    tree = quercus.DecisionTreeClassifier(nominal_features=np.array([0, 2])).fit(frame(), LABELS)
    assert [kinds(tree.schema_)[c] for c in ("ab", "a", "b")] == ["nominal", "numeric", "nominal"]


def test_read_table_positions_out_of_range():
    with pytest.raises(DataError, match="^nominal " + OUT_OF_RANGE):
        read_table(frame(), nominal=[99])
    with pytest.raises(DataError, match="^ordinal " + OUT_OF_RANGE):
        read_table(frame(), ordinal={99: [1, 2]})
    with pytest.raises(DataError, match="<DataFrame>: target " + OUT_OF_RANGE):
        read_table(frame(), target=99)
    assert read_table(frame(), target=np.int64(0)).schema.target == "ab"


def test_read_file_position_out_of_range_names_the_file(tmp_path):
    path = tmp_path / "small.csv"
    frame().to_csv(path, index=False)
    with pytest.raises(DataError, match=f"{path}: nominal " + OUT_OF_RANGE):
        read_table(path, nominal=[99])
    with pytest.raises(DataError, match=f"{path}: target " + OUT_OF_RANGE):
        read_table(path, target=99)


def test_cli_nominal_features_position_out_of_range(tmp_path, capsys):
    path = tmp_path / "small.csv"
    frame().to_csv(path, index=False)
    assert main(["fit", str(path), "-q", "--set", "nominal_features=[99]"]) == 1
    _, err = capsys.readouterr()
    # The model's features: the file's columns less the target.
    assert err.strip() == (
        "quercus: error: nominal column position 99 is out of range: the table has 4 columns "
        "(positions 0 to 3, or -4 to -1 from the end)"
    )
