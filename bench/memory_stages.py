"""Where the peak memory of one tree's fit is: the peak RSS of each stage of fit.

Run from the repository root (Linux: it reads /proc/self/status):

    .venv/bin/python bench/memory_stages.py [--sizes reg-1m,clf2-1m,clf7-1m] [--threads -1,1]

For each data set of `bench/single_tree.py` (the same data and model) and each `n_jobs`, one
process fits the model on 200,000 rows first (the kernels compile; the timed fit's bin code
width), then fits it on the training rows with the kernel's peak-RSS mark reset
(`/proc/self/clear_refs`) at the start and end of each stage: binning (`bin_frame`), growing
(`grow_binned`; on threads, the graft of the pieces is its own stage, `threads.graft`) and
making the flat tree (`tree_from_grown`); "validate" is fit before binning and each "after"
stage is the rest of the enclosing one. Each row gives the stage's peak RSS and the RSS at
its end, both less the RSS before fit (as `single_tree.py`'s peak MiB), and its seconds: the
largest peak is the fit's.

The table goes to stdout as markdown; progress to stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time

from machine import proc_status_kb, reset_peak_rss
from single_tree import DATASETS, make_data, make_model, warmup_rows


def run_cell(name: str, n_jobs: int) -> list:
    """Fit the model of data set ``name`` with ``n_jobs``; returns ``(stage, peak MiB, RSS
    MiB at its end, seconds)`` per stage."""
    import quercus.estimators.base as base
    import quercus.grow.threads as threads

    data = DATASETS[name]
    X_train, _, y_train, _ = make_data(data.task, data.rows, data.classes, data.features)
    rows = warmup_rows(len(y_train))
    model = "quercus" if n_jobs != 1 else "quercus1"
    make_model(model, data.task, rows, data.max_depth).fit(X_train[:rows], y_train[:rows])
    stages, current = [], {"name": None, "start": 0.0, "base": 0}

    def mark(stage: str) -> None:
        peak, rss = proc_status_kb("VmHWM"), proc_status_kb("VmRSS")
        if current["name"] is not None:
            spent = time.perf_counter() - current["start"]
            base_kb = current["base"]
            stages.append((current["name"], (peak - base_kb) / 1024, (rss - base_kb) / 1024, spent))
        reset_peak_rss()
        current.update(name=stage, start=time.perf_counter())

    def staged(module, attr: str, stage: str) -> None:
        func = getattr(module, attr)

        def wrapper(*args, **kwargs):
            mark(stage)
            out = func(*args, **kwargs)
            mark(f"after {stage}")
            return out

        setattr(module, attr, wrapper)

    staged(base, "bin_frame", "binning")
    staged(base, "grow_binned", "growing")
    staged(threads, "graft", "graft")
    staged(base, "tree_from_grown", "flat tree")
    est = make_model(model, data.task, len(y_train), data.max_depth)
    gc.collect()
    if not reset_peak_rss():
        sys.exit("the peak-RSS mark cannot be reset here (/proc/self/clear_refs)")
    current["base"] = proc_status_kb("VmRSS")
    mark("validate")
    est.fit(X_train, y_train)
    mark("end")
    return stages


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="reg-1m,clf2-1m,clf7-1m")
    parser.add_argument("--threads", default="-1,1", help="n_jobs values, comma-separated")
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        name, n_jobs = json.loads(args.cell)
        print(json.dumps(run_cell(name, n_jobs)))
        return
    print("| data set | n_jobs | stage | peak MiB | RSS after MiB | s |")
    print("| -------- | ------ | ----- | -------- | ------------- | - |")
    for name in args.sizes.split(","):
        for n_jobs in (int(j) for j in args.threads.split(",")):
            print(f"{name}, n_jobs={n_jobs} ...", file=sys.stderr)
            cell = json.dumps([name, n_jobs])
            proc = subprocess.run(
                [sys.executable, __file__, "--cell", cell],
                capture_output=True,
                text=True,
                check=True,
            )
            stages = json.loads(proc.stdout.strip().splitlines()[-1])
            for stage, peak, rss, seconds in stages:
                print(f"| {name} | {n_jobs} | {stage} | {peak:.0f} | {rss:.0f} | {seconds:.2f} |")
            print(f"| {name} | {n_jobs} | **fit** | **{max(s[1] for s in stages):.0f}** | | |")


if __name__ == "__main__":
    main()
