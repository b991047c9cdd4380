"""A real Dask cluster for the distributed tests: ``distributed.LocalCluster`` with two
worker processes of one thread, started once per test session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
