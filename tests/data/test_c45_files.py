"""C4.5's .names/.data/.test files."""

import numpy as np
import pytest

import quercus
from quercus import DataError, read_table

GOLF_NAMES = """| Quinlan's golf data, in C4.5's own format
Play, Don't Play.

outlook: sunny, overcast, rain.
temperature: continuous.
humidity: continuous.
windy: true, false.
day: ignore.   | a column C4.5 is told to skip
"""
GOLF_DATA = """sunny, 85, 85, false, 1, Don't Play
sunny, 80, 90, true, 2, Don't Play
overcast, 83, 78, false, 3, Play
rain, 70, 96, false, 4, Play
rain, 68, 80, false, 5, Play
rain, 65, 70, true, 6, Don't Play
overcast, 64, 65, true, 7, Play
sunny, 72, 95, false, 8, Don't Play
sunny, 69, 70, false, 9, Play
rain, 75, 80, false, 10, Play
sunny, 75, 70, true, 11, Play
overcast, 72, 90, true, 12, Play
overcast, 81, 75, false, 13, Play
rain, 71, 80, true, 14, Don't Play
"""


@pytest.fixture
def golf(tmp_path):
    (tmp_path / "golf.names").write_text(GOLF_NAMES)
    (tmp_path / "golf.data").write_text(GOLF_DATA)
    (tmp_path / "golf.test").write_text("rain, ?, 70, false, 15, Play\n")
    return tmp_path


def test_names_and_data(golf):
    for path in (golf / "golf.names", golf / "golf.data"):
        table = read_table(path)
        s = table.schema
        assert s.names == ["outlook", "temperature", "humidity", "windy"]  # 'day' ignored
        assert s["outlook"].categories == ("sunny", "overcast", "rain")  # declared order
        assert s["windy"].categories == ("true", "false")
        assert s["temperature"].kind == "numeric"
        assert s.target == "class" and s.classes == ("Play", "Don't Play")
        assert len(table) == 14 and table.X["humidity"].iloc[3] == 96.0


def test_test_file_and_unknowns(golf):
    # The one case's temperature is unknown: the column says so.
    with pytest.warns(quercus.DataWarning, match="column 'temperature' is entirely missing"):
        table = read_table(golf / "golf.test")
    assert len(table) == 1 and np.isnan(table.X["temperature"].iloc[0])


def test_a_c45_tree_on_golf(golf):
    X, y = read_table(golf / "golf.names")
    est = quercus.C45Classifier().fit(X, y)
    assert est.schema_.names[est.tree_.feature[0]] == "outlook"
    assert est.get_n_leaves() == 5 and est.score(X, y) == 1.0


def test_escapes_comments_and_discrete_n(tmp_path):
    (tmp_path / "t.names").write_text(
        "yes, no.  | classes\nsize: small\\, cheap, big.\ncount: discrete 3.\nratio: continuous.\n"
    )
    (tmp_path / "t.data").write_text("small\\, cheap, a, 0.5, yes\nbig, b, 1.5, no | a comment\n")
    table = read_table(tmp_path / "t.data")
    assert list(table.X["size"]) == ["small, cheap", "big"]
    assert table.schema["count"].categories == ("a", "b")  # 'discrete 3': from the data
    assert list(table.y) == ["yes", "no"]
    from quercus.data.c45 import parse_names

    classes, attributes = parse_names(str(tmp_path / "t.names"))
    assert classes == ["yes", "no"]
    assert attributes[0] == ("size", "discrete", ["small, cheap", "big"])
    assert attributes[1] == ("count", "discrete", None)
    assert attributes[2] == ("ratio", "continuous", None)


def test_bad_c45_files_are_named(tmp_path, golf):
    (tmp_path / "nothing.data").write_text("a, yes\n")
    with pytest.raises(DataError, match=r"nothing.names: no such file"):
        read_table(tmp_path / "nothing.data")
    (golf / "golf.data").write_text("sunny, 85, 85, maybe, 1, Play\n")
    with pytest.raises(DataError, match=r"'windy' holds 'maybe', not among its declared"):
        read_table(golf / "golf.data")
    (golf / "golf.data").write_text("sunny, hot, 85, true, 1, Play\n")
    with pytest.raises(DataError, match=r"'temperature' is declared continuous but holds 'hot'"):
        read_table(golf / "golf.data")
