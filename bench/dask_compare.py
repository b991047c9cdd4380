"""Part "compare" of bench/dask_fit.py: 1M x 20 on 2 workers of 2 GiB, one deep tree and a
forest, local quercus against quercus, LightGBM and XGBoost on Dask; its two tables. The
protocol is in bench/dask_protocol.md."""

import gc

import numpy as np
from cells import markdown_table
from dask_cluster import COMPARE_WORKERS, WORKER_MEMORY, Cluster
from dask_cluster_fit import fit_on_cluster
from dask_data import (
    FEATURES,
    N_FEATURES,
    SEED,
    TARGET,
    as_frame,
    compare_data,
    files_bytes,
    write_compare_data,
)
from dask_local import run_cell_in_subprocess
from dask_models import (
    LGBM_DASK_LEAVES,
    XGB_TREE_PARAMS,
    lgbm_rf_params,
    lgbm_tree_params,
    xgb_rf_params,
)
from dask_report import cluster_levels, fmt_bytes, fmt_int, outcome, progress

COMPARE_ROWS = 1_250_000  # 1,000,000 training rows, 250,000 test rows
COMPARE_FILES = 8
N_TREES = 100
# subtree_bytes=0 grows every level on the cluster with dense histograms (123 KB per node
# and partition at 20 features x 255 bins): the full-depth tree does not fit 2 GiB workers.
LEVELWISE_MAX_DEPTH = 10

# --quick
QUICK_COMPARE_ROWS = 75_000  # 60,000 training rows: above 50,000, max_bins='auto' is 255
QUICK_TREES = 10


def compare_part(args, data_root):
    import dask.dataframe as dd
    import lightgbm.dask as lgbd
    import xgboost.dask as xgbd

    import quercus.dask as qdask

    n_rows = QUICK_COMPARE_ROWS if args.quick else args.compare_rows
    n_trees = args.trees if args.trees is not None else QUICK_TREES if args.quick else N_TREES
    depth = args.levelwise_depth
    progress(f"compare: making {n_rows:,} rows")
    X_train, X_test, y_train, y_test = compare_data(n_rows)
    n_train = len(y_train)
    directory = data_root / f"compare-{n_rows}"
    train_files, test_file = write_compare_data(
        directory, X_train, y_train, X_test, y_test, COMPARE_FILES
    )
    del X_train, y_train
    gc.collect()
    test_frame = as_frame(X_test, y_test)[FEATURES]
    y_test = np.asarray(y_test, dtype=np.int64)
    del X_test

    # Local quercus, each in its own process, before the cluster is started.
    local = {}
    for model in ("tree", "forest"):
        progress(f"compare: local quercus {model} ...")
        spec = {
            "model": model,
            "trees": n_trees,
            "train": train_files,
            "test": test_file,
            "warmup": True,
            "save_predictions": str(directory / f"local-{model}.npy"),
        }
        result = run_cell_in_subprocess(spec, args.timeout)
        if result.get("ok"):
            result["y_pred"] = np.load(spec["save_predictions"])
        local[model] = result
        progress(f"compare: local quercus {model}: {outcome(result)}")

    tree_rows, forest_rows = compare_models(qdask, lgbd, xgbd, n_train, n_trees, depth)
    cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
    try:
        frame = dd.read_parquet(str(directory / "train"))
        X, y = frame[FEATURES], frame[TARGET]
        test = (test_frame, y_test)
        results = {}
        for label, kind, make in [*tree_rows, *forest_rows]:
            progress(f"compare: {label} ...")
            forest = "Forest" in label
            results[label] = fit_on_cluster(
                cluster, kind, make, X, y, args.timeout, test, quercus_forest=forest
            )
            progress(f"compare: {label}: {outcome(results[label])}")
    finally:
        cluster.close()
    print_compare(n_trees, n_train, train_files, y_test, local, results, tree_rows, forest_rows)


def compare_models(qdask, lgbd, xgbd, n_train, n_trees, depth):
    """The Dask rows of the two tables, as (label, library, estimator of a client): the
    tree's and the forest's, each quercus's first (the ratios are to that row)."""
    tree_defaults = {
        "criterion": "gini",
        "nominal_split": "binary",
        "max_bins": "auto",
        "random_state": SEED,
    }
    tree_rows = [
        (
            "quercus.dask DaskDecisionTreeClassifier (subtree_bytes 64 MiB, default)",
            "quercus",
            lambda client: qdask.DaskDecisionTreeClassifier(client=client, **tree_defaults),
        ),
        (
            f"quercus.dask DaskDecisionTreeClassifier (subtree_bytes=0, max_depth={depth})",
            "quercus",
            lambda client: qdask.DaskDecisionTreeClassifier(
                client=client,
                subtree_bytes=0,
                max_depth=depth,
                **tree_defaults,
            ),
        ),
        (
            "lightgbm.dask DaskLGBMClassifier, 1 iteration",
            "lightgbm",
            lambda client: lgbd.DaskLGBMClassifier(client=client, **lgbm_tree_params(n_train)),
        ),
        (
            f"lightgbm.dask DaskLGBMClassifier, 1 iteration, num_leaves <= {LGBM_DASK_LEAVES:,}",
            "lightgbm",
            lambda client: lgbd.DaskLGBMClassifier(
                client=client, **lgbm_tree_params(n_train, LGBM_DASK_LEAVES)
            ),
        ),
        (
            "xgboost.dask DaskXGBClassifier, 1 iteration, lossguide",
            "xgboost",
            lambda client: xgbd.DaskXGBClassifier(**XGB_TREE_PARAMS),
        ),
    ]
    forest_rows = [
        (
            f"quercus.dask DaskRandomForestClassifier ({n_trees} trees)",
            "quercus",
            lambda client: qdask.DaskRandomForestClassifier(
                n_estimators=n_trees, random_state=SEED, client=client
            ),
        ),
        (
            f"lightgbm.dask DaskLGBMClassifier rf ({n_trees} trees)",
            "lightgbm",
            lambda client: lgbd.DaskLGBMClassifier(
                client=client, **lgbm_rf_params(n_train, n_trees)
            ),
        ),
        (
            f"lightgbm.dask DaskLGBMClassifier rf ({n_trees} trees, num_leaves <= "
            f"{LGBM_DASK_LEAVES:,})",
            "lightgbm",
            lambda client: lgbd.DaskLGBMClassifier(
                client=client, **lgbm_rf_params(n_train, n_trees, LGBM_DASK_LEAVES)
            ),
        ),
        (
            f"xgboost.dask DaskXGBRFClassifier ({n_trees} trees, depthwise, no depth limit)",
            "xgboost",
            lambda client: xgbd.DaskXGBRFClassifier(**xgb_rf_params(n_trees)),
        ),
    ]
    return tree_rows, forest_rows


def print_compare(n_trees, n_train, train_files, y_test, local, results, tree_rows, forest_rows):
    header = [
        "model",
        "fit s",
        "predict s",
        "test accuracy",
        "leaves",
        "peak MiB per worker",
        "client MiB",
        "levels on the cluster",
        "largest level histograms",
    ]
    tables = [
        ("One deep tree", "tree", "quercus DecisionTreeClassifier (local, 1 process)", tree_rows),
        (
            f"A forest of {n_trees} trees",
            "forest",
            f"quercus RandomForestClassifier ({n_trees} trees, local, 1 process, n_jobs=2)",
            forest_rows,
        ),
    ]
    print(
        f"## Part compare: {n_train:,} x {N_FEATURES} on {COMPARE_WORKERS} workers of "
        f"{WORKER_MEMORY}\n"
    )
    print(
        f"Training rows: {n_train:,} in {COMPARE_FILES} Parquet files "
        f"({fmt_bytes(files_bytes(train_files))} on disk); test rows: {len(y_test):,}.\n"
    )
    for title, model, local_label, rows in tables:
        table = [local_row(local_label, local[model])]
        table += [dask_row(label, results[label]) for label, _, _ in rows]
        print(f"### {title}\n")
        print(markdown_table(header, table))
        print()
        for line in compare_notes(local[model], rows, results, y_test):
            print(line)
        print()
    print(
        "fit s: wall time of `fit`; for the Dask rows it includes reading the Parquet files "
        "with dask.dataframe. predict s: the test rows, on the cluster as a persisted Dask "
        "DataFrame of 2 partitions for the Dask rows, in memory for the local ones."
    )
    print(
        "peak MiB per worker: the largest rise of a worker's RSS during fit (VmHWM after "
        "minus VmRSS before, peak mark reset before); local rows: the rise of their own "
        "process. client MiB: the same for this process, the Dask client."
    )
    print(
        "levels on the cluster: levels split over all partitions (`levels_`); largest level "
        "histograms: the most bytes of histograms one partition sent for one level."
    )
    print()


def local_row(label, result):
    if not result.get("ok"):
        why = result.get("error", "?")
        return [label, f"failed: {why}", "", "", "", "", "", "", ""]
    return [
        label,
        f"{result['fit_s']:.2f}",
        f"{result['predict_s']:.3f}",
        f"{result['accuracy']:.4f}",
        fmt_int(result["leaves"]),
        f"{result['fit_rise_mib']:.0f}" + ("" if result["peak_reset"] else "*"),
        "",
        "",
        "",
    ]


def dask_row(label, result):
    if "error" in result:
        return [label, "failed: " + result["error"], "", "", "", "", "", "", ""]
    worker = max(result["worker_mib"].values()) if result["worker_mib"] else None
    levels, largest = "", ""
    if result["levels"]:
        n_levels, biggest, _ = cluster_levels(result["levels"])
        levels, largest = str(n_levels), fmt_bytes(biggest) if biggest else ""
    elif "quercus" in label:
        levels, largest = "0", ""
    if "predict_error" in result:
        predict, accuracy = "failed: " + result["predict_error"], ""
    else:
        predict, accuracy = f"{result['predict_s']:.3f}", f"{result['accuracy']:.4f}"
    return [
        label,
        f"{result['fit_s']:.2f}",
        predict,
        accuracy,
        fmt_int(result["leaves"]),
        "?" if worker is None else f"{worker:.0f}" + ("" if result["peak_reset"] else "*"),
        f"{result['client_mib']:.0f}",
        levels,
        largest,
    ]


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "?"


def compare_notes(local, rows, results, y_test):
    """The lines under a compare table: the local read, the ratios, the predictions."""
    lines = []
    quercus_label = rows[0][0]
    q = results[quercus_label]
    if local.get("ok"):
        lines.append(
            f"- Local quercus read the {COMPARE_FILES} Parquet files with pyarrow/pandas in "
            f"{local['read_s']:.2f} s (not in its fit s); its fit kept "
            f"{local['cpu_per_wall']:.2f} cores busy."
        )
    if "fit_s" not in q:
        lines.append("- quercus on Dask failed: no ratios.")
        return lines
    parts = []
    if local.get("ok"):
        parts.append(f"/ local quercus {ratio(q['fit_s'], local['fit_s'])}")
    for label, kind, _ in rows[1:]:
        if kind == "quercus":
            continue
        peer = results[label]
        name = "LightGBM on Dask" if kind == "lightgbm" else "XGBoost on Dask"
        if "num_leaves <=" in label:
            name += f" (num_leaves <= {LGBM_DASK_LEAVES:,})"
        value = ratio(q["fit_s"], peer["fit_s"]) if "fit_s" in peer else "n/a (it failed)"
        parts.append(f"/ {name} {value}")
    lines.append(
        "- Fit time of quercus on Dask (default subtree_bytes) " + ", ".join(parts) + " (below 1: "
        "quercus on Dask is faster)."
    )
    if local.get("ok") and "y_pred" in q:
        differ = int(np.sum(q["y_pred"] != local["y_pred"]))
        lines.append(
            f"- quercus on Dask and local quercus predict the {len(y_test):,} test rows "
            + (
                "identically."
                if differ == 0
                else f"differently on {differ:,} rows (the Dask fit's bins come from mergeable "
                "summaries, exact up to their capacity: beyond it its thresholds differ "
                "slightly from the local ones, and so do the deeper splits)."
            )
        )
    return lines
