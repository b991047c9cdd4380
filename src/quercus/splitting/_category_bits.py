"""Numba kernels: the bits of a nominal split's categories (``category_sets.py`` says how
they are stored)."""

from __future__ import annotations

import numpy as np

from .._config import njit
from .category_sets import WORD_BITS


@njit(inline="always")
def n_words(n_categories):
    """The words of the bitset of a split on ``n_categories`` categories."""
    return (n_categories + WORD_BITS - 1) // WORD_BITS


@njit(inline="always")
def _bit(word, code):
    # In 64 bits: a word with bit 31 set is negative as int32, and only bits 0-31 are read.
    return (np.int64(word) >> (np.int64(code) & 31)) & 1


@njit(inline="always")
def _with_bit(word, code):
    return np.int32(np.int64(word) | (np.int64(1) << (np.int64(code) & 31)))


@njit(inline="always")
def subset_bit(table, start, code):
    """The branch (0 or 1) of category ``code`` at the subset split whose table (a header,
    then a bitset or a sorted list of codes: ``category_sets.py``) starts at
    ``table[start]``."""
    header = np.int64(table[start])
    if header < 0:
        return _bit(table[start + 1 + (np.int64(code) >> 5)], code)
    side = header & 1
    lo = np.int64(start) + 1
    hi = lo + (header >> 1)
    while lo < hi:  # a binary search of the listed codes
        mid = (lo + hi) >> 1
        listed = np.int64(table[mid])
        if listed == code:
            return side
        if listed < code:
            lo = mid + 1
        else:
            hi = mid
    return 1 - side


@njit(inline="always")
def category_branch(multiway, table, start, code):
    """The branch of category ``code`` at a nominal split (``multiway``: one branch per
    category; else a subset split's bitset at ``table[start]``)."""
    if multiway:
        return np.int64(code)
    return subset_bit(table, start, code)


@njit(inline="always")
def growing_width(n_categories):
    """The words of a pending subset split's table (sides and seen, interleaved)."""
    return 2 * n_words(n_categories)


@njit(inline="always")
def record_sides(table, start, side, n_categories):
    """Write the pending table of a subset split at ``table[start]``: ``side[c]`` 0 or 1,
    -1 for a category not seen at the node. Returns the table's end."""
    width = growing_width(n_categories)
    for k in range(width):
        table[start + k] = 0
    for c in range(n_categories):
        if side[c] >= 0:
            at = start + 2 * (c >> 5)
            table[at + 1] = _with_bit(table[at + 1], c)
            if side[c] == 1:
                table[at] = _with_bit(table[at], c)
    return start + width


@njit(inline="always")
def pending_branch(table, start, code):
    """The branch of category ``code`` at a pending subset split: 0 or 1, or -1 for a
    category not seen at the node."""
    at = start + 2 * (np.int64(code) >> 5)
    if _bit(table[at + 1], code) == 0:
        return -1
    return _bit(table[at], code)


@njit(inline="always")
def settle_unseen(table, start, n_categories, heaviest):
    """Send each category not seen at a pending subset split to branch ``heaviest``."""
    if heaviest == 0:
        return
    for c in range(n_categories):
        at = start + 2 * (c >> 5)
        if _bit(table[at + 1], c) == 0:
            table[at] = _with_bit(table[at], c)


@njit(inline="always")
def _popcount(word):
    """The set bits among the 32 low bits of ``word`` (int64), in a few operations."""
    w = np.int64(word) & 0xFFFFFFFF
    w = w - ((w >> 1) & 0x55555555)
    w = (w & 0x33333333) + ((w >> 2) & 0x33333333)
    w = (w + (w >> 4)) & 0x0F0F0F0F
    return ((w * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(inline="always")
def _listed_side(table, start, n_categories):
    """``(side, m)``: the branch of fewer categories in the pending table at
    ``table[start]`` (the second on a tie) and how many it has (``subset_table``'s rule)."""
    n_second = 0
    for k in range(n_words(n_categories)):
        n_second += _popcount(table[start + 2 * k])
    if n_second <= n_categories - n_second:
        return 1, n_second
    return 0, n_categories - n_second


@njit(inline="always")
def _settle_one(table, start, n_categories, side, m, out, at):
    """Write the final table of the pending one at ``table[start]`` to ``out[at]``: its
    bitset, or (``m`` less than its words) the ``m`` codes of branch ``side``, found word
    by word, bit by bit among the set ones."""
    words = n_words(n_categories)
    if m >= words:
        out[at] = -1
        for k in range(words):
            out[at + 1 + k] = table[start + 2 * k]
        return
    out[at] = 2 * m + side
    at += 1
    for k in range(words):
        word = np.int64(table[start + 2 * k]) & 0xFFFFFFFF
        if side == 0:  # the categories of the first branch: the clear bits, up to n
            word = ~word & 0xFFFFFFFF
            last = n_categories - 32 * k
            if last < 32:
                word &= (np.int64(1) << last) - 1
        while word:
            low = word & -word
            out[at] = 32 * k + _popcount(low - 1)
            at += 1
            word ^= low


@njit
def settled_tables(table, cat_start, subset, n_categories):
    """The final tables of a grown tree: each subset split's sides (from its pending
    table's even words) as a header and a bitset or a list (``category_sets.py``), in node
    order, and the new ``cat_start`` (-1 where a node has no table: ``subset[i]`` says
    whether node ``i`` is a subset split, of ``n_categories[i]``)."""
    n = cat_start.shape[0]
    side = np.zeros(n, dtype=np.int64)
    listed = np.zeros(n, dtype=np.int64)
    starts = np.full(n, -1, dtype=np.int32)
    total = 0
    for i in range(n):
        if subset[i]:
            side[i], listed[i] = _listed_side(table, cat_start[i], n_categories[i])
            starts[i] = total
            total += 1 + min(listed[i], n_words(n_categories[i]))
    out = np.empty(total, dtype=np.int32)
    for i in range(n):
        if subset[i]:
            _settle_one(table, cat_start[i], n_categories[i], side[i], listed[i], out, starts[i])
    return out, starts
