"""Information measures: properties that must hold, a plain-Python twin, C4.5's unknowns."""

import math
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quercus
from quercus import datasets

labels = st.lists(st.sampled_from("abcd"), min_size=1, max_size=40)


def plain_entropy(ys, ws):
    total = sum(ws)
    acc = Counter()
    for y, w in zip(ys, ws, strict=True):
        acc[y] += w
    return -sum(v / total * math.log2(v / total) for v in acc.values() if v > 0)


def plain_gain(xs, ys, ws):
    """Textbook gain by dictionaries, the obvious twin of the vectorised code."""
    groups = defaultdict(lambda: ([], []))
    for x, y, w in zip(xs, ys, ws, strict=True):
        groups[x][0].append(y)
        groups[x][1].append(w)
    total = sum(ws)
    after = sum(sum(g[1]) / total * plain_entropy(*g) for g in groups.values() if sum(g[1]) > 0)
    return plain_entropy(ys, ws) - after


@st.composite
def attribute_and_class(draw):
    n = draw(st.integers(1, 40))
    xs = draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n))
    ys = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    ws = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    return xs, ys, ws


@given(labels)
def test_entropy_bounds(ys):
    h = quercus.entropy(ys)
    assert -1e-12 <= h <= math.log2(len(set(ys))) + 1e-12
    assert 0 <= quercus.gini(ys) <= 1 - 1 / len(set(ys)) + 1e-12
    assert 0 <= quercus.misclassification_error(ys) <= quercus.gini(ys) + 1e-12


@given(attribute_and_class())
@settings(max_examples=200)
def test_gain_matches_plain_twin_and_bounds(data):
    xs, ys, ws = data
    gain = quercus.information_gain(xs, ys, sample_weight=ws)
    assert gain == pytest.approx(plain_gain(xs, ys, ws), abs=1e-9)
    assert -1e-12 <= gain <= quercus.entropy(ys, ws) + 1e-12
    info = quercus.split_information(xs, sample_weight=ws)
    assert gain <= info + 1e-9  # I(X;Y) <= H(X)
    assert 0 <= quercus.gain_ratio(xs, ys, sample_weight=ws) <= 1 + 1e-9


@given(attribute_and_class())
def test_integer_weights_equal_repeated_rows(data):
    xs, ys, ws = data
    rx = [x for x, w in zip(xs, ws, strict=True) for _ in range(w)]
    ry = [y for y, w in zip(ys, ws, strict=True) for _ in range(w)]
    assert quercus.information_gain(xs, ys, ws) == pytest.approx(quercus.information_gain(rx, ry))
    assert quercus.entropy(ys, ws) == pytest.approx(quercus.entropy(ry))
    assert quercus.gini(ys, ws) == pytest.approx(quercus.gini(ry))


@given(attribute_and_class(), st.randoms())
def test_order_does_not_matter(data, rnd):
    xs, ys, ws = data
    order = list(range(len(xs)))
    rnd.shuffle(order)
    px, py, pw = ([v[i] for i in order] for v in (xs, ys, ws))
    assert quercus.information_gain(px, py, pw) == pytest.approx(
        quercus.information_gain(xs, ys, ws)
    )


def test_unknown_values_as_c45():
    # The 14 days with the outlook of one overcast day unknown (C4.5's worked example):
    # gain = 13/14 * (0.961 - 0.747) = 0.199, split info over 5, 3, 5 and 1 unknown = 1.809,
    # gain ratio = 0.110.
    df = datasets.load("playtennis")
    outlook = df["Outlook"].copy()
    outlook.iloc[11] = "?"  # D12: Overcast, Mild, High, Strong, Yes
    y = df["PlayTennis"]
    assert quercus.information_gain(outlook, y) == pytest.approx(0.199, abs=1e-3)
    assert quercus.split_information(outlook) == pytest.approx(1.809, abs=1e-3)
    assert quercus.gain_ratio(outlook, y) == pytest.approx(0.110, abs=1e-3)
    table = quercus.gain_table(df.assign(Outlook=outlook), "PlayTennis")
    assert table.loc["Outlook", "information_gain"] == pytest.approx(0.199, abs=1e-3)
    assert table.loc["Outlook", "split_information"] == pytest.approx(1.809, abs=1e-3)
    # NaN and None are missing too.
    assert quercus.information_gain(outlook.replace("?", None), y) == pytest.approx(
        quercus.information_gain(outlook, y)
    )


def test_numeric_threshold_gain():
    # weather.numeric's humidity and play; the cut "humidity <= 80" scored by hand.
    humidity = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]
    play = list("nnyyynynyyyyyn")
    left = [p for h, p in zip(humidity, play, strict=True) if h <= 80]
    right = [p for h, p in zip(humidity, play, strict=True) if h > 80]
    by_hand = quercus.entropy(play) - (
        len(left) / 14 * quercus.entropy(left) + len(right) / 14 * quercus.entropy(right)
    )
    assert quercus.information_gain(humidity, play, threshold=80) == pytest.approx(by_hand)
    # The table's cut is the best of all midpoints, each scored on its own.
    distinct = sorted(set(humidity))
    cuts = [(a + b) / 2 for a, b in zip(distinct, distinct[1:], strict=False)]
    scores = [quercus.information_gain(humidity, play, threshold=t) for t in cuts]
    table = quercus.gain_table(pd.DataFrame({"humidity": humidity}), play)
    assert table.loc["humidity", "threshold"] == cuts[int(np.argmax(scores))]
    assert table.loc["humidity", "information_gain"] == pytest.approx(max(scores))


def test_ordinal_threshold_is_a_level():
    frame = pd.DataFrame({"size": ["S", "M", "L", "L", "S", "M"]})
    y = ["n", "n", "y", "y", "n", "y"]
    table = quercus.gain_table(frame, y, ordinal={"size": ["S", "M", "L"]})
    assert table.loc["size", "kind"] == "ordinal"
    assert table.loc["size", "threshold"] == "S"
    assert table.loc["size", "information_gain"] == pytest.approx(
        quercus.information_gain(["S" if s == "S" else "ML" for s in frame["size"]], y)
    )


def test_gain_table_of_a_numeric_target_is_its_variance_decrease():
    # A numeric target: each attribute's variance decrease (the tree's own numbers), best
    # first, without the measures of classes (information gain, split information, gain
    # ratio, Gini decrease) that mean nothing there.
    df = datasets.load("abalone")
    X, y = df.iloc[:, :-1], df["Class_Rings"]  # 28 whole numbers: more than 20, numbers
    table = quercus.gain_table(df, "Class_Rings")
    assert list(table.columns) == ["kind", "variance_decrease", "threshold"]
    assert table["variance_decrease"].is_monotonic_decreasing
    binary = quercus.CARTRegressor(max_depth=1).fit(X, y, trace=True).trace_.node(0)
    multiway = quercus.DecisionTreeRegressor(max_depth=1, nominal_split="multiway")
    by_tree = {
        **binary.set_index("attribute")["gain"],
        "Sex": multiway.fit(X, y, trace=True).trace_.node(0).set_index("attribute")["gain"]["Sex"],
    }
    for attribute, decrease in table["variance_decrease"].items():
        assert decrease == pytest.approx(by_tree[attribute], rel=1e-9), attribute
    chosen = binary.set_index("attribute")["split"]["Shell weight"]
    assert chosen == f"Shell weight <= {table.loc['Shell weight', 'threshold']:g}"
    # Missing values count as C4.5 counts them: the decrease on the known ones, scaled.
    x = X[["Length"]].copy()
    x.iloc[::4, 0] = np.nan
    known = x["Length"].notna().to_numpy()
    scaled = quercus.gain_table(x, y)["variance_decrease"].item()
    on_known = quercus.gain_table(x[known], y[known])["variance_decrease"].item()
    assert scaled == pytest.approx(known.mean() * on_known)
    # Classes when asked for, or when the numbers are few whole ones.
    assert "information_gain" in quercus.gain_table(X, y, regression=False)
    assert "information_gain" in quercus.gain_table(X, (y > 9).astype(int))
    assert list(quercus.gain_table(X, (y > 9).astype(int), regression=True).columns) == [
        "kind",
        "variance_decrease",
        "threshold",
    ]
    with pytest.raises(ValueError, match="sort_by must be one of .*numeric target"):
        quercus.gain_table(X, y, sort_by="gain_ratio")


def test_errors():
    with pytest.raises(ValueError, match="sample_weight has 2 values for 3 examples"):
        quercus.entropy([1, 2, 3], sample_weight=[1, 1])
    with pytest.raises(ValueError, match="non-negative"):
        quercus.entropy([1, 2], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="y has missing values"):
        quercus.entropy(["a", None])
    with pytest.raises(ValueError, match="x has 2 values but y has 3"):
        quercus.information_gain([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="sort_by must be one of"):
        quercus.gain_table(pd.DataFrame({"a": [1]}), [0], sort_by="gain")
    with pytest.raises(quercus.DataError, match="class column 'zz' not found"):
        quercus.gain_table(pd.DataFrame({"a": [1]}), "zz")
    assert np.isclose(quercus.entropy(np.array(["a"])), 0.0)


def test_a_pure_distribution_has_entropy_zero_not_negative_zero():
    value = quercus.entropy(["a", "a", "a"])
    assert value == 0.0 and np.copysign(1.0, value) == 1.0
    assert f"{value:.3f}" == "0.000"
