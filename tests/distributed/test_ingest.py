"""``ingest`` on a real Dask cluster gives the rows a local fit of the concatenated data
grows on: the same schema, classes, bins, codes, targets and weights, however the rows are
partitioned (1, 2 or 4 partitions, empty ones among them); compressed summaries give
quantile edges within the documented bound and the true extremes of each bin; bad input is
a clear error naming the column or partition at fault."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

from quercus.binning.binned import bin_frame, pad_rows  # noqa: E402
from quercus.data.errors import DataError  # noqa: E402
from quercus.distributed import summaries  # noqa: E402
from quercus.distributed.ingest import (  # noqa: E402
    MAX_VALUES,
    QUANTILE_CAPACITY,
    exact_sum,
    ingest,
    summary_capacity,
)
from quercus.estimators.validate import TabularInput, as_1d, classes_and_codes  # noqa: E402

PARTITIONS = (1, 2, 4)


class _Local(TabularInput):
    """The local estimators' input handling, alone."""

    def __init__(self, nominal=None, ordinal=None):
        self.nominal_features = nominal
        self.ordinal_features = ordinal


def _computed(value):
    return value.compute() if hasattr(value, "compute") else value


def local_rows(
    X, y, w=None, nominal=None, ordinal=None, max_bins="auto", regression=False, forest=False
):
    """What a local fit of the concatenated collections hands the grower (the steps of
    ``fit`` and ``_grow``; a local forest keeps the rows of weight 0)."""
    X, y, w = _computed(X), _computed(y), _computed(w)
    local = _Local(nominal, ordinal)
    typed = local._validate_X(X, reset=True)
    local._note_target(y)
    labels = as_1d(y, len(typed))
    w = local._check_sample_weight(w, len(labels))
    keep = np.ones(len(w), dtype=bool) if forest else w > 0
    if regression:
        classes, y_class = None, np.zeros(len(labels), dtype=np.int32)
        y_value = np.asarray(labels, dtype=np.float64)
    else:
        classes, codes = classes_and_codes(labels)
        y_class, y_value = codes.astype(np.int32), np.zeros(len(labels))
    return SimpleNamespace(
        schema=local.schema_,
        classes=classes,
        typed=typed[keep],
        data=bin_frame(typed[keep], local.schema_, max_bins),
        y_class=y_class[keep],
        y_value=y_value[keep],
        w=w[keep],
        n_features_in=local.n_features_in_,
        feature_names_in=getattr(local, "feature_names_in_", None),
    )


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit the same floats, but for the sign of a zero: of 0.0 and -0.0 among the
    values, ``np.unique`` keeps either, in the local path as in the summaries."""
    return a.dtype == b.dtype and (a + 0.0).tobytes() == (b + 0.0).tobytes()


def gathered(client, rows):
    """The parts of ``rows`` concatenated, as one local array each."""
    parts = client.gather(rows.parts)
    for part, n in zip(parts, rows.n_rows, strict=True):
        assert part[0].flags.c_contiguous and len(part[0]) == n > 0
        assert (part[1].dtype, part[2].dtype, part[3].dtype) == (np.int32, np.float64, np.float64)
    return [np.concatenate([part[i] for part in parts]) for i in range(4)]


def assert_same_rows(client, rows, local, exact_bins=True):
    """``rows`` (from ``ingest``) are those of ``local`` (from :func:`local_rows`)."""
    assert rows.schema == local.schema
    if local.classes is None:
        assert rows.classes is None
    else:
        np.testing.assert_array_equal(rows.classes, local.classes)
        assert rows.classes.dtype == local.classes.dtype
    mapper, expected = rows.mapper, local.data.mapper
    assert mapper.kinds == expected.kinds
    assert mapper.dtype == expected.dtype
    if exact_bins:
        np.testing.assert_array_equal(mapper.n_bins, expected.n_bins)
        for field in ("edges", "lo", "hi"):
            for mine, theirs in zip(getattr(mapper, field), getattr(expected, field), strict=True):
                if theirs is None:
                    assert mine is None
                else:
                    assert same_bits(mine, theirs), field
        np.testing.assert_array_equal(rows.bin_lo, local.data.bin_lo)
        np.testing.assert_array_equal(rows.bin_hi, local.data.bin_hi)
    np.testing.assert_array_equal(rows.kinds, local.data.kinds)
    binned, y_class, y_value, w = gathered(client, rows)
    # With bins of its own, the codes are still those of the local rows binned by them.
    expected_binned = local.data.binned if exact_bins else pad_rows(mapper.transform(local.typed))
    np.testing.assert_array_equal(binned, expected_binned)
    assert binned.dtype == expected_binned.dtype
    np.testing.assert_array_equal(y_class, local.y_class)
    np.testing.assert_array_equal(y_value, local.y_value)
    np.testing.assert_array_equal(w, local.w)
    assert rows.first_rows == [int(r) for r in np.cumsum([0, *rows.n_rows[:-1]])]
    assert rows.total_weight == float(local.w.sum())
    assert rows.n_features_in == local.n_features_in
    if local.feature_names_in is None:
        assert rows.feature_names_in is None
    else:
        np.testing.assert_array_equal(rows.feature_names_in, local.feature_names_in)


def _split(frame_or_series, n_parts):
    out = dd.from_pandas(frame_or_series, npartitions=n_parts, sort=False)
    assert out.npartitions == n_parts
    return out


def _credit(shared):
    """credit-a with a tenth of the cells of every attribute made missing."""
    raw = pd.read_csv(shared("credit-a.csv"), na_values=["?"])
    X, y = raw.iloc[:, :-1], raw.iloc[:, -1]
    rng = np.random.default_rng(3)
    X = X.mask(rng.random(X.shape) < 0.1)
    return X, y


# -- equality with the local path ------------------------------------------------------------


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_iris_as_locally(dask_client, shared, n_parts):
    raw = pd.read_csv(shared("iris.csv"))
    X, y = _split(raw.iloc[:, :-1], n_parts), _split(raw.iloc[:, -1], n_parts)
    rows = ingest(dask_client, X, y)
    assert_same_rows(dask_client, rows, local_rows(X, y))
    assert rows.schema.target == raw.columns[-1] and rows.compressed == ()


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_credit_with_missing_values_and_zero_weights_as_locally(dask_client, shared, n_parts):
    X, y = _credit(shared)
    w = pd.Series(np.random.default_rng(4).integers(0, 4, len(y)).astype(float))
    Xd, yd, wd = _split(X, n_parts), _split(y, n_parts), _split(w, n_parts)
    rows = ingest(dask_client, Xd, yd, wd)
    assert_same_rows(dask_client, rows, local_rows(Xd, yd, wd))
    assert sum(rows.n_rows) == int((w > 0).sum()) < len(w)


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_car_nominal_as_locally(dask_client, shared, n_parts):
    raw = pd.read_csv(shared("car.csv"))
    X, y = _split(raw.iloc[:, :-1], n_parts), _split(raw.iloc[:, -1].to_frame(), n_parts)
    # y a one-column frame: no target name, as locally. 'doors' ('2' ... '5more') reads as
    # category labels, without a warning, as locally; 'persons' is declared nominal.
    rows = ingest(dask_client, X, y, nominal=["persons"])
    assert_same_rows(dask_client, rows, local_rows(X, y, nominal=["persons"]))
    assert rows.schema.target is None
    assert all(kind == "nominal" for kind in rows.schema.kinds)


def _mixed_frame(n, seed):
    """Every kind of column: numbers with missing values, strings, a categorical, numeric
    codes to be forced nominal, an ordinal column, and a target."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(2)),
            "word": rng.choice(["alpha", "beta", "gamma", None], n),
            "cat": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
            "code": rng.integers(1, 6, n),
            "size": rng.choice(["small", "medium", "large", "?"], n),
        }
    )
    y = pd.Series(rng.integers(0, 3, n), name="label")
    w = pd.Series(rng.choice([0.0, 1.0, 2.0, 0.5], n))
    return frame, y, w


MIXED_OPTIONS = {"nominal": ["code"], "ordinal": {"size": ["small", "medium", "large"]}}


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_every_kind_of_column_as_locally(dask_client, n_parts):
    X, y, w = _mixed_frame(3000, seed=n_parts)
    Xd, yd, wd = _split(X, n_parts), _split(y, n_parts), _split(w, n_parts)
    rows = ingest(dask_client, Xd, yd, wd, **MIXED_OPTIONS)
    assert_same_rows(dask_client, rows, local_rows(Xd, yd, wd, **MIXED_OPTIONS))
    assert rows.schema.kinds == ["numeric", "nominal", "nominal", "nominal", "ordinal"]
    assert rows.schema["code"].categories == (1, 2, 3, 4, 5)


def test_categoricals_of_unknown_categories_united_as_dask_concatenates(dask_client):
    """Partitions whose categoricals hold different categories (unknown to X's metadata):
    the categories are their union, in the order Dask's concatenation gives."""
    frames = [
        pd.DataFrame({"c": pd.Categorical(list("xyx"), categories=["y", "x"]), "v": [1.0, 2, 3]}),
        pd.DataFrame({"c": pd.Categorical(list("zw"), categories=["w", "z", "q"]), "v": [4.0, 5]}),
    ]
    labels = [pd.Series([0, 1, 0]), pd.Series([1, 0])]
    meta = frames[0].iloc[:0].astype({"c": "category"})
    X = dd.from_delayed([dask.delayed(f) for f in frames], meta=meta, verify_meta=False)
    y = dd.from_delayed([dask.delayed(s) for s in labels], meta=labels[0].iloc[:0])
    rows = ingest(dask_client, X, y)
    assert rows.schema["c"].categories == ("y", "x", "w", "z", "q")
    assert_same_rows(dask_client, rows, local_rows(X, y))


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_dask_array_as_locally(dask_client, n_parts):
    rng = np.random.default_rng(n_parts)
    matrix = rng.normal(size=(900, 3)).round(1)
    matrix[rng.random(matrix.shape) < 0.05] = np.nan
    target = rng.integers(0, 2, 900)
    chunks = -(-900 // n_parts)
    X = da.from_array(matrix, chunks=(chunks, 2))  # chunked across columns too
    y = da.from_array(target, chunks=chunks)
    rows = ingest(dask_client, X, y)
    assert_same_rows(dask_client, rows, local_rows(X, y))
    assert rows.schema.names == ["x0", "x1", "x2"] and rows.feature_names_in is None


@pytest.mark.parametrize("convertible", [True, False])
def test_object_dask_array_as_locally(dask_client, convertible):
    """An object array is numbers when all of it converts to float64 (so the local path
    converts it), else typed column by column."""
    rng = np.random.default_rng(1)
    first = rng.choice([1, 2.5, None], 400) if convertible else rng.choice(["a", "b", None], 400)
    matrix = np.empty((400, 2), dtype=object)
    matrix[:, 0], matrix[:, 1] = first, rng.integers(0, 9, 400)
    X = da.from_array(matrix, chunks=(100, 2))
    y = da.from_array(rng.choice(["no", "yes"], 400), chunks=100)
    rows = ingest(dask_client, X, y)
    assert_same_rows(dask_client, rows, local_rows(X, y))
    assert rows.schema.kinds == ["numeric" if convertible else "nominal", "numeric"]


@pytest.mark.parametrize("n_parts", (1, 4))
def test_regression_as_locally(dask_client, shared, n_parts):
    X, y = _credit(shared)
    target = X.pop("A2").fillna(0.0)
    Xd, yd = _split(X, n_parts), _split(target, n_parts)
    rows = ingest(dask_client, Xd, yd, regression=True)
    assert_same_rows(dask_client, rows, local_rows(Xd, yd, regression=True))
    assert rows.schema.kinds.count("numeric") == 5


def test_empty_partitions_are_skipped(dask_client):
    """A filter leaves empty partitions: they give no part, and the rows are those of the
    same data without them (and of a local fit)."""
    X, y, w = _mixed_frame(2000, seed=9)
    whole = pd.concat([X, y, w.rename("w")], axis=1).sort_values("x", na_position="first")
    whole = whole.reset_index(drop=True)
    source = _split(whole, 4)
    kept = source[source["x"].fillna(-1.0) > 0.3]  # the first partitions lose every row
    assert 0 in [len(part) for part in kept.partitions]
    names = list(X.columns)
    rows = ingest(dask_client, kept[names], kept["label"], kept["w"], **MIXED_OPTIONS)
    assert len(rows.parts) < 4
    local = local_rows(kept[names], kept["label"], kept["w"], **MIXED_OPTIONS)
    assert_same_rows(dask_client, rows, local)
    packed = _split(kept.compute(), 2)
    again = ingest(dask_client, packed[names], packed["label"], packed["w"], **MIXED_OPTIONS)
    assert again.schema == rows.schema
    np.testing.assert_array_equal(gathered(dask_client, again)[0], gathered(dask_client, rows)[0])


@pytest.mark.parametrize("n_parts", (1, 4))
def test_rows_of_weight_zero_kept_as_a_local_forest_keeps_them(dask_client, n_parts):
    X, y, w = _mixed_frame(2000, seed=11)
    w[:600] = 0.0  # the first partition weighs nothing
    Xd, yd, wd = _split(X, n_parts), _split(y, n_parts), _split(w, n_parts)
    rows = ingest(dask_client, Xd, yd, wd, keep_zero_weight=True, **MIXED_OPTIONS)
    local = local_rows(Xd, yd, wd, forest=True, **MIXED_OPTIONS)
    assert_same_rows(dask_client, rows, local)
    assert sum(rows.n_rows) == 2000 and len(rows.parts) == n_parts
    # The bins are those of every row, not of the rows of positive weight alone.
    assert rows.mapper.edges[0].tobytes() != local_rows(Xd, yd, wd).data.mapper.edges[0].tobytes()


def test_shares_are_scaled_to_counts_as_locally(dask_client):
    X, y, _ = _mixed_frame(1000, seed=5)
    w = pd.Series(np.where(np.arange(1000) % 7 == 0, 0.0, 1.0))
    w = w / w.sum()  # shares: as_counts scales them back to counts
    Xd, yd, wd = _split(X, 4), _split(y, 4), _split(w, 4)
    rows = ingest(dask_client, Xd, yd, wd, **MIXED_OPTIONS)
    local = local_rows(Xd, yd, wd, **MIXED_OPTIONS)
    assert_same_rows(dask_client, rows, local)
    assert set(np.unique(local.w)) == {1.0}


# -- many rows: compressed summaries ---------------------------------------------------------


def _large_frame(n, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "continuous": rng.normal(size=n),  # every value distinct: compressed
            "ties": rng.integers(0, 20_000, n) / 7.0,  # heavy ties, > QUANTILE_CAPACITY values
            "counts": rng.integers(0, 3000, n).astype(float),  # < QUANTILE_CAPACITY: exact
            "few": rng.integers(0, 200, n).astype(float),  # <= 255 values: one bin each
        }
    )
    frame.loc[rng.random(n) < 0.02, "continuous"] = np.nan
    return frame, pd.Series(rng.integers(0, 2, n)), pd.Series(rng.integers(0, 3, n) * 1.0)


@pytest.mark.parametrize("n_parts", PARTITIONS)
def test_quantile_bins_within_the_bound(dask_client, n_parts):
    X, y, w = _large_frame(90_000, seed=n_parts)
    Xd, yd, wd = _split(X, n_parts), _split(y, n_parts), _split(w, n_parts)
    rows = ingest(dask_client, Xd, yd, wd)
    local = local_rows(Xd, yd, wd)
    assert rows.compressed == ("continuous", "ties")
    depth = summaries.merge_depth(n_parts)
    assert rows.rank_error == summaries.quantile_rank_error(QUANTILE_CAPACITY, depth)
    # Everything but the compressed features' edges is the local rows'.
    assert_same_rows(dask_client, rows, local, exact_bins=False)
    for j, name in enumerate(X.columns):
        values = local.typed[name].to_numpy()
        edges, expected = rows.mapper.edges[j], local.data.mapper.edges[j]
        if name not in rows.compressed:
            assert same_bits(edges, expected)
            assert same_bits(rows.mapper.lo[j], local.data.mapper.lo[j])
            continue
        # lo and hi are the true extremes of each bin.
        true = summaries.bin_extremes(values, edges)
        np.testing.assert_array_equal(rows.mapper.lo[j], true.lo)
        np.testing.assert_array_equal(rows.mapper.hi[j], true.hi)
        assert not np.isnan(rows.mapper.lo[j]).any()
        # Each edge lands within the bound of its target rank.
        present = np.sort(values[~np.isnan(values)])
        n = len(present)
        assert len(edges) == 254  # one per target: none fell on the same point here
        targets = n * np.arange(1, 255) / 255
        ranks = np.searchsorted(present, edges, side="right")
        below = present[np.maximum(ranks - 1, 0)]
        ties = np.searchsorted(present, below, side="right") - np.searchsorted(
            present, below, side="left"
        )
        assert (ranks >= targets).all()
        assert (ranks < targets + ties + rows.rank_error * n).all()


def test_summary_capacity_keeps_exact_bins_exact():
    assert summary_capacity("auto", 50_000) == MAX_VALUES >= 50_000
    assert summary_capacity("auto", 50_001) == QUANTILE_CAPACITY
    assert summary_capacity(None, 10**9) == MAX_VALUES
    assert summary_capacity(16, 10**9) == QUANTILE_CAPACITY
    assert summary_capacity(20_000, 10**9) == 20_000
    assert summary_capacity(10**6, 10**9) == MAX_VALUES


def test_exact_sum_does_not_depend_on_the_partitioning():
    rng = np.random.default_rng(0)
    values = rng.random(10_001) * 10.0 ** rng.integers(-30, 30, 10_001)
    whole = exact_sum(values)
    assert float(whole) == math.fsum(values)  # correctly rounded
    assert sum((exact_sum(p) for p in np.array_split(values, 7)), start=0) == whole


# -- errors ------------------------------------------------------------------------------------


def test_data_in_memory_is_a_type_error(dask_client):
    X = np.zeros((3, 2))
    with pytest.raises(TypeError, match="numpy.ndarray.*ordinary quercus estimators"):
        ingest(dask_client, X, np.zeros(3))
    y = _split(pd.Series([0, 1, 0]), 1)
    with pytest.raises(TypeError, match="y must be .*pandas"):
        ingest(dask_client, _split(pd.DataFrame({"a": [1.0, 2, 3]}), 1), pd.Series([0, 1, 0]))
    assert y.npartitions == 1


def _from_parts(frames, meta=None):
    meta = frames[0].iloc[:0] if meta is None else meta
    return dd.from_delayed([dask.delayed(f) for f in frames], meta=meta, verify_meta=False)


def test_a_column_missing_from_a_partition_is_named(dask_client):
    frames = [pd.DataFrame({"a": [1.0, 2.0], "b": ["u", "v"]}), pd.DataFrame({"a": [3.0]})]
    y = _from_parts([pd.Series([0, 1]), pd.Series([1])])
    with pytest.raises(DataError, match="column 'b' is missing from partition 1") as caught:
        ingest(dask_client, _from_parts(frames), y)
    assert caught.value.column == "b"


def test_partitions_that_do_not_line_up_are_named(dask_client):
    X = _from_parts([pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [3.0, 4.0, 5.0]})])
    y = _from_parts([pd.Series([0, 1]), pd.Series([1, 0])])
    with pytest.raises(ValueError, match="partition 1: X has 3 rows but y has 2"):
        ingest(dask_client, X, y)
    with pytest.raises(ValueError, match="X has 2 partitions but y has 1"):
        ingest(dask_client, X, _from_parts([pd.Series([0, 1, 1, 0, 1])]))


def test_missing_labels_name_the_partition(dask_client):
    X = _split(pd.DataFrame({"a": np.arange(6.0)}), 2)
    for labels in (["u", "v", "u", None, "v", "u"], [0.0, 1.0, 0.0, 1.0, np.nan, 0.0]):
        y = _split(pd.Series(labels, dtype=object if labels[0] == "u" else float), 2)
        with pytest.raises(ValueError, match=r"partition 1 of y: .*\(missing labels\)"):
            ingest(dask_client, X, y)
    y = _split(pd.Series([0.5, 1.0, np.nan, 1.0, 2.0, 3.0]), 2)
    with pytest.raises(ValueError, match="partition 0 of y: Input y contains NaN or infinity"):
        ingest(dask_client, X, y, regression=True)
    y = _split(pd.Series([0.5, 1.0, 2.0, 1.0, 1e200, 3.0]), 2)
    with pytest.raises(DataError, match=r"partition 1 of y holds 1e\+200 in row 1, beyond 1e\+100"):
        ingest(dask_client, X, y, regression=True)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0, 1.0, 1.0, -1.0, 1.0, 1.0], r"Negative values .*\(partition 1\)"),
        ([1.0, np.inf, 1.0, 1.0, 1.0, 1.0], r"must be finite \(partition 0"),
        ([0.0] * 6, "zero for every sample"),
        ([1e49] * 5 + [1e50], r"sample_weight sums to 1.5e\+50 over 6 rows, above 1e\+50"),
    ],
)
def test_bad_weights(dask_client, weights, message):
    X = _split(pd.DataFrame({"a": np.arange(6.0)}), 2)
    y = _split(pd.Series([0, 1, 0, 1, 0, 1]), 2)
    with pytest.raises(ValueError, match=message):
        ingest(dask_client, X, y, _split(pd.Series(weights), 2))


def test_no_rows_at_all(dask_client):
    X = _from_parts([pd.DataFrame({"a": np.zeros(0)})] * 2)
    y = _from_parts([pd.Series(np.zeros(0, dtype=int))] * 2)
    with pytest.raises(DataError, match="X has no rows"):
        ingest(dask_client, X, y)


def test_an_infinite_value_names_its_column_and_partition(dask_client):
    X = _split(pd.DataFrame({"a": [1.0, 2.0, 3.0, np.inf]}), 2)
    with pytest.raises(DataError, match=r"column 'a' has an infinite value .* partition 1"):
        ingest(dask_client, X, _split(pd.Series([0, 1, 0, 1]), 2))


def test_too_many_categories_are_named(dask_client):
    n = MAX_VALUES + 10
    X = _split(pd.DataFrame({"id": [f"c{i}" for i in range(n)], "a": np.zeros(n)}), 2)
    y = _split(pd.Series(np.arange(n) % 2), 2)
    with pytest.raises(DataError, match=f"column 'id' has more than {MAX_VALUES:,} distinct"):
        ingest(dask_client, X, y)
    # One bin per value cannot be kept on a cluster for more values than that either.
    X = _split(pd.DataFrame({"a": np.arange(n) / 3.0}), 2)
    with pytest.raises(DataError, match="column 'a' has more than .* max_bins=None"):
        ingest(dask_client, X, y, max_bins=None)


def test_a_partition_of_another_dtype_is_named(dask_client):
    frames = [pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": ["u", "v"]})]
    y = _from_parts([pd.Series([0, 1]), pd.Series([1, 0])])
    with pytest.raises(DataError, match="column 'a' is float64 in X but .* in partition 1"):
        ingest(dask_client, _from_parts(frames), y)


def test_the_errors_of_typing_are_the_local_ones(dask_client):
    X = _split(pd.DataFrame({"size": ["small", "large", "huge", "small"]}), 2)
    y = _split(pd.Series([0, 1, 0, 1]), 2)
    levels = {"size": ["small", "large"]}
    with pytest.raises(DataError) as local:
        local_rows(X, y, ordinal=levels)
    with pytest.raises(DataError) as distributed:
        ingest(dask_client, X, y, ordinal=levels)
    assert str(distributed.value) == str(local.value)
    assert "'huge' is not one of its declared levels" in str(local.value)
    with pytest.raises(ValueError, match="partition [01] of y: a regression needs numeric targets"):
        ingest(dask_client, X, _split(pd.Series(["a", "b", "c", "d"]), 2), regression=True)
