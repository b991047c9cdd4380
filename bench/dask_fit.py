"""quercus.dask on a local Dask cluster: against local quercus, LightGBM and XGBoost on Dask;
a data set larger than a worker; how the cost grows with workers, features, depth and rows.

Run from the repository root:

    .venv/bin/python bench/dask_fit.py [--part compare,scale,workers] [--quick]
                                       [--data-dir DIR] [--timeout S] [--local-20m | --no-local-20m]
                                       [--compare-rows N] [--trees N] [--levelwise-depth D]
                                       [--scale-rows N] [--workers-rows N]
                                       [--baseline REV ...] [--only-quercus]

    .venv/bin/python bench/dask_fit.py --quick           # tiny sizes: a smoke test, ~2 minutes
    .venv/bin/python bench/dask_fit.py --part compare    # 1M training rows: ~1 hour
    .venv/bin/python bench/dask_fit.py                   # all three parts: 1.5-2 hours
    # quercus of git revision REV beside the current code, without LightGBM and XGBoost
    .venv/bin/python bench/dask_fit.py --part compare --only-quercus --baseline REV

The tables go to stdout as markdown (paste them into bench/README.md); progress, the workers'
output and Dask's warnings go to stderr.

The protocol (the clusters, fresh workers, memory marks, time limits, warm-up, each part's data
and models and why) is in bench/dask_protocol.md. This file holds the options and the order of
the parts; the rest is in the modules beside it:

- dask_compare.py, dask_scale.py, dask_workers.py: the three parts, each with its table;
- dask_cluster_fit.py: one model fitted (and predicting) on fresh workers of a cluster;
- dask_local.py: local quercus in a process of its own (this script with --cell);
- dask_cell.py: a quercus Dask row in a process of its own, with its own cluster (this script
  with --dask-cell; with --baseline);
- dask_cluster.py: the LocalClusters, fresh workers, memory marks, time limit, failures;
- dask_models.py: the models per library, their warm-up and leaf counts;
- dask_data.py: the data sets and their Parquet files;
- dask_report.py: progress lines and the units of the tables.
"""

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import baseline
from cells import chosen
from dask_cell import run_dask_cell
from dask_compare import COMPARE_ROWS, LEVELWISE_MAX_DEPTH, N_TREES, QUICK_TREES, compare_part
from dask_data import SCALE_FILE_ROWS, SCALE_ROWS
from dask_local import run_cell
from dask_report import progress
from dask_scale import scale_part
from dask_workers import WORKERS_ROWS, workers_part
from machine import cpu_model, quercus_version, version

PARTS = ["compare", "scale", "workers"]
DEFAULT_TIMEOUT_S = 1800.0


def print_header(args, data_root):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    libs = [
        "dask",
        "distributed",
        "lightgbm",
        "xgboost",
        "numpy",
        "pandas",
        "pyarrow",
        "numba",
        "scikit-learn",
    ]
    print("# Dask benchmark: quercus.dask, local quercus, LightGBM and XGBoost on Dask\n")
    print(f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"- quercus {quercus_version()}")
    for source in args.sources[:-1]:
        print(
            f"- baseline {source.name}: commit {source.commit}, run from {source.src} (the "
            "compare part's quercus rows, local and on Dask)"
        )
    print("- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    print(
        "- clusters: LocalCluster, worker processes of 1 thread; time limit per fit "
        f"{args.timeout:g} s; parts: {', '.join(args.parts)}"
        + ("; --quick (tiny sizes: a smoke test)" if args.quick else "")
        + ("; --only-quercus (no LightGBM or XGBoost rows)" if args.only_quercus else "")
    )
    print(f"- data directory: {data_root}" + ("" if args.data_dir else " (temporary)"))
    print()


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="quercus.dask on a local Dask cluster beside local quercus, LightGBM and "
        "XGBoost on Dask (the protocol: bench/dask_protocol.md)."
    )
    parser.add_argument(
        "--part",
        default=",".join(PARTS),
        help=f"comma-separated parts to run, from: {','.join(PARTS)} (default: all)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: a smoke test of the harness"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the Parquet files are written (and the scale files reused); default: a "
        "temporary directory removed at the end",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=f"stop a fit after S seconds (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--compare-rows",
        type=int,
        default=COMPARE_ROWS,
        metavar="N",
        help=f"rows of the compare data before the 20%% test split (default {COMPARE_ROWS:,})",
    )
    parser.add_argument(
        "--scale-rows",
        type=int,
        default=SCALE_ROWS,
        metavar="N",
        help=f"training rows of the scale part (default {SCALE_ROWS:,}; files of "
        f"{SCALE_FILE_ROWS:,})",
    )
    parser.add_argument(
        "--trees",
        type=int,
        default=None,
        metavar="N",
        help=f"trees of the compare part's forests (default {N_TREES}; {QUICK_TREES} with --quick)",
    )
    parser.add_argument(
        "--levelwise-depth",
        type=int,
        default=LEVELWISE_MAX_DEPTH,
        metavar="D",
        help="max_depth of the compare part's tree with subtree_bytes=0 (default "
        f"{LEVELWISE_MAX_DEPTH})",
    )
    parser.add_argument(
        "--workers-rows",
        type=int,
        default=WORKERS_ROWS,
        metavar="N",
        help=f"training rows of the workers part (default {WORKERS_ROWS:,})",
    )
    parser.add_argument(
        "--local-20m",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also fit the scale data locally without a memory limit (default: on, off "
        "with --quick)",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="compare part: also run its quercus rows (local and on Dask) with the quercus of "
        "git revision REV (a worktree under /tmp), as rows 'quercus @<commit>'; repeatable",
    )
    parser.add_argument(
        "--only-quercus",
        action="store_true",
        help="compare part: leave out the LightGBM and XGBoost rows",
    )
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: one local fit
    parser.add_argument("--dask-cell", help=argparse.SUPPRESS)  # internal: one quercus Dask row
    args = parser.parse_args(argv)
    args.parts = chosen(parser, "--part", args.part, PARTS)
    if (args.baseline or args.only_quercus) and "compare" not in args.parts:
        parser.error("--baseline and --only-quercus are options of the compare part")
    if args.local_20m is None:
        args.local_20m = not args.quick
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.cell:
        run_cell(json.loads(args.cell))
        return
    if args.dask_cell:
        run_dask_cell(json.loads(args.dask_cell))
        return
    args.sources = baseline.sources(args.baseline)
    if args.data_dir is not None:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        data_root = args.data_dir.resolve()
    else:
        data_root = Path(tempfile.mkdtemp(prefix="quercus-dask-bench-"))
    started = time.perf_counter()
    try:
        print_header(args, data_root)
        for part, run in (
            ("compare", compare_part),
            ("scale", scale_part),
            ("workers", workers_part),
        ):
            if part in args.parts:
                run(args, data_root)
                sys.stdout.flush()
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_root, ignore_errors=True)
    progress(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
