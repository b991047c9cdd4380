"""The first fit of every kind of model in a new process: seconds, and what Numba compiled.

Run with the Python of the install to measure (a fresh venv with a built wheel, or the
repository's .venv):

    python bench/first_fits.py [--rows-forest 100000]

It imports quercus, then fits and predicts one model of each kind in turn (a tree on a
1,000-row table with nominal, numeric and missing values, a random forest on 100,000 rows
of 20 numeric features, an oblique tree, a look-ahead tree, a model tree and C4.5's
rules), and prints one JSON line: ``{"import": s, "fits": {kind: s}, "compiled": {kind:
[kernel, ...]}}``. A kernel loaded from Numba's cache raises no compile event, so an
install whose kernels were prepared compiles nothing here. ``bench/compile_time.py
--wheel`` and ``tests/test_wheel.py`` run it in a fresh venv.
"""

from __future__ import annotations

import argparse
import json
import time

#: The kinds, in the order they are fitted (the issue's list: tree, forest on 100k rows,
#: oblique, look-ahead, model tree, rules).
KINDS = ("tree", "forest", "oblique", "lookahead", "model_tree", "rules")


def _tables(forest_rows: int):
    """(mixed 1,000-row table and its class, numeric table of ``forest_rows`` x 20 and its
    class, 1,000 numeric rows and their real target), generated with a fixed seed."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 1_000
    mixed = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "income": rng.lognormal(10, 1, n),
            "colour": rng.choice(["red", "green", "blue", "white"], n).astype(object),
            "size": rng.choice(["S", "M", "L"], n).astype(object),
        }
    )
    mixed.loc[rng.random(n) < 0.05, "income"] = np.nan
    mixed.loc[rng.random(n) < 0.05, "colour"] = None
    label = np.where((mixed["age"] > 40) ^ (mixed["colour"] == "red"), "yes", "no")
    wide = rng.normal(size=(forest_rows, 20))
    wide_label = (wide[:, 0] + wide[:, 1] * wide[:, 2] > 0).astype(np.int64)
    numbers = rng.normal(size=(n, 5))
    target = 3 * numbers[:, 0] - 2 * numbers[:, 1] + 0.1 * rng.normal(size=n)
    return (mixed, label), (wide, wide_label), (numbers, target)


def fits(forest_rows: int) -> dict:
    """{kind: a function that fits and predicts one model of that kind}."""
    import quercus

    (mixed, label), (wide, wide_label), (numbers, target) = _tables(forest_rows)
    numbers_label = (target > 0).astype("int64")

    def tree():
        quercus.C45Classifier().fit(mixed, label).predict_proba(mixed)
        quercus.CARTClassifier().fit(mixed, label).predict(mixed)

    def forest():
        model = quercus.RandomForestClassifier(n_estimators=10, random_state=0)
        model.fit(wide, wide_label).predict(wide)

    def oblique():
        model = quercus.DecisionTreeClassifier(split="oblique", max_depth=4, random_state=0)
        model.fit(numbers, numbers_label).predict(numbers)

    def lookahead():
        model = quercus.DecisionTreeClassifier(lookahead=1, missing="majority", max_depth=4)
        model.fit(mixed, label).predict(mixed)

    def model_tree():
        quercus.ModelTreeRegressor().fit(numbers, target).predict(numbers)

    def rules():
        quercus.C45RulesClassifier().fit(mixed, label).predict(mixed)

    return {
        "tree": tree,
        "forest": forest,
        "oblique": oblique,
        "lookahead": lookahead,
        "model_tree": model_tree,
        "rules": rules,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows-forest", type=int, default=100_000, help="the forest's rows")
    args = parser.parse_args(argv)
    from numba.core import event

    compiled: list[str] = []

    class Record(event.Listener):
        def on_start(self, e):
            func = e.data["dispatcher"].py_func
            compiled.append(f"{func.__module__}.{func.__qualname__}")

        def on_end(self, e):
            pass

    event.register("numba:compile", Record())
    start = time.perf_counter()
    import quercus  # noqa: F401  (its import is timed)

    result = {"import": time.perf_counter() - start, "fits": {}, "compiled": {}}
    for kind, run in fits(args.rows_forest).items():
        compiled.clear()
        start = time.perf_counter()
        run()
        result["fits"][kind] = time.perf_counter() - start
        result["compiled"][kind] = sorted(set(compiled))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
