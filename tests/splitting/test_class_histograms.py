"""The kernels of histogram subtraction against NumPy twins, on random data.

A node's histograms (every feature's class weights per bin, missing values in a last bin)
are sums over its rows; a split node's children share its rows out, so the histograms of
one child are the parent's less the other children's. With whole positive weights every
sum is exact, so the kernels must agree with the twins bit for bit, and a feature's
statistics read from the histograms must be those :func:`feature_stats` sums row by row.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus.splitting._histogram import (
    class_histograms,
    feature_stats,
    stats_of_histogram,
    stats_scratch,
    subtract_histograms,
    take_out_rows,
)


@st.composite
def nodes(draw):
    """Codes (the dtype's largest value: missing), classes, whole positive weights, the
    number of bins of the widest feature, and a node's rows cut in two at ``cut``."""
    dtype = draw(st.sampled_from([np.uint8, np.uint16]))
    missing = np.iinfo(dtype).max
    n = draw(st.integers(1, 60))
    p = draw(st.integers(1, 4))
    n_bins = draw(st.integers(1, 9))
    n_classes = draw(st.integers(1, 4))
    codes = draw(
        st.lists(st.one_of(st.integers(0, n_bins - 1), st.just(-1)), min_size=n * p, max_size=n * p)
    )
    x = np.asarray(codes).reshape(n, p)
    x = np.where(x < 0, missing, x).astype(dtype)
    y = np.asarray(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    w = np.asarray(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=np.float64)
    start = draw(st.integers(0, n - 1))
    end = draw(st.integers(start + 1, n))
    cut = draw(st.integers(start, end))
    return x, y.astype(np.int64), w, n_bins, n_classes, missing, start, end, cut


def twin_histograms(x, y, w, start, end, n_bins, n_classes, missing):
    """The definition: class weights per feature and bin, missing values last."""
    p = x.shape[1]
    out = np.zeros((p, n_bins + 1, n_classes))
    for f in range(p):
        codes = x[start:end, f].astype(np.int64)
        codes[codes == missing] = n_bins
        np.add.at(out[f], (codes, y[start:end]), w[start:end])
    return out


def _histograms(x, y, w, start, end, n_bins, n_classes, missing):
    out = np.full((x.shape[1], n_bins + 1, n_classes), np.nan)  # every cell must be set
    class_histograms(x, y, w, start, end, missing, out)
    return out


SETTINGS = settings(max_examples=150, deadline=None)


@given(nodes())
@SETTINGS
def test_class_histograms_match_twin(case):
    x, y, w, n_bins, n_classes, missing, start, end, _ = case
    np.testing.assert_array_equal(
        _histograms(x, y, w, start, end, n_bins, n_classes, missing),
        twin_histograms(x, y, w, start, end, n_bins, n_classes, missing),
    )


@given(nodes())
@SETTINGS
def test_subtraction_gives_the_other_child_exactly(case):
    x, y, w, n_bins, n_classes, missing, start, end, cut = case
    args = (n_bins, n_classes, missing)
    right = twin_histograms(x, y, w, cut, end, *args)
    by_histogram = _histograms(x, y, w, start, end, *args)
    subtract_histograms(by_histogram, _histograms(x, y, w, start, cut, *args))
    np.testing.assert_array_equal(by_histogram, right)
    by_rows = _histograms(x, y, w, start, end, *args)
    take_out_rows(x, y, w, start, cut, missing, by_rows)
    np.testing.assert_array_equal(by_rows, right)


@given(nodes())
@SETTINGS
def test_stats_read_from_histograms_are_feature_stats(case):
    x, y, w, n_bins, n_classes, missing, start, end, _ = case
    hist = _histograms(x, y, w, start, end, n_bins, n_classes, missing)
    n = len(y)
    for f in range(x.shape[1]):
        got = (np.zeros(n_bins, np.int64), np.zeros((n_bins, n_classes)), np.zeros((1, n_classes)))
        n_got = stats_of_histogram(hist, f, n_bins, *got)
        want = (np.zeros(n_bins, np.int64), np.zeros((n_bins, n_classes)), np.zeros((1, n_classes)))
        n_want = feature_stats(
            x,
            y,
            np.zeros(n),
            w,
            start,
            end,
            f,
            n_bins,
            missing,
            False,
            np.zeros((n_bins, n_classes)),
            *want,
            np.zeros(n, np.int64),
            np.zeros(n, x.dtype),
            stats_scratch(n, n_bins, x[:1, 0]),
        )
        assert n_got == n_want
        np.testing.assert_array_equal(got[0][:n_got], want[0][:n_want])
        np.testing.assert_array_equal(got[1][:n_got], want[1][:n_want])
        np.testing.assert_array_equal(got[2], want[2])
