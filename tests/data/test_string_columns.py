"""Columns of strings are typed once per distinct string: the same result as a check of every
value (missing markers, strings that read as numbers, the warning of a mixed column)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus.data import schema
from quercus.data.schema import _is_missing_scalar, _missing_mask, type_column

CELLS = ["a", "b", "", " ", "?", " ? ", "1", "2.5", " 3 ", "nan", "inf", "1e3", "x y", None]
MISSING = [None, np.nan, pd.NA]


def typed(values, per_value: bool):
    """``type_column`` of ``values`` (its column and feature, and the warnings it gives),
    with the checks made per distinct string or, ``per_value``, on every value."""
    with pytest.MonkeyPatch.context() as patch:
        if per_value:
            patch.setattr(schema, "_all_strings", lambda values: False)
        schema._MIXED_WARNED.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            column, feature = type_column("c", values.copy())
    return column, feature, [str(w.message) for w in caught]


@given(
    cells=st.lists(st.sampled_from(CELLS), min_size=1, max_size=40),
    missing=st.lists(st.sampled_from(MISSING), max_size=3),
    string_dtype=st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_strings_are_typed_as_value_by_value(cells, missing, string_dtype):
    values = pd.Series(cells + missing, dtype="string" if string_dtype else object)
    expected = values.astype(object).map(_is_missing_scalar).to_numpy(dtype=bool)
    np.testing.assert_array_equal(_missing_mask(values.astype(object)), expected)
    column, feature, caught = typed(values, False)
    slow_column, slow_feature, slow_caught = typed(values, True)
    assert feature == slow_feature
    assert caught == slow_caught
    if isinstance(column, pd.Categorical):
        assert list(column.categories) == list(slow_column.categories)
        assert column.categories.dtype == slow_column.categories.dtype
        np.testing.assert_array_equal(column.codes, slow_column.codes)
    else:
        np.testing.assert_array_equal(np.asarray(column), np.asarray(slow_column))
