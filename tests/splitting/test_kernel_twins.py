"""Split-search kernels against plain NumPy/Python twins, on random data.

Every kernel of ``quercus.splitting`` has a twin here written from the definitions: the
statistics of a node are sums over its raw rows, the impurity of a set of rows is Gini,
entropy, error rate or variance of those rows, and a split is scored by trying every cut (or
every category prefix, or every subset) and computing both sides from the rows again.

The data are small integers (codes, classes, targets and weights), so that the statistics are
exact and the Gini, error-rate and variance twins compute in exact rational arithmetic
(``fractions.Fraction``): a tie between two cuts is then a true tie, and the kernel must keep
the lowest cut. Entropy (an irrational quantity) is computed in floats. A kernel may choose a
different cut than the twin only when the two gains differ by at most 1e-9 and (for the exact
twins) are not equal: a floating-point near-tie; the tests assert exactly that.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from quercus._config import CLASS_MAJORITY, LEARNED, MAJORITY
from quercus.criteria.registry import (
    ENTROPY,
    GAIN_RATIO,
    GINI,
    MISCLASSIFICATION,
    SQUARED_ERROR,
)
from quercus.splitting._histogram import feature_stats, node_stats, stats_scratch
from quercus.splitting._rules import SplitRules
from quercus.splitting._scan import (
    impurity,
    scan_multiway,
    scan_subset,
    stats_weight,
)
from quercus.splitting._scan import (
    scan_threshold as scan_threshold_kernel,
)

CLASSIFICATION = (GINI, ENTROPY, MISCLASSIFICATION, GAIN_RATIO)
TOL = 1e-9  # float noise allowed between a kernel's number and its twin's
NO_VALUES = np.zeros((1, 1))


def scan_threshold(present, stats, n_present, missing, rules):
    """The kernel with its scratch space (the grower passes its own), without the values of
    the bins (C4.5's rules for them are off: ``rules`` keeps ``c45_classes`` 0)."""
    acc = np.zeros((6 + max(n_present, 1), stats.shape[1]))
    return scan_threshold_kernel(
        present, stats, n_present, missing, rules, NO_VALUES, NO_VALUES, 0, acc
    )


SETTINGS = settings(max_examples=150, deadline=None)


# ---------------------------------------------------------------------------------------------
# Random rows of one node: a feature code per row (-1 = missing), a target, an integer weight.


@st.composite
def node_rows(draw, regression=None, max_rows=24, max_code=7):
    """Raw rows of a node: ``(codes, y, w, regression, n_stats)``.

    Few distinct codes (ties), sometimes a single one (a constant column), sometimes missing
    values or only missing values, sometimes a single class; weights are small integers,
    zero included.
    """
    if regression is None:
        regression = draw(st.booleans())
    tiny, constant = draw(st.sampled_from([(True, False), (False, True)] + [(False, False)] * 6))
    n = draw(st.integers(0, 3) if tiny else st.integers(4, max_rows))
    n_codes = 1 if constant else draw(st.integers(2, max_code + 1))
    low = draw(st.integers(0, max_code + 1 - n_codes))  # codes need not start at 0
    missing_tenths = draw(st.sampled_from([0, 0, 0, 1, 3, 5, 10]))  # share of missing values
    codes = []
    for _ in range(n):
        if draw(st.integers(0, 9)) < missing_tenths:
            codes.append(-1)
        else:
            codes.append(draw(st.integers(low, low + n_codes - 1)))
    if regression:
        n_stats = 3
        y = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    else:
        n_stats = draw(st.integers(1, 4))  # number of classes; 1 = a single class
        y = draw(st.lists(st.integers(0, n_stats - 1), min_size=n, max_size=n))
    weights = draw(st.sampled_from([(1, 1), (1, 4), (0, 3)]))
    w = draw(st.lists(st.integers(*weights), min_size=n, max_size=n))
    return (
        np.asarray(codes, dtype=np.int64),
        np.asarray(y, dtype=np.int64),
        np.asarray(w, dtype=np.int64),
        regression,
        n_stats,
    )


def criteria_for(regression):
    return st.just(SQUARED_ERROR) if regression else st.sampled_from(CLASSIFICATION)


min_leaves = st.sampled_from([0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 5.0])


# ---------------------------------------------------------------------------------------------
# The twins: plain definitions over raw rows.


def twin_row_stats(y, w, n_stats, regression):
    """Statistics of a set of rows, by definition (as float64, exact for small integers)."""
    if regression:
        return np.array([w.sum(), (w * y).sum(), (w * y * y).sum()], dtype=np.float64)
    out = np.zeros(n_stats)
    for label in range(n_stats):
        out[label] = w[y == label].sum()
    return out


def twin_feature_stats(codes, y, w, n_stats, regression):
    """``(present, stats, missing)``: the codes that occur, the statistics of each, and those
    of the rows with a missing code (-1)."""
    known = codes >= 0
    present = np.unique(codes[known]).astype(np.int64)
    stats = np.zeros((len(present), n_stats))
    for i, c in enumerate(present):
        stats[i] = twin_row_stats(y[codes == c], w[codes == c], n_stats, regression)
    missing = twin_row_stats(y[~known], w[~known], n_stats, regression)[None, :]
    return present, stats, missing


def twin_impurity(y, w, criterion, n_stats, regression):
    """Impurity of the rows ``(y, w)``: exact (a Fraction) except for entropy (a float)."""
    total = int(w.sum())
    if total <= 0:
        return Fraction(0)
    if regression:
        mean = Fraction(int((w * y).sum()), total)
        squares = (int(wi) * (int(yi) - mean) ** 2 for yi, wi in zip(y, w, strict=True))
        return sum(squares, Fraction(0)) / total
    shares = [Fraction(int(w[y == k].sum()), total) for k in range(n_stats)]
    if criterion == GINI:
        return 1 - sum(p * p for p in shares)
    if criterion == MISCLASSIFICATION:
        return 1 - max(shares)
    assert criterion in (ENTROPY, GAIN_RATIO)
    return -sum(float(p) * math.log2(p) for p in shares if p > 0)


def branch_entropy(weights):
    """Split information: entropy (bits) of the branch weights."""
    total = sum(weights)
    return -sum(b / total * math.log2(b / total) for b in weights if b > 0)


def twin_partition_gain(groups, codes, y, w, criterion, n_stats, regression):
    """C4.5 gain of sending the known rows to ``groups`` (boolean masks), scaled by the known
    share of the weight."""
    known = codes >= 0
    w_known = int(w[known].sum())
    w_all = int(w.sum())
    parent = twin_impurity(y[known], w[known], criterion, n_stats, regression)
    after = sum(
        int(w[g].sum()) * twin_impurity(y[g], w[g], criterion, n_stats, regression) for g in groups
    )
    return (parent - after / w_known) * Fraction(w_known, w_all)


def twin_best(gains):
    """Index of the best gain, the lowest on ties (exact for Fractions; up to 1e-12 for
    floats, the noise of a log); None when there is none."""
    valid = [g for g in gains if g is not None]
    if not valid:
        return None
    best = max(valid)
    slack = 0 if isinstance(best, Fraction) else 1e-12
    return next(i for i, g in enumerate(gains) if g is not None and g >= best - slack)


def check_choice(kernel_i, twin_i, gains, what):
    """The kernel's choice is the twin's, or a floating-point near-tie with it."""
    if kernel_i == twin_i:
        valid = [g for g in gains if g is not None]
        event(f"{what}: {'tie' if valid.count(gains[twin_i]) > 1 else 'unique best'}")
        return
    event(f"{what}: floating-point near-tie")
    gk, gt = gains[kernel_i], gains[twin_i]
    assert gk is not None, f"{what}: kernel chose {kernel_i}, which is not admissible"
    assert abs(float(gk - gt)) <= TOL, (
        f"{what}: kernel chose {kernel_i} (gain {float(gk)!r}), twin {twin_i} "
        f"(gain {float(gt)!r}); all gains {[None if g is None else float(g) for g in gains]}"
    )
    if isinstance(gk, Fraction) and isinstance(gt, Fraction):
        assert gk != gt, f"{what}: exact tie between {twin_i} and {kernel_i}: lowest must win"


def twin_threshold(codes, y, w, criterion, n_stats, regression, min_leaf):
    """Every cut "code <= v" between adjacent known codes: ``(gains, infos)``, a gain of None
    for a cut that leaves a side under ``min_leaf`` (or empty)."""
    known = codes >= 0
    values = np.unique(codes[known])
    w_missing = int(w[~known].sum())
    gains, infos = [], []
    for v in values[:-1]:
        left = known & (codes <= v)
        right = known & (codes > v)
        wl, wr = int(w[left].sum()), int(w[right].sum())
        infos.append(branch_entropy([wl, wr, w_missing]))
        if wl < min_leaf or wr < min_leaf or wl <= 0 or wr <= 0:
            gains.append(None)
        else:
            gains.append(
                twin_partition_gain([left, right], codes, y, w, criterion, n_stats, regression)
            )
    return gains, infos


def twin_placed_gain(groups, y, w, criterion, n_stats, regression):
    """Gain of a partition of all the rows (missing ones placed in a group): no scaling."""
    w_all = int(w.sum())
    parent = twin_impurity(y, w, criterion, n_stats, regression)
    after = sum(
        int(w[g].sum()) * twin_impurity(y[g], w[g], criterion, n_stats, regression) for g in groups
    )
    return parent - after / w_all


def twin_class_side(y, w, sides, fallback, n_stats):
    """For each class, the group (index into ``sides``, masks of known rows) where its known
    weight is largest, the first on ties; ``fallback`` for a class with no known weight."""
    out = []
    for k in range(n_stats):
        weights = [int(w[side & (y == k)].sum()) for side in sides]
        out.append(fallback if max(weights) == 0 else int(np.argmax(weights)))
    return out


def twin_place(codes, y, w, groups, mode, regression, n_stats, learned_group=None):
    """``groups`` (masks of known rows) with the missing rows added as ``mode`` places them."""
    missing = codes < 0
    weights = [int(w[g].sum()) for g in groups]
    heaviest = int(np.argmax(weights))
    if mode == CLASS_MAJORITY and not regression:
        target = twin_class_side(y, w, groups, heaviest, n_stats)
        return [
            g | (missing & np.isin(y, [k for k in range(n_stats) if target[k] == i]))
            for i, g in enumerate(groups)
        ]
    chosen = learned_group if mode == LEARNED else heaviest
    return [g | missing if i == chosen else g for i, g in enumerate(groups)]


def kernel_inputs(codes, y, w, n_stats, regression):
    present, stats, missing = twin_feature_stats(codes, y, w, n_stats, regression)
    return present, np.ascontiguousarray(stats), len(present), missing


# ---------------------------------------------------------------------------------------------
# Statistics kernels.


@st.composite
def matrices(draw):
    """A binned matrix (uint8 or uint16 codes, the dtype's largest value = missing), a target,
    weights and a node's row range."""
    regression = draw(st.booleans())
    dtype = draw(st.sampled_from([np.uint8, np.uint16]))
    n = draw(st.integers(0, 30))
    p = draw(st.integers(1, 3))
    start = draw(st.integers(0, n))
    end = draw(st.integers(start, n))
    columns = []
    for _ in range(p):
        n_codes = draw(st.integers(1, 8))  # 1: a constant column
        col = draw(
            st.lists(st.one_of(st.integers(0, n_codes - 1), st.just(-1)), min_size=n, max_size=n)
        )
        columns.append(col)
    codes = np.asarray(columns, dtype=np.int64).T.reshape(n, p)
    if regression:
        n_stats = 3
        y = np.asarray(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), np.int64)
    else:
        n_stats = draw(st.integers(1, 4))
        y = np.asarray(
            draw(st.lists(st.integers(0, n_stats - 1), min_size=n, max_size=n)), np.int64
        )
    w = np.asarray(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.int64)
    return codes, dtype, y, w, start, end, regression, n_stats


@given(matrices())
@SETTINGS
def test_node_stats_matches_twin(case):
    codes, _, y, w, start, end, regression, n_stats = case
    out = np.full((3, n_stats), 7.0)  # stale numbers must be overwritten
    node_stats(
        y.astype(np.int32),
        y.astype(np.float64),
        w.astype(np.float64),
        start,
        end,
        regression,
        out,
        1,
    )
    expected = twin_row_stats(y[start:end], w[start:end], n_stats, regression)
    np.testing.assert_array_equal(out[1], expected)
    np.testing.assert_array_equal(out[[0, 2]], 7.0)


@given(matrices(), st.integers(0, 40))
@SETTINGS
def test_feature_stats_dense_and_sort_paths_match_twin(case, extra_bins):
    codes, dtype, y, w, start, end, regression, n_stats = case
    n, p = codes.shape
    missing_code = int(np.iinfo(dtype).max)
    data = np.ascontiguousarray(np.where(codes < 0, missing_code, codes).astype(dtype))
    m = end - start
    smallest = int(codes.max()) + 1 if codes.size and codes.max() >= 0 else 1
    dense_bins = max(smallest, 1)  # <= 9 <= 4 * m + 16: the dense histogram runs
    sort_bins = 4 * m + 17 + extra_bins  # > 4 * m + 16: the sort path runs
    assert dense_bins <= 4 * m + 16 < sort_bins <= missing_code
    room = max(sort_bins, n, 1)
    # Scratch buffers shared by all features and both paths, as in the growth kernel, and
    # filled with garbage first: nothing may leak from one call into the next. The dense
    # histogram and its flags are the exception: zero on entry, and left zero by each call.
    dense = np.zeros((room, n_stats))
    scratch = stats_scratch(max(n, 1), room, np.zeros(1, dtype=dtype))
    present = np.full(room, 99, dtype=np.int64)
    stats = np.full((room, n_stats), 3.0)
    missing = np.full((1, n_stats), 2.0)
    order_buf = np.full(max(n, 1), 11, dtype=np.int64)
    code_buf = np.full(max(n, 1), 13, dtype=dtype)
    y_class, y_value, wf = y.astype(np.int32), y.astype(np.float64), w.astype(np.float64)
    for f in range(p):
        node_codes = codes[start:end, f]
        e_present, e_stats, e_missing = twin_feature_stats(
            node_codes, y[start:end], w[start:end], n_stats, regression
        )
        for n_bins in (dense_bins, sort_bins):
            got = feature_stats(
                data,
                y_class,
                y_value,
                wf,
                start,
                end,
                f,
                n_bins,
                missing_code,
                regression,
                dense,
                present,
                stats,
                missing,
                order_buf,
                code_buf,
                scratch,
            )
            assert not dense.any() and not scratch[0].any(), "the dense histogram is left zero"
            assert got == len(e_present), (f, n_bins)
            np.testing.assert_array_equal(present[:got], e_present)
            np.testing.assert_array_equal(stats[:got], e_stats)
            np.testing.assert_array_equal(missing, e_missing)


# ---------------------------------------------------------------------------------------------
# Impurity.


@given(node_rows(), st.data())
@SETTINGS
def test_impurity_and_weight_match_twin(rows, data):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    stats = np.stack(
        [
            twin_row_stats(y, w, n_stats, regression),
            twin_row_stats(y[codes >= 0], w[codes >= 0], n_stats, regression),
        ]
    )
    for i, mask in enumerate([np.ones(len(y), bool), codes >= 0]):
        assert stats_weight(stats, i, regression) == w[mask].sum()
        expected = twin_impurity(y[mask], w[mask], criterion, n_stats, regression)
        got = impurity(stats, i, criterion, regression)
        assert got == pytest.approx(float(expected), abs=TOL)
        assert got >= 0.0


# ---------------------------------------------------------------------------------------------
# Split scans.


@given(node_rows(), st.data(), min_leaves)
@SETTINGS
def test_scan_threshold_matches_every_cut_twin(rows, data, min_leaf):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    present, stats, n_present, missing = kernel_inputs(codes, y, w, n_stats, regression)
    gain, i, info, _ = scan_threshold(
        present, stats, n_present, missing, SplitRules(criterion, regression, min_leaf)
    )
    gains, infos = twin_threshold(codes, y, w, criterion, n_stats, regression, min_leaf)
    best = twin_best(gains)
    if best is None:
        event("scan_threshold: no admissible cut")
        assert (gain, i, info) == (-1.0, -1, 0.0)
        return
    assert 0 <= i < n_present - 1
    check_choice(i, best, gains, "scan_threshold")
    assert gain == pytest.approx(float(gains[i]), abs=TOL)
    assert info == pytest.approx(infos[i], abs=TOL)


@given(node_rows(), st.data(), min_leaves)
@SETTINGS
def test_scan_multiway_matches_twin(rows, data, min_leaf):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    present, stats, n_present, missing = kernel_inputs(codes, y, w, n_stats, regression)
    gain, ok, info, _ = scan_multiway(
        present, stats, n_present, missing, SplitRules(criterion, regression, min_leaf)
    )
    branches = [codes == c for c in np.unique(codes[codes >= 0])]
    weights = [int(w[b].sum()) for b in branches]
    # C4.5: admissible when at least two branches reach min_leaf (and are not empty).
    if sum(1 for b in weights if b >= min_leaf and b > 0) < 2:
        assert (gain, ok, info) == (-1.0, -1, 0.0)
        return
    assert ok == 1
    expected = twin_partition_gain(branches, codes, y, w, criterion, n_stats, regression)
    assert gain == pytest.approx(float(expected), abs=TOL)
    assert info == pytest.approx(branch_entropy(weights + [int(w[codes < 0].sum())]), abs=TOL)


@given(node_rows(), st.data(), min_leaves)
@SETTINGS
def test_scan_threshold_places_missing_values_as_twin(rows, data, min_leaf):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    mode = data.draw(st.sampled_from([MAJORITY, CLASS_MAJORITY, LEARNED]))
    present, stats, n_present, missing = kernel_inputs(codes, y, w, n_stats, regression)
    gain, i, info, side = scan_threshold(
        present,
        stats,
        n_present,
        missing,
        SplitRules(criterion, regression, min_leaf, missing_mode=mode),
    )
    known = codes >= 0
    gains, infos, sides = [], [], []
    for v in np.unique(codes[known])[:-1]:
        groups = [known & (codes <= v), known & (codes > v)]
        wl, wr = (int(w[g].sum()) for g in groups)
        if wl < min_leaf or wr < min_leaf or wl <= 0 or wr <= 0:
            gains.append(None), infos.append(None), sides.append(None)
            continue
        options = [0, 1] if mode == LEARNED and (~known).any() else [None]
        best = None
        for option in options:
            placed = twin_place(codes, y, w, groups, mode, regression, n_stats, option)
            g = twin_placed_gain(placed, y, w, criterion, n_stats, regression)
            if best is None or float(g) > float(best[0]) + TOL:
                best = (g, branch_entropy([int(w[p].sum()) for p in placed]), option)
        gains.append(best[0]), infos.append(best[1]), sides.append(best[2])
    best = twin_best(gains)
    if best is None:
        assert (gain, i, info, side) == (-1.0, -1, 0.0, -1)
        return
    check_choice(i, best, gains, f"placed missing (mode {mode})")
    assert gain == pytest.approx(float(gains[i]), abs=TOL)
    assert info == pytest.approx(infos[i], abs=TOL)
    if mode == LEARNED and (~known).any():
        # The side taken gives the cut's best gain (either side when both give it).
        groups = [known & (codes <= present[i]), known & (codes > present[i])]
        placed = twin_place(codes, y, w, groups, mode, regression, n_stats, side)
        got = twin_placed_gain(placed, y, w, criterion, n_stats, regression)
        assert float(got) == pytest.approx(float(gains[i]), abs=TOL)
    else:
        assert side == -1


@given(node_rows(), st.data(), min_leaves)
@SETTINGS
def test_scan_multiway_places_missing_values_as_twin(rows, data, min_leaf):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    mode = data.draw(st.sampled_from([MAJORITY, CLASS_MAJORITY, LEARNED]))
    present, stats, n_present, missing = kernel_inputs(codes, y, w, n_stats, regression)
    gain, ok, info, index = scan_multiway(
        present,
        stats,
        n_present,
        missing,
        SplitRules(criterion, regression, min_leaf, missing_mode=mode),
    )
    known = codes >= 0
    groups = [codes == c for c in np.unique(codes[known])]
    weights = [int(w[g].sum()) for g in groups]
    if sum(1 for b in weights if b >= min_leaf and b > 0) < 2:
        assert ok == -1
        return
    assert ok == 1
    if not (~known).any():
        assert index == -1
        expected = twin_partition_gain(groups, codes, y, w, criterion, n_stats, regression)
        assert gain == pytest.approx(float(expected), abs=TOL)
        return
    options = range(len(groups)) if mode == LEARNED else [None]
    results = []
    for option in options:
        placed = twin_place(codes, y, w, groups, mode, regression, n_stats, option)
        results.append(
            (
                twin_placed_gain(placed, y, w, criterion, n_stats, regression),
                branch_entropy([int(w[p].sum()) for p in placed]),
            )
        )
    best = twin_best([g for g, _ in results])
    assert gain == pytest.approx(float(results[best][0]), abs=TOL)
    if mode == LEARNED:
        assert float(results[index][0]) == pytest.approx(float(results[best][0]), abs=TOL)
        assert info == pytest.approx(results[index][1], abs=TOL)
    else:
        assert index == -1
        assert info == pytest.approx(results[best][1], abs=TOL)


def twin_category_order(codes, y, w, regression, key_class):
    """Present categories sorted by the share of ``key_class`` (or the mean target), ties by
    code: the order in which CART tries the category prefixes."""
    present = np.unique(codes[codes >= 0])
    keys = []
    for c in present:
        rows = codes == c
        total = w[rows].sum()
        num = (w[rows] * y[rows]).sum() if regression else w[rows & (y == key_class)].sum()
        keys.append(float(num) / float(total) if total > 0 else 0.0)
    return sorted(range(len(present)), key=lambda i: (keys[i], i)), present


@given(node_rows(max_code=5), st.data(), min_leaves)
@SETTINGS
def test_scan_subset_matches_prefix_twin_and_brute_force(rows, data, min_leaf):
    codes, y, w, regression, n_stats = rows
    criterion = data.draw(criteria_for(regression))
    key_class = 0 if regression else data.draw(st.integers(0, n_stats - 1))
    present, stats, n_present, missing = kernel_inputs(codes, y, w, n_stats, regression)
    gain, i, info, order, _ = scan_subset(
        present, stats, n_present, missing, SplitRules(criterion, regression, min_leaf), key_class
    )
    twin_order, cats = twin_category_order(codes, y, w, regression, key_class)
    np.testing.assert_array_equal(order[:n_present], twin_order)
    # The prefixes of the order, as "codes" 0, 1, ... of a threshold scan.
    rank = {int(cats[j]): r for r, j in enumerate(twin_order)}
    ranked = np.array([rank[int(c)] if c >= 0 else -1 for c in codes], dtype=np.int64)
    gains, infos = twin_threshold(ranked, y, w, criterion, n_stats, regression, min_leaf)
    best = twin_best(gains)
    if best is None:
        assert (gain, i, info) == (-1.0, -1, 0.0)
        return
    check_choice(i, best, gains, "scan_subset")
    assert gain == pytest.approx(float(gains[i]), abs=TOL)
    assert info == pytest.approx(infos[i], abs=TOL)
    # Two classes or regression, no size limit: the best prefix is the best of all subsets
    # (Breiman et al. 1984, Thm 4.5; Fisher 1958).
    if (regression or n_stats == 2) and min_leaf <= 1.0:
        known = codes >= 0
        best_any = None
        for size in range(1, len(cats)):
            for left_cats in itertools.combinations(cats.tolist(), size):
                left = known & np.isin(codes, left_cats)
                right = known & ~left
                if w[left].sum() <= 0 or w[right].sum() <= 0:
                    continue
                g = twin_partition_gain([left, right], codes, y, w, criterion, n_stats, regression)
                best_any = g if best_any is None else max(best_any, g)
        assert best_any is not None
        assert gain == pytest.approx(float(best_any), abs=TOL)


# ---------------------------------------------------------------------------------------------
# Hand-made cases: the tie rule and the C4.5 scaling, where the twin's numbers are obvious.


def test_exact_tie_keeps_the_lowest_cut():
    # Classes 0 1 1 0 over codes 0 1 2 3: cuts after 0 and after 2 are mirror images.
    codes = np.array([0, 1, 2, 3])
    y = np.array([0, 1, 1, 0])
    w = np.ones(4, dtype=np.int64)
    for criterion in CLASSIFICATION:
        present, stats, n_present, missing = kernel_inputs(codes, y, w, 2, False)
        gain, i, _, _ = scan_threshold(
            present, stats, n_present, missing, SplitRules(criterion, False, 1.0)
        )
        gains, _ = twin_threshold(codes, y, w, criterion, 2, False, 1.0)
        assert gains[0] == gains[2]
        assert i == twin_best(gains) == (0 if gains[0] >= gains[1] else 1)


def test_missing_rows_scale_the_gain_and_form_a_third_branch():
    codes = np.array([0, 0, 1, 1, -1, -1])
    y = np.array([0, 0, 1, 1, 0, 1])
    w = np.ones(6, dtype=np.int64)
    present, stats, n_present, missing = kernel_inputs(codes, y, w, 2, False)
    gain, i, info, _ = scan_threshold(
        present, stats, n_present, missing, SplitRules(ENTROPY, False, 1.0)
    )
    assert i == 0
    assert gain == pytest.approx(1.0 * 4 / 6)  # a perfect split of the known 4 of 6 rows
    assert info == pytest.approx(math.log2(3))  # three branches of weight 2
