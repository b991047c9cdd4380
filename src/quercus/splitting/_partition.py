"""Numba kernels: send a node's rows to the children of its split, missing values included.

Stage three of growing a node. :func:`route_known` gives each row with a known value its
branch and sums the branches' known weight; :func:`missing_branch` and
:func:`route_missing` place the rows with a missing value by the policy (the heaviest
branch, the branch learned with the split, or each class's heaviest branch);
:func:`move_rows` then moves the rows so that each child's rows are contiguous, summing the
children's statistics on the way. FRACTIONAL (C4.5) instead copies a row with a missing
value into every branch with a share of its weight (:func:`copy_fractional`).

The per-row loops are written out for classification and regression: a helper call per row
measured 10x slower than the loop body.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import LEARNED, MULTIWAY_SPLIT, NUMERIC_SPLIT, njit
from ._category_bits import pending_branch


class SplitTest(NamedTuple):
    """The test that gives a row with a known value its branch: by the bin code of
    ``feature``, ``code <= bin_cut`` to branch 0 (``kind`` NUMERIC_SPLIT), branch ``code``
    (MULTIWAY_SPLIT), or the code's side in the pending table (``_category_bits.py``) at
    ``cat_start`` of the category table (SUBSET_SPLIT)."""

    feature: int
    kind: int
    bin_cut: int
    cat_start: int


@njit(refcounts=False)
def route_known(
    x,
    y_class,
    w,
    start,
    end,
    test,
    cat_table,
    missing_code,
    by_class,
    child_of,
    counts,
    child_w,
    class_w,
):
    """Branch of each row of ``start:end`` with a known value by the :class:`SplitTest`
    ``test`` into ``child_of`` (-1 for a missing value); per branch, the rows
    (``counts[ch + 1]``), the known weight (``child_w``) and, ``by_class``, the weight of
    each class (``class_w``). Returns the number of rows with a missing value."""
    f, split_kind, bin_cut, cat_start = test
    n_missing = 0
    for r in range(start, end):
        c = x[r, f]
        if c == missing_code:
            child_of[r - start] = -1
            n_missing += 1
            continue
        if split_kind == NUMERIC_SPLIT:
            ch = 0 if c <= bin_cut else 1
        elif split_kind == MULTIWAY_SPLIT:
            ch = c
        else:  # a pending subset split: -1 for a category not seen at the node
            ch = pending_branch(cat_table, cat_start, c)
        child_of[r - start] = ch
        counts[ch + 1] += 1
        child_w[ch] += w[r]
        if by_class:
            class_w[ch, y_class[r]] += w[r]
    return n_missing


@njit(inline="always")
def missing_branch(child_w, n_children, missing_mode, learned_child):
    """``(heaviest, missing child, known weight)``: the branch of most known weight (the
    first on ties), and the branch missing values take: the learned one (LEARNED, when the
    split learned one), else the heaviest."""
    heaviest = 0
    w_known = 0.0
    for ch in range(n_children):
        w_known += child_w[ch]
        if child_w[ch] > child_w[heaviest]:
            heaviest = ch
    missing_child = heaviest
    if missing_mode == LEARNED and learned_child >= 0:
        missing_child = learned_child
    return heaviest, missing_child, w_known


@njit(inline="always")
def route_missing(
    child_of, start, end, y_class, missing_child, by_class, class_w, n_children, counts
):
    """Branch of each row with a missing value: ``missing_child``, or (``by_class``) the
    branch where the row's class is heaviest, the first on ties (C4.5's "most common value
    among the cases of the same class"), when that class has known weight."""
    for r in range(start, end):
        if child_of[r - start] < 0:
            ch = missing_child
            if by_class:
                k = y_class[r]
                best = 0
                for b in range(n_children):
                    if class_w[b, k] > class_w[best, k]:
                        best = b
                if class_w[best, k] > 0.0:
                    ch = best
            child_of[r - start] = ch
            counts[ch + 1] += 1


@njit(inline="always")
def fractional_shares(child_w, w_known, n_missing, n_children, shares, counts):
    """Each branch's share of the known weight, the weight a row with a missing value
    carries into it (FRACTIONAL); such a row is copied into every branch of positive
    share, which ``counts`` counts."""
    for ch in range(n_children):
        shares[ch] = child_w[ch] / w_known
        if shares[ch] > 0.0:
            counts[ch + 1] += n_missing


@njit(refcounts=False)
def move_rows(src, dst, start, end, words, child_of, fill, regression, child_stats):
    """Move rows ``start:end`` from the arrays ``src`` to ``dst`` (each ``(x, y_class,
    y_value, w)``), each to the next free place of its branch (``start + fill[ch]``), and
    sum each branch's statistics into ``child_stats``, row by row in the order the child's
    rows will have, so they equal what summing at the child would give. Only the target of
    the task moves (``y_value`` for regression, else ``y_class``).

    Rows move as 8-byte words (the caller pads rows to whole words): a row view per row
    would cost a reference count, a byte per feature 8 times the moves."""
    src_x, src_yc, src_yv, src_w = src
    dst_x, dst_yc, dst_yv, dst_w = dst
    src_words = src_x.view(np.uint64)
    dst_words = dst_x.view(np.uint64)
    for r in range(start, end):
        ch = child_of[r - start]
        dest = start + fill[ch]
        fill[ch] += 1
        for j in range(words):
            dst_words[dest, j] = src_words[r, j]
        dst_w[dest] = src_w[r]
        # Each task reads one target only: the other is left behind.
        if regression:
            dst_yv[dest] = src_yv[r]
            child_stats[ch, 0] += src_w[r]
            child_stats[ch, 1] += src_w[r] * src_yv[r]
            child_stats[ch, 2] += src_w[r] * src_yv[r] * src_yv[r]
        else:
            dst_yc[dest] = src_yc[r]
            child_stats[ch, src_yc[r]] += src_w[r]


@njit(inline="always")
def copy_fractional(
    src, dst, start, end, base, n_features, child_of, shares, fill, regression, child_stats
):
    """FRACTIONAL: copy rows ``start:end`` of ``src`` into ``dst`` from row ``base`` on,
    each child's rows together; a row with a missing value (branch -1) goes into every
    branch of positive share with its weight times the share. Sums the children's
    statistics as :func:`move_rows` does."""
    src_x, src_yc, src_yv, src_w = src
    data, y_class, y_value, w = dst
    n_children = shares.shape[0]
    for r in range(start, end):
        ch = child_of[r - start]
        for b in range(n_children):
            if (ch >= 0 and b != ch) or (ch < 0 and shares[b] <= 0.0):
                continue
            dest = base + fill[b]
            fill[b] += 1
            for j in range(n_features):
                data[dest, j] = src_x[r, j]
            y_class[dest] = src_yc[r]
            y_value[dest] = src_yv[r]
            w[dest] = src_w[r] if ch >= 0 else src_w[r] * shares[b]
            if regression:
                child_stats[b, 0] += w[dest]
                child_stats[b, 1] += w[dest] * y_value[dest]
                child_stats[b, 2] += w[dest] * y_value[dest] * y_value[dest]
            else:
                child_stats[b, y_class[dest]] += w[dest]


@njit
def branch_weights(x, y_class, w, missing_code, test, cat_table, n_children, by_class, class_w):
    """For the rows ``x`` (a node's rows, in increasing order): each branch's known weight
    under the split of :class:`SplitTest` ``test`` (returned) and, ``by_class``, each
    branch's weight of each class (into ``class_w``), summed as the compiled grower sums
    them."""
    n = x.shape[0]
    child_of = np.empty(n, dtype=np.int32)
    counts = np.zeros(n_children + 1, dtype=np.int64)
    child_w = np.zeros(n_children)
    class_w[:] = 0.0
    route_known(
        x,
        y_class,
        w,
        0,
        n,
        test,
        cat_table,
        missing_code,
        by_class,
        child_of,
        counts,
        child_w,
        class_w,
    )
    return child_w


@njit
def branch_of_rows(
    x, y_class, w, missing_code, test, cat_table, n_children, by_class, class_w, missing_child
):
    """The branch of each of the rows ``x`` under the split of :class:`SplitTest` ``test``,
    rows with a missing value placed as the compiled grower places them (``class_w`` as
    :func:`branch_weights` gives it)."""
    n = x.shape[0]
    child_of = np.empty(n, dtype=np.int32)
    counts = np.zeros(n_children + 1, dtype=np.int64)
    child_w = np.zeros(n_children)
    scratch = np.zeros_like(class_w)
    n_missing = route_known(
        x,
        y_class,
        w,
        0,
        n,
        test,
        cat_table,
        missing_code,
        False,
        child_of,
        counts,
        child_w,
        scratch,
    )
    if n_missing > 0:
        route_missing(child_of, 0, n, y_class, missing_child, by_class, class_w, n_children, counts)
    return child_of
