"""Where a save writes, by what its path is: a regular file is replaced whole, a symbolic
link's file is updated (the link stays a link), a character device or a FIFO is written
straight (never replaced by a file), this process's standard output is written through the
stream, and a read-only file is refused. Every writer of quercus goes through
``quercus._files.write_file``: model files, forest files and reports.

The devices are made in the test's directory when the tests run as root (who could replace
the system's /dev/null by a file), else the system's are used (which a user cannot replace).
"""

import io
import os
import re
import socket
import stat
import threading
from pathlib import Path

import pytest

import quercus
from quercus._files import check_writable

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
POSIX = os.name == "posix"


@pytest.fixture(scope="module")
def playtennis():
    frame = quercus.datasets.load("playtennis")
    return frame.iloc[:, :-1], frame.iloc[:, -1]


@pytest.fixture(scope="module", params=["tree", "forest"])
def fitted(request, playtennis):
    if request.param == "tree":
        return quercus.ID3Classifier().fit(*playtennis)
    return quercus.RandomForestClassifier(3, random_state=0).fit(*playtennis)


@pytest.fixture
def fixed_date(monkeypatch):
    """The same model saved twice gives the same bytes."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def saved_bytes(model, tmp_path) -> bytes:
    return model.save(tmp_path / "reference.model").read_bytes()


# -- regular files and links -----------------------------------------------------------------


def test_a_regular_file_is_replaced_and_keeps_its_permissions(tmp_path, fitted):
    target = tmp_path / "m.model"
    target.write_bytes(b"an older model")
    target.chmod(0o640)
    assert fitted.save(target) == target
    assert quercus.load(target).get_params() == fitted.get_params()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.model"]


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_a_link_to_a_model_updates_the_model_and_stays_a_link(tmp_path, fitted, fixed_date):
    models = tmp_path / "models"
    models.mkdir()
    real = models / "current.model"
    real.write_bytes(b"an older model")
    link = tmp_path / "m.model"
    link.symlink_to(os.path.join("models", "current.model"))  # relative, as ln -s makes it
    fitted.save(link)
    assert link.is_symlink() and os.readlink(link) == os.path.join("models", "current.model")
    assert real.read_bytes() == saved_bytes(fitted, tmp_path)
    assert [p.name for p in models.iterdir()] == ["current.model"]  # no temporary file left


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_links_are_followed_to_the_end_and_a_dangling_one_gets_its_file(tmp_path, fitted):
    real = tmp_path / "real.model"
    (tmp_path / "middle").symlink_to(real)
    (tmp_path / "first").symlink_to(tmp_path / "middle")
    fitted.save(tmp_path / "first")  # real.model does not exist yet: it is created
    assert real.is_file() and not real.is_symlink()
    assert (tmp_path / "first").is_symlink() and (tmp_path / "middle").is_symlink()
    assert type(quercus.load(tmp_path / "first")) is type(fitted)


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_a_loop_of_links_is_an_error_naming_the_path(tmp_path, fitted):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OSError, match=f"cannot write {tmp_path / 'a'}: .*symbolic links"):
        fitted.save(tmp_path / "a")
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_a_link_into_a_missing_directory_names_both(tmp_path, fitted):
    link = tmp_path / "m.model"
    link.symlink_to(tmp_path / "gone" / "m.model")
    with pytest.raises(FileNotFoundError) as info:
        fitted.save(link)
    assert str(info.value) == (
        f"cannot write {link} (a link to {tmp_path / 'gone' / 'm.model'}): directory "
        f"{tmp_path / 'gone'} does not exist"
    )


@pytest.mark.skipif(not ROOT, reason="only root can give a link to another user")
def test_a_link_of_another_user_is_not_followed(tmp_path, fitted):
    # Planted in a shared directory (a folder of /tmp), it would aim root's save anywhere.
    victim = tmp_path / "victim"
    victim.write_bytes(b"not a model")
    link = tmp_path / "m.model"
    link.symlink_to(victim)
    os.lchown(link, 12345, 12345)
    with pytest.raises(PermissionError) as info:
        fitted.save(link)
    assert str(info.value) == (
        f"cannot write {link}: {link} is a symbolic link of another user (uid 12345), not followed"
    )
    assert victim.read_bytes() == b"not a model" and link.is_symlink()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_a_socket_is_refused(tmp_path, fitted):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError) as info:
            fitted.save(path)
    assert str(info.value) == f"cannot write {path}: it is a socket"
    assert stat.S_ISSOCK(path.stat().st_mode)


# -- read-only files -------------------------------------------------------------------------


def test_a_read_only_file_is_refused_even_to_root(tmp_path, fitted):
    # Refused by its mode, which lets no one write it: root, who may write any file, too.
    target = tmp_path / "m.model"
    target.write_bytes(b"a model to keep")
    target.chmod(0o444)
    with pytest.raises(PermissionError) as info:
        fitted.save(target)
    assert str(info.value) == f"cannot write {target}: the file is read-only"
    assert target.read_bytes() == b"a model to keep"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.model"]


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_a_link_to_a_read_only_file_is_refused(tmp_path, fitted):
    real = tmp_path / "real.model"
    real.write_bytes(b"a model to keep")
    real.chmod(0o444)
    link = tmp_path / "m.model"
    link.symlink_to(real)
    with pytest.raises(PermissionError, match=f"cannot write {link} \\(a link to {real}\\)"):
        fitted.save(link)
    assert real.read_bytes() == b"a model to keep" and link.is_symlink()


def test_a_file_the_user_may_not_write_is_refused(tmp_path, fitted, monkeypatch):
    # Another user's file, 0644, in a directory this user may write: os.access says so (as
    # root it never would, so it is told here to answer as for that user).
    import quercus._files as files

    target = tmp_path / "theirs.model"
    target.write_bytes(b"their model")
    real = files.os.access
    monkeypatch.setattr(
        files.os, "access", lambda p, mode: False if str(p) == str(target) else real(p, mode)
    )
    with pytest.raises(PermissionError, match=f"cannot write {target}: the file is read-only"):
        fitted.save(target)
    assert target.read_bytes() == b"their model"


def test_check_writable_applies_the_same_rules(tmp_path):
    target = tmp_path / "m.model"
    assert check_writable(target) == target  # no file yet
    target.write_bytes(b"")
    target.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        check_writable(target)


# -- devices, FIFOs and the standard output --------------------------------------------------


def test_the_null_device_is_written_and_stays_a_device(tmp_path, fitted, char_device):
    null = char_device("null", 3)
    fitted.save(null)
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if ".tmp" in p.name) == []


def test_a_full_device_is_an_error_naming_it(tmp_path, fitted, char_device):
    full = char_device("full", 7)
    with pytest.raises(OSError) as info:
        fitted.save(full)
    assert str(info.value) == f"cannot write {full}: No space left on device"
    assert stat.S_ISCHR(os.stat(full).st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_gets_the_model_file_and_stays_a_fifo(tmp_path, fitted, fixed_date):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    # A daemon: if the FIFO were replaced by a file, the reader would wait on it forever.
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        fitted.save(fifo)
    finally:
        reader.join(timeout=60)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received == [saved_bytes(fitted, tmp_path)]


@pytest.mark.skipif(not os.path.exists("/dev/fd/1"), reason="no /dev/fd here")
def test_the_standard_output_is_written_through_the_stream(
    tmp_path, fitted, capfdbinary, fixed_date
):
    # /dev/fd/1 is, as /dev/stdout is, a name of the file the standard output writes to
    # (pytest's capture file here): the model goes where the output goes, after what was
    # printed before it. Replaced by a new file, the stream would write on into the old one.
    print("before", flush=True)
    assert fitted.save("/dev/fd/1") == Path("/dev/fd/1")
    print("after", flush=True)
    expected = b"before\n" + saved_bytes(fitted, tmp_path) + b"after\n"
    assert capfdbinary.readouterr().out == expected


def test_a_binary_stream_gets_the_bytes_of_the_file(tmp_path, fitted, fixed_date):
    stream = io.BytesIO()
    assert fitted.save(stream) is stream
    assert stream.getvalue() == saved_bytes(fitted, tmp_path)


# -- the report ------------------------------------------------------------------------------


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_a_report_through_a_link_updates_the_linked_page(tmp_path, playtennis):
    pytest.importorskip("sklearn")
    X, y = playtennis
    real = tmp_path / "page.html"
    real.write_text("an older page")
    link = tmp_path / "report.html"
    link.symlink_to(real)
    quercus.ID3Classifier().fit(X, y).report(X, y, link)
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# -- one writer ------------------------------------------------------------------------------

# A file written other than by quercus._files.write_file: the calls that would do it.
OTHER_WRITES = re.compile(
    r"os\.(replace|rename)\(|shutil\.(copy\w*|move)\(|\.write_(text|bytes)\("
    r"|\bopen\([^)]*[\"'][wax]b?\+?[\"']"
)
# Writers not yet moved to write_file, each with why it is left (to be emptied).
NOT_YET: dict[str, str] = {}


def test_every_file_quercus_writes_is_written_by_write_file():
    package = Path(quercus.__file__).parent
    found = {}
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name == "_files.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OTHER_WRITES.search(line):
                found.setdefault(name, []).append(f"{number}: {line.strip()}")
    assert found.keys() == NOT_YET.keys(), found
