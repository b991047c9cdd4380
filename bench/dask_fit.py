"""quercus.dask on a local Dask cluster: against local quercus, LightGBM and XGBoost on Dask;
a data set larger than a worker; how the cost grows with workers, features, depth and rows.

Run from the repository root:

    .venv/bin/python bench/dask_fit.py [--part compare,scale,workers] [--quick]
                                       [--data-dir DIR] [--timeout S] [--local-20m | --no-local-20m]
                                       [--compare-rows N] [--trees N] [--levelwise-depth D]
                                       [--scale-rows N] [--workers-rows N]

    .venv/bin/python bench/dask_fit.py --quick           # tiny sizes: a smoke test, ~2 minutes
    .venv/bin/python bench/dask_fit.py --part compare    # 1M training rows: ~1 hour
    .venv/bin/python bench/dask_fit.py                   # all three parts: 1.5-2 hours (below)

The tables go to stdout as markdown (paste them into bench/README.md); progress, the workers'
output (LightGBM's log lines) and Dask's warnings go to stderr. Every row of a table is
measured in the same run; nothing in them is typed in.

Clusters. Every cluster is `distributed.LocalCluster(n_workers=N, threads_per_worker=1,
processes=True, memory_limit=M, dashboard_address="127.0.0.1:0")`: N worker processes of one
thread, whose nannies kill a worker whose resident memory passes 95% of M (Dask's default
`terminate` fraction; at 80% Dask pauses a worker, which then starts no task). The dashboard
gets a free port: `dashboard_address=None` still takes 8787, which another cluster on the
machine may hold. Each Dask estimator gets the cluster's `Client`. Dask settings of the run:
`distributed.scheduler.allowed-failures` 0, so that a task whose worker died fails the fit at
once instead of being tried three more times; `optimization.tune.active` False: Dask would
otherwise merge the Parquet partitions of a projection of few columns, giving y (1 column) 3
partitions where X (20 columns) has 8, which LightGBM and XGBoost refuse (LightGBM issue
#6920; quercus reads the unoptimised partitions and does not mind); with it every model reads
one partition per file.

Fresh workers for every row. The first row on a cluster runs on its new workers; before every
other row the workers are killed and a new LocalCluster of the same configuration is started
(a second or two, not timed). LightGBM and XGBoost keep much of what they allocate: at 200k
rows a worker held 1.6 GiB of its 2 after XGBoost's tree, over Dask's pause threshold, and
the next row's tasks never ran; and a worker that has fitted before starts from a larger RSS,
which would hide part of the next rise. (`client.restart()` is not used: twice, after
LightGBM or XGBoost, its workers did not come back within minutes.) For the same reason
LightGBM and XGBoost predict on fresh workers too. Their libraries are imported on new
workers before the timed fit and predict, as quercus's kernels are warmed up (below).

Memory. Before each timed fit the workers run `gc.collect()` and reset their peak-RSS mark
(`echo 5 > /proc/self/clear_refs`, through `client.run`); after it they report VmHWM from
/proc/self/status. "peak MiB per worker" is VmHWM after the fit minus VmRSS before it, the
largest over the workers (the scale part shows each). "client MiB" is the same rise of this
process, the Dask client: for quercus it chooses the splits from the reduced histograms and
receives the grown subtrees.

Failures. A fit (or predict) that runs longer than `--timeout` seconds (default 1,800) is
stopped by replacing the cluster, and its row says "failed: timeout after ... s" (and whether
a worker was paused at Dask's 80% then); a fit whose worker its nanny killed says "failed:
worker killed at 95% of its 2GiB memory limit"; an exception is shown by its type and
message. The run goes on with the next row.

JIT warm-up. quercus compiles its Numba kernels on first use (the workers' binning,
histograms, partitioning, subtree grower and prediction; the client's threshold scans).
Before a quercus row, on its new workers, each quercus Dask model of the part is fitted on
2,000 rows in 2 partitions with max_bins=255 (the bins of every Dask fit here, which all have
more than 50,000 rows), with the default `subtree_bytes` and with 0 (every level on the
cluster), and predicts them; forests with 2 trees. The local quercus rows warm up in their own
process the same way (max_bins 'auto' and 255).

## Part "compare": 1M x 20 on 2 workers of 2 GiB

Data: `make_classification(n_samples=1_250_000, n_features=20, n_informative=10,
n_classes=2, random_state=0)` (bench/single_tree.py's arguments; its clf2-1m draws 1,000,000
rows in all, here 1,250,000 so that the training split has 1M rows; `--compare-rows`),
float64, split by `train_test_split(test_size=0.2, random_state=0)`: 1,000,000 training and
250,000 test rows. The training rows are written as 8 Parquet files of 125,000 rows (pyarrow;
columns f0..f19 and the class `y`, int64) in `--data-dir`/compare-<rows>/train/, rewritten by
every run. Every Dask model reads them with `dask.dataframe.read_parquet` (8 partitions) inside
its timed fit, the same for all. The test rows stay in this process; for the Dask rows they
go to the cluster as a Dask DataFrame of 2 partitions, persisted on the workers before the
timed predict, and "predict s" is the wall time of computing the predictions of those 250,000
rows (quercus: `model.predict(frame).compute()`; LightGBM and XGBoost: the same call on their
Dask estimators).

Local quercus rows run first, each in a fresh process of its own (this script with
`--cell`): they read the 8 files with pyarrow into one pandas DataFrame (timed apart: the line
under the table gives it), warm up, fit on the 1M rows, predict the test rows (from
compare-<rows>/test.parquet); their peak MiB is the rise of their own process during fit.
Their predictions are kept: the line under each table says on how many test rows quercus on
Dask predicts otherwise. (The Dask fit's quantile bins come from mergeable summaries, exact up
to their capacity; with more distinct values, as here, its thresholds differ slightly from the
local ones, e.g. a root split at -1.78177 instead of -1.78294, and so do deeper splits.)

One deep tree:

- local quercus: `quercus.DecisionTreeClassifier(criterion="gini", nominal_split="binary",
  max_bins="auto", random_state=0)` in one process (Numba's threads: both cores);
- quercus on Dask: `quercus.dask.DaskDecisionTreeClassifier` with the same parameters and the
  default `subtree_bytes` (64 MiB; a binned row takes 44 bytes at 20 features, so at 1M rows
  the root itself is small enough: the rows are gathered to one worker, which grows the whole
  tree, and no level is split on the cluster); and with `subtree_bytes=0`, every level split
  over the 8 partitions, with `max_depth=10` (`--levelwise-depth`), which the row's label
  shows. A level's histograms are dense, nodes x 20 features x 255 bins x 3 numbers of 8
  bytes (123 KB a node) from every partition, and one worker adds up the 8 partitions' of a
  level: at 200k rows and max_depth=11 a level of ~480 nodes sent 59 MB per partition and
  that worker peaked at 676 MiB; at 1M rows level 10 has up to 1,024 nodes, level 12 up to
  4,096 (500 MB a partition, 4 GB for the 8), so the full tree cannot be grown this way on
  2 GiB workers, and depth 10 keeps a margin.
- LightGBM on Dask: `lightgbm.dask.DaskLGBMClassifier(n_estimators=1, learning_rate=1.0,
  num_leaves=min(131072, training rows), max_depth=-1, min_child_samples=1,
  min_child_weight=0.0, histogram_pool_size=256, random_state=0, verbose=-1)`, the tree of
  bench/single_tree.py (one boosting iteration: a Newton step on the log loss; 131,072 is
  LightGBM's largest num_leaves). lightgbm.dask trains one LightGBM per worker (data-parallel
  tree learner) with num_threads set to the worker's 1. Its data-parallel learner takes about
  80 KB per leaf of num_leaves (20 features x 255 bins) whatever histogram_pool_size says
  (measured on workers of 8 GiB: ~4.8 GB a worker at num_leaves=60,000 with a pool of 16, 64
  or 256 MB; 370 MB at 4,096): at 1M rows, 131,072 leaves want ~10 GB, and the row fails at
  the 2 GiB limit. So a second row caps num_leaves at 8,192 (`LGBM_DASK_LEAVES`: ~0.65 GB of
  histograms, below Dask's 80% pause threshold with the data), all else equal.
- XGBoost on Dask: `xgboost.dask.DaskXGBClassifier(n_estimators=1, learning_rate=1.0,
  tree_method="hist", grow_policy="lossguide", max_leaves=0, max_depth=0,
  min_child_weight=0, reg_lambda=0, max_cached_hist_node=4096, random_state=0)`. In XGBoost
  3.2 max_leaves=0 means no limit on the leaves and max_depth=0 no limit on the depth (the
  parameter docs: "0 indicates no limit on depth ... exact tree method requires non-zero
  value"; "hist" takes it). min_child_weight=0 lets a child have any hessian sum, and
  reg_lambda=0 is needed for a full tree: with the default L2 penalty of 1 the gain of
  splitting a few rows does not clear it (on 40,000 training rows of this data: 1,305 leaves
  and training accuracy 0.990 with reg_lambda=1; 2,113 leaves and 1.000 with 0).
  min_split_loss stays 0 and max_bin 256. max_cached_hist_node=4096 caps the histogram cache
  (its default, 65,536 nodes of 20 x 256 bins x 16 bytes, could grow to 5.4 GB; XGBoost's
  docs name the parameter for deep trees): a cap changes what is cached, not the tree (at
  60,000 rows: a worker's peak 615 MiB with the default, 116 MiB with 1,024 nodes, 3,706 and
  3,647 leaves: XGBoost's trees vary a little from run to run, as the partitions reach its
  workers in varying order). xgboost.dask sets nthread to the worker's 1 thread.

A forest of 100 trees (`--trees`):

- local quercus: `quercus.RandomForestClassifier(n_estimators=100, bootstrap="poisson",
  n_jobs=2, random_state=0)` (Gini, max_features='sqrt' drawn at every split, no depth limit,
  max_bins='auto');
- quercus on Dask: `quercus.dask.DaskRandomForestClassifier(n_estimators=100,
  random_state=0)`, whose default bootstrap is "poisson" (the row weights of the local forest
  above, drawn per row from (seed, tree, row));
- LightGBM on Dask in random-forest mode with bench/forest.py's parameters:
  `DaskLGBMClassifier(boosting_type="rf", n_estimators=100, bagging_freq=1,
  bagging_fraction=0.632, feature_fraction_bynode=sqrt(20)/20, num_leaves=min(131072,
  training rows), max_depth=-1, min_child_samples=1, min_child_weight=0,
  histogram_pool_size=256, random_state=0, verbose=-1)` (each tree on its own 63.2% of the rows
  drawn without replacement, the share of distinct rows in a bootstrap sample; 4 candidate
  features at each split); it fails at the memory limit as the single tree does, and a
  second row caps num_leaves at 8,192;
- XGBoost on Dask: `xgboost.dask.DaskXGBRFClassifier(n_estimators=100, subsample=0.632,
  colsample_bynode=sqrt(20)/20, tree_method="hist", grow_policy="depthwise", max_depth=0,
  min_child_weight=0, reg_lambda=0, max_cached_hist_node=4096, random_state=0)`
  (learning_rate 1: one round of 100 parallel trees; 4 of the 20 features at each split;
  reg_lambda 0 instead of XGBRF's 1e-5, as for the tree). The depth: no limit (max_depth=0),
  which XGBoost allows with the histogram cache capped; memory then stays flat (at 60,000 rows
  and 10 trees a worker peaked at 390 MiB, 690 MiB with the default cache) and the trees are
  full: 38,000 leaves against quercus's 36,000 (max_depth=16: 27,000), and at 200k rows 20
  trees of 245,515 leaves against 240,903. Depthwise rather than lossguide: the same trees at
  about the same cost here.

Under each table: local quercus's read time, and the fit time of quercus on Dask (default
subtree_bytes) divided by that of local quercus and of each Dask peer (below 1: quercus on
Dask is faster).

## Part "scale": 20M x 20 on 2 workers of 2 GiB

Data: 20,000,000 rows (`--scale-rows`) of 20 float64 features in 40 Parquet files of 500,000
rows (`--data-dir`/scale-500000/train/part-NNNNN.parquet), each made on its own from (seed
2026, the file's index) by `numpy.random.default_rng`, so at most one file is ever in memory:
standard normal features, class `y = (x0 * x1 + sin(2 x2) + 0.5 x3 - 0.25 x4^2 > 0)` with 5%
of the labels flipped (a rule trees learn, but not exactly: the best accuracy is 0.95). Test
set: 250,000 rows of the same generator (another index; test.parquet). A file that is there
with the right rows and the generator's key (seed, index, rows) in its Parquet metadata is
reused, so a rerun with the same `--data-dir` does not write them again; the default
directory is a new temporary one, removed at the end. The part prints the size on disk and
the size of the float64 features in memory (20M x 20 x 8 bytes = 3.2 GB).

- The Dask fit: `DaskDecisionTreeClassifier(criterion="gini", max_bins="auto",
  random_state=0)` (full depth, default subtree_bytes) on 2 workers of 2 GiB reading the 40
  files with dask.dataframe (40 partitions): fit s, each worker's peak MiB and the client's,
  the leaves, the accuracy on the 250,000 test rows (predicted on the cluster), and a table of
  `levels_`: per level the nodes split on the cluster, the histogram bytes each partition
  sends (`LevelCost.histogram_bytes`), times the partitions = the bytes reduced, the subtrees
  handed to one worker and their rows, the seconds.
- The local fit under 2 GiB, after the cluster is closed: a fresh process sets
  `resource.setrlimit(RLIMIT_AS, 2 GiB)` first (as bench/single_tree.py's --mem-limit does),
  imports quercus, reads the 40 files with pyarrow into pandas and fits the same local
  estimator (`quercus.DecisionTreeClassifier(criterion="gini", max_bins="auto",
  random_state=0)`); the row says at which step (reading, fitting) it failed and with what
  error. An address-space limit also counts what is reserved but not resident (the process
  has ~0.7 GiB of address space after its imports, shown in the row), so it is stricter than a
  worker's 2 GiB of resident memory; the features alone take 3.2 GB.
- `--local-20m` (on by default, off with --quick): the same local fit without a limit: read
  s, fit s, the rise of RSS during fit and, in brackets, the peak RSS of the whole process
  (VmHWM, reading included): what one process needs.
- Against a sample: the local estimator fitted on the first 1,000,000 rows (the first 2
  files), scored on the same 250,000 test rows, with its fit s and peak MiB.

## Part "workers": how the cost grows

At 4,000,000 rows (`--workers-rows`: the first 8 files of the "scale" data, written if
missing) the Dask tree of the scale part (full depth, default subtree_bytes) is fitted on
LocalClusters of 1, 2 and 4 workers of 4 GiB each (so that 1 worker can hold the 4M rows and
the work on them, and the limit is the same for every configuration), and on 2 workers also
with 10 of the 20 features (f0..f9), with max_depth 8 and 16, and on half the rows (the first
4 files). One table: configuration, fit s, levels on the cluster, the bytes of histograms
reduced (the sum over the levels of histogram bytes x partitions), the subtrees and their
rows, the leaves (the same tree for any number of workers), the largest peak MiB of a worker.
The machine has 2 cores: 4 workers share them, so that row shows the cost of more workers'
tasks and messages, not of more hardware.

## --quick

75,000 rows (60,000 for training: above 50,000, where max_bins='auto' means 255 bins as at
1M) and 10 trees in "compare"; in "scale" 400,000 rows in 8 files of 50,000 and 25,000 test
rows (the sample: the first 2 files; no --local-20m); 200,000 rows in "workers" (4 files; the
half: 2). In "scale" and "workers" subtree_bytes is the default scaled down with the rows (1.3
and 3.4 MB), so that the tiny sets too are split over the cluster for a few levels. The
numbers mean nothing at these sizes: --quick checks that the harness runs.

## How long the full run takes

On this 2-core machine, extrapolated from runs at 60,000 and 200,000 training rows: "compare"
about an hour, most of it the two 100-tree forests of LightGBM (20 trees of num_leaves <=
16,384 took 54 s at 200k rows) and XGBoost (20 trees: 51 s at 200k), some 20 minutes each at
1M, which may end at the 30-minute time limit; "scale" 10-20 minutes (writing 3.4 GB of Parquet
files, the Dask fit, the local fit of 20M rows without a limit); "workers" about 10 minutes.
"""

import argparse
import contextlib
import gc
import json
import logging
import math
import os
import platform
import re
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from cells import chosen, last_error_line, markdown_table, run_json, stderr_tail
from machine import cpu_model, proc_status_kb, quercus_version, reset_peak_rss, version

PARTS = ["compare", "scale", "workers"]

N_FEATURES = 20
FEATURES = [f"f{j}" for j in range(N_FEATURES)]
TARGET = "y"
SEED = 0
TEST_SIZE = 0.2

# compare
COMPARE_ROWS = 1_250_000  # 1,000,000 training rows, 250,000 test rows
COMPARE_FILES = 8
N_TREES = 100
COMPARE_WORKERS = 2
WORKER_MEMORY = "2GiB"
# subtree_bytes=0 grows every level on the cluster with dense histograms (123 KB per node
# and partition at 20 features x 255 bins): the full-depth tree does not fit 2 GiB workers.
LEVELWISE_MAX_DEPTH = 10
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

# scale
SCALE_ROWS = 20_000_000
SCALE_FILE_ROWS = 500_000
SCALE_TEST_ROWS = 250_000
SCALE_SEED = 2026
SCALE_FLIP = 0.05
SAMPLE_FILES = 2  # the local fit on a sample: the first 2 files (1M rows)
LOCAL_LIMIT_GIB = 2.0
GENERATOR_KEY = "quercus bench/dask_fit.py scale generator v1"

# workers
WORKERS_ROWS = 4_000_000
WORKER_COUNTS = (1, 2, 4)
WORKERS_MEMORY = "4GiB"
WORKERS_DEPTHS = (8, 16)
WORKERS_FEATURES = 10

# --quick
QUICK_COMPARE_ROWS = 75_000  # 60,000 training rows: above 50,000, max_bins='auto' is 255
QUICK_TREES = 10
QUICK_SCALE_ROWS = 400_000
QUICK_SCALE_FILE_ROWS = 50_000
QUICK_SCALE_TEST_ROWS = 25_000
QUICK_WORKERS_ROWS = 200_000

WARMUP_ROWS = 2_000
WARMUP_TREES = 2
WARMUP_BINS = ("auto", 255)
# Every Dask fit here has more than 50,000 rows, where max_bins='auto' is 255 bins.
DASK_WARMUP_BINS = 255
DEFAULT_TIMEOUT_S = 1800.0
SETUP_TIMEOUT_S = 600.0  # warming up quercus's kernels
RESTART_TIMEOUT_S = 60.0  # for the workers to come back after a restart

logger_names = ("distributed",)


# ---------------------------------------------------------------------- memory, machine


def worker_reset():
    """Run on a worker: collect garbage, reset the peak-RSS mark; the RSS now (kB)."""
    gc.collect()
    return {"reset": reset_peak_rss(), "rss_kb": proc_status_kb("VmRSS")}


def worker_peak():
    """Run on a worker: its peak RSS (kB) since the last reset."""
    return proc_status_kb("VmHWM")


def progress(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def mib(kb):
    return kb / 1024


def fmt_bytes(n):
    if n is None:
        return ""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def fmt_int(n):
    return "" if n is None else f"{n:,}"


# ------------------------------------------------------------------------------- data


def compare_data(n_rows):
    """X_train, X_test, y_train, y_test of the compare part (float64 X)."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(
        n_samples=n_rows,
        n_features=N_FEATURES,
        n_informative=10,
        n_classes=2,
        random_state=SEED,
    )
    X = np.ascontiguousarray(X, dtype=np.float64)
    return train_test_split(X, y, test_size=TEST_SIZE, random_state=SEED)


def as_frame(X, y):
    import pandas as pd

    frame = pd.DataFrame(X, columns=FEATURES[: X.shape[1]])
    frame[TARGET] = np.asarray(y, dtype=np.int64)
    return frame


def write_parquet(frame, path, metadata=None):
    """Write ``frame`` (no index) to ``path`` atomically, with key-value ``metadata``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    tmp = Path(str(path) + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def write_compare_data(directory, X_train, y_train, X_test, y_test, n_files):
    """The training rows as ``n_files`` Parquet files of equal rows, the test rows as one."""
    train_dir = Path(directory) / "train"
    if train_dir.exists():
        shutil.rmtree(train_dir)
    train_dir.mkdir(parents=True)
    bounds = np.linspace(0, len(y_train), n_files + 1).astype(int)
    for i in range(n_files):
        lo, hi = bounds[i], bounds[i + 1]
        write_parquet(as_frame(X_train[lo:hi], y_train[lo:hi]), train_dir / f"part-{i:05d}.parquet")
    test_path = Path(directory) / "test.parquet"
    write_parquet(as_frame(X_test, y_test), test_path)
    return sorted(str(p) for p in train_dir.glob("*.parquet")), str(test_path)


def scale_partition(index, n_rows):
    """One partition of the scale data, made from (SCALE_SEED, index) alone."""
    rng = np.random.default_rng([SCALE_SEED, index])
    X = rng.standard_normal((n_rows, N_FEATURES))
    score = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.5 * X[:, 3] - 0.25 * X[:, 4] ** 2
    y = score > 0
    y ^= rng.random(n_rows) < SCALE_FLIP
    return as_frame(X, y.astype(np.int64))


def generated_file_ok(path, n_rows, index):
    """True if ``path`` is a complete file of the generator's partition ``index``."""
    import pyarrow.parquet as pq

    if not Path(path).exists():
        return False
    try:
        meta = pq.read_metadata(path)
        schema = pq.read_schema(path)
    except Exception:
        return False
    key = (schema.metadata or {}).get(b"generator", b"").decode()
    expected = f"{GENERATOR_KEY}; seed {SCALE_SEED}; index {index}; rows {n_rows}"
    return meta.num_rows == n_rows and key == expected and schema.names == [*FEATURES, TARGET]


def ensure_scale_data(directory, n_files, file_rows, test_rows):
    """The first ``n_files`` training files and the test file of the scale data under
    ``directory``, written where missing or incomplete. Paths and how many were written."""
    train_dir = Path(directory) / "train"
    train_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(train_dir / f"part-{i:05d}.parquet", i, file_rows) for i in range(n_files)]
    # The test set: an index no training file uses.
    jobs.append((Path(directory) / "test.parquet", 1_000_000, test_rows))
    written = 0
    for path, index, rows in jobs:
        if generated_file_ok(path, rows, index):
            continue
        key = f"{GENERATOR_KEY}; seed {SCALE_SEED}; index {index}; rows {rows}"
        write_parquet(scale_partition(index, rows), path, {b"generator": key.encode()})
        written += 1
        if written % 5 == 0:
            progress(f"scale data: {written} files written")
    return [str(p) for p, _, _ in jobs[:-1]], str(jobs[-1][0]), written


def read_parquet_files(paths, columns=None):
    """The Parquet files ``paths`` as one pandas DataFrame, in the order given."""
    import pyarrow.parquet as pq

    return pq.read_table(list(paths), columns=columns).to_pandas()


def files_bytes(paths):
    return sum(os.path.getsize(p) for p in paths)


# ------------------------------------------------------------------------------ models


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


# ------------------------------------------------------------------- local cells (child)


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


def step(name):
    print(f"STEP {name}", flush=True)


def run_cell(spec):
    """Read, fit, predict one local model; print the result as one JSON line. Under
    ``limit_gib`` a failure is a result too: the step and the error."""
    state = {"step": "start"}
    limit = spec.get("limit_gib") or 0
    if limit > 0:
        size = int(limit * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    def at(name):
        state["step"] = name
        step(name)

    try:
        at("importing")
        import pandas  # noqa: F401
        import pyarrow.parquet  # noqa: F401

        import quercus  # noqa: F401

        model = spec["model"]
        if spec.get("warmup"):
            at("warm-up")
            quercus_local_warmup(model, N_FEATURES)
        vm_before_read = proc_status_kb("VmSize")
        at("reading")
        start = time.perf_counter()
        frame = read_parquet_files(spec["train"])
        read_s = time.perf_counter() - start
        read_peak_kb = proc_status_kb("VmHWM")
        y = frame.pop(TARGET).to_numpy()
        X = frame
        n_rows = len(y)
        est = local_forest(spec["trees"]) if model == "forest" else local_tree(model == "tree")
        at("fitting")
        gc.collect()
        peak_reset = reset_peak_rss()
        rss_before_kb = proc_status_kb("VmRSS")
        cpu_start = time.process_time()
        start = time.perf_counter()
        est.fit(X, y)
        fit_s = time.perf_counter() - start
        cpu_s = time.process_time() - cpu_start
        fit_peak_kb = proc_status_kb("VmHWM")
        del X, frame
        at("predicting")
        test = read_parquet_files([spec["test"]])
        y_test = test.pop(TARGET).to_numpy()
        start = time.perf_counter()
        y_pred = est.predict(test)
        predict_s = time.perf_counter() - start
        if spec.get("save_predictions"):
            np.save(spec["save_predictions"], np.asarray(y_pred))
        result = {
            "ok": True,
            "rows": n_rows,
            "read_s": read_s,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "accuracy": float(np.mean(np.asarray(y_pred) == y_test)),
            "leaves": count_leaves("quercus", est),
            "fit_rise_mib": mib(fit_peak_kb - rss_before_kb),
            "process_peak_mib": mib(max(read_peak_kb, fit_peak_kb)),
            "peak_reset": peak_reset,
            "cpu_per_wall": cpu_s / fit_s if fit_s > 0 else None,
            "vm_before_read_mib": mib(vm_before_read),
        }
    except BaseException as exc:  # MemoryError under the limit is the expected answer
        if limit <= 0:
            raise
        result = {
            "ok": False,
            "failed_step": state["step"],
            "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:120]}",
            "vm_size_mib": mib(proc_status_kb("VmSize")),
            "vm_before_read_mib": mib(vm_before_read) if "vm_before_read" in locals() else None,
        }
    print(json.dumps(result), flush=True)


def run_cell_in_subprocess(spec, timeout):
    """Run one local cell in a fresh interpreter: its result dict, or {"error": ...}."""
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", json.dumps(spec)]
    ran = run_json(cmd, timeout)
    if ran.timed_out:
        return {"error": f"timeout after {timeout:g} s", "step": last_step(ran.stdout)}
    if ran.result is not None:
        return ran.result
    sys.stderr.write(stderr_tail(ran, 15))
    out_of_memory = ("MemoryError", "bad_alloc", "Cannot allocate memory")
    if ran.returncode == -9 or any(s in ran.stderr for s in out_of_memory):
        reason = "out of memory"
    else:
        reason = last_error_line(ran)[:100]
    return {"error": reason, "step": last_step(ran.stdout), "returncode": ran.returncode}


def last_step(stdout):
    steps = [ln[5:] for ln in (stdout or "").splitlines() if ln.startswith("STEP ")]
    return steps[-1] if steps else None


# ------------------------------------------------------------------------ the clusters


def worker_output_plugin():
    """A WorkerPlugin that points the worker process's stdout (file descriptor 1) at its
    stderr."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class StdoutToStderr(WorkerPlugin):
        def setup(self, worker):
            sys.stdout.flush()
            os.dup2(2, 1)

    return StdoutToStderr()


# The modules a peer's tasks use on the workers, imported there before its timed fit and
# predict (quercus's are imported by its warm-up).
PEER_MODULES = {"lightgbm": ("lightgbm", "lightgbm.dask"), "xgboost": ("xgboost", "xgboost.dask")}


def preload(cluster, kind):
    import importlib

    for module in PEER_MODULES.get(kind, ()):
        cluster.client.run(importlib.import_module, module)


class LogCapture(logging.Handler):
    """Keeps the WARNING and ERROR messages of Dask's loggers (a nanny restarting a worker
    at its memory limit says so at WARNING)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(f"{record.name}: {record.getMessage()}")


class Cluster:
    """A LocalCluster of ``n_workers`` one-thread worker processes, its Client, what its
    loggers said, and whether quercus's kernels are warm on its current workers."""

    def __init__(self, n_workers, memory_limit):
        import dask

        dask.config.set(
            {
                "distributed.scheduler.allowed-failures": 0,
                # No squashing of Parquet partitions whose columns were projected away: it
                # would give y (1 column) fewer partitions than X (20), which LightGBM and
                # XGBoost refuse (LightGBM issue #6920); one partition per file for all.
                "optimization.tune.active": False,
            }
        )
        self.n_workers = n_workers
        self.memory_limit = memory_limit
        self.log = LogCapture()
        for name in logger_names:
            logging.getLogger(name).addHandler(self.log)
        self.warm = None  # the workers on which quercus's kernels are compiled
        self._start()

    def _start(self):
        from distributed import Client, LocalCluster

        progress(f"starting a LocalCluster of {self.n_workers} workers, {self.memory_limit} each")
        self.cluster = LocalCluster(
            n_workers=self.n_workers,
            threads_per_worker=1,
            memory_limit=self.memory_limit,
            processes=True,
            dashboard_address="127.0.0.1:0",
        )
        self.client = Client(self.cluster)
        self.client.wait_for_workers(self.n_workers, timeout=RESTART_TIMEOUT_S)
        self.fresh = True  # no row has run on these workers yet
        # What the workers print (LightGBM's C library logs to stdout) goes to stderr, so
        # that stdout holds only the tables; a plugin, so that new workers do it too.
        self.client.register_plugin(worker_output_plugin(), name="stdout-to-stderr")

    def _stop(self):
        for closing in (self.client, self.cluster):
            try:
                closing.close(timeout=RESTART_TIMEOUT_S)
            except Exception as exc:
                progress(f"closing {type(closing).__name__}: {exc!r}")

    def workers(self):
        return frozenset(self.client.scheduler_info()["workers"])

    def close(self):
        for name in logger_names:
            logging.getLogger(name).removeHandler(self.log)
        self._stop()

    def restart(self):
        """Fresh worker processes: the workers are killed (SIGKILL: a worker that ran LightGBM
        can take minutes to close, and `client.restart` then times out) and a new
        LocalCluster of the same configuration is started."""
        progress("fresh workers: a new LocalCluster")
        for nanny in list(self.cluster.workers.values()):
            try:
                if nanny.pid:
                    os.kill(nanny.pid, signal.SIGKILL)
            except (OSError, AttributeError):
                pass
        self._stop()
        self._start()

    def warm_up(self, forest):
        """Compile quercus's kernels on the client and on the current workers: the tree's,
        and the forest's too if ``forest``."""
        workers = self.workers()
        if self.warm is None or self.warm[0] != workers:
            self.warm = (workers, set())
        wanted = ["tree", "forest"] if forest else ["tree"]
        missing = [model for model in wanted if model not in self.warm[1]]
        if not missing:
            return
        import dask.dataframe as dd

        import quercus.dask as qdask

        progress(f"warming up quercus's kernels on the cluster ({', '.join(missing)})")
        start = time.perf_counter()
        rng = np.random.default_rng(1)
        X = rng.standard_normal((WARMUP_ROWS, N_FEATURES))
        frame = dd.from_pandas(as_frame(X, X[:, 0] + X[:, 1] > 0), npartitions=2)
        Xd, yd = frame[FEATURES], frame[TARGET]
        for model in missing:
            for subtree_bytes in (None, 0):
                extra = {} if subtree_bytes is None else {"subtree_bytes": 0}
                if model == "tree":
                    est = qdask.DaskDecisionTreeClassifier(
                        criterion="gini",
                        nominal_split="binary",
                        max_bins=DASK_WARMUP_BINS,
                        random_state=SEED,
                        client=self.client,
                        **extra,
                    )
                else:
                    est = qdask.DaskRandomForestClassifier(
                        n_estimators=WARMUP_TREES,
                        max_bins=DASK_WARMUP_BINS,
                        random_state=SEED,
                        client=self.client,
                        **extra,
                    )
                est.fit(Xd, yd)
                est.predict(Xd).compute()
            self.warm[1].add(model)
        progress(f"warm-up done in {time.perf_counter() - start:.1f} s")


def persisted_frame(client, frame_pd, n_parts=2):
    """A pandas frame as a Dask DataFrame of ``n_parts`` partitions held by the workers."""
    import dask.dataframe as dd

    from distributed import wait

    frame = client.persist(dd.from_pandas(frame_pd, npartitions=n_parts))
    wait(frame)
    return frame


class Watchdog:
    """Restarts the workers if the block takes more than ``seconds``: the fit running in the
    block then fails, and ``fired`` says why."""

    def __init__(self, cluster, seconds):
        self.cluster = cluster
        self.seconds = seconds
        self.fired = False
        self.paused = False  # a worker was paused (memory over Dask's 80%) when time ran out
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True

    def _fire(self):
        self.fired = True
        progress(f"time limit of {self.seconds:g} s reached")
        try:
            workers = self.cluster.client.scheduler_info()["workers"].values()
            self.paused = any(str(w.get("status", "")).endswith("paused") for w in workers)
        except Exception:
            self.paused = False
        self.cluster.restart()

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        if self.fired:
            self.timer.join()
        return False


def failure_reason(cluster, exc, since, watchdog):
    said = cluster.log.messages[since:]
    if watchdog.fired:
        why = f" (a worker paused at 80% of its {cluster.memory_limit})" if watchdog.paused else ""
        return f"timeout after {watchdog.seconds:g} s{why}"
    killed = [m for m in said if "memory budget" in m]
    if killed:
        return f"worker killed at 95% of its {cluster.memory_limit} memory limit"
    died = [m for m in said if "died" in m or "KilledWorker" in m]
    if died or type(exc).__name__ == "KilledWorker":
        return "a worker died (" + type(exc).__name__ + ")"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:100]}"


def dask_fit(cluster, kind, make_est, X, y, timeout, test=None, quercus_forest=False):
    """Fit one Dask estimator on fresh workers of the cluster and time it; predict ``test`` =
    (X_test frame, y_test) if given. The result dict; "error" says why a fit failed."""
    # Fresh worker processes for every row: LightGBM and XGBoost keep much of what they
    # allocated (after XGBoost's tree of 200k rows a worker held 1.6 of its 2 GiB, past
    # Dask's 80% pause threshold), which would count against the next model, and a worker
    # that has fitted before starts from a larger RSS, which hides part of the next rise.
    if not cluster.fresh:
        cluster.restart()
    cluster.fresh = False
    preload(cluster, kind)
    since = len(cluster.log.messages)
    if kind == "quercus":
        with Watchdog(cluster, SETUP_TIMEOUT_S) as watchdog:
            try:
                cluster.warm_up(quercus_forest)
            except Exception as exc:
                error = "warm-up failed: " + failure_reason(cluster, exc, since, watchdog)
                progress(error)
                return {"error": error}
    client = cluster.client
    est = make_est(client)
    if kind == "xgboost":
        est.client = client
    gc.collect()
    before = client.run(worker_reset)
    client_reset = reset_peak_rss()
    client_before_kb = proc_status_kb("VmRSS")
    since = len(cluster.log.messages)
    result = {}
    with Watchdog(cluster, timeout) as watchdog:
        try:
            with contextlib.redirect_stdout(sys.stderr):  # lightgbm.dask prints its progress
                start = time.perf_counter()
                est.fit(X, y)
                result["fit_s"] = time.perf_counter() - start
        except Exception as exc:
            result["error"] = failure_reason(cluster, exc, since, watchdog)
    if "error" in result:
        progress(f"failed: {result['error']}")
        return result
    client_peak_kb = proc_status_kb("VmHWM")
    try:
        after = client.run(worker_peak)
        rises = {w: mib(after[w] - before[w]["rss_kb"]) for w in before if w in after}
    except Exception as exc:
        progress(f"worker peaks not read: {exc!r}")
        rises = {}
    result.update(
        worker_mib=rises,
        peak_reset=all(b["reset"] for b in before.values()) and client_reset,
        client_mib=max(0.0, mib(client_peak_kb - client_before_kb)),
        leaves=count_leaves(kind, est),
        levels=list(getattr(est, "levels_", []) or []),
        partitions=int(X.npartitions),
    )
    if test is not None:
        X_test, y_test = test
        # A peer predicts on fresh workers: after LightGBM's forest a worker still held 1.7
        # of its 2 GiB, was paused by Dask (80%) and never ran a prediction task.
        if kind != "quercus":
            cluster.restart()
            cluster.fresh = False
            preload(cluster, kind)
            est.client = cluster.client  # the new cluster's
        since = len(cluster.log.messages)
        with Watchdog(cluster, timeout) as watchdog:
            try:
                frame = persisted_frame(cluster.client, X_test)
                with contextlib.redirect_stdout(sys.stderr):
                    start = time.perf_counter()
                    y_pred = np.asarray(est.predict(frame).compute())
                    result["predict_s"] = time.perf_counter() - start
                result["accuracy"] = float(np.mean(y_pred == y_test))
                result["y_pred"] = y_pred
                del frame
            except Exception as exc:
                result["predict_error"] = failure_reason(cluster, exc, since, watchdog)
                progress(f"predict failed: {result['predict_error']}")
    del est
    return result


def cluster_levels(levels):
    """Levels split on the cluster, largest histogram bytes of a level, their sum."""
    on_cluster = [lv for lv in levels if lv.nodes > 0]
    largest = max((lv.histogram_bytes for lv in levels), default=0)
    return len(on_cluster), largest, sum(lv.histogram_bytes for lv in levels)


def outcome(result):
    if "error" in result:
        return "failed: " + result["error"]
    text = f"fit {result['fit_s']:.2f} s"
    if "accuracy" in result:
        text += f", accuracy {result['accuracy']:.4f}"
    if result.get("worker_mib"):
        text += ", worker peaks " + "/".join(f"{v:.0f}" for v in result["worker_mib"].values())
        text += f" MiB, client {result['client_mib']:.0f} MiB"
    elif "fit_rise_mib" in result:
        text += f", peak {result['fit_rise_mib']:.0f} MiB"
    if result.get("leaves") is not None:
        text += f", {result['leaves']:,} leaves"
    return text


# ------------------------------------------------------------------- part "compare"


def compare_part(args, data_root):
    import dask.dataframe as dd
    import lightgbm.dask as lgbd
    import xgboost.dask as xgbd

    import quercus.dask as qdask

    n_rows = QUICK_COMPARE_ROWS if args.quick else args.compare_rows
    n_trees = args.trees if args.trees is not None else QUICK_TREES if args.quick else N_TREES
    depth = args.levelwise_depth
    progress(f"compare: making {n_rows:,} rows")
    X_train, X_test, y_train, y_test = compare_data(n_rows)
    n_train = len(y_train)
    directory = data_root / f"compare-{n_rows}"
    train_files, test_file = write_compare_data(
        directory, X_train, y_train, X_test, y_test, COMPARE_FILES
    )
    del X_train, y_train
    gc.collect()
    test_frame = as_frame(X_test, y_test)[FEATURES]
    y_test = np.asarray(y_test, dtype=np.int64)
    del X_test

    # Local quercus, each in its own process, before the cluster is started.
    local = {}
    for model in ("tree", "forest"):
        progress(f"compare: local quercus {model} ...")
        spec = {
            "model": model,
            "trees": n_trees,
            "train": train_files,
            "test": test_file,
            "warmup": True,
            "save_predictions": str(directory / f"local-{model}.npy"),
        }
        result = run_cell_in_subprocess(spec, args.timeout)
        if result.get("ok"):
            result["y_pred"] = np.load(spec["save_predictions"])
        local[model] = result
        progress(f"compare: local quercus {model}: {outcome(result)}")

    cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
    try:
        frame = dd.read_parquet(str(directory / "train"))
        X, y = frame[FEATURES], frame[TARGET]
        test = (test_frame, y_test)
        tree_defaults = {
            "criterion": "gini",
            "nominal_split": "binary",
            "max_bins": "auto",
            "random_state": SEED,
        }
        tree_rows = [
            (
                "quercus.dask DaskDecisionTreeClassifier (subtree_bytes 64 MiB, default)",
                "quercus",
                lambda client: qdask.DaskDecisionTreeClassifier(client=client, **tree_defaults),
            ),
            (
                f"quercus.dask DaskDecisionTreeClassifier (subtree_bytes=0, max_depth={depth})",
                "quercus",
                lambda client: qdask.DaskDecisionTreeClassifier(
                    client=client,
                    subtree_bytes=0,
                    max_depth=depth,
                    **tree_defaults,
                ),
            ),
            (
                "lightgbm.dask DaskLGBMClassifier, 1 iteration",
                "lightgbm",
                lambda client: lgbd.DaskLGBMClassifier(client=client, **lgbm_tree_params(n_train)),
            ),
            (
                "lightgbm.dask DaskLGBMClassifier, 1 iteration, num_leaves <= "
                f"{LGBM_DASK_LEAVES:,}",
                "lightgbm",
                lambda client: lgbd.DaskLGBMClassifier(
                    client=client, **lgbm_tree_params(n_train, LGBM_DASK_LEAVES)
                ),
            ),
            (
                "xgboost.dask DaskXGBClassifier, 1 iteration, lossguide",
                "xgboost",
                lambda client: xgbd.DaskXGBClassifier(**XGB_TREE_PARAMS),
            ),
        ]
        forest_rows = [
            (
                f"quercus.dask DaskRandomForestClassifier ({n_trees} trees)",
                "quercus",
                lambda client: qdask.DaskRandomForestClassifier(
                    n_estimators=n_trees, random_state=SEED, client=client
                ),
            ),
            (
                f"lightgbm.dask DaskLGBMClassifier rf ({n_trees} trees)",
                "lightgbm",
                lambda client: lgbd.DaskLGBMClassifier(
                    client=client, **lgbm_rf_params(n_train, n_trees)
                ),
            ),
            (
                f"lightgbm.dask DaskLGBMClassifier rf ({n_trees} trees, num_leaves <= "
                f"{LGBM_DASK_LEAVES:,})",
                "lightgbm",
                lambda client: lgbd.DaskLGBMClassifier(
                    client=client, **lgbm_rf_params(n_train, n_trees, LGBM_DASK_LEAVES)
                ),
            ),
            (
                f"xgboost.dask DaskXGBRFClassifier ({n_trees} trees, depthwise, no depth limit)",
                "xgboost",
                lambda client: xgbd.DaskXGBRFClassifier(**xgb_rf_params(n_trees)),
            ),
        ]
        results = {}
        for label, kind, make in [*tree_rows, *forest_rows]:
            progress(f"compare: {label} ...")
            forest = "Forest" in label
            results[label] = dask_fit(
                cluster, kind, make, X, y, args.timeout, test, quercus_forest=forest
            )
            progress(f"compare: {label}: {outcome(results[label])}")
    finally:
        cluster.close()

    header = [
        "model",
        "fit s",
        "predict s",
        "test accuracy",
        "leaves",
        "peak MiB per worker",
        "client MiB",
        "levels on the cluster",
        "largest level histograms",
    ]
    tables = [
        ("One deep tree", "tree", "quercus DecisionTreeClassifier (local, 1 process)", tree_rows),
        (
            f"A forest of {n_trees} trees",
            "forest",
            f"quercus RandomForestClassifier ({n_trees} trees, local, 1 process, n_jobs=2)",
            forest_rows,
        ),
    ]
    print(
        f"## Part compare: {n_train:,} x {N_FEATURES} on {COMPARE_WORKERS} workers of "
        f"{WORKER_MEMORY}\n"
    )
    print(
        f"Training rows: {n_train:,} in {COMPARE_FILES} Parquet files "
        f"({fmt_bytes(files_bytes(train_files))} on disk); test rows: {len(y_test):,}.\n"
    )
    for title, model, local_label, rows in tables:
        table = [local_row(local_label, local[model])]
        table += [dask_row(label, results[label]) for label, _, _ in rows]
        print(f"### {title}\n")
        print(markdown_table(header, table))
        print()
        for line in compare_notes(local[model], rows, results, y_test):
            print(line)
        print()
    print(
        "fit s: wall time of `fit`; for the Dask rows it includes reading the Parquet files "
        "with dask.dataframe. predict s: the test rows, on the cluster as a persisted Dask "
        "DataFrame of 2 partitions for the Dask rows, in memory for the local ones."
    )
    print(
        "peak MiB per worker: the largest rise of a worker's RSS during fit (VmHWM after "
        "minus VmRSS before, peak mark reset before); local rows: the rise of their own "
        "process. client MiB: the same for this process, the Dask client."
    )
    print(
        "levels on the cluster: levels split over all partitions (`levels_`); largest level "
        "histograms: the most bytes of histograms one partition sent for one level."
    )
    print()


def local_row(label, result):
    if not result.get("ok"):
        why = result.get("error", "?")
        return [label, f"failed: {why}", "", "", "", "", "", "", ""]
    return [
        label,
        f"{result['fit_s']:.2f}",
        f"{result['predict_s']:.3f}",
        f"{result['accuracy']:.4f}",
        fmt_int(result["leaves"]),
        f"{result['fit_rise_mib']:.0f}" + ("" if result["peak_reset"] else "*"),
        "",
        "",
        "",
    ]


def dask_row(label, result):
    if "error" in result:
        return [label, "failed: " + result["error"], "", "", "", "", "", "", ""]
    worker = max(result["worker_mib"].values()) if result["worker_mib"] else None
    levels, largest = "", ""
    if result["levels"]:
        n_levels, biggest, _ = cluster_levels(result["levels"])
        levels, largest = str(n_levels), fmt_bytes(biggest) if biggest else ""
    elif "quercus" in label:
        levels, largest = "0", ""
    if "predict_error" in result:
        predict, accuracy = "failed: " + result["predict_error"], ""
    else:
        predict, accuracy = f"{result['predict_s']:.3f}", f"{result['accuracy']:.4f}"
    return [
        label,
        f"{result['fit_s']:.2f}",
        predict,
        accuracy,
        fmt_int(result["leaves"]),
        "?" if worker is None else f"{worker:.0f}" + ("" if result["peak_reset"] else "*"),
        f"{result['client_mib']:.0f}",
        levels,
        largest,
    ]


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "?"


def compare_notes(local, rows, results, y_test):
    """The lines under a compare table: the local read, the ratios, the predictions."""
    lines = []
    quercus_label = rows[0][0]
    q = results[quercus_label]
    if local.get("ok"):
        lines.append(
            f"- Local quercus read the {COMPARE_FILES} Parquet files with pyarrow/pandas in "
            f"{local['read_s']:.2f} s (not in its fit s); its fit kept "
            f"{local['cpu_per_wall']:.2f} cores busy."
        )
    if "fit_s" not in q:
        lines.append("- quercus on Dask failed: no ratios.")
        return lines
    parts = []
    if local.get("ok"):
        parts.append(f"/ local quercus {ratio(q['fit_s'], local['fit_s'])}")
    for label, kind, _ in rows[1:]:
        if kind == "quercus":
            continue
        peer = results[label]
        name = "LightGBM on Dask" if kind == "lightgbm" else "XGBoost on Dask"
        if "num_leaves <=" in label:
            name += f" (num_leaves <= {LGBM_DASK_LEAVES:,})"
        value = ratio(q["fit_s"], peer["fit_s"]) if "fit_s" in peer else "n/a (it failed)"
        parts.append(f"/ {name} {value}")
    lines.append(
        "- Fit time of quercus on Dask (default subtree_bytes) " + ", ".join(parts) + " (below 1: "
        "quercus on Dask is faster)."
    )
    if local.get("ok") and "y_pred" in q:
        differ = int(np.sum(q["y_pred"] != local["y_pred"]))
        lines.append(
            f"- quercus on Dask and local quercus predict the {len(y_test):,} test rows "
            + (
                "identically."
                if differ == 0
                else f"differently on {differ:,} rows (the Dask fit's bins come from mergeable "
                "summaries, exact up to their capacity: beyond it its thresholds differ "
                "slightly from the local ones, and so do the deeper splits)."
            )
        )
    return lines


# --------------------------------------------------------------------- part "scale"


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


def scale_sizes(args):
    if args.quick:
        return QUICK_SCALE_ROWS, QUICK_SCALE_FILE_ROWS, QUICK_SCALE_TEST_ROWS
    return args.scale_rows, SCALE_FILE_ROWS, SCALE_TEST_ROWS


def scale_files(args, data_root, n_rows):
    """The first files of the scale data holding ``n_rows`` rows (written where missing)."""
    _, file_rows, test_rows = scale_sizes(args)
    n_files = -(-n_rows // file_rows)
    directory = data_root / f"scale-{file_rows}"
    start = time.perf_counter()
    train, test, written = ensure_scale_data(directory, n_files, file_rows, test_rows)
    took = time.perf_counter() - start
    reused = n_files + 1 - written
    progress(f"scale data: {written} files written, {reused} reused ({took:.1f} s)")
    return train, test, written, reused


def scale_part(args, data_root):
    import dask.dataframe as dd

    import quercus.dask as qdask

    n_rows, file_rows, _ = scale_sizes(args)
    train, test_file, written, reused = scale_files(args, data_root, n_rows)
    n_files = len(train)
    n_rows = n_files * file_rows  # whole files
    disk = files_bytes(train)
    memory = n_rows * N_FEATURES * 8
    test = read_parquet_files([test_file])
    y_test = test.pop(TARGET).to_numpy()
    test_frame = test[FEATURES]
    subtree_bytes = quick_subtree_bytes(args, n_rows, SCALE_ROWS)

    cluster = Cluster(COMPARE_WORKERS, WORKER_MEMORY)
    try:
        frame = dd.read_parquet(str(Path(train[0]).parent))
        X, y = frame[FEATURES], frame[TARGET]

        def make(client):
            return qdask.DaskDecisionTreeClassifier(
                criterion="gini",
                max_bins="auto",
                random_state=SEED,
                subtree_bytes=subtree_bytes,
                client=client,
            )

        progress(f"scale: Dask fit on {n_rows:,} rows ...")
        dask_result = dask_fit(cluster, "quercus", make, X, y, args.timeout, (test_frame, y_test))
        progress(f"scale: Dask fit: {outcome(dask_result)}")
    finally:
        cluster.close()

    cells = []
    spec = {"model": "scale-tree", "train": train, "test": test_file, "warmup": False}
    progress(f"scale: local fit of {n_rows:,} rows under {LOCAL_LIMIT_GIB:g} GiB ...")
    limited = run_cell_in_subprocess({**spec, "limit_gib": LOCAL_LIMIT_GIB}, args.timeout)
    progress(f"scale: local fit under the limit: {limited}")
    cells.append(
        (f"local quercus, {n_rows:,} rows, address space <= {LOCAL_LIMIT_GIB:g} GiB", limited)
    )
    if args.local_20m:
        progress(f"scale: local fit of {n_rows:,} rows without a limit ...")
        unlimited = run_cell_in_subprocess({**spec, "warmup": True}, args.timeout)
        progress(f"scale: local fit without a limit: {outcome(unlimited)}")
        cells.append((f"local quercus, {n_rows:,} rows, no limit", unlimited))
    sample_rows = SAMPLE_FILES * file_rows
    progress(f"scale: local fit on the first {sample_rows:,} rows ...")
    sample = run_cell_in_subprocess(
        {**spec, "train": train[:SAMPLE_FILES], "warmup": True}, args.timeout
    )
    progress(f"scale: local fit on a sample: {outcome(sample)}")
    cells.append((f"local quercus, first {sample_rows:,} rows (sample)", sample))

    print(
        f"## Part scale: {n_rows:,} x {N_FEATURES} on {COMPARE_WORKERS} workers of "
        f"{WORKER_MEMORY}\n"
    )
    print(
        f"Data: {n_files} Parquet files of {file_rows:,} rows ({written} written by this run, "
        f"{reused} reused, test file included): {fmt_bytes(disk)} on disk; the float64 "
        f"features take {n_rows:,} x {N_FEATURES} x 8 = {fmt_bytes(memory)} in memory. "
        f"Test rows: {len(y_test):,}.\n"
    )
    print(
        "The Dask tree: `DaskDecisionTreeClassifier(criterion='gini', max_bins='auto', "
        f"random_state=0)`, subtree_bytes {subtree_text(subtree_bytes)}.\n"
    )
    header = [
        "fit",
        "read s",
        "fit s",
        "test accuracy",
        "leaves",
        "peak MiB",
        "result",
    ]
    rows = [scale_dask_row(n_rows, dask_result)]
    rows += [scale_local_row(label, r) for label, r in cells]
    print(markdown_table(header, rows))
    print()
    print(
        "peak MiB: Dask row: each worker's rise of RSS during fit (and the client's); local "
        "rows: the rise of the process's RSS during fit, and in brackets the peak RSS of the "
        "whole process (reading included)."
    )
    print(
        f"The limited row: `resource.setrlimit(RLIMIT_AS, {LOCAL_LIMIT_GIB:g} GiB)` at the start "
        "of its process; VmSize is its address space when the reading began (imports, thread "
        "pools and malloc arenas: reserved, mostly not resident)."
    )
    print()
    if "levels" in dask_result:
        print("### Levels of the Dask fit (`levels_`)\n")
        print(markdown_table(*levels_table(dask_result["levels"], dask_result["partitions"])))
        print()
        print(
            "nodes: split over all partitions at that level; histograms per partition: "
            "`LevelCost.histogram_bytes`, what each partition sends up the reduction; bytes "
            "reduced: that times the partitions; subtrees: nodes small enough (<= "
            "subtree_bytes) gathered to one worker and grown there, and their rows; seconds: "
            "the level's wall time, subtrees included."
        )
        print()


def scale_dask_row(n_rows, result):
    label = f"quercus.dask on {COMPARE_WORKERS} workers, {n_rows:,} rows"
    if "error" in result:
        return [label, "", "", "", "", "", "failed: " + result["error"]]
    workers = " / ".join(f"{v:.0f}" for v in sorted(result["worker_mib"].values()))
    accuracy = f"{result['accuracy']:.4f}" if "accuracy" in result else ""
    done = "ok" if "predict_error" not in result else "predict failed: " + result["predict_error"]
    return [
        label,
        "(in fit)",
        f"{result['fit_s']:.2f}",
        accuracy,
        fmt_int(result["leaves"]),
        f"workers {workers}; client {result['client_mib']:.0f}",
        done,
    ]


def scale_local_row(label, result):
    if result.get("ok"):
        peak = f"{result['fit_rise_mib']:.0f} ({result['process_peak_mib']:.0f})"
        return [
            label,
            f"{result['read_s']:.2f}",
            f"{result['fit_s']:.2f}",
            f"{result['accuracy']:.4f}",
            fmt_int(result["leaves"]),
            peak,
            "ok",
        ]
    if "failed_step" in result:
        vm = result.get("vm_before_read_mib")
        where = f" (VmSize {vm:.0f} MiB when reading began)" if vm else ""
        text = f"failed while {result['failed_step']}: {result['error']}{where}"
    else:
        text = f"failed while {result.get('step') or '?'}: {result.get('error')}"
    return [label, "", "", "", "", "", text]


def levels_table(levels, partitions):
    header = [
        "level",
        "nodes",
        "histograms per partition",
        f"x {partitions} partitions = bytes reduced",
        "subtrees",
        "subtree rows",
        "seconds",
    ]
    rows = [
        [
            lv.level,
            fmt_int(lv.nodes),
            fmt_bytes(lv.histogram_bytes),
            fmt_bytes(lv.histogram_bytes * partitions),
            fmt_int(lv.subtrees),
            fmt_int(lv.subtree_rows),
            f"{lv.seconds:.2f}",
        ]
        for lv in levels
    ]
    return header, rows


# ------------------------------------------------------------------- part "workers"


def workers_part(args, data_root):
    import dask.dataframe as dd

    import quercus.dask as qdask

    n_rows = QUICK_WORKERS_ROWS if args.quick else args.workers_rows
    _, file_rows, _ = scale_sizes(args)
    train, _, _, _ = scale_files(args, data_root, n_rows)
    n_rows = len(train) * file_rows  # whole files
    half = train[: max(1, len(train) // 2)]
    half_rows = len(half) * file_rows
    subtree_bytes = quick_subtree_bytes(args, n_rows, WORKERS_ROWS)

    def config(label, n_workers, files, features, max_depth):
        return {
            "label": label,
            "workers": n_workers,
            "files": files,
            "features": features,
            "max_depth": max_depth,
        }

    base = f"{n_rows:,} x {N_FEATURES}"
    configs = {1: [], 2: [], 4: []}
    for n in WORKER_COUNTS:
        configs[n].append(
            config(f"{n} worker{'s' if n > 1 else ''}, {base}", n, train, FEATURES, None)
        )
    configs[2] += [
        config(
            f"2 workers, {n_rows:,} x {WORKERS_FEATURES}",
            2,
            train,
            FEATURES[:WORKERS_FEATURES],
            None,
        ),
        *[
            config(f"2 workers, {base}, max_depth={d}", 2, train, FEATURES, d)
            for d in WORKERS_DEPTHS
        ],
        config(f"2 workers, {half_rows:,} x {N_FEATURES}", 2, half, FEATURES, None),
    ]
    results = {}
    for n_workers in WORKER_COUNTS:
        cluster = Cluster(n_workers, WORKERS_MEMORY)
        try:
            for c in configs[n_workers]:
                frame = dd.read_parquet(list(c["files"]))
                X, y = frame[c["features"]], frame[TARGET]

                def make(client, c=c):
                    return qdask.DaskDecisionTreeClassifier(
                        criterion="gini",
                        max_bins="auto",
                        max_depth=c["max_depth"],
                        random_state=SEED,
                        subtree_bytes=subtree_bytes,
                        client=client,
                    )

                progress(f"workers: {c['label']} ...")
                results[c["label"]] = dask_fit(cluster, "quercus", make, X, y, args.timeout)
                progress(f"workers: {c['label']}: {outcome(results[c['label']])}")
        finally:
            cluster.close()

    print(f"## Part workers: how the cost grows ({n_rows:,} rows, workers of {WORKERS_MEMORY})\n")
    header = [
        "configuration",
        "fit s",
        "levels on the cluster",
        "histogram bytes reduced",
        "subtrees",
        "subtree rows",
        "leaves",
        "peak MiB per worker",
    ]
    rows = []
    for n_workers in WORKER_COUNTS:
        for c in configs[n_workers][:1]:
            rows.append(workers_row(c["label"], results[c["label"]]))
    for c in configs[2][1:]:
        rows.append(workers_row(c["label"], results[c["label"]]))
    print(markdown_table(header, rows))
    print()
    print(
        "The tree: `DaskDecisionTreeClassifier(criterion='gini', max_bins='auto', "
        f"random_state=0)`, subtree_bytes {subtree_text(subtree_bytes)}, on the first files "
        "of the scale data (one "
        f"partition per file of {file_rows:,} rows). histogram bytes reduced: the sum over "
        "the levels of `histogram_bytes` x partitions. subtrees: nodes gathered to one worker "
        "and grown there, over all levels, and their rows."
    )
    print(
        f"The machine has {os.cpu_count()} cores: with 4 workers of one thread each, two "
        "share a core."
    )
    print()


def workers_row(label, result):
    if "error" in result:
        return [label, "failed: " + result["error"], "", "", "", "", "", ""]
    levels = result["levels"]
    n_levels, _, _ = cluster_levels(levels)
    reduced = sum(lv.histogram_bytes for lv in levels) * result["partitions"]
    worker = max(result["worker_mib"].values()) if result["worker_mib"] else None
    return [
        label,
        f"{result['fit_s']:.2f}",
        str(n_levels),
        fmt_bytes(reduced),
        fmt_int(sum(lv.subtrees for lv in levels)),
        fmt_int(sum(lv.subtree_rows for lv in levels)),
        fmt_int(result["leaves"]),
        "?" if worker is None else f"{worker:.0f}",
    ]


# ------------------------------------------------------------------------------ driver


def print_header(args, data_root):
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    libs = [
        "dask",
        "distributed",
        "lightgbm",
        "xgboost",
        "numpy",
        "pandas",
        "pyarrow",
        "numba",
        "scikit-learn",
    ]
    print("# Dask benchmark: quercus.dask, local quercus, LightGBM and XGBoost on Dask\n")
    print(f"- machine: {cores} cores ({usable} usable by this process), {cpu_model()}")
    print(f"- Python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"- quercus {quercus_version()}")
    print("- versions: " + ", ".join(f"{lib} {version(lib)}" for lib in libs))
    print(
        "- clusters: LocalCluster, worker processes of 1 thread; time limit per fit "
        f"{args.timeout:g} s; parts: {', '.join(args.parts)}"
        + ("; --quick (tiny sizes: a smoke test)" if args.quick else "")
    )
    print(f"- data directory: {data_root}" + ("" if args.data_dir else " (temporary)"))
    print()


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="quercus.dask on a local Dask cluster beside local quercus, LightGBM and "
        "XGBoost on Dask (see the module docstring)."
    )
    parser.add_argument(
        "--part",
        default=",".join(PARTS),
        help=f"comma-separated parts to run, from: {','.join(PARTS)} (default: all)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: a smoke test of the harness"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the Parquet files are written (and the scale files reused); default: a "
        "temporary directory removed at the end",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=f"stop a fit after S seconds (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--compare-rows",
        type=int,
        default=COMPARE_ROWS,
        metavar="N",
        help=f"rows of the compare data before the 20%% test split (default {COMPARE_ROWS:,})",
    )
    parser.add_argument(
        "--scale-rows",
        type=int,
        default=SCALE_ROWS,
        metavar="N",
        help=f"training rows of the scale part (default {SCALE_ROWS:,}; files of "
        f"{SCALE_FILE_ROWS:,})",
    )
    parser.add_argument(
        "--trees",
        type=int,
        default=None,
        metavar="N",
        help=f"trees of the compare part's forests (default {N_TREES}; {QUICK_TREES} with --quick)",
    )
    parser.add_argument(
        "--levelwise-depth",
        type=int,
        default=LEVELWISE_MAX_DEPTH,
        metavar="D",
        help="max_depth of the compare part's tree with subtree_bytes=0 (default "
        f"{LEVELWISE_MAX_DEPTH})",
    )
    parser.add_argument(
        "--workers-rows",
        type=int,
        default=WORKERS_ROWS,
        metavar="N",
        help=f"training rows of the workers part (default {WORKERS_ROWS:,})",
    )
    parser.add_argument(
        "--local-20m",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also fit the scale data locally without a memory limit (default: on, off "
        "with --quick)",
    )
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: one local fit
    args = parser.parse_args(argv)
    args.parts = chosen(parser, "--part", args.part, PARTS)
    if args.local_20m is None:
        args.local_20m = not args.quick
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.cell:
        run_cell(json.loads(args.cell))
        return
    if args.data_dir is not None:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        data_root = args.data_dir.resolve()
    else:
        data_root = Path(tempfile.mkdtemp(prefix="quercus-dask-bench-"))
    started = time.perf_counter()
    try:
        print_header(args, data_root)
        for part, run in (
            ("compare", compare_part),
            ("scale", scale_part),
            ("workers", workers_part),
        ):
            if part in args.parts:
                run(args, data_root)
                sys.stdout.flush()
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_root, ignore_errors=True)
    progress(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
