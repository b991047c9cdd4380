"""Where the time of one tree's fit goes: per stage, and per node size.

Run from the repository root, on a quiet machine:

    .venv/bin/python bench/profile_fit.py [--sizes clf2-1m,clf7-1m,reg-1m] [--quick]

For each data set of `bench/single_tree.py` (the same data and model), one process:

1. fits the model once to compile the kernels (500 rows), then fits it on the training rows
   with a timer around each stage: typing the input (`_validate_X`), fitting the bins
   (`fit_bins`), binning (`BinMapper.transform_into`), growing (`grow_binned`, on
   every core, then again on one thread) and making the flat tree (`tree_from_grown`); the
   rest of `fit` is "other";
2. times the split of one node of m rows, for m from 2 to the whole training set: the
   compiled grower with `max_depth=1` on the first m rows of the binned matrix less the
   same call with `max_depth=0` (best of several runs each, one thread), i.e. the node's
   split search over every feature, its partition and its two children;
3. counts the split nodes of the fitted tree by their rows and multiplies each bucket's
   count by the cost of a node of its size: an estimate of the one-thread growth time by
   node size.

The tables go to stdout as markdown; progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from single_tree import DATASETS, QUICK_ROWS, WARMUP_ROWS, dataset_label, make_data, make_model

NODE_SIZES = [2, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144]
STAGES = [
    ("_validate_X", "typing the input"),
    ("fit_bins", "fitting the bins"),
    ("transform_into", "binning"),
    ("grow_binned", "growing (every core)"),
    ("tree_from_grown", "the flat tree"),
]


@contextmanager
def timed_stages(times: dict, captured: dict):
    """Wrap each stage's function with a timer adding to ``times``; keep the growth's
    arguments in ``captured``."""
    from quercus.binning import BinMapper, binned
    from quercus.estimators import base
    from quercus.estimators.validate import TabularInput

    def timer(name, func, keep=False):
        def wrapper(*args, **kwargs):
            if keep:
                captured["args"], captured["kwargs"] = args, kwargs
                captured["copies"] = [np.array(a) for a in args[1:5]]
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                times[name] = times.get(name, 0.0) + time.perf_counter() - start

        return wrapper

    patches = [
        (TabularInput, "_validate_X"),
        (binned, "fit_bins"),
        (BinMapper, "transform_into"),
        (base, "grow_binned"),
        (base, "tree_from_grown"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name in patches]
    for owner, name, func in saved:
        setattr(owner, name, timer(name, func, keep=name == "grow_binned"))
    try:
        yield
    finally:
        for owner, name, func in saved:
            setattr(owner, name, func)


def node_cost(captured: dict, m: int, repeats: int) -> float:
    """Seconds of one split of a node of the first ``m`` rows: the best of ``repeats``
    calls of the compiled grower with ``max_depth=1`` less the best with ``max_depth=0``
    (the call's own cost: its scratch space, the root's statistics)."""
    from quercus.grow._grow import grow_tree
    from quercus.grow.grower import growth_setup

    data, _, _, _, _, params = captured["args"]
    setup = {k: v for k, v in captured["kwargs"].items() if k not in ("provider", "n_threads")}
    bins, settings = growth_setup(data, params, **setup)
    binned, y_class, y_value, w = captured["copies"]
    best = {}
    for depth in (0, 1):
        best[depth] = float("inf")
        for _ in range(repeats):
            rows = (binned[:m].copy(), y_class[:m].copy(), y_value[:m].copy(), w[:m].copy())
            start = time.perf_counter()
            grow_tree(*rows, bins, settings._replace(max_depth=depth))
            best[depth] = min(best[depth], time.perf_counter() - start)
    return max(best[1] - best[0], 0.0)


def run_cell(spec: dict) -> None:
    dataset = DATASETS[spec["name"]]
    rows = QUICK_ROWS if spec["quick"] else dataset.rows
    X_train, _, y_train, _ = make_data(dataset.task, rows, dataset.classes, dataset.features)
    model = make_model("quercus", dataset.task, len(y_train), dataset.max_depth)
    model.fit(X_train[:WARMUP_ROWS], y_train[:WARMUP_ROWS])
    times, captured = {}, {}
    with timed_stages(times, captured):
        start = time.perf_counter()
        model.fit(X_train, y_train)
        total = time.perf_counter() - start
    from quercus.grow.grower import grow_binned

    args = [np.array(a) for a in captured["copies"]]
    start = time.perf_counter()
    grow_binned(
        captured["args"][0], *args, captured["args"][5], **{**captured["kwargs"], "n_threads": 1}
    )
    one_thread = time.perf_counter() - start
    tree = model.tree_
    split_rows = tree.n_node_samples[tree.kind != 0]
    costs = []
    for m in NODE_SIZES:
        if m > len(y_train):
            break
        repeats = max(3, min(200, 2_000_000 // m))
        costs.append((m, node_cost(captured, m, repeats)))
    print(
        json.dumps(
            {
                "total": total,
                "stages": times,
                "one_thread": one_thread,
                "costs": costs,
                "split_rows": np.bincount(
                    np.searchsorted([m for m, _ in costs], split_rows), minlength=len(costs) + 1
                ).tolist(),
                "nodes": int(tree.node_count),
            }
        ),
        flush=True,
    )


def table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(name: str, result: dict) -> None:
    stages = result["stages"]
    rows = [[label, f"{stages.get(key, 0.0):.2f}"] for key, label in STAGES]
    other = result["total"] - sum(stages.values())
    rows += [["other", f"{other:.2f}"], ["**fit**", f"**{result['total']:.2f}**"]]
    rows += [["growing on one thread (again, for comparison)", f"{result['one_thread']:.2f}"]]
    print(f"### {name}: stages (seconds)\n")
    print(table(["stage", "s"], rows))
    print()
    costs, counts = result["costs"], result["split_rows"]
    rows, low = [], 1
    for (m, cost), count in zip(costs, counts, strict=False):
        rows.append(
            [f"{low + 1:,}-{m:,}", f"{count:,}", f"{cost * 1e6:.1f}", f"{count * cost:.2f}"]
        )
        low = m
    print(f"### {name}: split nodes by rows ({result['nodes']:,} nodes in the tree)\n")
    header = ["rows of the node", "split nodes", "us per node (its top size)", "estimate s"]
    print(table(header, rows))
    print()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="clf2-1m,clf7-1m,reg-1m")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS:,} rows each")
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        run_cell(json.loads(args.cell))
        return
    print("## Where the fit time goes\n")
    for name in args.sizes.split(","):
        spec = json.dumps({"name": name, "quick": args.quick})
        cmd = [sys.executable, str(Path(__file__).resolve()), "--cell", spec]
        print(f"{name} ...", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            print(proc.stderr[-2000:], file=sys.stderr)
            print(f"### {name}: failed\n")
            continue
        dataset = DATASETS[name]
        if args.quick:
            dataset = dataset._replace(rows=QUICK_ROWS)
        report(dataset_label(dataset), json.loads(lines[-1]))
    print(
        "us per node: one split (statistics, search over every feature, partition) of a "
        "node holding the first m training rows, m the bucket's top size, best of several "
        "runs on one thread; estimate: split nodes x that cost (an upper bound for the bucket)."
    )


if __name__ == "__main__":
    main()
