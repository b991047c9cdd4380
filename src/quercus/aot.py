"""The grower compiled ahead of time: a first fit that does not wait for Numba.

The grower (``tree/_grow.grow_tree_in``) is most of what a first fit compiles: about 48 s of
ID3's first fit on PlayTennis on a small machine, where the rest of quercus's kernels take
a few seconds each. :mod:`quercus.aot_build` compiles it once with Numba's ahead-of-time
compiler (``numba.pycc``) into an extension module, for each dtype of bin codes;
:func:`grower_for` gives the grower that module's function for arguments of the types it
was built for, and Numba's JIT dispatcher for any other. Both are the same source compiled
by the same Numba, so they grow the same tree (``tests/test_aot.py``).

The module's name holds a hash of quercus's sources and of the Numba, llvmlite, NumPy,
Python and machine it is built with (:func:`source_key`), so an edited kernel never runs
from an older build. It is kept beside Numba's cache, or in a per-user folder when the
package's folder is read-only (:func:`folder`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["built_module", "folder", "grower_for", "module_name", "source_key", "types_key"]

_PACKAGE = Path(__file__).resolve().parent


def folder() -> Path:
    """Where builds are kept: ``$QUERCUS_AOT_DIR``; else the package's ``__pycache__/aot``
    when the package's folder is writable (as Numba keeps its cache); else a per-user
    folder, ``$XDG_CACHE_HOME/quercus`` or ``~/.cache/quercus`` (a read-only install)."""
    chosen = os.environ.get("QUERCUS_AOT_DIR")
    if chosen:
        return Path(chosen)
    if os.access(_PACKAGE, os.W_OK):
        return _PACKAGE / "__pycache__" / "aot"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "quercus"


def source_key(sources: list[Path] | None = None) -> str:
    """A hash of ``sources`` (default: every Python file of quercus) and of the Numba,
    llvmlite, NumPy, Python and machine that compile them: the name of their build."""
    import llvmlite
    import numba
    import numpy

    digest = hashlib.sha256()
    versions = (numba.__version__, llvmlite.__version__, numpy.__version__, sys.version)
    for part in (*versions, platform.machine(), sys.platform):
        digest.update(part.encode() + b"\0")
    paths = sources if sources is not None else sorted(_PACKAGE.rglob("*.py"))
    for path in paths:
        digest.update(str(path.relative_to(path.parent.parent)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def module_name(key: str | None = None) -> str:
    """The name of the build of the sources whose :func:`source_key` is ``key`` (default:
    quercus's as they are)."""
    return f"quercus_grower_{key or source_key()}"


def built_module() -> Path | None:
    """The build of these sources in :func:`folder`, or None."""
    name = module_name()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder() / (name + suffix)
        if path.is_file() and (folder() / f"{name}.json").is_file():
            return path
    return None


def types_key(types) -> str:
    """The text a build looks its functions up by: their arguments' Numba types."""
    return str(tuple(types))


@functools.cache
def _built_growers() -> dict[str, Callable]:
    """The built grower functions by the text of their argument types, or {} (no build of
    these sources, or it does not load)."""
    if not any(folder().glob("quercus_grower_*")):  # nothing built: no need to hash sources
        return {}
    path = built_module()
    if path is None:
        return {}
    try:
        exported = json.loads(path.with_name(module_name() + ".json").read_text("utf-8"))
        spec = importlib.util.spec_from_file_location(module_name(), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return {types: getattr(module, name) for name, types in exported.items()}
    except (ImportError, OSError, ValueError, AttributeError):
        return {}


def grower_for(jit, *args) -> Callable:
    """The built grower for arguments ``args`` when there is one for their types, else
    ``jit`` (the Numba dispatcher)."""
    growers = _built_growers()
    if not growers:
        return jit
    import numba

    return growers.get(types_key(numba.typeof(a) for a in args), jit)
