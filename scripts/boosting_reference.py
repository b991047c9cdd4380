"""Reference results of LightGBM and scikit-learn's HistGradientBoosting for quercus's
gradient-boosting tests.

Runs ``lightgbm.LGBMClassifier``/``LGBMRegressor`` and scikit-learn's
``HistGradientBoostingClassifier``/``Regressor`` with their settings mapped to one model, and
writes ``tests/fixtures/boosting_reference.json`` so that the test suite
(``tests/ensemble/test_compare_lightgbm.py``) compares quercus's boosters with them without
importing either library. This script only runs the two libraries and records what they give.

Usage::

    .venv/bin/python scripts/boosting_reference.py [--datasets a,b] [--no-oracle] [--out PATH]

With ``--datasets`` (or ``--no-oracle``) and an existing ``--out`` file, only those parts are
replaced in it. Every fit runs on one thread (LightGBM ``n_jobs=1``; HGB's OpenMP limited to
one thread through threadpoolctl) and the results are the same from one run to the next.

The one model
-------------
100 iterations, at most 31 leaves, learning rate 0.1, 255 bins, at least 20 rows a leaf
(LightGBM ``min_child_samples``, HGB ``min_samples_leaf``), at least 1e-3 of hessian a leaf
(LightGBM ``min_child_weight``; HGB's is fixed at 1e-3), no L1/L2 regularisation, no early
stopping, no row or feature sampling. LightGBM also gets ``deterministic=True`` and
``force_row_wise=True`` (LightGBM's advice for reproducible models), ``min_data_in_bin=1``
and ``enable_bundle=False`` (as scikit-learn's own LightGBM mapping,
``sklearn/ensemble/_hist_gradient_boosting/utils.py``: a bin for every value, no feature
bundles). Everything else is the library's default, among them LightGBM's nominal-split
settings (``cat_smooth=10``, ``cat_l2=10``, ``min_data_per_group=100``,
``max_cat_threshold=32``, ``max_cat_to_onehot=4``) and both libraries' bin sample of 200,000
rows. For more than two classes LightGBM's hessians are ``K / (K - 1)`` times the textbook
``p (1 - p)`` (LightGBM PR #3256), so its learning rate and ``min_child_weight`` are scaled by
``K / (K - 1)`` to give the same steps (0.104 and 1.04e-3 on letter's 26 classes; the one-
iteration oracle below checks this mapping to 1e-12 on 3 classes).

Data sets (``../shared/datasets``; target in the last column, an empty cell is missing)
---------------------------------------------------------------------------------------
* ``adult``: trained on adult_train.csv, tested on adult_test.csv (the official split; when
  adult_test.csv is absent, adult_train.csv is split as the others are); the 8 text columns are
  nominal; binary, positive class ``>50K``: AUC.
* ``letter``: 16 numeric features, 26 classes: accuracy and multi-class log-loss.
* ``bike_sharing_hour``, ``cal_housing``: numeric features, regression: R^2.
* ``diamonds``: ``cut``, ``color``, ``clarity`` are ORDINAL, in ggplot2's order (worst to best,
  ``ORDINAL`` below): LightGBM and HGB get the level's position (0, 1, ...) as a number, quercus
  the column with ``ordinal_features``; every library then cuts them as thresholds on the same
  order. Regression on price: R^2.
* ``flights_nyc2013``: 327,346 rows; ``carrier``, ``origin``, ``dest`` nominal; REGRESSION on
  the data set's own target ``arr_delay`` (minutes), R^2 (no derived target to reproduce; it
  is the one regression with nominal features here, adult being the binary one).

Nominal columns reach LightGBM and HGB as pandas categoricals (their native nominal splits:
LightGBM ``categorical_feature='auto'``, HGB ``categorical_features='from_dtype'``) with the
training rows' values, sorted, as categories; a test value unseen in training is missing.
Without an official split the rows are split by
``sklearn.model_selection.train_test_split(range(n_rows), test_size=0.2, random_state=0)``
(train and test rows in that function's order); ``split.test_rows_sha256`` is the sha256 of the
test rows' numbers as little-endian int64, so a test can check that it split alike.

Diagnostics
-----------
Where LightGBM and HGB part, two more runs per data set say why (``diagnostics``):
``lightgbm_on_hgb_bins``, LightGBM with the same parameters on HGB's bin numbers of the numeric
columns (scikit-learn's private ``_BinMapper`` fitted as HGB fits it), which takes away the
difference of their bin boundaries; and on multi-class sets ``min_samples_leaf_1``, both with
one row a leaf, which takes away LightGBM's estimate of a leaf's rows from its hessian sum
(``min_child_samples`` is checked on that estimate; HGB and quercus count the rows).

The one-iteration oracle
------------------------
As scikit-learn's own bar against LightGBM (``test_compare_lightgbm.py``): 2,000 rows whose 5
features take few whole values (7 to 60), so every library keeps one bin per value and the
bins agree; one iteration, learning rate 1, 31 leaves, 20 rows and 1e-3 of hessian a leaf.
``oracle_data`` makes the data with ``numpy.random.default_rng(0)`` and exactly rounded
arithmetic only (no transcendental functions), so any platform regenerates it bit for bit;
``sha256`` holds the hashes of X and the targets to check that. Stored: LightGBM's raw scores
on the training rows (``predict(raw_score=True)``, rounded to 1e-12) for the squared error, the
binary log-loss and the 3-class log-loss (learning rate and ``min_child_weight`` times 3/2, see
above; the scores include LightGBM's start, the mean, the log-odds or the log priors).

Fixture layout
--------------
::

    {
      "generator": "scripts/boosting_reference.py",
      "versions": {"lightgbm": ..., "scikit-learn": ..., "numpy": ..., "pandas": ...,
                   "python": ...},
      "model": {...the common settings, in words and numbers...},
      "datasets": {
        NAME: {
          "files": {"train": FILE, "test": FILE or null}, "target": COLUMN,
          "task": "binary" | "multiclass" | "regression", "positive_class": (binary only),
          "classes": [...] (classification), "nominal": [...], "ordinal": {column: [levels]},
          "split": {"rule": ..., "n_train": ..., "n_test": ..., "test_rows_sha256": ...},
          "metrics": ["auc"] | ["accuracy", "log_loss"] | ["r2"],
          "lightgbm": {"version": ..., "estimator": "LGBMClassifier", "params": {passed},
                       "model_parameters": {every parameter of the trained model, as LightGBM
                                            writes it in its model file},
                       "auc" | "accuracy", "log_loss" | "r2": ...},
          "hist_gradient_boosting": {"version": ..., "estimator": ..., "params": {get_params()},
                                     ...metrics..., "n_iter": ...},
          "diagnostics": {"lightgbm_on_hgb_bins": {...metrics...},
                          "min_samples_leaf_1": {"lightgbm": {...}, "hist_gradient_boosting":
                                                 {...}} (multiclass only)}
        }
      },
      "one_iteration": {
        "data": {"recipe": ..., "seed": 0, "n_rows": 2000, "levels": [...],
                 "sha256": {"X": ..., "y_regression": ..., "y_binary": ..., "y_multiclass": ...}},
        "settings": {"max_iter": 1, "learning_rate": 1.0, "max_leaf_nodes": 31,
                     "min_samples_leaf": 20, "min_child_weight": 0.001},
        "cases": {
          "squared_error" | "binary" | "multiclass": {
            "target": "y_regression" | ..., "lightgbm_params": {...},
            "raw_predictions": [per row: a number, or a list of 3 for multiclass]
          }
        }
      }
    }
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = REPO.parent / "shared" / "datasets"
DEFAULT_OUT = REPO / "tests" / "fixtures" / "boosting_reference.json"

# The one model, by scikit-learn's HistGradientBoosting names.
MAX_ITER = 100
MAX_LEAF_NODES = 31
LEARNING_RATE = 0.1
MAX_BINS = 255
MIN_SAMPLES_LEAF = 20
MIN_CHILD_WEIGHT = 1e-3
TEST_SIZE = 0.2
SPLIT_SEED = 0

# ggplot2's level order of the diamonds (worst to best).
ORDINAL = {
    "diamonds": {
        "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
        "color": ["J", "I", "H", "G", "F", "E", "D"],
        "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
    }
}

DATASETS = {
    # name: (train file, official test file or None, task, nominal columns)
    "adult": (
        "adult_train.csv",
        "adult_test.csv",
        "binary",
        [
            "workclass",
            "education",
            "marital-status",
            "occupation",
            "relationship",
            "race",
            "sex",
            "native-country",
        ],
    ),
    "letter": ("letter.csv", None, "multiclass", []),
    "bike_sharing_hour": ("bike_sharing_hour.csv", None, "regression", []),
    "cal_housing": ("cal_housing.csv", None, "regression", []),
    "diamonds": ("diamonds.csv", None, "regression", []),
    "flights_nyc2013": (
        "flights_nyc2013.csv.gz",
        None,
        "regression",
        ["carrier", "origin", "dest"],
    ),
}
POSITIVE_CLASS = {"adult": ">50K"}
METRICS = {
    "binary": ["auc"],
    "multiclass": ["accuracy", "log_loss"],
    "regression": ["r2"],
}

# The one-iteration oracle
ORACLE_SEED = 0
ORACLE_ROWS = 2000
ORACLE_LEVELS = (40, 25, 12, 60, 7)


# ----------------------------------------------------------------------------- data


def read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def split_rows(n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(n_rows), test_size=TEST_SIZE, random_state=SPLIT_SEED)
    return train, test


def rows_sha256(rows: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(rows, dtype="<i8").tobytes()).hexdigest()


def load(name: str, data_dir: Path):
    """The training and test frames (features, target) and the split's description."""
    train_file, test_file, _, _ = DATASETS[name]
    frame = read_csv(data_dir / train_file)
    if test_file is not None and (data_dir / test_file).is_file():
        test = read_csv(data_dir / test_file)
        split = {
            "rule": f"official: {train_file} to train, {test_file} to test",
            "n_train": len(frame),
            "n_test": len(test),
        }
        train = frame
        files = {"train": train_file, "test": test_file}
    else:
        train_rows, test_rows = split_rows(len(frame))
        train = frame.iloc[train_rows].reset_index(drop=True)
        test = frame.iloc[test_rows].reset_index(drop=True)
        split = {
            "rule": (
                f"sklearn.model_selection.train_test_split(np.arange(n_rows), "
                f"test_size={TEST_SIZE}, random_state={SPLIT_SEED}) on the rows of {train_file}"
            ),
            "n_train": len(train_rows),
            "n_test": len(test_rows),
            "test_rows_sha256": rows_sha256(test_rows),
        }
        files = {"train": train_file, "test": None}
    return train, test, split, files


def library_frames(name: str, train: pd.DataFrame, test: pd.DataFrame):
    """The feature frames LightGBM and HGB get: nominal columns as categoricals of the
    training values (sorted), ordinal ones as their level's position."""
    _, _, _, nominal = DATASETS[name]
    X_train, X_test = train.iloc[:, :-1].copy(), test.iloc[:, :-1].copy()
    for column in nominal:
        categories = sorted(X_train[column].dropna().unique())
        dtype = pd.CategoricalDtype(categories)
        X_train[column] = X_train[column].astype(dtype)
        X_test[column] = X_test[column].astype(dtype)
    for column, levels in ORDINAL.get(name, {}).items():
        position = {level: float(i) for i, level in enumerate(levels)}
        for X in (X_train, X_test):
            unknown = set(X[column].dropna().unique()) - set(levels)
            if unknown:
                raise ValueError(f"{name}.{column}: values {sorted(unknown)} not in {levels}")
            X[column] = X[column].map(position).astype(float)
    return X_train, X_test


# ----------------------------------------------------------------------------- models


def lightgbm_params(task: str, n_classes: int, *, max_iter=MAX_ITER, learning_rate=LEARNING_RATE):
    """LightGBM's parameters for the one model (see the module's docstring)."""
    scale = n_classes / (n_classes - 1) if task == "multiclass" else 1.0
    return {
        "objective": {"binary": "binary", "multiclass": "multiclass"}.get(task, "regression"),
        "n_estimators": max_iter,
        "learning_rate": learning_rate * scale,
        "num_leaves": MAX_LEAF_NODES,
        "max_depth": -1,
        "min_child_samples": MIN_SAMPLES_LEAF,
        "min_child_weight": MIN_CHILD_WEIGHT * scale,
        "min_split_gain": 0.0,
        "reg_alpha": 0.0,
        "reg_lambda": 0.0,
        "max_bin": MAX_BINS,
        "min_data_in_bin": 1,
        "enable_bundle": False,
        "subsample": 1.0,
        "subsample_freq": 0,
        "colsample_bytree": 1.0,
        "boost_from_average": True,
        "deterministic": True,
        "force_row_wise": True,
        "n_jobs": 1,
        "random_state": 0,
        "verbose": -1,
    }


def hgb_params() -> dict:
    return {
        "max_iter": MAX_ITER,
        "learning_rate": LEARNING_RATE,
        "max_leaf_nodes": MAX_LEAF_NODES,
        "max_depth": None,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "l2_regularization": 0.0,
        "max_bins": MAX_BINS,
        "categorical_features": "from_dtype",
        "early_stopping": False,
        "random_state": 0,
    }


def model_parameters(booster) -> dict:
    """Every parameter of a trained LightGBM model, as its model file states them."""
    text = booster.model_to_string()
    start = text.index("\nparameters:\n") + len("\nparameters:\n")
    end = text.index("\nend of parameters", start)
    out = {}
    for line in text[start:end].splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]") and ": " in line:
            key, value = line[1:-1].split(": ", 1)
            out[key] = value
    return out


def jsonable(value):
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def scores(task: str, y_test, fitted, X_test, classes=None) -> dict:
    from sklearn.metrics import accuracy_score, log_loss, r2_score, roc_auc_score

    if task == "regression":
        return {"r2": float(r2_score(y_test, fitted.predict(X_test)))}
    proba = fitted.predict_proba(X_test)
    if task == "binary":
        return {"auc": float(roc_auc_score(y_test, proba[:, 1]))}
    predicted = np.asarray(fitted.classes_)[np.argmax(proba, axis=1)]
    return {
        "accuracy": float(accuracy_score(y_test, predicted)),
        "log_loss": float(log_loss(y_test, proba, labels=fitted.classes_)),
    }


def run_dataset(name: str, data_dir: Path) -> dict:
    import lightgbm
    import sklearn
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    train, test, split, files = load(name, data_dir)
    _, _, task, nominal = DATASETS[name]
    target = train.columns[-1]
    X_train, X_test = library_frames(name, train, test)
    entry = {
        "files": files,
        "target": target,
        "task": task,
        "nominal": nominal,
        "ordinal": ORDINAL.get(name, {}),
        "split": split,
        "metrics": METRICS[task],
    }
    if task == "regression":
        y_train, y_test = train[target].to_numpy(float), test[target].to_numpy(float)
        n_classes = 0
        lgbm, hgb = lightgbm.LGBMRegressor, HistGradientBoostingRegressor
    else:
        classes = sorted(train[target].unique())
        entry["classes"] = classes
        if task == "binary":
            positive = POSITIVE_CLASS[name]
            entry["positive_class"] = positive
            y_train = (train[target] == positive).to_numpy(int)
            y_test = (test[target] == positive).to_numpy(int)
        else:
            code = {c: i for i, c in enumerate(classes)}
            y_train, y_test = train[target].map(code).to_numpy(int), test[target].map(code)
            if y_test.isna().any():
                raise ValueError(f"{name}: a test class unseen in training")
            y_test = y_test.to_numpy(int)
        n_classes = len(classes)
        lgbm, hgb = lightgbm.LGBMClassifier, HistGradientBoostingClassifier

    params = lightgbm_params(task, n_classes)
    model = lgbm(**params).fit(X_train, y_train)
    entry["lightgbm"] = {
        "version": lightgbm.__version__,
        "estimator": lgbm.__name__,
        "params": params,
        "model_parameters": model_parameters(model.booster_),
        **scores(task, y_test, model, X_test),
    }
    model = hgb(**hgb_params()).fit(X_train, y_train)
    entry["hist_gradient_boosting"] = {
        "version": sklearn.__version__,
        "estimator": hgb.__name__,
        "params": jsonable(model.get_params()),
        "n_iter": int(model.n_iter_),
        **scores(task, y_test, model, X_test),
    }
    entry["diagnostics"] = diagnostics(name, task, n_classes, X_train, X_test, y_train, y_test)
    return entry


def hgb_binned(X_train: pd.DataFrame, X_test: pd.DataFrame):
    """The frames with each numeric column replaced by its bin number in HGB's own binning
    (scikit-learn's private ``_BinMapper``, as HGB fits it: 255 bins, 200,000-row sample,
    ``random_state=0``); nominal columns as they were."""
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper

    numeric = [c for c in X_train.columns if not isinstance(X_train[c].dtype, pd.CategoricalDtype)]
    mapper = _BinMapper(n_bins=MAX_BINS + 1, random_state=0).fit(X_train[numeric].to_numpy())
    out = []
    for X in (X_train, X_test):
        X = X.copy()
        X[numeric] = mapper.transform(X[numeric].to_numpy()).astype(np.float64)
        out.append(X)
    return out


def diagnostics(name, task, n_classes, X_train, X_test, y_train, y_test) -> dict:
    """Where LightGBM and HGB part, measured: LightGBM fitted on HGB's bins (the same cuts
    offered to both), and for classes both at ``min_samples_leaf=1`` (LightGBM applies its
    ``min_child_samples`` to leaf sizes estimated from hessian sums, HGB to row counts)."""
    import lightgbm
    from sklearn.ensemble import HistGradientBoostingClassifier

    lgbm = lightgbm.LGBMRegressor if task == "regression" else lightgbm.LGBMClassifier
    B_train, B_test = hgb_binned(X_train, X_test)
    model = lgbm(**lightgbm_params(task, n_classes)).fit(B_train, y_train)
    out = {
        "lightgbm_on_hgb_bins": {
            "about": "LightGBM, same parameters, on HGB's bin numbers of the numeric columns",
            **scores(task, y_test, model, B_test),
        }
    }
    if task == "multiclass":
        params = {**lightgbm_params(task, n_classes), "min_child_samples": 1}
        one_row = {"about": "both libraries with 1 row a leaf (min_child_samples=1, "
                   "min_samples_leaf=1), all else the same"}  # fmt: skip
        model = lgbm(**params).fit(X_train, y_train)
        one_row["lightgbm"] = scores(task, y_test, model, X_test)
        model = HistGradientBoostingClassifier(**{**hgb_params(), "min_samples_leaf": 1})
        one_row["hist_gradient_boosting"] = scores(
            task, y_test, model.fit(X_train, y_train), X_test
        )
        out["min_samples_leaf_1"] = one_row
    print(f"{name:18s} diagnostics {out}", file=sys.stderr)
    return out


# ----------------------------------------------------------------------------- oracle


def oracle_data(seed: int = ORACLE_SEED, n_rows: int = ORACLE_ROWS, levels=ORACLE_LEVELS):
    """Features of few whole values and three targets, from exactly rounded arithmetic only
    (any platform makes the same bits). ``tests/ensemble/test_compare_lightgbm.py`` has a copy
    of this function; the fixture's sha256 hashes check that the two agree."""
    rng = np.random.default_rng(seed)
    levels = np.asarray(levels, dtype=np.int64)
    X = rng.integers(0, levels, size=(n_rows, len(levels))).astype(np.float64)
    a, b, c, d, e = X.T
    signal = (
        a / 40.0
        + (b - 12.0) * (b - 12.0) / 100.0
        - (c > 5.0)
        + np.abs(d - 30.0) / 20.0 * (e - 3.0) / 3.0
    )
    noise = rng.random(n_rows) + rng.random(n_rows) + rng.random(n_rows) - 1.5
    y_regression = signal + 0.6 * noise
    y_binary = (y_regression > np.median(y_regression)).astype(np.int64)
    y_multiclass = (y_regression > np.quantile(y_regression, 1 / 3)).astype(np.int64) + (
        y_regression > np.quantile(y_regression, 2 / 3)
    ).astype(np.int64)
    return X, {"y_regression": y_regression, "y_binary": y_binary, "y_multiclass": y_multiclass}


def array_sha256(array: np.ndarray) -> str:
    array = np.asarray(array)
    kind = "<f8" if array.dtype.kind == "f" else "<i8"
    return hashlib.sha256(np.ascontiguousarray(array, dtype=kind).tobytes()).hexdigest()


def run_oracle() -> dict:
    import lightgbm

    X, targets = oracle_data()
    if max(len(np.unique(column)) for column in X.T) > MAX_BINS:
        raise AssertionError("an oracle feature with more values than bins")
    cases = {}
    for case, target, task, n_classes in (
        ("squared_error", "y_regression", "regression", 0),
        ("binary", "y_binary", "binary", 2),
        ("multiclass", "y_multiclass", "multiclass", 3),
    ):
        params = lightgbm_params(task, n_classes, max_iter=1, learning_rate=1.0)
        estimator = lightgbm.LGBMRegressor if task == "regression" else lightgbm.LGBMClassifier
        model = estimator(**params).fit(X, targets[target])
        raw = np.round(model.predict(X, raw_score=True), 12)
        cases[case] = {
            "target": target,
            "lightgbm_params": params,
            "n_leaves": [int(t["num_leaves"]) for t in model.booster_.dump_model()["tree_info"]],
            "raw_predictions": raw.tolist(),
        }
    return {
        "data": {
            "recipe": (
                "oracle_data() in scripts/boosting_reference.py (copied in "
                "tests/ensemble/test_compare_lightgbm.py): numpy.random.default_rng(seed); X = "
                "integers(0, levels) per column; y_regression = a/40 + (b-12)^2/100 - (c>5) + "
                "|d-30|/20*(e-3)/3 + 0.6*(u1+u2+u3-1.5) with u uniform; y_binary = y_regression "
                "> its median; y_multiclass = the tertile of y_regression (0, 1, 2)"
            ),
            "seed": ORACLE_SEED,
            "n_rows": ORACLE_ROWS,
            "levels": list(ORACLE_LEVELS),
            "sha256": {"X": array_sha256(X), **{k: array_sha256(v) for k, v in targets.items()}},
        },
        "settings": {
            "max_iter": 1,
            "learning_rate": 1.0,
            "max_leaf_nodes": MAX_LEAF_NODES,
            "min_samples_leaf": MIN_SAMPLES_LEAF,
            "min_child_weight": MIN_CHILD_WEIGHT,
        },
        "cases": cases,
    }


# ----------------------------------------------------------------------------- main


def versions() -> dict:
    import lightgbm
    import sklearn

    return {
        "lightgbm": lightgbm.__version__,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "python": platform.python_version(),
    }


def model_description() -> dict:
    return {
        "max_iter": MAX_ITER,
        "max_leaf_nodes": MAX_LEAF_NODES,
        "learning_rate": LEARNING_RATE,
        "max_bins": MAX_BINS,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "min_child_weight": MIN_CHILD_WEIGHT,
        "l2_regularization": 0.0,
        "early_stopping": False,
        "threads": 1,
        "multiclass_mapping": (
            "LightGBM's multiclass hessian is K/(K-1) p(1-p): its learning_rate and "
            "min_child_weight are multiplied by K/(K-1)"
        ),
    }


_FLAT_LIST = re.compile(r"\[\s+([^\[\]{}\"]*?)\s+\]")


def write_json(data: dict, path: Path) -> None:
    """Indented JSON, each list of numbers on one line."""
    text = json.dumps(data, indent=1, ensure_ascii=False)
    text = _FLAT_LIST.sub(lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    path.write_text(text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument(
        "--datasets", default=None, help="comma-separated names (default: all); others kept"
    )
    parser.add_argument("--no-oracle", action="store_true", help="keep the stored oracle")
    args = parser.parse_args(argv)

    from threadpoolctl import threadpool_limits

    names = list(DATASETS) if args.datasets is None else args.datasets.split(",")
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        parser.error(f"unknown data sets {unknown}; known: {list(DATASETS)}")
    partial = args.datasets is not None or args.no_oracle
    if partial and args.out.exists():
        data = json.loads(args.out.read_text(encoding="utf-8"))
    else:
        data = {"datasets": {}}
    data = {
        "generator": "scripts/boosting_reference.py",
        "versions": versions(),
        "model": model_description(),
        "datasets": data.get("datasets", {}),
        "one_iteration": data.get("one_iteration"),
    }
    with threadpool_limits(limits=1):
        if not args.no_oracle:
            data["one_iteration"] = run_oracle()
            print("one-iteration oracle: done", file=sys.stderr)
        for name in names:
            entry = run_dataset(name, args.data_dir)
            data["datasets"][name] = entry
            metrics = entry["metrics"]
            print(
                f"{name:18s} "
                + "  ".join(
                    f"{lib} " + " ".join(f"{m}={entry[key][m]:.5f}" for m in metrics)
                    for lib, key in (("lightgbm", "lightgbm"), ("hgb", "hist_gradient_boosting"))
                ),
                file=sys.stderr,
            )
    data["datasets"] = {n: data["datasets"][n] for n in DATASETS if n in data["datasets"]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(data, args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
