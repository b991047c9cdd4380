"""A typed frame binned once, in the layout the growth kernel reads.

:func:`bin_frame` fits the bins of a frame and bins it straight into rows padded to whole
8-byte words (:func:`bin_rows`, :func:`pad_rows`); the result, :class:`BinnedData`, serves
one tree or every tree of a forest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import FEATURE_KIND_NAMES
from . import fit_bins

_KIND_CODES = {name: code for code, name in enumerate(FEATURE_KIND_NAMES)}

__all__ = ["BinnedData", "bin_frame", "bin_rows", "bin_tables", "pad_rows", "padded_width"]


@dataclass
class BinnedData:
    """A typed frame binned once (for one tree, or for every tree of a forest)."""

    mapper: object  # binning.BinMapper
    binned: np.ndarray  # (n_rows, >= n_features), C order, bin codes, rows padded
    kinds: np.ndarray  # int8 kernel codes NUMERIC / NOMINAL / ORDINAL
    bin_lo: np.ndarray  # (n_features, max bins): smallest training value of each bin
    bin_hi: np.ndarray  # largest training value of each bin


def padded_width(n_features: int, dtype) -> int:
    """The columns of a padded row: ``n_features`` codes of ``dtype`` rounded up to whole
    8-byte words, as the growth kernel moves rows a word at a time."""
    per_word = 8 // np.dtype(dtype).itemsize
    return -(-n_features // per_word) * per_word


def pad_rows(binned: np.ndarray) -> np.ndarray:
    """``binned`` C-ordered with its rows padded to whole 8-byte words (zero columns after
    the features), as the growth kernel moves rows a word at a time."""
    width = padded_width(binned.shape[1], binned.dtype)
    if width == binned.shape[1] and binned.flags.c_contiguous:
        return binned
    out = np.zeros((binned.shape[0], width), dtype=binned.dtype)
    out[:, : binned.shape[1]] = binned
    return out


def bin_rows(mapper, typed: pd.DataFrame) -> np.ndarray:
    """The padded C-ordered rows (:func:`pad_rows`) of the typed frame ``typed`` binned by
    ``mapper`` (a :class:`~quercus.binning.BinMapper`), binned straight into that layout:
    the only full-size array made is the result."""
    width = padded_width(len(mapper.kinds), mapper.dtype)
    out = np.zeros((len(typed), width), dtype=mapper.dtype)
    mapper.transform_into(typed, out)
    return out


def bin_frame(typed: pd.DataFrame, schema, max_bins, n_threads: int = 1) -> BinnedData:
    """Fit the bins of ``typed`` (on ``n_threads`` threads) and bin it (rows padded for
    the kernel: :func:`bin_rows`)."""
    mapper = fit_bins(typed, schema, max_bins, n_threads)
    return BinnedData(mapper, bin_rows(mapper, typed), *bin_tables(mapper))


def bin_tables(mapper) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's tables of a :class:`~quercus.binning.BinMapper`: ``(kinds, bin_lo,
    bin_hi)`` as :class:`BinnedData` holds them (NaN where a feature has no such bin)."""
    p = len(mapper.kinds)
    width = int(mapper.n_bins.max()) if p else 1
    bin_lo = np.full((p, width), np.nan)
    bin_hi = np.full((p, width), np.nan)
    for f in range(p):
        if mapper.lo[f] is not None:
            bin_lo[f, : len(mapper.lo[f])] = mapper.lo[f]
            bin_hi[f, : len(mapper.hi[f])] = mapper.hi[f]
    kinds = np.asarray([_KIND_CODES[k] for k in mapper.kinds], dtype=np.int8)
    return kinds, bin_lo, bin_hi
