"""The terms of a model tree's linear models, and the filling of missing values it needs.

A linear model reads numbers. M5 (Wang & Witten 1997; Weka's M5P) makes them of every
feature once, before growing:

- a missing value is filled with the feature's training mean (numeric) or most frequent
  category (nominal, ordinal), at training and at prediction alike;
- a numeric feature is one term, its value;
- a category feature of K categories is K - 1 indicator terms. Its categories are ranked
  (nominal: by their mean target in training, the lowest first; ordinal: in their declared
  order), and term ``r`` (1 <= r < K) is 1 for the categories of rank >= r. Term ``r`` is
  named as M5P names it: ``feature=`` and the categories of rank r to K - 1, comma
  separated.

The tree is grown on the ranked categories, so that a split between ranks ``r - 1`` and
``r`` is a split on term ``r``: the terms a node's model may use are those its subtree
splits on (:func:`split_terms`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import LEAF, SUBSET_SPLIT
from ..data.schema import NOMINAL_KIND, NUMERIC_KIND, ORDINAL_KIND, Feature, Schema
from ..splitting.category_sets import subset_table

__all__ = [
    "TermEncoding",
    "encoding_of",
    "fit_terms",
    "growth_frame",
    "in_feature_space",
    "split_terms",
]


@dataclass(frozen=True)
class TermEncoding:
    """What a model tree learned of its features before growing.

    Attributes
    ----------
    fill : float64 (n_features,)
        The value a missing value takes: a numeric feature's mean, a category feature's
        most frequent category (its code).
    ranks : tuple of int64 arrays or None, one per feature
        A category feature's rank of each category code (None for numeric features).
    term_feature, term_rank : int64 (n_terms,)
        The feature of each term, and for a category feature the smallest rank it is 1
        for (0 for a numeric feature's term).
    names : tuple of str
        The name of each term.
    """

    fill: np.ndarray
    ranks: tuple
    term_feature: np.ndarray
    term_rank: np.ndarray
    names: tuple

    @property
    def n_terms(self) -> int:
        return len(self.names)

    def filled(self, matrix: np.ndarray) -> np.ndarray:
        """The routing matrix (numbers, category codes, NaN for missing) with every missing
        value filled; a new array."""
        out = np.array(matrix, dtype=np.float64)
        gaps = np.isnan(out)
        if gaps.any():
            out[gaps] = np.broadcast_to(self.fill, out.shape)[gaps]
        return out

    def ranked(self, filled: np.ndarray) -> np.ndarray:
        """A filled routing matrix with category codes replaced by their ranks."""
        out = np.array(filled, dtype=np.float64)
        for f, rank in enumerate(self.ranks):
            if rank is not None:
                out[:, f] = rank[filled[:, f].astype(np.int64)]
        return out

    def terms(self, matrix: np.ndarray) -> np.ndarray:
        """The term matrix ``(n_rows, n_terms)`` of a routing matrix (missing values are
        filled first)."""
        ranked = self.ranked(self.filled(matrix))
        values = ranked[:, self.term_feature]
        category = self.term_rank > 0
        values[:, category] = values[:, category] >= self.term_rank[category]
        return values


def fit_terms(matrix: np.ndarray, y: np.ndarray, w: np.ndarray, schema: Schema) -> TermEncoding:
    """The :class:`TermEncoding` of training rows: ``matrix`` the routing matrix (numbers,
    category codes, NaN for missing), ``y`` the targets, ``w`` the weights."""
    fill = np.zeros(matrix.shape[1])
    ranks = []
    for f, feature in enumerate(schema.features):
        column = matrix[:, f]
        known = ~np.isnan(column)
        if feature.kind == NUMERIC_KIND:
            if known.any() and w[known].sum() > 0:
                fill[f] = np.average(column[known], weights=w[known])
            ranks.append(None)
            continue
        codes = column[known].astype(np.int64)
        counts = np.bincount(codes, weights=w[known], minlength=feature.n_categories)
        fill[f] = float(np.argmax(counts)) if feature.n_categories else 0.0  # first of equals
        ranks.append(_category_ranks(feature, codes, y, w, fill[f], known))
    return encoding_of(fill, tuple(ranks), schema)


def encoding_of(fill: np.ndarray, ranks: tuple, schema: Schema) -> TermEncoding:
    """The :class:`TermEncoding` of fill values and category ranks (the terms follow)."""
    term_feature, term_rank, names = [], [], []
    for f, feature in enumerate(schema.features):
        if ranks[f] is None:
            term_feature.append(f)
            term_rank.append(0)
            names.append(feature.name)
            continue
        order = np.argsort(ranks[f], kind="stable")
        labels = [str(feature.categories[c]) for c in order]
        for r in range(1, feature.n_categories):
            term_feature.append(f)
            term_rank.append(r)
            names.append(f"{feature.name}={','.join(labels[r:])}")
    return TermEncoding(
        fill=np.asarray(fill, dtype=np.float64),
        ranks=ranks,
        term_feature=np.asarray(term_feature, dtype=np.int64),
        term_rank=np.asarray(term_rank, dtype=np.int64),
        names=tuple(names),
    )


def _category_ranks(feature: Feature, codes, y, w, mode, known) -> np.ndarray:
    """Each category's rank: ordinal categories in their order; nominal ones by the mean
    target of their rows, the filled rows counted with the most frequent category (a
    category without rows takes the feature's mean), ties in category order."""
    k = feature.n_categories
    if feature.kind == ORDINAL_KIND:
        return np.arange(k, dtype=np.int64)
    assert feature.kind == NOMINAL_KIND
    all_codes = np.full(len(y), int(mode), dtype=np.int64)
    all_codes[known] = codes
    weight = np.bincount(all_codes, weights=w, minlength=k)
    sums = np.bincount(all_codes, weights=w * y, minlength=k)
    overall = sums.sum() / weight.sum() if weight.sum() > 0 else 0.0
    means = np.where(weight > 0, sums / np.where(weight > 0, weight, 1.0), overall)
    order = np.argsort(means, kind="stable")
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)
    return rank


def growth_frame(filled: np.ndarray, schema: Schema, encoding: TermEncoding):
    """The frame and schema a model tree grows on: missing values filled, and each
    category feature an ordinal one over its categories in rank order (so that a threshold
    between ranks is a split on one term)."""
    columns, features = {}, []
    for f, feature in enumerate(schema.features):
        rank = encoding.ranks[f]
        if rank is None:
            columns[feature.name] = filled[:, f]
            features.append(feature)
            continue
        order = np.argsort(rank, kind="stable")
        labels = tuple(feature.categories[c] for c in order)
        codes = rank[filled[:, f].astype(np.int64)]
        columns[feature.name] = pd.Categorical.from_codes(codes, categories=labels, ordered=True)
        features.append(Feature(feature.name, ORDINAL_KIND, labels))
    frame = pd.DataFrame(columns)
    return frame, Schema(tuple(features), schema.target, schema.target_kind, schema.classes)


def split_terms(tree, encoding: TermEncoding) -> np.ndarray:
    """The term each split of a tree grown on :func:`growth_frame` tests (-1 for leaves):
    a numeric feature's term, or the indicator of the ranks above a category threshold."""
    first = np.full(len(encoding.ranks), -1, dtype=np.int64)
    for t in range(encoding.n_terms - 1, -1, -1):
        first[encoding.term_feature[t]] = t
    out = np.full(tree.node_count, -1, dtype=np.int64)
    inner = np.flatnonzero(tree.kind != LEAF)
    features = tree.feature[inner]
    out[inner] = first[features]
    category = np.array([encoding.ranks[f] is not None for f in features], dtype=bool)
    # A threshold t + 0.5 between ranks t and t + 1 is term t + 1, the (t+1)-th of the feature.
    out[inner[category]] += (tree.threshold[inner[category]] - 0.5).astype(np.int64)
    return out


def in_feature_space(tree, encoding: TermEncoding, schema: Schema):
    """A tree grown on :func:`growth_frame` as a tree of the features of ``schema``: a
    threshold on a nominal feature's ranks becomes the subset split of its categories, and
    every split sends a missing value where the filled value goes."""
    kind = tree.kind.copy()
    cat_start = tree.cat_start.copy()
    missing_child = tree.missing_child.copy()
    tables = [tree.cat_table]
    n_table = len(tree.cat_table)
    for node in np.flatnonzero(tree.kind != LEAF):
        f = int(tree.feature[node])
        fill = encoding.fill[f]
        rank = encoding.ranks[f]
        if rank is None:
            missing_child[node] = 0 if fill <= tree.threshold[node] else 1
            continue
        missing_child[node] = 0 if rank[int(fill)] <= tree.threshold[node] else 1
        if schema.features[f].kind == NOMINAL_KIND:
            kind[node] = SUBSET_SPLIT
            cat_start[node] = n_table
            tables.append(subset_table(rank > tree.threshold[node]))
            n_table += len(tables[-1])
    return dataclasses.replace(
        tree,
        kind=kind,
        threshold=np.where(kind == SUBSET_SPLIT, np.nan, tree.threshold),
        cat_start=cat_start,
        cat_table=np.concatenate(tables).astype(np.int32),
        missing_child=missing_child,
    )
