"""Project-wide constants: dtypes, sentinels, and the one place that sets Numba options."""

from __future__ import annotations

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


def njit(*args, refcounts: bool = True, **kwargs):
    """``numba.njit`` with the project's options: cached (:func:`_cached`), GIL released, no
    fastmath (NaN handling and exact ties matter more than the last few percent of speed),
    and one compilation per argument type rather than per constant (:func:`_plain_types`).

    ``refcounts=False`` compiles a kernel without Numba's reference counts (its private
    ``_nrt`` option), for the hot stages that allocate nothing and keep no array past the
    call. Each array argument otherwise costs an atomic increment on entry and a decrement
    on exit, per call: in a profile of a one-thread forest fit, these counts took 20% of
    the samples. Such a kernel may not create an array, nor slice-assign one
    (the shape error it may raise builds a string): Numba refuses to compile it.

    Numba keys a cached function on its own source file only: after editing a kernel that
    another file's kernel inlines, ``make clean-cache`` (installing a release rewrites every
    file, so users are not affected)."""
    import numba  # here, not at the top: a module of constants only (the CLI's) needs no Numba

    # Set either way: a callee left unset would inherit the flag of the first caller to
    # compile it, and one called by a kernel without counts could then not allocate.
    options = {"nogil": True, "fastmath": False, "_nrt": refcounts, **kwargs}
    if args and callable(args[0]):
        return _cached(_plain_types(numba.njit(**options)(args[0])))
    decorate = numba.njit(*args, **options)
    if options.get("inline") == "always":
        # Copied into its callers' code, never called with constants: its types stay as they
        # are (Numba still compiles it on its own while typing a caller: that is cached).
        return lambda func: _cached(decorate(func))
    return lambda func: _cached(_plain_types(decorate(func)))


def _cached(dispatcher):
    """``dispatcher`` with its compiled code kept on disk, in Numba's cache files, in the
    folders :mod:`quercus._kernel_cache` chooses and checks (Numba's own choice trusts any
    folder the environment names). Where that module cannot work with this Numba's cache
    (another version's internals), Numba's own cache is used."""
    if not hasattr(dispatcher, "enable_caching"):
        return dispatcher  # NUMBA_DISABLE_JIT: the plain Python function
    try:
        from ._kernel_cache import KernelCache
    except ImportError:
        dispatcher.enable_caching()
        return dispatcher
    dispatcher._cache = KernelCache(dispatcher.py_func)
    return dispatcher


def _plain_types(dispatcher):
    """Compile ``dispatcher`` for the plain types of constant arguments.

    Called from another kernel with a constant (``impurity(stats, 3, ...)``, a tuple
    holding a ``0``), Numba types the argument as that literal value and compiles a
    version for it: one per constant, and one more when type inference first sees a
    variable as its initial constant. No kernel here specialises on a constant, so the
    calls are typed as the constants' plain types (``int64``): one compilation each.
    (Calls from Python are typed by value's type already.)"""
    from numba.core import types

    resolve = getattr(dispatcher, "get_call_template", None)
    if resolve is None:  # a Numba without this hook: the literal versions are compiled
        return dispatcher

    def get_call_template(args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        return resolve(plain, {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


# Node kinds of the flat tree arrays.
LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT, OBLIQUE_SPLIT = 0, 1, 2, 3, 4
NODE_KIND_NAMES = ("leaf", "numeric", "multiway", "subset", "oblique")

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
