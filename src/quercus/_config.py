"""Project-wide constants: dtypes, sentinels, and the one place that sets Numba options."""

from __future__ import annotations

import numba
import numpy as np

#: dtype of sample weights and class-count histograms.
WEIGHT_DTYPE = np.float64
#: dtype of class codes, row indices and counts passed to kernels.
INDEX_DTYPE = np.int32

#: Feature kinds, as small integer codes so that kernels can take them.
NUMERIC, NOMINAL, ORDINAL = 0, 1, 2
KIND_NAMES = ("numeric", "nominal", "ordinal")

#: Numeric-threshold search on "auto" binning: exact (one bin per distinct value) up to this
#: many training rows, or when a feature has at most ``AUTO_MAX_BINS`` distinct values.
AUTO_EXACT_MAX_ROWS = 50_000
AUTO_MAX_BINS = 255

#: Strings read as a missing value in text input (besides NaN and None).
MISSING_STRINGS = ("", "?")


def bin_dtype(max_codes: int) -> np.dtype:
    """Smallest unsigned dtype holding ``max_codes`` bin codes plus the missing code."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_codes < np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise ValueError(f"too many bins for one feature: {max_codes}")


def missing_code(dtype: np.dtype) -> int:
    """The bin code reserved for a missing value: the largest value of the dtype."""
    return int(np.iinfo(dtype).max)


def njit(*args, **kwargs):
    """``numba.njit`` with the project's options: cached, GIL released, no fastmath
    (NaN handling and exact ties matter more than the last few percent of speed)."""
    options = {"cache": True, "nogil": True, "fastmath": False, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**options)(args[0])
    return numba.njit(*args, **options)
