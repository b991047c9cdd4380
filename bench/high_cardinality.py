"""A nominal column of many levels (zip codes, product ids): fit time, peak memory, the
category tables' size, the model file's size and its load, for one default tree and one
default forest.

Run from the repository root, on a quiet machine (Linux: it reads /proc/self/status):

    .venv/bin/python bench/high_cardinality.py [--rows 200000] [--levels 20000]
        [--models tree,forest] [--timeout 900]

Each cell runs in a fresh process (after a fit on 2,000 rows, so the kernels are loaded):
it fits the model on ``--rows`` rows of a generated table (a nominal column ``code`` of
``--levels`` levels, a class that depends on a hidden group of each level and on two of
five numeric columns; a fixed seed), saves it, then loads it. Peak MiB is the peak RSS of
the step less the RSS before it (the kernel's peak mark reset at each step). A cell that
fails or passes ``--timeout`` says so in its row.

The table goes to stdout as markdown; progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from cells import chosen, last_error_line, markdown_table, run_json

MODELS = ("tree", "forest")


def make_data(rows: int, levels: int, seed: int = 0):
    """``(X, y)``: a frame with the nominal column ``code`` and five numeric columns."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    level = rng.integers(0, levels, rows)
    group = rng.permutation(levels) % 7  # each level's hidden group
    numbers = rng.normal(size=(rows, 5))
    X = pd.DataFrame(numbers, columns=[f"x{j}" for j in range(5)])
    X.insert(0, "code", pd.Series([f"z{k:06d}" for k in level], dtype="category"))
    score = group[level] / 3.0 + numbers[:, 0] - 0.5 * numbers[:, 1]
    y = (score + rng.normal(scale=0.8, size=rows) > 1.5).astype(np.int64)
    return X, y


def make_model(name: str):
    import quercus

    if name == "tree":
        return quercus.DecisionTreeClassifier(random_state=0)
    return quercus.RandomForestClassifier(random_state=0)


def table_entries(model) -> int:
    """How many category-table entries the fitted model holds (every tree's)."""
    trees = [model] if hasattr(model, "tree_") else list(model.estimators_)
    return int(sum(len(t.tree_.cat_table) for t in trees))


def run_cell(name: str, rows: int, levels: int) -> dict:
    from machine import measured_step

    import quercus

    X, y = make_data(rows, levels)
    make_model(name).fit(X.iloc[:2_000], y[:2_000])  # the kernels, loaded or compiled

    fitted, fit_s, fit_mib = measured_step(lambda: make_model(name).fit(X, y))
    entries = table_entries(fitted)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.json"
        _, save_s, _ = measured_step(lambda: fitted.save(path))
        size = path.stat().st_size
        fitted = None  # freed before the load is measured
        loaded, load_s, load_mib = measured_step(lambda: quercus.load(path))
    agree = float((loaded.predict(X.iloc[:5_000]) == y[:5_000]).mean())
    return {
        "fit_s": fit_s,
        "fit_mib": fit_mib,
        "entries": entries,
        "file_mib": size / 2**20,
        "save_s": save_s,
        "load_s": load_s,
        "load_mib": load_mib,
        "train_accuracy_5000": agree,
    }


def row(name: str, args) -> list[str]:
    ran = run_json(
        [
            sys.executable,
            __file__,
            "--cell",
            name,
            "--rows",
            str(args.rows),
            "--levels",
            str(args.levels),
        ],
        args.timeout,
    )
    if ran.result is None:
        why = f"over {args.timeout:.0f} s" if ran.timed_out else last_error_line(ran)
        return [name, why, "", "", "", "", "", ""]
    r = ran.result
    print(f"{name}: {json.dumps(r)}", file=sys.stderr)
    return [
        name,
        f"{r['fit_s']:.2f}",
        f"{r['fit_mib']:.0f}",
        f"{r['entries']:,}",
        f"{r['file_mib']:.1f}",
        f"{r['load_s']:.2f}",
        f"{r['load_mib']:.0f}",
        f"{r['train_accuracy_5000']:.3f}",
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--levels", type=int, default=20_000)
    parser.add_argument("--models", default=",".join(MODELS), help="tree,forest")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per cell")
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        print(json.dumps(run_cell(args.cell, args.rows, args.levels)), flush=True)
        return
    models = chosen(parser, "--models", args.models, MODELS)
    print(f"# {args.rows:,} rows, a nominal column of {args.levels:,} levels\n")
    header = [
        "model",
        "fit s",
        "fit peak MiB",
        "table entries",
        "file MiB",
        "load s",
        "load peak MiB",
        "training accuracy (5,000 rows)",
    ]
    print(markdown_table(header, [row(name, args) for name in models]))


if __name__ == "__main__":
    main()
