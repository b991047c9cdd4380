"""Reference results of Weka's M5P (model trees) for quercus's model-tree tests.

Runs M5P from the Debian package ``weka`` (``apt-get install weka``; jar
``/usr/share/java/weka.jar``) over the regression data sets in ``../shared/datasets`` on fixed
folds, and writes ``tests/fixtures/m5p_reference.json`` so that the test suite itself does not
need Java. This script only runs the Weka program and reads what it prints. The CSV-to-ARFF
conversion and the JSON layout are those of ``j48_reference.py`` (imported from the same folder).

Usage::

    .venv/bin/python scripts/m5p_reference.py [--datasets a,b] [--out PATH] [--jobs N]

With ``--datasets`` and an existing ``--out`` file, only those data sets are replaced in it.

How the data are given to M5P
-----------------------------
As in ``j48_reference.py``, except that the target (the last column) is NUMERIC: rows in file
order, an empty cell is ``?``, nominal columns are the "Numeric-looking categorical columns" of
``MANIFEST.md`` and every column holding a value that is not a number, their values declared in
sorted order (numbers first in numeric order, then by Unicode code point), stored as
``nominal_values``. M5P turns each nominal attribute into binary ones of its own (names such as
``Sex=M,F``, values grouped by mean target), which is what its splits and linear models name.

Folds
-----
``sklearn.model_selection.KFold(n_splits=10, shuffle=True, random_state=0)``; the fold of a row
is the index of the split whose test part holds it.

Configurations
--------------
``default``: ``-M 4.0`` (pruned model tree, smoothed predictions); ``unsmoothed``: ``-M 4.0 -U``;
``unpruned``: ``-M 4.0 -N``; ``regression_tree``: ``-M 4.0 -R`` (constant leaves; M5P still
smooths them unless ``-U`` is given too: its heading says "using smoothed linear models").

Per fold, M5P is trained on the other folds with ``-d`` (save the model) and run a second time
with ``-l`` on the saved model and ``-p 0`` to print its prediction for every test row; ``sse``
and ``sae`` are computed from those predictions (printed with 3 decimals) and the CSV's target
values. Weka's own printed test RMSE and MAE (4 decimals) are kept as ``weka_rmse`` and
``weka_mae``; the script fails if they disagree with the predictions by more than rounding.
``max_error`` is the largest absolute error of the fold: on diamonds a single row (``y`` = 58.9,
a data error) is predicted about 472,000 against a price of 12,210 by ``default`` and dominates
its pooled RMSE.

Fixture layout
--------------
::

    {
      "generator": "scripts/m5p_reference.py",
      "weka_version": "3.6.14", "weka_jar": ..., "java_version": ...,
      "value_order": ..., "tree_text": ..., "first_splits": ..., "max_tree_chars": 40000,
      "datasets": {
        NAME: {                      # NAME = CSV file name without .csv
          "file": "boston.csv", "n_rows": ..., "target": ...,
          "nominal_columns": [...], "nominal_values": {column: [values in ARFF order]},
          "n_folds": 10, "fold_rule": ..., "folds": [fold of every row, in file order],
          "configs": {
            "default": {
              "options": "-M 4.0",
              "per_fold": [{"fold": k, "n_test": ..., "sse": ..., "sae": ..., "max_error": ...,
                            "rules": ..., "build_seconds": ..., "weka_rmse": ...,
                            "weka_mae": ...}, ...],
              "rmse": sqrt(sum(sse) / n_rows), "mae": sum(sae) / n_rows,   # pooled
              "mean_rules": ...,                                           # mean over folds
              "full_tree": {
                "rules": ..., "heading": "M5 pruned model tree:\\n(using smoothed linear models)",
                "first_splits": {"root": {"attribute": "lstat", "threshold": 9.725},
                                 "left": {...} or "leaf", "right": {...} or "leaf"},
                "build_seconds": ..., "seconds": ..., "train_rmse": ..., "train_mae": ...,
                "text_chars": ..., "text": ... or null,
                "text_omitted": reason (only when text is null)
              }
            },
            "unsmoothed": {...}, "unpruned": {...}, "regression_tree": {...}
          }
        }
      }
    }

``full_tree`` is M5P trained once on the whole data set, alone (no other M5P run at the same
time). ``seconds`` is the wall-clock time of that Java process as measured here (JVM start,
reading the ARFF, building, and Weka's evaluation on the training rows); ``build_seconds`` is
the "Time taken to build model" Weka prints (2 decimals); ``train_rmse`` and ``train_mae`` are
Weka's printed errors on the training rows. ``heading`` is the lines M5P prints above the tree
(they say pruned/unpruned, model/regression tree, and whether predictions are smoothed).
``text`` is the tree as M5P prints it: the lines after the heading up to "Number of Rules" (the
splits with their ``LMk (n/error%)`` leaves, then every ``LM num: k`` linear model), leading and
trailing empty lines removed, joined with "\\n"; null when longer than ``--max-tree-chars``.
``first_splits`` is parsed from that text and is always stored: the root's split and the split
of each child (``left`` is the ``<=`` branch, ``right`` the ``>`` branch), or ``"leaf"``;
``root`` itself is ``"leaf"`` when the tree is a single linear model. Thresholds are as M5P
prints them (at most 3 decimals).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

# The scripts folder is no package: load the sibling J48 script as a module to share its
# CSV-to-ARFF conversion, Java runner and JSON writer.
_spec = importlib.util.spec_from_file_location(
    "j48_reference", Path(__file__).resolve().with_name("j48_reference.py")
)
j48 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(j48)

REPO = j48.REPO
DEFAULT_OUT = REPO / "tests" / "fixtures" / "m5p_reference.json"

DATASETS = ["boston", "abalone", "bike_sharing_hour", "cal_housing", "diamonds"]

# Weka 3.6.14's M5P (from -h): -N unpruned, -U unsmoothed, -R regression tree, -M "minimum
# number of instances per leaf" (not a bound: boston's unpruned tree has leaves of 2 rows).
CONFIGS = {
    "default": "-M 4.0",
    "unsmoothed": "-M 4.0 -U",
    "unpruned": "-M 4.0 -N",
    "regression_tree": "-M 4.0 -R",
}

N_SPLITS = 10
SEED = 0
MAX_TREE_CHARS = 40_000
M5P = "weka.classifiers.trees.M5P"

TREE_TEXT = (
    "lines after M5P's heading up to 'Number of Rules' (splits with their LM leaves, then the "
    "linear models), leading/trailing empty lines removed, joined with newlines; null when "
    "longer than max_tree_chars"
)
FIRST_SPLITS = (
    "root split and each child's split ('left' = the <= branch, 'right' = the > branch) or "
    "'leaf', parsed from the full tree's text; thresholds as M5P prints them (at most 3 decimals)"
)

# A split line: "|   " per level, the attribute (may hold blanks), "<=" or ">", the threshold,
# " : ", then "LMk (n/err%)" for a leaf or nothing when the subtree follows on the next lines.
_SPLIT = re.compile(r"^((?:\|   )*)(.+?) (<=|>) +(\S+) :(.*)$")


# ----------------------------------------------------------------------------- data


def read_regression(data_dir: Path, name: str, numeric_looking: dict[str, set[str]]) -> dict:
    """j48_reference's reader, with the target made NUMERIC."""
    ds = j48.read_dataset(data_dir, name, numeric_looking)
    target = ds["target"]
    bad = [v for v in ds["y"] if not j48.is_number(v)]
    if bad:
        raise ValueError(f"{ds['file']}: target {target!r} has non-numeric values, e.g. {bad[0]}")
    ds["nominal"].remove(target)
    del ds["values"][target]
    ds["y"] = [float(v) for v in ds["y"]]
    return ds


def make_folds(n: int) -> tuple[list[int], str]:
    import numpy as np
    from sklearn.model_selection import KFold

    folds = [-1] * n
    kf = KFold(n_splits=N_SPLITS, shuffle=True, random_state=SEED)
    for k, (_, test) in enumerate(kf.split(np.zeros((n, 1)))):
        for i in test:
            folds[int(i)] = k
    rule = (
        f"KFold(n_splits={N_SPLITS}, shuffle=True, random_state={SEED}); fold k = index of the "
        "split whose test part holds the row"
    )
    return folds, rule


# ----------------------------------------------------------------------------- M5P


def m5p_command(args, *extra: str) -> list[str]:
    return [args.java, f"-Xmx{args.heap}", "-cp", str(args.jar), M5P, *extra]


def parse_model(out: str) -> dict:
    """Heading, tree text, rule count and build time from M5P's printed model."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"M5 \w+ \w+ tree:", line))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Number of Rules"))
    head_end = next(i for i in range(start, end) if lines[i].strip() == "")
    body = lines[head_end:end]
    while body and body[0].strip() == "":
        body.pop(0)
    while body and body[-1].strip() == "":
        body.pop()
    rules = int(re.search(r"Number of Rules\s*:\s*(\d+)", out).group(1))
    build = re.search(r"Time taken to build model:\s*(\S+) seconds", out)
    return {
        "rules": rules,
        "heading": "\n".join(lines[start:head_end]),
        "text": "\n".join(body),
        "build_seconds": float(build.group(1)) if build else None,
    }


def parse_errors(out: str, section: str) -> dict:
    """Weka's printed RMSE, MAE and row count under "=== Error on <section> data ===" ."""
    text = out.split(f"=== Error on {section} data ===", 1)[1]
    return {
        "rmse": float(re.search(r"Root mean squared error\s+(\S+)", text).group(1)),
        "mae": float(re.search(r"Mean absolute error\s+(\S+)", text).group(1)),
        "n": round(float(re.search(r"Total Number of Instances\s+(\S+)", text).group(1))),
    }


def parse_predictions(out: str) -> list[tuple[float, float]]:
    """(actual, predicted) per test row, in test-file order, from ``-p 0``."""
    rows = []
    lines = iter(out.splitlines())
    for line in lines:
        if line.strip().startswith("inst#"):
            break
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4 or int(parts[0]) != len(rows) + 1:
            raise ValueError(f"unexpected prediction line {line!r}")
        rows.append((float(parts[1]), float(parts[2])))
    return rows


def split_of(line: str) -> tuple[int, str, str, float, str] | None:
    m = _SPLIT.match(line)
    if m is None:
        return None
    depth = len(m.group(1)) // 4
    return depth, m.group(2), m.group(3), float(m.group(4)), m.group(5).strip()


def first_splits(text: str) -> dict:
    """The root's split and each child's split, or "leaf", from the printed tree."""
    lines = text.split("\n")
    first = split_of(lines[0])
    if first is None:  # a single linear model: "LM1 (n/err%)"
        return {"root": "leaf"}
    _, attribute, op, threshold, _ = first
    if op != "<=":
        raise ValueError(f"tree does not start with a <= branch: {lines[0]!r}")
    result = {"root": {"attribute": attribute, "threshold": threshold}}
    for i, line in enumerate(lines):
        s = split_of(line)
        if s is None or s[0] != 0:
            continue
        side = "left" if s[2] == "<=" else "right"
        if s[4]:  # "LMk (...)" on the same line
            result[side] = "leaf"
        else:
            child = split_of(lines[i + 1])
            result[side] = {"attribute": child[1], "threshold": child[3]}
    return result


def run_fold(job: dict) -> dict:
    args = job["args"]
    model_out = j48.run_java(
        m5p_command(args, "-t", str(job["train"]), "-T", str(job["test"]), "-d", str(job["model"]))
        + job["options"].split()
    )
    model = parse_model(model_out)
    weka = parse_errors(model_out, "test")
    # -p prints nothing else, hence a second run on the saved model for the per-row predictions.
    preds = parse_predictions(
        j48.run_java(m5p_command(args, "-l", str(job["model"]), "-T", str(job["test"]), "-p", "0"))
    )
    y = job["y"]
    if len(preds) != len(y) or weka["n"] != len(y):
        raise RuntimeError(f"M5P tested {len(preds)}/{weka['n']} rows, fold has {len(y)}")
    sse = sae = max_error = 0.0
    for (actual, predicted), target in zip(preds, y, strict=True):
        # Weka prints the actual value rounded to 3 decimals: a check that rows line up.
        if abs(actual - target) > 0.0005 + 1e-9 * abs(target):
            raise RuntimeError(f"fold {job['fold']}: Weka's actual {actual} is not {target}")
        sse += (predicted - target) ** 2
        sae += abs(predicted - target)
        max_error = max(max_error, abs(predicted - target))
    n = len(y)
    rmse, mae = math.sqrt(sse / n), sae / n
    # Predictions carry 3 decimals, Weka's RMSE/MAE 4: they agree to about 0.0006.
    tol = 0.001 + 1e-9 * rmse
    if abs(rmse - weka["rmse"]) > tol or abs(mae - weka["mae"]) > tol:
        raise RuntimeError(
            f"fold {job['fold']}: predictions give RMSE {rmse}, MAE {mae}; "
            f"Weka printed {weka['rmse']}, {weka['mae']}"
        )
    return {
        "fold": job["fold"],
        "n_test": n,
        # predictions have 3 decimals: more digits would be float noise
        "sse": round(sse, 6),
        "sae": round(sae, 3),
        "max_error": round(max_error, 3),
        "rules": model["rules"],
        "build_seconds": model["build_seconds"],
        "weka_rmse": weka["rmse"],
        "weka_mae": weka["mae"],
    }


def run_full(args, full: Path, options: str) -> dict:
    t0 = time.perf_counter()
    out = j48.run_java(m5p_command(args, "-t", str(full), "-no-cv") + options.split())
    seconds = time.perf_counter() - t0
    model = parse_model(out)
    train = parse_errors(out, "training")
    text = model["text"]
    tree = {
        "rules": model["rules"],
        "heading": model["heading"],
        "first_splits": first_splits(text),
        "build_seconds": model["build_seconds"],
        "seconds": round(seconds, 3),
        "train_rmse": train["rmse"],
        "train_mae": train["mae"],
        "text_chars": len(text),
        "text": text,
    }
    if len(text) > args.max_tree_chars:
        tree["text"] = None
        tree["text_omitted"] = (
            f"tree text is {len(text)} characters, more than max_tree_chars={args.max_tree_chars}"
        )
    return tree


def run_dataset(ds: dict, args, pool) -> dict:
    n_rows = len(ds["rows"])
    folds, rule = make_folds(n_rows)
    header = j48.arff_header(ds)
    body = j48.arff_rows(ds)
    result = {
        "file": ds["file"],
        "n_rows": n_rows,
        "target": ds["target"],
        "nominal_columns": ds["nominal"],
        "nominal_values": ds["values"],
        "n_folds": N_SPLITS,
        "fold_rule": rule,
        "folds": folds,
        "configs": {},
    }
    with tempfile.TemporaryDirectory(prefix=f"m5p_{ds['name']}_") as tmp:
        tmp = Path(tmp)
        full, written = j48.write_fold_files(tmp, header, body, folds, N_SPLITS)
        parts = [(k, tr, te, [ds["y"][i] for i in rows]) for k, tr, te, rows in written]
        for cname, options in CONFIGS.items():
            # The full-data run goes alone, so that its wall-clock time is not shared.
            full_tree = run_full(args, full, options)
            fold_jobs = [
                {
                    "args": args,
                    "fold": k,
                    "options": options,
                    "train": train,
                    "test": test,
                    "model": tmp / f"{cname}{k}.model",
                    "y": y,
                }
                for k, train, test, y in parts
            ]
            per_fold = list(pool.map(run_fold, fold_jobs))
            n = sum(f["n_test"] for f in per_fold)
            result["configs"][cname] = {
                "options": options,
                "per_fold": per_fold,
                "rmse": math.sqrt(sum(f["sse"] for f in per_fold) / n),
                "mae": sum(f["sae"] for f in per_fold) / n,
                "mean_rules": sum(f["rules"] for f in per_fold) / len(per_fold),
                "full_tree": full_tree,
            }
            print(f"  {ds['name']} {cname} done", file=sys.stderr, flush=True)
    return result


# ----------------------------------------------------------------------------- output


def describe_split(split) -> str:
    if split == "leaf":
        return "leaf"
    return f"{split['attribute']} <= {split['threshold']:g}"


def summary(datasets: dict) -> str:
    lines = [
        f"{'data set':<18} {'config':<16} {'rmse':>10} {'mae':>10} {'rules':>7} {'full':>5} "
        f"{'secs':>6}  first split"
    ]
    for name, ds in datasets.items():
        for cname, cfg in ds["configs"].items():
            full = cfg["full_tree"]
            lines.append(
                f"{name:<18} {cname:<16} {cfg['rmse']:>10.4g} {cfg['mae']:>10.4g} "
                f"{cfg['mean_rules']:>7.1f} {full['rules']:>5} {full['seconds']:>6.1f}  "
                f"{describe_split(full['first_splits']['root'])}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", help="comma-separated names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data-dir", type=Path, default=j48.DEFAULT_DATA_DIR)
    parser.add_argument("--jar", type=Path, default=j48.DEFAULT_JAR)
    parser.add_argument("--java", default=shutil.which("java") or "java")
    parser.add_argument("--heap", default="2g", help="JVM -Xmx (default 2g)")
    parser.add_argument("--jobs", type=int, default=1, help="M5P folds at once (default 1)")
    parser.add_argument("--max-tree-chars", type=int, default=MAX_TREE_CHARS)
    args = parser.parse_args(argv)

    if not args.jar.exists():
        parser.error(f"{args.jar} not found: apt-get install weka (or pass --jar)")
    names = args.datasets.split(",") if args.datasets else list(DATASETS)
    for name in names:
        if not (args.data_dir / f"{name}.csv").exists():
            parser.error(f"no {name}.csv in {args.data_dir}")

    weka_version, java_version = j48.versions(args.java, args.jar)
    fixture = {
        "generator": "scripts/m5p_reference.py",
        "weka_version": weka_version,
        "weka_jar": str(args.jar.resolve()),
        "java_version": java_version,
        "value_order": j48.VALUE_ORDER,
        "tree_text": TREE_TEXT,
        "first_splits": FIRST_SPLITS,
        "max_tree_chars": args.max_tree_chars,
        "datasets": {},
    }
    if args.datasets and args.out.exists():
        old = json.loads(args.out.read_text(encoding="utf-8"))
        if old.get("weka_version") != weka_version:
            print(f"note: {args.out} was made with Weka {old.get('weka_version')}", file=sys.stderr)
        fixture["datasets"] = old.get("datasets", {})

    numeric_looking = j48.manifest_numeric_looking(args.data_dir)

    def run_one(name, pool):
        return run_dataset(read_regression(args.data_dir, name, numeric_looking), args, pool)

    j48.run_and_write(args, fixture, names, DATASETS, run_one, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
