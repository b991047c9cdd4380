"""Numba kernels: the look-ahead scores of a node's candidate splits.

A greedy tree ranks a split by its children's impurity. Looking ``k`` levels ahead ranks it
by the impurity its children can reach when each may be split ``k`` more times, each split
chosen as well as possible. With ``B_j(c)`` the least weighted impurity reachable at a
child ``c`` within ``j`` more levels,

    B_0(c) = w_c * impurity(c)
    B_j(c) = min(B_0(c), min over the splits s of c of the sum over s's children c' of B_{j-1}(c'))

a split's look-ahead cost is the sum of ``B_k`` over its children (its greedy cost is the sum
of ``B_0``). On parity (XOR) every single split leaves the impurity where it was, so a
greedy tree splits on noise; one level of look-ahead sees that a parity bit's children are
pure after one more split.

The splits tried are those the tree makes: thresholds of a numeric or ordinal feature,
the multiway split of a nominal one or (binary nominal splits) its categories ordered by
mean target or by the share of the node's majority class and cut as thresholds. The budget:
at every level but the last, a threshold feature offers at most ``max_cuts`` cuts (the one
the greedy score likes best and others evenly spaced among the node's values); the last
level tries every cut from sums, without moving rows. A missing value goes with the heavier
branch. The growth rules (``min_samples_leaf``, ``min_samples_split``, the depth left)
apply at every level. :mod:`quercus.grow.levelwise` calls :func:`lookahead_splits` for
each node it grows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import NOMINAL, njit
from ..criteria._impurity import impurity, stats_weight
from ._histogram import rows_stats

LEAF_EPSILON = np.finfo(np.float64).eps * 10  # as the grower: below it, a node is pure


class LookaheadContext(NamedTuple):
    """What the look-ahead needs of the tree besides a node's rows: each feature's kind
    and number of codes, the missing code, the criterion's code, the task, the statistics'
    width, the least weight of a leaf and of a node to split, whether a nominal feature
    splits one branch per category, and the budget of cuts per feature (see the module
    docstring)."""

    kinds: np.ndarray
    n_bins: np.ndarray
    missing_code: int
    criterion: int
    regression: bool
    n_stats: int
    min_leaf: float
    min_split: float
    multiway: bool
    max_cuts: int


@njit
def _feature_hist(x, yc, yv, w, rows, f, n_codes, missing_code, regression, hist):
    """``hist[code]``: the statistics of the rows with bin ``code`` of feature ``f``;
    ``hist[n_codes]``: of those where it is missing."""
    hist[: n_codes + 1, :] = 0.0
    for t in range(rows.shape[0]):
        r = rows[t]
        c = np.int64(x[r, f])
        if c == missing_code:
            c = n_codes
        if regression:
            hist[c, 0] += w[r]
            hist[c, 1] += w[r] * yv[r]
            hist[c, 2] += w[r] * yv[r] * yv[r]
        else:
            hist[c, yc[r]] += w[r]


@njit
def _cost(stats, i, criterion, regression):
    """``w * impurity`` of stats row ``i``: what the row's rows add to a weighted impurity."""
    w = stats_weight(stats, i, regression)
    if w <= 0.0:
        return 0.0
    return w * impurity(stats, i, criterion, regression)


@njit
def _scan_order(hist, n_codes, kind, multiway, regression, node_stats, order):
    """The present codes of a feature in the order its cuts are scanned (increasing codes;
    a binary nominal feature's categories by mean target or majority-class share); returns
    their number."""
    n = 0
    for c in range(n_codes):
        if stats_weight(hist, c, regression) > 0.0:
            order[n] = c
            n += 1
    if kind == NOMINAL and not multiway and n > 1:
        key_class = 0
        if not regression:
            for k in range(node_stats.shape[1]):
                if node_stats[0, k] > node_stats[0, key_class]:
                    key_class = k
        keys = np.empty(n)
        for i in range(n):
            c = order[i]
            wc = stats_weight(hist, c, regression)
            keys[i] = hist[c, 1] / wc if regression else hist[c, key_class] / wc
        sorted_codes = order[:n][np.argsort(keys, kind="mergesort")]
        order[:n] = sorted_codes
    return n


@njit
def _sides(hist, order, n_present, n_codes, regression, sides):
    """``sides[i]``: statistics of the left (row 0) and right (row 1) of the cut after
    ``order[i]``, the missing rows added to the heavier."""
    n_stats = hist.shape[1]
    total = np.zeros(n_stats)
    for t in range(n_present):
        total += hist[order[t]]
    left = np.zeros(n_stats)
    for i in range(n_present - 1):
        left += hist[order[i]]
        right = total - left
        wl = left[0] if regression else left.sum()
        wr = right[0] if regression else right.sum()
        sides[i, 0] = left
        sides[i, 1] = right
        if wl >= wr:
            sides[i, 0] += hist[n_codes]
        else:
            sides[i, 1] += hist[n_codes]


@njit
def _splittable(stats, n_rows, levels_left, criterion, regression, min_leaf, min_split):
    w = stats_weight(stats, 0, regression)
    return (
        levels_left > 0
        and n_rows >= 2
        and w >= min_split
        and w >= 2.0 * min_leaf
        and impurity(stats, 0, criterion, regression) > LEAF_EPSILON
    )


@njit
def _side_ok(sides, i, regression, min_leaf):
    wl = stats_weight(sides[i], 0, regression)
    wr = stats_weight(sides[i], 1, regression)
    return wl >= min_leaf and wr >= min_leaf and wl > 0.0 and wr > 0.0


@njit
def _multiway_cost(hist, n_codes, criterion, regression, min_leaf, scratch):
    """Greedy cost of one branch per present category (the missing rows with the heaviest),
    or -1 when fewer than two branches hold ``min_leaf``."""
    heaviest = -1
    big = 0
    for c in range(n_codes):
        wc = stats_weight(hist, c, regression)
        if wc >= min_leaf and wc > 0.0:
            big += 1
        if wc > 0.0 and (heaviest < 0 or wc > stats_weight(hist, heaviest, regression)):
            heaviest = c
    if big < 2:
        return -1.0
    cost = 0.0
    for c in range(n_codes):
        if c == heaviest:
            scratch[0] = hist[c] + hist[n_codes]
            cost += _cost(scratch, 0, criterion, regression)
        elif stats_weight(hist, c, regression) > 0.0:
            cost += _cost(hist, c, criterion, regression)
    return cost


@njit
def _open_rows(yc, yv, w, rows, levels_left, ctx):
    """The statistics of ``rows`` (``(1, stats)``), their cost as a leaf, and whether they
    may be split (``ctx``: the :class:`LookaheadContext`)."""
    criterion, regression, n_stats = ctx.criterion, ctx.regression, ctx.n_stats
    min_leaf, min_split = ctx.min_leaf, ctx.min_split
    node = np.zeros((1, n_stats))
    rows_stats(yc, yv, w, rows, regression, node)
    leaf = _cost(node, 0, criterion, regression)
    splittable = _splittable(
        node, rows.shape[0], levels_left, criterion, regression, min_leaf, min_split
    )
    return node, leaf, splittable


@njit
def _scratch(n_bins, n_stats):
    """A feature's histogram, scan order and cut sides, for any feature of ``n_bins``."""
    width = int(n_bins.max()) + 1
    return (
        np.zeros((width, n_stats)),
        np.zeros(width, dtype=np.int64),
        np.zeros((width, 2, n_stats)),
    )


@njit
def _best_last(x, yc, yv, w, rows, levels_left, ctx):
    """``B_1`` of the rows ``rows``: their cost as a leaf, or after their best split."""
    kinds, n_bins, missing_code = ctx.kinds, ctx.n_bins, ctx.missing_code
    criterion, regression, n_stats, min_leaf = (
        ctx.criterion,
        ctx.regression,
        ctx.n_stats,
        ctx.min_leaf,
    )
    multiway = ctx.multiway
    node, best, splittable = _open_rows(yc, yv, w, rows, levels_left, ctx)
    if not splittable:
        return best
    hist, order, sides = _scratch(n_bins, n_stats)
    for f in range(kinds.shape[0]):
        n_codes = n_bins[f]
        _feature_hist(x, yc, yv, w, rows, f, n_codes, missing_code, regression, hist)
        if kinds[f] == NOMINAL and multiway:
            cost = _multiway_cost(hist, n_codes, criterion, regression, min_leaf, sides[0])
            if cost >= 0.0 and cost < best:
                best = cost
            continue
        n_present = _scan_order(hist, n_codes, kinds[f], multiway, regression, node, order)
        _sides(hist, order, n_present, n_codes, regression, sides)
        for i in range(n_present - 1):
            if not _side_ok(sides, i, regression, min_leaf):
                continue
            cost = _cost(sides[i], 0, criterion, regression) + _cost(
                sides[i], 1, criterion, regression
            )
            if cost < best:
                best = cost
    return best


@njit
def _children_rows(x, rows, f, n_codes, missing_code, branch_of_code, missing_branch, n_children):
    """The rows of each branch: ``branch_of_code[code]`` (missing values: ``missing_branch``)."""
    counts = np.zeros(n_children, dtype=np.int64)
    branch = np.empty(rows.shape[0], dtype=np.int64)
    for t in range(rows.shape[0]):
        c = np.int64(x[rows[t], f])
        b = missing_branch if c == missing_code else branch_of_code[c]
        branch[t] = b
        counts[b] += 1
    out = []
    for b in range(n_children):
        out.append(np.empty(counts[b], dtype=np.int64))
    filled = np.zeros(n_children, dtype=np.int64)
    for t in range(rows.shape[0]):
        b = branch[t]
        out[b][filled[b]] = rows[t]
        filled[b] += 1
    return out


@njit
def _reach(x, yc, yv, w, child, depth, levels_left, ctx):
    """``B_depth`` of the rows ``child`` (depth 1 or 2)."""
    if depth <= 1:
        return _best_last(x, yc, yv, w, child, levels_left, ctx)
    return _best_deeper(x, yc, yv, w, child, levels_left, ctx)


@njit
def _cuts(sides, n_present, regression, min_leaf, criterion, max_cuts, out):
    """Up to ``max_cuts`` admissible cut positions: the greedy best and others evenly
    spaced among the admissible ones; returns their number."""
    admissible = np.zeros(max(n_present - 1, 1), dtype=np.int64)
    n = 0
    best, best_cost = -1, 0.0
    for i in range(n_present - 1):
        if not _side_ok(sides, i, regression, min_leaf):
            continue
        admissible[n] = i
        n += 1
        cost = _cost(sides[i], 0, criterion, regression) + _cost(sides[i], 1, criterion, regression)
        if best < 0 or cost < best_cost:
            best, best_cost = i, cost
    if n <= max_cuts:
        out[:n] = admissible[:n]
        return n
    out[0] = best
    k = 1
    for j in range(max_cuts - 1):
        i = admissible[(j * n) // (max_cuts - 1)]
        if i != best:
            out[k] = i
            k += 1
    return k


@njit
def _best_deeper(x, yc, yv, w, rows, levels_left, ctx):
    """``B_2`` of the rows ``rows``: their cost as a leaf, or after the split whose children
    reach the least after one more split each."""
    kinds, n_bins, missing_code = ctx.kinds, ctx.n_bins, ctx.missing_code
    criterion, regression, n_stats, min_leaf = (
        ctx.criterion,
        ctx.regression,
        ctx.n_stats,
        ctx.min_leaf,
    )
    multiway, max_cuts = ctx.multiway, ctx.max_cuts
    node, best, splittable = _open_rows(yc, yv, w, rows, levels_left, ctx)
    if not splittable:
        return best
    hist, order, sides = _scratch(n_bins, n_stats)
    cuts = np.zeros(max(max_cuts, 1), dtype=np.int64)
    for f in range(kinds.shape[0]):
        n_codes = n_bins[f]
        _feature_hist(x, yc, yv, w, rows, f, n_codes, missing_code, regression, hist)
        if kinds[f] == NOMINAL and multiway:
            cost = _multiway_cost(hist, n_codes, criterion, regression, min_leaf, sides[0])
            if cost < 0.0:
                continue
            table, heaviest = _multiway_table(hist, n_codes, regression)
            kids = _children_rows(x, rows, f, n_codes, missing_code, table, heaviest, n_codes)
            total = 0.0
            for child in kids:
                if child.shape[0] > 0:
                    total += _best_last(x, yc, yv, w, child, levels_left - 1, ctx)
            best = min(best, total)
            continue
        n_present = _scan_order(hist, n_codes, kinds[f], multiway, regression, node, order)
        _sides(hist, order, n_present, n_codes, regression, sides)
        n_cuts = _cuts(sides, n_present, regression, min_leaf, criterion, max_cuts, cuts)
        for j in range(n_cuts):
            table, missing_side = _cut_table(order, n_present, cuts[j], n_codes, sides, regression)
            kids = _children_rows(x, rows, f, n_codes, missing_code, table, missing_side, 2)
            total = _best_last(x, yc, yv, w, kids[0], levels_left - 1, ctx) + _best_last(
                x, yc, yv, w, kids[1], levels_left - 1, ctx
            )
            best = min(best, total)
    return best


@njit
def _multiway_table(hist, n_codes, regression):
    """Each category its own branch; the branch of the missing values (the heaviest)."""
    table = np.arange(n_codes)
    heaviest = 0
    for c in range(n_codes):
        if stats_weight(hist, c, regression) > stats_weight(hist, heaviest, regression):
            heaviest = c
    return table, heaviest


@njit
def _cut_table(order, n_present, i, n_codes, sides, regression):
    """The branch of each code for the cut after ``order[i]`` (codes absent at the node go
    right), and the branch of the missing values (the heavier side)."""
    table = np.ones(n_codes, dtype=np.int64)
    for t in range(i + 1):
        table[order[t]] = 0
    # The missing rows joined the heavier known side in _sides: the same side here.
    left = stats_weight(sides[i], 0, regression) >= stats_weight(sides[i], 1, regression)
    return table, 0 if left else 1


@njit
def lookahead_splits(x, yc, yv, w, features, n_cand, depth, levels_left, ctx, sides_in, out):
    """Each candidate feature's best split by its look-ahead cost of ``depth`` (1 or 2)
    levels over the rows ``x, yc, yv, w`` (a node's), ``levels_left`` the levels of splits
    that ``max_depth`` allows below the node's children. ``ctx``: the tree's
    :class:`LookaheadContext`. A binary nominal feature keeps the categories' sides of its
    greedy split (``sides_in[j]``).

    ``out[j]``: ``(cost, lo code, hi code, greedy gain)``: the look-ahead cost (inf when
    the feature has no admissible split), the codes on either side of a threshold (-1 for
    nominal splits) and the split's own impurity decrease."""
    kinds, n_bins, missing_code = ctx.kinds, ctx.n_bins, ctx.missing_code
    criterion, regression, n_stats, min_leaf = (
        ctx.criterion,
        ctx.regression,
        ctx.n_stats,
        ctx.min_leaf,
    )
    multiway, max_cuts = ctx.multiway, ctx.max_cuts
    rows = np.arange(x.shape[0])
    node = np.zeros((1, n_stats))
    total_w = rows_stats(yc, yv, w, rows, regression, node)
    node_impurity = impurity(node, 0, criterion, regression)
    hist, order, sides = _scratch(n_bins, n_stats)
    cuts = np.zeros(max(max_cuts, 1), dtype=np.int64)
    scratch = np.zeros((1, n_stats))
    for j in range(n_cand):
        f = features[j]
        n_codes = n_bins[f]
        out[j, 0] = np.inf
        out[j, 1] = -1.0
        out[j, 2] = -1.0
        out[j, 3] = 0.0
        _feature_hist(x, yc, yv, w, rows, f, n_codes, missing_code, regression, hist)
        if kinds[f] == NOMINAL:
            if multiway:
                greedy = _multiway_cost(hist, n_codes, criterion, regression, min_leaf, scratch)
                if greedy < 0.0:
                    continue
                table, missing_side = _multiway_table(hist, n_codes, regression)
                n_children = n_codes
            else:
                table = np.zeros(n_codes, dtype=np.int64)
                present = False
                for c in range(n_codes):
                    table[c] = max(sides_in[j, c], 0)
                    present = present or sides_in[j, c] >= 0
                if not present:
                    continue
                left = np.zeros((2, n_stats))
                for c in range(n_codes):
                    left[table[c]] += hist[c]
                missing_side = (
                    0
                    if stats_weight(left, 0, regression) >= stats_weight(left, 1, regression)
                    else 1
                )
                left[missing_side] += hist[n_codes]
                greedy = _cost(left, 0, criterion, regression) + _cost(
                    left, 1, criterion, regression
                )
                n_children = 2
            kids = _children_rows(
                x, rows, f, n_codes, missing_code, table, missing_side, n_children
            )
            total = 0.0
            for child in kids:
                if child.shape[0] > 0:
                    total += _reach(x, yc, yv, w, child, depth, levels_left, ctx)
            out[j, 0] = total
            out[j, 3] = node_impurity - greedy / total_w
            continue
        n_present = _scan_order(hist, n_codes, kinds[f], multiway, regression, node, order)
        _sides(hist, order, n_present, n_codes, regression, sides)
        n_cuts = _cuts(sides, n_present, regression, min_leaf, criterion, max_cuts, cuts)
        for k in range(n_cuts):
            i = cuts[k]
            table, missing_side = _cut_table(order, n_present, i, n_codes, sides, regression)
            kids = _children_rows(x, rows, f, n_codes, missing_code, table, missing_side, 2)
            total = _reach(x, yc, yv, w, kids[0], depth, levels_left, ctx) + _reach(
                x, yc, yv, w, kids[1], depth, levels_left, ctx
            )
            greedy = _cost(sides[i], 0, criterion, regression) + _cost(
                sides[i], 1, criterion, regression
            )
            gain = node_impurity - greedy / total_w
            # Ties within rounding: the higher greedy gain, then the lower cut.
            if total < out[j, 0] - 1e-12 * total_w or (
                abs(total - out[j, 0]) <= 1e-12 * total_w and gain > out[j, 3] + 1e-12
            ):
                out[j, 0] = total
                out[j, 1] = order[i]
                out[j, 2] = order[i + 1]
                out[j, 3] = gain
