"""One Dask row of bench/dask_fit.py: a model of quercus, LightGBM or XGBoost fitted on fresh
workers of a cluster, timed, with the workers' and the client's rise of memory, and
optionally its predictions of the test rows. The protocol is in bench/dask_protocol.md."""

import contextlib
import gc
import sys
import time

import numpy as np
from dask_cluster import (
    SETUP_TIMEOUT_S,
    Watchdog,
    failure_reason,
    persisted_frame,
    preload,
    worker_peak,
    worker_reset,
)
from dask_models import count_leaves
from dask_report import mib, progress
from machine import proc_status_kb, reset_peak_rss


def fit_on_cluster(cluster, kind, make_est, X, y, timeout, test=None, quercus_forest=False):
    """Fit one Dask estimator on fresh workers of the cluster and time it; predict ``test`` =
    (X_test frame, y_test) if given. The result dict; "error" says why a fit failed."""
    # Fresh worker processes for every row: LightGBM and XGBoost keep much of what they
    # allocated (after XGBoost's tree of 200k rows a worker held 1.6 of its 2 GiB, past
    # Dask's 80% pause threshold), which would count against the next model, and a worker
    # that has fitted before starts from a larger RSS, which hides part of the next rise.
    if not cluster.fresh:
        cluster.restart()
    cluster.fresh = False
    preload(cluster, kind)
    since = len(cluster.log.messages)
    if kind == "quercus":
        with Watchdog(cluster, SETUP_TIMEOUT_S) as watchdog:
            try:
                cluster.warm_up(quercus_forest)
            except Exception as exc:
                error = "warm-up failed: " + failure_reason(cluster, exc, since, watchdog)
                progress(error)
                return {"error": error}
    client = cluster.client
    est = make_est(client)
    if kind == "xgboost":
        est.client = client
    gc.collect()
    before = client.run(worker_reset)
    client_reset = reset_peak_rss()
    client_before_kb = proc_status_kb("VmRSS")
    since = len(cluster.log.messages)
    result = {}
    with Watchdog(cluster, timeout) as watchdog:
        try:
            with contextlib.redirect_stdout(sys.stderr):  # lightgbm.dask prints its progress
                start = time.perf_counter()
                est.fit(X, y)
                result["fit_s"] = time.perf_counter() - start
        except Exception as exc:
            result["error"] = failure_reason(cluster, exc, since, watchdog)
    if "error" in result:
        progress(f"failed: {result['error']}")
        return result
    client_peak_kb = proc_status_kb("VmHWM")
    try:
        after = client.run(worker_peak)
        rises = {w: mib(after[w] - before[w]["rss_kb"]) for w in before if w in after}
    except Exception as exc:
        progress(f"worker peaks not read: {exc!r}")
        rises = {}
    result.update(
        worker_mib=rises,
        peak_reset=all(b["reset"] for b in before.values()) and client_reset,
        client_mib=max(0.0, mib(client_peak_kb - client_before_kb)),
        leaves=count_leaves(kind, est),
        levels=list(getattr(est, "levels_", []) or []),
        partitions=int(X.npartitions),
    )
    if test is not None:
        predict_on_cluster(cluster, kind, est, test, timeout, result)
    del est
    return result


def predict_on_cluster(cluster, kind, est, test, timeout, result):
    """Time the predictions of ``test`` = (X_test frame, y_test) by the fitted ``est``, the
    test rows persisted on the workers first; into ``result``: predict_s, accuracy and
    y_pred, or predict_error."""
    X_test, y_test = test
    # A peer predicts on fresh workers: after LightGBM's forest a worker still held 1.7
    # of its 2 GiB, was paused by Dask (80%) and never ran a prediction task.
    if kind != "quercus":
        cluster.restart()
        cluster.fresh = False
        preload(cluster, kind)
        est.client = cluster.client  # the new cluster's
    since = len(cluster.log.messages)
    with Watchdog(cluster, timeout) as watchdog:
        try:
            frame = persisted_frame(cluster.client, X_test)
            with contextlib.redirect_stdout(sys.stderr):
                start = time.perf_counter()
                y_pred = np.asarray(est.predict(frame).compute())
                result["predict_s"] = time.perf_counter() - start
            result["accuracy"] = float(np.mean(y_pred == y_test))
            result["y_pred"] = y_pred
            del frame
        except Exception as exc:
            result["predict_error"] = failure_reason(cluster, exc, since, watchdog)
            progress(f"predict failed: {result['predict_error']}")
