"""Gradient boosting: quercus beside LightGBM, XGBoost (``hist``) and scikit-learn's
HistGradientBoosting, every cell a fresh process, all in one run.

The data sets (``--sizes``): ``clf2`` (make_classification, 2 classes), ``clf7`` (7
classes) and ``reg`` (make_regression), each ``--rows`` rows (default 1,000,000) of 20
features, random_state 0, 20% held out as the test set.

Settings mapped to one model: 100 iterations, at most 31 leaves grown best first,
learning rate 0.1, 255 bins, no early stopping, no L2, a leaf's hessian sum at least 1e-3
and at least 20 rows in a leaf (quercus's and HGB's ``min_samples_leaf=20``, LightGBM's
``min_child_samples=20``, the defaults of all three; XGBoost has no such parameter).
``--threads`` sets every library's threads (quercus ``n_jobs``, LightGBM
``num_threads``, XGBoost ``n_jobs``, HGB through ``OMP_NUM_THREADS``).

Each cell prints its fit and predict times (wall clock, after a warm-up fit of quercus's
kernels on 60,000 rows), its peak memory during fit and its test score (AUC for 2 classes,
accuracy for 7, R^2 for regression).

    .venv/bin/python bench/boosting.py                     # 1M rows, 2 threads
    .venv/bin/python bench/boosting.py --threads 1 --sizes clf2
    .venv/bin/python bench/boosting.py --quick             # 20,000 rows: a smoke test
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cells import chosen, last_error_line, markdown_table, run_json  # noqa: E402

MODELS = ("quercus", "lightgbm", "xgboost", "hgb")
SIZES = ("clf2", "clf7", "reg")
ITERATIONS, LEAVES, RATE, BINS = 100, 31, 0.1, 255
#: Rows of quercus's warm-up fit: more than binning's exact limit (``AUTO_EXACT_MAX_ROWS``),
#: so that the kernels of a large fit's binning compile before the timed fit too.
WARMUP_ROWS = 60_000


def make_data(size: str, rows: int):
    import numpy as np
    from sklearn.datasets import make_classification, make_regression
    from sklearn.model_selection import train_test_split

    if size == "reg":
        X, y = make_regression(n_samples=rows, n_features=20, noise=10.0, random_state=0)
    else:
        classes = 2 if size == "clf2" else 7
        X, y = make_classification(
            n_samples=rows, n_features=20, n_informative=10, n_classes=classes, random_state=0
        )
    X = np.ascontiguousarray(X, dtype=np.float64)
    return train_test_split(X, y, test_size=0.2, random_state=0)


def make_model(model: str, size: str, threads: int):
    regression = size == "reg"
    if model == "quercus":
        import quercus

        name = "GradientBoostingRegressor" if regression else "GradientBoostingClassifier"
        return getattr(quercus, name)(
            max_iter=ITERATIONS,
            max_leaf_nodes=LEAVES,
            learning_rate=RATE,
            max_bins=BINS,
            min_samples_leaf=20,
            early_stopping=False,
            n_jobs=threads,
            random_state=0,
        )
    if model == "lightgbm":
        import lightgbm

        cls = lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier
        return cls(
            n_estimators=ITERATIONS,
            num_leaves=LEAVES,
            learning_rate=RATE,
            max_bin=BINS,
            min_child_samples=20,
            min_child_weight=1e-3,
            reg_lambda=0.0,
            num_threads=threads,
            verbose=-1,
        )
    if model == "xgboost":
        import xgboost

        cls = xgboost.XGBRegressor if regression else xgboost.XGBClassifier
        return cls(
            n_estimators=ITERATIONS,
            tree_method="hist",
            grow_policy="lossguide",
            max_leaves=LEAVES,
            max_depth=0,
            learning_rate=RATE,
            max_bin=BINS,
            min_child_weight=1e-3,
            reg_lambda=0.0,
            n_jobs=threads,
        )
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    cls = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    return cls(
        max_iter=ITERATIONS,
        max_leaf_nodes=LEAVES,
        learning_rate=RATE,
        max_bins=BINS,
        min_samples_leaf=20,
        early_stopping=False,
        random_state=0,
    )


def score(size: str, model, X, y) -> float:
    from sklearn.metrics import accuracy_score, r2_score, roc_auc_score

    if size == "reg":
        return float(r2_score(y, model.predict(X)))
    if size == "clf2":
        return float(roc_auc_score(y, model.predict_proba(X)[:, 1]))
    return float(accuracy_score(y, model.predict(X)))


def cell(model: str, size: str, rows: int, threads: int) -> dict:
    """One fit and predict, in this process: the last line printed is its JSON."""
    from machine import measured_step

    X_train, X_test, y_train, y_test = make_data(size, rows)
    if model == "quercus":  # compile the kernels before the timed fit (binning a sample
        # and each bin's extremes from every row, as above WARMUP_ROWS rows, included)
        warm = make_model(model, size, threads).set_params(max_iter=2)
        warm.fit(X_train[:WARMUP_ROWS], y_train[:WARMUP_ROWS])
    estimator = make_model(model, size, threads)
    _, fit_s, peak = measured_step(lambda: estimator.fit(X_train, y_train))
    start = time.perf_counter()
    test_score = score(size, estimator, X_test, y_test)
    predict_s = time.perf_counter() - start
    return {"fit_s": fit_s, "predict_s": predict_s, "peak_mib": peak, "score": test_score}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"from {', '.join(SIZES)}")
    parser.add_argument("--only", default=",".join(MODELS), help=f"from {', '.join(MODELS)}")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="20,000 rows")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--cell", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = 20_000 if args.quick else args.rows
    if args.cell:
        print(json.dumps(cell(args.cell[0], args.cell[1], rows, args.threads)))
        return
    sizes = chosen(parser, "--sizes", args.sizes, SIZES)
    models = chosen(parser, "--only", args.only, MODELS)
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    table = []
    for size in sizes:
        for model in models:
            cmd = [sys.executable, __file__, "--cell", model, size, "--rows", str(rows)]
            cmd += ["--threads", str(args.threads)]
            ran = run_json(cmd, args.timeout, env)
            if ran.result is None:
                reason = "timed out" if ran.timed_out else last_error_line(ran)
                table.append([size, model, reason, "", "", ""])
                continue
            r = ran.result
            table.append(
                [
                    size,
                    model,
                    f"{r['fit_s']:.2f}",
                    f"{r['predict_s']:.3f}",
                    f"{r['peak_mib']:.0f}",
                    f"{r['score']:.4f}",
                ]
            )
            print(f"{size} {model}: {table[-1][2:]}", file=sys.stderr, flush=True)
    header = ["data", "library", "fit s", "predict s", "peak MiB", "test score"]
    what = f"{args.threads} threads, {ITERATIONS} iterations, {LEAVES} leaves"
    print(f"\n{rows:,} rows x 20, {what}\n")
    print(markdown_table(header, table))
    print("\ntest score: AUC (clf2), accuracy (clf7), R^2 (reg) on the 20% held out.")


if __name__ == "__main__":
    main()
