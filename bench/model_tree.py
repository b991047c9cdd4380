"""Model trees (M5): quercus's ModelTreeRegressor beside Weka's M5P, m5py and linear-tree.

Run from the repository root:

    .venv/bin/python bench/model_tree.py [--datasets boston,abalone,...] [--repeats R]
                                         [--only quercus,m5p,m5py,linear-tree]
                                         [--peer-python PY] [--peer-timeout S] [--quick]

    .venv/bin/python bench/model_tree.py --quick   # boston and abalone, 1 repeat: a smoke test
    .venv/bin/python bench/model_tree.py --peer-python /tmp/quercus-bench-peers/bin/python

Needs Java and Weka 3.6 (`apt-get install weka`: /usr/share/java/weka.jar) for the M5P times;
M5P's accuracy comes from tests/fixtures/m5p_reference.json and is shown without them.

The Python peers: m5py 0.3.3 and linear-tree 0.3.5 (both the newest) install into .venv
(`.venv/bin/pip install m5py linear-tree`) but do not run on its scikit-learn 1.9: m5py imports
`sklearn.tree._classes.DTYPE`, which is gone, and linear-tree calls `self._validate_data`,
which is gone too. Both run with scikit-learn 1.5.2 in an environment of their own, whose
interpreter `--peer-python` names (their cells only need NumPy and the peers; m5py also imports
`packaging` without declaring it):

    .venv/bin/python -m venv /tmp/quercus-bench-peers
    /tmp/quercus-bench-peers/bin/pip install 'scikit-learn<1.6' m5py linear-tree packaging

Before its cells run, each peer is tried in that interpreter (imported, fitted on 40 rows);
if that fails, its rows say n/a and why (by default --peer-python is this interpreter, so on
.venv as it is both rows say n/a).

The table goes to stdout as markdown (paste it into bench/README.md); progress goes to stderr.

Data. The five regression sets of tests/fixtures/m5p_reference.json (scripts/m5p_reference.py),
all rows: boston, abalone, bike_sharing_hour, cal_housing and diamonds, read from
tests/datasets (`--data-dir`; NAME.csv or NAME.csv.gz), abalone from
`quercus.datasets.path("abalone")`. Their nominal columns are the fixture's (abalone: Sex;
diamonds: cut, color, clarity; none elsewhere); no set has a missing value.

- quercus gets `quercus.read_table(path, nominal=...)`: nominal columns as categories (its
  models turn a column of K values into K - 1 indicator terms, as M5P does).
- M5P gets an ARFF file of the same rows, written as for the fixture by the helpers of
  scripts/m5p_reference.py (`read_regression`) and scripts/j48_reference.py (`arff_header`,
  `arff_rows`, `write_fold_files`); its nominal columns and their values are checked against
  the fixture's.
- m5py and linear-tree take numbers only: each nominal column is one-hot encoded
  (`pandas.get_dummies`, one 0/1 column for each of its K values), on the whole data set so that
  every fold has the same columns; every column is float64 (diamonds: 9 columns become 26).

Accuracy. 10-fold cross-validation on the fixture's folds (`KFold(10, shuffle=True,
random_state=0)`, a fold index per row): fit on nine folds, predict the tenth. RMSE is pooled,
sqrt(SSE over all rows / n), and so is MAE (SAE / n); leaves is the mean over the 10 folds of
the final tree's leaves (quercus and m5py `get_n_leaves()`, after pruning; linear-tree its leaf
models). M5P is not run again: its row shows the fixture's numbers (`configs.default`: rmse,
mae, mean_rules; Weka 3.6.14, M5P -M 4.0, on the same folds), marked ‡.

Time. Every (data set, implementation) cell runs in a fresh Python process (this script started
again with `--cell`); the cross-validation comes after the timed fits and is not timed.

- quercus: `ModelTreeRegressor()` (its defaults: linear leaves, pruning, smoothing,
  min_samples_split=4 as M5P's -M 4, n_jobs=-1: threads on every core). The first fit of the
  process, on all rows, is "first fit s": in a full run the process gets an empty
  NUMBA_CACHE_DIR, so that includes compiling the Numba kernels (with --quick the usual on-disk
  cache is used). That fit and a predict on 100 rows are the JIT warm-up. Then `--repeats` fits
  of new estimators are timed ("fit s", median), then `--repeats` with `n_jobs=1` ("fit s
  n_jobs=1": M5P builds on one thread). Functions Numba compiles during these timed fits are
  counted, and a fit time is marked with † if there were any.
- M5P: `java -Xmx4g -cp weka.jar weka.classifiers.trees.M5P -M 4.0 -t full.arff -no-cv`,
  `--repeats` times (median shown). "fit s" is the wall time of that whole process measured
  from Python (JVM start, reading the ARFF file, building, evaluating on the training rows,
  printing the tree); "build s" is what Weka prints as "Time taken to build model" (inside the
  JVM). Every run is a new JVM, so there is no first fit apart.
- m5py: `M5Prime(random_state=0)`, its defaults otherwise (pruning, smoothing,
  min_samples_split=4, min_samples_leaf=2). It grows its tree with scikit-learn's splitter,
  which visits the features in a random order and so breaks ties between equally good splits
  by chance; the seed makes its rows repeatable, but its error depends much on it. Boston's CV
  RMSE with random_state 0, 1, 2, 3: 6.197, 4.327, 4.148, 4.195 (with 0, one row of fold 6 is
  predicted 103.5 off, on a target of at most 50).
  linear-tree: `LinearTreeRegressor(base_estimator=LinearRegression())`, its defaults otherwise
  (max_depth=5, min_samples_leaf=0.1, max_bins=25). The first fit on all rows is "first fit
  s", then up to `--repeats` more ("fit s", median; "(k of R)" when fewer ran), all within
  `--peer-timeout` seconds (default 600): no further fit is started when it would likely end
  past that, and a fit still running then is stopped ("> S s (timeout)"). The
  cross-validation gets another S seconds; if it is not done by then, its columns say
  "> S s (timeout)". Their linear fits run on the BLAS's default threads.

M5P build / fit: M5P's build s divided by the row's fit s (quercus: also by its n_jobs=1 fit),
both from this run: above 1, the row's fit takes less time than M5P's build alone.
"""

import argparse
import contextlib
import gzip
import importlib.util
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from cells import chosen, last_error_line, markdown_table, run_json, stderr_tail
from machine import cpu_model, quercus_version, version

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "m5p_reference.json"
DEFAULT_DATA_DIR = REPO / "tests" / "datasets"

IMPLEMENTATIONS = ["quercus", "m5p", "m5py", "linear-tree"]
PEERS = ("m5py", "linear-tree")
IMPL_LABELS = {
    "quercus": "quercus ModelTreeRegressor",
    "m5p": "Weka M5P -M 4.0",
    "m5py": "m5py M5Prime",
    "linear-tree": "linear-tree LinearTreeRegressor",
}
DATASETS = ["boston", "abalone", "bike_sharing_hour", "cal_housing", "diamonds"]
QUICK_DATASETS = ["boston", "abalone"]
DEFAULT_REPEATS = 3

M5P_HEAP = "4g"
PEER_VERSIONS = ["scikit-learn", "m5py", "linear-tree", "numpy"]
# Beyond the peers' two time limits (enforced inside the cell), how long the parent waits for a
# peer cell (start, loading the data) before it kills the process group.
CELL_MARGIN_S = 300.0
PROBE_TIMEOUT_S = 300.0


def load_script(name):
    """scripts/NAME.py as a module (the scripts folder is no package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Both use only the standard library at import, so the peers' interpreter loads them too.
m5p = load_script("m5p_reference")
j48 = m5p.j48


# ----------------------------------------------------------------------------------- data


def data_path(name, data_dir):
    if name == "abalone":  # not in tests/datasets: quercus ships it
        import quercus

        return Path(quercus.datasets.path("abalone"))
    for candidate in (data_dir / f"{name}.csv", data_dir / f"{name}.csv.gz"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no {name}.csv or {name}.csv.gz in {data_dir}")


def write_m5p_arff(name, path, reference, tmp):
    """The whole data set as M5P's ARFF file in ``tmp``, written as scripts/m5p_reference.py
    writes the fixture's; fails if its nominal columns or values differ from the fixture's."""
    folder = path.parent
    if path.name.endswith(".gz"):  # read_regression reads NAME.csv only
        folder = tmp
        with gzip.open(path, "rb") as src, open(tmp / f"{name}.csv", "wb") as dst:
            shutil.copyfileobj(src, dst)
    # the fixture's nominal columns, given as MANIFEST's numeric-looking ones would be
    ds = m5p.read_regression(folder, name, {f"{name}.csv": set(reference["nominal_columns"])})
    if ds["nominal"] != reference["nominal_columns"] or len(ds["rows"]) != reference["n_rows"]:
        raise ValueError(f"{name}: not the fixture's columns or rows")
    if ds["values"] != reference["nominal_values"]:
        raise ValueError(f"{name}: nominal values differ from the fixture's")
    # no folds: only the whole data set (full.arff) is written
    full, _ = j48.write_fold_files(
        tmp, j48.arff_header(ds), j48.arff_rows(ds), reference["folds"], 0
    )
    return full


def prepare(name, args, reference, tmp):
    """Reads a data set once, in the parent; what each cell needs goes to files in ``tmp``."""
    import pandas as pd

    import quercus

    path = data_path(name, args.data_dir)
    nominal = reference["nominal_columns"]
    X, y = quercus.read_table(path, nominal=nominal)
    if len(y) != reference["n_rows"]:
        raise ValueError(f"{path}: {len(y)} rows, the fixture has {reference['n_rows']}")
    encoded = pd.get_dummies(X, columns=nominal, dtype=float).to_numpy(dtype=np.float64)
    npz = tmp / "data.npz"  # no pickle: the peers' NumPy may differ from this one
    np.savez(npz, X=encoded, y=y.to_numpy(dtype=np.float64), folds=np.asarray(reference["folds"]))
    prepared = {
        "path": str(path),
        "nominal": nominal,
        "data": str(npz),
        "n_folds": reference["n_folds"],
        "n_rows": len(y),
        "n_columns": X.shape[1],
        "n_encoded": encoded.shape[1],
        "arff": None,
    }
    if "m5p" in args.impls and impl_status("m5p", args) is None:
        prepared["arff"] = str(write_m5p_arff(name, path, reference, tmp))
    return prepared


# ---------------------------------------------------------------------- one cell (child)


def cross_validate(make, X, y, folds, n_folds, leaves):
    """Pooled RMSE and MAE over the folds, and the mean leaves of the folds' trees."""
    sse = sae = 0.0
    n_leaves = []
    for k in range(n_folds):
        train, test = folds != k, folds == k
        est = make().fit(X[train], y[train])
        error = np.asarray(est.predict(X[test]), dtype=np.float64) - np.asarray(y[test])
        sse += float(error @ error)
        sae += float(np.abs(error).sum())
        n_leaves.append(leaves(est))
    n = len(folds)
    return {"rmse": float(np.sqrt(sse / n)), "mae": sae / n, "leaves": float(np.mean(n_leaves))}


def cell_quercus(spec):
    from numba.core import event

    import quercus
    from quercus import ModelTreeRegressor

    X, y = quercus.read_table(spec["path"], nominal=spec["nominal"])
    folds = np.load(spec["data"])["folds"]

    start = time.perf_counter()
    warm = ModelTreeRegressor().fit(X, y)  # compiles the kernels: the JIT warm-up
    first_fit_s = time.perf_counter() - start
    warm.predict(X.iloc[:100])
    del warm

    def timed_fits(**params):
        times = []
        for _ in range(spec["repeats"]):
            est = ModelTreeRegressor(**params)
            start = time.perf_counter()
            est.fit(X, y)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    with event.install_recorder("numba:compile") as compiles:
        fit_s = timed_fits()
        serial_fit_s = timed_fits(n_jobs=1)
    result = {
        "first_fit_s": first_fit_s,
        "fit_s": fit_s,
        "serial_fit_s": serial_fit_s,
        "compiles_after_warmup": len(compiles.buffer),
    }
    result.update(
        cross_validate(
            ModelTreeRegressor, X, y, folds, spec["n_folds"], lambda e: int(e.get_n_leaves())
        )
    )
    return result


def cell_m5p(spec):
    java = SimpleNamespace(java=spec["java"], heap=M5P_HEAP, jar=spec["jar"])
    options = m5p.CONFIGS["default"].split()  # -M 4.0, the fixture's default configuration
    cmd = m5p.m5p_command(java, "-t", spec["arff"], "-no-cv", *options)
    walls, builds = [], []
    for _ in range(spec["repeats"]):
        start = time.perf_counter()
        out = j48.run_java(cmd)
        walls.append(time.perf_counter() - start)
        model = m5p.parse_model(out)
        if model["build_seconds"] is None:
            raise RuntimeError("no 'Time taken to build model' line in M5P's output")
        builds.append(model["build_seconds"])
    return {
        "fit_s": statistics.median(walls),
        "build_s": statistics.median(builds),
        "full_rules": model["rules"],
    }


def peer_estimator(impl):
    if impl == "m5py":
        from m5py import M5Prime

        return M5Prime(random_state=0)  # see the docstring: reproducible ties
    from lineartree import LinearTreeRegressor
    from sklearn.linear_model import LinearRegression

    return LinearTreeRegressor(base_estimator=LinearRegression())


def peer_leaves(impl, est):
    return int(est.get_n_leaves()) if impl == "m5py" else len(est._leaves)


class Timeout(Exception):
    pass


def _raise_timeout(signum, frame):
    raise Timeout


@contextlib.contextmanager
def time_limit(seconds):
    # The alarm repeats every second, in case library code swallows one exception.
    signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def cell_peer(spec):
    impl, limit = spec["impl"], spec["timeout"]
    if spec.get("probe"):  # can it run here at all? (import and a tiny fit)
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        peer_estimator(impl).fit(X, X @ [1.0, 2.0, 3.0]).predict(X)
        return {"probe": "ok"}

    data = np.load(spec["data"])
    X, y, folds = data["X"], data["y"], data["folds"]
    peer_estimator(impl)  # imports the peer (a second or so) outside the time limit
    times = []
    phase = time.perf_counter()
    try:
        with time_limit(limit):
            for _ in range(spec["repeats"] + 1):
                # a further fit would likely end past the limit: stop here
                if times and time.perf_counter() - phase + times[-1] > limit:
                    break
                est = peer_estimator(impl)
                start = time.perf_counter()
                est.fit(X, y)
                times.append(time.perf_counter() - start)
    except Timeout:
        pass
    if not times:
        return {"fit_timeout": limit}
    result = {
        "first_fit_s": times[0],
        "fit_s": statistics.median(times[1:]) if len(times) > 1 else None,
        "n_warm": len(times) - 1,
    }
    try:
        with time_limit(limit):
            result.update(
                cross_validate(
                    lambda: peer_estimator(impl),
                    X,
                    y,
                    folds,
                    spec["n_folds"],
                    lambda e: peer_leaves(impl, e),
                )
            )
    except Timeout:
        result["cv_timeout"] = limit
    return result


def run_cell(spec):
    """Run one cell; print its result as one JSON line."""
    cell = {"quercus": cell_quercus, "m5p": cell_m5p}.get(spec["impl"], cell_peer)
    print(json.dumps(cell(spec)), flush=True)


# ------------------------------------------------------------------------- parent driver


def run_cell_in_subprocess(spec, python=None, env=None, timeout=None):
    """Run one cell in a fresh interpreter; its result dict, {"error": ...} or {"killed": s}."""
    cmd = [python or sys.executable, os.path.abspath(__file__), "--cell", json.dumps(spec)]
    ran = run_json(cmd, timeout, env)
    if ran.timed_out:
        return {"killed": timeout}
    if ran.result is not None:
        return ran.result
    if not spec.get("probe"):
        sys.stderr.write(stderr_tail(ran, 15))
    last = last_error_line(ran)
    last = re.sub(r" \((/[^)]*)\)", "", last)  # an installed file's path says little
    last = last.split(". Did you mean")[0]
    return {"error": last[:100]}


_STATUS = {}


def impl_status(impl, args):
    """None if the implementation can run here, else why its rows are n/a."""
    if impl in _STATUS:
        return _STATUS[impl]
    status = None
    if impl == "m5p":
        if not shutil.which(args.java):
            status = "n/a (no java)"
        elif not Path(args.jar).exists():
            status = f"n/a (no {args.jar})"
    elif impl in PEERS:
        if not shutil.which(args.peer_python):
            status = f"n/a (no {args.peer_python})"
        else:
            spec = {"impl": impl, "probe": True, "timeout": PROBE_TIMEOUT_S}
            result = run_cell_in_subprocess(spec, args.peer_python, timeout=PROBE_TIMEOUT_S)
            if "error" in result:
                status = f"n/a ({result['error']})"
            elif "killed" in result:
                status = f"n/a (no 40-row fit within {PROBE_TIMEOUT_S:g} s)"
    _STATUS[impl] = status
    return status


def run_impl(impl, prepared, args):
    spec = {
        **prepared,
        "impl": impl,
        "repeats": args.repeats,
        "timeout": args.peer_timeout,
        "java": args.java,
        "jar": str(args.jar),
    }
    if impl == "quercus" and not args.quick:
        with tempfile.TemporaryDirectory(prefix="quercus-numba-") as cache_dir:
            return run_cell_in_subprocess(spec, env=dict(os.environ, NUMBA_CACHE_DIR=cache_dir))
    if impl in PEERS:
        timeout = 2 * args.peer_timeout + CELL_MARGIN_S
        return run_cell_in_subprocess(spec, args.peer_python, timeout=timeout)
    return run_cell_in_subprocess(spec)


def outcome(result):
    """One line of progress about a cell's result."""
    if "na" in result:
        return result["na"]
    if "error" in result:
        return "error: " + result["error"]
    if "killed" in result:
        return f"killed after {result['killed']:g} s"
    if "fit_timeout" in result:
        return f"first fit timed out after {result['fit_timeout']:g} s"
    fit = result.get("fit_s") or result.get("first_fit_s")
    cv = f", CV RMSE {result['rmse']:.6g}" if "rmse" in result else ""
    if "cv_timeout" in result:
        cv = f", cross-validation timed out after {result['cv_timeout']:g} s"
    return f"fit {fit:.2f} s{cv}"


def seconds(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def ratio(numerator, denominator):
    return "-" if numerator is None or not denominator else f"{numerator / denominator:.2f}"


def format_row(label, impl, prepared, result, m5p_build, marks):
    name = IMPL_LABELS[impl]
    n_columns = prepared["n_encoded"] if impl in PEERS else prepared["n_columns"]
    shape = f"{prepared['n_rows']:,} × {n_columns}"
    blank = ["-"] * 6  # the time columns
    if "error" in result:
        return [label, shape, name, "error: " + result["error"], "-", "-", *blank]
    if "killed" in result:
        return [label, shape, name, f"killed after {result['killed']:g} s", "-", "-", *blank]
    if "fit_timeout" in result:
        over = f"> {result['fit_timeout']:g} s (timeout)"
        return [label, shape, name, "-", "-", "-", over, *blank[1:]]

    if "cv_timeout" in result:
        over = f"> {result['cv_timeout']:g} s (timeout)"
        rmse, mae, leaves = over, over, "-"
    else:
        rmse, mae = f"{result['rmse']:.6g}", f"{result['mae']:.6g}"
        leaves = f"{result['leaves']:.1f}"
    if impl == "m5p":
        rmse, mae, leaves = rmse + " ‡", mae + " ‡", leaves + " ‡"
        marks.add("‡")
    if "na" in result:  # M5P without java: the fixture's accuracy, no times
        return [label, shape, name, rmse, mae, leaves, result["na"], *blank[1:]]

    fit = seconds(result.get("fit_s"))
    serial = seconds(result.get("serial_fit_s"))
    if result.get("compiles_after_warmup"):
        fit, serial = fit + " †", serial + " †"
        marks.add("†")
    if impl in PEERS and result["n_warm"] < result["repeats"]:
        fit += f" ({result['n_warm']} of {result['repeats']})"
        marks.add("of")
    build_ratio = "-" if impl == "m5p" else ratio(m5p_build, result.get("fit_s"))
    return [
        label,
        shape,
        name,
        rmse,
        mae,
        leaves,
        seconds(result.get("first_fit_s")),
        fit,
        serial,
        seconds(result.get("build_s")),
        build_ratio,
        ratio(m5p_build, result.get("serial_fit_s")),
    ]


def peer_versions(python):
    code = (
        "import importlib.metadata as m, json, platform\n"
        "def v(d):\n"
        "    try:\n"
        "        return m.version(d)\n"
        "    except m.PackageNotFoundError:\n"
        "        return 'not installed'\n"
        f"print(json.dumps({{'Python': platform.python_version(), "
        f"**{{d: v(d) for d in {PEER_VERSIONS!r}}}}}))"
    )
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
        found = json.loads(out.stdout)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return "not available"
    return ", ".join(f"{name} {ver}" for name, ver in found.items())


def print_header(args, fixture):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    if impl_status("m5p", args) is None:
        weka, java = j48.versions(args.java, Path(args.jar))
        weka = f"Weka {weka}"
    else:
        weka, java = "Weka not available", "no Java"
    print("# Model-tree benchmark\n")
    print(f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"- quercus {quercus_version()}")
    print(f"- {weka} ({args.jar}), {java}")
    libs = ["pandas", "numpy", "numba", "scikit-learn"]
    print("- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    print(f"- peers' interpreter: {args.peer_python} ({peer_versions(args.peer_python)})")
    print(
        f"- M5P's accuracy (‡): {FIXTURE.relative_to(REPO)}, Weka {fixture['weka_version']} "
        "on the same folds, not run again"
    )
    cache = "the usual Numba cache (--quick)" if args.quick else "an empty Numba cache"
    print(
        f"- repeats: {args.repeats} (median shown); quercus first fit with {cache}; peers' "
        f"time limit {args.peer_timeout:g} s for the fits and again for the cross-validation"
    )
    print()


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets",
        help=f"comma-separated data sets, from: {','.join(DATASETS)} (default: all; with "
        f"--quick: {','.join(QUICK_DATASETS)})",
    )
    parser.add_argument(
        "--only",
        default=",".join(IMPLEMENTATIONS),
        help=f"comma-separated implementations to run, from: {','.join(IMPLEMENTATIONS)}",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        help=f"timed fits per cell, median shown (default {DEFAULT_REPEATS}; 1 with --quick)",
    )
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="time limit of a peer's fits, and again of its cross-validation (default 600)",
    )
    parser.add_argument(
        "--peer-python",
        default=sys.executable,
        metavar="PY",
        help="interpreter that runs m5py and linear-tree (default: this one)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{' and '.join(QUICK_DATASETS)} only, 1 repeat: a smoke test",
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--jar", type=Path, default=j48.DEFAULT_JAR)
    parser.add_argument("--java", default=shutil.which("java") or "java")
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: run one cell
    args = parser.parse_args(argv)
    if args.cell:
        return args
    if args.datasets is None:
        args.datasets = ",".join(QUICK_DATASETS if args.quick else DATASETS)
    if args.repeats is None:
        args.repeats = 1 if args.quick else DEFAULT_REPEATS
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

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    print_header(args, fixture)
    names = [n for n in DATASETS if n in args.names]
    impls = [m for m in IMPLEMENTATIONS if m in args.impls]
    n_cells = len(names) * len(impls)
    rows, marks, i = [], set(), 0
    for name in names:
        reference = fixture["datasets"][name]
        with tempfile.TemporaryDirectory(prefix="model_tree_bench_") as tmp:
            start = time.perf_counter()
            prepared = prepare(name, args, reference, Path(tmp))
            took = time.perf_counter() - start
            print(f"{name}: data read in {took:.0f} s", file=sys.stderr, flush=True)
            results = {}
            for impl in impls:
                i += 1
                progress = f"[{i}/{n_cells}] {name} / {IMPL_LABELS[impl]}"
                print(f"{progress} ...", file=sys.stderr, flush=True)
                start = time.perf_counter()
                status = impl_status(impl, args)
                if status is not None:
                    result = {"na": status}
                else:
                    result = run_impl(impl, prepared, args)
                result["repeats"] = args.repeats
                if impl == "m5p":  # accuracy: the fixture's, whether or not M5P ran here
                    default = reference["configs"]["default"]
                    result.update(
                        rmse=default["rmse"], mae=default["mae"], leaves=default["mean_rules"]
                    )
                took = time.perf_counter() - start
                print(f"{progress}: {outcome(result)} (cell {took:.0f} s)", file=sys.stderr)
                results[impl] = result
        m5p_build = results.get("m5p", {}).get("build_s")
        for impl, result in results.items():
            if "na" in result and impl != "m5p":
                row = [name, "", IMPL_LABELS[impl], result["na"], *[""] * 8]
            else:
                row = format_row(name, impl, prepared, result, m5p_build, marks)
            rows.append(row)

    header = [
        "data set",
        "rows × columns",
        "implementation",
        "CV RMSE",
        "CV MAE",
        "leaves (mean of folds)",
        "first fit s",
        "fit s",
        "fit s n_jobs=1",
        "build s",
        "M5P build / fit",
        "M5P build / fit n_jobs=1",
    ]
    print(markdown_table(header, rows))
    print()
    print(
        "CV RMSE, CV MAE: 10-fold cross-validation on the fixture's folds, pooled over all rows; "
        "leaves: mean over the folds. m5py and linear-tree get the nominal columns one-hot "
        "encoded (their column count)."
    )
    print(
        "first fit s: the first fit on all rows in a fresh process (quercus: JIT compilation "
        "included unless --quick). fit s: median of the later fits (quercus: kernels compiled; "
        "M5P: the whole `java` process). fit s n_jobs=1: quercus on one thread."
    )
    print("build s: Weka's 'Time taken to build model'.")
    print(
        "M5P build / fit: M5P's build s over the row's fit s, this run (above 1: faster than "
        "M5P's build)."
    )
    if "‡" in marks:
        print(
            f"‡: from {FIXTURE.relative_to(REPO)} (Weka {fixture['weka_version']}, M5P -M 4.0, "
            "the same folds), not run again."
        )
    if "†" in marks:
        print("†: Numba compiled functions during the timed fits, after the warm-up.")
    if "of" in marks:
        print(f"(k of R): only k of the R timed fits ran within {args.peer_timeout:g} s.")
    print()


if __name__ == "__main__":
    main()
