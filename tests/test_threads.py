"""Predicting from several threads on one fitted model gives the serial result (issue 14).

Every model is fitted once on a small shipped data set with missing values, and the serial
results of ``predict``, ``predict_proba``, ``apply`` and ``decision_path`` (those the model
has) are computed first. Then ``N_THREADS`` threads, released together by a barrier, call
them ``ROUNDS`` times each, alternately on the batch that every thread shares and on a batch
of their own, and every result must equal the serial one exactly. The same is done for the
model saved and read back with ``quercus.load``, after every thread has made the very first
prediction of a freshly loaded model at once (anything a model builds on first use is then
built concurrently).

The models walk every routing kernel: plain and C4.5-fractional trees (nominal and numeric
splits), a regression tree, C4.5rules, and forests (grown with ``n_jobs=2``) in both packed
layouts, general (category splits) and compact (numeric thresholds only), one of them with
fractional missing values.

Numba's "workqueue" threading layer (its fallback where neither TBB nor OpenMP loads) aborts
the process when two threads launch parallel kernels at once; quercus serialises launches on
it (``quercus._parallel``), which one test checks in a process forced onto that layer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import issparse

import quercus

N_THREADS = 4
ROUNDS = 20
ROUNDS_LOADED = 4
METHODS = ("predict", "predict_proba", "apply", "decision_path")


# -- data: shipped sets with missing values ------------------------------------------------


def _with_missing(X: pd.DataFrame, share: float, seed: int) -> pd.DataFrame:
    """``X`` with about ``share`` of its cells missing (some rows fully known)."""
    rng = np.random.default_rng(seed)
    return X.mask(rng.random(X.shape) < share)


def _car():
    car = quercus.datasets.load("car")
    X, y = car.iloc[:, :-1], car.iloc[:, -1]
    return _with_missing(X, 0.08, 0), y


def _iris():
    iris = quercus.datasets.load("iris")
    X = iris.iloc[:, :-1].to_numpy(dtype=np.float64)  # an array: the all-numeric fast path
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.1] = np.nan
    return X, iris.iloc[:, -1].to_numpy()


def _abalone():
    abalone = quercus.datasets.load("abalone")
    X, y = abalone.iloc[:, :-1], abalone.iloc[:, -1].astype(np.float64)
    return _with_missing(X, 0.05, 2), y


_DATA = {"car": _car, "iris": _iris, "abalone": _abalone}
_CAR_NOMINAL = ["buying", "maint", "doors", "persons", "lug_boot", "safety"]

# name -> (data set, model); every model is fitted on data with missing values. Between
# them they walk every routing kernel: apply_rows, path_rows and fractional_rows (trees),
# forest_sum (category splits), compact_forest_sum (numeric thresholds only) and the
# forests' fractional rows, through DataFrames of strings and all-numeric arrays.
MODELS = {
    "tree-classifier": ("iris", lambda: quercus.DecisionTreeClassifier(random_state=0)),
    "c45-nominal": ("car", lambda: quercus.C45Classifier(nominal_features=_CAR_NOMINAL)),
    "c45-numeric": ("iris", lambda: quercus.C45Classifier()),
    "tree-regressor": ("abalone", lambda: quercus.DecisionTreeRegressor(min_samples_leaf=5)),
    "c45-rules": ("car", lambda: quercus.C45RulesClassifier(nominal_features=_CAR_NOMINAL)),
    "forest-classifier": (
        "car",
        lambda: quercus.RandomForestClassifier(
            n_estimators=20, nominal_features=_CAR_NOMINAL, n_jobs=2, random_state=0
        ),
    ),
    "forest-compact": (
        "iris",
        lambda: quercus.RandomForestClassifier(n_estimators=20, n_jobs=2, random_state=0),
    ),
    "forest-regressor": (
        "abalone",
        lambda: quercus.RandomForestRegressor(
            n_estimators=10, min_samples_leaf=5, n_jobs=2, random_state=0
        ),
    ),
    "forest-fractional": (
        "abalone",
        lambda: quercus.RandomForestRegressor(
            n_estimators=10, min_samples_leaf=5, missing="fractional", n_jobs=2, random_state=0
        ),
    ),
}
FRACTIONAL = ("c45-nominal", "c45-numeric", "c45-rules", "forest-fractional")


def _batches(X) -> list:
    """The batch that every thread shares (batch 0) and a few different ones, of other
    sizes, orders and overlaps (a fifth to a third of their rows have a missing value; the
    5-row batch may have none). Batches stay small: a DataFrame of strings is aligned to the
    schema cell by cell in Python, under the GIL."""
    order = np.random.default_rng(3).permutation(len(X))
    shared = min(len(X), 240)
    parts = [order[:shared], order[-60:], order[:100][::-1], order[: 7 * 40 : 7], order[:5]]
    if isinstance(X, pd.DataFrame):
        return [X.iloc[rows].reset_index(drop=True) for rows in parts]
    return [np.ascontiguousarray(X[rows]) for rows in parts]


_ON_WORKQUEUE = """
import threading, numba, quercus
frame = quercus.datasets.load("iris")
X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
models = [quercus.CARTClassifier().fit(X, y), quercus.RandomForestClassifier(5).fit(X, y)]
expected = [m.predict_proba(X) for m in models]
barrier = threading.Barrier(4)
failures = []

def work():
    barrier.wait()
    for _ in range(30):
        for model, want in zip(models, expected):
            if not (model.predict_proba(X) == want).all():
                failures.append(1)

threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert numba.threading_layer() == "workqueue", numba.threading_layer()
print("failures", len(failures))
"""


def test_concurrent_prediction_on_numbas_workqueue_layer():
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    result = subprocess.run(
        [sys.executable, "-c", _ON_WORKQUEUE], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "failures 0"


@pytest.fixture(scope="module")
def fitted():
    """name -> (fitted model, batches, serial results), each fitted on first use."""
    cache = {}

    def get(name):
        if name not in cache:
            data, make = MODELS[name]
            X, y = _DATA[data]()
            model = make().fit(X, y)
            batches = _batches(X)
            cache[name] = (model, batches, _serial(model, batches))
        return cache[name]

    return get


# -- calling from many threads -------------------------------------------------------------


def _methods(model) -> list[str]:
    return [m for m in METHODS if callable(getattr(model, m, None))]


def _result(model, method, X) -> np.ndarray:
    out = getattr(model, method)(X)
    return out.toarray() if issparse(out) else np.asarray(out)


def _serial(model, batches) -> dict:
    """(method, batch index) -> the result of one call in this thread, nothing else running."""
    return {
        (method, b): _result(model, method, batch)
        for method in _methods(model)
        for b, batch in enumerate(batches)
    }


def _run_together(work) -> list:
    """``work(t)`` in ``N_THREADS`` threads released together by a barrier; their results
    (an exception in a thread is raised here)."""
    barrier = threading.Barrier(N_THREADS, timeout=120)

    def start(t):
        barrier.wait()
        return work(t)

    with ThreadPoolExecutor(N_THREADS) as pool:
        futures = [pool.submit(start, t) for t in range(N_THREADS)]
        return [f.result() for f in futures]


def _hammer(model, batches, expected, rounds=ROUNDS):
    """``rounds`` calls per thread, alternately on the batch that all threads share
    (batch 0) and on the thread's own batch; thread ``t`` calls method ``t + round // 2``
    (cycling), so the threads run different methods side by side (as far as the model has
    several), and each thread runs each method on both batches. Every result must be the
    serial one."""
    methods = _methods(model)

    def work(t):
        own = 1 + t % (len(batches) - 1)
        done = set()
        for round_ in range(rounds):
            b = 0 if round_ % 2 == 0 else own
            method = methods[(t + round_ // 2) % len(methods)]
            np.testing.assert_array_equal(
                _result(model, method, batches[b]),
                expected[method, b],
                err_msg=f"thread {t}, round {round_}: {method} on batch {b}",
            )
            done.add((method, b))
        return done

    done = _run_together(work)
    if rounds >= 2 * len(methods):
        assert all(len(calls) == 2 * len(methods) for calls in done)


def _saved(model, folder):
    forest = isinstance(model, quercus.RandomForestClassifier | quercus.RandomForestRegressor)
    path = folder / ("model.zip" if forest else "model.json")
    model.save(path)
    return path


# -- the tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(MODELS))
def test_concurrent_prediction_equals_serial(fitted, name):
    model, batches, expected = fitted(name)
    trees = getattr(model, "estimators_", [model])
    assert all(t.tree_.fractional for t in trees) == (name in FRACTIONAL)
    _hammer(model, batches, expected)


@pytest.mark.parametrize("name", list(MODELS))
def test_concurrent_prediction_of_a_loaded_model(fitted, name, tmp_path):
    model, batches, expected = fitted(name)
    path = _saved(model, tmp_path)

    # The first prediction ever of a freshly loaded model (anything built on first use is
    # built now), made by every thread at once on the shared batch; one fresh model per
    # method, so that each method is a first call once.
    for method in _methods(model):
        fresh = quercus.load(path)
        assert type(fresh) is type(model)
        firsts = _run_together(
            lambda t, fresh=fresh, method=method: _result(fresh, method, batches[0])
        )
        for t, got in enumerate(firsts):
            np.testing.assert_array_equal(
                got, expected[method, 0], err_msg=f"thread {t}: first {method} after loading"
            )

    # Then a loaded model as any other (fewer rounds: the code that runs is the same).
    _hammer(quercus.load(path), batches, expected, rounds=ROUNDS_LOADED)


def test_forests_grown_in_threads_predict_as_grown_serially(fitted):
    """``n_jobs=2`` grows the trees in threads; the forest is the one grown in one thread."""
    for name in ("forest-classifier", "forest-fractional"):
        model, batches, expected = fitted(name)
        X, y = _DATA[MODELS[name][0]]()
        serial = type(model)(**{**model.get_params(), "n_jobs": None}).fit(X, y)
        for b, batch in enumerate(batches):
            np.testing.assert_array_equal(serial.predict(batch), expected["predict", b])


def test_small_work_runs_a_parallel_kernel_on_one_thread():
    """Below PARALLEL_MIN_WORK a parallel kernel runs on one thread (a launch on several
    costs more than the work), with the same result, and the thread count is restored."""
    import numba

    from quercus._parallel import PARALLEL_MIN_WORK, run_parallel

    @numba.njit(parallel=True)
    def threads_used(out):
        for i in numba.prange(len(out)):
            out[i] = numba.get_thread_id()

    before = numba.get_num_threads()
    small = np.full(PARALLEL_MIN_WORK - 1, -1, dtype=np.int64)
    run_parallel(threads_used, small)
    assert set(small.tolist()) == {0}
    assert numba.get_num_threads() == before
    if before > 1:  # the large case spreads over the threads
        large = np.full(PARALLEL_MIN_WORK * 50, -1, dtype=np.int64)
        run_parallel(threads_used, large)
        assert len(set(large.tolist())) > 1
