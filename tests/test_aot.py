"""The grower built ahead of time (``quercus.aot``): found only for its own sources and
argument types, and growing the very trees of Numba's JIT grower.

The build needs a C compiler and Python's headers; without them the build test skips, and
fits use the JIT (checked too: the build then says why it cannot run)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import quercus
from _compile_events import COUNT_COMPILATIONS
from quercus import aot
from quercus.aot_build import SMALL_DATA_CODES, AheadOfTimeUnavailable, build, grower_signatures

HAS_COMPILER = shutil.which("cc") is not None or shutil.which("gcc") is not None


def test_the_key_follows_the_sources(tmp_path):
    package = tmp_path / "quercus"
    package.mkdir()
    kernel = package / "kernel.py"
    kernel.write_text("x = 1\n")
    before = aot.source_key([kernel])
    assert aot.source_key([kernel]) == before  # the same sources, the same build
    kernel.write_text("x = 2\n")
    assert aot.source_key([kernel]) != before  # an edited kernel, another build
    assert aot.module_name(before) == f"quercus_grower_{before}"


def test_without_a_build_the_jit_grows(tmp_path, monkeypatch):
    monkeypatch.setenv("QUERCUS_AOT_DIR", str(tmp_path))
    aot._built_growers.cache_clear()
    try:
        jit = object()
        assert aot.built_module() is None
        assert aot.grower_for(jit, np.zeros((2, 8), np.uint16)) is jit
    finally:
        aot._built_growers.cache_clear()


def test_the_signatures_cover_every_dtype_of_bin_codes():
    codes = sorted(str(types[0].types[0].dtype) for types in grower_signatures())
    assert codes == ["uint16", "uint32", "uint8"]


def test_a_build_without_python_headers_says_why_before_compiling(tmp_path, monkeypatch):
    import sysconfig

    monkeypatch.setenv("QUERCUS_AOT_DIR", str(tmp_path))
    paths = {**sysconfig.get_paths(), "include": str(tmp_path / "no-headers")}
    monkeypatch.setattr(sysconfig, "get_paths", lambda *args, **kwargs: paths)
    if not HAS_COMPILER:
        pytest.skip("no C compiler: the build stops at that first")
    with pytest.raises(AheadOfTimeUnavailable, match="Python's headers are missing"):
        build(SMALL_DATA_CODES)
    assert not list(tmp_path.iterdir())  # nothing compiled, nothing written


def test_a_build_without_a_compiler_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("QUERCUS_AOT_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))  # no cc, no gcc
    monkeypatch.setenv("CC", "cc")
    with pytest.raises(AheadOfTimeUnavailable, match="no C compiler"):
        build(SMALL_DATA_CODES)
    assert not list(tmp_path.glob("quercus_grower_*"))


# In a new process with an empty Numba cache: fits whose bin codes are uint16, the trees'
# arrays as JSON, and the kernels Numba compiled.
FITS = COUNT_COMPILATIONS + textwrap.dedent(
    """
    import json, sys

    sys.path.insert(0, sys.argv[1])
    from aot_fits import fits

    print(json.dumps({"trees": fits(), "compiled": sorted(set(compiled))}))
    """
)

FIT_MODULE = textwrap.dedent(
    """
    import numpy as np
    import quercus


    def fits():
        tennis = quercus.datasets.load("playtennis")
        rng = np.random.default_rng(3)
        X = rng.normal(size=(30_000, 4))
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=len(X)) > 0).astype(int)
        models = [
            (quercus.ID3Classifier(), tennis.iloc[:, :-1], tennis.iloc[:, -1]),
            (quercus.C45Classifier(), tennis.iloc[:, :-1], tennis.iloc[:, -1]),
            (quercus.DecisionTreeClassifier(n_jobs=2), X, y),  # threads: subtrees as tasks
            (quercus.DecisionTreeRegressor(max_depth=8), X, X[:, 3] * 2 + y),
            (quercus.RandomForestClassifier(n_estimators=5, n_jobs=2, random_state=0), X, y),
        ]
        out = []
        for model, X_fit, y_fit in models:
            model.fit(X_fit, y_fit)
            trees = getattr(model, "estimators_", [model])
            out.append(
                [
                    {
                        "feature": t.tree_.feature.tolist(),
                        "threshold": np.nan_to_num(t.tree_.threshold, nan=-1.0).tolist(),
                        "value": t.tree_.value.tolist(),
                    }
                    for t in trees
                ]
            )
        return out
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler (cc or gcc) to build the grower")
def test_the_built_grower_grows_the_jit_trees_and_nothing_compiles_it(tmp_path):
    (tmp_path / "aot_fits.py").write_text(FIT_MODULE)
    built = tmp_path / "built"
    env = {**os.environ, "QUERCUS_AOT_DIR": str(built)}
    try:
        subprocess.run(
            [sys.executable, "-m", "quercus.aot_build", "--small"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except subprocess.CalledProcessError as exc:
        pytest.fail(exc.stdout + exc.stderr)
    if not list(built.glob("quercus_grower_*.json")):
        pytest.skip("the grower could not be built here (no Python headers?)")
    runs = {}
    for name, folder in (("aot", built), ("jit", tmp_path / "none")):
        cache = tmp_path / f"numba-{name}"
        result = subprocess.run(
            [sys.executable, "-c", FITS, str(tmp_path)],
            env={**os.environ, "QUERCUS_AOT_DIR": str(folder), "NUMBA_CACHE_DIR": str(cache)},
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert result.returncode == 0, result.stderr
        runs[name] = json.loads(result.stdout.splitlines()[-1])
    assert "grow_tree_in" not in runs["aot"]["compiled"]
    assert "grow_tree_in" in runs["jit"]["compiled"]  # the check can fail
    assert runs["aot"]["trees"] == runs["jit"]["trees"]


def test_the_first_use_notice_knows_a_build(tmp_path, monkeypatch):
    from quercus.warm import kernels_compiled

    monkeypatch.setenv("QUERCUS_AOT_DIR", str(tmp_path))
    name = aot.module_name()
    (tmp_path / f"{name}.json").write_text("{}")
    (tmp_path / f"{name}{aot.importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    assert kernels_compiled()
    assert quercus.aot.built_module() is not None
