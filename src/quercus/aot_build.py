"""Building the grower ahead of time (:mod:`quercus.aot`): ``quercus warm --aot``.

Building needs a C compiler and Python's headers (pycc links a small C wrapper): without
them :func:`build` raises :class:`AheadOfTimeUnavailable`, and fits use the JIT. pycc makes
generic x86-64 code, measured as fast as the JIT's here (``bench/README.md``). Its exported
functions would hold the GIL, where the JIT's kernels release it (threads grow a tree's
subtrees and a forest's trees side by side): :func:`build` sets Numba's compile flag that
releases it, for the duration of the build.

``numba.pycc`` has been pending deprecation since Numba 0.57 (its successor is not released):
should a Numba come without it, :func:`build` says so and the JIT is used, as without a
compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
import tempfile
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from .aot import _built_growers, folder, module_name, types_key

__all__ = ["AheadOfTimeUnavailable", "build", "grower_signatures"]


class AheadOfTimeUnavailable(RuntimeError):
    """The ahead-of-time build cannot run here (no ``numba.pycc``, no C compiler, no
    Python headers); the message says which."""


class _Captured(Exception):
    """Raised by the stand-in grower of :func:`grower_signatures` once it has the types."""


def grower_signatures() -> list[tuple]:
    """The Numba argument types the grower is called with, one per dtype of bin codes
    (and task), found by fitting small models with a stand-in grower that records its
    arguments' types and stops the fit (the grower is not compiled)."""
    import numba
    import numpy as np

    import quercus

    from .tree import _grow, threads

    found: dict[str, tuple] = {}

    def record(*args):
        types = tuple(numba.typeof(a) for a in args)
        found[types_key(types)] = types
        raise _Captured

    rng = np.random.default_rng(0)
    small, large, exact = (rng.normal(size=(n, 1)) for n in (1_000, 200_000, 70_000))
    fits = [
        (quercus.DecisionTreeClassifier(), small, small[:, 0] > 0),  # uint16 codes
        (quercus.DecisionTreeRegressor(), small, small[:, 0]),
        (quercus.DecisionTreeClassifier(max_depth=1), large, large[:, 0] > 0),  # uint8
        (quercus.DecisionTreeClassifier(max_bins=None), exact, exact[:, 0] > 0),  # uint32
    ]

    def stand_in(jit, *args):
        return record

    originals = (_grow.grower_for, threads.grower_for)
    _grow.grower_for = threads.grower_for = stand_in
    try:
        for model, X, y in fits:
            try:
                model.fit(X, y)
            except _Captured:
                pass
    finally:
        _grow.grower_for, threads.grower_for = originals
    return list(found.values())


@contextmanager
def _exports_release_the_gil():
    """pycc compiles its exports with default flags, whose wrappers hold the GIL; the
    ``release_gil`` flag makes them release it around the call, as ``nogil=True`` does."""
    import numba.pycc.compiler as pycc_compiler

    plain = pycc_compiler.Flags

    class ReleasingFlags(plain):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = ReleasingFlags
    try:
        yield
    finally:
        pycc_compiler.Flags = plain


#: The dtypes of bin codes: uint16 for fewer than 50,000 rows (``binning.ONE_BYTE_MIN_ROWS``)
#: and up to 65,534 codes per column, uint8 from 50,000 rows on, uint32 beyond 65,534 codes.
ALL_CODES = ("uint8", "uint16", "uint32")
SMALL_DATA_CODES = ("uint16",)


def build(codes: tuple[str, ...] = ALL_CODES, report: Callable[[str], None] | None = None) -> Path:
    """Compile the grower ahead of time, for bin codes of the dtypes ``codes``, into
    :func:`~quercus.aot.folder` (about 25 s per dtype on a small machine); returns the
    module's path. Earlier builds there (of other sources, or another Python's) are removed. Raises
    :class:`AheadOfTimeUnavailable` when it cannot be built here."""
    say = report or (lambda text: None)
    try:
        with warnings.catch_warnings():  # pycc is pending deprecation (see the module's note)
            warnings.simplefilter("ignore")
            from numba.pycc import CC
    except ImportError as exc:  # a Numba without pycc
        raise AheadOfTimeUnavailable(f"Numba's ahead-of-time compiler is missing: {exc}") from None
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        raise AheadOfTimeUnavailable("no C compiler found (cc or gcc): the JIT will be used")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():  # checked before the minute of compiling that would need it
        raise AheadOfTimeUnavailable(
            f"Python's headers are missing ({headers}; e.g. the python3-dev package): the "
            "JIT will be used"
        )
    from .tree._grow import grow_tree_in

    name = module_name()
    signatures = [t for t in grower_signatures() if str(t[0].types[0].dtype) in codes]
    target = folder()
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=target))
    try:
        cc = CC(name)
        cc.output_dir = str(work)
        cc.verbose = False
        exported = {}
        for i, types in enumerate(signatures):
            cc.export(f"grow_{i}", types)(grow_tree_in.py_func)
            exported[f"grow_{i}"] = types_key(types)
        say(f"compiling the grower for {len(signatures)} signatures")
        try:
            with _exports_release_the_gil():
                cc.compile()
        except Exception as exc:  # distutils' compiler and linker errors have many types
            raise AheadOfTimeUnavailable(
                f"the ahead-of-time build failed ({type(exc).__name__}: {exc}); a C "
                "compiler and Python's headers (python3-dev) are needed"
            ) from None
        (built,) = work.glob(name + "*")
        (work / f"{name}.json").write_text(json.dumps(exported), encoding="utf-8")
        os.replace(work / f"{name}.json", target / f"{name}.json")
        for old in target.glob("quercus_grower_*"):
            if not old.name.startswith(name + "."):
                old.unlink(missing_ok=True)
        os.replace(built, target / built.name)  # the module last: it is what is looked for
        _built_growers.cache_clear()  # this process's next fits find it
        return target / built.name
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m quercus.aot_build [--small]``: build the grower (``--small``: for data
    sets under 50,000 rows only, as the Makefile's install does), or say why not."""
    import argparse
    import time

    parser = argparse.ArgumentParser(prog="python -m quercus.aot_build", description=main.__doc__)
    parser.add_argument("--small", action="store_true", help="uint16 bin codes only")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    print("quercus: building the grower ahead of time (once; about a minute)", flush=True)
    try:
        path = build(SMALL_DATA_CODES if args.small else ALL_CODES)
    except AheadOfTimeUnavailable as exc:
        print(f"quercus: {exc}")
        return 0  # not an error: the first fit compiles it instead
    print(f"quercus: grower built in {time.perf_counter() - began:.1f} s: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
