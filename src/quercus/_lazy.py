"""Packages whose public names are imported on first use (PEP 562's module ``__getattr__``).

A subpackage's ``__init__`` that imports every submodule makes a light submodule as heavy
as the heaviest: importing ``quercus.pruning.c45rules`` would compile-load the pruning
kernels with Numba, ``quercus.estimators.params`` would import scikit-learn. With the names
resolved on first use, a submodule costs only its own imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_names(package: str, exports: dict[str, str]) -> tuple[Callable, Callable]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose public names ``exports`` maps
    to the submodule (relative to the package) that defines each."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{exports[name]}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
