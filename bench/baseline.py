"""Older quercus source trees to time beside the current one (the benchmarks' `--baseline REV`).

A baseline is a git revision of this repository checked out as a detached worktree under the
temporary directory (`/tmp/quercus-bench-<commit>`, made once and reused: its Numba cache
stays warm across runs). A benchmark cell runs it in the same interpreter and virtual
environment as the current code, with only `PYTHONPATH=<worktree>/src` put first, so the
dependencies are the same and only quercus's own source differs. The cell reports which
quercus it imported (`quercus.__file__`) and the parent checks it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The library name of the current source tree in tables.
CURRENT = "quercus"


@dataclass(frozen=True)
class Source:
    """One quercus source tree a benchmark runs: its table name and what to put on PYTHONPATH.

    ``src`` is None for the current code (the quercus the benchmark's own interpreter
    imports, e.g. the editable install or the caller's PYTHONPATH).
    """

    name: str
    src: Path | None = None
    commit: str | None = None


def git(*args: str, cwd: Path = REPO) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def _is_checkout(path: Path) -> bool:
    """Whether git can read the checkout at ``path``."""
    proc = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True)
    return proc.returncode == 0


def baseline(rev: str) -> Source:
    """The worktree of revision ``rev`` (made, or reused if it is already there)."""
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    short = commit[:7]
    path = Path(tempfile.gettempdir()) / f"quercus-bench-{short}"
    if (path / ".git").exists() and not _is_checkout(path):
        # A worktree of a repository that is gone (e.g. an earlier clone): git cannot read it.
        shutil.rmtree(path)
    if (path / ".git").exists():
        if git("rev-parse", "HEAD", cwd=path) != commit:
            raise SystemExit(f"{path} holds another commit than {rev}; remove it first")
    else:
        git("worktree", "prune")  # forget a worktree whose folder was deleted
        git("worktree", "add", "--detach", str(path), commit)
    return Source(name=f"quercus@{short}", src=path / "src", commit=commit)


def current() -> Source:
    """The current code: whatever ``import quercus`` finds in this interpreter."""
    return Source(name=CURRENT)


def sources(baseline_revs: list[str]) -> list[Source]:
    """The baselines of ``baseline_revs`` (in order, duplicates dropped), then the current code."""
    found: dict[str, Source] = {}
    for rev in baseline_revs:
        source = baseline(rev)
        found.setdefault(source.name, source)
    return [*found.values(), current()]


def child_env(source: Source, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process that must import ``source``'s quercus."""
    env = dict(os.environ if env is None else env)
    if source.src is not None:
        rest = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(source.src) + (os.pathsep + rest if rest else "")
    return env


def imported_from(source: Source, quercus_file: str) -> str | None:
    """None if a child that should run ``source`` imported quercus from the right tree, else
    what went wrong (a baseline must not silently run the current code)."""
    if source.src is None:
        return None
    if Path(quercus_file).resolve().is_relative_to(source.src.resolve()):
        return None
    return f"imported quercus from {quercus_file}, not from {source.src}"


def split_names(names: list[str]) -> tuple[list[str], list[str]]:
    """``--only`` entries split into plain names and baseline revisions (``quercus@REV``)."""
    plain, revs = [], []
    for name in names:
        if name.startswith(CURRENT + "@"):
            revs.append(name.split("@", 1)[1])
        else:
            plain.append(name)
    return plain, revs


def ratio_cells(old, new) -> list[str]:
    """Fit and predict seconds of a baseline cell and the current one, each with its ratio
    (``old``/``new``: a cell's result dict, or anything else for a failed cell)."""
    cells = []
    for key, digits in (("fit_s", 2), ("predict_s", 3)):
        old_s = old.get(key) if isinstance(old, dict) else None
        new_s = new.get(key) if isinstance(new, dict) else None
        cells += [
            "?" if old_s is None else f"{old_s:.{digits}f}",
            "?" if new_s is None else f"{new_s:.{digits}f}",
            ratio(new_s, old_s),
        ]
    return cells


def ratio(new: float | None, old: float | None) -> str:
    """``new / old`` as text: above 1 the current code is slower than the baseline."""
    if new is None or old is None or old <= 0:
        return "?"
    return f"{new / old:.3f}"
