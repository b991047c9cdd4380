"""read_table: formats, schema inference, missing markers."""

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.data import NOMINAL_KIND, NUMERIC_KIND, ORDINAL_KIND, read_table

ARFF = """% PlayTennis with numbers, Weka's layout
@relation weather

@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute humidity real
@attribute 'wind speed' {weak, 'very strong'}
@attribute note string
@attribute play {yes, no}

@data
sunny,85,85,weak,'a, b',no
overcast,?,86,'very strong',?,yes
% a comment line inside the data
rainy,70,?,weak,plain,yes
"""


def test_csv_schema_and_missing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,c,d,y\n1,x,True,NA,p\n2.5,?,False,None,q\n,z,True,?,p\n")
    table = read_table(path)
    X, y = table
    assert table.schema.target == "y"
    assert table.schema.kinds == [NUMERIC_KIND, NOMINAL_KIND, NOMINAL_KIND, NOMINAL_KIND]
    assert np.isnan(X["a"].iloc[2]) and X["a"].iloc[1] == 2.5
    assert pd.isna(X["b"].iloc[1])  # '?' is missing
    # 'NA' and 'None' are words here, as in the shipped data sets.
    assert list(table.schema["d"].categories) == ["NA", "None"]
    assert pd.isna(X["d"].iloc[2])
    assert table.schema.classes == ("p", "q")
    assert list(y) == ["p", "q", "p"]


def test_target_by_name_position_and_none(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,u,v\n2,w,v\n")
    assert read_table(path, target="b").schema.target == "b"
    assert read_table(path, target=0).schema.target_kind == NUMERIC_KIND
    no_target = read_table(path, target=False)
    assert no_target.y is None and no_target.schema.names == ["a", "b", "c"]


def test_arff_declared_order_quotes_comments(tmp_path):
    path = tmp_path / "w.arff"
    path.write_text(ARFF)
    table = read_table(path)
    s = table.schema
    assert s["outlook"].categories == ("sunny", "overcast", "rainy")  # declared order
    assert s["wind speed"].categories == ("weak", "very strong")
    assert s["temperature"].kind == NUMERIC_KIND and s["humidity"].kind == NUMERIC_KIND
    assert s["note"].kind == NOMINAL_KIND
    assert s.classes == ("yes", "no")  # declared order, not sorted
    X = table.X
    assert len(X) == 3
    assert np.isnan(X["temperature"].iloc[1]) and np.isnan(X["humidity"].iloc[2])
    assert X["wind speed"].iloc[1] == "very strong"
    assert X["note"].iloc[0] == "a, b" and pd.isna(X["note"].iloc[1])


def test_parquet_keeps_categories_and_order(tmp_path):
    frame = pd.DataFrame(
        {
            "size": pd.Categorical(["S", "L", "M"], categories=["S", "M", "L"], ordered=True),
            "colour": pd.Categorical(["red", "blue", None]),
            "v": [1.0, np.nan, 3.0],
            "y": ["a", "b", "a"],
        }
    )
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    table = read_table(path)
    assert table.schema["size"].kind == ORDINAL_KIND
    assert table.schema["size"].categories == ("S", "M", "L")
    assert table.schema["colour"].kind == NOMINAL_KIND
    assert pd.isna(table.X["colour"].iloc[2])


def test_dataframe_and_array_inputs():
    frame = pd.DataFrame(
        {"n": [1, 2, 3], "b": [True, False, True], "s": ["u", None, "v"], "y": [0, 1, 0]}
    )
    table = read_table(frame, nominal=["y"])
    assert table.schema.kinds == [NUMERIC_KIND, NOMINAL_KIND, NOMINAL_KIND]
    assert table.schema["b"].categories == (False, True)
    assert table.schema.classes == (0, 1)
    array = np.array([[1.0, 2.0, 0], [3.0, np.nan, 1]])
    t2 = read_table(array)
    assert t2.schema.names == ["x0", "x1"] and t2.schema.target == "x2"
    assert t2.schema.target_kind == NUMERIC_KIND
    t3 = read_table(array, columns=["a", "b", "c"], target="a")
    assert t3.schema.names == ["b", "c"]


def test_ordinal_and_forced_nominal(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("size,code,y\nlow,01,a\nhigh,2,b\nmid,01,a\n")
    table = read_table(path, nominal=["code"], ordinal={"size": ["low", "mid", "high"]})
    assert table.schema["size"].kind == ORDINAL_KIND
    assert table.schema["size"].categories == ("low", "mid", "high")
    assert table.X["size"].cat.ordered
    # Forced-nominal columns keep their spelling ('01', not 1).
    assert table.schema["code"].categories == ("01", "2")


def test_compressed_csv(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "y": ["p", "q"]})
    path = tmp_path / "t.csv.gz"
    frame.to_csv(path, index=False)
    assert read_table(path).schema.classes == ("p", "q")


def test_table_passes_to_gain_table():
    df = quercus.datasets.load("weekend")
    table = read_table(df)
    assert quercus.gain_table(table).index[0] == "Weather"


MANIFEST_SHAPES = {
    # file: (rows, columns, categorical columns, numeric columns) from the MANIFEST.
    "weather.numeric.csv": (14, 5, 2, 2),
    "credit-a.csv": (690, 16, 9, 6),
    "hepatitis.csv": (155, 20, 13, 6),
    "breast-cancer.csv": (286, 10, 9, 0),
    "zoo.csv": (101, 17, 15, 1),
    "adult_train.csv": (32561, 15, 8, 6),
    "diamonds.csv": (53940, 10, 3, 6),
}


@pytest.mark.parametrize("name", sorted(MANIFEST_SHAPES))
def test_shared_datasets_read_with_manifest_schema(shared, name):
    rows, cols, n_cat, n_num = MANIFEST_SHAPES[name]
    # breast-cancer's deg-malig is a numeric-looking code: the MANIFEST lists it nominal.
    nominal = ["deg-malig"] if name == "breast-cancer.csv" else None
    table = read_table(shared(name), nominal=nominal)
    assert len(table) == rows
    assert len(table.schema.features) == cols - 1
    kinds = table.schema.kinds
    assert kinds.count(NUMERIC_KIND) == n_num
    assert kinds.count(NOMINAL_KIND) == n_cat


def test_shared_missing_counts_match_manifest(shared):
    table = read_table(shared("credit-a.csv"))
    assert int(table.X.isna().sum().sum()) == 67
    assert int(table.X.isna().any(axis=1).sum()) == 37
