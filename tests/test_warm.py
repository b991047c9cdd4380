"""`quercus.warm.compile_kernels`: after it, a new process's first fits compile nothing."""

import os
import subprocess
import sys
import textwrap

from _compile_events import COUNT_COMPILATIONS
from quercus.cli import main
from quercus.warm import compile_kernels, warm_steps

# A user's first fits in a new process, counting Numba's compilations (a kernel loaded
# from the cache is not compiled, and raises no event).
FIRST_FITS = COUNT_COMPILATIONS + textwrap.dedent(
    """
    import numpy as np
    import quercus

    tennis = quercus.datasets.load("playtennis")
    X, y = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    quercus.ID3Classifier().fit(X, y).predict(X)
    quercus.C45Classifier().fit(X, y).predict_proba(X)
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(500, 4))
    quercus.CARTClassifier().fit(Z, Z[:, 0] > 0).predict(Z)
    quercus.DecisionTreeRegressor().fit(Z, Z[:, 1]).predict(Z)
    quercus.RandomForestClassifier(n_estimators=5, random_state=0).fit(Z, Z[:, 0] > 0).predict(Z)
    big = rng.normal(size=(250_000, 2))
    quercus.DecisionTreeClassifier(max_depth=2).fit(big, big[:, 0] > 0).predict(big)
    print(sorted(set(compiled)))
    """
)


def test_after_compile_kernels_first_fits_compile_nothing():
    names = []
    seconds = compile_kernels(report=lambda name, s: names.append(name))
    assert names == [step.name for step in warm_steps()]
    assert seconds >= 0
    _assert_first_fits_compile_nothing()


def test_quercus_warm_reports_each_step(capsys):
    assert main(["warm"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.rsplit(": ", 1)[0] for line in lines[:-1]] == [s.name for s in warm_steps()]
    assert all(line.endswith(" s") for line in lines)
    assert lines[-1].startswith("kernels ready in ")


def _assert_first_fits_compile_nothing():
    out = subprocess.run(
        [sys.executable, "-c", FIRST_FITS], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_first_use_notice_appears_only_before_the_kernels_are_compiled(tmp_path):
    from quercus.warm import first_use_notice, kernels_compiled

    compile_kernels(steps=warm_steps(large=False)[:1])  # the grower, in the cache
    assert kernels_compiled() and first_use_notice() is None
    # A new process with an empty cache: the notice, and no compilation to find it out.
    check = "from quercus.warm import first_use_notice as f; print(f())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "compiling the kernels on first use" in result.stdout
    assert not list((tmp_path / "empty").rglob("*.nbc"))  # nothing was compiled


LATER_COMPILATION = """
import sys
import numpy as np
import quercus.warm as warm

warm.first_use_notice = lambda: None  # as when the grower is in the cache
from quercus._counters import mix64

with warm.announce_compiling(sys.stderr):
    mix64(np.uint64(1))  # compiled: the cache folder is empty
with warm.announce_compiling(sys.stderr):  # once per process
    mix64(np.int64(1))
sys.stderr.close()  # the stream is not written to once its block has ended
mix64(np.uint32(1))  # compiled outside a block: nothing is written
print("fitted")
"""


def test_a_later_compilation_is_announced_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    result = subprocess.run(
        [sys.executable, "-c", LATER_COMPILATION],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    from quercus.warm import LATER_COMPILE_NOTICE

    assert result.stderr.count(LATER_COMPILE_NOTICE) == 1, result.stderr
    assert result.stdout.strip() == "fitted"


def test_nothing_is_announced_when_nothing_compiles(tmp_path):
    compile_kernels(steps=warm_steps(large=False)[:1])
    check = (
        "import sys, quercus, quercus.warm as w; t = quercus.datasets.load('playtennis')\n"
        "with w.announce_compiling(sys.stderr):\n"
        "    quercus.ID3Classifier().fit(t.iloc[:, :-1], t.iloc[:, -1])"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "compiling" not in result.stderr, result.stderr
