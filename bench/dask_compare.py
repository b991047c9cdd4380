"""Part "compare" of bench/dask_fit.py: 1M x 20 on 2 workers of 2 GiB, one deep tree and a
forest, local quercus against quercus, LightGBM and XGBoost on Dask; its two tables. With
--baseline, the quercus rows (local and on Dask) are also run for older revisions of quercus,
each in a process of its own (dask_local.py, dask_cell.py). The protocol is in
bench/dask_protocol.md."""

import gc

import baseline
import numpy as np
from cells import markdown_table
from dask_cell import dask_cell_in_subprocess
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

    if args.only_quercus:
        lgbd = xgbd = None
    else:
        import lightgbm.dask as lgbd
        import xgboost.dask as xgbd

    import quercus.dask as qdask

    # The quercus source trees: the baselines (--baseline), then the current code.
    sources = getattr(args, "sources", None) or [baseline.current()]
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

    # Local quercus, each in its own process, before the cluster is started: per model,
    # {source name: result}, the baselines just before the current code.
    local = {}
    for model in ("tree", "forest"):
        local[model] = {}
        for source in sources:
            name = source_label("quercus", source)
            progress(f"compare: local {name} {model} ...")
            spec = {
                "model": model,
                "trees": n_trees,
                "train": train_files,
                "test": test_file,
                "warmup": True,
                "save_predictions": str(directory / f"local-{model}{file_tag(source)}.npy"),
            }
            result = run_cell_in_subprocess(spec, args.timeout, source)
            if result.get("ok"):
                result["y_pred"] = np.load(spec["save_predictions"])
            local[model][source.name] = result
            progress(f"compare: local {name} {model}: {outcome(result)}")

    tree_rows, forest_rows = compare_models(qdask, lgbd, xgbd, n_train, n_trees, depth)
    if args.only_quercus:
        tree_rows = [row for row in tree_rows if row[1] == "quercus"]
        forest_rows = [row for row in forest_rows if row[1] == "quercus"]
    results = {}
    in_process = [*tree_rows, *forest_rows]
    if len(sources) > 1:
        # With baselines, every quercus Dask row, the current code's too, runs in a process
        # of its own (whose client and workers import that row's quercus), old and new
        # alternating row by row; the peers' rows stay on this process's cluster.
        for index, (label, kind, _) in enumerate(in_process):
            if kind != "quercus":
                continue
            for source in sources:
                row = source_label(label, source)
                progress(f"compare: {row} ...")
                spec = {
                    "label": label,
                    "n_train": n_train,
                    "trees": n_trees,
                    "depth": depth,
                    "train_dir": str(directory / "train"),
                    "test": test_file,
                    "timeout": args.timeout,
                    "save_predictions": str(directory / f"dask-{index}{file_tag(source)}.npy"),
                }
                results[row] = dask_cell_in_subprocess(spec, args.timeout, source)
                progress(f"compare: {row}: {outcome(results[row])}")
        in_process = [row for row in in_process if row[1] != "quercus"]
    if in_process:
        cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
        try:
            frame = dd.read_parquet(str(directory / "train"))
            X, y = frame[FEATURES], frame[TARGET]
            test = (test_frame, y_test)
            for label, kind, make in in_process:
                progress(f"compare: {label} ...")
                forest = "Forest" in label
                results[label] = fit_on_cluster(
                    cluster, kind, make, X, y, args.timeout, test, quercus_forest=forest
                )
                progress(f"compare: {label}: {outcome(results[label])}")
        finally:
            cluster.close()
    print_compare(
        n_trees, n_train, train_files, y_test, local, results, tree_rows, forest_rows, sources
    )


def source_label(label, source):
    """A quercus row's label for ``source``: the current code's as it is, a baseline's with
    its commit after the library's name ("quercus @3b61ab8 ...", "quercus.dask @3b61ab8 ...")."""
    if source.src is None:
        return label
    library, _, rest = label.partition(" ")
    return f"{library} @{source.name.split('@', 1)[1]} {rest}".rstrip()


def file_tag(source):
    """What a file of ``source``'s predictions adds to its name (nothing for the current code)."""
    return "" if source.src is None else "-" + source.name.split("@", 1)[1]


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


def print_compare(
    n_trees, n_train, train_files, y_test, local, results, tree_rows, forest_rows, sources
):
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
    current = sources[-1]
    for title, model, local_label, rows in tables:
        table = [local_row(source_label(local_label, s), local[model][s.name]) for s in sources]
        for label, kind, _ in rows:
            labels = [source_label(label, s) for s in sources] if kind == "quercus" else [label]
            table += [dask_row(row, results[row]) for row in labels]
        print(f"### {title}\n")
        print(markdown_table(header, table))
        print()
        for line in compare_notes(local[model][current.name], rows, results, y_test):
            print(line)
        for line in baseline_notes(local[model], rows, results, y_test, sources):
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
    if len(sources) > 1:
        print(
            "quercus @<commit>: the quercus of that git revision (a worktree under /tmp, "
            "PYTHONPATH=<worktree>/src first; the client and the workers of its Dask rows "
            "import it, each cell checked). With --baseline every quercus Dask row, the "
            "current code's too, runs in a process of its own with its own LocalCluster (the "
            "same fresh workers and warm-up); the peers' rows run in this process."
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


def baseline_notes(local, rows, results, y_test, sources):
    """The lines under a compare table for each baseline: the current code's fit and predict
    times over the baseline's, locally and on Dask, and whether they predict alike.
    ``local``: {source name: local result}."""
    current = sources[-1]
    lines = []
    for source in sources[:-1]:
        pairs = [("local", local[source.name], local[current.name])]
        for label, kind, _ in rows:
            if kind == "quercus":
                setting = label[label.find("(") :] if "(" in label else label
                old = results[source_label(label, source)]
                pairs.append((f"on Dask {setting}", old, results[label]))
        for key, what in (("fit_s", "fit s"), ("predict_s", "predict s")):
            ratios = [
                f"{name} {baseline.ratio(new.get(key), old.get(key))}" for name, old, new in pairs
            ]
            lines.append(
                f"- {what}, current / {source.name} (above 1: the current code is slower): "
                + ", ".join(ratios)
                + "."
            )
        same = []
        for name, old, new in pairs:
            if "y_pred" not in old or "y_pred" not in new:
                same.append(f"{name} n/a")
                continue
            differ = int(np.sum(np.asarray(old["y_pred"]) != np.asarray(new["y_pred"])))
            alike = f"differently on {differ:,} rows" if differ else "identically"
            same.append(f"{name} {alike}")
        lines.append(
            f"- {source.name} and the current code predict the {len(y_test):,} test rows: "
            + ", ".join(same)
            + "."
        )
    return lines


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
