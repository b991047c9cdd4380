"""The models of bench/dask_fit.py, per library: local quercus, quercus on Dask, LightGBM and
XGBoost on Dask (their parameters and why: bench/dask_protocol.md); the small fits that warm
up quercus's kernels; how the leaves of a fitted model are counted. The libraries are
imported where a model is made, not here: a local cell sets its memory limit first."""

import json
import math
import re

import numpy as np
from dask_data import FEATURES, N_FEATURES, SEED, TARGET, as_frame
from dask_report import fmt_bytes, progress

# XGBoost caches the histograms of up to this many nodes (its default, 65,536 nodes of
# 20 x 256 bins x 16 bytes, would be 5.4 GB); a cap changes what is cached, not the tree.
XGB_MAX_CACHED_HIST_NODE = 4096

# LightGBM refuses num_leaves > 131072; a tree cannot have more leaves than training rows.
LGBM_MAX_LEAVES = 131072
# Caps LightGBM's histogram cache (MB), which otherwise allocates for num_leaves leaves.
LGBM_HISTOGRAM_POOL_MB = 256
# lightgbm.dask's data-parallel learner keeps a histogram per leaf whatever the pool size
# (about 80 KB a leaf at 20 x 255 bins: 131,072 leaves are 10 GB): the extra LightGBM rows
# cap num_leaves at what 2 GiB workers hold.
LGBM_DASK_LEAVES = 8192
LGBM_BAGGING_FRACTION = 0.632  # 1 - 1/e: the share of distinct rows in a bootstrap sample

WARMUP_ROWS = 2_000
WARMUP_TREES = 2
WARMUP_BINS = ("auto", 255)
# Every Dask fit here has more than 50,000 rows, where max_bins='auto' is 255 bins.
DASK_WARMUP_BINS = 255

# The modules a peer's tasks use on the workers, imported there before its timed fit and
# predict (quercus's are imported by its warm-up).
PEER_MODULES = {"lightgbm": ("lightgbm", "lightgbm.dask"), "xgboost": ("xgboost", "xgboost.dask")}


# ---------------------------------------------------------------------- local quercus


def local_tree(nominal_split=True):
    import quercus

    params = {"criterion": "gini", "max_bins": "auto", "random_state": SEED}
    if nominal_split:
        params["nominal_split"] = "binary"
    return quercus.DecisionTreeClassifier(**params)


def local_forest(n_trees, max_bins="auto"):
    import quercus

    return quercus.RandomForestClassifier(
        n_estimators=n_trees, bootstrap="poisson", n_jobs=2, random_state=SEED, max_bins=max_bins
    )


def quercus_local_warmup(model, n_features):
    """Compile the kernels a local fit uses: small fits with both bin dtypes."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((WARMUP_ROWS, n_features))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    for max_bins in WARMUP_BINS:
        if model == "forest":
            warm = local_forest(WARMUP_TREES, max_bins=max_bins)
        else:
            warm = local_tree(nominal_split=model == "tree")
            warm.set_params(max_bins=max_bins)
        warm.fit(X, y)
        warm.predict(X)


# ------------------------------------------------------------------- quercus on Dask


def quercus_dask_warmup(client, models):
    """Compile quercus's kernels on the client and on ``client``'s workers: small fits and
    predictions of each of ``models`` ("tree", "forest"), with the default subtree_bytes and
    with 0 (every level on the cluster). Yields each model once it is warm, so that the
    caller knows which are if a later one fails."""
    import dask.dataframe as dd

    import quercus.dask as qdask

    rng = np.random.default_rng(1)
    X = rng.standard_normal((WARMUP_ROWS, N_FEATURES))
    frame = dd.from_pandas(as_frame(X, X[:, 0] + X[:, 1] > 0), npartitions=2)
    Xd, yd = frame[FEATURES], frame[TARGET]
    for model in models:
        for subtree_bytes in (None, 0):
            extra = {} if subtree_bytes is None else {"subtree_bytes": 0}
            if model == "tree":
                est = qdask.DaskDecisionTreeClassifier(
                    criterion="gini",
                    nominal_split="binary",
                    max_bins=DASK_WARMUP_BINS,
                    random_state=SEED,
                    client=client,
                    **extra,
                )
            else:
                est = qdask.DaskRandomForestClassifier(
                    n_estimators=WARMUP_TREES,
                    max_bins=DASK_WARMUP_BINS,
                    random_state=SEED,
                    client=client,
                    **extra,
                )
            est.fit(Xd, yd)
            est.predict(Xd).compute()
        yield model


def quick_subtree_bytes(args, n_rows, full_rows):
    """The Dask tree's subtree_bytes: the default, but with --quick scaled down with the
    rows (so that the tiny data sets are split over the cluster for a few levels too)."""
    from quercus.distributed.estimators import SUBTREE_BYTES

    return int(SUBTREE_BYTES * n_rows / full_rows) if args.quick else SUBTREE_BYTES


def subtree_text(subtree_bytes):
    from quercus.distributed.estimators import SUBTREE_BYTES

    if subtree_bytes == SUBTREE_BYTES:
        return f"{subtree_bytes / 2**20:g} MiB (the default)"
    return f"{fmt_bytes(subtree_bytes)} (--quick: the default scaled down with the rows)"


# --------------------------------------------------------------------- LightGBM on Dask


def lgbm_tree_params(n_train, max_leaves=LGBM_MAX_LEAVES):
    return {
        "n_estimators": 1,
        "learning_rate": 1.0,
        "num_leaves": max(2, min(max_leaves, n_train)),
        "max_depth": -1,
        "min_child_samples": 1,  # min_data_in_leaf
        "min_child_weight": 0.0,  # min_sum_hessian_in_leaf
        "histogram_pool_size": LGBM_HISTOGRAM_POOL_MB,
        "random_state": SEED,
        "verbose": -1,
    }


def lgbm_rf_params(n_train, n_trees, max_leaves=LGBM_MAX_LEAVES):
    return {
        "boosting_type": "rf",
        "n_estimators": n_trees,
        "bagging_freq": 1,
        "bagging_fraction": LGBM_BAGGING_FRACTION,
        "feature_fraction_bynode": math.sqrt(N_FEATURES) / N_FEATURES,
        "num_leaves": max(2, min(max_leaves, n_train)),
        "max_depth": -1,
        "min_child_samples": 1,
        "min_child_weight": 0.0,
        "histogram_pool_size": LGBM_HISTOGRAM_POOL_MB,
        "random_state": SEED,
        "verbose": -1,
    }


# ---------------------------------------------------------------------- XGBoost on Dask


XGB_TREE_PARAMS = {
    "n_estimators": 1,
    "learning_rate": 1.0,
    "tree_method": "hist",
    "grow_policy": "lossguide",
    "max_leaves": 0,  # no limit
    "max_depth": 0,  # no limit on depth
    "min_child_weight": 0,
    "reg_lambda": 0,
    "max_cached_hist_node": XGB_MAX_CACHED_HIST_NODE,
    "random_state": SEED,
}


def xgb_rf_params(n_trees):
    return {
        "n_estimators": n_trees,
        "subsample": LGBM_BAGGING_FRACTION,
        "colsample_bynode": math.sqrt(N_FEATURES) / N_FEATURES,
        "tree_method": "hist",
        "grow_policy": "depthwise",
        "max_depth": 0,  # no limit on depth
        "min_child_weight": 0,
        "reg_lambda": 0,
        "max_cached_hist_node": XGB_MAX_CACHED_HIST_NODE,
        "random_state": SEED,
    }


# -------------------------------------------------------------------------- any model


def count_leaves(kind, est):
    """Leaves of all the trees of a fitted model (None if they cannot be counted)."""
    try:
        if kind == "quercus":
            if hasattr(est, "estimators_"):
                return int(sum(int(t.get_n_leaves()) for t in est.estimators_))
            return int(est.get_n_leaves())
        if kind == "lightgbm":
            text = est.booster_.model_to_string()
            return sum(int(n) for n in re.findall(r"^num_leaves=(\d+)$", text, re.MULTILINE))
        if kind == "xgboost":
            model = json.loads(bytes(est.get_booster().save_raw("json")))
            trees = model["learner"]["gradient_booster"]["model"]["trees"]
            return int(sum(sum(1 for c in t["left_children"] if c == -1) for t in trees))
    except Exception as exc:  # a count is a nicety; never let it fail a row
        progress(f"leaves not counted: {exc!r}")
    return None
