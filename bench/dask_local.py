"""Local quercus in a process of its own (bench/dask_fit.py's rows "local quercus"): the
parent runs ``dask_fit.py --cell SPEC`` and reads back the JSON line the child prints; the
child reads the Parquet files, fits, predicts, and under a memory limit reports where it
failed. A cell may run the quercus of an older revision (``--baseline``: PYTHONPATH put first,
bench/baseline.py); it reports which quercus it imported and the parent checks it. The
protocol is in bench/dask_protocol.md."""

import gc
import json
import os
import resource
import sys
import time

import baseline
import numpy as np
from cells import last_error_line, run_json, stderr_tail
from dask_data import N_FEATURES, TARGET, read_parquet_files
from dask_models import count_leaves, local_forest, local_tree, quercus_local_warmup
from dask_report import mib
from machine import proc_status_kb, reset_peak_rss

# A local cell is a fresh interpreter running `dask_fit.py --cell SPEC`.
ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dask_fit.py")


# ----------------------------------------------------------------------------- child


def step(name):
    print(f"STEP {name}", flush=True)


def run_cell(spec):
    """Read, fit, predict one local model; print the result as one JSON line. Under
    ``limit_gib`` a failure is a result too: the step and the error."""
    state = {"step": "start"}
    quercus_file = None
    limit = spec.get("limit_gib") or 0
    if limit > 0:
        size = int(limit * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    def at(name):
        state["step"] = name
        step(name)

    try:
        at("importing")
        import pandas  # noqa: F401
        import pyarrow.parquet  # noqa: F401

        import quercus

        quercus_file = quercus.__file__
        model = spec["model"]
        if spec.get("warmup"):
            at("warm-up")
            quercus_local_warmup(model, N_FEATURES)
        vm_before_read = proc_status_kb("VmSize")
        at("reading")
        start = time.perf_counter()
        frame = read_parquet_files(spec["train"])
        read_s = time.perf_counter() - start
        read_peak_kb = proc_status_kb("VmHWM")
        y = frame.pop(TARGET).to_numpy()
        X = frame
        n_rows = len(y)
        est = local_forest(spec["trees"]) if model == "forest" else local_tree(model == "tree")
        at("fitting")
        gc.collect()
        peak_reset = reset_peak_rss()
        rss_before_kb = proc_status_kb("VmRSS")
        cpu_start = time.process_time()
        start = time.perf_counter()
        est.fit(X, y)
        fit_s = time.perf_counter() - start
        cpu_s = time.process_time() - cpu_start
        fit_peak_kb = proc_status_kb("VmHWM")
        del X, frame
        at("predicting")
        test = read_parquet_files([spec["test"]])
        y_test = test.pop(TARGET).to_numpy()
        start = time.perf_counter()
        y_pred = est.predict(test)
        predict_s = time.perf_counter() - start
        if spec.get("save_predictions"):
            np.save(spec["save_predictions"], np.asarray(y_pred))
        result = {
            "ok": True,
            "rows": n_rows,
            "read_s": read_s,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "accuracy": float(np.mean(np.asarray(y_pred) == y_test)),
            "leaves": count_leaves("quercus", est),
            "fit_rise_mib": mib(fit_peak_kb - rss_before_kb),
            "process_peak_mib": mib(max(read_peak_kb, fit_peak_kb)),
            "peak_reset": peak_reset,
            "cpu_per_wall": cpu_s / fit_s if fit_s > 0 else None,
            "vm_before_read_mib": mib(vm_before_read),
            "quercus_file": quercus_file,
        }
    except BaseException as exc:  # MemoryError under the limit is the expected answer
        if limit <= 0:
            raise
        result = {
            "ok": False,
            "failed_step": state["step"],
            "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}",
            "vm_size_mib": mib(proc_status_kb("VmSize")),
            "vm_before_read_mib": mib(vm_before_read) if "vm_before_read" in locals() else None,
            "quercus_file": quercus_file,
        }
    print(json.dumps(result), flush=True)


# ---------------------------------------------------------------------------- parent


def run_cell_in_subprocess(spec, timeout, source=None):
    """Run one local cell in a fresh interpreter (quercus from ``source``, a baseline.Source,
    if given): its result dict, or {"error": ...}."""
    cmd = [sys.executable, ENTRY, "--cell", json.dumps(spec)]
    ran = run_json(cmd, timeout, baseline.child_env(source) if source is not None else None)
    if ran.timed_out:
        return {"error": f"timeout after {timeout:g} s", "step": last_step(ran.stdout)}
    if ran.result is not None:
        wrong = source and baseline.imported_from(
            source, ran.result.get("quercus_file") or "(not reported)"
        )
        return {"error": wrong} if wrong else ran.result
    sys.stderr.write(stderr_tail(ran, 15))
    out_of_memory = ("MemoryError", "bad_alloc", "Cannot allocate memory")
    if ran.returncode == -9 or any(s in ran.stderr for s in out_of_memory):
        reason = "out of memory"
    else:
        reason = last_error_line(ran)[:100]
    return {"error": reason, "step": last_step(ran.stdout), "returncode": ran.returncode}


def last_step(stdout):
    steps = [ln[5:] for ln in (stdout or "").splitlines() if ln.startswith("STEP ")]
    return steps[-1] if steps else None
