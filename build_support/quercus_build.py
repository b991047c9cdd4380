"""quercus's build backend: setuptools', with quercus's own dependencies added to what a
wheel's build needs.

Building a wheel compiles quercus's Numba kernels into it (``setup.py``), so the build
must import quercus: it needs NumPy, Numba, pandas, scikit-learn and the rest of
``[project] dependencies``, read here from ``pyproject.toml`` so that they are listed
once. An editable install compiles nothing at build time and needs setuptools only.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import (  # noqa: F401  (the hooks quercus leaves to setuptools)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pyproject.toml's build-system requires tomli there
    import tomli as tomllib


def runtime_dependencies(pyproject: Path = Path("pyproject.toml")) -> list[str]:
    """The requirements of ``[project] dependencies``."""
    with open(pyproject, "rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    """setuptools' requirements and quercus's dependencies (the build runs quercus)."""
    return build_meta.get_requires_for_build_wheel(config_settings) + runtime_dependencies()
