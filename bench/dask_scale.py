"""Part "scale" of bench/dask_fit.py: 20M x 20, larger than a worker, on 2 workers of 2 GiB,
against local fits under 2 GiB, without a limit and on a sample; its table and the table of
the Dask fit's levels. The protocol is in bench/dask_protocol.md."""

from pathlib import Path

from cells import markdown_table
from dask_cluster import COMPARE_WORKERS, WORKER_MEMORY, Cluster
from dask_cluster_fit import fit_on_cluster
from dask_data import (
    FEATURES,
    N_FEATURES,
    SCALE_ROWS,
    SEED,
    TARGET,
    files_bytes,
    read_parquet_files,
    scale_files,
    scale_sizes,
)
from dask_local import run_cell_in_subprocess
from dask_models import quick_subtree_bytes, subtree_text
from dask_report import fmt_bytes, fmt_int, outcome, progress

SAMPLE_FILES = 2  # the local fit on a sample: the first 2 files (1M rows)
LOCAL_LIMIT_GIB = 2.0


def scale_part(args, data_root):
    import dask.dataframe as dd

    import quercus.dask as qdask

    n_rows, file_rows, _ = scale_sizes(args)
    train, test_file, written, reused = scale_files(args, data_root, n_rows)
    n_files = len(train)
    n_rows = n_files * file_rows  # whole files
    test = read_parquet_files([test_file])
    y_test = test.pop(TARGET).to_numpy()
    test_frame = test[FEATURES]
    subtree_bytes = quick_subtree_bytes(args, n_rows, SCALE_ROWS)

    cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
    try:
        frame = dd.read_parquet(str(Path(train[0]).parent))
        X, y = frame[FEATURES], frame[TARGET]

        def make(client):
            return qdask.DaskDecisionTreeClassifier(
                criterion="gini",
                max_bins="auto",
                random_state=SEED,
                subtree_bytes=subtree_bytes,
                client=client,
            )

        progress(f"scale: Dask fit on {n_rows:,} rows ...")
        dask_result = fit_on_cluster(
            cluster, "quercus", make, X, y, args.timeout, (test_frame, y_test)
        )
        progress(f"scale: Dask fit: {outcome(dask_result)}")
    finally:
        cluster.close()

    cells = scale_local_fits(args, train, test_file, n_rows, file_rows)
    data = (n_files, file_rows, written, reused, files_bytes(train), len(y_test))
    print_scale(n_rows, data, subtree_bytes, dask_result, cells)


def scale_local_fits(args, train, test_file, n_rows, file_rows):
    """The local rows, after the cluster is closed: (label, result) of the fit under the
    limit, the one without (--local-20m) and the one on a sample."""
    cells = []
    spec = {"model": "scale-tree", "train": train, "test": test_file, "warmup": False}
    progress(f"scale: local fit of {n_rows:,} rows under {LOCAL_LIMIT_GIB:g} GiB ...")
    limited = run_cell_in_subprocess({**spec, "limit_gib": LOCAL_LIMIT_GIB}, args.timeout)
    progress(f"scale: local fit under the limit: {limited}")
    cells.append(
        (f"local quercus, {n_rows:,} rows, address space <= {LOCAL_LIMIT_GIB:g} GiB", limited)
    )
    if args.local_20m:
        progress(f"scale: local fit of {n_rows:,} rows without a limit ...")
        unlimited = run_cell_in_subprocess({**spec, "warmup": True}, args.timeout)
        progress(f"scale: local fit without a limit: {outcome(unlimited)}")
        cells.append((f"local quercus, {n_rows:,} rows, no limit", unlimited))
    sample_rows = SAMPLE_FILES * file_rows
    progress(f"scale: local fit on the first {sample_rows:,} rows ...")
    sample = run_cell_in_subprocess(
        {**spec, "train": train[:SAMPLE_FILES], "warmup": True}, args.timeout
    )
    progress(f"scale: local fit on a sample: {outcome(sample)}")
    cells.append((f"local quercus, first {sample_rows:,} rows (sample)", sample))
    return cells


def print_scale(n_rows, data, subtree_bytes, dask_result, cells):
    """The part's tables; ``data`` = (files, rows per file, files written, files reused,
    bytes on disk, test rows)."""
    n_files, file_rows, written, reused, disk, n_test = data
    memory = n_rows * N_FEATURES * 8
    print(
        f"## Part scale: {n_rows:,} x {N_FEATURES} on {COMPARE_WORKERS} workers of "
        f"{WORKER_MEMORY}\n"
    )
    print(
        f"Data: {n_files} Parquet files of {file_rows:,} rows ({written} written by this run, "
        f"{reused} reused, test file included): {fmt_bytes(disk)} on disk; the float64 "
        f"features take {n_rows:,} x {N_FEATURES} x 8 = {fmt_bytes(memory)} in memory. "
        f"Test rows: {n_test:,}.\n"
    )
    print(
        "The Dask tree: `DaskDecisionTreeClassifier(criterion='gini', max_bins='auto', "
        f"random_state=0)`, subtree_bytes {subtree_text(subtree_bytes)}.\n"
    )
    header = [
        "fit",
        "read s",
        "fit s",
        "test accuracy",
        "leaves",
        "peak MiB",
        "result",
    ]
    rows = [scale_dask_row(n_rows, dask_result)]
    rows += [scale_local_row(label, r) for label, r in cells]
    print(markdown_table(header, rows))
    print()
    print(
        "peak MiB: Dask row: each worker's rise of RSS during fit (and the client's); local "
        "rows: the rise of the process's RSS during fit, and in brackets the peak RSS of the "
        "whole process (reading included)."
    )
    print(
        f"The limited row: `resource.setrlimit(RLIMIT_AS, {LOCAL_LIMIT_GIB:g} GiB)` at the start "
        "of its process; VmSize is its address space when the reading began (imports, thread "
        "pools and malloc arenas: reserved, mostly not resident)."
    )
    print()
    if "levels" in dask_result:
        print("### Levels of the Dask fit (`levels_`)\n")
        print(markdown_table(*levels_table(dask_result["levels"], dask_result["partitions"])))
        print()
        print(
            "nodes: split over all partitions at that level; histograms per partition: "
            "`LevelCost.histogram_bytes`, what each partition sends up the reduction; bytes "
            "reduced: that times the partitions; subtrees: nodes small enough (<= "
            "subtree_bytes) gathered to one worker and grown there, and their rows; seconds: "
            "the level's wall time, subtrees included."
        )
        print()


def scale_dask_row(n_rows, result):
    label = f"quercus.dask on {COMPARE_WORKERS} workers, {n_rows:,} rows"
    if "error" in result:
        return [label, "", "", "", "", "", "failed: " + result["error"]]
    workers = " / ".join(f"{v:.0f}" for v in sorted(result["worker_mib"].values()))
    accuracy = f"{result['accuracy']:.4f}" if "accuracy" in result else ""
    done = "ok" if "predict_error" not in result else "predict failed: " + result["predict_error"]
    return [
        label,
        "(in fit)",
        f"{result['fit_s']:.2f}",
        accuracy,
        fmt_int(result["leaves"]),
        f"workers {workers}; client {result['client_mib']:.0f}",
        done,
    ]


def scale_local_row(label, result):
    if result.get("ok"):
        peak = f"{result['fit_rise_mib']:.0f} ({result['process_peak_mib']:.0f})"
        return [
            label,
            f"{result['read_s']:.2f}",
            f"{result['fit_s']:.2f}",
            f"{result['accuracy']:.4f}",
            fmt_int(result["leaves"]),
            peak,
            "ok",
        ]
    if "failed_step" in result:
        vm = result.get("vm_before_read_mib")
        where = f" (VmSize {vm:.0f} MiB when reading began)" if vm else ""
        text = f"failed while {result['failed_step']}: {result['error']}{where}"
    else:
        text = f"failed while {result.get('step') or '?'}: {result.get('error')}"
    return [label, "", "", "", "", "", text]


def levels_table(levels, partitions):
    header = [
        "level",
        "nodes",
        "histograms per partition",
        f"x {partitions} partitions = bytes reduced",
        "subtrees",
        "subtree rows",
        "seconds",
    ]
    rows = [
        [
            lv.level,
            fmt_int(lv.nodes),
            fmt_bytes(lv.histogram_bytes),
            fmt_bytes(lv.histogram_bytes * partitions),
            fmt_int(lv.subtrees),
            fmt_int(lv.subtree_rows),
            f"{lv.seconds:.2f}",
        ]
        for lv in levels
    ]
    return header, rows
