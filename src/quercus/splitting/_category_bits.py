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
    """The branch (0 or 1) of category ``code`` at the subset split whose bitset starts at
    ``table[start]``."""
    return _bit(table[start + (np.int64(code) >> 5)], code)


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


@njit
def settled_tables(table, cat_start, subset, n_categories):
    """The final tables of a grown tree: each subset split's sides (its pending table's
    even words), in node order, and the new ``cat_start`` (-1 where a node has no table:
    ``subset[i]`` says whether node ``i`` is a subset split, of ``n_categories[i]``)."""
    n = cat_start.shape[0]
    total = 0
    for i in range(n):
        if subset[i]:
            total += n_words(n_categories[i])
    out = np.empty(total, dtype=np.int32)
    starts = np.full(n, -1, dtype=np.int32)
    at = 0
    for i in range(n):
        if subset[i]:
            starts[i] = at
            for k in range(n_words(n_categories[i])):
                out[at + k] = table[cat_start[i] + 2 * k]
            at += n_words(n_categories[i])
    return out, starts
