"""Binning: exact bins reproduce the real-valued tests; quantile bins keep edges between values."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from quercus.binning import (
    ONE_BYTE_MIN_ROWS,
    fit_bins,
    numeric_bins,
    numeric_edges,
    resolve_max_bins,
)
from quercus.binning.binned import bin_rows
from quercus.data import infer_schema

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)
with_nan = st.one_of(finite, st.just(np.nan), st.sampled_from([0.0, 1.0, 2.5]))


@pytest.mark.filterwarnings("ignore:column 'v' is entirely missing")
@given(arrays(np.float64, st.integers(1, 60), elements=with_nan))
@settings(max_examples=200, deadline=None)
def test_exact_bins_are_distinct_values_and_tests_agree(values):
    edges = numeric_edges(values, max_bins=None)
    distinct = np.unique(values[~np.isnan(values)])
    assert len(edges) == max(len(distinct) - 1, 0)
    frame = pd.DataFrame({"v": values})
    typed, schema = infer_schema(frame)
    mapper = fit_bins(typed, schema, max_bins=None)
    codes = mapper.transform(typed)[:, 0]
    assert (codes[np.isnan(values)] == mapper.missing).all()
    known = ~np.isnan(values)
    # bin <= b exactly when x <= edges[b]: the binned search is the exact search.
    for b, edge in enumerate(edges):
        assert np.array_equal(codes[known] <= b, values[known] <= edge)
    # One bin per distinct value.
    assert len(np.unique(codes[known])) == len(distinct)


@given(arrays(np.float64, st.integers(2, 400), elements=finite), st.integers(2, 16))
@settings(max_examples=100, deadline=None)
def test_quantile_edges_lie_between_observed_values(values, max_bins):
    edges = numeric_edges(values, max_bins=max_bins)
    distinct = np.unique(values)
    assert len(edges) <= max_bins - 1
    assert np.all(np.diff(edges) > 0)
    for e in edges:
        below = distinct[distinct <= e]
        above = distinct[distinct > e]
        assert len(below) and len(above)  # a real cut between two observed values


def test_quantile_bins_are_balanced():
    values = np.arange(10_000, dtype=np.float64)
    edges = numeric_edges(values, max_bins=10)
    counts = np.bincount(np.searchsorted(edges, values, side="left"))
    assert len(counts) == 10 and counts.min() >= 990 and counts.max() <= 1010


def test_auto_rule():
    assert resolve_max_bins("auto", 50_000, 40_000) is None
    assert resolve_max_bins("auto", 50_001, 255) is None
    assert resolve_max_bins("auto", 50_001, 256) == 255
    assert resolve_max_bins(None, 10**6, 10**6) is None
    assert resolve_max_bins(32, 100, 20) is None
    assert resolve_max_bins(32, 100, 64) == 32
    for bad in ["many", 1, 2.5, True]:
        with pytest.raises(ValueError, match="max_bins must be"):
            resolve_max_bins(bad, 10, 10)


def test_nominal_codes_pass_through_and_dtype():
    frame = pd.DataFrame({"c": ["b", "a", None, "b"], "v": [0.5, 0.5, 1.5, np.nan]})
    typed, schema = infer_schema(frame)
    mapper = fit_bins(typed, schema)
    binned = mapper.transform(typed)
    # Small data: 2-byte codes (one width of the kernels to compile), 1 byte from 200k rows.
    assert binned.dtype == np.uint16 and binned.flags.f_contiguous
    assert list(binned[:, 0]) == [1, 0, 65535, 1]
    assert list(binned[:, 1]) == [0, 0, 1, 65535]
    assert mapper.threshold(1, 0) == 1.0
    wide = pd.DataFrame({"v": np.arange(300, dtype=float)})
    typed, schema = infer_schema(wide)
    assert fit_bins(typed, schema, max_bins=None).transform(typed).dtype == np.uint16
    large = pd.concat([frame] * 50_000, ignore_index=True)
    typed, schema = infer_schema(large)
    assert fit_bins(typed, schema).transform(typed).dtype == np.uint8


@pytest.mark.parametrize(("n_values", "dtype"), [(255, np.uint8), (256, np.uint16)])
def test_bins_and_the_missing_code_share_the_smallest_dtype(n_values, dtype):
    """Codes 0 .. 254 and the missing code 255 fit in uint8: 255 bins, the most of
    ``max_bins="auto"``, take one byte per value (on data of ONE_BYTE_MIN_ROWS rows)."""
    values = np.append(np.arange(n_values, dtype=float), np.nan)
    values = np.tile(values, -(-ONE_BYTE_MIN_ROWS // len(values)))
    typed, schema = infer_schema(pd.DataFrame({"v": values}))
    mapper = fit_bins(typed, schema, max_bins=None)
    codes = bin_rows(mapper, typed)
    assert codes.dtype == dtype and mapper.missing == np.iinfo(dtype).max
    assert list(codes[: n_values + 1, 0]) == [*range(n_values), mapper.missing]
    assert np.all(codes[:, 1:] == 0)  # the padding


@given(arrays(np.float64, st.integers(1, 300), elements=with_nan), st.sampled_from([None, 4, 16]))
@settings(max_examples=100, deadline=None)
def test_bin_ranges_are_the_extremes_of_each_bin(values, max_bins):
    edges, lo, hi = numeric_bins(values, max_bins)
    known = values[~np.isnan(values)]
    if len(np.unique(known)) < 2:
        return
    codes = np.searchsorted(edges, known, side="left")
    assert len(lo) == len(hi) == len(edges) + 1
    for b in range(len(edges) + 1):
        inside = known[codes == b]
        assert len(inside) and lo[b] == inside.min() and hi[b] == inside.max()
