"""Exact sums of float64 values: the sums of a collection's partitions add up to the sum of
the whole, however it is partitioned (the weights' sums of :mod:`~quercus.distributed.ingest`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["exact_sum"]


def exact_sum(values) -> Fraction:
    """The exact sum of finite float64 ``values``, as a fraction.

    A float is an integer of 53 bits times a power of two: the integers of each power are
    added in int64 (in halves of 26 bits, chunks of 2**26 values, so no sum overflows or
    rounds) and the powers in Python's integers. Sums of partitions add up to the sum of
    the whole, whatever the partitioning."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if not len(values):
        return Fraction(0)
    mantissa, exponent = np.frexp(values)
    whole = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| < 1
    powers, group = np.unique(exponent, return_inverse=True)
    total = 0
    chunk = 2**26
    for start in range(0, len(values), chunk):
        part, where = whole[start : start + chunk], group[start : start + chunk]
        for half, scale in ((part >> 26, 2**26), (part & (2**26 - 1), 1)):
            sums = np.bincount(where, weights=half, minlength=len(powers))
            total += sum(
                Fraction(int(s) * scale) * Fraction(2) ** (int(p) - 53)
                for p, s in zip(powers, sums, strict=True)
                if s
            )
    return Fraction(total)
