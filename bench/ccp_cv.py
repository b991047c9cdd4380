"""CART's cost-complexity pruning with the alpha chosen by 10-fold cross-validation:
quercus's ``ccp_alpha="cv"`` beside scikit-learn doing the same job its documented way.

Run from the repository root:

    .venv/bin/python bench/ccp_cv.py [--sizes 1000,10000,100000] [--timeout S]

    .venv/bin/python bench/ccp_cv.py --sizes 1000    # a smoke test (under a minute)

The table goes to stdout as markdown; progress goes to stderr.

Data. Synthetic, the same for both libraries: 15 numeric columns (standard normal) and 5
nominal ones (strings, 3 to 12 categories each). The classification target is the sign of a
sum of numeric terms, category effects and noise, with 10% of the labels flipped; the
regression target is that sum plus noise. The training set has ``--sizes`` rows, the test set
10,000 other rows of the same distribution (seed 1 instead of 0).

What is measured (wall time, `time.perf_counter`, one run each, in one process):

- quercus: `CARTClassifier(ccp_alpha="cv", random_state=0).fit` on the DataFrame (nominal
  columns used as they are) / `CARTRegressor(...)`: grow the tree, its pruning path, 10
  stratified (regression: plain) shuffled folds that each grow a tree and score every
  candidate alpha, then prune (the one-standard-error choice, as rpart). The Numba kernels are
  compiled beforehand by the same fit on 500 rows. "path s" is `cost_complexity_path` alone on
  the unpruned tree of the whole training set.
- scikit-learn: the nominal columns one-hot encoded (`OneHotEncoder`), then
  `DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path`, then for every alpha
  of that path a 10-fold cross-validation (the same kind of folds as quercus) of
  `DecisionTreeClassifier(ccp_alpha=alpha, random_state=0)`, the alpha of best mean score
  (accuracy or R^2, as `GridSearchCV` picks it), and the refit on the whole training set.
  All of it counts in its time. It fits ``10 * n_alphas`` trees, and a path has about one
  alpha per leaf for regression: it is stopped after ``--timeout`` seconds (default 600),
  and its row then says "> S s".
- alpha, leaves, test: the chosen alpha, the leaves of the final tree, and its accuracy
  (classification) or R^2 (regression) on the test set.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import quercus
from quercus.pruning import cost_complexity_path

N_NUMERIC, N_NOMINAL, N_TEST, FOLDS = 15, 5, 10_000, 10


def make_data(n: int, task: str, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` rows of the synthetic data (see the module docstring) and their target."""
    rng = np.random.default_rng(seed)
    structure = np.random.default_rng(12345)  # the same columns and effects for every seed
    columns, signal = {}, np.zeros(n)
    coefficients = structure.normal(size=N_NUMERIC) * (structure.random(N_NUMERIC) < 0.5)
    for j in range(N_NUMERIC):
        x = rng.normal(size=n)
        columns[f"num{j}"] = x
        signal += coefficients[j] * (x if j % 2 else np.abs(x) - 0.8)
    for j in range(N_NOMINAL):
        k = int(structure.integers(3, 13))
        effects = structure.normal(size=k)
        codes = rng.integers(0, k, size=n)
        columns[f"cat{j}"] = np.array([f"c{c}" for c in range(k)], dtype=object)[codes]
        signal += effects[codes]
    X = pd.DataFrame(columns)
    if task == "regression":
        return X, signal + rng.normal(scale=1.0, size=n)
    y = (signal + rng.normal(scale=0.5, size=n) > 0).astype(int)
    flip = rng.random(n) < 0.10
    return X, np.where(flip, 1 - y, y)


def run_quercus(task, X, y, X_test, y_test) -> dict:
    Tree = quercus.CARTRegressor if task == "regression" else quercus.CARTClassifier
    start = time.perf_counter()
    est = Tree(ccp_alpha="cv", random_state=0).fit(X, y)
    fit_s = time.perf_counter() - start
    unpruned = Tree(random_state=0).fit(X, y)
    start = time.perf_counter()
    cost_complexity_path(unpruned.tree_)
    path_s = time.perf_counter() - start
    return {
        "seconds": fit_s,
        "path": path_s,
        "alpha": est.ccp_alpha_,
        "leaves": est.get_n_leaves(),
        "test": est.score(X_test, y_test),
    }


def run_sklearn(task, X, y, X_test, y_test, timeout: float) -> dict:
    """Path, then 10-fold CV of a tree per alpha of the path; stops after ``timeout`` s."""
    start = time.perf_counter()
    nominal = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X[nominal])

    def encode(frame):
        numeric = frame.drop(columns=nominal).to_numpy(np.float64)
        return np.hstack([numeric, encoder.transform(frame[nominal])])

    Xa = encode(X)
    Tree = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
    alphas = Tree(random_state=0).cost_complexity_pruning_path(Xa, y).ccp_alphas
    Splitter = KFold if task == "regression" else StratifiedKFold
    folds = list(Splitter(FOLDS, shuffle=True, random_state=0).split(Xa, y))
    scores = np.zeros(len(alphas))
    for j, alpha in enumerate(alphas):
        for train, test in folds:
            if time.perf_counter() - start > timeout:
                return {"timeout": timeout, "n_alphas": len(alphas), "done": j}
            tree = Tree(ccp_alpha=alpha, random_state=0).fit(Xa[train], y[train])
            scores[j] += tree.score(Xa[test], y[test])
    best = int(np.argmax(scores))  # the first of the best mean scores, as GridSearchCV
    final = Tree(ccp_alpha=alphas[best], random_state=0).fit(Xa, y)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "alpha": float(alphas[best]),
        "leaves": final.get_n_leaves(),
        "test": final.score(encode(X_test), y_test),
        "n_alphas": len(alphas),
    }


def row(n, task, ours, peer) -> str:
    cells = [
        f"{n:,}",
        task,
        f"{ours['seconds']:.2f}",
        f"{ours['path']:.3f}",
        f"{ours['alpha']:.3g}",
        str(ours["leaves"]),
        f"{ours['test']:.3f}",
    ]
    if "timeout" in peer:
        done = f"{peer['done']} of {peer['n_alphas']} alphas"
        cells += [f"> {peer['timeout']:g} s ({done})", "", "", ""]
    else:
        cells += [
            f"{peer['seconds']:.2f} ({peer['n_alphas']} alphas)",
            f"{peer['alpha']:.3g}",
            str(peer["leaves"]),
            f"{peer['test']:.3f}",
        ]
    return "| " + " | ".join(cells) + " |"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="1000,10000,100000", help="training rows, comma-separated"
    )
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds for scikit-learn's whole job"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]

    header = (
        "| rows | task | quercus cv fit s | path s | alpha | leaves | test "
        "| scikit-learn path + CV s | alpha | leaves | test |"
    )
    print(header)
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for task in ("classification", "regression"):
        X_warm, y_warm = make_data(500, task, seed=2)  # compiles the kernels before timing
        run_quercus(task, X_warm, y_warm, X_warm, y_warm)
        X_test, y_test = make_data(N_TEST, task, seed=1)
        for n in sizes:
            X, y = make_data(n, task, seed=0)
            print(f"{task} {n:,} rows: quercus ...", file=sys.stderr, flush=True)
            ours = run_quercus(task, X, y, X_test, y_test)
            print(f"{task} {n:,} rows: scikit-learn ...", file=sys.stderr, flush=True)
            peer = run_sklearn(task, X, y, X_test, y_test, args.timeout)
            print(row(n, task, ours, peer), flush=True)


if __name__ == "__main__":
    main()
