"""Prediction data as the routing matrix (``quercus.data.encode.align_matrix``): each
category matched once per distinct value, checked against a reading of every value by the
rules of ``align_frame`` (missing markers, unseen categories, numbers read as the text of a
category), and the same predictions as through typed columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quercus
from quercus.data.encode import align_codes, align_frame, align_matrix
from quercus.data.schema import NOMINAL_KIND, ORDINAL_KIND, Feature, Schema

CATEGORIES = ("a", "b", "2", "10")
# Values a prediction file or frame may hold: categories, missing markers, unseen values,
# and numbers that are the text of a category (2.0 is the category "2").
VALUES = [
    "a", "b", "2", "10", "", "?", " ? ", "c", "A", " a", None, np.nan, 2.0, 10.0, 3.0, 2.5,
]


def expected_codes(values, categories) -> tuple[list[int], int]:
    """Every value read on its own, as the rules say: a missing marker is missing (-1), a
    category's text (a whole number as its integer's text) is that category, anything else
    is an unseen category, made missing and counted."""
    codes, unseen = [], 0
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            codes.append(-1)
        elif isinstance(v, str) and v.strip() in ("", "?"):
            codes.append(-1)
        else:
            text = str(v)
            if text not in categories and isinstance(v, float) and v.is_integer():
                text = str(int(v))
            if text in categories:
                codes.append(categories.index(text))
            else:
                codes.append(-1)
                unseen += 1
    return codes, unseen


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VALUES), min_size=1, max_size=40), st.booleans())
def test_codes_match_a_reading_of_every_value(values, ordinal):
    feature = Feature("f", ORDINAL_KIND if ordinal else NOMINAL_KIND, CATEGORIES)
    column = pd.Series(values, dtype=object)
    codes, unseen = align_codes(feature, column)
    assert (codes.tolist(), unseen) == expected_codes(values, list(CATEGORIES))


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["a", "b", None, "c", "?"], dtype="str"),  # pandas' string dtype
        pd.Series(pd.Categorical(["b", "a", None, "zz"])),
        pd.Series([2.0, 10.0, np.nan, 7.0]),  # numbers for text categories
        pd.Series([True, 1, "a", 1.0], dtype=object),  # equal values read differently
    ],
)
def test_codes_of_other_column_types(column):
    feature = Feature("f", NOMINAL_KIND, CATEGORIES)
    codes, unseen = align_codes(feature, column)
    values = [None if pd.isna(v) else v for v in column.astype(object)]
    assert (codes.tolist(), unseen) == expected_codes(values, list(CATEGORIES))


def test_the_matrix_is_the_typed_frames_codes():
    schema = Schema((Feature("x", "numeric"), Feature("f", NOMINAL_KIND, CATEGORIES)))
    frame = pd.DataFrame({"f": ["a", "?", "c", "10", None], "x": ["1.5", "", 3, 4.0, None]})
    matrix = align_matrix(frame, schema)
    typed = align_frame(frame, schema)
    codes = typed["f"].cat.codes.to_numpy().astype(float)
    codes[codes < 0] = np.nan
    expected = np.column_stack([typed["x"].to_numpy(dtype=float), codes])
    np.testing.assert_array_equal(matrix, expected)


def test_prediction_leaves_the_callers_frame_as_it_was():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({0: rng.choice(["u", "v"], 50), 1: rng.normal(size=50)})
    y = np.where(frame[0] == "u", "yes", "no")
    model = quercus.DecisionTreeClassifier().fit(frame, y)
    model.predict(frame)
    assert list(frame.columns) == [0, 1]  # not renamed to strings under the caller


def test_frame_and_array_of_objects_predict_alike():
    df = quercus.datasets.load("playtennis")
    X, y = df.iloc[:, :-1], df.iloc[:, -1]
    model = quercus.C45Classifier().fit(X, y)
    assert model.predict(X).tolist() == y.tolist()
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(X.to_numpy()))


def test_a_column_given_twice_is_an_error_naming_it():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1, 0, 1, 0]})
    model = quercus.DecisionTreeClassifier().fit(X, [0, 1, 0, 1])
    doubled = pd.DataFrame([[1.0, 2, 3.0], [4.0, 5, 6.0]], columns=["a", "b", "a"])
    for predict in (model.predict, model.predict_proba, model.apply):
        with pytest.raises(quercus.DataError, match="column 'a' appears more than once"):
            predict(doubled)
    extra = pd.DataFrame([[1.0, 2, 3.0, 4.0]], columns=["a", "b", "z", "z"])
    assert model.predict(extra).shape == (1,)  # columns the model does not read may repeat
