"""Trees in J48's text layout."""

import pandas as pd

import quercus
from quercus.export import weka_text

IRIS_J48 = """\
petalwidth <= 0.6: Iris-setosa (50.0)
petalwidth > 0.6
|   petalwidth <= 1.7
|   |   petallength <= 4.9: Iris-versicolor (48.0/1.0)
|   |   petallength > 4.9
|   |   |   petalwidth <= 1.5: Iris-virginica (3.0)
|   |   |   petalwidth > 1.5: Iris-versicolor (3.0/1.0)
|   petalwidth > 1.7: Iris-virginica (46.0/1.0)
"""


def test_iris_prints_as_j48(shared):
    X, y = quercus.read_table(shared("iris.csv"))
    assert weka_text(quercus.C45Classifier().fit(X, y)) == IRIS_J48


def test_weather_numeric_layout(shared):
    X, y = quercus.read_table(shared("weather.numeric.csv"))
    text = weka_text(quercus.C45Classifier().fit(X, y))
    assert text.splitlines() == [
        "outlook = overcast: yes (4.0)",
        "outlook = rainy",
        "|   windy = FALSE: yes (3.0)",  # written as in the file, not as a boolean
        "|   windy = TRUE: no (2.0)",
        "outlook = sunny",
        "|   humidity <= 75: yes (2.0)",
        "|   humidity > 75: no (3.0)",
    ]


def test_single_leaf_subsets_and_fractions():
    frame = pd.DataFrame({"c": list("abcabc")})
    stump = quercus.C45Classifier().fit(frame, ["x", "x", "y", "x", "x", "x"])
    assert weka_text(stump) == ": x (6.0/1.0)\n"
    cart = quercus.CARTClassifier().fit(frame, ["x", "x", "y", "x", "x", "y"])
    lines = weka_text(cart).splitlines()
    # CART orders categories by the share of the majority class: 'c' (no x) comes first.
    assert lines == ["c in {c}: y (2.0)", "c not in {c}: x (4.0)"]


def test_numbers_print_as_java_does():
    from quercus.export.weka import _java_double
    from quercus.tree.conditions import format_threshold as _threshold

    assert [_java_double(v) for v in (2, 48.0, 1.333, 0.1 + 0.2)] == ["2.0", "48.0", "1.33", "0.3"]
    # Math.round rounds halves up: 3.125 -> 3.13 (Python's round gives 3.12).
    assert [_java_double(v) for v in (3.125, 0.005, 2.5e-7)] == ["3.13", "0.01", "0.0"]
    assert [_threshold(v) for v in (75.0, 0.6, 4.95, 1e-7, -2.5)] == [
        "75",
        "0.6",
        "4.95",
        "0",
        "-2.5",
    ]


def test_near_empty_leaf_prints_as_j48():
    # A leaf whose weight is within J48's 1e-6 of zero takes its parent's class, and errors
    # of at most 1e-6 are not printed.
    from quercus.export.weka import _j48_max_class

    assert _j48_max_class([4e-7, 9e-7]) == 0
    assert _j48_max_class([1.0, 1.0000005]) == 0
    assert _j48_max_class([1.0, 1.1]) == 1
