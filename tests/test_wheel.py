"""A wheel built from this checkout carries the compiled kernels (``setup.py``): installed
into a fresh virtual environment, on a PATH without a C compiler, the first fit of every
kind of model compiles nothing, and the command line's first fit says nothing of compiling.

Slow: building the wheel compiles every kernel (minutes), and the environment installs
quercus's dependencies from the package index (or pip's cache). The seconds of those first
fits are measured by ``bench/compile_time.py --wheel``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIRST_FITS = REPO / "bench" / "first_fits.py"

pytestmark = pytest.mark.slow


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, **kwargs)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a fresh venv holding the wheel built here, the wheel's path)."""
    folder = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    _run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-w", str(folder)], env=env)
    (wheel,) = folder.glob("quercus-*.whl")
    venv.create(folder / "venv", with_pip=True)
    python = folder / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], env=env)
    return python, wheel


def _without_compiler(python: Path, home: Path) -> dict:
    """An environment whose PATH holds only the venv's scripts (no cc, gcc or make)."""
    return {"PATH": str(python.parent), "HOME": str(home), "LANG": "C.UTF-8"}


def test_the_wheel_says_it_holds_machine_code(installed):
    _, wheel = installed
    assert "-none-any" not in wheel.name  # a platform tag: its kernels are for one CPU kind


def test_first_fits_of_every_kind_compile_nothing(installed, tmp_path):
    python, _ = installed
    done = _run(
        [str(python), str(FIRST_FITS)], env=_without_compiler(python, tmp_path), cwd=tmp_path
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result["fits"]) == {"tree", "forest", "oblique", "lookahead", "model_tree", "rules"}
    compiled = {
        kind: [k for k in names if "quercus" in k] for kind, names in result["compiled"].items()
    }
    assert compiled == {kind: [] for kind in result["fits"]}
    assert all(names == [] for names in result["compiled"].values()), result["compiled"]


def test_the_command_lines_first_fit_says_nothing_of_compiling(installed, tmp_path):
    python, _ = installed
    rows = ["age,colour,buys"] + [
        f"{20 + i % 50},{('red', 'blue', 'green')[i % 3]},{'yes' if i % 7 < 3 else 'no'}"
        for i in range(1000)
    ]
    (tmp_path / "shop.csv").write_text("\n".join(rows) + "\n")
    done = _run(
        [str(python.parent / "quercus"), "fit", "shop.csv"],
        env=_without_compiler(python, tmp_path),
        cwd=tmp_path,
    )
    assert "compiling" not in done.stderr, done.stderr
    assert "training accuracy" in done.stdout
