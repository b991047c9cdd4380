"""Shared fixtures: where the shared data sets live, and a skip when they do not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATASETS = Path(os.environ.get("QUERCUS_DATASETS", REPO.parent / "shared" / "datasets"))


def shared_dataset(name: str) -> Path:
    """Path of a data set in ../shared/datasets, or skip the test with the reason."""
    path = SHARED_DATASETS / name
    if not path.exists():
        pytest.skip(f"shared data set {name} not found under {SHARED_DATASETS}")
    return path


@pytest.fixture
def shared():
    """``shared(name)``: path of a shared data set, skipping the test when it is absent."""
    return shared_dataset
