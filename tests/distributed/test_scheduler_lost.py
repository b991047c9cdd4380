"""A Dask scheduler lost during a fit is a clear error naming its address, from the library
(:class:`quercus.dask.ClusterLostError`) and from ``quercus fit --dask`` (one line), not
distributed's cancelled futures and their traceback.

Each test starts a cluster of its own (the session's must live on), with thread workers so
that it starts fast, and closes its scheduler mid-fit, deterministically: from a handler of
the log record that the fit writes when it starts its level 2 on the cluster
(``subtree_bytes=0`` keeps every level on the cluster)."""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from quercus import dask as qdask  # noqa: E402
from quercus.cli import dask_fit, main  # noqa: E402

# Seconds a client tries to reach its lost scheduler again before it gives up.
RECONNECT_SECONDS = 3
_LEVELS = "quercus.distributed.rows"


def _data(n=4_000):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = pd.Series(np.where(X["a"] + X["b"] ** 2 + rng.normal(size=n) > 0.5, "yes", "no"))
    return X, y


@contextmanager
def _cluster():
    """A cluster of two thread workers, whose workers close within seconds once their
    scheduler is gone (they wait for it as long as a connection may take to open)."""
    timeout = {"distributed.comm.timeouts.connect": f"{RECONNECT_SECONDS}s"}
    with (
        dask.config.set(timeout),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp://",  # the addresses of a real cluster
            dashboard_address="127.0.0.1:0",
        ) as cluster,
    ):
        yield cluster


@contextmanager
def _scheduler_closed_at_level_2(cluster):
    """Within the block, the fit's log record of level 2 closes ``cluster``'s scheduler;
    yields the list that holds the closing once it happened."""
    closed = []

    class CloseAtLevel2(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("level 2") and not closed:
                cluster.sync(cluster.scheduler.close)
                closed.append(cluster.scheduler.address)

    log = logging.getLogger(_LEVELS)
    handler, level = CloseAtLevel2(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield closed
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def _in_a_thread(run):
    """``run()``'s result or error, in a thread given two minutes: a fit must not hang."""
    outcome = {}

    def target():
        try:
            outcome["result"] = run()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the fit hung after its scheduler was closed"
    return outcome


@pytest.mark.parametrize("kind", ["DaskCARTClassifier", "DaskRandomForestClassifier"])
def test_a_scheduler_closed_mid_fit_is_a_clear_error(kind):
    X, y = _data()
    with (
        _cluster() as cluster,
        distributed.Client(cluster, timeout=RECONNECT_SECONDS) as client,
    ):
        address = cluster.scheduler.address
        model = getattr(qdask, kind)(client=client, subtree_bytes=0, max_depth=8)
        X_dask, y_dask = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
        with _scheduler_closed_at_level_2(cluster) as closed:
            outcome = _in_a_thread(lambda: model.fit(X_dask, y_dask))
    assert closed == [address]
    error = outcome.get("error")
    assert isinstance(error, qdask.ClusterLostError), repr(error)
    assert isinstance(error, ConnectionError)
    assert str(error).startswith(f"the Dask scheduler at {address} was lost during the fit")
    # Nothing of distributed's: neither a cause nor a context shown with the traceback.
    assert error.__cause__ is None and error.__suppress_context__


def test_a_client_closed_before_the_fit_is_refused_at_once():
    X, y = _data(200)
    with _cluster() as cluster:
        client = distributed.Client(cluster)
        client.close()
        model = qdask.DaskCARTClassifier(client=client)
        with pytest.raises(qdask.ClusterLostError, match="the Dask client is closed"):
            model.fit(dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))


def test_the_command_line_says_the_scheduler_was_lost(capsys, tmp_path, monkeypatch):
    X, y = _data()
    data = tmp_path / "data.csv"
    X.assign(label=y).to_csv(data, index=False)
    # The command's client gives up on its scheduler after this many seconds.
    monkeypatch.setattr(dask_fit, "CONNECT_TIMEOUT", RECONNECT_SECONDS)
    argv = ["fit", str(data), "--algorithm", "cart", "--set", "subtree_bytes=0"]
    argv += ["--set", "ccp_alpha=0", "--dask"]
    with _cluster() as cluster:
        address = cluster.scheduler.address
        with _scheduler_closed_at_level_2(cluster) as closed:
            capsys.readouterr()
            outcome = _in_a_thread(lambda: main([*argv, address]))
            out, err = capsys.readouterr()
    assert closed == [address]
    assert outcome == {"result": 1}, outcome
    assert out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"quercus: error: the Dask scheduler at {address} was lost during")
    assert "Traceback" not in err and "unexpected" not in err
