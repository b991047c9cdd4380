"""Writing a file so that it is either complete or absent: never half-written, never lost.

Every file quercus writes (model files, and the command line's outputs) goes first to a
new file beside the target, ``.NAME.<12 hex digits>.tmp``, which replaces the target only
once it is complete and on disk. A save that is killed leaves that temporary file behind;
the next save into the same directory removes such leftovers. A temporary file is a
leftover when no process holds its lock (the writer locks it while it writes, and a killed
process's locks go with it); where file locks do not exist, when it is over an hour old.
"""

from __future__ import annotations

import os
import re
import secrets
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


def check_writable(path) -> Path:
    """``path`` as a Path, or an OSError naming it when no file can be written there (its
    directory is missing or not writable, or it is a directory)."""
    path = Path(path)
    directory = path.parent
    if path.is_dir():
        raise IsADirectoryError(f"cannot write {path}: it is a directory")
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {path}: directory {directory} is not writable")
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


def write_atomically(path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write`` on a new binary file that then replaces ``path``; returns the path.

    The new file gets the usual permissions (0666 less the umask). Any error, before or
    during ``write``, leaves ``path`` as it was and no temporary file behind.
    """
    path = check_writable(path)
    remove_leftovers(path.parent)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        out = open(tmp, "xb")  # "x": never an existing file; a name taken is not ours to remove
    except OSError as exc:
        raise type(exc)(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with out:
            if fcntl is not None:
                fcntl.flock(out.fileno(), fcntl.LOCK_EX)
            write(out)
            out.flush()
            os.fsync(out.fileno())
            if fcntl is not None:
                os.replace(tmp, path)  # while locked: no cleaner takes it for a leftover
        if fcntl is None:
            os.replace(tmp, path)  # Windows replaces only a closed file
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
