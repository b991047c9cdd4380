"""The random draws of growth: the candidate features of each node (``max_features``).

A node's draw is keyed on the tree's seed and the node's path from the root
(:func:`root_draw_key`, :func:`child_draw_key`), not on the order in which nodes are grown:
the compiled grower (depth-first, or on threads) and the level-wise grower (level by level)
draw the same features at the same node.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from .._counters import GOLDEN_GAMMA, mix64, substream


@njit
def _next_random(state):
    """xorshift64*: the node's draw, from a nonzero state."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit
def root_draw_key(seed):
    """The key of the root's feature draw under the tree's ``seed``."""
    return mix64(np.uint64(seed) + GOLDEN_GAMMA)


@njit
def child_draw_key(parent_key, child):
    """The key of the feature draw of child ``child`` of the node keyed ``parent_key``.

    A node's key depends only on the seed and its path from the root, so the compiled
    grower (depth-first) and the level-wise grower (level by level) draw the same features
    at the same node."""
    return substream(parent_key, np.uint64(child))


@njit
def candidate_features(n_features, max_features, draw_key, rng_state, out):
    """The features to search at a node: all, or ``max_features`` drawn without replacement
    by the node's own ``draw_key`` (``rng_state``: scratch of one word), returned in
    increasing order so that ties still go to the lowest index."""
    for j in range(n_features):
        out[j] = j
    if max_features >= n_features:
        return n_features
    rng_state[0] = draw_key | np.uint64(1)  # xorshift's state must not be zero
    for j in range(max_features):
        pick = j + np.int64(_next_random(rng_state) % np.uint64(n_features - j))
        out[j], out[pick] = out[pick], out[j]
    # Insertion sort in place (Array.sort allocates a buffer at every node).
    for j in range(1, max_features):
        v = out[j]
        i = j - 1
        while i >= 0 and out[i] > v:
            out[i + 1] = out[i]
            i -= 1
        out[i + 1] = v
    return max_features
