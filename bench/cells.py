"""What the benchmark scripts share to run a cell and print its table: a cell in a fresh
process with a time limit, read back from the last JSON line it prints, and a markdown table.
Standard library only: the peers' interpreters import it too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import NamedTuple


class Ran(NamedTuple):
    """A finished cell process: ``result``, the last ``{...}`` line of its stdout read as
    JSON when it exited with 0 (else None); its output; ``timed_out`` when it was killed at
    the time limit."""

    result: dict | None
    stdout: str
    stderr: str
    returncode: int
    timed_out: bool


def run_json(cmd: list[str], timeout: float | None, env: dict | None = None) -> Ran:
    """Run ``cmd`` in its own process group (so that a timeout ends all of it, children
    included) and wait at most ``timeout`` seconds."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        return Ran(None, stdout, stderr, proc.returncode, True)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if proc.returncode == 0 and lines else None
    return Ran(result, stdout, stderr, proc.returncode, False)


def last_error_line(ran: Ran) -> str:
    """The last line of a failed cell's stderr (its exception), or its exit code."""
    return (ran.stderr.strip().splitlines() or [f"exit code {ran.returncode}"])[-1]


def stderr_tail(ran: Ran, lines: int) -> str:
    """The last ``lines`` lines of a cell's stderr, to echo where a cell failed."""
    return "".join(ran.stderr.splitlines(keepends=True)[-lines:])


def markdown_table(header, rows) -> str:
    """``rows`` under ``header`` as a markdown table, each column as wide as its widest cell."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def chosen(parser, option: str, text: str, known) -> list[str]:
    """The comma-separated names of ``option`` (``text``), each one of ``known``: else the
    parser's usage error naming the unknown ones."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"unknown in {option}: {', '.join(unknown)}; choose from {list(known)}")
    return names
