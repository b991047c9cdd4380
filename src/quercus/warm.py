"""Compile quercus's Numba kernels ahead of first use: ``quercus warm`` and the tests' warm-up.

The kernels compile the first time each is called with new argument types, and are then kept
in Numba's cache on disk (next to the installed package, or in a per-user cache when the
package's folder is read-only: :mod:`quercus._kernel_cache`). Compiling all of them takes a
few minutes on a small machine; :func:`compile_kernels` pays that once, at a time of the
user's choosing (after ``pip install``, in an image build), by fitting small models of every
kind on generated data. With a warm cache it takes a few seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NamedTuple, TextIO

__all__ = [
    "WarmStep",
    "announce_compiling",
    "compile_kernels",
    "first_use_notice",
    "kernels_compiled",
    "warm_steps",
]

#: Rows of the large data set: 1-byte bin codes (from ``binning.ONE_BYTE_MIN_ROWS`` rows),
#: and bins from a sample, each bin's extremes from every row (above ``BIN_SAMPLE_ROWS``).
LARGE_ROWS = 200_001


class WarmStep(NamedTuple):
    """One step of :func:`compile_kernels`: what it compiles, and the fits that do it."""

    name: str
    run: Callable[[], None]


def _use(model, X, y, *, classifier: bool = True) -> None:
    """Fit ``model`` and call the prediction methods a user would."""
    model.fit(X, y)
    model.predict(X)
    model.apply(X)
    model.decision_path(X)
    if classifier:
        model.predict_proba(X)


def warm_steps(large: bool = True) -> list[WarmStep]:
    """The steps of :func:`compile_kernels`, in order: each covers the kernels' argument
    types of one family of models (nominal, numeric and missing values; classification and
    regression; each pruning method; forests; with ``large``, the 1-byte bin codes of
    data sets of 50,000 rows and more)."""
    import numpy as np
    import pandas as pd

    import quercus

    tennis = quercus.datasets.load("playtennis")
    X_tennis, y_tennis = tennis.iloc[:, :-1], tennis.iloc[:, -1]
    rng = np.random.default_rng(0)
    mixed = pd.DataFrame(
        {"x": rng.normal(size=60), "c": rng.choice(["a", "b", "c"], 60).astype(object)}
    )
    mixed.loc[::7, "x"] = np.nan  # missing values
    y_mixed = np.where(mixed["x"].fillna(0) > 0, "p", "q")
    y_value = mixed["x"].fillna(0.0).to_numpy() * 2
    numbers = pd.DataFrame(rng.normal(size=(300, 3)), columns=["u", "v", "w"])
    y_numbers = (numbers["u"] + numbers["v"] > 0).astype(int)
    trees = (quercus.ID3Classifier, quercus.C45Classifier, quercus.CARTClassifier)

    def classification_trees():
        for X, y in ((X_tennis, y_tennis), (mixed, y_mixed), (numbers, y_numbers)):
            for make in trees:
                _use(make(), X, y)
        quercus.C45RulesClassifier().fit(X_tennis, y_tennis).predict(X_tennis)

    def pruning():
        quercus.CARTClassifier(ccp_alpha="cv").fit(mixed, y_mixed).predict(mixed)
        quercus.C45Classifier(pruning="cost_complexity").fit(mixed, y_mixed).predict(mixed)
        quercus.CARTRegressor(ccp_alpha="cv").fit(mixed, y_value).predict(mixed)

    def regression_trees():
        for criterion in ("squared_error", "absolute_error"):
            model = quercus.DecisionTreeRegressor(criterion=criterion)
            _use(model, mixed, y_value, classifier=False)

    def forests():
        for X, y in ((mixed, y_mixed), (numbers, y_numbers)):
            forest = quercus.RandomForestClassifier(n_estimators=25, oob_score=True, random_state=0)
            forest.fit(X, y).predict_proba(X)
        forest = quercus.RandomForestRegressor(n_estimators=25, oob_score=True, random_state=0)
        forest.fit(mixed, y_value).predict(mixed)

    def split_kinds():
        # Oblique and look-ahead searches have kernels of their own (numeric and nominal).
        quercus.DecisionTreeClassifier(split="oblique", max_depth=3, random_state=0).fit(
            numbers, y_numbers
        ).predict(numbers)
        for X, y in ((mixed, y_mixed), (numbers, y_numbers)):
            model = quercus.DecisionTreeClassifier(lookahead=1, missing="majority", max_depth=3)
            model.fit(X, y).predict(X)
        quercus.DecisionTreeRegressor(split="oblique", max_depth=3, random_state=0).fit(
            numbers, numbers["u"]
        ).predict(numbers)
        quercus.DecisionTreeRegressor(lookahead=1, missing="majority", max_depth=3).fit(
            mixed, y_value
        ).predict(mixed)

    def model_trees():
        quercus.ModelTreeRegressor().fit(numbers, numbers["u"] * 2).predict(numbers)
        quercus.ModelTreeRegressor().fit(mixed, y_value).predict(mixed)

    def boosting():
        # The Newton learner, its split search with and without bounds, step leaves.
        settings = {"max_iter": 3, "min_samples_leaf": 5, "early_stopping": False}
        for X, y in ((mixed, y_mixed), (numbers, y_numbers), (numbers, numbers["u"] > 0.5)):
            model = quercus.GradientBoostingClassifier(**settings).fit(X, y)
            model.predict_proba(X)
            list(model.staged_predict(X))
        three = np.digitize(numbers["u"], [-0.5, 0.5])
        quercus.GradientBoostingClassifier(**settings).fit(numbers, three).predict(numbers)
        for extra in ({}, {"loss": "quantile", "quantile": 0.8}, {"monotonic_cst": [1]}):
            X = mixed[["x"]] if extra else mixed  # (monotonic: a numeric feature)
            quercus.GradientBoostingRegressor(**settings, **extra).fit(X, y_value).predict(X)

    def large_data():
        # From ONE_BYTE_MIN_ROWS rows on, numeric bins take 1-byte codes: other signatures.
        X = rng.normal(size=(LARGE_ROWS, 3))
        y = (X[:, 0] > 0).astype(int)
        quercus.DecisionTreeClassifier(max_depth=3).fit(X, y).predict(X)
        quercus.DecisionTreeRegressor(max_depth=3).fit(X, X[:, 1]).predict(X)
        quercus.RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(
            X, y
        ).predict(X)
        quercus.GradientBoostingClassifier(max_iter=2, early_stopping=False, n_jobs=2).fit(
            X, y
        ).predict(X)

    steps = [
        WarmStep("classification trees (ID3, C4.5, CART)", classification_trees),
        WarmStep("regression trees", regression_trees),
        WarmStep("pruning", pruning),
        WarmStep("random forests", forests),
        WarmStep("oblique and look-ahead splits", split_kinds),
        WarmStep("model trees", model_trees),
        WarmStep("gradient boosting", boosting),
    ]
    if large:
        steps.append(WarmStep(f"{LARGE_ROWS:,} rows (1-byte bin codes)", large_data))
    return steps


def compile_kernels(
    report: Callable[[str, float], None] | None = None, steps: list[WarmStep] | None = None
) -> float:
    """Compile (or load from the cache) every kernel a user's models need; returns the
    seconds it took. ``report(step name, seconds)`` is called after each step."""
    start = time.perf_counter()
    for step in warm_steps() if steps is None else steps:
        began = time.perf_counter()
        step.run()
        if report is not None:
            report(step.name, time.perf_counter() - began)
    return time.perf_counter() - start


def kernels_compiled() -> bool:
    """Whether the grower, the largest kernel, is in Numba's cache for this machine and
    this version of its source (an install from a wheel carries it, see ``setup.py``): False
    when the next fit will compile it (most of a minute), or when the cache cannot be read."""
    from ._kernel_cache import cached_keys
    from .grow._grow import grow_tree_in

    try:  # the keys of Numba's cache index: (signature, machine, code hashes)
        machine = grow_tree_in.targetctx.codegen().magic_tuple()
        return any(key[1] == machine for key in cached_keys(grow_tree_in))
    except (AttributeError, OSError, TypeError, ValueError, IndexError):
        return False


FIRST_USE_NOTICE = (
    "quercus: compiling the kernels on first use (about a minute on a small machine, once; "
    "`quercus warm` compiles them all ahead of time)"
)
LATER_COMPILE_NOTICE = (
    "quercus: compiling the kernels of this kind of model (once; they are kept in the cache "
    "afterwards, and `quercus warm` compiles them all ahead of time)"
)


def first_use_notice() -> str | None:
    """A line saying the first fit will compile the kernels, or None when they are in the
    cache. The command line prints it on stderr, so that a first ``quercus demo`` or
    ``quercus fit`` is not silent for a minute."""
    return None if kernels_compiled() else FIRST_USE_NOTICE


@contextmanager
def announce_compiling(
    stream: TextIO, before: Callable[[], None] | None = None, quiet: bool = False
) -> Iterator[None]:
    """While the block runs, say on ``stream`` that the kernels are compiling: at its
    start when the grower is not in the cache (:func:`first_use_notice`), else at the first
    kernel of quercus that Numba starts to compile (another kind of model, another size of
    bin codes), so that no wait of the command line is silent. ``before()`` runs first
    (e.g. clearing a progress line). Once per process; nothing with ``quiet``."""
    if quiet or _ANNOUNCED:
        yield
        return

    def say(text: str) -> None:
        if _ANNOUNCED:
            return
        _ANNOUNCED.append(text)
        if before is not None:
            before()
        print(text, file=stream, flush=True)

    notice = first_use_notice()
    if notice is not None:
        say(notice)
        yield
        return
    from numba.core import event

    class Announce(event.Listener):
        def on_start(self, e):
            if e.data["dispatcher"].py_func.__module__.startswith("quercus."):
                say(LATER_COMPILE_NOTICE)

        def on_end(self, e):
            pass

    listener = Announce()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


#: What :func:`announce_compiling` said in this process (at most one line).
_ANNOUNCED: list[str] = []
