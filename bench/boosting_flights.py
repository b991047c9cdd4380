"""Gradient boosting on nominal columns as they are: flights_nyc2013 in the airline
benchmark's shape, quercus beside LightGBM (native categorical, and one-hot), XGBoost
(native categorical) and scikit-learn's HistGradientBoosting (native categorical), every
cell a fresh process, all in one run.

The data (``$QUERCUS_DATASETS``, default ``../shared/datasets``: flights_nyc2013.csv.gz,
327,346 flights from New York in 2013): is a flight more than 15 minutes late on arrival
(``arr_delay > 15``, as the airline benchmark's ``dep_delayed_15min``), from what is known
before it leaves: ``month``, ``day``, ``sched_dep_time``, ``sched_arr_time``, ``hour``,
``minute``, ``distance`` (numbers) and ``carrier`` (16 values), ``origin`` (3) and
``dest`` (105) (nominal). The departure time and delay are left out: they tell the answer.
20% held out (``train_test_split``, random_state 0, stratified).

The one model, ``bench/boosting.py``'s: 100 iterations, at most 31 leaves, learning rate
0.1, 255 bins, at least 20 rows a leaf, a leaf's hessian sum at least 1e-3, no early
stopping; each library's own regularisation of nominal splits at its defaults. The nominal
columns reach LightGBM, XGBoost and HGB as pandas categoricals (their native splits),
quercus as text with ``nominal_features``, and LightGBM's one-hot row as 0/1 columns
(``pandas.get_dummies``).

Each cell prints its fit and predict times (wall clock; quercus after a warm-up fit on
60,000 rows that compiles its kernels), its peak memory during the fit and its test AUC.

    .venv/bin/python bench/boosting_flights.py [--threads 2] [--only quercus,lightgbm]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from boosting import ITERATIONS, LEAVES, WARMUP_ROWS  # noqa: E402
from boosting import make_model as boosting_model  # noqa: E402
from cells import chosen, last_error_line, markdown_table, run_json  # noqa: E402

MODELS = ("quercus", "lightgbm", "lightgbm-onehot", "xgboost", "hgb")
NUMERIC = ["month", "day", "sched_dep_time", "sched_arr_time", "hour", "minute", "distance"]
NOMINAL = ["carrier", "origin", "dest"]
DATASETS = Path(
    os.environ.get("QUERCUS_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)


def load(model: str):
    """Training and test rows as ``model`` takes them: ``(X_train, X_test, y_train,
    y_test)``."""
    import pandas as pd
    from sklearn.model_selection import train_test_split

    frame = pd.read_csv(DATASETS / "flights_nyc2013.csv.gz", keep_default_na=False, na_values=[""])
    y = (frame["arr_delay"] > 15).astype(int).to_numpy()
    X = frame[NUMERIC + NOMINAL]
    train, test = train_test_split(range(len(frame)), test_size=0.2, random_state=0, stratify=y)
    X_train, X_test = X.iloc[train].reset_index(drop=True), X.iloc[test].reset_index(drop=True)
    if model == "lightgbm-onehot":
        both = pd.get_dummies(pd.concat([X_train, X_test]), columns=NOMINAL, dtype=float)
        X_train, X_test = both.iloc[: len(train)], both.iloc[len(train) :]
    elif model != "quercus":
        for column in NOMINAL:
            categories = sorted(X_train[column].unique())
            X_train[column] = pd.Categorical(X_train[column], categories=categories)
            X_test[column] = pd.Categorical(X_test[column], categories=categories)
    return X_train, X_test, y[train], y[test]


def make_model(model: str, threads: int):
    """``bench/boosting.py``'s model of two classes, told which columns are nominal."""
    base = boosting_model("lightgbm" if model.startswith("lightgbm") else model, "clf2", threads)
    if model == "quercus":
        return base.set_params(nominal_features=NOMINAL)
    if model == "xgboost":
        return base.set_params(enable_categorical=True)
    if model == "hgb":
        return base.set_params(categorical_features="from_dtype")
    return base  # LightGBM takes a frame's categorical columns as nominal by default


def cell(model: str, threads: int) -> dict:
    """One fit and predict, in this process: the last line printed is its JSON."""
    from machine import measured_step
    from sklearn.metrics import roc_auc_score

    X_train, X_test, y_train, y_test = load(model)
    if model == "quercus":  # compile the kernels before the timed fit (and bin as a
        # large fit bins: from a sample)
        warm = make_model(model, threads).set_params(max_iter=2)
        warm.fit(X_train[:WARMUP_ROWS], y_train[:WARMUP_ROWS])
    estimator = make_model(model, threads)
    _, fit_s, peak = measured_step(lambda: estimator.fit(X_train, y_train))
    start = time.perf_counter()
    proba = estimator.predict_proba(X_test)[:, 1]
    predict_s = time.perf_counter() - start
    return {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "peak_mib": peak,
        "auc": float(roc_auc_score(y_test, proba)),
        "rows": [len(X_train), len(X_test)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(MODELS), help=f"from {', '.join(MODELS)}")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cell:
        print(json.dumps(cell(args.cell, args.threads)))
        return
    models = chosen(parser, "--only", args.only, MODELS)
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    table, rows = [], None
    for model in models:
        cmd = [sys.executable, __file__, "--cell", model, "--threads", str(args.threads)]
        ran = run_json(cmd, args.timeout, env)
        if ran.result is None:
            reason = "timed out" if ran.timed_out else last_error_line(ran)
            table.append([model, reason, "", "", ""])
            continue
        r = ran.result
        rows = r["rows"]
        table.append(
            [model, f"{r['fit_s']:.2f}", f"{r['predict_s']:.3f}", f"{r['peak_mib']:.0f}",
             f"{r['auc']:.4f}"]
        )  # fmt: skip
        print(f"{model}: {table[-1][1:]}", file=sys.stderr, flush=True)
    if rows is not None:
        print(f"\nflights_nyc2013, {rows[0]:,} training and {rows[1]:,} test rows, "
              f"{args.threads} threads, {ITERATIONS} iterations, {LEAVES} leaves\n")  # fmt: skip
    print(markdown_table(["library", "fit s", "predict s", "peak MiB", "test AUC"], table))


if __name__ == "__main__":
    main()
