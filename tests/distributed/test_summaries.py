"""Mergeable bin summaries: exact summaries give the local bins bit for bit, compressed ones
keep every quantile edge within the documented rank error of its target."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus import DataError
from quercus.binning import bins_from_distinct, numeric_bins
from quercus.distributed.summaries import (
    BinExtremes,
    bin_extremes,
    extremes_of_codes,
    merge,
    merge_depth,
    merge_extremes,
    numeric_bins_from_summary,
    quantile_rank_error,
    summarize,
)

ADULT_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "hours-per-week"]
LARGE = 1 << 20  # a capacity no test column reaches: summaries stay exact


def split(values, n_parts, rng):
    """``values`` dealt to ``n_parts`` partitions at random (some may be empty)."""
    owner = rng.integers(0, n_parts, size=len(values))
    return [values[owner == p] for p in range(n_parts)]


def tree_merge(summaries, capacity):
    """Merge two by two, as a reduction over a cluster does."""
    level = list(summaries)
    while len(level) > 1:
        pairs = [level[i : i + 2] for i in range(0, len(level), 2)]
        level = [merge(pair, capacity) for pair in pairs]
    return level[0]


def assert_same_bins(got, want):
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.fixture
def adult(shared):
    return pd.read_csv(shared("adult_train.csv"), usecols=ADULT_NUMERIC, skipinitialspace=True)


def test_bins_from_distinct_is_numeric_bins_body():
    rng = np.random.default_rng(0)
    values = np.round(rng.normal(size=3000), 2)
    distinct, counts = np.unique(values, return_counts=True)
    for max_bins in ("auto", None, 16):
        assert_same_bins(
            bins_from_distinct(distinct, counts, max_bins), numeric_bins(values, max_bins)
        )


@pytest.mark.parametrize("column", ADULT_NUMERIC)
def test_exact_summaries_of_partitions_give_the_local_bins(adult, column):
    rng = np.random.default_rng(17)
    values = adult[column].to_numpy(dtype=np.float64)
    values[rng.random(len(values)) < 0.02] = np.nan  # missing cells are counted apart
    for max_bins in ("auto", None, 32, 255):
        want = numeric_bins(values, max_bins)
        for n_parts in (1, 2, 4, 7):
            parts = split(values, n_parts, rng)
            summaries = [summarize(p, LARGE) for p in parts]
            for order in (rng.permutation(n_parts) for _ in range(3)):
                ordered = [summaries[i] for i in order]
                for merged in (merge(ordered, LARGE), tree_merge(ordered, LARGE)):
                    assert merged.exact
                    assert merged.n_values == np.count_nonzero(~np.isnan(values))
                    assert merged.n_missing == np.count_nonzero(np.isnan(values))
                    assert_same_bins(numeric_bins_from_summary(merged, max_bins), want)


def test_merge_of_exact_summaries_is_exact_until_capacity():
    a, b = summarize(np.arange(6.0), 10), summarize(np.arange(4.0, 10.0), 10)
    assert a.exact and b.exact
    assert merge([a, b], 10).exact  # 10 distinct values
    assert not merge([a, b, summarize(np.array([10.5]), 10)], 10).exact


def test_special_partitions_nan_only_single_value_empty_and_huge():
    columns = [
        np.array([np.nan, np.nan]),
        np.array([3.0, 3.0, 3.0]),
        np.array([], dtype=np.float64),
        np.array([-1e308, 1.0, np.nan, 2.0]),
        np.array([1.0, 7.5, 1.7976931348623157e308]),
    ]
    everything = np.concatenate(columns)
    for order in itertools.permutations(range(len(columns))):
        merged = tree_merge([summarize(columns[i], 64) for i in order], 64)
        assert merged.exact and merged.n_missing == 3 and merged.n_values == 9
        for max_bins in ("auto", None, 2):
            assert_same_bins(
                numeric_bins_from_summary(merged, max_bins), numeric_bins(everything, max_bins)
            )
    # A column of nothing, or of one value, has no edge and the bins numeric_bins gives.
    for column in columns[:3]:
        assert_same_bins(
            numeric_bins_from_summary(summarize(column, 2), "auto"), numeric_bins(column)
        )


def test_compressed_summary_keeps_extremes_capacity_points_and_weight():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(size=5000), np.zeros(3000), [-1e300, 1e300]])
    summary = summarize(values, 50)
    assert not summary.exact
    assert len(summary.values) == 50 and np.all(np.diff(summary.values) > 0)
    assert summary.values[0] == -1e300 and summary.values[-1] == 1e300
    assert np.isin(summary.values, values).all()  # every point is a training value
    assert summary.weights.sum() == summary.n_values == len(values)
    assert np.all(summary.weights > 0) and np.all(summary.weights == np.round(summary.weights))


def test_merge_order_does_not_matter_for_compressed_inputs():
    rng = np.random.default_rng(5)
    summaries = [summarize(rng.normal(size=2000), 64) for _ in range(4)]
    want = merge(summaries, 64)
    for order in itertools.permutations(range(4)):
        got = merge([summaries[i] for i in order], 64)
        np.testing.assert_array_equal(got.values, want.values)
        np.testing.assert_array_equal(got.weights, want.weights)


def summary_rank(summary, x):
    """The summary's rank of ``x``: the weight of its points ``<= x``."""
    cumulative = np.concatenate([[0.0], np.cumsum(summary.weights)])
    return cumulative[np.searchsorted(summary.values, x, side="right")]


def assert_edges_within_bound(edges, summary, ordered, max_bins, bound):
    """The documented bound, both ways: every edge ``e`` serves a target rank ``t = N b /
    max_bins`` with ``t <= r(e) < t + m + bound * N`` (``m`` the count of the summary point
    below ``e``), and every target is served by an edge or falls in the last bin; each edge
    lies in [point, next point)."""
    n = len(ordered)
    ranks = np.searchsorted(ordered, edges, side="right")  # r(e) = #{rows <= e}
    at = np.searchsorted(summary.values, edges, side="right")
    below, above = summary.values[at - 1], summary.values[at]
    assert np.all(below <= edges) and np.all(edges < above)
    ties = np.searchsorted(ordered, below, side="right") - np.searchsorted(ordered, below, "left")
    top_ties = n - np.searchsorted(ordered, ordered[-1], side="left")
    targets = n * np.arange(1, max_bins) / max_bins
    for rank, tie in zip(ranks, ties, strict=True):
        served = targets[targets <= rank]
        assert len(served) and rank < served[-1] + tie + bound * n
    for target in targets:
        by_edge = (target <= ranks) & (ranks < target + ties + bound * n)
        assert by_edge.any() or n < target + top_ties + bound * n


def million_values(kind, rng):
    if kind == "continuous":
        return rng.standard_normal(1_000_000) * np.exp(rng.standard_normal(1_000_000))
    # Heavy ties: 30 % zeros, 10 % ones, counts of a long-tailed integer, a continuous rest.
    return np.concatenate(
        [
            np.zeros(300_000),
            np.ones(100_000),
            rng.zipf(1.3, 300_000).astype(np.float64),
            rng.exponential(size=300_000),
        ]
    )


@pytest.mark.parametrize("kind", ["continuous", "ties"])
def test_compressed_quantile_edges_within_the_rank_bound(kind):
    rng = np.random.default_rng(11)
    values = million_values(kind, rng)
    ordered = np.sort(values)
    for capacity, n_parts in itertools.product((2048, 8192), (1, 2, 8, 32)):
        summaries = [
            summarize(p, capacity) for p in np.array_split(rng.permutation(values), n_parts)
        ]
        merged = tree_merge(summaries, capacity)
        assert not merged.exact and merged.n_values == len(values)
        # The summary's rank of every value is at most the true rank, and less than
        # eps * N below it (eps = half the edge bound).
        eps = quantile_rank_error(capacity, merge_depth(n_parts)) / 2
        probe = ordered[::97]
        gap = np.searchsorted(ordered, probe, side="right") - summary_rank(merged, probe)
        assert gap.min() >= 0 and gap.max() < eps * len(values)
        edges, _, _ = numeric_bins_from_summary(merged, "auto")
        assert 0 < len(edges) <= 254
        bound = quantile_rank_error(capacity, merge_depth(n_parts))
        assert_edges_within_bound(edges, merged, ordered, 255, bound)


@given(
    st.lists(st.integers(0, 40) | st.floats(-5, 5, width=16), min_size=2, max_size=400),
    st.integers(2, 12),
    st.integers(1, 9),
    st.integers(2, 20),
    st.randoms(use_true_random=False),
)
@settings(max_examples=150, deadline=None)
def test_rank_bound_holds_for_small_capacities(values, capacity, n_parts, max_bins, random):
    values = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(random.randrange(2**32))
    merged = tree_merge([summarize(p, capacity) for p in split(values, n_parts, rng)], capacity)
    ordered = np.sort(values)
    eps = quantile_rank_error(capacity, merge_depth(n_parts)) / 2
    gap = np.searchsorted(ordered, ordered, side="right") - summary_rank(merged, ordered)
    assert gap.min() >= 0
    assert gap.max() == 0 if merged.exact else gap.max() < eps * len(values)
    if merged.exact:
        assert_same_bins(
            numeric_bins_from_summary(merged, max_bins), numeric_bins(values, max_bins)
        )
    elif max_bins > capacity:  # more bins asked for than the column is known to have values
        with pytest.raises(ValueError, match="larger capacity"):
            numeric_bins_from_summary(merged, max_bins)
    else:
        edges, _, _ = numeric_bins_from_summary(merged, max_bins)
        bound = quantile_rank_error(capacity, merge_depth(n_parts))
        assert_edges_within_bound(edges, merged, ordered, max_bins, bound)


def test_second_pass_gives_the_exact_extremes_of_each_bin():
    rng = np.random.default_rng(8)
    values = np.concatenate([rng.gamma(2.0, size=40_000), np.full(5_000, 1.5), [np.nan] * 10])
    parts = split(values, 5, rng)
    merged = tree_merge([summarize(p, 300) for p in parts], 300)
    edges, lo, hi = numeric_bins_from_summary(merged, 64)
    extremes = [bin_extremes(p, edges) for p in parts]
    total = extremes[0]
    for more in extremes[1:]:
        total = merge_extremes(total, more)
    known = values[~np.isnan(values)]
    bins = np.searchsorted(edges, known, side="left")
    want_lo = pd.Series(known).groupby(bins).min().to_numpy()
    want_hi = pd.Series(known).groupby(bins).max().to_numpy()
    np.testing.assert_array_equal(total.lo, want_lo)
    np.testing.assert_array_equal(total.hi, want_hi)
    # The summary's own lo/hi are training values inside each bin, so only provisional.
    assert np.all(lo >= want_lo) and np.all(hi <= want_hi)
    assert np.any(lo > want_lo) or np.any(hi < want_hi)


@pytest.mark.parametrize("seed", range(4))
def test_extremes_of_codes_are_bin_extremes(seed):
    """The one-pass kernel over bin codes against its NumPy twin, the sort of
    :func:`bin_extremes`: gaps, ties at the edges, NaN, empty bins, no values."""
    rng = np.random.default_rng(seed)
    edges = np.unique(rng.normal(size=rng.integers(1, 40)).round(1))
    for n in (0, 1, 7, 5_000):
        values = rng.normal(scale=2.0, size=n).round(rng.integers(0, 3))
        at_edge = rng.random(n) < 0.1
        values[at_edge] = rng.choice(edges, size=int(at_edge.sum()))
        values[rng.random(n) < 0.1] = np.nan
        codes = np.searchsorted(edges, values, side="left")  # BinMapper's codes
        codes[np.isnan(values)] = len(edges) + 1  # the missing code
        got = extremes_of_codes(values, codes.astype(np.uint8), len(edges))
        want = bin_extremes(values, edges)
        np.testing.assert_array_equal(got.lo, want.lo)
        np.testing.assert_array_equal(got.hi, want.hi)


def test_infinite_value_is_a_data_error_naming_column_and_row():
    with pytest.raises(
        DataError, match=r"column 'pay' has an infinite value \(-inf\) in row 2"
    ) as info:
        summarize(np.array([1.0, np.nan, -np.inf, np.inf]), 8, column="pay")
    assert info.value.column == "pay"
    with pytest.raises(DataError, match=r"^a column has an infinite value \(inf\) in row 0"):
        summarize(np.array([np.inf]), 8)


def test_bin_extremes_of_empty_bins():
    edges = np.array([0.0, 1.0, 2.0])
    got = bin_extremes(np.array([-5.0, 0.0, 2.0, 1.5, np.nan, 9.0]), edges)
    np.testing.assert_array_equal(got.lo, [-5.0, np.nan, 1.5, 9.0])
    np.testing.assert_array_equal(got.hi, [0.0, np.nan, 2.0, 9.0])
    empty = bin_extremes(np.array([]), edges)
    assert np.isnan(empty.lo).all() and np.isnan(empty.hi).all()
    merged = merge_extremes(empty, got)
    np.testing.assert_array_equal(merged.lo, got.lo)
    with pytest.raises(ValueError, match="different binnings"):
        merge_extremes(got, BinExtremes(np.zeros(2), np.zeros(2)))


@pytest.mark.parametrize("capacity", [1, 0, -3, 2.5, True, "8"])
def test_capacity_below_two_is_a_clear_error(capacity):
    with pytest.raises(ValueError, match="capacity must be an integer >= 2"):
        summarize(np.arange(5.0), capacity)
    with pytest.raises(ValueError, match="capacity"):
        merge([summarize(np.arange(5.0), 8)], capacity)


def test_compressed_summary_refuses_exact_bins_naming_capacity():
    summary = summarize(np.arange(1000.0), 100)
    for max_bins in (None, "auto", 200):  # 1000 rows: "auto" is exact up to 50,000 rows
        with pytest.raises(ValueError, match="larger capacity"):
            numeric_bins_from_summary(summary, max_bins)
    edges, _, _ = numeric_bins_from_summary(summary, 10)
    assert len(edges) == 9
    with pytest.raises(ValueError, match="at least one summary"):
        merge([], 8)
    with pytest.raises(ValueError, match="depth"):
        quantile_rank_error(8, -1)
