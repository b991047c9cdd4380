"""The Newton learner's histogram kernels alone, beside the plain kernel with and without
its prefetch, by the share of the rows a leaf holds.

Run from the repository root, on a quiet machine:

    .venv/bin/python bench/histogram_kernels.py [--rows 800000] [--features 20]

Random bin codes (255 bins, row-major and padded, as the learner holds them) and random
whole-unit sums; for each share of the rows (a sorted random subset, as a leaf's rows are),
each kernel sums the subset's histograms, best of 6 runs, after a pass over 64 MB that pushes
the data out of the caches (as an iteration's other passes do). Printed: ns a row.

- ``grouped``: ``add_rows_grouped``, the learner's kernel for a leaf's rows (rows gathered
  1,024 at a time, then summed four features at a time into histograms of 256 bins);
- ``columns``: ``add_columns``, the learner's kernel for the root when every row weighs
  (the rows themselves, feature by feature from the codes' columns; all rows only);
- ``rows``: ``add_rows``, the plain kernel (rows gathered 256 at a time, each asked for
  ``PREFETCH_ROWS`` rows ahead, all features of a row summed together; the learner's for
  codes of two bytes);
- ``rows, no prefetch``: the same without asking ahead (written here: the kernel before it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from quercus._config import njit  # noqa: E402
from quercus.grow._gradient_rows import (  # noqa: E402
    GATHER_ROWS,
    add_columns,
    add_rows,
    add_rows_grouped,
)

SHARES = [1, 2, 4, 8, 12, 20, 32, 50, 100]


@njit
def add_rows_no_prefetch(codes, rows, lo, hi, units, n_features, out):
    """``add_rows`` without asking for the rows ahead."""
    last = out.shape[1] - 1
    width = codes.shape[1]
    block_codes = np.empty((GATHER_ROWS, width), dtype=codes.dtype)
    block_units = np.empty((GATHER_ROWS, 2), dtype=np.int64)
    for start in range(lo, hi, GATHER_ROWS):
        m = min(start + GATHER_ROWS, hi) - start
        for i in range(m):
            r = rows[start + i]
            for k in range(width):
                block_codes[i, k] = codes[r, k]
            block_units[i, 0] = units[r, 0]
            block_units[i, 1] = units[r, 1]
        for i in range(m):
            g = block_units[i, 0]
            h = block_units[i, 1]
            for f in range(n_features):
                c = min(np.int64(block_codes[i, f]), last)
                out[f, c, 0] += g
                out[f, c, 1] += h
                out[f, c, 2] += 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=800_000)
    parser.add_argument("--features", type=int, default=20)
    args = parser.parse_args(argv)
    n, p = args.rows, args.features
    rng = np.random.default_rng(0)
    width = -(-p // 8) * 8  # padded to whole words, as the learner's codes are
    codes = np.zeros((n, width), dtype=np.uint8)
    codes[:, :p] = rng.integers(0, 255, (n, p))
    units = rng.integers(-(2**40), 2**40, (n, 2)).astype(np.int64)
    flush = np.ones(8_000_000)

    columns = np.ascontiguousarray(codes[:, :p].T)

    def by_columns(rows, out):
        if len(rows) < n:
            return False  # the rows themselves only
        add_columns(columns, 0, n, units, p, out)
        return True

    kernels = {
        "grouped": lambda rows, out: add_rows_grouped(codes, rows, 0, len(rows), units, p, out),
        "columns": by_columns,
        "rows": lambda rows, out: add_rows(codes, rows, 0, len(rows), units, p, out),
        "rows, no prefetch": lambda rows, out: add_rows_no_prefetch(
            codes, rows, 0, len(rows), units, p, out
        ),
    }
    print(f"{n:,} rows x {p} features; ns a row, best of 6\n")
    print("| leaf's share of the rows | " + " | ".join(kernels) + " |")
    print("| --- " * (len(kernels) + 1) + "|")
    for share in SHARES:
        rows = np.sort(rng.choice(n, n // share, replace=False)).astype(np.int64)
        cells = []
        reference = None
        for run in kernels.values():
            best = np.inf
            for _ in range(6):
                flush *= 1.0000001  # the data out of the caches
                out = np.zeros((p, 256, 3), dtype=np.int64)
                start = time.perf_counter()
                ran = run(rows, out) is not False
                best = min(best, time.perf_counter() - start)
            if not ran:
                cells.append("")
                continue
            if reference is None:
                reference = out.copy()
            elif not np.array_equal(out, reference):
                raise AssertionError("the kernels disagree")
            cells.append(f"{best * 1e9 / len(rows):.1f}")
        label = "all" if share == 1 else f"1 in {share}"
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
