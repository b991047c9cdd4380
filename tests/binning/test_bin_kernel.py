"""The binning kernel against its NumPy twin: a search over every edge.

``bin_column`` starts each search from a grid of cells over the edges; the codes must be
exactly the number of edges below each value, for any values: clustered, spread over the
whole float range, subnormal, infinite, equal to an edge or one step from it, NaN."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from quercus.binning import bin_extremes_of
from quercus.binning._kernels import bin_column
from quercus.distributed.summaries import bin_extremes

MISSING = 255

any_float = st.floats(allow_nan=True, allow_infinity=True, width=64)
clustered = st.one_of(
    st.floats(-1.0, 1.0, width=64),
    st.floats(1e8, 1e8 + 1.0, width=64),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.7e308, -1.7e308]),
)


def search_twin(values: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """The number of edges below each value (NaN: the missing code), by np.searchsorted."""
    out = np.empty(values.shape, dtype=np.int64)
    for j, e in enumerate(edges):
        out[:, j] = np.searchsorted(e, values[:, j], side="left")
        out[np.isnan(values[:, j]), j] = MISSING
    return out


def kernel_codes(values: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """The codes of each column of ``values`` into a padded C-ordered matrix, as binning
    writes the rows the grower reads."""
    out = np.zeros((values.shape[0], values.shape[1] + 3), dtype=np.uint8)
    for j, e in enumerate(edges):
        bin_column(np.ascontiguousarray(values[:, j]), e.astype(np.float64), MISSING, out, j)
    assert not out[:, values.shape[1] :].any()  # the padding is left as it was
    return out[:, : values.shape[1]]


def _edges_and_queries(points: np.ndarray, n_edges: int):
    finite = np.unique(points[np.isfinite(points)])
    edges = finite[np.linspace(0, len(finite) - 1, min(n_edges, len(finite))).astype(int)]
    edges = np.unique(edges) if n_edges else np.zeros(0)
    with np.errstate(over="ignore"):  # the next float after the largest is inf
        steps = [np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)]
    queries = np.concatenate([points, edges, *steps])
    return edges, np.concatenate([queries, [np.inf, -np.inf, np.nan]])


@given(
    arrays(np.float64, st.integers(1, 200), elements=st.one_of(any_float, clustered)),
    st.integers(0, 254),
)
@settings(max_examples=300, deadline=None)
def test_codes_are_the_edges_below_each_value(points, n_edges):
    edges, queries = _edges_and_queries(points, n_edges)
    got = kernel_codes(queries[:, None], [edges])
    np.testing.assert_array_equal(got, search_twin(queries[:, None], [edges]))


def test_columns_with_many_shapes_at_once():
    rng = np.random.default_rng(0)
    n = 5000
    columns = [
        rng.normal(size=n),
        np.exp(rng.normal(scale=6, size=n)),  # heavy tail: many edges share a cell
        rng.integers(0, 4, n).astype(float),
        np.concatenate([np.arange(n - 1.0), [1e300]]),  # one far value stretches the grid
        np.full(n, 3.0),
    ]
    values = np.column_stack(columns)
    values[rng.random(values.shape) < 0.05] = np.nan
    edges = []
    for col in columns:
        distinct = np.unique(col)
        edges.append(distinct[np.linspace(0, len(distinct) - 1, 256).astype(int)][:-1])
    edges = [np.unique(e) for e in edges]
    np.testing.assert_array_equal(kernel_codes(values, edges), search_twin(values, edges))


@given(
    arrays(np.float64, st.integers(1, 200), elements=st.one_of(any_float, clustered)),
    st.integers(0, 254),
)
@settings(max_examples=200, deadline=None)
def test_bin_extremes_of_are_those_of_the_sorted_values(points, n_edges):
    edges, queries = _edges_and_queries(points, n_edges)
    lo, hi = bin_extremes_of(queries, edges)
    twin = bin_extremes(queries, edges)  # sorts the values, then splits them at the edges
    np.testing.assert_array_equal(lo, twin.lo)
    np.testing.assert_array_equal(hi, twin.hi)
