"""The Dask clusters of bench/dask_fit.py: a LocalCluster of one-thread worker processes and
its Client, replaced by fresh workers before every row; the workers' memory marks (read
through ``client.run``); the time limit of a fit and why a fit failed. The protocol is in
bench/dask_protocol.md."""

import gc
import logging
import os
import signal
import sys
import threading
import time

from dask_models import PEER_MODULES, quercus_dask_warmup
from dask_report import progress
from machine import proc_status_kb, reset_peak_rss

# The compare and scale parts' clusters (the workers part has its own sizes)
COMPARE_WORKERS = 2
WORKER_MEMORY = "2GiB"

SETUP_TIMEOUT_S = 600.0  # warming up quercus's kernels
RESTART_TIMEOUT_S = 60.0  # for the workers to come back after a restart

LOGGER_NAMES = ("distributed",)


# ---------------------------------------------------------------------- memory marks


def worker_reset():
    """Run on a worker: collect garbage, reset the peak-RSS mark; the RSS now (kB)."""
    gc.collect()
    return {"reset": reset_peak_rss(), "rss_kb": proc_status_kb("VmRSS")}


def worker_peak():
    """Run on a worker: its peak RSS (kB) since the last reset."""
    return proc_status_kb("VmHWM")


# ------------------------------------------------------------------------ the clusters


def worker_output_plugin():
    """A WorkerPlugin that points the worker process's stdout (file descriptor 1) at its
    stderr."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class StdoutToStderr(WorkerPlugin):
        def setup(self, worker):
            sys.stdout.flush()
            os.dup2(2, 1)

    return StdoutToStderr()


def preload(cluster, kind):
    import importlib

    for module in PEER_MODULES.get(kind, ()):
        cluster.client.run(importlib.import_module, module)


class LogCapture(logging.Handler):
    """Keeps the WARNING and ERROR messages of Dask's loggers (a nanny restarting a worker
    at its memory limit says so at WARNING)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(f"{record.name}: {record.getMessage()}")


class Cluster:
    """A LocalCluster of ``n_workers`` one-thread worker processes, its Client, what its
    loggers said, and whether quercus's kernels are warm on its current workers."""

    def __init__(self, n_workers, memory_limit):
        import dask

        dask.config.set(
            {
                "distributed.scheduler.allowed-failures": 0,
                # No squashing of Parquet partitions whose columns were projected away: it
                # would give y (1 column) fewer partitions than X (20), which LightGBM and
                # XGBoost refuse (LightGBM issue #6920); one partition per file for all.
                "optimization.tune.active": False,
            }
        )
        self.n_workers = n_workers
        self.memory_limit = memory_limit
        self.log = LogCapture()
        for name in LOGGER_NAMES:
            logging.getLogger(name).addHandler(self.log)
        self.warm = None  # the workers on which quercus's kernels are compiled
        self._start()

    def _start(self):
        from distributed import Client, LocalCluster

        progress(f"starting a LocalCluster of {self.n_workers} workers, {self.memory_limit} each")
        self.cluster = LocalCluster(
            n_workers=self.n_workers,
            threads_per_worker=1,
            memory_limit=self.memory_limit,
            processes=True,
            dashboard_address="127.0.0.1:0",
        )
        self.client = Client(self.cluster)
        self.client.wait_for_workers(self.n_workers, timeout=RESTART_TIMEOUT_S)
        self.fresh = True  # no row has run on these workers yet
        # What the workers print (LightGBM's C library logs to stdout) goes to stderr, so
        # that stdout holds only the tables; a plugin, so that new workers do it too.
        self.client.register_plugin(worker_output_plugin(), name="stdout-to-stderr")

    def _stop(self):
        for closing in (self.client, self.cluster):
            try:
                closing.close(timeout=RESTART_TIMEOUT_S)
            except Exception as exc:
                progress(f"closing {type(closing).__name__}: {exc!r}")

    def workers(self):
        return frozenset(self.client.scheduler_info()["workers"])

    def close(self):
        for name in LOGGER_NAMES:
            logging.getLogger(name).removeHandler(self.log)
        self._stop()

    def restart(self):
        """Fresh worker processes: the workers are killed (SIGKILL: a worker that ran LightGBM
        can take minutes to close, and `client.restart` then times out) and a new
        LocalCluster of the same configuration is started."""
        progress("fresh workers: a new LocalCluster")
        for nanny in list(self.cluster.workers.values()):
            try:
                if nanny.pid:
                    os.kill(nanny.pid, signal.SIGKILL)
            except (OSError, AttributeError):
                pass
        self._stop()
        self._start()

    def warm_up(self, forest):
        """Compile quercus's kernels on the client and on the current workers: the tree's,
        and the forest's too if ``forest``."""
        workers = self.workers()
        if self.warm is None or self.warm[0] != workers:
            self.warm = (workers, set())
        wanted = ["tree", "forest"] if forest else ["tree"]
        missing = [model for model in wanted if model not in self.warm[1]]
        if not missing:
            return
        progress(f"warming up quercus's kernels on the cluster ({', '.join(missing)})")
        start = time.perf_counter()
        for model in quercus_dask_warmup(self.client, missing):
            self.warm[1].add(model)
        progress(f"warm-up done in {time.perf_counter() - start:.1f} s")


def persisted_frame(client, frame_pd, n_parts=2):
    """A pandas frame as a Dask DataFrame of ``n_parts`` partitions held by the workers."""
    import dask.dataframe as dd

    from distributed import wait

    frame = client.persist(dd.from_pandas(frame_pd, npartitions=n_parts))
    wait(frame)
    return frame


# ------------------------------------------------------------------- time limit, failures


class Watchdog:
    """Restarts the workers if the block takes more than ``seconds``: the fit running in the
    block then fails, and ``fired`` says why."""

    def __init__(self, cluster, seconds):
        self.cluster = cluster
        self.seconds = seconds
        self.fired = False
        self.paused = False  # a worker was paused (memory over Dask's 80%) when time ran out
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True

    def _fire(self):
        self.fired = True
        progress(f"time limit of {self.seconds:g} s reached")
        try:
            workers = self.cluster.client.scheduler_info()["workers"].values()
            self.paused = any(str(w.get("status", "")).endswith("paused") for w in workers)
        except Exception:
            self.paused = False
        self.cluster.restart()

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        if self.fired:
            self.timer.join()
        return False


def failure_reason(cluster, exc, since, watchdog):
    said = cluster.log.messages[since:]
    if watchdog.fired:
        why = f" (a worker paused at 80% of its {cluster.memory_limit})" if watchdog.paused else ""
        return f"timeout after {watchdog.seconds:g} s{why}"
    killed = [m for m in said if "memory budget" in m]
    if killed:
        return f"worker killed at 95% of its {cluster.memory_limit} memory limit"
    died = [m for m in said if "died" in m or "KilledWorker" in m]
    if died or type(exc).__name__ == "KilledWorker":
        return "a worker died (" + type(exc).__name__ + ")"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:100]}"
