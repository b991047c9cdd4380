"""The Dask cluster of ``quercus fit --dask ADDRESS``: Dask imported (or how to install it),
and a client of the scheduler at ``ADDRESS``, or of a cluster of worker processes started
here for the command (``local`` / ``local:N``) and closed after it."""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager

from .options import DaskAddress, UsageError
from .progress import Progress

_INSTALL = 'fitting on a Dask cluster (--dask) needs Dask: pip install "quercus[dask]"'


def import_dask():
    """The module of the Dask estimators (:mod:`quercus.distributed.estimators`), importing
    Dask; a RuntimeError saying how to install it when it is absent."""
    try:
        import dask.dataframe  # noqa: F401

        import distributed  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"{_INSTALL} ({exc})") from None
    from ..distributed import estimators

    return estimators


@contextmanager
def cluster(address: DaskAddress, progress: Progress, timeout: float):
    """A ``distributed.Client`` of the scheduler at ``address`` (a :class:`UsageError` when
    it is not an address, a ``ConnectionError`` when no scheduler answers there within
    ``timeout`` seconds), or of a local cluster started for the block and closed after it."""
    import distributed

    if address.scheduler is None:
        n_workers = address.n_workers or os.cpu_count() or 1
        progress.update(f"fit: starting a local Dask cluster of {n_workers} worker processes")
        with (
            distributed.LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                # Port 0: no clash with a cluster already running here (the scheduler's
                # HTTP server would otherwise take 8787, or warn that it cannot).
                dashboard_address="127.0.0.1:0",
                # A task's error reaches the command's one line; workers do not log it too.
                silence_logs=logging.CRITICAL,
            ) as local,
            distributed.Client(local, set_as_default=False) as client,
        ):
            yield client
        return
    progress.update(f"fit: connecting to the Dask scheduler at {address}")
    try:
        client = distributed.Client(address.scheduler, timeout=timeout, set_as_default=False)
    except ValueError as exc:  # not an address at all (no port, an unknown protocol)
        raise UsageError(f"--dask {address}: {exc}") from None
    except OSError as exc:
        raise ConnectionError(
            f"--dask {address}: cannot reach a Dask scheduler there within {timeout} s "
            f"({exc}); is it running, and is the address right?"
        ) from None
    with client:
        yield client
