"""The data of bench/dask_fit.py: the compare part's `make_classification` rows and the scale
generator's files (also read by the workers part), written as Parquet and read back. The
protocol is in bench/dask_protocol.md."""

import os
import shutil
import time
from pathlib import Path

import numpy as np
from dask_report import progress

N_FEATURES = 20
FEATURES = [f"f{j}" for j in range(N_FEATURES)]
TARGET = "y"
SEED = 0
TEST_SIZE = 0.2

# The scale data (the scale part's; the workers part reads its first files)
SCALE_ROWS = 20_000_000
SCALE_FILE_ROWS = 500_000
SCALE_TEST_ROWS = 250_000
SCALE_SEED = 2026
SCALE_FLIP = 0.05
GENERATOR_KEY = "quercus bench/dask_fit.py scale generator v1"

# --quick
QUICK_SCALE_ROWS = 400_000
QUICK_SCALE_FILE_ROWS = 50_000
QUICK_SCALE_TEST_ROWS = 25_000


# ---------------------------------------------------------------------- compare data


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


# ------------------------------------------------------------------------ scale data


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


def scale_sizes(args):
    """Training rows, rows per file and test rows of the scale data (--quick: tiny)."""
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


# ------------------------------------------------------------------------- reading


def read_parquet_files(paths, columns=None):
    """The Parquet files ``paths`` as one pandas DataFrame, in the order given."""
    import pyarrow.parquet as pq

    return pq.read_table(list(paths), columns=columns).to_pandas()


def files_bytes(paths):
    return sum(os.path.getsize(p) for p in paths)
