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


def _sampled_data(n=6000):
    rng = np.random.default_rng(5)
    X = np.column_stack(
        [
            rng.normal(size=n),
            np.exp(rng.normal(scale=3, size=n)),  # heavy tail
            rng.integers(0, 40, n).astype(float),  # ties: 40 values
            np.where(rng.random(n) < 0.1, np.nan, rng.uniform(size=n)),
        ]
    )
    y = X[:, 0] + np.sin(3 * np.nan_to_num(X[:, 3])) + rng.normal(scale=0.1, size=n)
    return X, y


def test_large_data_bins_come_from_a_sample_and_their_extremes_from_every_row(monkeypatch):
    """Above BIN_SAMPLE_ROWS the edges are a sample's, but each bin's smallest and largest
    value are those of all its rows, and every edge separates the bins' values."""
    import quercus.binning as binning

    X, _ = _sampled_data()
    typed, schema = infer_schema(pd.DataFrame(X, columns=list("abcd")))
    full = fit_bins(typed, schema, max_bins=32)
    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", 500)
    mapper = fit_bins(typed, schema, max_bins=32)
    assert fit_bins(typed, schema, max_bins=32).edges[0].tolist() == mapper.edges[0].tolist()
    assert not np.array_equal(mapper.edges[0], full.edges[0])  # a sample's edges
    codes = bin_rows(mapper, typed)
    for j in range(X.shape[1]):
        known = ~np.isnan(X[:, j])
        values, col = X[known, j], codes[known, j]
        edges, lo, hi = mapper.edges[j], mapper.lo[j], mapper.hi[j]
        assert len(lo) == len(hi) == len(edges) + 1
        for b in range(len(edges) + 1):
            inside = values[col == b]
            assert len(inside) and lo[b] == inside.min() and hi[b] == inside.max()
        assert np.all(hi[:-1] <= edges) and np.all(edges < lo[1:])
    # Without a budget the bins are exact: no sample.
    exact = fit_bins(typed, schema, max_bins=None)
    assert len(exact.edges[2]) == 39 and len(exact.edges[0]) == len(X) - 1


def test_a_tree_on_sampled_bins_routes_its_training_rows_as_it_grew_them(monkeypatch):
    """Each leaf of a full-depth tree on sampled bins holds, by its real-valued thresholds,
    exactly the training rows it was grown from: thresholds lie between training values."""
    import quercus.binning as binning
    from quercus import DecisionTreeRegressor

    monkeypatch.setattr(binning, "BIN_SAMPLE_ROWS", 300)
    X, y = _sampled_data()
    model = DecisionTreeRegressor(max_bins=16, random_state=0).fit(X, y)
    tree = model.tree_
    leaves = model.apply(X)
    counts = np.bincount(leaves, minlength=tree.node_count)
    is_leaf = tree.children_left < 0
    np.testing.assert_array_equal(counts[is_leaf], tree.n_node_samples[is_leaf])
    sums = np.bincount(leaves, weights=y, minlength=tree.node_count)
    np.testing.assert_allclose(model.predict(X), sums[leaves] / counts[leaves], rtol=1e-9)
