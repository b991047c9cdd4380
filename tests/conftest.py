"""Shared fixtures: where the data sets live, and a skip when one is absent.

The data sets the tests use are shipped in ``tests/datasets/`` (most gzip-compressed, see
its MANIFEST.md), so a plain clone runs them. The few large sets left out are looked up in
``$QUERCUS_DATASETS`` (default ``../shared/datasets``); a test needing one skips without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / "tests" / "datasets"
SHARED_DATASETS = Path(os.environ.get("QUERCUS_DATASETS", REPO.parent / "shared" / "datasets"))

# The shared data sets too large to ship (see tests/datasets/MANIFEST.md); a test that needs
# one skips unless QUERCUS_DATASETS holds it. Any other absent data set belongs in
# tests/datasets/ and gets a different skip reason.
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


def pytest_sessionstart(session):
    """Compile the Numba kernels once, in this process, before any test runs: with an empty
    cache (a fresh clone) compiling takes minutes on a small machine, which the tests that
    start ``quercus`` as a subprocess (with a time limit) must not pay themselves. With a
    warm cache this loads the kernels in about a second."""
    import numpy as np
    import pandas as pd

    import quercus

    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"x": rng.normal(size=60), "c": rng.choice(["a", "b", "c"], 60).astype(object)}
    )
    X.loc[::7, "x"] = np.nan
    y = np.where(X["x"].fillna(0) > 0, "p", "q")
    for tree in (quercus.ID3Classifier(), quercus.C45Classifier(), quercus.CARTClassifier()):
        tree.fit(X, y).predict_proba(X)
    quercus.CARTRegressor().fit(X, X["x"].fillna(0.0) * 2).predict(X)
    forest = quercus.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    forest.predict_proba(X)
