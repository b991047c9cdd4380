"""Calling Numba's parallel kernels safely from several Python threads at once.

Numba runs a ``parallel=True`` kernel on its threading layer: TBB or OpenMP, which accept
launches from several threads at once, or ``workqueue``, its fallback where neither loads,
which aborts the whole process when two threads launch at the same time. Which layer loaded
is known only after a first launch, so launches are serialised until then, and afterwards
only when the layer is ``workqueue``. Each launch still uses every core.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

_LOCK = threading.Lock()
_CONCURRENT = False  # whether the loaded layer takes launches from several threads

#: Below this much work (rows, or rows x trees) a parallel kernel runs on one thread. A
#: launch on several threads costs tens of microseconds on a quiet machine and, with the
#: cores busy, milliseconds (OpenMP's threads wait for each other): more than binning or
#: routing 1,000 rows takes on one thread (about 10 microseconds).
PARALLEL_MIN_WORK = 20_000


def run_parallel(kernel, *args, work: int | None = None):
    """``kernel(*args)``, holding a process-wide lock unless the threading layer is known
    to take concurrent launches; on one thread when ``work`` (default: the length of the
    first argument, the rows) is under :data:`PARALLEL_MIN_WORK`."""
    if (len(args[0]) if work is None else work) < PARALLEL_MIN_WORK:
        return _one_thread(kernel, args)
    return _launch(kernel, args)


def _launch(kernel, args):
    global _CONCURRENT
    if _CONCURRENT:
        return kernel(*args)
    with _LOCK:
        result = kernel(*args)
        _CONCURRENT = numba.threading_layer() in ("tbb", "omp")
    return result


def _one_thread(kernel, args):
    """``kernel(*args)`` with Numba's thread count of this thread set to 1 meanwhile."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return _launch(kernel, args)
    finally:
        numba.set_num_threads(threads)


_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def thread_pool(n_threads: int) -> ThreadPoolExecutor:
    """A pool of ``n_threads`` threads kept for the process, made at its first use: a
    booster asks for its threads twice an iteration, and starting them each time started
    two hundred threads in a 100-iteration fit. Its tasks must not wait for other tasks of
    the pool (several callers share it; each waits only for its own tasks)."""
    n_threads = max(1, int(n_threads))
    with _POOLS_LOCK:
        pool = _POOLS.get(n_threads)
        if pool is None:
            pool = _POOLS[n_threads] = ThreadPoolExecutor(n_threads, "quercus")
        return pool


def _forget_pools() -> None:
    """In a forked child the pools' threads are gone: make new ones there."""
    _POOLS.clear()


os.register_at_fork(after_in_child=_forget_pools)


def n_threads(n_jobs) -> int:
    """Threads for ``n_jobs`` as scikit-learn reads it: None one, -1 every core, -2 all
    but one, a positive number that many."""
    if n_jobs is None:
        return 1
    cores = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))
