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
