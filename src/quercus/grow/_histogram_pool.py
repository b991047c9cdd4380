"""Histogram subtraction's pool in the compiled grower: large nodes of a class target keep
the histograms of every feature (bins by class, summed in one pass over their rows), and the
largest child of such a node takes its parent's less its siblings' rows, where summing it
again would read every one of its rows.

The histograms live in a pool of slots, one per pending node at most, grown by doubling;
a slot is taken when a node's histograms are summed (:func:`item_histograms`), handed to
its largest child (:func:`child_histograms`) and given back when a node is done
(:func:`free_slot`). ``grow.grower.subtraction_rows`` turns it on only where the sums are
exact, so that the tree is the one grown without it.
"""

from __future__ import annotations

import numpy as np

from .._config import njit
from ..splitting._histogram import class_histograms, subtract_histograms, take_out_rows
from ._buffers import grow_flat, grow_rows, row_arrays
from ._settings import is_deferred


@njit(inline="always")
def keeps_histograms(n_rows, s):
    """Whether a node of ``n_rows`` rows keeps the histograms of every feature (histogram
    subtraction): large enough, and not left for another task (``defer_rows``)."""
    return s.subtract_rows > 0 and n_rows >= s.subtract_rows and not is_deferred(n_rows, s)


@njit(inline="always")
def histogram_pool(p, max_b, s):
    """Histogram subtraction's pool (see :func:`_take_slot`), each slot a row holding every
    feature's histograms of shape ``(max_b + 1, n_stats)`` (the bins, then the missing
    values); the shape, a stand-in for a node without histograms, and the children's
    slots of a split."""
    n_pool = 4 if s.subtract_rows > 0 else 0
    hists = (
        np.zeros((n_pool, p * (max_b + 1) * s.n_stats)),
        np.zeros(n_pool, dtype=np.int64),
        0,
        0,
    )
    shape = (p, max_b + 1, s.n_stats)
    return hists, shape, np.zeros((1, 1, 1)), np.full(max(max_b, 2), -1, dtype=np.int64)


@njit(inline="always")
def item_histograms(item, hists, shape, no_hist, s):
    """The histograms of the node of work item ``item``: its slot from the parent's
    subtraction, or a new slot to be summed from its rows (``to_sum``) when it keeps
    histograms, or none (-1). Returns ``(pool, slot, view, to_sum)``."""
    slot = item.hist
    to_sum = slot < 0 and keeps_histograms(item.end - item.start, s)
    if to_sum:
        hists, slot = _take_slot(hists)
    view = hists[0][slot].reshape(shape) if slot >= 0 else no_hist
    return hists, slot, view, to_sum


@njit(inline="always")
def _take_slot(hists):
    """A free slot of the histogram pool ``hists`` (``(pool, free slots, how many free,
    slots made)``), made when none is free; returns the pool and the slot."""
    pool, free, n_free, n_made = hists
    if n_free > 0:
        return (pool, free, n_free - 1, n_made), free[n_free - 1]
    pool = grow_rows(pool, n_made + 1)
    free = grow_flat(free, n_made + 1)
    return (pool, free, n_free, n_made + 1), n_made


@njit(inline="always")
def free_slot(hists, slot):
    """``hists`` with ``slot`` given back (nothing for -1)."""
    pool, free, n_free, n_made = hists
    if slot < 0:
        return hists
    free[n_free] = slot
    return (pool, free, n_free + 1, n_made)


@njit(inline="always")
def child_histograms(slot, n_ch, base, offsets, where, missing_code, shape, s, hists, child_hist):
    """The histograms of the children of a split node whose own are in pool slot
    ``slot``: the largest child takes that slot, less its siblings' rows; each sibling
    that keeps histograms (:func:`keeps_histograms`) has its own summed into a new slot, the
    others' rows are taken out one by one. The children's rows are ``base + offsets[ch]``
    to ``base + offsets[ch + 1]`` of the row arrays named by ``where``, ``(in the buffers,
    rows, buffers)``. ``child_hist`` receives each child's slot (-1: none). Returns the
    pool."""
    if slot < 0:
        child_hist[:n_ch] = -1
        return hists
    largest = 0
    for ch in range(n_ch):
        child_hist[ch] = -1
        if offsets[ch + 1] - offsets[ch] > offsets[largest + 1] - offsets[largest]:
            largest = ch
    if not keeps_histograms(offsets[largest + 1] - offsets[largest], s):
        return free_slot(hists, slot)
    in_buffer, rows, buffers = where
    x, yc, _, w = row_arrays(in_buffer, rows, buffers)
    for ch in range(n_ch):
        lo = base + offsets[ch]
        hi = base + offsets[ch + 1]
        if ch == largest or hi == lo:
            continue
        if keeps_histograms(hi - lo, s):
            hists, own = _take_slot(hists)
            pool = hists[0]
            class_histograms(x, yc, w, lo, hi, missing_code, pool[own].reshape(shape))
            subtract_histograms(pool[slot].reshape(shape), pool[own].reshape(shape))
            child_hist[ch] = own
        else:
            take_out_rows(x, yc, w, lo, hi, missing_code, hists[0][slot].reshape(shape))
    child_hist[largest] = slot
    return hists
