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

FOREST_ROWS = 200
FOREST_FEATURES = 5
FOREST_TREES = 10
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


def markdown_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


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
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.child:
        child()
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
