"""Small data: fit and predict on about 1,000 rows, quercus beside scikit-learn's tree, and
the cost of loading the cached kernels in a new process.

Run from the repository root, on a quiet machine:

    .venv/bin/python bench/small_data.py [--repeat 50] [--starts 5]

Tables (markdown on stdout, progress on stderr):

1. Warm fit and predict, milliseconds (median of ``--repeat`` calls after one untimed
   call), on generated tables of 1,000 rows with a fixed seed and on the shipped
   breast-cancer set (286 rows, 9 nominal columns, missing values):
   - ``nominal``: 16 nominal columns of 2-4 values (as the vote set), a class depending on
     three of them. quercus gets the DataFrame of strings; scikit-learn gets its one-hot
     frame (``pandas.get_dummies``, made once, outside the timing).
   - ``mixed``: 8 nominal and 4 numeric columns, 5% missing numbers; scikit-learn gets the
     one-hot frame (its trees take NaN since 1.3).
   - ``numeric``: a NumPy array of 10 numeric columns, for both.
   Each with a full tree (``DecisionTreeClassifier()`` of each library, Gini) and a stump
   (``max_depth=1``); the ratio is quercus / scikit-learn.
2. Loading in a new process: ``--starts`` fresh processes (after one untimed start that
   writes Python's bytecode cache, as an install does) each import quercus, NumPy, pandas
   and scikit-learn, then fit and predict the nominal table twice; the first fit's
   extra time over the second is what loading the cached kernels costs (quercus) or the
   first call's own setup (scikit-learn).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cells import markdown_table

REPO = Path(__file__).resolve().parents[1]
ROWS = 1_000


def tables():
    """{name: (quercus X, scikit-learn X, y)} of the generated and shipped tables."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    nominal = pd.DataFrame(
        {f"v{j}": rng.choice(["y", "n", "u", "a"][: 2 + j % 3], ROWS) for j in range(16)}
    )
    y_nominal = np.where(
        (nominal.v0 == "y") & ((nominal.v1 == "n") | (nominal.v2 == "u")), "d", "r"
    )
    mixed = pd.DataFrame({f"c{j}": rng.choice(["a", "b", "c", "d"], ROWS) for j in range(8)})
    for j in range(4):
        mixed[f"x{j}"] = rng.normal(size=ROWS)
    mixed.loc[rng.random(ROWS) < 0.05, "x1"] = np.nan
    y_mixed = np.where((mixed.c0 == "a") ^ (mixed.x0 > 0), "yes", "no")
    numbers = rng.normal(size=(ROWS, 10))
    y_numbers = (numbers[:, 0] + numbers[:, 1] * numbers[:, 2] > 0).astype(np.int64)
    cancer = pd.read_csv(REPO / "tests" / "datasets" / "breast-cancer.csv")
    X_cancer, y_cancer = cancer.iloc[:, :-1].astype(object), cancer.iloc[:, -1].to_numpy()
    X_cancer = X_cancer.where(X_cancer.notna(), None)

    def one_hot(frame):
        return pd.get_dummies(frame, dtype=np.float64)

    return {
        "nominal, 1,000 x 16": (nominal, one_hot(nominal), y_nominal),
        "mixed, 1,000 x 12": (mixed, one_hot(mixed), y_mixed),
        "numeric array, 1,000 x 10": (numbers, numbers, y_numbers),
        "breast-cancer, 286 x 9": (X_cancer, one_hot(X_cancer), y_cancer),
    }


def median_ms(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def warm_row(name, label, data, params, repeat) -> list[str]:
    """One row of the warm table: fit and predict of each library, and the ratios."""
    from sklearn.tree import DecisionTreeClassifier

    import quercus

    X, X_sk, y = data
    ours = quercus.DecisionTreeClassifier(**params).fit(X, y)
    theirs = DecisionTreeClassifier(**params).fit(X_sk, y)
    fit_q = median_ms(lambda: quercus.DecisionTreeClassifier(**params).fit(X, y), repeat)
    fit_s = median_ms(lambda: DecisionTreeClassifier(**params).fit(X_sk, y), repeat)
    pred_q = median_ms(lambda: ours.predict(X), repeat)
    pred_s = median_ms(lambda: theirs.predict(X_sk), repeat)
    print(f"{name}, {label}: fit {fit_q:.2f} / {fit_s:.2f} ms", file=sys.stderr)
    return [
        name,
        label,
        f"{fit_q:.2f}",
        f"{fit_s:.2f}",
        f"{fit_q / fit_s:.2f}",
        f"{pred_q:.2f}",
        f"{pred_s:.2f}",
        f"{pred_q / pred_s:.2f}",
    ]


def warm_table(repeat: int) -> str:
    rows = [
        warm_row(name, label, data, params, repeat)
        for name, data in tables().items()
        for label, params in (("full tree", {}), ("stump", {"max_depth": 1}))
    ]
    header = [
        "data",
        "model",
        "fit quercus ms",
        "fit scikit-learn ms",
        "ratio",
        "predict quercus ms",
        "predict scikit-learn ms",
        "ratio",
    ]
    return markdown_table(header, rows)


def start_child() -> None:
    """One new process: deps imported, then the nominal table fitted twice by each."""
    began = time.perf_counter()
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import sklearn.tree

    import quercus

    imported = time.perf_counter() - began
    X, X_sk, y = tables()["nominal, 1,000 x 16"]
    result = {"import": imported}
    for name, make, data in (
        ("quercus", quercus.DecisionTreeClassifier, X),
        ("scikit-learn", sklearn.tree.DecisionTreeClassifier, X_sk),
    ):
        times = []
        for _ in range(2):
            start = time.perf_counter()
            make().fit(data, y).predict(data)
            times.append(time.perf_counter() - start)
        result[name] = times
    print(json.dumps(result), flush=True)


def starts_table(starts: int) -> str:
    # Python's bytecode cache on, as in an installed copy (pip compiles it at install, an
    # editable one writes it at first import): one untimed start writes it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = []
    for k in range(starts + 1):
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--start-child"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        if k > 0:
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"start {k}/{starts}", file=sys.stderr)
    rows = [
        [
            "import quercus, NumPy, pandas, scikit-learn",
            f"{statistics.median(r['import'] for r in runs):.3f}",
            "",
        ]
    ]
    for name in ("quercus", "scikit-learn"):
        first = statistics.median(r[name][0] for r in runs)
        second = statistics.median(r[name][1] for r in runs)
        rows.append([f"{name}: first fit + predict", f"{first:.3f}", f"{first - second:.3f}"])
    return markdown_table(["new process (median of starts)", "s", "over the second fit, s"], rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50, help="timed calls per cell")
    parser.add_argument("--starts", type=int, default=5, help="new processes timed")
    parser.add_argument("--start-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.start_child:
        start_child()
        return
    import numba
    import pandas
    import sklearn

    print("# Small data: quercus beside scikit-learn's tree\n")
    print(
        f"- Python {sys.version.split()[0]}, scikit-learn {sklearn.__version__}, pandas "
        f"{pandas.__version__}, Numba {numba.__version__}; medians of {args.repeat} calls\n"
    )
    print(warm_table(args.repeat))
    print()
    print(starts_table(args.starts))
    print()


if __name__ == "__main__":
    main()
