"""The category tables of a file's trees, in the forms the format versions gave them.

A subset split keeps its categories in ``cat_table`` (``splitting/category_sets.py``). The
forms changed: the oldest files keep a branch number for every category of every nominal
split, later ones a bare bitset per subset split, today's a header and a bitset or a list of
codes. This module names the forms (:func:`tables_of` says which a file's version uses),
compacts a tree's table before it is written (:func:`compact_categories`) and converts an
older form, once checked (``checks.check_tree``), to today's (:func:`converted_tables`).
Model and forest files both use it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._config import SUBSET_SPLIT
from ..data.schema import Schema
from ..splitting.category_sets import BITSET, WORD_BITS, subset_table, table_sizes
from ..tree import Tree

#: How a file's trees keep their category tables: a branch number per category of every
#: nominal split, a bare bitset per subset split, or a header and a bitset or a list.
FULL_TABLES, BITSETS, HEADED = "full tables", "bitsets", "headed"


def tables_of(version: int, full_tables_version: int, bitsets_version: int) -> str:
    """How the trees of a file of ``version`` keep their category tables (the last
    versions of each old form given)."""
    if version <= full_tables_version:
        return FULL_TABLES
    return BITSETS if version <= bitsets_version else HEADED


def compact_categories(tree: Tree, schema: Schema) -> Tree:
    """``tree`` with a category table that holds only its subset splits' tables, in node
    order (pruning leaves the tables of removed splits behind)."""
    nodes = np.flatnonzero(tree.kind == SUBSET_SPLIT)
    n_categories = np.array([f.n_categories or 0 for f in schema.features], dtype=np.int64)
    sizes = table_sizes(tree.cat_table, tree.cat_start[nodes], n_categories[tree.feature[nodes]])
    cat_start = np.full(tree.node_count, -1, dtype=np.int32)
    cat_start[nodes] = np.cumsum(sizes) - sizes
    if sizes.sum() == len(tree.cat_table) and (cat_start == tree.cat_start).all():
        return tree
    starts = tree.cat_start[nodes].astype(np.int64)
    picked = np.repeat(starts - cat_start[nodes], sizes) + np.arange(sizes.sum())
    return replace(tree, cat_start=cat_start, cat_table=tree.cat_table[picked].astype(np.int32))


def converted_tables(a: dict, schema: Schema, tables: str) -> dict:
    """The arrays ``a`` of a tree read from an older file (checked by
    :func:`~quercus.persist.checks.check_tree` with its ``tables``) with the category tables
    of today (``category_sets.py``): a full table per nominal split (version 3 and older)
    made the smaller of a bitset and a list, the multiway splits' tables dropped; a bare
    bitset (version 4) given its header. The tables are laid in node order from 0 (of
    stacked trees: of the whole stack)."""
    if tables == HEADED:
        return a
    subset = np.flatnonzero(a["kind"] == SUBSET_SPLIT)
    n_categories = np.array([f.n_categories or 0 for f in schema.features], dtype=np.int64)
    size = n_categories[a["feature"][subset]]
    start = a["cat_start"][subset].astype(np.int64)
    if tables == BITSETS:
        words = -(-size // WORD_BITS)
        new_start = np.cumsum(words + 1) - (words + 1)
        table = np.full(int((words + 1).sum()), BITSET, dtype=np.int32)
        within = np.arange(words.sum()) - np.repeat(np.cumsum(words) - words, words)
        table[np.repeat(new_start + 1, words) + within] = a["cat_table"][
            np.repeat(start, words) + within
        ]
    else:
        parts = [
            subset_table(a["cat_table"][lo : lo + n] == 1)
            for lo, n in zip(start.tolist(), size.tolist(), strict=True)
        ]
        lengths = np.array([len(p) for p in parts], dtype=np.int64)
        new_start = np.cumsum(lengths) - lengths
        table = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    cat_start = np.full(len(a["kind"]), -1, dtype=np.int32)
    cat_start[subset] = new_start
    return {**a, "cat_start": cat_start, "cat_table": table.astype(np.int32)}
