"""Which branch each category of a nominal split takes, stored in what the tree grows with.

A multiway split stores nothing: category ``c`` goes to branch ``c``. A binary subset split
stores, at ``cat_table[cat_start]``, a header word and then the smaller of two forms:

- header -1, then a bitset: bit ``c % 32`` of int32 word ``c // 32`` is set when category
  ``c`` goes to the second branch (625 words for 20,000 levels: 2.5 kB);
- header ``2 * m + side``, then the ``m`` category codes that take branch ``side``, in
  increasing order; every other category takes the other branch.

The list holds the categories of the branch that has fewer, so it is chosen when they are
fewer than the bitset's words. A category not seen at the node goes to the branch of most
weight, so the other branch holds only categories seen there: deep in a tree, where a few
rows reach a split, its table holds a few codes whatever the column's levels, and a tree's
tables grow with its rows, not with its splits times the categories. (A table of one branch
number per category at every split made a tree on a column of 20,000 levels hold hundreds
of millions of entries; bitsets alone, 32 times fewer.)

While the compiled grower holds a split pending, its table interleaves two bitsets, word
by word: the side of each category, then whether the category was seen at the node (an
unseen one goes to the branch of most weight once the split is applied:
:func:`settle_unseen`). At the end of growth :func:`settled_tables` keeps the sides only.

The kernels read and write the bits (``splitting/_category_bits.py``); the NumPy functions
here pack and unpack whole tables for the code that reads trees in Python (which must not
import Numba: ``quercus show`` reads a model without it).
"""

from __future__ import annotations

import numpy as np

#: Categories per word of a subset split's bitset.
WORD_BITS = 32


#: The header of a subset split's table in the bitset form.
BITSET = -1


def words_for(n_categories: int) -> int:
    """The int32 words of the bitset of a subset split on ``n_categories`` categories."""
    return -(-int(n_categories) // WORD_BITS)


def unpack_sides(words: np.ndarray, n_categories: int) -> np.ndarray:
    """The branch (0 or 1, int64) of each of ``n_categories`` categories in the bitset
    ``words`` (a table's words after its header)."""
    raw = np.ascontiguousarray(words, dtype="<i4").view(np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n_categories].astype(np.int64)


def subset_table(sides) -> np.ndarray:
    """The table (int32: header, then a bitset or a list of codes) of a subset split whose
    categories take the branches ``sides`` (0 or 1 each): the list of the branch with
    fewer categories (the second branch on a tie) when they are fewer than the bitset's
    words. The compiled grower settles its tables by the same rule
    (``_category_bits.settled_tables``)."""
    sides = np.asarray(sides).astype(bool)
    n_second = int(sides.sum())
    side = 1 if n_second <= len(sides) - n_second else 0
    listed = np.flatnonzero(sides == bool(side))
    if len(listed) < words_for(len(sides)):
        return np.concatenate([[2 * len(listed) + side], listed]).astype(np.int32)
    return np.concatenate([[BITSET], pack_sides(sides)]).astype(np.int32)


def table_sizes(table: np.ndarray, starts, n_categories) -> np.ndarray:
    """The words (int64, header included) of the subset splits' tables that begin at
    ``table[starts]``, on ``n_categories`` categories each (vectorised). The headers must
    be within ``table``."""
    starts = np.asarray(starts, dtype=np.int64)
    header = np.asarray(table, dtype=np.int64)[starts] if len(starts) else np.zeros(0, np.int64)
    words = -(-np.asarray(n_categories, dtype=np.int64) // WORD_BITS)
    return 1 + np.where(header == BITSET, words, header >> 1)


def table_sides(table: np.ndarray, start: int, n_categories: int) -> np.ndarray:
    """The branch (0 or 1, int64) of each of ``n_categories`` categories at the subset
    split whose table begins at ``table[start]``."""
    header = int(table[start])
    if header == BITSET:
        return unpack_sides(table[start + 1 : start + 1 + words_for(n_categories)], n_categories)
    side, m = header & 1, header >> 1
    out = np.full(n_categories, 1 - side, dtype=np.int64)
    out[np.asarray(table[start + 1 : start + 1 + m], dtype=np.int64)] = side
    return out


def pack_sides(sides) -> np.ndarray:
    """The bitset (int32 words) of a subset split whose categories take the branches
    ``sides`` (0 or 1 each)."""
    sides = np.asarray(sides)
    raw = np.packbits(sides.astype(bool), bitorder="little")
    padded = np.zeros(4 * words_for(len(sides)), dtype=np.uint8)
    padded[: len(raw)] = raw
    return padded.view("<i4").astype(np.int32)


def pending_table(sides) -> np.ndarray:
    """The pending table (``_category_bits.record_sides``) of ``sides`` (0, 1, or -1 for a category
    not seen at the node), for the kernels that route a node's rows."""
    sides = np.asarray(sides)
    table = np.zeros(2 * words_for(len(sides)), dtype=np.int32)
    table[0::2] = pack_sides(sides == 1)
    table[1::2] = pack_sides(sides >= 0)
    return table


def code_branches(multiway: bool, table: np.ndarray, start: int, codes) -> np.ndarray:
    """The branch (int64) of each category code of ``codes`` at a nominal split: the code
    itself at a multiway split, what the subset split's table at ``table[start]`` says at a
    subset split."""
    codes = np.asarray(codes, dtype=np.int64)
    if multiway:
        return codes.copy()
    header = int(table[start])
    if header == BITSET:
        words = np.asarray(table[start + 1 + (codes >> 5)], dtype=np.int64)
        return (words >> (codes & 31)) & 1
    side, m = header & 1, header >> 1
    listed = np.isin(codes, np.asarray(table[start + 1 : start + 1 + m], dtype=np.int64))
    return np.where(listed, side, 1 - side).astype(np.int64)
