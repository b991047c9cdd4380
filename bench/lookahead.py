"""What looking ahead costs: fit time and accuracy of ``lookahead=1`` and ``2`` beside the
greedy tree (``lookahead=0``), on parity data and on shared data sets.

Run from the repository root, with nothing else running:

    .venv/bin/python bench/lookahead.py [--repeats R] [--quick]

The table goes to stdout as markdown (paste it into bench/README.md); progress to stderr.

Data. Parity: ``bits`` of 10 random bits (as text, so nominal: ID3's multiway splits) decide
the class, 5% of the labels flipped, 1,000 or 10,000 rows; the tree may be ``bits`` deep, as
deep as the parity tree. monks-1 and monks-2 (UCI's MONK's problems, nominal, ID3 grown
fully) are the classic data where an attribute matters only together with another. diabetes
and ionosphere are numeric (CART, full depth). Accuracy is on a held-out third (stratified,
``random_state=0``); for parity, on 10,000 fresh rows.

What is measured. Each fit is timed ``--repeats`` times after one untimed fit that compiles
the kernels (median shown); "x greedy" is that time over the greedy tree's on the same data
in the same run. The greedy tree grows on the compiled grower, the look-ahead on the
level-wise grower (it reads a node's rows between levels); both on one thread.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from machine import cpu_model, quercus_version
from sklearn.model_selection import train_test_split

import quercus

REPO = Path(__file__).resolve().parents[1]


def parity(bits: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 10)), columns=[f"b{i}" for i in range(10)])
    y = np.bitwise_xor.reduce(X.iloc[:, :bits].to_numpy(), axis=1)
    y = np.where(rng.random(n) < 0.05, 1 - y, y)
    return X.astype(str), y


def cases(quick: bool):
    """(label, X_train, y_train, X_test, y_test, estimator class, its parameters, lookaheads)."""
    sizes = [1_000] if quick else [1_000, 10_000]
    for bits, depths in ((2, (0, 1)), (3, (0, 1, 2))):
        for n in sizes:
            X, y = parity(bits, n, 0)
            X_test, y_test = parity(bits, 10_000, 1)
            params = {"max_depth": bits}
            yield (f"parity {bits} of 10 bits", X, y, X_test, y_test, "ID3", params, depths)
    if quick:
        return
    for name, algorithm, depths in (
        ("monks-1_train", "ID3", (0, 1, 2)),
        ("monks-2_train", "ID3", (0, 1, 2)),
        ("diabetes", "CART", (0, 1, 2)),
        ("ionosphere", "CART", (0, 1)),
    ):
        path = REPO / "tests" / "datasets" / f"{name}.csv"
        if not path.exists():
            path = path.with_suffix(".csv.gz")
        frame = pd.read_csv(path, dtype=str if algorithm == "ID3" else None)
        X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=1 / 3, stratify=y, random_state=0
        )
        yield (name, X_train, y_train, X_test, y_test, algorithm, {}, depths)


ESTIMATORS = {"ID3": quercus.ID3Classifier, "CART": quercus.CARTClassifier}


def timed_fits(cls, params, X, y, repeats: int):
    cls(**params).fit(X, y)  # compiles what this fit needs
    times, est = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        est = cls(**params).fit(X, y)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), est


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="parity on 1,000 rows only")
    args = parser.parse_args(argv)
    print(f"quercus {quercus_version()}; {cpu_model()}; one thread", file=sys.stderr)
    lines = [
        "| data set | rows × features | tree | lookahead | fit s | × greedy | accuracy | leaves |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, X, y, X_test, y_test, algorithm, params, depths in cases(args.quick):
        greedy_s = None
        for k in depths:
            print(f"{label} {len(X)} rows, lookahead={k}", file=sys.stderr)
            cls = ESTIMATORS[algorithm]
            seconds, est = timed_fits(
                cls, {**params, "lookahead": k, "n_jobs": 1}, X, y, args.repeats
            )
            greedy_s = seconds if k == 0 else greedy_s
            accuracy = float(np.mean(est.predict(X_test) == np.asarray(y_test)))
            lines.append(
                f"| {label} | {len(X):,} × {X.shape[1]} | {algorithm} | {k} | {seconds:.3f} | "
                f"{seconds / greedy_s:.1f} | {accuracy:.3f} | {est.get_n_leaves()} |"
            )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
