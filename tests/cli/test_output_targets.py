"""``-o`` of every command that takes it, to what users give it: ``-`` and the standard
output's own names (the result on stdout, whole, and the command's text moved to stderr),
a device (written, never replaced), a FIFO, a link (its file updated) and a read-only file
(refused before the work). Driven as a user drives them, through a subprocess.

The standard output is named ``/dev/fd/1`` here, the file /dev/stdout leads to: a mistake
that replaced the name by a file would then fail, not replace /dev/stdout on the machine
running the tests as root. Devices are made in the test's directory as root, for the same
reason.
"""

import io
import os
import stat
import subprocess
import sys
import threading
import zipfile
from functools import partial

import pytest

import quercus
from _helpers import run_cli

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
STDOUT_NAMES = ["-"] + (["/dev/fd/1"] if os.path.exists("/dev/fd/1") else [])
# The command line's output in bytes (a PNG, a zip), made on a fixed date.
run_bytes = partial(run_cli, text=False, env={"SOURCE_DATE_EPOCH": "1700000000"})


def ok(result) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr.decode()
    return result


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """PlayTennis as CSV, its ID3 model saved to a file by ``fit -o``, and that run."""
    folder = tmp_path_factory.mktemp("targets")
    quercus.datasets.load("playtennis").to_csv(folder / "playtennis.csv", index=False)
    fitted = ok(
        run_bytes("fit", folder / "playtennis.csv", "--algorithm", "id3", "-o", folder / "m.json")
    )
    return folder, fitted


# -- the standard output ---------------------------------------------------------------------


@pytest.mark.parametrize("name", STDOUT_NAMES)
def test_fit_writes_the_model_to_stdout_and_its_text_to_stderr(work, name):
    folder, fitted = work
    result = ok(run_bytes("fit", folder / "playtennis.csv", "--algorithm", "id3", "-o", name))
    assert result.stdout == (folder / "m.json").read_bytes()
    assert result.stderr.decode().endswith(fitted.stdout.decode())  # the tree, on stderr
    assert "model saved" not in result.stderr.decode()


@pytest.mark.skipif(not os.path.exists("/dev/fd/1"), reason="no /dev/fd here")
def test_fit_to_stdout_redirected_to_a_file_appends_to_it(work, tmp_path):
    # quercus fit ... -o /dev/stdout >> models.log: the model after what the file held.
    folder, _ = work
    log = tmp_path / "models.log"
    log.write_bytes(b"earlier\n")
    with open(log, "ab") as appended:
        ok(
            run_bytes(
                "fit",
                folder / "playtennis.csv",
                "--algorithm",
                "id3",
                "-o",
                "/dev/fd/1",
                stdout=appended,
            )
        )
    assert log.read_bytes() == b"earlier\n" + (folder / "m.json").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models.log"]


def test_a_forest_to_stdout_is_its_zip(work, tmp_path):
    folder, _ = work
    args = ("fit", folder / "playtennis.csv", "--algorithm", "forest", "--set", "n_estimators=3")
    saved = tmp_path / "f.qf"
    ok(run_bytes(*args, "-o", saved))
    result = ok(run_bytes(*args, "-o", "-"))
    assert result.stdout == saved.read_bytes()
    assert zipfile.ZipFile(io.BytesIO(result.stdout)).namelist()[0] == "ensemble.json"


@pytest.mark.parametrize("name", STDOUT_NAMES)
def test_predict_and_show_write_to_stdout(work, name):
    folder, _ = work
    model, data = folder / "m.json", folder / "playtennis.csv"
    assert (
        ok(run_bytes("predict", model, data, "-o", name)).stdout
        == ok(run_bytes("predict", model, data)).stdout
    )
    rules = ok(run_bytes("show", model, "--format", "rules", "-o", name)).stdout
    assert rules == ok(run_bytes("show", model, "--format", "rules")).stdout
    assert rules.startswith(b"IF Outlook = Overcast THEN Yes")


def test_show_png_to_stdout(work):
    pytest.importorskip("matplotlib")
    folder, _ = work
    result = ok(run_bytes("show", folder / "m.json", "--format", "png", "-o", "-"))
    assert result.stdout.startswith(b"\x89PNG\r\n\x1a\n")


def test_show_png_is_not_written_to_a_terminal(work, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from quercus.cli import main

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    folder, _ = work
    monkeypatch.setattr(sys, "stdout", Terminal())
    assert main(["show", str(folder / "m.json"), "--format", "png", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "quercus show: error: -o - writes binary data, which a terminal cannot show" in err
    assert sys.stdout.getvalue() == ""


def test_report_to_stdout_is_the_page_alone(work):
    folder, _ = work
    page = ok(
        run_bytes("report", folder / "playtennis.csv", "--algorithm", "id3", "-o", "-")
    ).stdout
    assert page.startswith(b"<!DOCTYPE html>") and page.rstrip().endswith(b"</html>")


# -- devices, FIFOs, links, read-only files --------------------------------------------------


def test_fit_to_the_null_device_leaves_it_a_device(work, tmp_path, char_device):
    folder, fitted = work
    null = char_device("null", 3)
    result = ok(run_bytes("fit", folder / "playtennis.csv", "--algorithm", "id3", "-o", null))
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert result.stdout == fitted.stdout  # the tree still printed
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_full_device_is_one_line_naming_it(work, tmp_path, char_device):
    folder, _ = work
    full = char_device("full", 7)
    result = run_bytes("show", folder / "m.json", "-o", full)
    assert result.returncode == 1
    assert (
        result.stderr.decode() == f"quercus: error: cannot write {full}: No space left on device\n"
    )


def read_in_background(fifo) -> tuple[threading.Thread, list]:
    """A thread reading ``fifo`` to its end, and the list it puts what it read in. A daemon:
    a FIFO that no one opens leaves it blocked, not the tests."""
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    return reader, received


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_predict_into_a_fifo(work, tmp_path):
    folder, _ = work
    fifo = tmp_path / "predictions"
    os.mkfifo(fifo)
    reader, received = read_in_background(fifo)
    ok(run_bytes("predict", folder / "m.json", folder / "playtennis.csv", "-o", fifo))
    reader.join(timeout=60)
    assert received == [
        ok(run_bytes("predict", folder / "m.json", folder / "playtennis.csv")).stdout
    ]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="symbolic links need privileges on Windows")
def test_fit_through_a_link_updates_its_file(work, tmp_path):
    folder, _ = work
    real = tmp_path / "v2.json"
    real.write_text("an older model")
    link = tmp_path / "current.json"
    link.symlink_to(real.name)
    ok(run_bytes("fit", folder / "playtennis.csv", "--algorithm", "id3", "-o", link))
    assert link.is_symlink() and real.read_bytes() == (folder / "m.json").read_bytes()


def test_a_read_only_output_is_refused_before_the_work(work, tmp_path):
    folder, _ = work
    kept = tmp_path / "kept.json"
    kept.write_text("a model to keep")
    kept.chmod(0o444)
    for command in (
        ("fit", folder / "playtennis.csv", "--algorithm", "id3"),
        ("predict", folder / "m.json", folder / "playtennis.csv"),
        ("report", folder / "playtennis.csv", "--algorithm", "id3"),
    ):
        result = run_bytes(*command, "-o", kept)
        assert result.returncode == 1, command
        assert (
            result.stderr.decode()
            == f"quercus: error: cannot write {kept}: the file is read-only\n"
        )
        assert result.stdout == b""  # before the work: no tree printed
    assert kept.read_text() == "a model to keep"
