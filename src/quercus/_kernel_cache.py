"""Where quercus keeps its compiled kernels: Numba's cache files, in folders checked first.

Numba's own ``cache=True`` takes the folder of a kernel's cache from the environment
(``NUMBA_CACHE_DIR``, also settable by a ``.numba_config.yaml`` in the current folder; else
``XDG_CACHE_HOME`` or ``HOME`` for its per-user cache when the source's ``__pycache__`` is not
writable) and loads what it finds there. Its index and compiled code are pickles: a folder
another user can write to runs their code as this user, and a relative path (an empty
``XDG_CACHE_HOME`` is one) makes that folder depend on the current one. Numba also reads only
where it can write, so another user of an install made by root compiled every kernel again,
and where no folder was writable (a service account without a home) no kernel could even be
defined.

:class:`KernelCache` is one kernel's cache, in Numba's file format and names (a wheel's
kernels and an existing cache stay valid), in the folders of :func:`cache_folders`:

- ``NUMBA_CACHE_DIR``, when set and usable: it alone, as with Numba;
- else the ``__pycache__`` beside the kernel's source, read and written when writable, and
  read only when not (another user of a root-made install loads root's kernels); the
  per-user ``$XDG_CACHE_HOME/numba`` (``~/.cache/numba``) is then written (and read).

A folder beside the source is trusted as far as the source is: owned by the user, root or
the source folder's owner, and writable by nobody who cannot write the source. A folder
chosen by the environment is used only when its path is absolute (the XDG rule: a relative
one is ignored), and when it and every folder above it belong to the user or root, and no one
else can write to it (a folder above it may be writable by all when sticky, as /tmp is).
Else quercus warns once, saying why, and uses the next folder. Without a folder to write to,
kernels compile in memory, for the process only.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import re
import stat
import sys
import tempfile
import warnings

from numba.core import config as numba_config
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    InTreeCacheLocator,
)
from numba.core.runtime import nrt

__all__ = ["KernelCache", "cache_folders", "cached_keys", "folder_problem"]

#: The messages :func:`_refuse` gave in this process (each is given once).
_REFUSED: set[str] = set()

#: Said once when a kernel was compiled with no folder to keep it in.
NOT_KEPT = (
    "quercus: no folder to keep compiled kernels in (none of NUMBA_CACHE_DIR, the package's "
    "__pycache__ and the per-user cache folder is usable and writable): kernels compile "
    "again in each process"
)


class KernelCache:
    """The cache of one kernel's compiled code (a Numba dispatcher's ``_cache``): read from
    the folders of :func:`cache_folders` in order, written to the last one of them when it
    is writable. The folders are found at the first use of the kernel, not at its
    definition: importing quercus touches no folder."""

    def __init__(self, py_func):
        self._py_func = py_func
        self._enabled = True
        self._stores: list[_FolderCache] | None = None
        self._writes = False

    def stores(self) -> list[_FolderCache]:
        """Numba's caches of this kernel, one per folder it is read from, in order."""
        if self._stores is None:
            source = os.path.abspath(inspect.getfile(self._py_func))
            read_only, writable = cache_folders(os.path.dirname(source))
            folders = [*read_only, writable] if writable else list(read_only)
            self._stores = [_FolderCache(self._py_func, source, folder) for folder in folders]
            self._writes = writable is not None
        return self._stores

    @property
    def cache_path(self) -> str:
        """The folder written to (else the last one read, else ''), as Numba shows it."""
        stores = self.stores()
        return stores[-1].cache_path if stores else ""

    def load_overload(self, sig, target_context):
        """The cached compile result for ``sig``, or None.

        Numba's own loader first refreshes its target context: it imports and registers
        its implementations of Python and NumPy (its typing and lowering tables), which
        only compiling reads; in a new process that was most of the time of a first fit
        whose kernels are all cached (``bench/small_data.py``). A cached kernel needs only
        Numba's runtime (the memory functions its code calls) before its code is linked in,
        so that is all that is set up here; a compilation later in the process refreshes
        the context itself, as always."""
        if not self._enabled:
            return None
        stores = self.stores()
        if not stores:
            return None
        nrt.rtsys.initialize(target_context)  # idempotent: once per process
        read_only = len(stores) - 1 if self._writes else len(stores)
        for number, store in enumerate(stores):
            try:
                found = store._load_overload(sig, target_context)
            except OSError:
                if number >= read_only:
                    raise  # the user's own cache: as Numba does
                continue  # another user's file this user may not read: a miss
            if found is not None:
                return found
        return None

    def save_overload(self, sig, data) -> None:
        """Keep the compile result ``data`` of ``sig`` in the folder written to."""
        stores = self.stores()
        if not self._enabled:
            return
        if not self._writes:
            _refuse(NOT_KEPT)
            return
        stores[-1].save_overload(sig, data)

    def enable(self) -> None:
        self._enabled = True

    def disable(self) -> None:
        self._enabled = False

    def flush(self) -> None:
        """Empty the index of the folder written to (Numba's ``recompile``)."""
        if self.stores() and self._writes:
            self._stores[-1].flush()


class _FolderLocator(InTreeCacheLocator):
    """Numba's locator of a kernel's cache files, pointed at the folder given."""

    def __init__(self, py_func, py_file: str, folder: str):
        super().__init__(py_func, py_file)
        self._cache_path = folder

    def get_source_stamp(self):
        """Numba's stamp (a hash of the kernel's own file) and a hash of every kernel
        source of quercus. A kernel's compiled code holds the kernels it calls inlined and
        the constants it reads, which may be another file's: with its own file alone, a
        change there left it running the old code (after a ``git pull``, say)."""
        return super().get_source_stamp(), kernel_sources_digest(_PACKAGE)


class _FolderImpl(CompileResultCacheImpl):
    """Numba's (de)serialization of compile results, with the locator given rather than
    one chosen from Numba's list (and ``NUMBA_CACHE_LOCATOR_CLASSES``)."""

    def __init__(self, py_func, locator: _FolderLocator):
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        module = os.path.splitext(os.path.basename(locator._py_file))[0]
        abiflags = getattr(sys, "abiflags", "")
        self._filename_base = self.get_filename_base(f"{module}.{py_func.__qualname__}", abiflags)


class _IndexFile(IndexDataCacheFile):
    """Numba's index of a kernel's cache entries, where an index that cannot be read back
    because it names a module or a class that is gone (written before a module moved, say:
    the signatures of a kernel's entries name the classes of its arguments) is a stale one,
    as Numba treats the index of other sources; the next compile overwrites it."""

    def _load_index(self):
        try:
            return super()._load_index()
        except (ImportError, AttributeError):
            return {}


class _FolderCache(FunctionCache):
    """Numba's cache of one kernel's compile results in one folder: the files Numba's own
    cache would read and write there."""

    def __init__(self, py_func, py_file: str, folder: str):
        locator = _FolderLocator(py_func, py_file, folder)
        self._name = repr(py_func)
        self._py_func = py_func
        self._impl = _FolderImpl(py_func, locator)
        self._cache_path = folder
        self._cache_file = _IndexFile(
            cache_path=folder,
            filename_base=self._impl.filename_base,
            source_stamp=locator.get_source_stamp(),
        )
        self.enable()


#: The quercus package's folder.
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_RELATIVE_IMPORT = re.compile(rb"^from (\.+)([\w.]*) import", re.M)


@functools.cache
def kernel_sources_digest(package: str) -> bytes:
    """A SHA-256 of the kernel sources of the package in folder ``package``: every module
    that uses ``njit`` and every module of the package such a module imports (where the
    kernels it calls and the constants they read are defined). Read once per process."""
    sources = {}
    for folder, _, names in os.walk(package):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    sources[path] = f.read()
    kernels = {path for path, text in sources.items() if b"njit" in text}
    for path in list(kernels):
        for dots, module in _RELATIVE_IMPORT.findall(sources[path]):
            base = os.path.dirname(path)
            for _ in range(len(dots) - 1):
                base = os.path.dirname(base)
            target = os.path.join(base, *module.decode().split("."))
            for candidate in (target + ".py", os.path.join(target, "__init__.py")):
                if candidate in sources:
                    kernels.add(candidate)
    digest = hashlib.sha256()
    for path in sorted(kernels):
        digest.update(os.path.relpath(path, package).encode() + b"\0" + sources[path])
    return digest.digest()


def cached_keys(dispatcher) -> list[tuple]:
    """The keys (signature, machine, code hashes) of the current entries of a kernel's cache,
    in every folder it reads: stale entries (another source, another Numba) are left out."""
    cache = dispatcher._cache
    stores = cache.stores() if isinstance(cache, KernelCache) else [cache]
    keys = []
    for store in stores:
        keys.extend(store._cache_file._load_index())
    return keys


def cache_folders(source_folder: str) -> tuple[tuple[str, ...], str | None]:
    """The folders holding the cache of the kernels defined in ``source_folder``: those only
    read (another user's, beside the source), and the one written to (None when there is
    none). Found once per process for each source folder and environment."""
    return _cache_folders(
        source_folder,
        numba_config.CACHE_DIR,
        os.environ.get("XDG_CACHE_HOME", ""),
        os.environ.get("HOME", ""),
    )


@functools.cache
def _cache_folders(source_folder, numba_cache_dir, xdg_cache_home, home):
    """:func:`cache_folders` for one environment (the arguments after the first key it)."""
    # Numba's subfolder for a source folder, so that its caches and these are one.
    subfolder = InTreeCacheLocator.get_suitable_cache_subpath(
        os.path.join(source_folder, "__init__.py")
    )
    if numba_cache_dir:
        chosen = _environment_store(numba_cache_dir, "NUMBA_CACHE_DIR", subfolder)
        if chosen is not None:
            return (), chosen
    beside = os.path.join(source_folder, "__pycache__")
    access = _beside_source_access(beside, source_folder)
    if access == "write":
        return (), beside
    read_only = (beside,) if access == "read" else ()
    user_cache = _user_cache_folder(xdg_cache_home)
    if user_cache is None:
        return read_only, None
    return read_only, _environment_store(user_cache, "the per-user cache folder", subfolder)


def _user_cache_folder(xdg_cache_home: str) -> str | None:
    """Numba's per-user cache folder: ``$XDG_CACHE_HOME/numba`` when that is an absolute
    path, else ``~/.cache/numba`` (another folder on macOS and Windows, as Numba's)."""
    from numba.misc.appdirs import AppDirs

    if sys.platform in ("darwin", "win32"):
        folder = AppDirs(appname="numba", appauthor=False).user_cache_dir
    elif os.path.isabs(xdg_cache_home):
        folder = os.path.join(xdg_cache_home, "numba")
    else:
        if xdg_cache_home:  # an empty one is unset, by the XDG rules; a relative one, invalid
            _refuse(
                f"quercus: XDG_CACHE_HOME={xdg_cache_home!r} is a relative path, which would "
                "load compiled kernels from the current folder: ignored (as the XDG rules "
                "say), ~/.cache is used instead"
            )
        folder = os.path.join(os.path.expanduser("~"), ".cache", "numba")
    if not os.path.isabs(folder):
        _refuse(
            f"quercus: the per-user cache folder {folder!r} is a relative path (HOME is "
            "unset or relative): not used, kernels compile again in each process"
        )
        return None
    return folder


def _environment_store(top: str, source: str, subfolder: str) -> str | None:
    """The folder ``subfolder`` of ``top`` (a folder chosen by the environment: ``source``
    says where from), created if needed, when it is safe and writable; else None, with a
    warning saying why when it is not safe."""
    name = f"{source}={top!r}" if source == "NUMBA_CACHE_DIR" else f"{source} {top!r}"
    if not os.path.isabs(top):
        _refuse(
            f"quercus: {name} is a relative path, which would load compiled kernels from the "
            "current folder: not used for quercus's kernels (give an absolute path)"
        )
        return None
    top = os.path.realpath(top)
    store = os.path.join(top, subfolder)
    problem = folder_problem(store, top)
    if problem is None:
        try:
            os.makedirs(store, exist_ok=True)
            tempfile.TemporaryFile(dir=store).close()  # writable (as Numba tests it)
        except OSError:
            return None  # not writable here: Numba too goes on to the next folder
        problem = folder_problem(store, top)  # again: it may have changed meanwhile
    if problem is not None:
        _refuse(
            f"quercus: not using {name} for compiled kernels: {problem}, so another user could "
            "plant code there that this process would run"
        )
        return None
    return store


def folder_problem(folder: str, top: str) -> str | None:
    """Why ``folder`` (an absolute, resolved path at or below ``top``) may not hold code
    this user runs, or None: every folder from it up to the root must belong to this user
    or root, and none at or below ``top`` may be writable by another user (one above it
    may, with the sticky bit, as /tmp). A folder not made yet is not checked."""
    if not hasattr(os, "geteuid"):
        return None  # Windows: no POSIX owners and modes to check
    uid = os.geteuid()
    current = folder
    while True:
        try:
            info = os.stat(current)
        except FileNotFoundError:
            info = None
        except OSError as error:
            return f"{current} cannot be checked ({error.strerror})"
        if info is not None:
            if info.st_uid not in (uid, 0):
                return f"{current} belongs to another user ({_user_name(info.st_uid)})"
            above_top = len(current) < len(top)  # current is an ancestor of folder
            if _other_writers(info) and not (above_top and info.st_mode & stat.S_ISVTX):
                return f"{current} is writable by other users (mode {info.st_mode & 0o7777:o})"
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _beside_source_access(folder: str, source_folder: str) -> str | None:
    """``"write"`` when ``folder`` (the ``__pycache__`` beside a kernel's source) is trusted
    and this user can write to it, ``"read"`` when trusted and only readable, else None
    (with a warning when it exists but is not trusted)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        pass  # a read-only install: it may exist all the same
    try:
        info, source = os.stat(folder), os.stat(source_folder)
    except OSError:
        return None
    problem = None
    if hasattr(os, "geteuid"):
        if info.st_uid not in (os.geteuid(), 0, source.st_uid):
            problem = f"it belongs to another user ({_user_name(info.st_uid)})"
        elif _other_writers(info) - _other_writers(source):
            mode = info.st_mode & 0o7777
            problem = f"users who cannot write the source can write it (mode {mode:o})"
    if problem is not None:
        _refuse(
            f"quercus: not using {folder} for compiled kernels: {problem}, so they could plant "
            "code there that this process would run"
        )
        return None
    try:
        tempfile.TemporaryFile(dir=folder).close()
        return "write"
    except OSError:
        return "read" if os.access(folder, os.R_OK | os.X_OK) else None


def _other_writers(info: os.stat_result) -> set:
    """Who besides the owner may write into the folder of ``info``: ``"others"``, and its
    group unless that group is the user's own (a user-private group)."""
    writers = set()
    if info.st_mode & stat.S_IWOTH:
        writers.add("others")
    if info.st_mode & stat.S_IWGRP and not _private_group(info.st_gid):
        writers.add(("group", info.st_gid))
    return writers


@functools.cache
def _private_group(gid: int) -> bool:
    """Whether group ``gid`` is this user's primary group and lists no other member (the
    user-private groups of a umask 002 system, where a group-writable folder is private)."""
    import grp
    import pwd

    try:
        user, group = pwd.getpwuid(os.geteuid()), grp.getgrgid(gid)
    except KeyError:
        return False
    return user.pw_gid == gid and set(group.gr_mem) <= {user.pw_name}


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _refuse(message: str) -> None:
    """Warn with ``message``, once per process."""
    if message not in _REFUSED:
        _REFUSED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)
