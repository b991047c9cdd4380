"""The wheel carries quercus's compiled kernels.

The metadata is in ``pyproject.toml``; this file only extends setuptools' ``build_py``.
After copying the sources into the build folder, it runs ``quercus warm`` there: Numba
compiles every kernel a user's models need (trees, forests, oblique and look-ahead splits,
model trees, rules, small and large data) and keeps them in its cache beside the sources
(``__pycache__/*.nbi`` and ``*.nbc``), which the wheel then holds. Numba finds a cache entry
by a hash of its source file's content, its own version, and the machine's CPU, so a wheel
installed on the machine that built it (``pip install .``, or a source distribution) fits
its first model of every kind without compiling. Where one of them differs (a newer Numba,
another CPU), the kernels compile at first use as without the cache, and the command line
says so. An editable install (``pip install -e .``) builds nothing here. Setting
``QUERCUS_BUILD_KERNELS=0`` skips the compilation (a wheel that compiles at first use).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    """``build_py``, then the kernels compiled into the build folder's Numba cache."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or not compiles_kernels():
            return
        compile_kernels(Path(self.build_lib).resolve())


def compile_kernels(build_lib: Path) -> None:
    """Run ``quercus warm`` on the package in ``build_lib``, its cache kept there."""
    for stale in (build_lib / "quercus").rglob("*.nb[ic]"):  # from an earlier build
        stale.unlink()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(build_lib), PYTHONDONTWRITEBYTECODE="1")
    print("quercus: compiling the kernels into the wheel (a few minutes, once)", file=sys.stderr)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "quercus", "warm"], cwd=build_lib, env=env)
    if done.returncode != 0:
        raise SystemExit(
            f"quercus: compiling the kernels failed (exit {done.returncode}); set "
            "QUERCUS_BUILD_KERNELS=0 to build a wheel that compiles them at first use"
        )
    entries = len(list((build_lib / "quercus").rglob("*.nbc")))
    print(
        f"quercus: {entries} compiled kernels in {time.perf_counter() - began:.0f} s",
        file=sys.stderr,
    )


def compiles_kernels() -> bool:
    """Whether a wheel's build compiles the kernels (``QUERCUS_BUILD_KERNELS`` is not 0)."""
    return os.environ.get("QUERCUS_BUILD_KERNELS", "1") != "0"


class KernelsDistribution(Distribution):
    """A wheel with compiled kernels holds machine code for one Python and platform: its
    tag says so (``cp311-cp311-linux_x86_64``, not ``py3-none-any``)."""

    def has_ext_modules(self) -> bool:
        return compiles_kernels()


setup(cmdclass={"build_py": BuildWithKernels}, distclass=KernelsDistribution)
