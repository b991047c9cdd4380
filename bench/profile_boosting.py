"""Where the time of a booster's iteration goes, stage by stage.

Run from the repository root, on a quiet machine:

    .venv/bin/python bench/profile_boosting.py [--rows 1000000] [--iterations 20]
        [--threads 2] [--size clf2|clf7|reg]

The data are ``bench/boosting.py``'s (make_classification or make_regression, 20 features,
random_state 0, 20% held out: the fit sees 80% of ``--rows``) and so is the model (31
leaves, learning rate 0.1, 255 bins, no early stopping). One warm-up fit compiles the
kernels; then one fit of ``--iterations`` iterations runs with a wall-clock timer around
each stage of the loop (``ensemble/boosting.py``) and of the Newton learner
(``grow/newton.py``), by wrapping their functions and methods in this process only:

- the loop: the gradients and working targets (``retarget``), the trees' growth
  (``grow``), the leaves' steps, the scores' update (``add_scores``) and the training loss
  (``reduce``); the rest of the fit (binning, checks) is "outside the loop";
- within growth: the learner's set-up (each row's ``R`` and ``H`` in whole units) with the
  root's histograms, the split search of every leaf, the partitions of the rows with the
  smaller children's histograms (one task a thread), and the tree's records; the rest of
  growth is Python's
  best-first bookkeeping.

The stages nest as listed; each is shown per iteration (its total over the fit divided by
the iterations) and as a share of the fit. Times of work on several threads are wall
clock, not summed over the threads.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from boosting import WARMUP_ROWS, make_data  # noqa: E402

TIMES: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def timed(name: str, function):
    """``function`` with its wall-clock time added to ``TIMES[name]``."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMES[name] += time.perf_counter() - start
            CALLS[name] += 1

    return wrapper


def timed_generator(name: str, function):
    """A generator function with the time spent inside it added to ``TIMES[name]``."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        iterator = function(*args, **kwargs)
        while True:
            start = time.perf_counter()
            try:
                item = next(iterator)
            except StopIteration:
                TIMES[name] += time.perf_counter() - start
                return
            TIMES[name] += time.perf_counter() - start
            yield item

    return wrapper


# (label, depth): the rows of the table, in order.
STAGES = [
    ("fit", 0),
    ("retarget", 1),
    ("grow", 1),
    ("learner set-up, root's histograms", 2),
    ("split search", 2),
    ("partitions, children's histograms", 2),
    ("records", 2),
    ("leaf steps", 1),
    ("add_scores", 1),
    ("training loss", 1),
]


def instrument() -> None:
    from quercus.ensemble import boosting
    from quercus.grow import newton
    from quercus.grow.rows import LocalRows

    LocalRows.retarget = timed("retarget", LocalRows.retarget)
    LocalRows.grow = timed_generator("grow", LocalRows.grow)
    LocalRows.add_scores = timed("add_scores", LocalRows.add_scores)
    LocalRows.reduce = timed("training loss", LocalRows.reduce)
    boosting.leaf_steps = timed("leaf steps", boosting.leaf_steps)
    tree = newton.NewtonTree
    tree.__init__ = timed("learner set-up, root's histograms", tree.__init__)
    tree._search = timed("split search", tree._search)
    tree._partition = timed("partitions, children's histograms", tree._partition)
    tree._arrays = timed("records", tree._arrays)


def model(size: str, iterations: int, threads: int):
    import quercus

    name = "GradientBoostingRegressor" if size == "reg" else "GradientBoostingClassifier"
    return getattr(quercus, name)(
        max_iter=iterations,
        max_leaf_nodes=31,
        learning_rate=0.1,
        max_bins=255,
        early_stopping=False,
        n_jobs=threads,
        random_state=0,
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--size", choices=["clf2", "clf7", "reg"], default="clf2")
    args = parser.parse_args(argv)
    X_train, _, y_train, _ = make_data(args.size, args.rows)
    warm = model(args.size, 2, args.threads)  # compile, binning as a large fit bins too
    warm.fit(X_train[:WARMUP_ROWS], y_train[:WARMUP_ROWS])
    instrument()
    start = time.perf_counter()
    model(args.size, args.iterations, args.threads).fit(X_train, y_train)
    TIMES["fit"] = time.perf_counter() - start
    n = args.iterations
    print(
        f"{args.size}, {len(X_train):,} training rows x {X_train.shape[1]}, {n} iterations, "
        f"{args.threads} threads: fit {TIMES['fit']:.2f} s"
    )
    print()
    print("| stage | ms per iteration | share of the fit |")
    print("| --- | --- | --- |")
    in_loop = sum(TIMES[name] for name, depth in STAGES if depth == 1)
    in_grow = sum(TIMES[name] for name, depth in STAGES if depth == 2)
    rows = [(label, depth, TIMES[label]) for label, depth in STAGES]
    rows.insert(1, ("outside the loop", 1, TIMES["fit"] - in_loop))
    rows.insert(rows.index(("leaf steps", 1, TIMES["leaf steps"])), ("best-first bookkeeping", 2,
                TIMES["grow"] - in_grow))  # fmt: skip
    for label, depth, seconds in rows:
        indent = "&nbsp;&nbsp;" * 2 * depth
        print(f"| {indent}{label} | {1000 * seconds / n:.1f} | {seconds / TIMES['fit']:.1%} |")
    print()
    partitions = CALLS["partitions, children's histograms"] / n
    print(f"(calls per iteration: split searches {CALLS['split search'] / n:.0f}, "
          f"partitions {partitions:.0f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
