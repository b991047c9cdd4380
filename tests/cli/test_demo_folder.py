"""``quercus demo`` writes its report in a folder of the user's own, not a shared one.

The system's temporary directory is shared: on a lecture machine another student could make
the demo's folder first (or a link in its place) to replace or break everyone's report.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from quercus.cli.demo import REPORT_NAME, report_path, run_demo

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")

NOBODY = 65534


@pytest.fixture
def temporary(tmp_path, monkeypatch):
    """A temporary directory of the test's own, as ``$TMPDIR``, sticky and open to all as
    /tmp is."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    yield shared
    shared.chmod(0o755)


def _usual(temporary: Path) -> Path:
    return temporary / f"quercus-demo-{os.getuid()}"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_report_goes_to_a_private_folder_of_the_user(temporary):
    path, note = report_path()
    assert note is None
    assert path == _usual(temporary) / REPORT_NAME
    assert _mode(path.parent) == 0o700
    assert report_path() == (path, None)  # the same folder next time


def test_a_folder_others_could_only_read_is_made_private(temporary):
    _usual(temporary).mkdir(mode=0o755)
    _usual(temporary).chmod(0o755)
    path, note = report_path()
    assert (path, note) == (_usual(temporary) / REPORT_NAME, None)
    assert _mode(path.parent) == 0o700


def _assert_a_new_private_folder(temporary: Path, path: Path, note: str, why: str) -> None:
    assert path.parent != _usual(temporary) and path.parent.parent == temporary
    assert path.name == REPORT_NAME
    assert _mode(path.parent) == 0o700 and os.lstat(path.parent).st_uid == os.getuid()
    assert note == f"{_usual(temporary)} {why}: not used, the report is in a new folder instead"


def test_a_folder_others_can_write_is_not_used(temporary):
    _usual(temporary).mkdir()
    _usual(temporary).chmod(0o777)
    path, note = report_path()
    _assert_a_new_private_folder(temporary, path, note, "is writable by other users (mode 777)")


def test_a_link_in_place_of_the_folder_is_not_followed(temporary, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    _usual(temporary).symlink_to(elsewhere)
    path, note = report_path()
    _assert_a_new_private_folder(temporary, path, note, "is not a folder (a link or a file)")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_not_used(temporary):
    _usual(temporary).mkdir(mode=0o700)
    os.chown(_usual(temporary), NOBODY, NOBODY)
    path, note = report_path()
    _assert_a_new_private_folder(temporary, path, note, "belongs to another user")


def test_the_demo_says_where_its_report_is_when_its_folder_was_taken(temporary, tmp_path):
    planted = tmp_path / "planted"
    planted.mkdir()
    _usual(temporary).symlink_to(planted)
    out = io.StringIO()
    assert run_demo(out) == 0
    text = out.getvalue()
    assert f"-- note: {_usual(temporary)} is not a folder" in text
    shown = text.split("-- the tree's report, every node's gain table a click away: open ")[1]
    report = Path(shown.split(" in a browser")[0])
    assert report.is_file() and report.parent.parent == temporary
    assert not list(planted.iterdir()), "wrote through the planted link"
