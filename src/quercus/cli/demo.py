"""``quercus demo``: the lectures' worked numbers, computed.

For each lecture data set: the class entropy and the gain table (for PlayTennis also one
level down, and the ID3 tree with its rules, and its report, an HTML page to open); then a
larger shipped data set, UCI's Car Evaluation, with C4.5's 10-fold cross-validated accuracy.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TextIO

import pandas as pd

from .. import datasets
from ..criteria import entropy, gain_table
from ..ensemble import RandomForestClassifier
from ..estimators import C45Classifier, ID3Classifier
from ..export import export_rules, export_text
from ..warm import announce_compiling
from .evaluate import cross_validate

FOLDS = 10
SEED = 0
REPORT_NAME = "playtennis-report.html"


def _print_table(out: TextIO, table: pd.DataFrame) -> None:
    shown = table.drop(columns=["threshold"]) if table["threshold"].isna().all() else table
    out.write(shown.to_string(float_format=lambda v: f"{v:.3f}") + "\n\n")


def report_path() -> tuple[Path, str | None]:
    """Where the demo writes the PlayTennis report, and why it is not the usual folder (or
    None when it is).

    The usual folder is the user's own in the system's temporary directory,
    ``$TMPDIR/quercus-demo-<uid>``, made readable by the user alone (mode 0700). The
    temporary directory is shared: another user may have made that folder first, or made it
    a link, to replace or break this user's report. Such a folder is not used; a new
    private folder is made instead (``tempfile.mkdtemp``), and the note says why."""
    temporary = Path(tempfile.gettempdir())
    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""  # Windows: a per-user TEMP
    folder = temporary / f"quercus-demo{owner}"
    problem = _private_folder(folder)
    if problem is None:
        return folder / REPORT_NAME, None
    fresh = Path(tempfile.mkdtemp(prefix="quercus-demo-", dir=temporary))
    return fresh / REPORT_NAME, f"{problem}: not used, the report is in a new folder instead"


def _private_folder(folder: Path) -> str | None:
    """Make ``folder`` (mode 0700) when missing; None when it is a folder of this user that
    no other user can write to (one they could only read is made private), else why not."""
    try:
        folder.mkdir(mode=0o700)
        return None
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder (a link or a file)"
    if not hasattr(os, "getuid"):
        return None  # Windows: no POSIX owners and modes; its TEMP is the user's own
    if info.st_uid != os.getuid():
        return f"{folder} belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{folder} is writable by other users (mode {info.st_mode & 0o777:o})"
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)  # others could read the earlier report: no longer
    return None


def _playtennis_tree(out: TextIO, frame: pd.DataFrame, target: str) -> None:
    """The ID3 tree of PlayTennis, the same tree as rules, and its report."""
    X, y = frame.drop(columns=[target]), frame[target]
    tree = ID3Classifier().fit(X, y)
    out.write("-- the ID3 tree (gain chosen at every node)\n")
    out.write(export_text(tree) + "\n")
    out.write("-- the same tree as rules, one per leaf\n")
    out.write(export_rules(tree) + "\n")
    path, note = report_path()
    if note is not None:
        out.write(f"-- note: {note}\n")
    path = tree.report(X, y, path, title="ID3 on PlayTennis")
    out.write(
        f"-- the tree's report, every node's gain table a click away: open {path} in a "
        "browser (quercus report DATA -o FILE writes one for any data)\n\n"
    )


def _car(out: TextIO) -> None:
    """C4.5 on the Car Evaluation data: cross-validated accuracy and the size of its tree."""
    frame = datasets.load("car")
    target = frame.columns[-1]
    X, y = frame.drop(columns=[target]), frame[target]
    # Every column is nominal (doors and persons mix numbers and words: 2, 3, 4, 5more).
    c45 = C45Classifier(nominal_features=list(X.columns))
    result = cross_validate(c45, X, y, folds=FOLDS, seed=SEED)
    tree = c45.fit(X, y)
    out.write(f"== car: {datasets.names()['car']}\n")
    out.write(
        f"C4.5, {FOLDS}-fold stratified cross-validation (seed {SEED}): accuracy "
        f"{result.mean:.3f} (standard deviation {result.std:.3f})\n"
    )
    out.write(
        f"C4.5 on all {len(frame):,} cars: {tree.get_n_leaves()} leaves, depth {tree.get_depth()}\n"
    )
    forest = RandomForestClassifier(
        n_estimators=100, oob_score=True, nominal_features=list(X.columns), random_state=SEED
    ).fit(X, y)
    out.write(
        f"Random forest of 100 trees: out-of-bag accuracy {forest.oob_score_:.3f}; "
        "attributes by importance: "
        + ", ".join(
            f"{name} {value:.2f}"
            for value, name in sorted(
                zip(forest.feature_importances_, X.columns, strict=True), reverse=True
            )
        )
        + "\n"
    )


def run_demo(out: TextIO) -> int:
    """Print the demo to ``out``; the exit status."""
    with announce_compiling(sys.stderr):
        return _demo(out)


def _demo(out: TextIO) -> int:
    for name in ("playtennis", "weekend", "restaurant"):
        frame = datasets.load(name)
        target = frame.columns[-1]
        out.write(f"== {name}: {datasets.names()[name]}\n")
        out.write(f"Entropy({target}) = {entropy(frame[target]):.3f} bits\n")
        _print_table(out, gain_table(frame, target))
        if name == "playtennis":
            sunny = frame[frame["Outlook"] == "Sunny"].drop(columns=["Outlook"])
            out.write("-- the Sunny days (Outlook = Sunny), one level down\n")
            out.write(f"Entropy({target}) = {entropy(sunny[target]):.3f} bits\n")
            _print_table(out, gain_table(sunny, target))
            _playtennis_tree(out, frame, target)
    _car(out)
    return 0


def run_demo_command(args, out: TextIO) -> int:
    """``quercus demo``, as the parser calls a subcommand (it takes no options)."""
    return run_demo(out)
