"""A read-only install caches its compiled kernels per user, and a second process loads them.

quercus compiles its kernels with Numba's ``cache=True`` (``quercus._config.njit``). Numba
writes the cache next to the source (``__pycache__``) when it can; an install the user cannot
write to (system site-packages, another user's environment) falls back to Numba's per-user
directory, ``$XDG_CACHE_HOME/numba`` (``~/.cache/numba``), keyed by the source's folder. This
test copies the package to a temporary folder, makes it read-only, and runs two processes
that each call one small kernel (``_counters.mix64``, compiled in about a second): the first
compiles and saves it under the temporary ``XDG_CACHE_HOME``, the second loads it.

Run as root, a read-only mode does not stop writes: the copy is then made immutable
(``chattr +i``, on file systems that have it; else the test skips).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import quercus

PACKAGE = Path(quercus.__file__).parent

CHILD = """
import json, sys
import numpy as np
import quercus
assert quercus.__file__.startswith(sys.argv[1]), quercus.__file__
from quercus._counters import mix64
mix64(np.uint64(1))
print(json.dumps({"hits": sum(mix64.stats.cache_hits.values()),
                  "misses": sum(mix64.stats.cache_misses.values())}))
"""


def _read_only(path: Path) -> None:
    """Make ``path`` read-only for this user (immutable for root), or skip the test."""
    for folder, _, files in os.walk(path):
        for name in files:
            os.chmod(Path(folder, name), 0o444)
        os.chmod(folder, 0o555)
    if os.geteuid() == 0:
        proc = subprocess.run(["chattr", "-R", "+i", str(path)], capture_output=True)
        if proc.returncode != 0:
            _writable(path)
            pytest.skip("running as root where chattr +i is not available")


def _writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "-i", str(path)], capture_output=True)
    for folder, _, _ in os.walk(path):
        os.chmod(folder, 0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_read_only_install_caches_kernels_per_user(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "quercus", ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    _read_only(site)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("NUMBA_", "PY"))}
    env.update(PYTHONPATH=str(site), HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
    runs = []
    try:
        for _ in range(2):
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(site)],
                env=env,
                cwd=home,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert proc.returncode == 0, proc.stderr
            runs.append(json.loads(proc.stdout.splitlines()[-1]))
    finally:
        _writable(site)
    assert not list(site.rglob("*.nbi")), "wrote into the read-only install"
    assert runs[0] == {"hits": 0, "misses": 1}
    assert runs[1] == {"hits": 1, "misses": 0}, "the second process compiled again"
    index = list((home / "cache" / "numba").rglob("_counters.mix64-*.nbi"))
    assert index, "no cache index under $XDG_CACHE_HOME/numba"


LIGHT_LOAD = """
import json
import numba
import numpy as np
from numba.core import base

refreshed = []
plain_refresh = base.BaseContext.refresh


def counting_refresh(self):
    refreshed.append(True)
    return plain_refresh(self)


base.BaseContext.refresh = counting_refresh
import quercus

tennis = quercus.datasets.load("playtennis")
X, y = tennis.iloc[:, :-1], tennis.iloc[:, -1]
predicted = quercus.ID3Classifier().fit(X, y).predict(X).tolist()
loaded_without_refresh = not refreshed


@numba.njit
def doubled(a):  # compiled after the cached loads: the context is refreshed then
    return np.zeros(3) + 2 * a


print(json.dumps({"predicted": predicted, "actual": y.tolist(),
                  "loaded_without_refresh": loaded_without_refresh,
                  "compiled_after": doubled(1.0).tolist()}))
"""


def test_cached_kernels_load_without_the_compilers_tables():
    """A first fit whose kernels are all cached loads them without refreshing Numba's
    target context (its typing and lowering tables, most of a new process's first fit),
    predicts as fitted, and a kernel compiled afterwards in the same process still works."""
    quercus.ID3Classifier().fit(*_tennis())  # the kernels in the cache
    done = subprocess.run(
        [sys.executable, "-c", LIGHT_LOAD], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded_without_refresh"]
    assert result["predicted"] == result["actual"]
    assert result["compiled_after"] == [2.0, 2.0, 2.0]


def _tennis():
    tennis = quercus.datasets.load("playtennis")
    return tennis.iloc[:, :-1], tennis.iloc[:, -1]
