"""The bootstrap weights of a forest's trees: multinomial draws, or counter-based Poisson draws.

:func:`bootstrap_counts` is the classic bootstrap: ``n_draws`` rows drawn with replacement
from a tree's own seed. It needs every row at once, so it cannot be computed piece by piece.

:func:`poisson_counts` gives each row a Poisson(``rate``) weight that is a pure function of
``(seed, tree, global row index)``: no generator state is carried from one row to the next
(the idea of counter-based generators, Salmon et al., "Parallel random numbers: as easy as
1, 2, 3", SC 2011). Any block of rows is computed on its own and equals the same rows of
the whole, so a forest trained on partitions of the data does not depend on how the rows
are partitioned or on how many workers compute them. For large n, independent Poisson(1)
counts approximate the multinomial bootstrap (each count is Binomial(n, 1/n)); Spark MLlib's
random forests draw their bootstrap the same way.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._config import njit
from .._counters import GOLDEN_GAMMA, mix64, substream

__all__ = [
    "BOOTSTRAP_BLOCK",
    "MAX_POISSON_RATE",
    "bernoulli_counts",
    "bootstrap_counts",
    "poisson_counts",
]

# Row r of a tree's stream is word r + 1 of SplitMix64 seeded with the tree's key
# (``quercus._counters``); the tree's key is a substream of the seed's key, so two trees'
# streams of n rows overlap with probability about 2 n / 2**64.

# A uniform double in [0, 1) from the top 53 bits of a 64-bit word.
_SHIFT_11 = np.uint64(11)
_TWO_TO_MINUS_53 = 2.0**-53

#: The largest mean weight :func:`poisson_counts` draws: its table of the distribution
#: function has about ``rate + 9 sqrt(rate)`` entries (1,270 at the largest). A forest
#: draws at most this many times its rows for a tree either way (``max_samples``).
MAX_POISSON_RATE = 1e3


#: The most rows :func:`bootstrap_counts` draws at once: a sample of many more rows than
#: the data's takes the memory of its counts, not of its draws.
BOOTSTRAP_BLOCK = 1 << 20


def bootstrap_counts(seed: int, n: int, n_draws: int) -> np.ndarray:
    """How many times each of ``n`` rows is drawn in tree ``seed``'s bootstrap sample
    (``n_draws`` rows drawn with replacement). Drawn in blocks of :data:`BOOTSTRAP_BLOCK`:
    the generator gives the same rows drawn in blocks as drawn at once."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(n, dtype=np.int64)
    for start in range(0, n_draws, BOOTSTRAP_BLOCK):  # one block held at a time
        counts += np.bincount(
            rng.integers(0, n, min(BOOTSTRAP_BLOCK, n_draws - start)), minlength=n
        )
    return counts.astype(np.float64)


@njit
def stream_key(seed, tree):
    """The key of tree ``tree``'s stream under forest seed ``seed`` (both ``np.uint64``)."""
    return substream(mix64(seed + GOLDEN_GAMMA), tree)


@njit
def poisson_kernel(seed, tree, first_row, cdf, out):
    """``out[i]``: the Poisson draw of global row ``first_row + i`` of tree ``tree`` under
    forest seed ``seed`` (the three ``np.uint64``), by inversion: the number of entries of
    ``cdf`` (the distribution function at 0, 1, ...) at or below the row's uniform draw."""
    key = stream_key(seed, tree)
    for i in range(out.shape[0]):
        row = first_row + np.uint64(i)
        bits = substream(key, row)
        u = np.float64(bits >> _SHIFT_11) * _TWO_TO_MINUS_53
        out[i] = np.float64(np.searchsorted(cdf, u, side="right"))


@lru_cache(maxsize=16)
def poisson_cdf(rate: float) -> np.ndarray:
    """The Poisson(``rate``) distribution function at 0, 1, ..., K - 1, where K is the
    smallest count with P(X > K) < 2**-53: a draw above K (probability below the resolution
    of a 53-bit uniform; about 6e-17 for rate 1, where K = 17) is counted as K.

    Each entry is 1 - P(X > k), the tail summed from the far end so that values near 1 keep
    their precision; the probabilities are computed from their logarithms so that large
    rates do not underflow."""
    reach = int(rate + 40.0 * math.sqrt(rate) + 60.0)
    k = np.arange(reach + 1, dtype=np.float64)
    log_pmf = k * math.log(rate) - rate - np.array([math.lgamma(j + 1.0) for j in k])
    pmf = np.exp(log_pmf)
    tail = np.cumsum(pmf[::-1])[::-1]  # tail[k] = P(X >= k)
    above = np.append(tail[1:], 0.0)  # above[k] = P(X > k)
    size = int(np.argmax(above < 2.0**-53))
    cdf = 1.0 - above[:size]
    cdf.setflags(write=False)
    return cdf


def poisson_counts(
    seed: int, tree: int, first_row: int, n_rows: int, rate: float = 1.0
) -> np.ndarray:
    """The Poisson(``rate``) bootstrap weights of tree ``tree`` for global rows
    ``first_row`` to ``first_row + n_rows - 1``, as float64.

    A row's weight depends on ``(seed, tree, row)`` only: the weights of any split of the
    rows into blocks, laid end to end, are those of all rows at once.

    Parameters
    ----------
    seed : int
        The forest's seed, in [0, 2**64).
    tree : int
        The tree's index in the forest, >= 0.
    first_row : int
        Global index of the first row, >= 0.
    n_rows : int
        Number of rows, >= 0.
    rate : float, default 1.0
        Mean weight of a row, in (0, :data:`MAX_POISSON_RATE`]: 1 for a bootstrap of n
        rows, ``m / n`` for m rows.

    Returns
    -------
    numpy.ndarray
        ``n_rows`` whole-number weights.
    """
    for name, value in (("seed", seed), ("tree", tree), ("first_row", first_row)):
        if not 0 <= int(value) < 2**64:
            raise ValueError(f"{name} must be in [0, 2**64), got {value}")
    if n_rows < 0:
        raise ValueError(f"n_rows must be >= 0, got {n_rows}")
    if not 0 < rate <= MAX_POISSON_RATE:
        raise ValueError(f"rate must be in (0, {MAX_POISSON_RATE:g}], got {rate}")
    out = np.empty(int(n_rows), dtype=np.float64)
    cdf = poisson_cdf(float(rate))
    poisson_kernel(np.uint64(seed), np.uint64(tree), np.uint64(first_row), cdf, out)
    return out


def bernoulli_counts(seed: int, tree: int, first_row: int, n_rows: int, fraction: float):
    """Keyed Bernoulli draws: 1.0 for each of the global rows ``first_row`` to ``first_row +
    n_rows - 1`` kept in tree ``tree`` (with probability ``fraction``), else 0.0. As
    :func:`poisson_counts`, a row's draw depends on ``(seed, tree, row)`` only: its uniform
    draw is kept when it is at least ``1 - fraction``."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    out = np.empty(int(n_rows), dtype=np.float64)
    cdf = np.array([1.0 - float(fraction)])
    poisson_kernel(np.uint64(seed), np.uint64(tree), np.uint64(first_row), cdf, out)
    return out
