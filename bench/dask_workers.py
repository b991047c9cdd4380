"""Part "workers" of bench/dask_fit.py: how the cost of the Dask tree grows with workers,
features, depth and rows, at 4M rows of the scale data; its table. The protocol is in
bench/dask_protocol.md."""

import os

from cells import markdown_table
from dask_cluster import Cluster
from dask_cluster_fit import fit_on_cluster
from dask_data import FEATURES, N_FEATURES, SEED, TARGET, scale_files, scale_sizes
from dask_models import quick_subtree_bytes, subtree_text
from dask_report import cluster_levels, fmt_bytes, fmt_int, outcome, progress

WORKERS_ROWS = 4_000_000
WORKER_COUNTS = (1, 2, 4)
WORKERS_MEMORY = "4GiB"
WORKERS_DEPTHS = (8, 16)
WORKERS_FEATURES = 10

# --quick
QUICK_WORKERS_ROWS = 200_000


def workers_part(args, data_root):
    import dask.dataframe as dd

    import quercus.dask as qdask

    n_rows = QUICK_WORKERS_ROWS if args.quick else args.workers_rows
    _, file_rows, _ = scale_sizes(args)
    train, _, _, _ = scale_files(args, data_root, n_rows)
    n_rows = len(train) * file_rows  # whole files
    half = train[: max(1, len(train) // 2)]
    half_rows = len(half) * file_rows
    subtree_bytes = quick_subtree_bytes(args, n_rows, WORKERS_ROWS)
    configs = workers_configs(n_rows, train, half, half_rows)
    results = {}
    for n_workers in WORKER_COUNTS:
        cluster = Cluster(n_workers, WORKERS_MEMORY)
        try:
            for c in configs[n_workers]:
                frame = dd.read_parquet(list(c["files"]))
                X, y = frame[c["features"]], frame[TARGET]

                def make(client, c=c):
                    return qdask.DaskDecisionTreeClassifier(
                        criterion="gini",
                        max_bins="auto",
                        max_depth=c["max_depth"],
                        random_state=SEED,
                        subtree_bytes=subtree_bytes,
                        client=client,
                    )

                progress(f"workers: {c['label']} ...")
                results[c["label"]] = fit_on_cluster(cluster, "quercus", make, X, y, args.timeout)
                progress(f"workers: {c['label']}: {outcome(results[c['label']])}")
        finally:
            cluster.close()
    print_workers(n_rows, file_rows, subtree_bytes, configs, results)


def workers_configs(n_rows, train, half, half_rows):
    """The configurations to fit, by number of workers: the whole data on each cluster,
    and on 2 workers also fewer features, a depth limit, half the rows."""

    def config(label, n_workers, files, features, max_depth):
        return {
            "label": label,
            "workers": n_workers,
            "files": files,
            "features": features,
            "max_depth": max_depth,
        }

    base = f"{n_rows:,} x {N_FEATURES}"
    configs = {1: [], 2: [], 4: []}
    for n in WORKER_COUNTS:
        configs[n].append(
            config(f"{n} worker{'s' if n > 1 else ''}, {base}", n, train, FEATURES, None)
        )
    configs[2] += [
        config(
            f"2 workers, {n_rows:,} x {WORKERS_FEATURES}",
            2,
            train,
            FEATURES[:WORKERS_FEATURES],
            None,
        ),
        *[
            config(f"2 workers, {base}, max_depth={d}", 2, train, FEATURES, d)
            for d in WORKERS_DEPTHS
        ],
        config(f"2 workers, {half_rows:,} x {N_FEATURES}", 2, half, FEATURES, None),
    ]
    return configs


def print_workers(n_rows, file_rows, subtree_bytes, configs, results):
    print(f"## Part workers: how the cost grows ({n_rows:,} rows, workers of {WORKERS_MEMORY})\n")
    header = [
        "configuration",
        "fit s",
        "levels on the cluster",
        "histogram bytes reduced",
        "subtrees",
        "subtree rows",
        "leaves",
        "peak MiB per worker",
    ]
    rows = []
    for n_workers in WORKER_COUNTS:
        for c in configs[n_workers][:1]:
            rows.append(workers_row(c["label"], results[c["label"]]))
    for c in configs[2][1:]:
        rows.append(workers_row(c["label"], results[c["label"]]))
    print(markdown_table(header, rows))
    print()
    print(
        "The tree: `DaskDecisionTreeClassifier(criterion='gini', max_bins='auto', "
        f"random_state=0)`, subtree_bytes {subtree_text(subtree_bytes)}, on the first files "
        "of the scale data (one "
        f"partition per file of {file_rows:,} rows). histogram bytes reduced: the sum over "
        "the levels of `histogram_bytes` x partitions. subtrees: nodes gathered to one worker "
        "and grown there, over all levels, and their rows."
    )
    print(
        f"The machine has {os.cpu_count()} cores: with 4 workers of one thread each, two "
        "share a core."
    )
    print()


def workers_row(label, result):
    if "error" in result:
        return [label, "failed: " + result["error"], "", "", "", "", "", ""]
    levels = result["levels"]
    n_levels, _, _ = cluster_levels(levels)
    reduced = sum(lv.histogram_bytes for lv in levels) * result["partitions"]
    worker = max(result["worker_mib"].values()) if result["worker_mib"] else None
    return [
        label,
        f"{result['fit_s']:.2f}",
        str(n_levels),
        fmt_bytes(reduced),
        fmt_int(sum(lv.subtrees for lv in levels)),
        fmt_int(sum(lv.subtree_rows for lv in levels)),
        fmt_int(result["leaves"]),
        "?" if worker is None else f"{worker:.0f}",
    ]
