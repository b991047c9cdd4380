"""Writing results: to the output stream or, written whole, to a file; and counts in words.

Standard library only (and ``quercus._files``), so that a subcommand that needs no learning
stack, such as ``quercus show``, can write its results without importing one.
"""

from __future__ import annotations

from typing import TextIO

from .._files import write_atomically


def plural(n: int, word: str) -> str:
    """``1 class``, ``2 classes``, ``1 row``, ``3 rows``."""
    if n == 1:
        return f"{n:,} {word}"
    return f"{n:,} {word}es" if word.endswith("s") else f"{n:,} {word}s"


def write_text(text: str, path: str | None, out: TextIO) -> None:
    """``text`` to ``out``, or to the file ``path`` written atomically (see
    :func:`write_bytes`)."""
    if path is None:
        out.write(text)
        return
    write_bytes(text.encode("utf-8"), path)


def write_bytes(data: bytes, path: str) -> None:
    """``data`` to the file ``path``, written atomically (``quercus._files``): an error never
    leaves a half-written file, nor loses the old one."""
    write_atomically(path, lambda out: out.write(data))
