"""``import quercus`` is cheap: the public names are imported on first use.

Checked by what a fresh process has imported (not by timing, which a shared machine blurs):
``import quercus`` alone loads neither pandas, scikit-learn, SciPy nor Numba; the names of
``quercus.__all__`` still resolve, to the objects their modules define.
"""

from __future__ import annotations

import json
import subprocess
import sys

import quercus

HEAVY = ("numba", "pandas", "scipy", "sklearn")


def _imported_after(code: str) -> set[str]:
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return {name.split(".")[0] for name in json.loads(proc.stdout.splitlines()[-1])}


def test_import_quercus_loads_no_heavy_dependency():
    assert not _imported_after("import quercus") & set(HEAVY)


def test_every_public_name_resolves():
    from quercus.estimators import C45Classifier
    from quercus.persist.loader import load

    assert set(quercus.__all__) == {*quercus._EXPORTS, "datasets", "export", "__version__"}
    for name in quercus.__all__:
        assert getattr(quercus, name) is not None
    assert quercus.C45Classifier is C45Classifier
    assert quercus.load is load
    assert quercus.datasets.load("playtennis").shape == (14, 5)


def test_the_model_file_reader_and_the_parameter_checks_need_no_scikit_learn():
    # Imported first and alone (the order quercus show imports them in), without the cycle
    # that once went through the estimators' package.
    for module in ("quercus.persist.model_file", "quercus.estimators.params"):
        assert not _imported_after(f"import {module}") & {"sklearn", "numba"}, module


def test_the_lazy_packages_resolve_their_names():
    import quercus.estimators
    import quercus.pruning
    from quercus.pruning.subtree import collapse

    assert quercus.pruning.collapse is collapse
    assert set(quercus.estimators.__all__) == set(quercus.estimators._EXPORTS)
    assert set(quercus.pruning.__all__) == set(quercus.pruning._EXPORTS)
    for package in (quercus.estimators, quercus.pruning):
        assert all(getattr(package, name) is not None for name in package.__all__)
        assert set(package.__all__) <= set(dir(package))


def test_dir_lists_the_public_names_only():
    # A fresh process: dir(quercus) is __all__, not the names the module works with.
    code = "import json, quercus\nprint(json.dumps(dir(quercus)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == sorted(quercus.__all__)
    # Here, where subpackages are imported: those join them, nothing private.
    from quercus import estimators  # noqa: F401

    listed = set(dir(quercus))
    assert set(quercus.__all__) | {"estimators"} <= listed
    assert not listed & {"TYPE_CHECKING", "annotations", "importlib", "_EXPORTS", "__getattr__"}
    for name in listed - set(quercus.__all__):
        assert getattr(quercus, name).__name__ == f"quercus.{name}"  # a subpackage
