"""Which branch each category of a nominal split takes, stored in what the tree grows with.

A multiway split stores nothing: category ``c`` goes to branch ``c``. A binary subset split
stores a bitset: bit ``c % 32`` of int32 word ``c // 32`` is set when category ``c`` goes
to the second branch, so a split on a column of 20,000 levels keeps 625 words (2.5 kB).
A table of one branch number per category, at every split, made a tree on such a column
hold hundreds of millions of entries.

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


def words_for(n_categories: int) -> int:
    """The int32 words of the bitset of a subset split on ``n_categories`` categories."""
    return -(-int(n_categories) // WORD_BITS)


def unpack_sides(words: np.ndarray, n_categories: int) -> np.ndarray:
    """The branch (0 or 1, int64) of each of ``n_categories`` categories in a subset split's
    bitset ``words``."""
    raw = np.ascontiguousarray(words, dtype="<i4").view(np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n_categories].astype(np.int64)


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
    itself at a multiway split, its bit in the bitset at ``table[start]`` at a subset split."""
    codes = np.asarray(codes, dtype=np.int64)
    if multiway:
        return codes.copy()
    words = np.asarray(table[start + (codes >> 5)], dtype=np.int64)
    return (words >> (codes & 31)) & 1
