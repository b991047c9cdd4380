"""Writing results: to the standard output or to a file, text made safe for a terminal, and
counts in words.

An output file ``-``, or any name of the standard output (``/dev/stdout``, or the file it
is redirected to), is the standard output: the result is written there, and a command that
also prints text prints it on the standard error instead, so that the file stays whole.
Every other output file is written by :func:`quercus._files.write_file` (whole or not at
all, a link's file updated, a device written straight).

Names in the data (columns, categories, classes) and in file names can hold control
characters, which a terminal would obey (an escape sequence moves the cursor, retitles the
window, hides what follows). What quercus prints shows them escaped, as Python writes them
(``\\x1b``), by :func:`terminal_text`: its results when the stream is a terminal (a file or
a pipe gets the exact text, as it gets an output file's), its messages on the standard error
(errors, warnings, notes, progress) always, since they are read by people, in logs too.

Standard library only (and ``quercus._files``), so that a subcommand that needs no learning
stack, such as ``quercus show``, can write its results without importing one.
"""

from __future__ import annotations

import io
import re
import sys
from typing import TextIO

from .._files import standard_stream, write_file
from .options import UsageError

STDOUT = "-"
# C0 and C1 control characters but newline and tab, DEL, and the bidirectional overrides and
# isolates, which reorder the text shown after them.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plural(n: int, word: str) -> str:
    """``1 class``, ``2 classes``, ``1 row``, ``3 rows``."""
    if n == 1:
        return f"{n:,} {word}"
    return f"{n:,} {word}es" if word.endswith("s") else f"{n:,} {word}s"


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """``text`` with its control characters escaped as Python escapes them (ESC as
    ``\\x1b``), but newlines and tabs: what a terminal shows rather than obeys."""
    return _CONTROL.sub(_escape, text)


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class TerminalText:
    """A text stream for a command's results: writes to ``stream``, with control characters
    escaped (:func:`terminal_text`) when ``stream`` is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.escaping = is_terminal(stream)

    def write(self, text: str) -> int:
        return self.stream.write(terminal_text(text) if self.escaping else text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.escaping


def note(text: str) -> None:
    """``quercus: text`` on the standard error, its control characters escaped."""
    print(f"quercus: {terminal_text(text)}", file=sys.stderr)


def to_stdout(path: str | None) -> bool:
    """Whether the output file ``path`` is the standard output: ``-``, ``/dev/stdout``, or
    the file the standard output is redirected to."""
    return path is not None and (path == STDOUT or standard_stream(path) == 1)


def results_stream(path: str | None, out: TextIO) -> TextIO:
    """Where a command that writes the output file ``path`` prints its text: ``out``, or
    the standard error when ``path`` is the standard output."""
    return TerminalText(sys.stderr) if to_stdout(path) else out


def write_text(text: str, path: str | None, out: TextIO) -> None:
    """``text`` to ``out`` (no ``path``, or the standard output), else to the file
    ``path`` as UTF-8 (see :func:`quercus._files.write_file`)."""
    if path is None or to_stdout(path):
        out.write(text)
        return
    write_file(path, lambda file: file.write(text.encode("utf-8")))


def write_bytes(data: bytes, path: str, out: TextIO) -> None:
    """``data`` to the file ``path`` (see :func:`quercus._files.write_file`), or to the
    standard output, unless that is a terminal (a UsageError: binary data would garble it)."""
    if not to_stdout(path):
        write_file(path, lambda file: file.write(data))
        return
    if is_terminal(sys.stdout):
        raise UsageError(
            f"-o {path} writes binary data, which a terminal cannot show: redirect the "
            "standard output to a file (> FILE), or give the file with -o FILE"
        )
    out.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def save_model(model, path: str, out: TextIO, quiet: bool, what: str = "model") -> None:
    """Save ``model`` to the file ``path`` and say so on the standard error (unless
    ``quiet``), or write its file to the standard output for ``-`` (a tree's JSON as text
    on a terminal, a forest's zip only elsewhere: see :func:`write_bytes`)."""
    if not to_stdout(path):
        model.save(path)
        if not quiet:
            note(f"{what} saved to {path}")
        return
    buffer = io.BytesIO()
    model.save(buffer)
    data = buffer.getvalue()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # a forest's zip
        write_bytes(data, path, out)
    else:
        write_text(text, path, out)
