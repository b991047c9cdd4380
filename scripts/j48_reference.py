"""Reference results of Weka's J48 (C4.5 release 8) for quercus's C4.5 tests and benchmark.

Runs J48 from the Debian package ``weka`` (``apt-get install weka``; jar
``/usr/share/java/weka.jar``) over the classification data sets in ``../shared/datasets`` on
fixed folds, and writes ``tests/fixtures/j48_reference.json`` so that the test suite itself does
not need Java. This script only runs the Weka program and reads what it prints.

Usage::

    .venv/bin/python scripts/j48_reference.py [--datasets a,b] [--out PATH] [--jobs N]

With ``--datasets`` and an existing ``--out`` file, only those data sets are replaced in it.

How the data are given to J48
-----------------------------
* Each CSV is converted to ARFF here; rows keep their file order (train files hold the rows of
  the other folds, in file order). The target is the last column; an empty cell is ``?``.
* Nominal columns: the target, the columns listed under "Numeric-looking categorical columns" in
  ``MANIFEST.md``, and every column holding a value that is not a number. All others are NUMERIC
  and their values are copied as written in the CSV.
* The values of a nominal attribute are declared in sorted order: values that parse as numbers
  first, in numeric order, then the others by Unicode code point (Python's ``sorted`` on str);
  this is the order quercus's schema inference gives categories. The order matters to J48: it is
  the order of the branches in the printed tree, and ties (majority class of a leaf, equal gain
  ratios) go to the first one. The order used is stored as ``nominal_values``.
* Names and values are single-quoted in the ARFF when they contain anything but plain printable
  ASCII without blanks, quotes, commas, braces, ``%`` or backslashes (``\\`` and ``'`` are
  escaped with a backslash). J48 prints them unquoted in its tree.

Folds
-----
Data sets with fewer than ``LOO_BELOW`` rows use leave-one-out (fold of row i = i). The others
use ``sklearn.model_selection.StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` on the
class column (sklearn warns, and still stratifies as well as it can, when a class has fewer than
10 rows); the fold of a row is the index of the split whose test part holds it.

Configurations
--------------
``default``: ``-C 0.25 -M 2``; ``unpruned``: ``-U -M 2``; ``reduced_error``: ``-R -M 2``
(J48's defaults ``-N 3`` pruning folds and ``-Q 1`` seed; its tree depends on Weka's own random
shuffling of the training rows, so only its statistics are comparable).

Fixture layout
--------------
::

    {
      "generator": "scripts/j48_reference.py",
      "weka_version": "3.6.14", "weka_jar": ..., "java_version": ...,
      "value_order": ..., "tree_text": ..., "loo_below": 50,
      "datasets": {
        NAME: {                      # NAME = CSV file name without .csv
          "file": "car.csv", "n_rows": ..., "target": ..., "class_values": [...],
          "nominal_columns": [...], "nominal_values": {column: [values in ARFF order]},
          "nominal_only": bool,      # every attribute (not only the target) is nominal
          "n_folds": ..., "fold_rule": ..., "folds": [fold of every row, in file order],
          "configs": {
            "default": {
              "options": "-C 0.25 -M 2",
              "per_fold": [{"fold": k, "n_test": ..., "n_correct": ..., "leaves": ...,
                            "size": ...}, ...],
              "accuracy": sum(n_correct) / sum(n_test),   # pooled over all rows
              "mean_leaves": ..., "mean_size": ...,        # means over folds
              "full_tree": {"leaves": ..., "size": ..., "text": ... or null,
                            "text_omitted": reason (only when text is null)}
            },
            "unpruned": {...}, "reduced_error": {...}
          }
        }
      }
    }

``full_tree`` is J48 trained once on the whole data set. Its ``text`` is the tree exactly as J48
prints it: the lines after the ``------------------`` line under "J48 pruned tree" (or
"J48 unpruned tree") up to the line "Number of Leaves", leading and trailing empty lines removed,
joined with "\\n". On data sets with a numeric attribute, texts longer than
``--max-tree-chars`` are left out (``text`` is null); nominal-only data sets keep all texts,
as the tree-equality tests need them.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO.parent / "shared" / "datasets"
DEFAULT_OUT = REPO / "tests" / "fixtures" / "j48_reference.json"
DEFAULT_JAR = Path("/usr/share/java/weka.jar")

DATASETS = [
    "weather.nominal",
    "weather.numeric",
    "contact-lenses",
    "car",
    "tic-tac-toe",
    "nursery",
    "kr-vs-kp",
    "breast-cancer",
    "zoo",
    "monks-1_train",
    "monks-2_train",
    "monks-3_train",
    "splice",
    "iris",
    "credit-a",
    "diabetes",
    "hepatitis",
    "heart-statlog",
    "sonar",
    "ionosphere",
    "glass",
    "waveform-5000",
    "letter",
    "adult_train",
]

CONFIGS = {
    "default": "-C 0.25 -M 2",
    "unpruned": "-U -M 2",
    "reduced_error": "-R -M 2",
}

LOO_BELOW = 50
N_SPLITS = 10
SEED = 0
MAX_TREE_CHARS = 40_000

VALUE_ORDER = (
    "nominal values in sorted order: values that parse as numbers first (numeric order), then "
    "the rest by Unicode code point; the same order as quercus's schema inference"
)
TREE_TEXT = (
    "lines after the '------------------' line up to 'Number of Leaves', leading/trailing "
    "empty lines removed, joined with newlines; null when longer than max_tree_chars on a data "
    "set with a numeric attribute (nominal-only data sets keep every text)"
)

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_SAFE = re.compile(r"[!#$&()*+\-./0-9:;<=>?@A-Z\[\]^_`a-z|~]+")


# ----------------------------------------------------------------------------- data


def is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


def value_key(value: str):
    return (0, float(value), "") if is_number(value) else (1, 0.0, value)


def manifest_numeric_looking(data_dir: Path) -> dict[str, set[str]]:
    """Columns listed under "Numeric-looking categorical columns" in MANIFEST.md, per file."""
    out: dict[str, set[str]] = {}
    path = data_dir / "MANIFEST.md"
    if not path.exists():
        return out
    in_section = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_section = line.strip() == "## Numeric-looking categorical columns"
            continue
        if in_section and line.startswith("- ") and ":" in line:
            fname, cols = line[2:].split(":", 1)
            out[fname.strip()] = {c.strip().strip("`") for c in cols.split(",") if c.strip()}
    return out


def csv_path(data_dir: Path, name: str) -> Path:
    """``name.csv``, or ``name.csv.gz`` when only the compressed file exists."""
    path = data_dir / f"{name}.csv"
    gz = data_dir / f"{name}.csv.gz"
    return gz if not path.exists() and gz.exists() else path


def read_dataset(data_dir: Path, name: str, numeric_looking: dict[str, set[str]]) -> dict:
    path = csv_path(data_dir, name)
    fname = path.name
    opener = gzip.open if fname.endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = [row for row in reader if row]
    width = len(header)
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"{fname}: row {i + 2} has {len(row)} cells, header has {width}")
    target = header[-1]
    forced = numeric_looking.get(fname, set())
    nominal: list[str] = []
    values: dict[str, list[str]] = {}
    for j, col in enumerate(header):
        present = {row[j] for row in rows if row[j] != ""}
        if j == width - 1 or col in forced or not all(is_number(v) for v in present):
            nominal.append(col)
            values[col] = sorted(present, key=value_key)
    y = [row[-1] for row in rows]
    if any(v == "" for v in y):
        raise ValueError(f"{fname}: the target has missing values")
    return {
        "name": name,
        "file": fname,
        "header": header,
        "rows": rows,
        "y": y,
        "target": target,
        "nominal": nominal,
        "values": values,
    }


def quote(text: str) -> str:
    if _SAFE.fullmatch(text) and text != "?":
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def arff_header(ds: dict) -> str:
    lines = [f"@relation {quote(ds['name'])}", ""]
    for col in ds["header"]:
        if col in ds["values"]:
            vals = ",".join(quote(v) for v in ds["values"][col])
            lines.append(f"@attribute {quote(col)} {{{vals}}}")
        else:
            lines.append(f"@attribute {quote(col)} NUMERIC")
    lines += ["", "@data", ""]
    return "\n".join(lines)


def arff_rows(ds: dict) -> list[str]:
    nominal = [col in ds["values"] for col in ds["header"]]
    out = []
    for row in ds["rows"]:
        cells = []
        for v, is_nom in zip(row, nominal, strict=True):
            if v == "":
                cells.append("?")
            else:
                cells.append(quote(v) if is_nom else v)
        out.append(",".join(cells))
    return out


def make_folds(y: list[str]) -> tuple[list[int], int, str]:
    n = len(y)
    if n < LOO_BELOW:
        rule = f"leave-one-out (fewer than {LOO_BELOW} rows): fold of row i is i"
        return list(range(n)), n, rule
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    folds = [-1] * n
    skf = StratifiedKFold(n_splits=N_SPLITS, shuffle=True, random_state=SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a class with fewer than 10 rows
        for k, (_, test) in enumerate(skf.split(np.zeros((n, 1)), np.asarray(y))):
            for i in test:
                folds[int(i)] = k
    rule = (
        f"StratifiedKFold(n_splits={N_SPLITS}, shuffle=True, random_state={SEED}) on the class "
        "column; fold k = index of the split whose test part holds the row"
    )
    return folds, N_SPLITS, rule


# ----------------------------------------------------------------------------- J48


def run_java(args: list[str]) -> str:
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "Exception" in proc.stderr:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def j48_command(java: str, jar: Path, heap: str, train: Path, test: Path | None, options: str):
    cmd = [java, f"-Xmx{heap}", "-cp", str(jar), "weka.classifiers.trees.J48", "-t", str(train)]
    cmd += ["-T", str(test)] if test is not None else ["-no-cv"]
    return cmd + ["-v", *options.split()]


def parse_tree(out: str) -> dict:
    lines = out.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line in ("J48 pruned tree", "J48 unpruned tree")
    )
    if not lines[start + 1].startswith("---"):
        raise ValueError(f"unexpected J48 output after {lines[start]!r}")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Number of Leaves"))
    body = lines[start + 2 : end]
    while body and body[0].strip() == "":
        body.pop(0)
    while body and body[-1].strip() == "":
        body.pop()
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
    size = int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1))
    return {"leaves": leaves, "size": size, "text": "\n".join(body)}


def parse_test(out: str) -> tuple[int, int]:
    section = out.split("=== Error on test data ===", 1)[1]
    correct = float(re.search(r"Correctly Classified Instances\s+(\S+)", section).group(1))
    total = float(re.search(r"Total Number of Instances\s+(\S+)", section).group(1))
    return round(correct), round(total)


def run_fold(job: dict) -> dict:
    out = run_java(job["cmd"])
    tree = parse_tree(out)
    n_correct, n_total = parse_test(out)
    if n_total != job["n_test"]:
        raise RuntimeError(f"J48 tested {n_total} rows, fold has {job['n_test']}")
    return {
        "fold": job["fold"],
        "n_test": job["n_test"],
        "n_correct": n_correct,
        "leaves": tree["leaves"],
        "size": tree["size"],
    }


def write_fold_files(tmp: Path, header: str, body: list, folds: list, n_folds: int):
    """Write the whole data set and each fold's training and test ARFF files into ``tmp``;
    returns the whole file's path and ``(fold, train path, test path, test row indices)``
    per fold."""
    full = tmp / "full.arff"
    full.write_text(header + "\n".join(body) + "\n", encoding="utf-8")
    parts = []
    for k in range(n_folds):
        train = tmp / f"train{k}.arff"
        test = tmp / f"test{k}.arff"
        tr = [line for line, f in zip(body, folds, strict=True) if f != k]
        te = [line for line, f in zip(body, folds, strict=True) if f == k]
        train.write_text(header + "\n".join(tr) + "\n", encoding="utf-8")
        test.write_text(header + "\n".join(te) + "\n", encoding="utf-8")
        parts.append((k, train, test, [i for i, f in enumerate(folds) if f == k]))
    return full, parts


def run_dataset(ds: dict, args, pool) -> dict:
    folds, n_folds, rule = make_folds(ds["y"])
    header = arff_header(ds)
    body = arff_rows(ds)
    result = {
        "file": ds["file"],
        "n_rows": len(ds["rows"]),
        "target": ds["target"],
        "class_values": ds["values"][ds["target"]],
        "nominal_columns": ds["nominal"],
        "nominal_values": ds["values"],
        "nominal_only": len(ds["nominal"]) == len(ds["header"]),
        "n_folds": n_folds,
        "fold_rule": rule,
        "folds": folds,
        "configs": {},
    }
    with tempfile.TemporaryDirectory(prefix=f"j48_{ds['name']}_") as tmp:
        tmp = Path(tmp)
        full, jobs = write_fold_files(tmp, header, body, folds, n_folds)
        for cname, options in CONFIGS.items():
            fold_jobs = [
                {
                    "fold": k,
                    "n_test": len(rows),
                    "cmd": j48_command(args.java, args.jar, args.heap, train, test, options),
                }
                for k, train, test, rows in jobs
            ]
            full_cmd = j48_command(args.java, args.jar, args.heap, full, None, options)
            full_future = pool.submit(lambda c=full_cmd: parse_tree(run_java(c)))
            per_fold = list(pool.map(run_fold, fold_jobs))
            full_tree = full_future.result()
            if not result["nominal_only"] and len(full_tree["text"]) > args.max_tree_chars:
                full_tree["text_omitted"] = (
                    f"tree text is {len(full_tree['text'])} characters, more than "
                    f"max_tree_chars={args.max_tree_chars}"
                )
                full_tree["text"] = None
            n = sum(f["n_test"] for f in per_fold)
            result["configs"][cname] = {
                "options": options,
                "per_fold": per_fold,
                "accuracy": sum(f["n_correct"] for f in per_fold) / n,
                "mean_leaves": sum(f["leaves"] for f in per_fold) / len(per_fold),
                "mean_size": sum(f["size"] for f in per_fold) / len(per_fold),
                "full_tree": full_tree,
            }
    return result


# ----------------------------------------------------------------------------- output


def versions(java: str, jar: Path) -> tuple[str, str]:
    out = subprocess.run(
        [java, "-cp", str(jar), "weka.core.Version"], capture_output=True, text=True, check=True
    ).stdout
    weka = out.strip().splitlines()[0].strip()
    err = subprocess.run([java, "-version"], capture_output=True, text=True, check=True).stderr
    return weka, err.strip().splitlines()[0].strip()


def dumps(obj, indent: int = 0) -> str:
    """JSON with dicts indented; lists of scalars and dicts of numbers on one line each."""
    pad = "  " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        if all(isinstance(v, int | float) for v in obj.values()):
            pairs = (f"{json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items())
            return "{" + ", ".join(pairs) + "}"
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(obj, list) and any(isinstance(v, dict | list) for v in obj):
        items = [f"{pad}{dumps(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    if isinstance(obj, list):
        return "[" + ",".join(json.dumps(v, ensure_ascii=False) for v in obj) + "]"
    return json.dumps(obj, ensure_ascii=False)


def summary(datasets: dict) -> str:
    lines = [f"{'data set':<18} {'config':<14} {'folds':>5} {'accuracy':>9} {'leaves':>8}"]
    for name, ds in datasets.items():
        for cname, cfg in ds["configs"].items():
            lines.append(
                f"{name:<18} {cname:<14} {ds['n_folds']:>5} {100 * cfg['accuracy']:>8.2f}% "
                f"{cfg['mean_leaves']:>8.1f}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", help="comma-separated names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--jar", type=Path, default=DEFAULT_JAR)
    parser.add_argument("--java", default=shutil.which("java") or "java")
    parser.add_argument("--heap", default="2g", help="JVM -Xmx (default 2g)")
    parser.add_argument("--jobs", type=int, default=1, help="J48 runs at once (default 1)")
    parser.add_argument("--max-tree-chars", type=int, default=MAX_TREE_CHARS)
    args = parser.parse_args(argv)

    if not args.jar.exists():
        parser.error(f"{args.jar} not found: apt-get install weka (or pass --jar)")
    names = args.datasets.split(",") if args.datasets else list(DATASETS)
    for name in names:
        if not (args.data_dir / f"{name}.csv").exists():
            parser.error(f"no {name}.csv in {args.data_dir}")

    weka_version, java_version = versions(args.java, args.jar)
    fixture = {
        "generator": "scripts/j48_reference.py",
        "weka_version": weka_version,
        "weka_jar": str(args.jar.resolve()),
        "java_version": java_version,
        "value_order": VALUE_ORDER,
        "tree_text": TREE_TEXT,
        "loo_below": LOO_BELOW,
        "max_tree_chars": args.max_tree_chars,
        "datasets": {},
    }
    if args.datasets and args.out.exists():
        old = json.loads(args.out.read_text(encoding="utf-8"))
        if old.get("weka_version") != weka_version:
            print(f"note: {args.out} was made with Weka {old.get('weka_version')}", file=sys.stderr)
        fixture["datasets"] = old.get("datasets", {})

    numeric_looking = manifest_numeric_looking(args.data_dir)

    def run_one(name, pool):
        return run_dataset(read_dataset(args.data_dir, name, numeric_looking), args, pool)

    run_and_write(args, fixture, names, DATASETS, run_one, summary)
    return 0


def run_and_write(args, fixture: dict, names, order, run_one, summarise) -> None:
    """``run_one(name, pool)`` for each data set of ``names`` (on a pool of ``args.jobs``
    threads) into ``fixture["datasets"]``, kept in ``order`` (others after, as found), the
    fixture written to ``args.out`` and ``summarise`` of the data sets run printed. Shared
    by the reference scripts."""
    t_all = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name in names:
            t0 = time.perf_counter()
            fixture["datasets"][name] = run_one(name, pool)
            print(f"{name}: {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
    ordered = [n for n in order if n in fixture["datasets"]]
    ordered += [n for n in fixture["datasets"] if n not in order]
    fixture["datasets"] = {n: fixture["datasets"][n] for n in ordered}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dumps(fixture) + "\n", encoding="utf-8")
    print(summarise({n: fixture["datasets"][n] for n in names}))
    print(f"wrote {args.out} in {time.perf_counter() - t_all:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
