"""One quercus row of the compare part on Dask in a process of its own (bench/dask_fit.py with
--baseline): the parent runs ``dask_fit.py --dask-cell SPEC`` with ``PYTHONPATH=<tree>/src``
first (bench/baseline.py) and reads back the JSON line the child prints.

Why a process: the client and the workers must import the same quercus (the client sends the
workers its tasks by reference to quercus's modules), and one process imports one quercus. The
child starts its own LocalCluster, whose nannies start the workers with multiprocessing's
"spawn" from the child's environment and ``sys.path``: the baseline's PYTHONPATH comes first
there too. The row is fitted by the same code as the in-process rows (dask_cluster_fit.py: a
fresh LocalCluster, quercus's kernels warmed up on it, memory marks, time limit, predict); the
child reports the quercus its client and each of its workers imported, and the parent checks
them. The protocol is in bench/dask_protocol.md."""

import json
import os
import signal
import subprocess
import sys
from types import SimpleNamespace

import baseline
import numpy as np
from dask_cluster import RESTART_TIMEOUT_S, SETUP_TIMEOUT_S
from dask_local import ENTRY

# Beyond the fit's and the predict's time limits and the warm-up's, for starting the
# interpreter, the imports, the cluster and its restarts, before the parent kills a cell.
CELL_MARGIN_S = 300.0 + 4 * RESTART_TIMEOUT_S


# ----------------------------------------------------------------------------- child


def worker_quercus_file():
    """Run on a worker: the file of the quercus it imports."""
    import quercus

    return quercus.__file__


def level_record(level):
    """What the tables read of one of ``levels_`` (a quercus LevelCost), as JSON."""
    return {
        "nodes": int(getattr(level, "nodes", 0)),
        "histogram_bytes": int(getattr(level, "histogram_bytes", 0)),
    }


def run_dask_cell(spec):
    """Fit (and predict with) the compare part's quercus Dask row ``spec["label"]`` on a
    LocalCluster of this process; print the result as one JSON line."""
    import dask.dataframe as dd
    from dask_cluster import COMPARE_WORKERS, WORKER_MEMORY, Cluster
    from dask_cluster_fit import fit_on_cluster
    from dask_compare import compare_models
    from dask_data import FEATURES, TARGET, read_parquet_files

    import quercus
    import quercus.dask as qdask

    tree_rows, forest_rows = compare_models(
        qdask, None, None, spec["n_train"], spec["trees"], spec["depth"]
    )
    makers = {label: make for label, kind, make in [*tree_rows, *forest_rows] if kind == "quercus"}
    make = makers[spec["label"]]
    test = read_parquet_files([spec["test"]])
    y_test = np.asarray(test.pop(TARGET).to_numpy(), dtype=np.int64)
    test_frame = test[FEATURES]
    del test
    cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
    try:
        frame = dd.read_parquet(spec["train_dir"])
        X, y = frame[FEATURES], frame[TARGET]
        result = fit_on_cluster(
            cluster,
            "quercus",
            make,
            X,
            y,
            spec["timeout"],
            (test_frame, y_test),
            quercus_forest="Forest" in spec["label"],
        )
        try:
            workers = cluster.client.run(worker_quercus_file)
        except Exception as exc:
            workers = {}
            result["workers_quercus_error"] = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        cluster.close()
    y_pred = result.pop("y_pred", None)
    if y_pred is not None:
        np.save(spec["save_predictions"], np.asarray(y_pred))
    result["levels"] = [level_record(level) for level in result.get("levels", [])]
    result["quercus_file"] = quercus.__file__
    result["worker_quercus_files"] = sorted(set(workers.values()))
    print(json.dumps(result), flush=True)


# ---------------------------------------------------------------------------- parent


def dask_cell_in_subprocess(spec, timeout, source):
    """Run one quercus Dask row in a fresh interpreter whose quercus (and its cluster's) is
    ``source``'s (a baseline.Source): its result, as fit_on_cluster gives it, or {"error": ...}.
    The child's stderr (its progress, its workers' output) goes to this process's stderr."""
    cmd = [sys.executable, ENTRY, "--dask-cell", json.dumps(spec)]
    limit = SETUP_TIMEOUT_S + 2 * timeout + CELL_MARGIN_S
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        text=True,
        env=baseline.child_env(source),
        start_new_session=True,  # its own process group: the cluster's processes end with it
    )
    try:
        stdout, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"the cell's process ran over {limit:g} s"}
    except BaseException:  # e.g. Ctrl-C: do not leave the cell's cluster running
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": f"the cell's process failed (exit code {proc.returncode}; see stderr)"}
    result = json.loads(lines[-1])
    wrong = wrong_quercus(source, result)
    if wrong:
        return {"error": wrong}
    result["levels"] = [SimpleNamespace(**level) for level in result["levels"]]
    if "predict_s" in result:
        result["y_pred"] = np.load(spec["save_predictions"])
    return result


def wrong_quercus(source, result):
    """None if the cell's client and every one of its workers imported ``source``'s quercus,
    else what went wrong (a baseline must not silently run the current code)."""
    if source.src is None:
        return None
    wrong = baseline.imported_from(source, result.get("quercus_file") or "(not reported)")
    if wrong:
        return "client " + wrong
    workers = result.get("worker_quercus_files") or []
    if not workers:
        if "error" in result:  # nothing was measured: keep the reason of the failure
            return None
        why = result.get("workers_quercus_error", "no worker answered")
        return f"the workers' quercus not known ({why})"
    for path in workers:
        wrong = baseline.imported_from(source, path)
        if wrong:
            return "a worker " + wrong
    return None
