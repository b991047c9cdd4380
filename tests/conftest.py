"""Shared fixtures: where the data sets live, and a skip when one is absent.

The data sets the tests use are shipped in ``tests/datasets/`` (most gzip-compressed, see
its MANIFEST.md), so a plain clone runs them. The few large sets left out are looked up in
``$QUERCUS_DATASETS`` (default ``../shared/datasets``); a test needing one skips without it.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "tests" / "datasets"
SHARED_DATASETS = Path(os.environ.get("QUERCUS_DATASETS", REPO.parent / "shared" / "datasets"))

# The shared data sets too large to ship (see tests/datasets/MANIFEST.md); a test that needs
# one skips unless QUERCUS_DATASETS holds it. Any other absent data set belongs in
# tests/datasets/ and gets a different skip reason.
# Seconds the session fixture ``_compiled_kernels`` took, for the terminal summary.
_KERNELS_SECONDS = pytest.StashKey[float]()

LARGE_DATASETS = frozenset({"kddcup99_10pct.csv", "skin_segmentation.csv", "flights_nyc2013.csv"})


def _find(name: str) -> Path | None:
    for folder in (DATASETS, SHARED_DATASETS):
        for candidate in (folder / name, folder / (name + ".gz")):
            if candidate.is_file():
                return candidate
    return None


def shared_dataset(name: str) -> Path:
    """Path of a data set (``tests/datasets/``, else ``$QUERCUS_DATASETS``), or skip the test.

    ``name`` is the uncompressed file name (``iris.csv``); a gzip-compressed copy
    (``iris.csv.gz``) is found too, and quercus.read_table / pandas.read_csv read it as is.
    The skip reason depends only on ``name``, so ``pytest -ra`` groups the skips per data set.
    """
    path = _find(name)
    if path is None:
        if name.removesuffix(".gz") in LARGE_DATASETS:
            pytest.skip(
                f"large data set {name} is not shipped with the repository; set"
                f" QUERCUS_DATASETS=<folder holding {name}> (e.g. ../shared/datasets) to run"
                " this test"
            )
        pytest.skip(
            f"data set {name} is in neither tests/datasets/ nor QUERCUS_DATASETS"
            f" ({SHARED_DATASETS})"
        )
    return path


@pytest.fixture
def shared():
    """``shared(name)``: path of a data set, skipping the test when it is absent."""
    return shared_dataset


@pytest.fixture(autouse=True)
def _fresh_mixed_column_warnings():
    """Each test sees the warnings of a new process: quercus says once per process that a
    column mixes numbers and words, and tests must not depend on which ran first."""
    from quercus.data.schema import _MIXED_WARNED

    _MIXED_WARNED.clear()
    yield


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels(request):
    """Compile (or, with a warm cache, load) the Numba kernels once, before the first test.

    The time lands in this one fixture, charged to the first test's setup in
    ``--durations`` and printed in the summary ("quercus kernels ready in ... s"), instead of
    being spread over whichever tests first call each kernel. With an empty cache (a fresh
    clone) this takes minutes on a small machine, which the tests that start ``quercus`` as a
    subprocess with a time limit must not pay themselves; with a warm cache, about a second.
    The fits cover the kernels' argument types the suite uses: those of
    :func:`quercus.warm.compile_kernels` (nominal and numeric features, missing values,
    classification and regression, each pruning method, forests), and the level-wise grower.
    """
    import numpy as np
    import pandas as pd

    import quercus
    from quercus.warm import compile_kernels, warm_steps

    start = time.perf_counter()
    compile_kernels(steps=warm_steps(large=False))  # what a user's `quercus warm` compiles
    tennis = quercus.datasets.load("playtennis")
    X_tennis, y_tennis = tennis.iloc[:, :-1], tennis["PlayTennis"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"x": rng.normal(size=60), "c": rng.choice(["a", "b", "c"], 60).astype(object)}
    )
    X.loc[::7, "x"] = np.nan
    y = np.where(X["x"].fillna(0) > 0, "p", "q")
    y_value = X["x"].fillna(0.0) * 2
    # the level-wise grower (growth over a statistics provider), swapped in as its tests do
    from quercus.grow import grower, levelwise

    compiled_grower = grower.grow_tree
    grower.grow_tree = levelwise.grow_local
    try:
        quercus.ID3Classifier().fit(X_tennis, y_tennis)
        quercus.CARTClassifier().fit(X, y)
        quercus.CARTRegressor().fit(X, y_value)
    finally:
        grower.grow_tree = compiled_grower
    request.config.stash[_KERNELS_SECONDS] = time.perf_counter() - start
    yield


@pytest.fixture(scope="module")
def playtennis():
    """The lectures' PlayTennis table: ``(X, y)``."""
    import quercus

    df = quercus.datasets.load("playtennis")
    return df.iloc[:, :-1], df["PlayTennis"]


@pytest.fixture(scope="module")
def id3(playtennis):
    """ID3's tree of PlayTennis (the lectures' tree)."""
    import quercus

    return quercus.ID3Classifier().fit(*playtennis)


@pytest.fixture
def char_device(tmp_path):
    """``make(name, minor)``: a character device like /dev/null (minor 3) or /dev/full (7),
    made in ``tmp_path`` when running as root (so that a defect cannot replace the
    system's), else the system's (the test skips where it is missing or cannot be made)."""

    def make(name: str, minor: int) -> str:
        if not (hasattr(os, "geteuid") and os.geteuid() == 0):
            system = f"/dev/{name}"
            if not os.path.exists(system):
                pytest.skip(f"no {system} here")
            return system
        path = tmp_path / name
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        except OSError as exc:
            pytest.skip(f"cannot make a device node here: {exc}")
        return str(path)

    return make


@pytest.fixture(scope="session")
def dask_client():
    """A real Dask cluster for the tests of training on one (tests/distributed, the command
    line's --dask): ``distributed.LocalCluster`` with two worker processes of one thread,
    started once per test session."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            # any free port: the scheduler's HTTP server would otherwise take 8787, or warn
            # (an error here) when another cluster holds it
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def pytest_terminal_summary(terminalreporter, config):
    """One line with the time the kernels took to compile or load (see ``_compiled_kernels``)."""
    seconds = config.stash.get(_KERNELS_SECONDS, None)
    if seconds is not None:
        terminalreporter.write_line(
            f"quercus kernels ready in {seconds:.1f} s (session fixture _compiled_kernels;"
            " compiled with an empty Numba cache, loaded with a warm one)"
        )
