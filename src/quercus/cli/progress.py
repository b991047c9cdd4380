"""A one-line progress display on stderr, for the command line's slower steps.

The line (``cv: fold 3/10``) is rewritten in place with a carriage return and erased when the
work is done. It appears only when the stream is a terminal and the user did not ask for
``--quiet``, so that logs and pipes never receive it. No dependency: a few lines suffice.
"""

from __future__ import annotations

import sys
from typing import TextIO


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Progress:
    """Show a status line on ``stream`` (default ``sys.stderr``) while work runs.

    Use as a context manager: ``with Progress(quiet=args.quiet) as progress:
    progress.update("cv: fold 1/10")``; the line is erased on leaving the block.

    Parameters
    ----------
    quiet : bool, default False
        Show nothing.
    stream : text stream, optional
        Where the line goes; shown only when ``stream.isatty()`` is true.
    """

    def __init__(self, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = not quiet and _is_terminal(self.stream)
        self._width = 0

    def update(self, text: str) -> None:
        """Replace the status line by ``text``."""
        if not self.enabled:
            return
        padding = " " * max(0, self._width - len(text))
        self.stream.write(f"\r{text}{padding}")
        self.stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        """Erase the status line (the cursor goes back to the start of the line)."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info) -> None:
        self.clear()
