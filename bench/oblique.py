"""Oblique trees: quercus's ``split="oblique"`` (OC1) beside its axis-parallel tree,
scikit-learn's tree, obliquetree and treeple, on numeric classification sets.

Setup. obliquetree and treeple get an environment of their own: treeple 0.10.3's compiled
splitters link against scikit-learn's Cython internals and do not import with the project's
scikit-learn 1.9 ("sklearn.tree._criterion.Criterion size changed") nor 1.8 ("sklearn.tree.
_utils has no attribute WeightedPQueue"); 1.6.1 and 1.7.2 work.

    python3 -m venv /tmp/quercus-bench-oblique
    /tmp/quercus-bench-oblique/bin/pip install obliquetree treeple 'scikit-learn==1.7.2'

Run from the repository root, with nothing else running (table to stdout, progress to stderr;
--datasets, --only, --folds, --threads, --peer-timeout S (default 300), --full: see --help):

    .venv/bin/python bench/oblique.py --peer-python /tmp/quercus-bench-oblique/bin/python
    .venv/bin/python bench/oblique.py --quick --peer-python ...   # diabetes, diagonal; 2 folds

obliquetree took about 140 s for one fit on letter's 16,000 rows (one thread, busy machine):
its 6 fits there pass the default timeout; --peer-timeout 1200 gives it a number.

Data. /work/shared/datasets (MANIFEST.md; target last; all features numeric): diabetes,
heart-statlog, ionosphere, sonar, glass, waveform-5000, letter and skin_segmentation (a seeded
sample of 50,000 of its 245,057 rows unless --full). Every learner gets float64 features and
the classes as codes 0..K-1 (obliquetree takes nothing else). Accuracy, leaves and fit time
are means over ``StratifiedKFold(5, shuffle=True, random_state=0)``. "diagonal": 2,000 rows
uniform in [0, 1]^5, class x0 + x1 > 1 (3 noise features), one fit, accuracy on 20,000 fresh
rows.

Learners, all grown to full depth, unpruned, defaults otherwise (each library's own oblique
search, as a user gets it):
- quercus axis: ``DecisionTreeClassifier(random_state=0)``; quercus oblique: the same with
  ``split="oblique"`` (OC1's search over all numeric features, from the best axis split).
- scikit-learn: ``DecisionTreeClassifier(random_state=0)``, in the project's interpreter.
- obliquetree: ``Classifier(use_oblique=True, random_state=0)``: ``max_depth=-1`` (its cap,
  255); per node the best of axis splits and oblique splits over ``n_pair=2`` features
  (L-BFGS on a smoothed split). Leaves counted in ``obliquetree.utils.export_tree``.
- treeple: ``ObliqueDecisionTreeClassifier(random_state=0)``: SPORF's random sparse
  projections, n_features of them per node (``max_features=None``) of 1.5 features on
  average (``feature_combinations=None``); leaves ``get_n_leaves()``.
Each peer runs in its own process per data set (``--peer-python``; scikit-learn in this
interpreter), killed after ``--peer-timeout`` seconds (warm-up and all folds).

Time. Per learner and data set one untimed warm-up fit on the first training set (Numba
compiles quercus's kernels, the peers load), then each fold's fit is timed (perf_counter):
the mean is shown (†: Numba still compiled during the timed fits); "× quercus oblique" divides
it by quercus oblique's. Threads: obliquetree searches on OpenMP threads, every core by
default, and quercus's parallel Numba kernels (binning) use every core whatever n_jobs is;
so NUMBA_NUM_THREADS, OMP_NUM_THREADS and the BLAS variables are set to --threads (default 1)
here and for the peers, and quercus gets n_jobs=--threads (scikit-learn's and treeple's trees
use one thread anyway).
"""

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from cells import chosen, last_error_line, markdown_table, run_json, stderr_tail
from machine import cpu_model, quercus_version, version

DATA_DIR = Path("/work/shared/datasets")
DATASETS = ["diabetes", "heart-statlog", "ionosphere", "sonar", "glass", "waveform-5000"]
DATASETS += ["letter", "skin_segmentation", "diagonal"]
QUICK_DATASETS = ["diabetes", "diagonal"]
SKIN_SAMPLE = 50_000
LABELS = {
    "quercus-axis": "quercus axis",
    "quercus-oblique": "quercus oblique",
    "sklearn": "scikit-learn DecisionTreeClassifier",
    "obliquetree": "obliquetree Classifier (oblique)",
    "treeple": "treeple ObliqueDecisionTreeClassifier",
}
PEERS = ("sklearn", "obliquetree", "treeple")
PEER_DISTS = ["obliquetree", "treeple", "scikit-learn", "numpy"]
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def load(name, args):
    """(X float64, y codes 0..K-1, test_fold per row, n_splits). Rows of fold -1 are in
    every training set and no test set (the diagonal set's training rows)."""
    if name == "diagonal":
        X_train = np.random.default_rng(0).random((2_000, 5))
        X_test = np.random.default_rng(1).random((20_000, 5))
        X = np.vstack([X_train, X_test])
        y = (X[:, 0] + X[:, 1] > 1).astype(np.int64)
        return X, y, np.repeat([-1, 0], [len(X_train), len(X_test)]), 1

    import pandas as pd
    from sklearn.model_selection import StratifiedKFold

    frame = pd.read_csv(DATA_DIR / f"{name}.csv", keep_default_na=False, na_values=[""])
    if name == "skin_segmentation" and not args.full:
        rows = np.random.default_rng(0).choice(len(frame), SKIN_SAMPLE, replace=False)
        frame = frame.iloc[np.sort(rows)]
    X = frame.iloc[:, :-1].to_numpy(dtype=np.float64)
    y = np.unique(frame.iloc[:, -1].astype(str), return_inverse=True)[1].astype(np.int64)
    test_fold = np.empty(len(y), dtype=np.int64)
    folds = StratifiedKFold(args.folds, shuffle=True, random_state=0)
    for k, (_, test) in enumerate(folds.split(X, y)):
        test_fold[test] = k
    return X, y, test_fold, args.folds


def make(learner, threads):
    if learner.startswith("quercus"):
        import quercus

        split = "oblique" if learner == "quercus-oblique" else "axis"
        return quercus.DecisionTreeClassifier(split=split, random_state=0, n_jobs=threads)
    if learner == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(random_state=0)
    if learner == "obliquetree":
        from obliquetree import Classifier

        return Classifier(use_oblique=True, random_state=0)
    from treeple.tree import ObliqueDecisionTreeClassifier

    return ObliqueDecisionTreeClassifier(random_state=0)


def n_leaves(learner, est):
    if learner.startswith("quercus"):
        return int(est.tree_.n_leaves)
    if learner != "obliquetree":
        return int(est.get_n_leaves())
    from obliquetree.utils import export_tree

    count, stack = 0, [export_tree(est)["tree"]]
    while stack:  # iterative: its trees may be 255 deep
        node = stack.pop()
        if node["is_leaf"]:
            count += 1
        else:
            stack += [node["left"], node["right"]]
    return count


def evaluate(learner, X, y, test_fold, n_splits, threads=1):
    """Mean accuracy, leaves and fit seconds over the splits, after one untimed fit; and how
    many functions Numba compiled after that fit (quercus only)."""
    make(learner, threads).fit(X[test_fold != 0], y[test_fold != 0])  # warm-up
    recorder = contextlib.nullcontext(SimpleNamespace(buffer=[]))
    if learner.startswith("quercus"):
        from numba.core import event

        recorder = event.install_recorder("numba:compile")
    accuracy, leaves, fit_s = [], [], []
    with recorder as compiles:
        for k in range(n_splits):
            train, test = test_fold != k, test_fold == k
            est = make(learner, threads)
            start = time.perf_counter()
            est.fit(X[train], y[train])
            fit_s.append(time.perf_counter() - start)
            accuracy.append(float(np.mean(np.asarray(est.predict(X[test])) == y[test])))
            leaves.append(n_leaves(learner, est))
    means = {"accuracy": accuracy, "leaves": leaves, "fit_s": fit_s}
    return {k: float(np.mean(v)) for k, v in means.items()} | {"compiles": len(compiles.buffer)}


def worker(spec):
    """A peer in this process: prints its result as one JSON line."""
    warnings.simplefilter("ignore")  # obliquetree warns of many feature pairs (sonar)
    data = np.load(spec["data"])
    # threads: the environment's, set by the parent
    result = evaluate(spec["learner"], data["X"], data["y"], data["test_fold"], spec["n_splits"])
    print(json.dumps(result), flush=True)


def run_peer(learner, python, data, n_splits, args):
    """A peer's result in a fresh process: its dict, {"error": ...} or {"timeout": S}."""
    spec = json.dumps({"learner": learner, "data": str(data), "n_splits": n_splits})
    ran = run_json([python, os.path.abspath(__file__), "--worker", spec], args.peer_timeout)
    if ran.timed_out:
        return {"timeout": args.peer_timeout}
    if ran.result is not None:
        return ran.result
    sys.stderr.write(stderr_tail(ran, 10))
    return {"error": last_error_line(ran)}


def peer_versions(python):
    """The peers' versions there, by machine.version (standard library only)."""
    code = "import platform, machine; print('Python', platform.python_version(), end='')\n"
    code += f"for d in {PEER_DISTS!r}: print(f', {{d}} {{machine.version(d)}}', end='')"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent))
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
    return out.stdout if out.returncode == 0 else "not available"


def row(name, shape, learner, result, reference_s):
    if "error" in result:  # no "|" in a markdown cell
        failed = "failed: " + result["error"][:90].replace("|", "/")
        return [name, shape, LABELS[learner], failed, "-", "-", "-"]
    if "timeout" in result:
        over = f"timed out (> {result['timeout']:g} s)"
        return [name, shape, LABELS[learner], over, "-", "-", "-"]
    relative = f"{result['fit_s'] / reference_s:.2f}" if reference_s else "-"
    fit = f"{result['fit_s']:.4f}" + (" †" if result.get("compiles") else "")
    accuracy, leaves = f"{result['accuracy']:.4f}", f"{result['leaves']:.1f}"
    return [name, shape, LABELS[learner], accuracy, leaves, fit, relative]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", help=f"comma-separated, from {','.join(DATASETS)}")
    parser.add_argument("--only", default=",".join(LABELS), help="comma-separated learners")
    parser.add_argument("--folds", type=int, help="CV folds (default 5; 2 with --quick)")
    parser.add_argument("--full", action="store_true", help="all rows of skin_segmentation")
    parser.add_argument("--peer-python", default=sys.executable, metavar="PY")
    parser.add_argument("--peer-timeout", type=float, default=300.0, metavar="S")
    parser.add_argument("--threads", type=int, default=1, help="quercus n_jobs, peers' OpenMP")
    parser.add_argument("--quick", action="store_true", help="diabetes, diagonal; 2 folds")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: run one peer
    args = parser.parse_args(argv)
    if args.worker:
        return args
    default = ",".join(QUICK_DATASETS if args.quick else DATASETS)
    args.names = chosen(parser, "--datasets", args.datasets or default, DATASETS)
    args.learners = chosen(parser, "--only", args.only, LABELS)
    args.folds = args.folds or (2 if args.quick else 5)
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return
    # Before Numba loads (quercus_version imports quercus); the workers inherit them.
    os.environ.update(dict.fromkeys(THREAD_VARS, str(args.threads)))
    print("# Oblique-tree benchmark\n")
    system = f"{platform.system()} {platform.release()}"
    print(f"- machine: {os.cpu_count()} cores, {cpu_model()}; {system}")
    print(f"- Python {platform.python_version()}, quercus {quercus_version()}")
    libs = ["numpy", "numba", "scikit-learn"]
    print("- this interpreter: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    print(f"- peers' interpreter: {args.peer_python} ({peer_versions(args.peer_python)})")
    print(f"- threads: {args.threads} (quercus n_jobs, {', '.join(THREAD_VARS)})")
    print(
        f"- {args.folds}-fold stratified CV (diagonal: one fit, 20,000 test rows); peer timeout "
        f"{args.peer_timeout:g} s; skin_segmentation: "
        f"{'all rows' if args.full else f'{SKIN_SAMPLE:,} sampled rows'}\n"
    )
    rows = []
    for name in [n for n in DATASETS if n in args.names]:
        X, y, test_fold, n_splits = load(name, args)
        n_train = int((test_fold == -1).sum()) or len(y)  # the diagonal set's, or all rows
        shape = f"{n_train:,} × {X.shape[1]}" + (" (test 20,000)" if name == "diagonal" else "")
        results = {}
        with tempfile.TemporaryDirectory(prefix="oblique_bench_") as tmp:
            data = Path(tmp) / "data.npz"  # no pickle: the peers' NumPy may differ
            np.savez(data, X=X, y=y, test_fold=test_fold)
            for learner in [m for m in LABELS if m in args.learners]:
                print(f"{name} / {LABELS[learner]} ...", file=sys.stderr, flush=True)
                start = time.perf_counter()
                if learner in PEERS:
                    python = sys.executable if learner == "sklearn" else args.peer_python
                    results[learner] = run_peer(learner, python, data, n_splits, args)
                else:  # quercus, in this process; its source may be mid-edit
                    try:
                        result = evaluate(learner, X, y, test_fold, n_splits, args.threads)
                    except Exception as error:
                        result = {"error": f"{type(error).__name__}: {error}"}
                    results[learner] = result
                took = time.perf_counter() - start
                print(f"  {results[learner]} ({took:.1f} s)", file=sys.stderr, flush=True)
        reference_s = results.get("quercus-oblique", {}).get("fit_s")
        rows += [row(name, shape, m, r, reference_s) for m, r in results.items()]
    header = ["data set", "rows × features", "learner", "accuracy", "leaves", "fit s"]
    print(markdown_table([*header, "fit × quercus oblique"], rows))
    print(
        "\naccuracy, leaves, fit s: means over the folds (diagonal: its one fit, accuracy on "
        "fresh rows); fit s after one untimed warm-up fit; × quercus oblique: fit s over "
        "quercus oblique's on the same set."
    )
    if any("†" in r[5] for r in rows):
        print("†: Numba compiled functions during the timed fits, after the warm-up.")


if __name__ == "__main__":
    main()
