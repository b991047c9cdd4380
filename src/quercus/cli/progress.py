"""Progress on stderr for the command line's slower steps, drawn by tqdm.

A status line (``fit: reading car.csv [00:01]``) for single steps, and a bar with counts,
elapsed time and an estimate of the time left for counted work (folds, trees). Both appear
only when stderr is a terminal and the user did not ask for ``--quiet``, so that logs and
pipes never receive them, and both are erased when the work is done. Their text names files
and steps: its control characters are shown escaped (:func:`quercus.cli.output.terminal_text`).
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm

from .output import is_terminal, terminal_text


class Progress:
    """Show a status line and progress bars on ``stream`` (default ``sys.stderr``).

    Use as a context manager: ``with Progress(quiet=args.quiet) as progress:
    progress.update("fit: reading car.csv")``, and ``progress.bar(10, "cv: folds")`` for
    counted work; everything is erased on leaving the block.

    Parameters
    ----------
    quiet : bool, default False
        Show nothing.
    stream : text stream, optional
        Where the lines go; shown only when ``stream.isatty()`` is true.
    """

    def __init__(self, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = not quiet and is_terminal(self.stream)
        self._status = None

    def update(self, text: str) -> None:
        """Replace the status line by ``text`` (with the time it has been shown)."""
        if not self.enabled:
            return
        text = terminal_text(text)
        if self._status is None:
            self._status = tqdm(
                file=self.stream, bar_format="{desc} [{elapsed}]", leave=False, desc=text
            )
        else:
            self._status.set_description_str(text)

    def bar(self, total: int, text: str, unit: str = "") -> tqdm:
        """A progress bar of ``total`` steps (disabled, but usable, when not shown)."""
        self.clear()
        return tqdm(
            total=total,
            desc=terminal_text(text),
            unit=unit or "it",
            file=self.stream,
            leave=False,
            disable=not self.enabled,
            mininterval=0,  # folds are few and slow: show every one
            bar_format="{desc}: {n_fmt}/{total_fmt} {bar} [{elapsed}<{remaining}]",
        )

    def clear(self) -> None:
        """Erase the status line."""
        if self._status is not None:
            self._status.close()
            self._status = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info) -> None:
        self.clear()
