"""Random forests of 100 trees: quercus beside scikit-learn, scikit-learn + oneDAL and LightGBM.

Run from the repository root:

    .venv/bin/python bench/forest.py [--sizes 100k,1m,real] [--repeats R] [--quick]
                                     [--only quercus,sklearn,sklearnex,lightgbm,quercus@REV]
                                     [--baseline REV ...]
                                     [--timeout S] [--mem-limit GIB] [--data-dir DIR]
                                     [--lightgbm-sampling node|tree]

    .venv/bin/python bench/forest.py --quick         # 10,000 rows, 10 trees: a smoke test
    .venv/bin/python bench/forest.py --sizes 100k    # the 100k data set only
    .venv/bin/python bench/forest.py                 # everything: an hour or more

    # the current code against commit 252f360 at 100k x 20, 5 runs per cell
    .venv/bin/python bench/forest.py --sizes 100k --only quercus --baseline 252f360 --repeats 5

scikit-learn-intelex (`sklearnex`) and LightGBM are optional: without them their rows say n/a.
The table goes to stdout as markdown (paste it into bench/README.md); progress goes to stderr.

Implementations (every one with 100 trees, 2 threads and seed 0):

- quercus: `quercus.RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=0)`, its
  defaults otherwise: Gini, binary splits, max_features='sqrt' drawn at every split, bootstrap
  samples as large as the training set, unlimited depth, max_bins='auto' (above 50,000
  training rows a numeric feature with more than 255 distinct values is searched over 255
  quantile bins).
- scikit-learn: `sklearn.ensemble.RandomForestClassifier(n_estimators=100, n_jobs=2,
  random_state=0)`: the same parameters, exact threshold search on sorted values.
- scikit-learn + oneDAL: `from sklearnex import patch_sklearn; patch_sklearn()` before
  sklearn.ensemble is imported, then the same call, in its own process. sklearnex's own
  defaults apply on top: histogram splits with max_bins=256, min_bin_size=1. The cell checks
  that the estimator's class comes from sklearnex and records what sklearnex logs for fit
  and predict ("running accelerated version" or a fallback to stock scikit-learn); the
  header says which class the patch installs.
- LightGBM in random-forest mode: `LGBMClassifier(boosting_type="rf", n_estimators=100,
  bagging_freq=1, bagging_fraction=0.632, feature_fraction_bynode=sqrt(p)/p,
  num_leaves=min(131072, n_train), max_depth=-1, min_child_samples=1, min_child_weight=0,
  histogram_pool_size=256, n_jobs=2, verbose=-1, random_state=0)`. What makes it comparable to
  the others: "rf" averages independent trees instead of boosting; bagging_freq=1 with
  bagging_fraction=0.632 gives every tree its own sample of 63.2% of the rows, drawn without
  replacement (the share of distinct rows in a bootstrap sample; LightGBM cannot draw with
  replacement); feature_fraction_bynode draws round(sqrt(p)) candidate features at every split,
  4 of 20 as max_features='sqrt' (floor(sqrt(p))) does (LightGBM takes at least 2: of the 3
  features of the real data set it draws 2 where the others draw 1); num_leaves at LightGBM's
  maximum with min_child_samples=1 (min_data_in_leaf) and min_child_weight=0
  (min_sum_hessian_in_leaf) grow the trees to full size as far as LightGBM allows (a tree stops
  at 131,072 leaves); histogram_pool_size caps LightGBM's histogram cache, which otherwise
  allocates for num_leaves leaves up front (bench/single_tree.py; at 131,072 leaves about 11 GB);
  the trees change only slightly (at 100k rows, 5 trees: 6,366 leaves per tree instead of
  6,400). Its splits are found over at most 255 bins per feature (max_bin). `--lightgbm-sampling
  tree` uses `feature_fraction=sqrt(p)/p` instead: one feature subset per tree, the setting
  usually quoted for LightGBM's rf mode, which is not what a random forest does at each split
  (every tree then sees only 4 of the 20 features: with --quick, test accuracy 0.72 instead of
  0.90).

Data sets (`--sizes`):

- 100k: `make_classification(n_samples=100_000, n_features=20, n_informative=10,
  n_redundant=5, flip_y=0.05, random_state=0)`, split 80/20 by `train_test_split(
  random_state=0)`;
- 1m: the same with 1,000,000 samples;
- real: skin_segmentation.csv from ../shared/datasets (245,057 rows, 3 numeric features B, G,
  R with values 0-255, target `skin`: the classes 1/2 of UCI are written there as skin /
  nonskin), split 80/20 stratified by the class, random_state=0. It is the largest
  all-numeric classification set there (no covtype-like set is present), so all four
  libraries take the same float64 matrix as it is; adult would need its nominal columns
  encoded for three of them but not for quercus, which would compare different inputs.

`--quick`: 10,000 rows per data set (the synthetic sets are then one; the real set is a
stratified sample of 10,000 rows, seed 0) and 10 trees.

What is measured. Every (data set, implementation) cell runs in a fresh Python process (this
script started again with `--cell`), which makes or reads its data and fits one forest:

- fit s, predict s: wall time (`time.perf_counter`) of one `fit` on the training split and one
  `predict` on the test split. quercus compiles its Numba kernels on first use: before the
  timed fit it fits and predicts small forests (2,000 training rows, 2 trees, max_bins
  'auto', which is exact search at that size, and 255, the bins of the larger sets) in the
  same process. Functions Numba still compiles during the timed fit or predict are counted,
  and a time is marked with † if there were any.
- test accuracy: share of the test rows predicted correctly.
- peak MiB: the increase of the process's resident set during fit: the peak RSS at the end of
  fit (VmHWM in /proc/self/status) minus the RSS just before fit (VmRSS), with the peak reset
  just before fit (`echo 5 > /proc/self/clear_refs`); where that reset is not allowed the
  value is the peak since the process started and is marked with `*`.
- cores: CPU time of the process during fit divided by the fit's wall time. "‡x" after it:
  other processes kept x cores busy on average during the fit (whole-machine busy time from
  /proc/stat minus the cell's own CPU time), marked from 0.25 cores on: such times are not
  those of a quiet machine (LightGBM's OpenMP threads, which spin while waiting, slow down
  10x and more when another process holds one of the 2 cores: 0.55 s became 54 s).
- file MiB, save s, load s: the fitted model written to a file in a temporary directory and
  read back. quercus: `forest.save(path)` (a zip of JSON metadata and .npy arrays) and
  `quercus.load(path)`; scikit-learn and sklearnex: `pickle.dump` / `pickle.load` with
  protocol 5; LightGBM: `booster_.save_model(path)` (its text format) and
  `lightgbm.Booster(model_file=path)`. The loaded model must predict the test split as the
  fitted one does (LightGBM: the same probabilities); a load time marked with ! did not.
- leaves: the leaves of all trees together.

Each cell process may use at most `--mem-limit` GiB of address space (default 16; 0: no
limit), so that a forest too large for the machine fails alone with "out of memory", and is
stopped after `--timeout` seconds (default 1,800). With `--repeats R` every cell runs R times,
each in a fresh process, and the medians are shown (accuracy, leaves: the first run's); the
runs of one data set go round the implementations R times, so that a slow spell of the machine
falls on all of them alike.

Old code beside new: `--baseline REV` (repeatable; or `quercus@REV` in `--only`) adds the
quercus of git revision REV as one more implementation, "quercus@<commit>", run from a
worktree of REV under the temporary directory with `PYTHONPATH=<worktree>/src` and the same
interpreter (bench/baseline.py). A further table then gives, per data set, the fit and predict
times of the baseline and of the current code and their ratio current / baseline (above 1:
the current code is slower).
"""

import argparse
import gc
import importlib.metadata
import importlib.util
import io
import json
import logging
import math
import os
import pickle
import platform
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import baseline
import numpy as np
from cells import chosen, last_error_line, markdown_table, run_json, stderr_tail
from machine import cpu_model, proc_status_kb, quercus_version, reset_peak_rss, version

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO.parent / "shared" / "datasets"

IMPLEMENTATIONS = ["quercus", "sklearn", "sklearnex", "lightgbm"]
IMPL_LABELS = {
    "quercus": "quercus",
    "sklearn": "scikit-learn",
    "sklearnex": "scikit-learn + oneDAL",
    "lightgbm": "LightGBM rf",
}

N_TREES = 100
N_JOBS = 2
SEED = 0
TEST_SIZE = 0.2
N_FEATURES = 20
SYNTHETIC = {"100k": 100_000, "1m": 1_000_000}
REAL_FILE = "skin_segmentation.csv"
REAL_TARGET = "skin"
SIZES = ["100k", "1m", "real"]

QUICK_ROWS = 10_000
QUICK_TREES = 10
WARMUP_ROWS = 2_000
WARMUP_TREES = 2
WARMUP_BINS = ("auto", 255)  # compile the kernels of both bin dtypes before timing

# LightGBM refuses num_leaves > 131072; a tree cannot have more leaves than training rows.
LGBM_MAX_LEAVES = 131072
LGBM_HISTOGRAM_POOL_MB = 256
LGBM_BAGGING_FRACTION = 0.632  # 1 - 1/e: the share of distinct rows in a bootstrap sample

# Mark a fit during which other processes kept at least this many cores busy (the machine
# has 2 cores and OpenMP spin-waiting collapses when another process holds one).
OTHER_LOAD_MARK = 0.25

PICKLE_PROTOCOL = 5
DEFAULT_TIMEOUT_S = 1800.0


# ----------------------------------------------------------------------------------- data


def dataset_label(size, quick):
    if size == "real":
        return "skin_segmentation" + (" 10k (quick)" if quick else "")
    rows = QUICK_ROWS if quick else SYNTHETIC[size]
    text = f"{rows // 1000:,}k" if rows < 1_000_000 else f"{rows // 1_000_000}M"
    return f"synthetic {text} x {N_FEATURES}"


def load_data(size, quick, data_dir):
    """X_train, X_test (float64, C order), y_train, y_test of one data set."""
    from sklearn.model_selection import train_test_split

    if size == "real":
        import pandas as pd

        frame = pd.read_csv(Path(data_dir) / REAL_FILE)
        y = frame[REAL_TARGET].astype(str).to_numpy()
        X = frame.drop(columns=REAL_TARGET).to_numpy(dtype=np.float64)
        if quick:
            keep, _ = train_test_split(
                np.arange(len(y)), train_size=QUICK_ROWS, stratify=y, random_state=SEED
            )
            keep = np.sort(keep)
            X, y = X[keep], y[keep]
        stratify = y
    else:
        from sklearn.datasets import make_classification

        X, y = make_classification(
            n_samples=QUICK_ROWS if quick else SYNTHETIC[size],
            n_features=N_FEATURES,
            n_informative=10,
            n_redundant=5,
            flip_y=0.05,
            random_state=SEED,
        )
        stratify = None
    X = np.ascontiguousarray(X, dtype=np.float64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=TEST_SIZE, stratify=stratify, random_state=SEED
    )
    return (np.ascontiguousarray(X_train), np.ascontiguousarray(X_test), y_train, y_test)


# --------------------------------------------------------------------------------- models


def make_model(impl, n_trees, n_train, n_features, lightgbm_sampling="node"):
    if impl == "quercus":
        import quercus

        return quercus.RandomForestClassifier(
            n_estimators=n_trees, n_jobs=N_JOBS, random_state=SEED
        )
    if impl in ("sklearn", "sklearnex"):  # sklearnex: patched before this import
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=n_trees, n_jobs=N_JOBS, random_state=SEED)
    if impl == "lightgbm":
        import lightgbm

        fraction = math.sqrt(n_features) / n_features
        sampling = {"node": "feature_fraction_bynode", "tree": "feature_fraction"}
        return lightgbm.LGBMClassifier(
            boosting_type="rf",
            n_estimators=n_trees,
            bagging_freq=1,
            bagging_fraction=LGBM_BAGGING_FRACTION,
            **{sampling[lightgbm_sampling]: fraction},
            num_leaves=max(2, min(LGBM_MAX_LEAVES, n_train)),
            max_depth=-1,
            min_child_samples=1,  # min_data_in_leaf
            min_child_weight=0.0,  # min_sum_hessian_in_leaf
            histogram_pool_size=LGBM_HISTOGRAM_POOL_MB,
            n_jobs=N_JOBS,
            verbose=-1,
            random_state=SEED,
        )
    raise ValueError(f"unknown implementation {impl!r}")


def count_leaves(impl, est):
    try:
        if impl == "lightgbm":
            text = est.booster_.model_to_string()
            return sum(int(n) for n in re.findall(r"^num_leaves=(\d+)$", text, re.MULTILINE))
        return int(sum(int(tree.get_n_leaves()) for tree in est.estimators_))
    except Exception as exc:  # a count is a nicety; never let it fail a cell
        print(f"leaves not counted: {exc!r}", file=sys.stderr)
        return None


def save_and_load(impl, est, X_test, y_pred, directory):
    """Write the model, read it back; file size, times and whether the copy predicts alike."""
    if impl == "quercus":
        import quercus

        path = Path(directory) / "forest.zip"
        start = time.perf_counter()
        est.save(path)
        save_s = time.perf_counter() - start
        start = time.perf_counter()
        loaded = quercus.load(path)
        load_s = time.perf_counter() - start
        same = bool(np.array_equal(loaded.predict(X_test), y_pred))
    elif impl == "lightgbm":
        import lightgbm

        path = Path(directory) / "forest.txt"
        start = time.perf_counter()
        est.booster_.save_model(str(path))
        save_s = time.perf_counter() - start
        start = time.perf_counter()
        loaded = lightgbm.Booster(model_file=str(path))
        load_s = time.perf_counter() - start
        same = bool(np.allclose(loaded.predict(X_test), est.booster_.predict(X_test)))
    else:
        path = Path(directory) / "forest.pickle"
        start = time.perf_counter()
        with open(path, "wb") as f:
            pickle.dump(est, f, protocol=PICKLE_PROTOCOL)
        save_s = time.perf_counter() - start
        start = time.perf_counter()
        with open(path, "rb") as f:
            loaded = pickle.load(f)
        load_s = time.perf_counter() - start
        same = bool(np.array_equal(loaded.predict(X_test), y_pred))
    size = path.stat().st_size
    del loaded
    return {"file_mib": size / 2**20, "save_s": save_s, "load_s": load_s, "roundtrip": same}


# ---------------------------------------------------------------------- one cell (child)


def busy_seconds():
    """CPU seconds the whole machine has spent busy (all processes, all cores): /proc/stat."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + ticks[4]  # idle, iowait
    guest = sum(ticks[8:10])  # guest time is already counted in user time
    return (sum(ticks) - idle - guest) / os.sysconf("SC_CLK_TCK")


def sklearnex_log():
    """A buffer that receives sklearnex's INFO lines ("...fit: running accelerated version")."""
    buffer = io.StringIO()
    logger = logging.getLogger("sklearnex")
    logger.addHandler(logging.StreamHandler(buffer))
    logger.setLevel(logging.INFO)
    return buffer


def onedal_used(log_text, method):
    lines = [ln for ln in log_text.splitlines() if f".{method}:" in ln]
    if not lines:
        return "?"
    return "oneDAL" if all("accelerated" in ln for ln in lines) else "fallback"


def quercus_warmup(X_train, y_train, X_test):
    """Compile quercus's kernels: small forests on the first rows, both bin dtypes; on
    ONE_BYTE_MIN_ROWS rows for a training set that large (quercus codes its bins in 1 byte
    from there), and on one row more than BIN_SAMPLE_ROWS for a set larger than that (its
    bins then come from a sample, and each bin's extremes from a kernel of their own)."""
    import quercus

    try:
        from quercus.binning import BIN_SAMPLE_ROWS, ONE_BYTE_MIN_ROWS
    except ImportError:  # an older commit: one code width for every size
        BIN_SAMPLE_ROWS = ONE_BYTE_MIN_ROWS = float("inf")

    for max_bins in WARMUP_BINS:
        warm = quercus.RandomForestClassifier(
            n_estimators=WARMUP_TREES, n_jobs=N_JOBS, random_state=SEED, max_bins=max_bins
        )
        rows = WARMUP_ROWS
        if len(y_train) >= ONE_BYTE_MIN_ROWS:  # each code width compiles its own kernels
            rows = ONE_BYTE_MIN_ROWS
        if len(y_train) > BIN_SAMPLE_ROWS:
            rows = BIN_SAMPLE_ROWS + 1
        warm.fit(X_train[:rows], y_train[:rows])
        warm.predict(X_test[:WARMUP_ROWS])
    del warm


def run_cell(spec):
    """Fit, time and save one forest on one data set; print the result as one JSON line."""
    impl = spec["impl"]
    if spec["mem_limit_gib"] > 0:
        limit = int(spec["mem_limit_gib"] * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    log = None
    if impl == "sklearnex":  # before anything imports sklearn.ensemble
        log = sklearnex_log()
        from sklearnex import patch_sklearn

        patch_sklearn()

    X_train, X_test, y_train, y_test = load_data(spec["size"], spec["quick"], spec["data_dir"])
    if impl == "quercus":
        quercus_warmup(X_train, y_train, X_test)

    est = make_model(impl, spec["trees"], len(y_train), X_train.shape[1], spec["lightgbm_sampling"])
    module = type(est).__module__
    if impl == "sklearnex" and not module.startswith(("sklearnex", "daal4py")):
        raise RuntimeError(f"patch_sklearn() did not take: the estimator comes from {module}")

    compiles = None
    quercus_file = None
    if impl == "quercus":
        from numba.core import event

        quercus_file = sys.modules["quercus"].__file__

        recorder = event.install_recorder("numba:compile")
        compiles = recorder.__enter__()

    gc.collect()
    peak_reset = reset_peak_rss()
    rss_before_kb = proc_status_kb("VmRSS")
    busy_start = busy_seconds()
    cpu_start = time.process_time()
    start = time.perf_counter()
    est.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    cpu_s = time.process_time() - cpu_start
    busy_end = busy_seconds()
    peak_kb = proc_status_kb("VmHWM")
    other_cores = None  # cores that other processes kept busy during the fit
    if busy_start is not None and busy_end is not None and fit_s > 0:
        other_cores = max(0.0, (busy_end - busy_start - cpu_s) / fit_s)
    n_compiles_fit = len(compiles.buffer) if compiles is not None else 0

    start = time.perf_counter()
    y_pred = est.predict(X_test)
    predict_s = time.perf_counter() - start
    n_compiles_predict = len(compiles.buffer) - n_compiles_fit if compiles is not None else 0
    if compiles is not None:
        recorder.__exit__(None, None, None)
    accuracy = float(np.mean(np.asarray(y_pred) == np.asarray(y_test)))

    with tempfile.TemporaryDirectory(prefix="forest_bench_") as tmp:
        files = save_and_load(impl, est, X_test, y_pred, tmp)

    result = {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "accuracy": accuracy,
        "peak_mib": (peak_kb - rss_before_kb) / 1024,
        "peak_reset": peak_reset,
        "cpu_per_wall": cpu_s / fit_s if fit_s > 0 else None,
        "other_cores": other_cores,
        "leaves": count_leaves(impl, est),
        "n_train": len(y_train),
        "n_test": len(y_test),
        "n_features": int(X_train.shape[1]),
        "module": module,
        "compiles_fit": n_compiles_fit,
        "compiles_predict": n_compiles_predict,
        "quercus_file": quercus_file,
        **files,
    }
    if log is not None:
        text = log.getvalue()
        result["onedal_fit"] = onedal_used(text, "fit")
        result["onedal_predict"] = onedal_used(text, "predict")
    print(json.dumps(result), flush=True)


def probe_sklearnex():
    """What patch_sklearn() puts in place of sklearn's RandomForestClassifier (one JSON line)."""
    from sklearnex import patch_sklearn

    patch_sklearn()
    from sklearn.ensemble import RandomForestClassifier

    cls = RandomForestClassifier
    print(json.dumps({"class": f"{cls.__module__}.{cls.__qualname__}"}), flush=True)


# ------------------------------------------------------------------------- parent driver


def run_subprocess(args_list, timeout, source=None):
    """Run this script with ``args_list`` in a fresh interpreter (quercus from ``source``, a
    baseline.Source, if given): its last JSON line, or {"error": message}, or
    {"timeout": seconds}."""
    cmd = [sys.executable, os.path.abspath(__file__), *args_list]
    ran = run_json(cmd, timeout, baseline.child_env(source) if source is not None else None)
    if ran.timed_out:
        return {"timeout": timeout}
    if ran.result is not None:
        wrong = source and baseline.imported_from(source, ran.result["quercus_file"])
        return {"error": wrong} if wrong else ran.result
    sys.stderr.write(stderr_tail(ran, 15))
    out_of_memory = ("MemoryError", "bad_alloc", "Cannot allocate memory", "std::bad_alloc")
    if ran.returncode == -9 or any(s in ran.stderr for s in out_of_memory):
        return {"error": "out of memory"}
    return {"error": last_error_line(ran)[:80]}


def median_result(results):
    """Medians of the times and memory over repeats; the first run's other values."""
    merged = dict(results[0])
    keys = ("fit_s", "predict_s", "peak_mib", "cpu_per_wall", "other_cores", "save_s", "load_s")
    for key in keys:
        values = [r[key] for r in results if r.get(key) is not None]
        merged[key] = statistics.median(values) if values else None
    merged["peak_reset"] = all(r["peak_reset"] for r in results)
    merged["roundtrip"] = all(r["roundtrip"] for r in results)
    merged["compiles_fit"] = max(r["compiles_fit"] for r in results)
    merged["compiles_predict"] = max(r["compiles_predict"] for r in results)
    return merged


def installed(module):
    return importlib.util.find_spec(module) is not None


def impl_status(impl):
    """None if the implementation can run here, else why its row is n/a."""
    if impl == "quercus":
        if not installed("quercus"):
            return "n/a (not installed)"
        import quercus

        if not hasattr(quercus, "RandomForestClassifier"):
            return "n/a (not built)"
    if impl == "sklearnex" and not installed("sklearnex"):
        return "n/a (not installed)"
    if impl == "lightgbm" and not installed("lightgbm"):
        return "n/a (not installed)"
    return None


def outcome(result):
    if isinstance(result, str):
        return result
    if "error" in result:
        return "error: " + result["error"]
    if "timeout" in result:
        return f"timeout after {result['timeout']:g} s"
    return f"fit {result['fit_s']:.2f} s, accuracy {result['accuracy']:.4f}"


def impl_label(impl):
    """An implementation's name in the tables (a baseline's is its own: quercus@<commit>)."""
    return IMPL_LABELS.get(impl, impl)


def format_row(label, impl, result, marks):
    name = impl_label(impl)
    blank = [""] * 9
    if isinstance(result, str):  # n/a
        return [label, "", name, result, *blank[1:]]
    if "error" in result:
        return [label, "", name, "error: " + result["error"], *blank[1:]]
    if "timeout" in result:
        return [label, "", name, f"> {result['timeout']:g} s (timeout)", *blank[1:]]
    rows = f"{result['n_train']:,} / {result['n_test']:,}"
    fit = f"{result['fit_s']:.2f}"
    predict = f"{result['predict_s']:.3f}"
    if result["compiles_fit"]:
        fit += " †"
        marks.add("†")
    if result["compiles_predict"]:
        predict += " †"
        marks.add("†")
    if impl == "sklearnex":
        used = {result.get("onedal_fit"), result.get("onedal_predict")}
        if used != {"oneDAL"}:
            name += f" (fit: {result.get('onedal_fit')}, predict: {result.get('onedal_predict')})"
            marks.add("fallback")
    mem = f"{result['peak_mib']:.0f}" + ("" if result["peak_reset"] else "*")
    cores = "?" if result["cpu_per_wall"] is None else f"{result['cpu_per_wall']:.2f}"
    if busy_machine(result):
        cores += f" ‡{result['other_cores']:.2f}"
        marks.add("‡")
    load = f"{result['load_s']:.3f}"
    if not result["roundtrip"]:
        load += " !"
        marks.add("!")
    leaves = "?" if result["leaves"] is None else f"{result['leaves']:,}"
    return [
        label,
        rows,
        name,
        fit,
        predict,
        f"{result['accuracy']:.4f}",
        mem,
        cores,
        f"{result['file_mib']:.1f}",
        f"{result['save_s']:.3f}",
        load,
        leaves,
    ]


def busy_machine(result):
    """True if other processes kept a noticeable share of the cores busy during the fit."""
    other = result.get("other_cores")
    return other is not None and other >= OTHER_LOAD_MARK and result["fit_s"] >= 0.2


def times_text(peer_value, quercus_value, more="slower", less="faster"):
    """How quercus compares with a peer on a cost (time, memory, bytes): "3.1x faster"."""
    if quercus_value is None or peer_value is None or quercus_value <= 0 or peer_value <= 0:
        return "?"
    r = peer_value / quercus_value
    if 0.95 <= r <= 1.05:
        return "about the same"
    return f"{r:.1f}x {less}" if r > 1 else f"{1 / r:.1f}x {more}"


def completed(results, label):
    return {
        impl: r
        for (lab, impl), r in results.items()
        if lab == label and isinstance(r, dict) and "fit_s" in r
    }


def reading(labels, results, n_trees):
    """Bullet points computed from the table: quercus against each peer, per data set."""
    lines = []
    for label in labels:
        ok = completed(results, label)
        if not ok:
            continue
        best_fit = min(ok, key=lambda i: ok[i]["fit_s"])
        best_acc = max(ok, key=lambda i: ok[i]["accuracy"])
        summary = (
            f"fastest fit {impl_label(best_fit)} ({ok[best_fit]['fit_s']:.2f} s), best "
            f"accuracy {impl_label(best_acc)} ({ok[best_acc]['accuracy']:.4f})"
        )
        q = ok.get("quercus")
        if q is None:
            lines.append(f"- {label}: no quercus result; {summary}.")
            continue
        lines.append(
            f"- {label}: quercus fits {n_trees} trees in {q['fit_s']:.2f} s and predicts in "
            f"{q['predict_s']:.3f} s at accuracy {q['accuracy']:.4f}; {summary}."
        )
        for impl in IMPLEMENTATIONS[1:]:
            p = ok.get(impl)
            if p is None:
                continue
            diff = 100 * (q["accuracy"] - p["accuracy"])
            lines.append(
                f"  - against {IMPL_LABELS[impl]}: quercus fits "
                f"{times_text(p['fit_s'], q['fit_s'])} ({q['fit_s']:.2f} s vs {p['fit_s']:.2f} s),"
                f" predicts {times_text(p['predict_s'], q['predict_s'])}, accuracy "
                f"{diff:+.2f} points; peak memory "
                f"{times_text(p['peak_mib'], q['peak_mib'], 'more', 'less')}, model file "
                f"{times_text(p['file_mib'], q['file_mib'], 'larger', 'smaller')}, loads "
                f"{times_text(p['load_s'], q['load_s'])}."
            )
    busy = [
        f"{label} / {impl_label(impl)}"
        for (label, impl), r in results.items()
        if isinstance(r, dict) and "fit_s" in r and busy_machine(r)
    ]
    if busy:
        lines.append(
            "- The machine was not quiet during the fits of " + ", ".join(busy) + " (‡): "
            "compare those times with care."
        )
    return lines


def sklearnex_header(args):
    if "sklearnex" not in args.impls:
        return "not run"
    if impl_status("sklearnex") is not None:
        return "not installed"
    probe = run_subprocess(["--probe-sklearnex"], timeout=300)
    if "class" not in probe:
        return f"patch_sklearn() failed: {probe.get('error', probe)}"
    patched = probe["class"].startswith(("sklearnex", "daal4py"))
    verdict = "patched" if patched else "NOT patched"
    return (
        f"patch_sklearn() makes sklearn.ensemble.RandomForestClassifier {probe['class']} "
        f"({verdict})"
    )


def header_lines(args):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    libs = ["scikit-learn", "scikit-learn-intelex", "daal", "lightgbm", "numpy", "numba", "pandas"]
    limit = f"{args.mem_limit:g} GiB" if args.mem_limit > 0 else "none"
    lines = [
        "# Random forest benchmark",
        "",
        f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}",
        f"- Python {platform.python_version()}, {platform.system()} {platform.release()}",
        f"- quercus {quercus_version()}",
        "- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs),
        f"- sklearnex: {sklearnex_header(args)}",
        f"- {args.trees} trees, {N_JOBS} threads (n_jobs) per implementation; repeats per cell: "
        f"{args.repeats} (median shown); quercus JIT warm-up: {WARMUP_TREES} trees on "
        f"{WARMUP_ROWS:,} rows (more on large sets: quercus_warmup), max_bins "
        f"{' and '.join(map(str, WARMUP_BINS))}",
        f"- per cell: a fresh process, time limit {args.timeout:g} s, memory limit {limit}",
        f"- LightGBM feature sampling: {args.lightgbm_sampling} "
        f"({'feature_fraction_bynode' if args.lightgbm_sampling == 'node' else 'feature_fraction'}"
        "=sqrt(p)/p)",
    ]
    if args.quick:
        lines.append(f"- --quick: {QUICK_ROWS:,} rows per data set, {QUICK_TREES} trees")
    for source in args.sources[:-1]:
        lines.append(f"- {source.name}: git commit {source.commit}, run from {source.src}")
    return lines


def selected_sizes(args):
    """(size key, label) of the data sets to run; --quick folds the two synthetic sets."""
    chosen, seen = [], set()
    for size in SIZES:
        if size not in args.sizes:
            continue
        label = dataset_label(size, args.quick)
        if label not in seen:
            seen.add(label)
            chosen.append((size, label))
    return chosen


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default=",".join(SIZES),
        help=f"comma-separated data sets, from: {','.join(SIZES)} (default: all)",
    )
    parser.add_argument(
        "--only",
        default=",".join(IMPLEMENTATIONS),
        help=f"comma-separated implementations, from: {','.join(IMPLEMENTATIONS)}, and "
        "quercus@REV (as --baseline REV)",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="also run the quercus of git revision REV (a worktree under /tmp); repeatable",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of each cell (fresh process each), median shown",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_ROWS:,} rows and {QUICK_TREES} trees: a smoke test in about a minute",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=f"stop a cell after S seconds (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--mem-limit",
        type=float,
        default=16.0,
        metavar="GIB",
        help="address-space limit of each cell process in GiB (default 16; 0: none)",
    )
    parser.add_argument(
        "--lightgbm-sampling",
        choices=["node", "tree"],
        default="node",
        help="LightGBM draws sqrt(p) features at every split (node, default: as a random "
        "forest does) or once per tree (tree: feature_fraction)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help=f"where {REAL_FILE} is (default {DEFAULT_DATA_DIR})",
    )
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: run one cell
    parser.add_argument("--probe-sklearnex", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.sizes = chosen(parser, "--sizes", args.sizes, SIZES)
    args.impls, revs = baseline.split_names([m.strip() for m in args.only.split(",") if m.strip()])
    args.baselines = [*args.baseline, *revs]
    chosen(parser, "--only", ",".join(args.impls), IMPLEMENTATIONS)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    args.trees = QUICK_TREES if args.quick else N_TREES
    return args


def impl_entries(args):
    """(key in the tables, implementation, baseline.Source or None) of each implementation to
    run: the baselines just before the current quercus."""
    entries = []
    for impl in IMPLEMENTATIONS:
        if impl == "quercus":
            entries += [(source.name, impl, source) for source in args.sources[:-1]]
        if impl in args.impls:
            entries.append((impl, impl, None))
    return entries


def run_dataset(args, size, label, entries):
    """Results of every implementation on one data set, {key: result}; the repeats go round
    the implementations, so that old and new code alternate."""
    data_missing = size == "real" and not (args.data_dir / REAL_FILE).exists()
    runs, results, took = {}, {}, {}
    for key, _, _ in entries:
        status = f"n/a (no {args.data_dir / REAL_FILE})" if data_missing else impl_status(key)
        if status is not None:
            results[key] = status
            print(f"{label} / {impl_label(key)}: {status}", file=sys.stderr, flush=True)
        else:
            runs[key], took[key] = [], 0.0
    for r in range(args.repeats):
        for key, impl, source in entries:
            if key not in runs or (runs[key] and "fit_s" not in runs[key][-1]):
                continue
            progress = f"[{r + 1}/{args.repeats}] {label} / {impl_label(key)}"
            print(f"{progress} ...", file=sys.stderr, flush=True)
            spec = {
                "impl": impl,
                "size": size,
                "quick": args.quick,
                "trees": args.trees,
                "data_dir": str(args.data_dir),
                "mem_limit_gib": args.mem_limit,
                "lightgbm_sampling": args.lightgbm_sampling,
            }
            start = time.perf_counter()
            runs[key].append(run_subprocess(["--cell", json.dumps(spec)], args.timeout, source))
            took[key] += time.perf_counter() - start
            print(f"{progress}: {outcome(runs[key][-1])}", file=sys.stderr, flush=True)
    for key, key_runs in runs.items():
        results[key] = key_runs[-1] if "fit_s" not in key_runs[-1] else median_result(key_runs)
        print(
            f"{label} / {impl_label(key)}: {outcome(results[key])} (cell {took[key]:.0f} s)",
            file=sys.stderr,
        )
    return results


def baseline_rows(labels, results, sources):
    """Rows of the old-against-new table: per data set and baseline, fit and predict times of
    the baseline and of the current code, and their ratio current / baseline."""
    rows = []
    for label in labels:
        new = results.get((label, "quercus"))
        for source in sources[:-1]:
            old = results.get((label, source.name))
            rows.append([label, source.name, *baseline.ratio_cells(old, new)])
    return rows


def main(argv=None):
    args = parse_args(argv)
    if args.cell:
        run_cell(json.loads(args.cell))
        return
    if args.probe_sklearnex:
        probe_sklearnex()
        return

    args.sources = baseline.sources(args.baselines)
    header = header_lines(args)  # before the cells: the sklearnex probe runs here
    datasets = selected_sizes(args)
    entries = impl_entries(args)
    rows, results, marks = [], {}, set()
    for size, label in datasets:
        for key, result in run_dataset(args, size, label, entries).items():
            results[(label, key)] = result
        rows += [format_row(label, key, results[(label, key)], marks) for key, _, _ in entries]

    print("\n".join(header))
    print()
    table_header = [
        "data set",
        "train / test rows",
        "implementation",
        "fit s",
        "predict s",
        "test accuracy",
        "peak MiB",
        "cores",
        "file MiB",
        "save s",
        "load s",
        "leaves",
    ]
    print(markdown_table(table_header, rows))
    print()
    print(
        "fit s / predict s: one `fit` on the training rows, one `predict` on the test rows "
        "(quercus: after a JIT warm-up in the same process)."
    )
    print(
        "peak MiB: peak RSS during fit (VmHWM) minus RSS just before fit (VmRSS) "
        "(* = peak since the cell process started). cores: CPU time / wall time of the fit."
    )
    print(
        "file: quercus `save` (zip of JSON + .npy) and `quercus.load`; scikit-learn and "
        f"sklearnex pickle protocol {PICKLE_PROTOCOL}; LightGBM `booster_.save_model` (text) "
        "and `lightgbm.Booster(model_file=...)`."
    )
    print(
        f"leaves: all {args.trees} trees together. LightGBM: num_leaves=min({LGBM_MAX_LEAVES}, "
        f"training rows), bagging_fraction={LGBM_BAGGING_FRACTION} without replacement."
    )
    if "†" in marks:
        print("†: Numba compiled functions during this timed call, after the warm-up.")
    if "‡" in marks:
        print(
            "‡x: during this fit other processes kept x cores busy on average (from /proc/stat): "
            "its times are not those of a quiet machine; run it again."
        )
    if "!" in marks:
        print("!: the model read back from the file did not predict as the fitted one did.")
    if "fallback" in marks:
        print("sklearnex fell back to stock scikit-learn where its row says so.")
    print()
    if args.sources[:-1] and "quercus" in args.impls:
        print("The current code against its baselines (seconds, medians):")
        print()
        table_header = ["data set", "baseline", "fit s baseline", "fit s current", "fit ratio"]
        table_header += ["predict s baseline", "predict s current", "predict ratio"]
        labels = [label for _, label in datasets]
        print(markdown_table(table_header, baseline_rows(labels, results, args.sources)))
        print()
        print("ratio: current / baseline (above 1: the current code is slower).")
        print()
    print("Reading:")
    print()
    print("\n".join(reading([label for _, label in datasets], results, args.trees)))


if __name__ == "__main__":
    main()
