"""Project-wide constants: dtypes, sentinels, and the one place that sets Numba options."""

from __future__ import annotations

import numba
import numpy as np

#: Feature kinds, as small integer codes so that kernels can take them, and their names
#: (``FEATURE_KIND_NAMES[code]``), which schemas and model files show.
NUMERIC, NOMINAL, ORDINAL = 0, 1, 2
FEATURE_KIND_NAMES = ("numeric", "nominal", "ordinal")

#: Numeric-threshold search on "auto" binning: exact (one bin per distinct value) up to this
#: many training rows, or when a feature has at most ``AUTO_MAX_BINS`` distinct values.
AUTO_EXACT_MAX_ROWS = 50_000
AUTO_MAX_BINS = 255

#: Strings read as a missing value in text input (besides NaN and None).
MISSING_STRINGS = ("", "?")

#: Weka's ``Utils.SMALL``: the tolerance of J48's comparisons (C4.5 release 8 compares exactly).
J48_SMALL = 1e-6


def bin_dtype(max_codes: int) -> np.dtype:
    """Smallest unsigned dtype holding ``max_codes`` bin codes (0 to ``max_codes - 1``)
    plus the missing code (its largest value): 255 bins, the most ``max_bins="auto"``
    makes, fit in uint8."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_codes <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise ValueError(f"too many bins for one feature: {max_codes}")


def missing_code(dtype: np.dtype) -> int:
    """The bin code reserved for a missing value: the largest value of the dtype."""
    return int(np.iinfo(dtype).max)


def njit(*args, **kwargs):
    """``numba.njit`` with the project's options: cached, GIL released, no fastmath
    (NaN handling and exact ties matter more than the last few percent of speed).

    Numba keys a cached function on its own source file only: after editing a kernel that
    another file's kernel inlines, ``make clean-cache`` (installing a release rewrites every
    file, so users are not affected)."""
    options = {"cache": True, "nogil": True, "fastmath": False, **kwargs}
    if args and callable(args[0]):
        return numba.njit(**options)(args[0])
    return numba.njit(*args, **options)


# Node kinds of the flat tree arrays.
LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT = 0, 1, 2, 3
NODE_KIND_NAMES = ("leaf", "numeric", "multiway", "subset")

# The criteria and their codes: quercus.criteria.registry.

# Tolerance under which two gains count as equal (C4.5's epsilon is 1e-3 on gains in bits;
# this is only a guard against floating-point noise in sums).
GAIN_EPS = 1e-12

# Missing-value policies (``missing=`` of the estimators), as codes the kernels take.
FRACTIONAL, MAJORITY, CLASS_MAJORITY, LEARNED = range(4)
MISSING_POLICIES = {
    "fractional": FRACTIONAL,
    "majority": MAJORITY,
    "class_majority": CLASS_MAJORITY,
    "learned": LEARNED,
}
