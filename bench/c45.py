"""C4.5 fit times: quercus's C45Classifier beside Weka's J48 and chefboost's C4.5.

Run from the repository root:

    .venv/bin/python bench/c45.py [--datasets adult,letter,kddcup99] [--only quercus,j48,chefboost]
                                  [--repeats R] [--chefboost-timeout S] [--quick]

    .venv/bin/python bench/c45.py --quick     # 1,000 training rows per data set: a smoke test
    .venv/bin/python bench/c45.py             # everything (about 17 minutes)

Needs Java and Weka 3.6 (`apt-get install weka`: /usr/share/java/weka.jar) for the J48 rows and
`.venv/bin/pip install chefboost` for the chefboost rows; without them those rows say n/a.

The table goes to stdout as markdown (paste it into bench/README.md); progress goes to stderr.

Data. Every implementation gets the same training and test rows of each data set
(`load_split`, the one place where data are read; the script calls it once per data set and
hands the rows to the cells in a temporary pickle file): adult is adult_train -> adult_test as
published; letter and kddcup99 (kddcup99_10pct.csv.gz, 494,021 rows, the largest classification
set in ../shared/datasets) are split 2/3 : 1/3 by `train_test_split(stratify=label,
random_state=0)`, rows kept in file order. Columns are typed as scripts/j48_reference.py types
them for its ARFF files (nominal: the target, MANIFEST.md's numeric-looking categorical columns
and every column with a non-number), and that module's helpers write the ARFF files; an empty
cell is a missing value (ARFF `?`, NaN in the DataFrames). `--quick` takes a fixed random 1,000
training and 500 test rows of each split.

What is measured. Every (data set, implementation) cell runs in a fresh Python process (this
script started again with `--cell`):

- quercus: `C45Classifier()` (its defaults: gain ratio, multiway nominal splits, at least 2
  rows in two branches, pessimistic pruning at confidence 0.25 with subtree raising), fitted on
  a DataFrame with the nominal columns as Python strings (object dtype, NaN = missing) and the
  others as float64, labels as strings. Like C4.5 and J48 it tries every value of a numeric
  feature (its default max_bins=None). The first fit of the process, on
  the whole training set, is timed as "first fit": in a full run the process gets an empty
  NUMBA_CACHE_DIR, so that includes compiling the Numba kernels (with --quick the usual on-disk
  cache is used). That fit, and a predict on 100 test rows, are also the JIT warm-up: a warm-up
  on a few hundred rows does not compile every kernel a larger fit needs (on kddcup99, 26 more
  functions compiled during a following 20,000-row fit). Then `--repeats` fits of new
  estimators on the same data are timed (median shown), and `predict` on the test set;
  functions Numba compiles during these timed calls are counted, and a fit time is marked with
  † if there were any.
- J48: `java -Xmx4g -cp weka.jar weka.classifiers.trees.J48 -t train.arff -T test.arff
  -C 0.25 -M 2`, `--repeats` times (median shown). "fit s" is the wall time of that whole
  process measured from Python (JVM start, reading both ARFF files, building, evaluating on the
  training and the test data, printing the tree); "build s" is what Weka prints as "Time taken
  to build model" (inside the JVM). Weka 3.6.14 prints that line only together with the
  statistics on the training data, so `-v` (no training statistics) is not given. Accuracy and
  leaves are read from J48's output ("Error on test data", "Number of Leaves").
- chefboost: `chef.fit(df, config={"algorithm": "C4.5"}, target_label=...)` in a temporary
  working directory (it writes its rules as Python code to outputs/rules/rules.py). "fit s" is
  the wall time of that call, which includes the evaluation on the training set that chefboost
  always does at the end of fit; "build s" is the tree-building time it logs ("finished in X
  seconds"). Its defaults apply: max_depth 5 and no pruning. The fit is stopped after
  `--chefboost-timeout` seconds (default 600; "> 600 s (timeout)"). Test accuracy comes from
  `chef.predict(model, row)` row by row, stopped after PREDICT_CAP_S seconds (then the accuracy
  is over the rows predicted so far). Leaves: the `return` statements of its rules, without the
  `else:` fallback it adds under every node.

accuracy: share of the test rows predicted correctly. leaves: leaves of the final tree (J48 and
quercus count the empty branches of a multiway split, as J48 prints them). J48 knows every value
declared in the ARFF header, quercus the values of the training rows: kddcup99's service value
tftp_u is only in the test rows, so each J48 split on service has one empty leaf more.
"""

import argparse
import contextlib
import gc
import importlib.metadata
import importlib.util
import io
import json
import os
import pickle
import platform
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from cells import chosen, last_error_line, markdown_table, run_json, stderr_tail
from machine import cpu_model, quercus_version, version

REPO = Path(__file__).resolve().parents[1]

IMPLEMENTATIONS = ["quercus", "j48", "chefboost"]
IMPL_LABELS = {
    "quercus": "quercus C45Classifier",
    "j48": "Weka J48 -C 0.25 -M 2",
    "chefboost": "chefboost C4.5 (max_depth 5)",
}

# name: (label, training file, test file or None for a stratified split of the training file)
DATASETS = {
    "adult": ("adult", "adult_train.csv", "adult_test.csv"),
    "letter": ("letter", "letter.csv", None),
    "kddcup99": ("kddcup99 10%", "kddcup99_10pct.csv.gz", None),
}
TEST_SIZE = 1 / 3
SEED = 0
QUICK_TRAIN, QUICK_TEST = 1_000, 500

J48_OPTIONS = ["-C", "0.25", "-M", "2"]
J48_UNPRUNED_OPTIONS = ["-U", "-M", "2"]
J48_HEAP = "4g"
CHEFBOOST_CONFIG = {"algorithm": "C4.5"}
PREDICT_CAP_S = 120.0  # chefboost predicts row by row in Python; stop after this long
# Beyond --chefboost-timeout (enforced inside the cell), how long the parent waits for a
# chefboost cell (loading the data, predicting) before it kills the process group.
CELL_MARGIN_S = PREDICT_CAP_S + 300.0


def load_j48_helpers():
    """scripts/j48_reference.py as a module: its CSV reading and ARFF writing are reused."""
    path = REPO / "scripts" / "j48_reference.py"
    spec = importlib.util.spec_from_file_location("j48_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


j48 = load_j48_helpers()


# ----------------------------------------------------------------------------------- data


def read_csv_dataset(data_dir, fname, numeric_looking):
    """j48_reference.read_dataset on one file; a .csv.gz is decompressed to a temporary copy."""
    name = fname.removesuffix(".gz").removesuffix(".csv")
    if not fname.endswith(".gz"):
        return j48.read_dataset(data_dir, name, numeric_looking)
    import gzip

    with tempfile.TemporaryDirectory(prefix="c45_bench_") as tmp:
        with gzip.open(data_dir / fname, "rb") as src, open(Path(tmp) / f"{name}.csv", "wb") as dst:
            shutil.copyfileobj(src, dst)
        forced = {f"{name}.csv": numeric_looking.get(fname, set())}
        ds = j48.read_dataset(Path(tmp), name, forced)
    ds["file"] = fname
    return ds


def merge_datasets(first, second):
    """One data set holding the rows of both files, nominal values declared over both."""
    if first["header"] != second["header"]:
        raise ValueError(f"{first['file']} and {second['file']} have different columns")
    nominal = [c for c in first["header"] if c in first["values"] or c in second["values"]]
    rows = first["rows"] + second["rows"]
    values = {}
    for col in nominal:
        j = first["header"].index(col)
        present = {row[j] for row in rows if row[j] != ""}
        values[col] = sorted(present, key=j48.value_key)
    return {
        **first,
        "file": f"{first['file']} + {second['file']}",
        "rows": rows,
        "y": first["y"] + second["y"],
        "nominal": nominal,
        "values": values,
    }


def load_split(name, quick, data_dir):
    """The data set and its fixed train/test split: (ds, train row indices, test row indices).

    ``ds`` is j48_reference's dict (header, rows as CSV strings, target, nominal values).
    """
    _, train_file, test_file = DATASETS[name]
    numeric_looking = j48.manifest_numeric_looking(data_dir)
    ds = read_csv_dataset(data_dir, train_file, numeric_looking)
    if test_file is not None:
        n_train = len(ds["rows"])
        ds = merge_datasets(ds, read_csv_dataset(data_dir, test_file, numeric_looking))
        train, test = np.arange(n_train), np.arange(n_train, len(ds["rows"]))
    else:
        from sklearn.model_selection import train_test_split

        train, test = train_test_split(
            np.arange(len(ds["rows"])),
            test_size=TEST_SIZE,
            stratify=np.asarray(ds["y"]),
            random_state=SEED,
        )
        train, test = np.sort(train), np.sort(test)
    if quick:
        rng = np.random.default_rng(SEED)
        train = np.sort(rng.permutation(train)[:QUICK_TRAIN])
        test = np.sort(rng.permutation(test)[:QUICK_TEST])
    return ds, train, test


def to_frame(ds, index):
    """X (nominal columns as object strings, NaN = missing; others float64) and y (strings)."""
    import pandas as pd

    rows = [ds["rows"][i] for i in index]
    columns = {}
    for j, col in enumerate(ds["header"]):
        cells = [row[j] for row in rows]
        if col in ds["values"]:
            data = np.array([v if v != "" else np.nan for v in cells], dtype=object)
            columns[col] = pd.Series(data, dtype=object)
        else:
            columns[col] = pd.Series([float(v) if v != "" else np.nan for v in cells])
    frame = pd.DataFrame(columns)
    return frame.drop(columns=ds["target"]), frame[ds["target"]]


def save_split(name, quick, data_dir, path):
    """load_split once in the parent; the rows used go to a pickle file that the cells read."""
    ds, train, test = load_split(name, quick, data_dir)
    rows = [ds["rows"][i] for i in np.concatenate([train, test])]
    ds = {**ds, "rows": rows, "y": [row[-1] for row in rows]}
    split = (ds, np.arange(len(train)), np.arange(len(train), len(rows)))
    with open(path, "wb") as f:
        pickle.dump(split, f, protocol=pickle.HIGHEST_PROTOCOL)


def frames(ds, train, test):
    """X_train, y_train, X_test, y_test; then frees ds's rows, so that no implementation pays
    for them (chefboost runs gc.collect() at every branch, which walks every list in the
    process)."""
    X_train, y_train = to_frame(ds, train)
    X_test, y_test = to_frame(ds, test)
    ds["rows"] = ds["y"] = None
    gc.collect()
    return X_train, y_train, X_test, y_test


def write_arff(ds, index, path):
    part = {**ds, "rows": [ds["rows"][i] for i in index]}
    path.write_text(j48.arff_header(ds) + "\n".join(j48.arff_rows(part)) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- one cell (child)


def accuracy(predicted, expected):
    return float(np.mean(np.asarray(predicted, dtype=object) == np.asarray(expected, dtype=object)))


def cell_quercus(spec, ds, train, test):
    from numba.core import event

    from quercus import C45Classifier

    X_train, y_train, X_test, y_test = frames(ds, train, test)

    start = time.perf_counter()
    warm = C45Classifier().fit(X_train, y_train)  # compiles the kernels: the JIT warm-up
    first_fit_s = time.perf_counter() - start
    warm.predict(X_test.iloc[:100])  # and those of predict
    del warm

    fit_times = []
    with event.install_recorder("numba:compile") as compiles:
        for _ in range(spec["repeats"]):
            est = C45Classifier()
            start = time.perf_counter()
            est.fit(X_train, y_train)
            fit_times.append(time.perf_counter() - start)
        unpruned_times = []
        for _ in range(spec["repeats"]):
            start = time.perf_counter()
            C45Classifier(pruning=None).fit(X_train, y_train)
            unpruned_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        y_pred = est.predict(X_test)
        predict_s = time.perf_counter() - start
    fit_s = statistics.median(fit_times)
    return {
        "fit_s": fit_s,
        "build_s": fit_s,
        "unpruned_build_s": statistics.median(unpruned_times),
        "first_fit_s": first_fit_s,
        "predict_s": predict_s,
        "accuracy": accuracy(y_pred, y_test),
        "leaves": int(est.get_n_leaves()),
        "compiles_after_warmup": len(compiles.buffer),
    }


def cell_j48(spec, ds, train, test):
    with tempfile.TemporaryDirectory(prefix="c45_bench_j48_") as tmp:
        train_arff, test_arff = Path(tmp) / "train.arff", Path(tmp) / "test.arff"
        write_arff(ds, train, train_arff)
        write_arff(ds, test, test_arff)
        cmd = [spec["java"], f"-Xmx{J48_HEAP}", "-cp", spec["jar"], "weka.classifiers.trees.J48"]
        cmd += ["-t", str(train_arff), "-T", str(test_arff)]
        unpruned_cmd = [*cmd, *J48_UNPRUNED_OPTIONS]
        cmd = [*cmd, *J48_OPTIONS]
        walls, builds, unpruned_builds = [], [], []
        for _ in range(spec["repeats"]):
            start = time.perf_counter()
            out = j48.run_java(cmd)
            walls.append(time.perf_counter() - start)
            builds.append(j48_build_seconds(out))
            unpruned_builds.append(j48_build_seconds(j48.run_java(unpruned_cmd)))
    n_correct, n_total = j48.parse_test(out)
    if n_total != len(test):
        raise RuntimeError(f"J48 tested {n_total} rows, the test set has {len(test)}")
    return {
        "fit_s": statistics.median(walls),
        "build_s": statistics.median(builds),
        "unpruned_build_s": statistics.median(unpruned_builds),
        "accuracy": n_correct / n_total,
        "leaves": j48.parse_tree(out)["leaves"],
    }


def j48_build_seconds(out):
    match = re.search(r"^Time taken to build model: ([\d.]+) seconds", out, re.MULTILINE)
    if match is None:
        raise RuntimeError("no 'Time taken to build model' line in J48's output")
    return float(match.group(1))


class FitTimeout(Exception):
    pass


def _raise_timeout(signum, frame):
    raise FitTimeout


def count_rule_leaves(path):
    """`return` lines of chefboost's rules.py, not counting the `else:` fallback of a node."""
    leaves, previous = 0, ""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("return") and previous != "else:":
            leaves += 1
        previous = text
    return leaves


def cell_chefboost(spec, ds, train, test):
    import pandas as pd

    X_train, y_train, X_test, y_test = frames(ds, train, test)
    df = pd.concat([X_train, y_train], axis=1)
    del X_train, y_train

    with tempfile.TemporaryDirectory(prefix="c45_bench_chefboost_") as tmp:
        os.chdir(tmp)  # chefboost writes outputs/ here and imports outputs/rules/rules.py
        sys.path.insert(0, tmp)
        try:
            result = fit_predict_chefboost(spec, ds["target"], df, X_test, y_test, Path(tmp))
        finally:
            os.chdir(REPO)
    return result


def fit_predict_chefboost(spec, target, df, X_test, y_test, workdir):
    from chefboost import Chefboost as chef

    log = io.StringIO()
    # The alarm repeats every second: chefboost has bare `except:` clauses that could swallow
    # one exception.
    signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, spec["timeout"], 1.0)
    try:
        with contextlib.redirect_stdout(log):  # its log lines go to stdout
            start = time.perf_counter()
            model = chef.fit(df, config=dict(CHEFBOOST_CONFIG), target_label=target)
            fit_s = time.perf_counter() - start
    except FitTimeout:
        return {"timeout": spec["timeout"]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    match = re.search(r"finished in ([\d.eE+-]+) seconds", log.getvalue())
    leaves = count_rule_leaves(workdir / "outputs" / "rules" / "rules.py")

    test_rows = X_test.to_numpy(dtype=object).tolist()
    n_correct, n_done = 0, 0
    start = time.perf_counter()
    for row, label in zip(test_rows, y_test, strict=True):
        n_correct += chef.predict(model, list(row)) == label
        n_done += 1
        if n_done % 100 == 0 and time.perf_counter() - start > PREDICT_CAP_S:
            break
    predict_s = time.perf_counter() - start
    return {
        "fit_s": fit_s,
        "build_s": float(match.group(1)) if match else None,
        "predict_s": predict_s,
        "accuracy": n_correct / n_done,
        "n_predicted": n_done,
        "leaves": leaves,
    }


def run_cell(spec):
    """Run one implementation on the saved split; print the result as one JSON line."""
    with open(spec["split"], "rb") as f:
        ds, train, test = pickle.load(f)
    cell = {"quercus": cell_quercus, "j48": cell_j48, "chefboost": cell_chefboost}
    result = cell[spec["impl"]](spec, ds, train, test)
    result.update(n_train=len(train), n_test=len(test))
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------------------- parent driver


def run_cell_in_subprocess(spec, env=None, timeout=None):
    """Run one cell in a fresh interpreter; its result dict, {"error": ...} or {"timeout": s}."""
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", json.dumps(spec)]
    ran = run_json(cmd, timeout, env)
    if ran.timed_out:
        return {"timeout": spec["timeout"], "killed": True}
    if ran.result is not None:
        return ran.result
    sys.stderr.write(stderr_tail(ran, 15))
    return {"error": last_error_line(ran)[:80]}


def impl_status(impl, args):
    """None if the implementation can run here, else why its row is n/a."""
    if impl == "j48":
        if not shutil.which(args.java):
            return "n/a (no java)"
        if not Path(args.jar).exists():
            return f"n/a (no {args.jar})"
    if impl == "chefboost" and version("chefboost") == "not installed":
        return "n/a (not installed)"
    return None


def run_impl(impl, split_path, args):
    spec = {
        "impl": impl,
        "split": str(split_path),
        "repeats": args.repeats,
        "timeout": args.chefboost_timeout,
        "java": args.java,
        "jar": str(args.jar),
    }
    if impl == "quercus" and not args.quick:
        with tempfile.TemporaryDirectory(prefix="quercus-numba-") as cache_dir:
            return run_cell_in_subprocess(spec, env=dict(os.environ, NUMBA_CACHE_DIR=cache_dir))
    timeout = args.chefboost_timeout + CELL_MARGIN_S if impl == "chefboost" else None
    return run_cell_in_subprocess(spec, timeout=timeout)


def outcome(result):
    """One line of progress about a cell's result."""
    if isinstance(result, str):
        return result
    if "error" in result:
        return "error: " + result["error"]
    if "timeout" in result:
        return f"timeout after {result['timeout']:g} s"
    return f"fit {result['fit_s']:.2f} s"


def seconds(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def format_row(label, impl, result, marks):
    name = IMPL_LABELS[impl]
    if isinstance(result, str):  # n/a
        return [label, "", name, result, "", "", "", "", "", ""]
    if "error" in result:
        return [label, "", name, "error: " + result["error"], "", "", "", "", "", ""]
    rows = f"{result['n_train']:,} / {result['n_test']:,}" if "n_train" in result else ""
    if "timeout" in result:
        return [label, rows, name, f"> {result['timeout']:g} s (timeout)", "", "", "", "", "", ""]
    acc = f"{result['accuracy']:.4f}"
    if result.get("n_predicted", result["n_test"]) < result["n_test"]:
        acc += f" (first {result['n_predicted']:,} rows)"
    fit = seconds(result["fit_s"])
    if result.get("compiles_after_warmup"):
        fit += " †"
        marks.add("†")
    return [
        label,
        rows,
        name,
        fit,
        seconds(result.get("build_s")),
        seconds(result.get("unpruned_build_s")),
        seconds(result.get("first_fit_s")),
        seconds(result.get("predict_s"), 3),
        acc,
        f"{result['leaves']:,}",
    ]


def weka_java_versions(args):
    if impl_status("j48", args) is not None:
        return "not available", "not available"
    weka, java = j48.versions(args.java, Path(args.jar))
    return f"Weka {weka}", java


def print_header(args):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    weka, java = weka_java_versions(args)
    print("# C4.5 benchmark\n")
    print(f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"- quercus {quercus_version()}")
    print(f"- {weka} ({args.jar}), {java}")
    libs = ["chefboost", "pandas", "numpy", "numba", "scikit-learn"]
    print("- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    cache = "the usual Numba cache (--quick)" if args.quick else "an empty Numba cache"
    print(
        f"- repeats: {args.repeats} (median shown; quercus and J48); quercus first fit with "
        f"{cache}; chefboost time limit {args.chefboost_timeout:g} s"
    )
    if args.quick:
        print(f"- --quick: {QUICK_TRAIN:,} training and {QUICK_TEST:,} test rows per data set")
    print()


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets",
        default=",".join(DATASETS),
        help=f"comma-separated data sets, from: {','.join(DATASETS)} (default: all)",
    )
    parser.add_argument(
        "--only",
        default=",".join(IMPLEMENTATIONS),
        help=f"comma-separated implementations to run, from: {','.join(IMPLEMENTATIONS)}",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="timed fits of quercus and J48 runs per cell, median shown (default 1)",
    )
    parser.add_argument(
        "--chefboost-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="stop chefboost's fit after S seconds (default 600)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_TRAIN:,} training and {QUICK_TEST:,} test rows per data set: a smoke test",
    )
    parser.add_argument("--data-dir", type=Path, default=j48.DEFAULT_DATA_DIR)
    parser.add_argument("--jar", type=Path, default=j48.DEFAULT_JAR)
    parser.add_argument("--java", default=shutil.which("java") or "java")
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: run one cell
    args = parser.parse_args(argv)
    args.names = chosen(parser, "--datasets", args.datasets, DATASETS)
    args.impls = chosen(parser, "--only", args.only, IMPLEMENTATIONS)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.cell:
        run_cell(json.loads(args.cell))
        return

    print_header(args)
    names = [n for n in DATASETS if n in args.names]
    n_cells = len(names) * len(args.impls)
    rows, marks, i = [], set(), 0
    for name in names:
        label = DATASETS[name][0]
        with tempfile.TemporaryDirectory(prefix="c45_bench_split_") as tmp:
            split_path = Path(tmp) / f"{name}.pickle"
            start = time.perf_counter()
            save_split(name, args.quick, args.data_dir, split_path)
            took = time.perf_counter() - start
            print(f"{label}: data read in {took:.0f} s", file=sys.stderr, flush=True)
            for impl in [m for m in IMPLEMENTATIONS if m in args.impls]:
                i += 1
                progress = f"[{i}/{n_cells}] {label} / {IMPL_LABELS[impl]}"
                print(f"{progress} ...", file=sys.stderr, flush=True)
                start = time.perf_counter()
                result = impl_status(impl, args) or run_impl(impl, split_path, args)
                took = time.perf_counter() - start
                print(f"{progress}: {outcome(result)} (cell {took:.0f} s)", file=sys.stderr)
                rows.append(format_row(label, impl, result, marks))

    header = [
        "data set",
        "train / test rows",
        "implementation",
        "fit s",
        "build s",
        "unpruned build s",
        "first fit s",
        "predict s",
        "test accuracy",
        "leaves",
    ]
    print(markdown_table(header, rows))
    print()
    print(
        "fit s: quercus `fit` (median of repeats, kernels compiled); J48 the whole `java` "
        "process; chefboost `chef.fit` (includes its evaluation on the training set)."
    )
    print(
        "build s: the time the implementation reports for building the tree: J48 'Time taken "
        "to build model', chefboost 'finished in'; quercus: its fit s."
    )
    print(
        "unpruned build s: the same build without pruning (quercus `pruning=None`, J48 -U -M 2): "
        "build s minus it is what pessimistic pruning costs."
    )
    print(
        "first fit s: quercus's first fit in a fresh process (JIT compilation included unless "
        "--quick)."
    )
    print(
        "predict s: quercus `predict` on the test set; chefboost `chef.predict` row by row; J48: "
        "Weka 3.6 prints no time for the test set."
    )
    if "†" in marks:
        print("†: Numba compiled functions during the timed calls, after the warm-up.")
    print()


if __name__ == "__main__":
    main()
