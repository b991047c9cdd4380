"""Where quercus loads its compiled kernels from (``quercus._kernel_cache``).

Numba's cache files are pickles: loading one from a folder another user can write runs their
code. These tests plant such a file (its unpickling creates a marker file) where Numba's own
choice of folder would read it (a relative ``NUMBA_CACHE_DIR`` or ``XDG_CACHE_HOME``, a
folder of another user or open to all) and check that quercus neither loads it nor fails:
it warns and keeps its kernels elsewhere. They also check that another user of a package
whose ``__pycache__`` is not theirs (an install made by root) loads the kernels cached there
instead of compiling them again, and that with no writable folder at all quercus still works.

"Another user" is a process that cannot write the package's folders: as root, a copy owned
by ``nobody`` read by root without its capabilities (``setpriv --bounding-set=-all``: root
then obeys the permissions of files it does not own), else a read-only copy.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numba.core.config
import pytest
from numba.core.caching import InTreeCacheLocator

import quercus
from quercus import _kernel_cache
from quercus._counters import mix64
from quercus._kernel_cache import cache_folders, folder_problem

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")

PACKAGE = Path(quercus.__file__).parent
NOBODY = 65534
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

CHILD = """
import json, sys
import numpy as np
import quercus
assert quercus.__file__.startswith(sys.argv[1]), quercus.__file__
from quercus._counters import mix64
assert mix64(np.uint64(1)) == 6238072747940578789  # SplitMix64's finaliser of 1
print(json.dumps({"hits": sum(mix64.stats.cache_hits.values()),
                  "misses": sum(mix64.stats.cache_misses.values()),
                  "cache_path": mix64.stats.cache_path}))
"""


class _Plant:
    """A pickle whose loading creates the file ``marker``: the code another user plants."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _plant(cache_root: Path, site: Path, marker: Path) -> None:
    """Put a planted index of ``mix64``'s cache where Numba looks for it under ``cache_root``
    (a folder named by ``NUMBA_CACHE_DIR`` or the per-user cache), for the package in
    ``site``."""
    source = site / "quercus" / "_counters.py"
    folder = cache_root / InTreeCacheLocator.get_suitable_cache_subpath(str(source))
    folder.mkdir(parents=True, exist_ok=True)
    version = f"{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    index = folder / f"_counters.mix64-{mix64.py_func.__code__.co_firstlineno}.py{version}.nbi"
    index.write_bytes(pickle.dumps(_Plant(marker)))


def _copy_package(tmp_path: Path, with_cache: bool = False) -> Path:
    """A copy of the package in ``tmp_path/site`` (without its kernels' cache unless
    ``with_cache``), and a home folder ``tmp_path/home``."""
    site = tmp_path / "site"
    ignore = None if with_cache else shutil.ignore_patterns("__pycache__")
    shutil.copytree(PACKAGE, site / "quercus", ignore=ignore)
    (tmp_path / "home").mkdir()
    return site


def _another_users(site: Path) -> list[str]:
    """Make ``site`` a package this test's child processes cannot write to, as for another
    user; returns the command prefix that runs them so (or skips the test)."""
    if not IS_ROOT:
        for folder, _, files in os.walk(site):
            for name in files:
                os.chmod(Path(folder, name), 0o444)
            os.chmod(folder, 0o555)
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv to drop root's capabilities")
    for folder, _, files in os.walk(site):
        os.chown(folder, NOBODY, NOBODY)
        for name in files:
            os.chown(Path(folder, name), NOBODY, NOBODY)
    prefix = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]
    probe = subprocess.run([*prefix, "touch", str(site / "quercus" / "probe")], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("root keeps writing others' files without its capabilities here")
    return prefix


def _run(site: Path, tmp_path: Path, prefix=(), **env) -> tuple[dict, str]:
    """Run ``CHILD`` on the package in ``site`` in the folder ``tmp_path/work`` with
    ``env`` added to a clean environment; returns its result and its stderr."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PY", "XDG_"))}
    clean.update({"PYTHONPATH": str(site), "HOME": str(tmp_path / "home"), **env})
    done = subprocess.run(
        [*prefix, sys.executable, "-c", CHILD, str(site)],
        env=clean,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def test_a_relative_numba_cache_dir_is_not_loaded_from_the_current_folder(tmp_path):
    site = _copy_package(tmp_path)
    marker = tmp_path / "planted-code-ran"
    _plant(tmp_path / "work" / "shared", site, marker)
    result, stderr = _run(site, tmp_path, NUMBA_CACHE_DIR="shared")
    assert not marker.exists(), "loaded compiled code from a relative NUMBA_CACHE_DIR"
    assert "NUMBA_CACHE_DIR='shared' is a relative path" in stderr
    assert result["cache_path"] == str(site / "quercus" / "__pycache__")


@pytest.mark.parametrize("owner", ["another user", "open to all"])
def test_a_numba_cache_dir_others_can_write_is_not_loaded(tmp_path, owner):
    if owner == "another user" and not IS_ROOT:
        pytest.skip("giving a folder to another user needs root")
    site = _copy_package(tmp_path)
    shared = tmp_path / "shared"
    marker = tmp_path / "planted-code-ran"
    _plant(shared, site, marker)
    if owner == "another user":
        for folder in (shared, *shared.iterdir()):
            os.chown(folder, NOBODY, NOBODY)
    else:
        shared.chmod(0o777)
    result, stderr = _run(site, tmp_path, NUMBA_CACHE_DIR=str(shared))
    assert not marker.exists(), f"loaded compiled code from a folder of {owner}"
    reason = "belongs to another user" if owner == "another user" else "writable by other users"
    assert f"not using NUMBA_CACHE_DIR='{shared}'" in stderr and reason in stderr, stderr
    assert result["cache_path"] == str(site / "quercus" / "__pycache__")


def test_a_relative_xdg_cache_home_is_ignored(tmp_path):
    """A read-only install caches per user: in ``~/.cache``, not in a relative
    ``$XDG_CACHE_HOME`` under the current folder."""
    site = _copy_package(tmp_path)
    marker = tmp_path / "planted-code-ran"
    _plant(tmp_path / "work" / "cache" / "numba", site, marker)
    prefix = _another_users(site)
    result, stderr = _run(site, tmp_path, prefix, XDG_CACHE_HOME="cache")
    assert not marker.exists(), "loaded compiled code from a relative XDG_CACHE_HOME"
    assert "XDG_CACHE_HOME='cache' is a relative path" in stderr
    assert result["cache_path"].startswith(str(tmp_path / "home" / ".cache" / "numba"))
    assert result["misses"] == 1


def test_another_user_loads_the_kernels_cached_beside_the_package(tmp_path):
    """An install made by root: its ``__pycache__`` is root's, and the kernels cached there
    load for another user (they were compiled again, about a minute at a first fit)."""
    import numpy as np

    mix64(np.uint64(1))  # in the cache beside the package, copied with it
    site = _copy_package(tmp_path, with_cache=True)
    prefix = _another_users(site)
    result, stderr = _run(site, tmp_path, prefix, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert (result["hits"], result["misses"]) == (1, 0), stderr
    assert not list((tmp_path / "cache").rglob("*.nb[ic]")), "cached again per user"
    assert "quercus:" not in stderr, stderr


def test_without_a_writable_folder_kernels_compile_in_memory(tmp_path):
    """No folder to keep the kernels in (a read-only install, a home that cannot be made):
    quercus works, says why it compiles again, and writes nothing. (Numba alone could not
    define a kernel, "no locator available", or, with an empty ``XDG_CACHE_HOME``, cached
    it in ``./numba``.)"""
    site = _copy_package(tmp_path)
    prefix = _another_users(site)
    home = site / "quercus" / "no-home"  # in the read-only package: cannot be made
    result, stderr = _run(site, tmp_path, prefix, XDG_CACHE_HOME="", HOME=str(home))
    assert (result["hits"], result["misses"]) == (0, 1)
    assert _kernel_cache.NOT_KEPT in stderr
    assert not home.exists()
    assert not (tmp_path / "work" / "numba").exists()  # Numba's folder for an empty XDG_CACHE_HOME


def test_a_folder_others_can_write_is_a_problem(tmp_path):
    top = tmp_path / "cache"
    (top / "kernels").mkdir(parents=True)
    assert folder_problem(str(top / "kernels"), str(top)) is None
    top.chmod(0o777)
    assert "writable by other users" in folder_problem(str(top / "kernels"), str(top))
    # The sticky bit excuses a folder above the cache (/tmp), not the cache itself.
    top.chmod(0o1777)
    assert "writable by other users" in folder_problem(str(top / "kernels"), str(top))
    assert folder_problem(str(top / "kernels"), str(top / "kernels")) is None
    top.chmod(0o755)


@pytest.mark.skipif(not IS_ROOT, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_a_problem(tmp_path):
    top = tmp_path / "cache"
    (top / "kernels").mkdir(parents=True)
    os.chown(top, NOBODY, NOBODY)
    problem = folder_problem(str(top / "kernels"), str(top))
    assert problem == f"{top} belongs to another user (nobody)"


def test_no_cache_folder_is_relative(tmp_path, monkeypatch):
    """Whatever the environment says, every folder a kernel's cache is read from or written
    to is an absolute path outside the current folder."""
    source = tmp_path / "pkg"
    source.mkdir()
    monkeypatch.chdir(tmp_path)
    # Names of this test's own: quercus warns once per process about each.
    relative_cache, relative_xdg = f"cache-{tmp_path.name}", f"xdg-{tmp_path.name}"
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", relative_cache)
    monkeypatch.setenv("XDG_CACHE_HOME", relative_xdg)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.warns(UserWarning, match=f"NUMBA_CACHE_DIR='{relative_cache}' is a relative path"):
        read_only, writable = cache_folders(str(source))
    assert read_only == () and writable == str(source / "__pycache__")
    # A __pycache__ open to all is refused too: the per-user cache is used, not ./xdg-...
    (source / "__pycache__").chmod(0o777)
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", "")  # another key of the memo
    with pytest.warns(UserWarning) as warned:
        read_only, writable = cache_folders(str(source))
    messages = " | ".join(str(w.message) for w in warned)
    assert f"XDG_CACHE_HOME='{relative_xdg}' is a relative path" in messages
    assert f"not using {source / '__pycache__'}" in messages
    assert read_only == ()
    assert writable.startswith(str(tmp_path / "home" / ".cache" / "numba" / "pkg_"))


def test_a_kernel_is_compiled_again_when_a_source_it_reads_changes(tmp_path):
    """A kernel's compiled code holds the kernels it calls (inlined) and the constants it
    reads: its cache entry's stamp covers every kernel module of the package and the
    modules they import, not only its own file (else a ``git pull`` that changed another
    file left it running the old code)."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "_config.py": "def njit(f):\n    return f\n",
        "sub/kernel.py": "from .._config import njit\nfrom ..tables import WIDTH\n",
        "tables.py": "WIDTH = 32\n",
        "report.py": "TITLE = 'a page'\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)

    def digest() -> bytes:
        _kernel_cache.kernel_sources_digest.cache_clear()
        return _kernel_cache.kernel_sources_digest(str(package))

    first = digest()
    (package / "report.py").write_text("TITLE = 'another page'\n")  # no kernel reads it
    assert digest() == first
    (package / "tables.py").write_text("WIDTH = 64\n")  # a constant a kernel reads
    second = digest()
    assert second != first
    (package / "sub/kernel.py").write_text(files["sub/kernel.py"] + "# a kernel changed\n")
    assert digest() not in (first, second)
    _kernel_cache.kernel_sources_digest.cache_clear()
    stamp = _kernel_cache._FolderLocator(
        quercus.DecisionTreeClassifier.fit, __file__, str(tmp_path)
    )
    assert stamp.get_source_stamp()[1] == _kernel_cache.kernel_sources_digest(str(PACKAGE))


def test_an_index_naming_a_module_that_is_gone_is_a_miss(tmp_path, monkeypatch):
    """A kernel's cache index pickles its entries' signatures, which name the classes of the
    kernel's arguments; after a module moved, such an index cannot be read back. It is a
    stale index (a miss, compiled again), not an error of the fit."""
    module = tmp_path / "gone_module.py"
    module.write_text("class Gone:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import gone_module

    (tmp_path / "cache").mkdir()
    store = _kernel_cache._FolderCache(
        mix64.py_func, mix64.py_func.__code__.co_filename, str(tmp_path / "cache")
    )
    index = store._cache_file
    index._save_index({(gone_module.Gone(), "machine"): "entry"})
    assert len(index._load_index()) == 1
    monkeypatch.delitem(sys.modules, "gone_module")
    module.unlink()
    assert index._load_index() == {}
