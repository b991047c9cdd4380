"""Counter-based random words: a pure function of a key and a counter, no carried state.

SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014): the generator's state after i steps is ``key + i * GOLDEN_GAMMA``, and its
output is that state through the finaliser :func:`mix64` (Stafford's "variant 13"). Its
state is thus already a counter, so the i-th word of a stream is computed on its own
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011). SplitMix64 passes
BigCrush (TestU01). Streams are made with :func:`substream`: the key of the i-th stream
under a key is the i-th word of that key's stream, so streams start at unrelated points of
the 2**64 cycle.

The forests' Poisson bootstrap draws a row's weight from (seed, tree, row), and the growers
draw a node's candidate features from (seed, path from the root to the node), so that
neither depends on the order in which rows are read or nodes are grown.
"""

from __future__ import annotations

import numpy as np

from ._config import njit

__all__ = ["GOLDEN_GAMMA", "mix64", "substream"]

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30, _SHIFT_27, _SHIFT_31 = np.uint64(30), np.uint64(27), np.uint64(31)


@njit
def mix64(z):
    """SplitMix64's finaliser: a bijection of 64-bit words whose every output bit depends on
    every input bit (``z`` a ``np.uint64``)."""
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


@njit
def substream(key, index):
    """The key of stream ``index`` under ``key`` (both ``np.uint64``): word ``index + 1`` of
    ``key``'s stream."""
    return mix64(key + (index + np.uint64(1)) * GOLDEN_GAMMA)
