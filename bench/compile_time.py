"""Cold and warm start of quercus: import, then fit a small tree and a small forest.

Run from the repository root:

    .venv/bin/python bench/compile_time.py [--baseline REV ...] [--repeat R]

    .venv/bin/python bench/compile_time.py                      # the current code only
    .venv/bin/python bench/compile_time.py --baseline 252f360   # that commit beside it

What is measured. One run is a fresh Python process (this script started again with
`--child`) with `NUMBA_CACHE_DIR` set to a new empty directory, so that every Numba kernel it
uses is compiled ("cold"), then a second process with the same, now filled, directory, which
loads the kernels from the cache ("warm"). Each process imports quercus, fits
`ID3Classifier()` on the playtennis data set and predicts it, then fits
`RandomForestClassifier(n_estimators=10, random_state=0)` on 200 rows of 5 numeric features
and predicts them. The table shows the wall time of the whole process (interpreter start
included) and of each of those steps, measured inside it with `time.perf_counter`.

`--baseline REV` (repeatable) times the code of git revision REV too, from a worktree of it
under the temporary directory (made once, then reused), with the same interpreter and
`PYTHONPATH=<worktree>/src` (see bench/baseline.py). The sources are run alternately, cold
then warm each, `--repeat` times (default 3), and the medians are shown with the ratio
current / baseline (above 1: the current code is slower).

`--kernels` runs one cold process instead and lists where its compile time went: every
kernel and signature Numba compiled (its own seconds, callees excluded, and with them), in
the step that first needed it: import, ID3 on playtennis, then the first fit of each other
estimator in turn (`KERNEL_STEPS`). Numba's `numba:compile` event brackets each compilation,
nested when a kernel's typing compiles its callees; a kernel loaded from the cache has no
event. `--starts` times the starts a user sees, each a fresh process: `quercus demo` with an
empty cache then a filled one, and warm `quercus --help` and `quercus show MODEL`.

`--wheel` measures an install as `pip install` users get it: it builds a wheel of this
checkout (`pip wheel`, which compiles the kernels into it; or takes `--wheel-file`), installs
it into a fresh venv, and runs `bench/first_fits.py` there `--repeat` times, each a new
process on a PATH without a C compiler: the first fit of every kind of model (tree, forest
on 100,000 rows, oblique, look-ahead, model tree, rules), with the wheel's kernels, then
with `--cold` once more with an empty `NUMBA_CACHE_DIR` (everything compiled, as without
them); and beside them scikit-learn's first fit of a tree in a new process.

The table goes to stdout as markdown; progress goes to stderr. Use a quiet machine: the
numbers are only as good as the machine is idle.
"""

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline
from cells import markdown_table

FOREST_ROWS = 200
FOREST_FEATURES = 5
FOREST_TREES = 10
WIDE_ROWS = 1000
STEPS = {
    "process": "whole process",
    "import": "import quercus",
    "tree": "ID3Classifier fit + predict, playtennis",
    "forest": f"RandomForestClassifier({FOREST_TREES} trees) fit + predict, {FOREST_ROWS} rows",
}


def child():
    """One timed start (run in a fresh process): print the step times as one JSON line."""
    times = {}
    start = time.perf_counter()
    import quercus

    times["import"] = time.perf_counter() - start

    start = time.perf_counter()
    tennis = quercus.datasets.load("playtennis")
    X, y = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    quercus.ID3Classifier().fit(X, y).predict(X)
    times["tree"] = time.perf_counter() - start

    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(FOREST_ROWS, FOREST_FEATURES))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    start = time.perf_counter()
    forest = quercus.RandomForestClassifier(n_estimators=FOREST_TREES, random_state=0)
    forest.fit(X, y).predict(X)
    times["forest"] = time.perf_counter() - start
    times["quercus_file"] = quercus.__file__
    print(json.dumps(times), flush=True)


def run_child(source, cache_dir):
    """One child process of ``source`` with ``cache_dir`` as Numba cache: its step times."""
    env = baseline.child_env(source)
    env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child"],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"{source.name}: the timed process failed (exit {proc.returncode})")
    times = json.loads(lines[-1])
    wrong = baseline.imported_from(source, times["quercus_file"])
    if wrong:
        raise SystemExit(f"{source.name}: {wrong}")
    times["process"] = wall
    return times


def measure(sources, repeat):
    """{(source name, "cold"|"warm"): [step times of each run]}, sources alternating."""
    runs = {(s.name, cache): [] for s in sources for cache in ("cold", "warm")}
    for r in range(repeat):
        for source in sources:
            with tempfile.TemporaryDirectory(prefix="quercus-numba-") as cache_dir:
                for cache in ("cold", "warm"):
                    times = run_child(source, cache_dir)
                    runs[(source.name, cache)].append(times)
                    print(
                        f"[{r + 1}/{repeat}] {source.name} {cache}: {times['process']:.2f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    return runs


def table(sources, runs):
    """Medians per (cache, step): one column per source, then current / each baseline."""
    current = sources[-1]
    baselines = sources[:-1]
    header = ["Numba cache", "step", *(s.name for s in sources)]
    header += [f"ratio {current.name} / {b.name}" for b in baselines]
    rows = []
    for cache in ("cold", "warm"):
        for step, label in STEPS.items():
            median = {
                s.name: statistics.median(t[step] for t in runs[(s.name, cache)]) for s in sources
            }
            row = [cache, label, *(f"{median[s.name]:.2f}" for s in sources)]
            row += [baseline.ratio(median[current.name], median[b.name]) for b in baselines]
            rows.append(row)
    return markdown_table(header, rows)


# ---------------------------------------------------------------------------------------------
# --kernels: where one cold process's compile time goes, per kernel and signature


def _estimator_steps():
    """(label, function) of each step after ID3 on playtennis: an estimator's first fit and
    predict, on playtennis (nominal) or on 200 rows of 5 numeric features."""
    import numpy as np

    import quercus

    tennis = quercus.datasets.load("playtennis")
    Xt, yt = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(FOREST_ROWS, FOREST_FEATURES))
    yc = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    yr = 2 * X[:, 0] + rng.normal(size=FOREST_ROWS)

    def fit(make, X, y):
        return lambda: make().fit(X, y).predict(X)

    forest = {"n_estimators": FOREST_TREES, "random_state": 0}
    # More than 255 distinct values in a column: 2-byte bin codes, another signature.
    X_wide = rng.normal(size=(WIDE_ROWS, FOREST_FEATURES))
    y_wide = (X_wide[:, 0] > 0).astype(np.int64)
    return [
        ("C45Classifier, playtennis", fit(quercus.C45Classifier, Xt, yt)),
        ("C45RulesClassifier, playtennis", fit(quercus.C45RulesClassifier, Xt, yt)),
        ("CARTClassifier, numeric", fit(quercus.CARTClassifier, X, yc)),
        ("DecisionTreeClassifier, numeric", fit(quercus.DecisionTreeClassifier, X, yc)),
        ("CARTRegressor, numeric", fit(quercus.CARTRegressor, X, yr)),
        ("DecisionTreeRegressor, numeric", fit(quercus.DecisionTreeRegressor, X, yr)),
        (
            "DecisionTreeRegressor(absolute_error)",
            fit(lambda: quercus.DecisionTreeRegressor(criterion="absolute_error"), X, yr),
        ),
        ("RandomForestClassifier", fit(lambda: quercus.RandomForestClassifier(**forest), X, yc)),
        ("RandomForestRegressor", fit(lambda: quercus.RandomForestRegressor(**forest), X, yr)),
        (
            f"CARTClassifier, {WIDE_ROWS:,} numeric rows (2-byte bin codes)",
            fit(quercus.CARTClassifier, X_wide, y_wide),
        ),
    ]


def _short_type(t) -> str:
    """A Numba type in a few characters: ``u8[2d]``, ``rec[1d]``, ``Settings``, ``L0``."""
    from numba.core import types

    if isinstance(t, types.Array):
        dtype = "rec" if isinstance(t.dtype, types.Record) else str(t.dtype)
        dtype = dtype.replace("uint", "u").replace("int", "i").replace("float", "f")
        return f"{dtype}[{t.ndim}d{'' if t.layout == 'C' else t.layout}]"
    if isinstance(t, types.BaseNamedTuple):
        return t.instance_class.__name__
    if isinstance(t, types.Literal):
        return f"L{t.literal_value!r}"
    if isinstance(t, types.BaseTuple):
        return "(" + ",".join(_short_type(x) for x in t) + ")"
    if isinstance(t, types.Omitted):
        return "omitted"
    return str(t).replace("uint", "u").replace("int", "i").replace("float", "f")


class _CompileRecorder:
    """Numba ``numba:compile`` listener: one record per compiled signature, with the
    seconds of its own (``self``: the nested compilations of its callees subtracted) and in
    all, its caller and the step it happened in."""

    def __init__(self):
        self.records = []
        self.step = "import quercus"
        self._stack = []

    def on_start(self, event):
        self._stack.append([event.data, time.perf_counter(), 0.0])

    def on_end(self, event):
        data, start, nested = self._stack.pop()
        total = time.perf_counter() - start
        if self._stack:
            self._stack[-1][2] += total
        func = data["dispatcher"].py_func
        self.records.append(
            {
                "kernel": f"{func.__module__}.{func.__qualname__}".removeprefix("quercus."),
                "signature": ", ".join(_short_type(t) for t in data["args"]),
                "caller": _caller(self._stack),
                "step": self.step,
                "self": total - nested,
                "total": total,
            }
        )


def _caller(stack) -> str:
    if not stack:
        return ""
    func = stack[-1][0]["dispatcher"].py_func
    return func.__qualname__


def kernels_child():
    """One cold process (run with an empty NUMBA_CACHE_DIR): every compilation of each
    step, printed as one JSON line ``{"steps": {label: seconds}, "records": [...]}``."""
    from numba.core import event

    class Recorder(_CompileRecorder, event.Listener):
        pass

    recorder = Recorder()
    event.register("numba:compile", recorder)
    steps = {}
    start = time.perf_counter()
    import quercus

    steps[recorder.step] = time.perf_counter() - start
    tennis = quercus.datasets.load("playtennis")
    X, y = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    plan = [("ID3Classifier, playtennis", lambda: quercus.ID3Classifier().fit(X, y).predict(X))]
    for label, step in plan + _estimator_steps():
        recorder.step = label
        start = time.perf_counter()
        step()
        steps[label] = time.perf_counter() - start
        print(f"{label}: {steps[label]:.2f} s", file=sys.stderr, flush=True)
    print(json.dumps({"steps": steps, "records": recorder.records}), flush=True)


def kernel_tables(result, top) -> str:
    """The per-step and per-kernel tables of one ``--kernels`` run."""
    records = result["records"]
    rows = []
    for label, seconds in result["steps"].items():
        own = [r for r in records if r["step"] == label]
        compiled = sum(r["self"] for r in own)
        rows.append([label, f"{seconds:.2f}", len(own), f"{compiled:.2f}"])
    out = [
        markdown_table(["step (in order, one process)", "wall s", "compiled", "compile s"], rows)
    ]
    ranked = sorted(records, key=lambda r: -r["self"])
    shown = ranked[:top] if top else ranked
    rows = [
        [
            r["kernel"],
            r["signature"],
            r["caller"] or "-",
            r["step"].split(",")[0],
            f"{r['self']:.2f}",
            f"{r['total']:.2f}",
        ]
        for r in shown
    ]
    if len(shown) < len(ranked):
        rest = ranked[len(shown) :]
        rows.append([f"({len(rest)} more)", "", "", "", f"{sum(r['self'] for r in rest):.2f}", ""])
    header = ["kernel", "signature", "compiled for", "step", "own s", "with callees s"]
    out.append(markdown_table(header, rows))
    return "\n\n".join(out)


def run_kernels(args):
    with tempfile.TemporaryDirectory(prefix="quercus-numba-") as cache_dir:
        env = baseline.child_env(baseline.current())
        env["NUMBA_CACHE_DIR"] = cache_dir
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--kernels-child"],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"the timed process failed (exit {proc.returncode})")
    result = json.loads(lines[-1])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print("# Compile time per kernel and signature (one cold process)\n")
    print(f"- Python {platform.python_version()}, {_versions()}; an empty NUMBA_CACHE_DIR")
    print("- own s: the kernel's compilation less the nested ones of its callees\n")
    print(kernel_tables(result, args.top))
    print()


def _versions() -> str:
    import numba

    return f"Numba {numba.__version__}"


# ---------------------------------------------------------------------------------------------
# --wheel: the first fits of an install from a wheel, in a fresh venv

SKLEARN_FIRST_FIT = """
import json, time
start = time.perf_counter()
import numpy as np
from sklearn.tree import DecisionTreeClassifier
rng = np.random.default_rng(0)
X = rng.normal(size=(1000, 5))
DecisionTreeClassifier().fit(X, X[:, 0] > 0).predict(X)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def _checked(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"{command[0]}: exit {done.returncode}")
    return done


def _wheel_venv(folder: Path, wheel: Path | None) -> tuple[Path, float | None]:
    """(python of a fresh venv holding the wheel, seconds the wheel's build took or None)."""
    import venv

    built = None
    if wheel is None:
        began = time.perf_counter()
        print("building the wheel (compiles the kernels)", file=sys.stderr, flush=True)
        _checked(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                str(baseline.REPO),
                "--no-deps",
                "-w",
                str(folder),
            ]
        )
        built = time.perf_counter() - began
        (wheel,) = folder.glob("quercus-*.whl")
    venv.create(folder / "venv", with_pip=True)
    python = folder / "venv" / "bin" / "python"
    _checked([str(python), "-m", "pip", "install", "--quiet", str(wheel)])
    return python, built


def run_wheel(args):
    """The first fits of an install from a wheel, its kernels loaded and compiled."""
    from first_fits import KINDS

    runs = {"wheel's kernels": []}
    if args.cold:
        runs["empty NUMBA_CACHE_DIR (one run)"] = []
    sklearn = []
    with tempfile.TemporaryDirectory(prefix="quercus-wheel-") as folder:
        folder = Path(folder)
        wheel = Path(args.wheel_file).resolve() if args.wheel_file else None
        python, built = _wheel_venv(folder, wheel)
        plain = {"PATH": str(python.parent), "HOME": str(folder), "LANG": "C.UTF-8"}
        script = str(Path(__file__).with_name("first_fits.py"))
        for r in range(args.repeat):
            for label in runs:
                if r > 0 and label != "wheel's kernels":
                    continue  # compiling everything takes minutes: once is enough
                env = dict(plain)
                if label != "wheel's kernels":
                    env["NUMBA_CACHE_DIR"] = str(folder / f"empty-{r}")
                began = time.perf_counter()
                done = _checked([str(python), script], env=env, cwd=folder)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                result["process"] = time.perf_counter() - began
                runs[label].append(result)
                print(
                    f"[{r + 1}/{args.repeat}] {label}: {result['process']:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
            done = _checked([str(python), "-c", SKLEARN_FIRST_FIT], env=plain, cwd=folder)
            sklearn.append(json.loads(done.stdout)["seconds"])
    import numba

    print("# First fits of an install from a wheel (fresh venv, no C compiler on PATH)\n")
    print(
        f"- Python {platform.python_version()}, Numba {numba.__version__}; "
        f"{args.repeat} runs each, medians"
    )
    if built is not None:
        print(f"- building the wheel (pip wheel, compiling the kernels): {built:.0f} s")
    print(
        "- each kind's first fit and predict in one new process, in this order; the tree's "
        "includes importing scikit-learn, SciPy and pandas"
    )
    print(
        f"- scikit-learn's first fit of a tree in a new process (import included): "
        f"{statistics.median(sklearn):.2f} s\n"
    )
    header = ["first fit", *runs]
    rows = []
    for kind in KINDS:
        row = [kind]
        for results in runs.values():
            seconds = statistics.median(r["fits"][kind] for r in results)
            compiled = max(len(r["compiled"][kind]) for r in results)
            row.append(f"{seconds:.2f}" + (f" ({compiled} compiled)" if compiled else ""))
        rows.append(row)
    rows.append(
        [
            "whole process",
            *(
                f"{statistics.median(r['process'] for r in results):.2f}"
                for results in runs.values()
            ),
        ]
    )
    print(markdown_table(header, rows))
    print()


# ---------------------------------------------------------------------------------------------
# --starts: the command line's starts, each a fresh process


def _timed_command(args, env, cwd) -> float:
    """Wall seconds of ``python -m quercus ARGS`` (fails loudly when the command does)."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "quercus", *args], env=env, cwd=cwd, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"quercus {' '.join(args)}: exit {proc.returncode}")
    return seconds


def run_starts(args):
    """Cold and warm ``quercus demo``, warm ``--help`` and ``show`` (median of ``--repeat``)."""
    import quercus

    tennis = Path(quercus.__file__).parent / "datasets" / "data" / "playtennis.csv"
    rows = []
    with tempfile.TemporaryDirectory(prefix="quercus-starts-") as folder:
        env = baseline.child_env(baseline.current())
        env["NUMBA_CACHE_DIR"] = str(Path(folder, "numba"))
        env["TMPDIR"] = folder  # the demo's report
        model = str(Path(folder, "tennis.json"))
        for cache in ("cold", "warm"):
            seconds = _timed_command(["demo"], env, folder)
            rows.append([f"quercus demo, {cache} Numba cache", f"{seconds:.2f}"])
            print(rows[-1], file=sys.stderr, flush=True)
        _timed_command(["fit", str(tennis), "--algorithm", "id3", "-o", model], env, folder)
        for label, command in (("quercus --help", ["--help"]), ("quercus show", ["show", model])):
            times = [_timed_command(command, env, folder) for _ in range(args.repeat)]
            rows.append(
                [f"{label}, warm (median of {args.repeat})", f"{statistics.median(times):.2f}"]
            )
    print("# Starts of the command line (wall seconds of a fresh process)\n")
    print(markdown_table(["command", "s"], rows))
    print()


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="also time git revision REV (from a worktree under /tmp); repeatable",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="cold + warm runs per source (default 3), median"
    )
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="one cold process: compile seconds per kernel and signature, per step",
    )
    parser.add_argument(
        "--top", type=int, default=40, help="--kernels: the kernels shown (0: all; default 40)"
    )
    parser.add_argument("--json", metavar="FILE", help="--kernels: also save the records")
    parser.add_argument(
        "--starts",
        action="store_true",
        help="cold and warm quercus demo, warm quercus --help and quercus show",
    )
    parser.add_argument(
        "--wheel",
        action="store_true",
        help="build a wheel, install it in a fresh venv, time the first fit of every kind",
    )
    parser.add_argument("--wheel-file", metavar="WHL", help="--wheel: use this wheel instead")
    parser.add_argument(
        "--cold", action="store_true", help="--wheel: also one run with an empty Numba cache"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kernels-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        child()
        return
    if args.kernels_child:
        kernels_child()
        return
    if args.kernels:
        run_kernels(args)
        return
    if args.starts:
        run_starts(args)
        return
    if args.wheel:
        run_wheel(args)
        return
    sources = baseline.sources(args.baseline)
    runs = measure(sources, args.repeat)
    print("# Cold and warm start (wall seconds, median)\n")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    for source in sources:
        package = Path(runs[(source.name, "cold")][0]["quercus_file"]).parent
        print(f"- {source.name}: {package}" + (f" ({source.commit})" if source.commit else ""))
    print(f"- runs per source: {args.repeat}, sources alternating; cold: an empty NUMBA_CACHE_DIR")
    print()
    print(table(sources, runs))
    print()


if __name__ == "__main__":
    main()
