"""Single decision trees: quercus beside scikit-learn, HistGradientBoosting and LightGBM.

Run from the repository root:

    .venv/bin/python bench/single_tree.py [--sizes small|all|SET,...] [--repeat R] [--quick]
                                          [--only quercus,sklearn,hgb,lightgbm,quercus@REV]
                                          [--baseline REV ...] [--no-cold-start]
                                          [--no-warmup] [--mem-limit GIB]

    .venv/bin/python bench/single_tree.py --quick        # 20k rows per data set: a smoke test
    .venv/bin/python bench/single_tree.py --sizes small  # the 100k data set only
    .venv/bin/python bench/single_tree.py                # everything: the 1M sets take 30+ minutes

    # the current code against commit 252f360 at 1M x 20 (2 classes), 5 runs per cell
    .venv/bin/python bench/single_tree.py --sizes clf2-1m --only quercus --baseline 252f360 \
        --repeat 5 --no-cold-start

The data sets (`--sizes`, comma-separated) are clf2-100k, clf2-1m, clf7-1m and reg-1m
(classification with 2 or 7 classes, regression; 100k or 1M rows, 20 features), and
clf2-1m-depth10 (every model limited to depth 10) and clf2-1m-100f (100 features); `small` is
clf2-100k and `all` (the default) is every one.

quercus grows one tree on every core (`n_jobs=-1`, its default); the row "quercus
DecisionTree, 1 thread" is the same tree on one thread (`n_jobs=1`).

LightGBM is optional (`.venv/bin/pip install lightgbm`); without it its rows say n/a. So do the
quercus rows while `quercus.DecisionTreeClassifier` / `DecisionTreeRegressor` do not exist.

The tables go to stdout as markdown (paste them into bench/README.md); progress goes to stderr.

What is measured. Every (data set, model) cell runs in a fresh Python process (this script
started again with `--cell`), which generates its data (`make_classification` /
`make_regression`, random_state=0, float64 X), holds out 20% as test set (`train_test_split`,
random_state=0) and fits the model once:

- fit s, predict s: wall time (`time.perf_counter`) of one `fit` on the training set and one
  `predict` on the test set. Fit includes each library's own binning or conversion of X.
  quercus compiles Numba kernels on first use; by default that is done beforehand by a warm-up
  fit on the first 500 training rows (200,000 when the training set has that many: quercus
  codes bins in 1 byte from there, in 2 below, and each width has its own kernels) and
  predict on 500 test rows, so fit s and predict s
  measure the work, not the compilation (`--no-warmup` includes it). Compilation and cache
  loading are measured in the second table.
- accuracy / R^2: on the test set. HistGradientBoosting and LightGBM fit one boosting
  iteration with learning_rate=1.0 (one tree, or one tree per class for more than two
  classes): for classification that is a single Newton step on the log loss, a valid model
  but not a fully fitted one, and its accuracy is reported as it is.
- peak MiB: the increase of the process's resident set during fit: the peak RSS at the end of
  fit (VmHWM in /proc/self/status) minus the RSS just before fit (VmRSS there). The peak is
  reset just before fit (`echo 5 > /proc/self/clear_refs`), so data generation does not count;
  where that reset is not allowed the value is the peak over the whole cell process and is
  marked with `*`. (`getrusage().ru_maxrss` is not used: in a child started by vfork/exec it
  starts at the parent's peak, which here is larger than many cells' own.)
- threads: the number of threads the library is set to use (scikit-learn's tree: 1; OpenMP's
  for HistGradientBoosting and LightGBM; Numba's for quercus), and in brackets the CPU time of
  the process during fit divided by the fit's wall time, i.e. how many cores it kept busy.
- leaves: leaves of the fitted tree (summed over the trees of a multiclass boosting iteration).

Each cell process may use at most `--mem-limit` GiB of address space (default 16 of this
machine's 24; 0 for no limit), so that a model that would exhaust the machine's memory fails
alone with "out of memory" in its row instead of starting the kernel's OOM killer.

The cold-start table times whole `python -c` processes that import quercus and fit
`quercus.ID3Classifier()` on the playtennis data set, with NUMBA_CACHE_DIR set to a fresh
empty directory and then again with the same, now filled, directory.

With `--repeat R` every cell (and cold-start run) is run R times and the medians are shown;
the runs of one data set go round the models R times, so that a slow spell of the machine
falls on all of them alike.

Old code beside new: `--baseline REV` (repeatable; or `quercus@REV` in `--only`) adds the
quercus of git revision REV as one more model, "quercus@<commit> DecisionTree", run from a
worktree of REV under the temporary directory with `PYTHONPATH=<worktree>/src` and the same
interpreter (bench/baseline.py). A further table then gives, per data set, the fit and predict
times of the baseline and of the current code and their ratio current / baseline (above 1:
the current code is slower); the cold-start table gets a column per baseline too
(`--no-cold-start` leaves that table out).
"""

import argparse
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

import baseline
import numpy as np
from cells import markdown_table
from machine import cpu_model, proc_status_kb, reset_peak_rss, version

MODELS = ["quercus", "quercus1", "sklearn", "hgb", "lightgbm"]
MODEL_LABELS = {
    "quercus": "quercus DecisionTree",
    "quercus1": "quercus DecisionTree, 1 thread",
    "sklearn": "scikit-learn DecisionTree",
    "hgb": "scikit-learn HGB, 1 iteration",
    "lightgbm": "LightGBM, 1 iteration",
}

N_FEATURES = 20


class Dataset(NamedTuple):
    """One data set of the benchmark: rows is the total before the 20% test hold-out;
    max_depth (None: full depth) applies to every model of its rows."""

    task: str
    rows: int
    classes: int | None
    features: int = N_FEATURES
    max_depth: int | None = None


DATASETS = {
    "clf2-100k": Dataset("classification", 100_000, 2),
    "clf2-1m": Dataset("classification", 1_000_000, 2),
    "clf7-1m": Dataset("classification", 1_000_000, 7),
    "reg-1m": Dataset("regression", 1_000_000, None),
    "clf2-1m-depth10": Dataset("classification", 1_000_000, 2, max_depth=10),
    "clf2-1m-100f": Dataset("classification", 1_000_000, 2, features=100),
}
SMALL_DATASETS = ["clf2-100k"]
QUICK_ROWS = 20_000
REGRESSION_NOISE = 10.0
TEST_SIZE = 0.2
WARMUP_ROWS = 500

# LightGBM refuses num_leaves > 131072. A tree cannot have more leaves than training rows, so
# min(131072, n_train) means "no limit" wherever the data allow it.
LGBM_MAX_LEAVES = 131072
# LightGBM allocates and touches a histogram cache for num_leaves leaves up front unless
# histogram_pool_size (MB) caps it: uncapped, 131072 leaves take about 10 GB and ~20 s before
# the first split, even on 20k rows. The cap only changes what is cached, not the tree.
LGBM_HISTOGRAM_POOL_MB = 256

COLD_START_CODE = (
    "import quercus; "
    "df = quercus.datasets.load('playtennis'); "
    "quercus.ID3Classifier().fit(df.iloc[:, :-1], df.iloc[:, -1])"
)
IMPORT_ONLY_CODE = "import quercus"


# ----------------------------------------------------------------------------------- data


def make_data(task, n_rows, n_classes, n_features=N_FEATURES):
    """The data set of one cell: X_train, X_test, y_train, y_test (X float64)."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.model_selection import train_test_split

    if task == "classification":
        X, y = make_classification(
            n_samples=n_rows,
            n_features=n_features,
            n_informative=10,
            n_classes=n_classes,
            random_state=0,
        )
    else:
        X, y = make_regression(
            n_samples=n_rows, n_features=n_features, noise=REGRESSION_NOISE, random_state=0
        )
        y = y.astype(np.float64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    return train_test_split(X, y, test_size=TEST_SIZE, random_state=0)


def dataset_label(data: Dataset):
    rows = f"{data.rows // 1000:,}k" if data.rows < 1_000_000 else f"{data.rows // 1_000_000}M"
    what = f"{data.classes} classes" if data.task == "classification" else "regression"
    depth = "" if data.max_depth is None else f", depth {data.max_depth}"
    return f"{rows} x {data.features}, {what}{depth}"


# --------------------------------------------------------------------------------- models


def quercus_status(task):
    """None if quercus has the estimator for this task, else why its row is n/a."""
    name = "DecisionTreeClassifier" if task == "classification" else "DecisionTreeRegressor"
    try:
        import quercus
    except ImportError:
        return "n/a (not installed)"
    return None if hasattr(quercus, name) else "n/a (not built)"


def lightgbm_status():
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return "n/a (not installed)"
    return None


def model_status(model, task):
    if model.startswith("quercus"):
        return quercus_status(task)
    if model == "lightgbm":
        return lightgbm_status()
    return None


def make_model(model, task, n_train, max_depth=None):
    classify = task == "classification"
    if model in ("quercus", "quercus1"):
        import quercus

        threads = {"max_depth": max_depth}
        if "n_jobs" in quercus.DecisionTreeClassifier().get_params():  # older commits: 1
            threads["n_jobs"] = 1 if model == "quercus1" else -1
        if classify:
            return quercus.DecisionTreeClassifier(
                criterion="gini", nominal_split="binary", max_bins="auto", random_state=0, **threads
            )
        return quercus.DecisionTreeRegressor(
            criterion="squared_error", max_bins="auto", random_state=0, **threads
        )
    if model == "sklearn":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        cls = DecisionTreeClassifier if classify else DecisionTreeRegressor
        return cls(random_state=0, max_depth=max_depth)
    if model == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        cls = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
        return cls(
            max_iter=1,
            max_leaf_nodes=None,
            max_depth=max_depth,
            min_samples_leaf=1,
            early_stopping=False,
            learning_rate=1.0,
            random_state=0,
        )
    if model == "lightgbm":
        import lightgbm

        cls = lightgbm.LGBMClassifier if classify else lightgbm.LGBMRegressor
        return cls(
            n_estimators=1,
            num_leaves=max(2, min(LGBM_MAX_LEAVES, n_train, 2 ** (max_depth or 63))),
            max_depth=-1 if max_depth is None else max_depth,
            min_child_samples=1,  # min_data_in_leaf
            min_child_weight=0.0,  # min_sum_hessian_in_leaf
            learning_rate=1.0,
            histogram_pool_size=LGBM_HISTOGRAM_POOL_MB,
            random_state=0,
            verbose=-1,
        )
    raise ValueError(f"unknown model {model!r}")


def openmp_threads():
    from threadpoolctl import threadpool_info

    counts = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"]
    return max(counts) if counts else None


def threads_configured(model, est):
    if model == "sklearn":
        return 1
    if model in ("quercus", "quercus1"):
        from quercus._parallel import n_threads

        return n_threads(getattr(est, "n_jobs", 1))
    return openmp_threads()


def count_leaves(model, est):
    try:
        if model in ("sklearn", "quercus", "quercus1"):
            return int(est.get_n_leaves())
        if model == "hgb":
            return sum(p.get_n_leaf_nodes() for it in est._predictors for p in it)
        if model == "lightgbm":
            text = est.booster_.model_to_string()
            return sum(int(n) for n in re.findall(r"^num_leaves=(\d+)$", text, re.MULTILINE))
    except Exception:  # a count is a nicety; never let it fail a cell
        return None
    return None


# ---------------------------------------------------------------------- one cell (child)


def warmup_rows(n_train):
    """Rows of the warm-up fit: enough for the bin codes of the timed fit's width (quercus
    codes bins in 2 bytes below ``quercus.binning.ONE_BYTE_MIN_ROWS`` rows, and each width
    compiles its own kernels)."""
    try:
        from quercus.binning import ONE_BYTE_MIN_ROWS
    except ImportError:  # an older commit: one width for every size
        return WARMUP_ROWS
    return WARMUP_ROWS if n_train < ONE_BYTE_MIN_ROWS else ONE_BYTE_MIN_ROWS


def run_cell(spec):
    """Fit and time one model on one data set; print the result as one JSON line."""
    from sklearn.metrics import accuracy_score, r2_score

    if spec["mem_limit_gib"] > 0:
        limit = int(spec["mem_limit_gib"] * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    task, n_rows, n_classes = spec["task"], spec["rows"], spec["classes"]
    model, max_depth = spec["model"], spec["max_depth"]
    X_train, X_test, y_train, y_test = make_data(task, n_rows, n_classes, spec["features"])

    if spec["warmup"] and model.startswith("quercus"):  # compile the kernels before timing
        rows = warmup_rows(len(y_train))
        warm = make_model(model, task, rows, max_depth)
        warm.fit(X_train[:rows], y_train[:rows])
        warm.predict(X_test[:WARMUP_ROWS])
        del warm

    est = make_model(model, task, len(y_train), max_depth)
    quercus_file = sys.modules["quercus"].__file__ if model.startswith("quercus") else None
    gc.collect()
    peak_reset = reset_peak_rss()
    rss_before_kb = proc_status_kb("VmRSS")
    cpu_start = time.process_time()
    start = time.perf_counter()
    est.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    cpu_s = time.process_time() - cpu_start
    peak_kb = proc_status_kb("VmHWM")

    start = time.perf_counter()
    y_pred = est.predict(X_test)
    predict_s = time.perf_counter() - start
    if task == "classification":
        score = accuracy_score(y_test, y_pred)
    else:
        score = r2_score(y_test, y_pred)

    result = {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "score": float(score),
        "peak_mib": (peak_kb - rss_before_kb) / 1024,
        "peak_reset": peak_reset,
        "threads": threads_configured(model, est),
        "cpu_per_wall": cpu_s / fit_s if fit_s > 0 else None,
        "leaves": count_leaves(model, est),
        "n_train": len(y_train),
        "quercus_file": quercus_file,
    }
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------------ the physical floor


def histogram_pass(codes, y, n_classes, out):
    """One streaming pass over the binned matrix: every row's class weight into the
    (feature, bin, class) histogram, the work a histogram learner does per level."""
    n, p = codes.shape
    for r in range(n):
        k = y[r]
        for f in range(p):
            out[f, codes[r, f], k] += 1.0


def run_floor_cell(spec):
    """The physical floor of one data set (quercus's tree, classification): the best of 5
    timed passes of :func:`histogram_pass` over a uint8 matrix of 255 quantile bins per
    feature (the shape quercus grows on), times the levels of quercus's tree. One JSON line."""
    import numba

    task, max_depth = spec["task"], spec["max_depth"]
    X_train, _, y_train, _ = make_data(task, spec["rows"], spec["classes"], spec["features"])
    est = make_model("quercus", task, len(y_train), max_depth)
    rows = warmup_rows(len(y_train))
    est.fit(X_train[:rows], y_train[:rows])
    start = time.perf_counter()
    est.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    q = np.linspace(0, 1, 256)[1:-1]
    codes = np.empty(X_train.shape, dtype=np.uint8)
    for j in range(X_train.shape[1]):
        codes[:, j] = np.searchsorted(np.quantile(X_train[:, j], q), X_train[:, j])
    y = np.asarray(y_train, dtype=np.int64)
    n_classes = int(y.max()) + 1
    kernel = numba.njit(histogram_pass)
    out = np.zeros((codes.shape[1], 256, n_classes))
    kernel(codes[:100], y[:100], n_classes, out)  # compile
    passes = []
    for _ in range(5):
        out[:] = 0.0
        start = time.perf_counter()
        kernel(codes, y, n_classes, out)
        passes.append(time.perf_counter() - start)
    levels = int(est.get_depth())
    print(json.dumps({"fit_s": fit_s, "pass_s": min(passes), "levels": levels}), flush=True)


# ------------------------------------------------------------------------- parent driver


def run_cell_in_subprocess(spec, source=None):
    """Run one cell in a fresh interpreter (quercus from ``source``, a baseline.Source, if
    given); its result dict, or {"error": message}."""
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", json.dumps(spec)]
    env = baseline.child_env(source) if source is not None else None
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode == 0 and lines:
        result = json.loads(lines[-1])
        wrong = source and baseline.imported_from(source, result["quercus_file"])
        return {"error": wrong} if wrong else result
    sys.stderr.write("".join(proc.stderr.splitlines(keepends=True)[-15:]))
    out_of_memory = ("MemoryError", "bad_alloc", "Cannot allocate memory")
    if proc.returncode == -9 or any(s in proc.stderr for s in out_of_memory):
        return {"error": f"out of memory (limit {spec['mem_limit_gib']:g} GiB)"}
    last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
    return {"error": last[:80]}


def median_result(results):
    """Median of each number over repeats (first run's score, leaves and flags)."""
    merged = dict(results[0])
    for key in ("fit_s", "predict_s", "peak_mib", "cpu_per_wall"):
        values = [r[key] for r in results if r.get(key) is not None]
        merged[key] = statistics.median(values) if values else None
    merged["peak_reset"] = all(r["peak_reset"] for r in results)
    return merged


def format_row(label, name, result):
    if isinstance(result, str):  # n/a
        return [label, name, result, "", "", "", "", ""]
    if "error" in result:
        return [label, name, "error: " + result["error"], "", "", "", "", ""]
    mem = f"{result['peak_mib']:.0f}" + ("" if result["peak_reset"] else "*")
    threads = "?" if result["threads"] is None else str(result["threads"])
    if result["cpu_per_wall"] is not None:
        threads += f" ({result['cpu_per_wall']:.2f})"
    leaves = "?" if result["leaves"] is None else f"{result['leaves']:,}"
    return [
        label,
        name,
        f"{result['fit_s']:.2f}",
        f"{result['predict_s']:.3f}",
        f"{result['score']:.4f}",
        mem,
        threads,
        leaves,
    ]


def cold_start(repeat, sources):
    """Wall times of fresh processes, per quercus source (baseline.Source, alternating):
    import only, ID3 fit with a cold cache, ID3 fit with a warm cache. Rows of the table."""

    def wall(code, cache_dir, source):
        env = dict(baseline.child_env(source), NUMBA_CACHE_DIR=cache_dir)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr.decode(errors="replace"))
            return None
        return elapsed

    steps = {
        "import quercus only": [],
        "import + ID3Classifier fit, empty Numba cache": [],
        "import + ID3Classifier fit, warm Numba cache": [],
    }
    times = {(step, s.name): [] for step in steps for s in sources}
    for _ in range(repeat):
        for source in sources:
            with tempfile.TemporaryDirectory(prefix="quercus-numba-") as cache_dir:
                for step, code in zip(
                    steps, (IMPORT_ONLY_CODE, COLD_START_CODE, COLD_START_CODE), strict=True
                ):
                    times[(step, source.name)].append(wall(code, cache_dir, source))

    def median(values):
        return None if any(t is None for t in values) else statistics.median(values)

    current, baselines = sources[-1], sources[:-1]
    rows = []
    for step in steps:
        medians = {s.name: median(times[(step, s.name)]) for s in sources}
        row = [step]
        row += [
            "error (see stderr)" if medians[s.name] is None else f"{medians[s.name]:.2f}"
            for s in sources
        ]
        row += [baseline.ratio(medians[current.name], medians[b.name]) for b in baselines]
        rows.append(row)
    return rows


def print_header(args):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print("# Single decision tree benchmark\n")
    print(f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    libs = ["quercus", "scikit-learn", "lightgbm", "numpy", "numba"]
    print("- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    warm = (
        "off"
        if args.no_warmup
        else (f"on ({WARMUP_ROWS} rows, 200,000 for a training set that large; quercus only)")
    )
    limit = f"{args.mem_limit:g} GiB" if args.mem_limit > 0 else "none"
    print(f"- repeats per cell: {args.repeat} (median shown); JIT warm-up before fit: {warm}")
    print(f"- memory limit per cell process: {limit}")
    if args.sources[:-1]:
        import quercus

        print(f"- quercus (current): run from {os.path.dirname(os.path.dirname(quercus.__file__))}")
    for source in args.sources[:-1]:
        print(f"- {source.name}: git commit {source.commit}, run from {source.src}")
    print()


def selected_datasets(args):
    chosen, seen = [], set()
    for name in args.datasets:
        data = DATASETS[name]
        if args.quick:
            data = data._replace(rows=QUICK_ROWS)
        if data not in seen:  # --quick folds the two binary sets into one
            seen.add(data)
            chosen.append(data)
    return chosen


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="all",
        help="small: only the 100k-row set; all (default): also the 1M sets; or "
        f"comma-separated data sets, from: {','.join(DATASETS)}",
    )
    parser.add_argument(
        "--only",
        default=",".join(MODELS),
        help=f"comma-separated models to run, from: {','.join(MODELS)}, and quercus@REV "
        "(as --baseline REV)",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="also run the quercus of git revision REV (a worktree under /tmp); repeatable",
    )
    parser.add_argument(
        "--no-cold-start",
        action="store_true",
        help="leave out the cold-start table",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each cell (fresh process each), median shown"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_ROWS:,} rows per data set: a smoke test in seconds",
    )
    parser.add_argument(
        "--no-warmup",
        action="store_true",
        help="do not compile quercus's kernels before the timed fit",
    )
    parser.add_argument(
        "--mem-limit",
        type=float,
        default=16.0,
        metavar="GIB",
        help="address-space limit of each cell process in GiB (default 16; 0: none)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also the physical floor: one histogram pass over the binned matrix per level",
    )
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: run one cell
    args = parser.parse_args(argv)
    args.models, revs = baseline.split_names([m.strip() for m in args.only.split(",") if m.strip()])
    args.baselines = [*args.baseline, *revs]
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"unknown model(s) in --only: {', '.join(unknown)}; choose from {MODELS}")
    if args.sizes in ("small", "all"):
        args.datasets = SMALL_DATASETS if args.sizes == "small" else list(DATASETS)
    else:
        args.datasets = [d.strip() for d in args.sizes.split(",") if d.strip()]
        unknown = sorted(set(args.datasets) - set(DATASETS))
        if unknown:
            parser.error(
                f"unknown data set(s) in --sizes: {', '.join(unknown)}; choose from "
                f"small, all, {', '.join(DATASETS)}"
            )
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def model_entries(args):
    """(name in the table, model, baseline.Source or None) of each model to run: the
    baselines just before the current quercus."""
    entries = []
    for model in MODELS:
        if model == "quercus":
            for source in args.sources[:-1]:
                entries.append((f"{source.name} DecisionTree", model, source))
        if model in args.models:
            source = args.sources[-1] if model.startswith("quercus") else None
            entries.append((MODEL_LABELS[model], model, source))
    return entries


def run_dataset(args, dataset, entries):
    """Results of every model on one data set, {name: result}; the repeats go round the
    models, so that old and new code alternate."""
    task = dataset.task
    label = dataset_label(dataset)
    runs, results = {}, {}
    for name, model, _ in entries:
        status = model_status(model, task) if name == MODEL_LABELS[model] else None
        if status is not None:
            results[name] = status
            print(f"{label} / {name}: {status}", file=sys.stderr, flush=True)
        else:
            runs[name] = []
    for r in range(args.repeat):
        for name, model, source in entries:
            if name not in runs or (runs[name] and "error" in runs[name][-1]):
                continue
            spec = {
                "task": task,
                "rows": dataset.rows,
                "classes": dataset.classes,
                "features": dataset.features,
                "max_depth": dataset.max_depth,
                "model": model,
                "warmup": not args.no_warmup,
                "mem_limit_gib": args.mem_limit,
            }
            result = run_cell_in_subprocess(spec, source)
            runs[name].append(result)
            done = result.get("error") or f"fit {result['fit_s']:.2f} s"
            progress = f"[{r + 1}/{args.repeat}] {label} / {name}"
            print(f"{progress}: {done}", file=sys.stderr, flush=True)
    for name, model_runs in runs.items():
        failed = "error" in model_runs[-1]
        results[name] = model_runs[-1] if failed else median_result(model_runs)
    return label, results


def print_floor(args):
    """The table of the physical floor, one row per classification data set."""
    rows = []
    for dataset in selected_datasets(args):
        if dataset.task != "classification":
            continue
        spec = {**dataset._asdict(), "floor": True, "mem_limit_gib": args.mem_limit}
        result = run_cell_in_subprocess(spec)
        label = dataset_label(dataset)
        if "error" in result:
            rows.append([label, "error: " + result["error"], "", "", "", ""])
            continue
        floor = result["pass_s"] * result["levels"]
        rows.append(
            [
                label,
                f"{result['pass_s'] * 1000:.1f}",
                str(result["levels"]),
                f"{floor:.2f}",
                f"{result['fit_s']:.2f}",
                f"{result['fit_s'] / floor:.1f}",
            ]
        )
    print("## The physical floor: one histogram pass over the binned matrix per level\n")
    header = ["data set", "one pass ms", "levels", "floor s", "quercus fit s", "fit / floor"]
    print(markdown_table(header, rows))
    print()
    print(
        "one pass: the best of 5 passes of a compiled loop adding every row's class to its "
        "(feature, bin, class) count over a uint8 matrix of 255 quantile bins, one thread; "
        "levels: the depth of quercus's tree; floor: one pass per level."
    )
    print()


def baseline_rows(labels, results, sources):
    """Rows of the old-against-new table: per data set and baseline, fit and predict times of
    the baseline and of the current code, and their ratio current / baseline."""
    current = MODEL_LABELS["quercus"]
    rows = []
    for label in labels:
        new = results[label].get(current)
        for source in sources[:-1]:
            old = results[label].get(f"{source.name} DecisionTree")
            rows.append([label, source.name, *baseline.ratio_cells(old, new)])
    return rows


def main(argv=None):
    args = parse_args(argv)
    if args.cell:
        spec = json.loads(args.cell)
        (run_floor_cell if spec.get("floor") else run_cell)(spec)
        return

    args.sources = baseline.sources(args.baselines)
    print_header(args)
    entries = model_entries(args)
    rows, results, labels = [], {}, []
    for dataset in selected_datasets(args):
        label, results[label] = run_dataset(args, dataset, entries)
        labels.append(label)
        rows += [format_row(label, name, results[label][name]) for name, _, _ in entries]

    print("## Fit, predict and memory\n")
    header = [
        "data set",
        "model",
        "fit s",
        "predict s",
        "accuracy / R^2",
        "peak MiB",
        "threads (cpu/wall)",
        "leaves",
    ]
    print(markdown_table(header, rows))
    print()
    print(f"Test set: {TEST_SIZE:.0%} of the rows. accuracy for classes, R^2 for regression.")
    print(
        "peak MiB: peak RSS during fit (VmHWM) minus RSS just before fit (VmRSS) "
        "(* = peak since the cell process started)."
    )
    print("threads: threads the library is set to use (CPU time / wall time of the fit).")
    print(
        "HGB and LightGBM: one boosting iteration, learning_rate=1 (one tree per class for "
        "more than 2 classes)."
    )
    print(
        f"LightGBM: num_leaves=min({LGBM_MAX_LEAVES}, training rows) (its maximum), "
        f"histogram_pool_size={LGBM_HISTOGRAM_POOL_MB} MB."
    )
    print()

    if args.floor:
        print_floor(args)

    if args.sources[:-1] and "quercus" in args.models:
        print("## The current code against its baselines (seconds, medians)\n")
        header = ["data set", "baseline", "fit s baseline", "fit s current", "fit ratio"]
        header += ["predict s baseline", "predict s current", "predict ratio"]
        print(markdown_table(header, baseline_rows(labels, results, args.sources)))
        print()
        print("ratio: current / baseline (above 1: the current code is slower).")
        print()

    if "quercus" in args.models and not args.no_cold_start:
        print("## Cold start (wall time of a whole `python -c` process, seconds)\n")
        try:
            import quercus

            has_id3 = hasattr(quercus, "ID3Classifier")
        except ImportError:
            has_id3 = False
        if has_id3:
            print("cold start ...", file=sys.stderr, flush=True)
            cold_rows = cold_start(args.repeat, args.sources)
        else:
            cold_rows = [
                ["import + ID3Classifier fit, empty Numba cache", "n/a (not built)"],
                ["import + ID3Classifier fit, warm Numba cache", "n/a (not built)"],
            ]
        columns = [s.name for s in args.sources] if args.sources[:-1] else ["wall s"]
        ratios = [f"ratio {args.sources[-1].name} / {s.name}" for s in args.sources[:-1]]
        cold_rows = [row + [""] * (1 + len(columns) + len(ratios) - len(row)) for row in cold_rows]
        print(markdown_table(["process", *columns, *ratios], cold_rows))
        print()


if __name__ == "__main__":
    main()
