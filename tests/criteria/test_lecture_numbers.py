"""The worked numbers of the decision-tree lectures, at the precision the lectures give."""

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import datasets


def gains(frame, target):
    return quercus.gain_table(frame, target)["information_gain"]


def test_playtennis_root():
    df = datasets.load("playtennis")
    assert quercus.entropy(df["PlayTennis"]) == pytest.approx(0.940, abs=5e-4)
    g = gains(df, "PlayTennis")
    # The lecture rounds intermediate results; 0.246 is 0.2467 computed exactly.
    assert g["Outlook"] == pytest.approx(0.246, abs=1e-3)
    assert g["Humidity"] == pytest.approx(0.151, abs=1e-3)
    assert g["Wind"] == pytest.approx(0.048, abs=1e-3)
    assert g["Temperature"] == pytest.approx(0.029, abs=1e-3)
    assert list(g.index) == ["Outlook", "Humidity", "Wind", "Temperature"]


def test_playtennis_sunny_subset():
    df = datasets.load("playtennis")
    sunny = df[df["Outlook"] == "Sunny"].drop(columns="Outlook")
    g = gains(sunny, "PlayTennis")
    assert g["Humidity"] == pytest.approx(0.97, abs=5e-3)
    assert g["Temperature"] == pytest.approx(0.57, abs=5e-3)
    assert g["Wind"] == pytest.approx(0.02, abs=5e-3)


def test_single_function_api_matches_table():
    df = datasets.load("playtennis")
    y = df["PlayTennis"]
    table = quercus.gain_table(df, "PlayTennis")
    for col in ["Outlook", "Humidity", "Wind", "Temperature"]:
        assert quercus.information_gain(df[col], y) == pytest.approx(
            table.loc[col, "information_gain"]
        )
        assert quercus.split_information(df[col]) == pytest.approx(
            table.loc[col, "split_information"]
        )
        assert quercus.gain_ratio(df[col], y) == pytest.approx(table.loc[col, "gain_ratio"])
    # H(Y) - H(Y|X) = gain, by definition.
    assert quercus.entropy(y) - quercus.conditional_entropy(df["Outlook"], y) == pytest.approx(
        quercus.information_gain(df["Outlook"], y)
    )
    # Outlook's branches hold 5, 4 and 5 days: split info H(5/14, 4/14, 5/14) = 1.577.
    assert table.loc["Outlook", "split_information"] == pytest.approx(1.577, abs=1e-3)
    assert table.loc["Outlook", "gain_ratio"] == pytest.approx(0.156, abs=1e-3)


def test_weekend():
    df = datasets.load("weekend")
    assert quercus.entropy(df["Decision"]) == pytest.approx(1.571, abs=5e-4)
    g = gains(df, "Decision")
    assert g["Weather"] == pytest.approx(0.70, abs=6e-3)
    assert g["Parents"] == pytest.approx(0.61, abs=5e-3)
    assert g["Money"] == pytest.approx(0.28, abs=5e-3)
    assert g.index[0] == "Weather"


def test_restaurant():
    df = datasets.load("restaurant")
    y = df["WillWait"]
    assert quercus.conditional_entropy(df["Pat"], y) == pytest.approx(0.459, abs=5e-4)
    assert quercus.conditional_entropy(df["Type"], y) == pytest.approx(1.0, abs=1e-12)
    assert quercus.gain_table(df, "WillWait").index[0] == "Pat"
    # 'None' is a value of Pat, not a missing cell.
    assert (df["Pat"] == "None").sum() == 2


# The restaurant examples X1..X12 as lectures 002 and 004 print them (T/F, the target last).
RESTAURANT_LECTURE = """\
T F F T Some $$$ F T French 0-10 T
T F F T Full $ F F Thai 30-60 F
F T F F Some $ F F Burger 0-10 T
T F T T Full $ F F Thai 10-30 T
T F T F Full $$$ F T French >60 F
F T F T Some $$ T T Italian 0-10 T
F T F F None $ T F Burger 0-10 F
F F F T Some $$ T T Thai 0-10 T
F T T F Full $ T F Burger >60 F
T T T T Full $$$ F T Italian 10-30 F
F F F F None $ F F Thai 0-10 F
T T T T Full $ F F Burger 30-60 T
"""


def test_restaurant_rows_are_the_lectures():
    df = datasets.load("restaurant")
    expected = [
        [{"T": "Yes", "F": "No"}.get(cell, cell) for cell in line.split()]
        for line in RESTAURANT_LECTURE.splitlines()
    ]
    assert list(df.columns) == [
        "Alt", "Bar", "Fri", "Hun", "Pat", "Price", "Rain", "Res", "Type", "Est", "WillWait"
    ]  # fmt: skip
    assert df.astype(str).values.tolist() == expected
    # X4 waits although it is full: Rain is F there (the lectures' table).
    assert df.loc[3, "Rain"] == "No"


def test_four_examples():
    # s1..s4, s1 positive, attribute values v2, v2, v3, v1.
    x = ["v2", "v2", "v3", "v1"]
    y = ["+", "-", "-", "-"]
    assert quercus.entropy(y) == pytest.approx(0.811, abs=5e-4)
    assert quercus.information_gain(x, y) == pytest.approx(0.311, abs=5e-4)


def test_two_boolean_attributes_with_weights():
    # (A=0,B=0,-) x50, (A=0,B=1,-) x50, (A=1,B=0,-) x3, (A=1,B=1,+) x100
    frame = pd.DataFrame({"A": [0, 0, 1, 1], "B": [0, 1, 0, 1], "y": ["-", "-", "-", "+"]})
    weights = [50, 50, 3, 100]
    gain_a = quercus.information_gain(frame["A"], frame["y"], sample_weight=weights)
    gain_b = quercus.information_gain(frame["B"], frame["y"], sample_weight=weights)
    assert gain_a > gain_b
    # Same numbers from the 203 rows written out.
    rows = frame.loc[frame.index.repeat(weights)]
    assert quercus.information_gain(rows["A"], rows["y"]) == pytest.approx(gain_a)
    assert quercus.information_gain(rows["B"], rows["y"]) == pytest.approx(gain_b)
    table = quercus.gain_table(frame[["A", "B"]], frame["y"], weights, nominal=["A", "B"])
    assert table.index[0] == "A"
    assert table.loc["A", "information_gain"] == pytest.approx(gain_a)


def test_counts_form():
    assert quercus.entropy([9, 5], counts=True) == pytest.approx(0.940, abs=5e-4)
    assert quercus.gini([9, 5], counts=True) == pytest.approx(1 - (9 / 14) ** 2 - (5 / 14) ** 2)
    assert quercus.misclassification_error([9, 5], counts=True) == pytest.approx(5 / 14)
    assert quercus.entropy([0, 7], counts=True) == 0.0  # 0 log 0 = 0
    assert quercus.entropy([1, 1, 1, 1], counts=True) == pytest.approx(2.0)


@pytest.mark.parametrize("name", ["playtennis", "weekend", "restaurant"])
def test_no_negative_zero_in_gain_tables_and_traces(name):
    # A pure set's entropy is 0.0: -0.0 would print as "-0.0" in the tables.
    df = datasets.load(name)
    target = df.columns[-1]
    X, y = df.drop(columns=[target]), df[target]
    frames = [quercus.gain_table(df, target)]
    for column in X.columns:  # every branch of every attribute, pure ones included
        for value in X[column].unique():
            frames.append(quercus.gain_table(df[X[column] == value], target))
    for estimator in (quercus.ID3Classifier(), quercus.C45Classifier(), quercus.CARTClassifier()):
        trace = estimator.fit(X, y, trace=True).trace_
        frames += [trace.candidates, trace.nodes]
        assert "-0.0" not in str(trace) and "-0.000" not in str(trace)
    pure = quercus.entropy(y[y == y.iloc[0]])
    assert pure == 0.0 and not np.signbit(pure)
    for frame in frames:
        numbers = frame.select_dtypes("number").to_numpy(dtype=float)
        assert not (np.signbit(numbers) & (numbers == 0)).any()
        assert "-0.0" not in frame.to_string()
