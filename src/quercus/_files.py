"""Writing a file: updated whole or left as it was, never half-written, never lost.

Every file quercus writes (model files, reports, and the command line's outputs) is written
by :func:`write_file`, which writes according to what the target is:

- A regular file, or no file yet: the content goes first to a new file beside the target,
  ``.NAME.<12 hex digits>.tmp``, which replaces the target only once it is complete and on
  disk. A file replaced keeps its permission bits; a new file gets the usual ones (0666
  less the umask).
- A symbolic link: the file it leads to is written as above, so the link stays a link. A
  link of another user (but root) is not followed: an error.
- A character device or a FIFO (``/dev/null``, a terminal, a named pipe): written straight,
  never replaced by a regular file. A failed write (``/dev/full``) is an error naming it.
- This process's standard output or error, by any name (``/dev/stdout`` redirected to a
  file, say): written through that stream, where the process's other output goes; replacing
  the file would cut the stream off from it.

Nothing is written over a file its mode makes read-only: one the user may not write, or one
that no one may write (no ``w`` in its mode), which is refused even to root, who may write
anything. Nor over a directory, a block device or a socket.

A save that is killed leaves its temporary file behind; the next save into the same
directory removes such leftovers. A temporary file is a leftover when no process holds its
lock (the writer locks it while it writes, and a killed process's locks go with it); where
file locks do not exist, when it is over an hour old.
"""

from __future__ import annotations

import errno
import io
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: no flock, leftovers are told by their age
    fcntl = None

_TEMPORARY = re.compile(r"\..+\.[0-9a-f]{12}\.tmp")
# A writer locks its file right after creating it: one younger than this may not be locked yet.
_GRACE_SECONDS = 10.0
_UNLOCKED_AGE_SECONDS = 3600.0
# The symbolic links followed to find the file a path leads to (Linux's own limit).
_MAX_LINKS = 40
# What is not a file to write, by its mode.
_NOT_FILES = {
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
_FILE, _DEVICE, _STREAM = "file", "device", "stream"


def _error(exc: OSError, path) -> OSError:
    """``exc`` as the same kind of error, saying which path could not be written."""
    return type(exc)(f"cannot write {path}: {exc.strerror or exc}")


def standard_stream(path) -> int | None:
    """1 or 2 when ``path`` names the file that this process's standard output (1) or
    standard error (2) writes to (``/dev/stdout``, ``/dev/fd/2``, or the file the stream is
    redirected to), else None."""
    try:
        target = os.stat(path)
    except (OSError, ValueError):
        return None
    for descriptor in (1, 2):
        try:
            stream = os.fstat(descriptor)
        except OSError:  # closed
            continue
        # No inode number (0: a Windows console, say) tells nothing.
        if target.st_ino and (stream.st_dev, stream.st_ino) == (target.st_dev, target.st_ino):
            return descriptor
    return None


def _linked_file(path: Path) -> Path:
    """The file that ``path`` leads to through its symbolic links (``path`` itself when it
    is not a link); the file need not exist. A link that belongs to another user (but root)
    is not followed: planted in a shared directory, it would aim the write at the user's
    own files."""
    target = path
    for _ in range(_MAX_LINKS):
        if not target.is_symlink():
            return target
        owner = os.lstat(target).st_uid
        if hasattr(os, "geteuid") and owner not in (os.geteuid(), 0):
            raise PermissionError(
                f"cannot write {path}: {target} is a symbolic link of another user "
                f"(uid {owner}), not followed"
            )
        target = target.parent / os.readlink(target)
    raise OSError(errno.ELOOP, f"cannot write {path}: too many levels of symbolic links")


def _read_only(target: Path, mode: int) -> bool:
    """Whether the file ``target`` (of ``mode``) is not to be written: the user may not,
    or its mode lets no one (root may write it, but its owner made it read-only)."""
    return not os.access(target, os.W_OK) or not mode & 0o222


def _destination(path: Path) -> tuple[str, Path | int]:
    """How a write to ``path`` is made and where: ``(_STREAM, 1 or 2)``, ``(_DEVICE,
    path)`` for a character device or a FIFO, ``(_FILE, the file to replace or create)``;
    an OSError naming ``path`` when nothing can be written there."""
    descriptor = standard_stream(path)
    if descriptor is not None:
        return _STREAM, descriptor
    target = _linked_file(path)
    try:
        mode = os.stat(path).st_mode  # through every link, /dev/stdout's to a pipe too
    except FileNotFoundError:  # no file yet, or a link to none
        mode = None
    except OSError as exc:  # a loop of links, say
        raise _error(exc, path) from None
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        if not os.access(path, os.W_OK):
            raise PermissionError(f"cannot write {path}: permission denied")
        return _DEVICE, path
    shown = path if target == path else f"{path} (a link to {target})"
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"cannot write {shown}: it is a directory")
        if not stat.S_ISREG(mode):
            what = _NOT_FILES.get(stat.S_IFMT(mode), "not a regular file")
            raise OSError(f"cannot write {shown}: it is {what}")
        if _read_only(target, mode):
            raise PermissionError(f"cannot write {shown}: the file is read-only")
    directory = target.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {shown}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {shown}: directory {directory} is not writable")
    return _FILE, target


def check_writable(path) -> Path:
    """``path`` as a Path, or an OSError naming it when :func:`write_file` could not write
    there (a directory missing or not writable, a read-only file, a directory, ...)."""
    path = Path(path)
    _destination(path)
    return path


def _is_leftover(candidate: Path, now: float) -> bool:
    try:
        age = now - candidate.stat().st_mtime
    except OSError:
        return False
    if age < _GRACE_SECONDS:
        return False
    if fcntl is None:
        return age > _UNLOCKED_AGE_SECONDS
    try:
        with open(candidate, "rb") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # locked by a live writer, or gone
        return False
    return True


def remove_leftovers(directory) -> list[Path]:
    """Remove the temporary files of interrupted writes in ``directory``; returns them."""
    now = time.time()
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMPORARY.fullmatch(entry.name) or not entry.is_file(follow_symlinks=False):
            continue
        candidate = Path(entry.path)
        if _is_leftover(candidate, now):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def _contents(write: Callable[[BinaryIO], None]) -> bytes:
    """What ``write`` writes, in memory (written as it would be to a file: seekable)."""
    buffer = io.BytesIO()
    write(buffer)
    return buffer.getvalue()


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _write_straight(path: Path, data: bytes) -> None:
    """``data`` into the character device or FIFO ``path``, opened by the name given (a
    name such as /dev/stdout opens the stream it names)."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
        try:
            _write_all(descriptor, data)
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise _error(exc, path) from None


def _write_to_stream(descriptor: int, path: Path, data: bytes) -> None:
    """``data`` through this process's standard output or error, after what Python holds
    for it."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is not None:
            stream.flush()
    try:
        _write_all(descriptor, data)
    except OSError as exc:
        raise _error(exc, path) from None


def _replace(path: Path, target: Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a new binary file beside ``target`` that then replaces it (with its
    permission bits); an error leaves ``target`` as it was and no temporary file behind."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    remove_leftovers(target.parent)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        out = open(tmp, "xb")  # "x": never an existing file; a name taken is not ours to remove
    except OSError as exc:
        raise _error(exc, path) from None
    try:
        with out:
            if fcntl is not None:
                fcntl.flock(out.fileno(), fcntl.LOCK_EX)
            if mode is not None:
                os.chmod(tmp, mode)
            write(out)
            out.flush()
            os.fsync(out.fileno())
            if fcntl is not None:
                os.replace(tmp, target)  # while locked: no cleaner takes it for a leftover
        if fcntl is None:
            os.replace(tmp, target)  # Windows replaces only a closed file
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_file(path, write: Callable[[BinaryIO], None]):
    """Write the file ``path`` with ``write``, called on a binary file; returns ``path``
    (as a Path).

    How depends on what ``path`` is (see the module's description): a regular file (or none
    yet, or a link to either) is replaced whole once ``write`` has written it all, and any
    error, before or during ``write``, leaves it as it was; a character device, a FIFO and
    this process's standard output or error are written straight, with what ``write``
    wrote in memory. ``path`` may also be a writable binary stream, which gets the same
    bytes. Errors are OSErrors naming ``path``.
    """
    if hasattr(path, "write"):
        path.write(_contents(write))
        path.flush()
        return path
    path = Path(path)
    how, where = _destination(path)
    if how == _FILE:
        _replace(path, where, write)
    elif how == _DEVICE:
        _write_straight(path, _contents(write))
    else:
        _write_to_stream(where, path, _contents(write))
    return path
