"""Matching prediction data to a fitted schema; class codes."""

import logging

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.binning import fit_bins
from quercus.data import DataError, align_frame, encode_classes, infer_schema


@pytest.fixture
def fitted():
    train = pd.DataFrame({"colour": ["red", "blue", "red"], "size": [1.0, 2.0, 3.0]})
    return infer_schema(train)


def test_unseen_category_becomes_missing(fitted, caplog):
    typed, schema = fitted
    new = pd.DataFrame({"size": [5, None], "colour": ["green", "blue"], "extra": [1, 2]})
    with caplog.at_level(logging.INFO, logger="quercus"):
        aligned = align_frame(new, schema)
    assert list(aligned.columns) == ["colour", "size"]
    assert pd.isna(aligned["colour"].iloc[0]) and aligned["colour"].iloc[1] == "blue"
    assert "1 value(s) of categories not seen in training" in caplog.text
    assert "ignoring columns not used by the model: ['extra']" in caplog.text
    mapper = fit_bins(typed, schema)
    binned = mapper.transform(aligned)
    assert binned[0, 0] == mapper.missing  # unseen -> the missing code
    assert binned[1, 0] == schema["colour"].categories.index("blue")


def test_missing_column_is_named(fitted):
    _, schema = fitted
    with pytest.raises(DataError, match="column 'size' is missing from the data"):
        align_frame(pd.DataFrame({"colour": ["red"]}), schema)


def test_words_in_numeric_column_are_named(fitted):
    _, schema = fitted
    with pytest.raises(DataError, match="column 'size' was numeric in training but holds 'big'"):
        align_frame(pd.DataFrame({"colour": ["red"], "size": ["big"]}), schema)


def test_array_without_names_uses_schema_order(fitted):
    _, schema = fitted
    aligned = align_frame(np.array([["red", 2.0]], dtype=object), schema)
    assert aligned["colour"].iloc[0] == "red" and aligned["size"].iloc[0] == 2.0


def test_numbers_match_string_categories():
    typed, schema = infer_schema(pd.DataFrame({"code": ["1", "2"]}))
    aligned = align_frame(pd.DataFrame({"code": [2, 3]}), schema)
    assert aligned["code"].iloc[0] == "2" and pd.isna(aligned["code"].iloc[1])


def test_encode_classes():
    codes, classes = encode_classes(["b", "a", "b"])
    assert list(classes) == ["a", "b"] and list(codes) == [1, 0, 1]
    codes, classes = encode_classes(pd.Series(["yes", "no"]), classes=["yes", "no"])
    assert list(codes) == [0, 1]
    with pytest.raises(DataError, match="class label 'maybe' is not one of"):
        encode_classes(["maybe"], classes=["yes", "no"])


def test_number_like_categories_read_back_as_numbers_still_match():
    # Trained on doors '2', '3', '4', '5more'; a file holding only 2, 3, 4 reads them as
    # numbers: they must still be those categories, not unseen values.
    train = pd.DataFrame({"doors": ["2", "3", "4", "5more", "2", "3"]})
    y = ["a", "b", "a", "b", "a", "b"]
    tree = quercus.ID3Classifier().fit(train, y)  # category labels: no warning
    as_numbers = pd.DataFrame({"doors": [2.0, 3.0, 4.0]})
    as_text = pd.DataFrame({"doors": ["2", "3", "4"]})
    assert tree.predict(as_numbers).tolist() == tree.predict(as_text).tolist() == ["a", "b", "a"]
