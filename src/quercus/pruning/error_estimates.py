"""Pessimistic (upper-confidence) error estimates for C4.5's error-based pruning.

``added_errors(n, e, cf)`` is the number of errors to add to ``e`` observed errors among
``n`` cases so that the total is the upper limit of a binomial confidence interval at level
``cf`` (C4.5's ``AddErrs``). Two variants:

- ``"c45"`` as C4.5 release 8: the normal deviate interpolated from a small table (0.6925 at
  CF = 0.25), and ``0.67 (n - e)`` when ``e + 0.5 >= n``;
- ``"j48"`` as Weka's J48: the exact deviate (0.6745 at CF = 0.25), ``n - e`` at the high end,
  and no estimate for ``cf > 0.5``.

Both use the same continuity-corrected Wilson bound in between and the same treatment of
``e < 1`` (the exact bound ``n (1 - cf^(1/n))`` for no error, interpolated up to one error).
"""

from __future__ import annotations

import math
from statistics import NormalDist

# C4.5's table: confidence levels and their normal deviates.
_C45_LEVELS = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_C45_DEVIATES = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)


def c45_deviate(cf: float) -> float:
    """C4.5's normal deviate for confidence ``cf``: linear between the table's entries."""
    i = 0
    while cf > _C45_LEVELS[i]:
        i += 1
    if i == 0:
        return _C45_DEVIATES[0]
    lo, hi = _C45_LEVELS[i - 1], _C45_LEVELS[i]
    return _C45_DEVIATES[i - 1] + (_C45_DEVIATES[i] - _C45_DEVIATES[i - 1]) * (cf - lo) / (hi - lo)


def check_confidence(cf: float, variant: str) -> None:
    """Refuse a variant other than ``"c45"`` and ``"j48"``, and a confidence outside (0, 1)
    (J48: above 0.5)."""
    if variant not in ("c45", "j48"):
        raise ValueError(f"variant must be 'c45' or 'j48', got {variant!r}")
    if not 0.0 < cf < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {cf!r}")
    if variant == "j48" and cf > 0.5:
        raise ValueError(f"J48 refuses a confidence above 0.5, got {cf!r}")


def deviate(cf: float, variant: str) -> float:
    """The normal deviate of confidence ``cf``: C4.5's table, or J48's exact one."""
    return c45_deviate(cf) if variant == "c45" else NormalDist().inv_cdf(1.0 - cf)


def _check(n: float, e: float, cf: float, variant: str) -> None:
    check_confidence(cf, variant)
    if n < 0 or e < 0 or e > n + 1e-9:
        raise ValueError(f"need 0 <= errors <= cases, got cases={n!r}, errors={e!r}")


def added_errors(n: float, e: float, cf: float = 0.25, variant: str = "j48") -> float:
    """Errors to add to ``e`` observed errors among ``n`` cases (C4.5's ``AddErrs``)."""
    _check(n, e, cf, variant)
    return _added_errors(n, e, cf, variant)


def _added_errors(n: float, e: float, cf: float, variant: str) -> float:
    if n <= 0:
        return 0.0
    if e < 1e-6:
        return n * (1.0 - cf ** (1.0 / n))
    if e < (0.9999 if variant == "c45" else 1.0):
        # Interpolated up to one error, even when fewer than one case (fractional weights)
        # makes "one error" more than the cases: the high-end rule below then applies.
        base = n * (1.0 - cf ** (1.0 / n))
        return base + e * (_added_errors(n, 1.0, cf, variant) - base)
    if e + 0.5 >= n:
        return 0.67 * (n - e) if variant == "c45" else max(n - e, 0.0)
    z = deviate(cf, variant)
    z2 = z * z
    upper = (e + 0.5 + z2 / 2 + math.sqrt(z2 * ((e + 0.5) * (1 - (e + 0.5) / n) + z2 / 4))) / (
        n + z2
    )
    return n * upper - e


def pessimistic_errors(n: float, e: float, cf: float = 0.25, variant: str = "j48") -> float:
    """Estimated errors of a leaf with ``n`` cases and ``e`` errors: ``e + added_errors``."""
    return e + added_errors(n, e, cf, variant)
