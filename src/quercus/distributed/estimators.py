"""The Dask estimators: quercus trees and forests trained on rows held by a Dask cluster.

Each is the local estimator of the same name without ``Dask`` (its parameters, fitted
attributes, exports and model files) plus ``client``; only ``fit`` and the predictions
differ. ``fit`` takes Dask collections, which stay on the workers: they are typed, binned
and kept there (``distributed/ingest.py``), and the tree is grown level by level
(``grow/levelwise.py``) over the sums each partition makes of its rows
(``distributed/dask_statistics.py``), with the kernels of the local fit. The model is the
one the local estimator grows on the same bins, however the rows are partitioned and
however many workers hold them; a forest is the local forest with ``bootstrap="poisson"``,
whose weights are drawn per row from (seed, tree, row), not from the partition.

What stays local: the parameter values that need the rows in this process, listed with
their reasons in :mod:`quercus.capabilities`; the Dask estimators refuse them with an error
that says why.
"""

from __future__ import annotations

import inspect
import logging
import numbers
from contextlib import contextmanager
from functools import partial

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..capabilities import dask_refusal
from ..ensemble.forest import (
    RandomForestClassifier,
    RandomForestRegressor,
    draw_base_seed,
    grow_forest,
    poisson_rate,
    poisson_weights,
    tree_seeds,
    warn_of_forest_size,
)
from ..estimators.finish import finish_tree
from ..estimators.params import (
    InvalidParameterError,
    check_params,
    shallow_params,
)
from ..estimators.spec import DataFacts, growth_spec, tree_seed
from ..estimators.trees import (
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from ..grow.rows import TreePlan
from .ingest import ingest
from .rows import DaskRows

logger = logging.getLogger(__name__)

#: The default of ``subtree_bytes``: the most bytes of rows a node may hold for its subtree
#: to be grown on one worker.
SUBTREE_BYTES = 64 * 2**20
#: The parameters a Dask estimator adds to its local class.
DASK_PARAMS = ("client", "subtree_bytes")

__all__ = [
    "ClusterLostError",
    "DaskCARTClassifier",
    "DaskCARTRegressor",
    "DaskDecisionTreeClassifier",
    "DaskDecisionTreeRegressor",
    "DaskID3Classifier",
    "DaskRandomForestClassifier",
    "DaskRandomForestRegressor",
]


def dask_client(client):
    """``client``, or the current Dask client when it is None."""
    if client is not None:
        return client
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        raise ValueError(
            "no Dask client: start one (distributed.Client(address), or Client() for a "
            "local cluster) before fit, or pass client="
        ) from None


class ClusterLostError(ConnectionError):
    """The Dask scheduler of a fit was lost (stopped, or out of reach for longer than the
    client's timeout) before the fit ended: the rows its workers held went with it."""


# The states of a distributed.Client that has lost its scheduler: trying to reconnect, or
# given up (it then cancels every future, which is what the fit sees).
_LOST_STATES = ("connecting", "closing", "closed")


@contextmanager
def scheduler_lost(client):
    """Within the block (a fit on ``client``), an error raised because the client lost its
    scheduler becomes a :class:`ClusterLostError` naming the scheduler's address, without
    distributed's traceback; any other error passes as it is. A client closed already is
    refused before any work."""
    if getattr(client, "status", None) in ("closing", "closed"):
        raise ClusterLostError(
            "the Dask client is closed (its scheduler was lost, or the client was closed):"
            " connect a new client (distributed.Client(address)) and fit again"
        )
    address = getattr(getattr(client, "scheduler", None), "address", None)
    try:
        yield
    except ClusterLostError:
        raise
    except Exception:
        if getattr(client, "status", None) not in _LOST_STATES:
            raise
        raise ClusterLostError(
            f"the Dask scheduler at {address} was lost during the fit (it stopped, or could"
            " not be reached again within the client's timeout): the rows its workers held"
            " are gone with it; start the cluster again and fit again"
        ) from None


def refuse_local_only(params: dict) -> None:
    """An :class:`InvalidParameterError` for the first parameter value that only a local
    fit supports (``quercus.capabilities`` says why)."""
    need = dask_refusal(params)
    if need is not None:
        raise InvalidParameterError(
            f"{need.shown(params)} is not available on Dask: {need.reason()}; the ordinary "
            "quercus estimator fits it on data in memory",
            need.name,
        )


def check_dask_params(estimator):
    """Check a Dask estimator's parameters as its ``fit`` does, before any data is read
    (an :class:`InvalidParameterError` naming the first one that is wrong, or that only a
    local fit takes); returns the unfitted local estimator of the same parameters."""
    return estimator._check_dask_params()


class _DaskModel:
    """What every Dask estimator adds to its local class (see the module docstring)."""

    _local_class: type = None  # set by :func:`_dask_class`

    def _local_twin(self):
        """An unfitted local estimator with this one's parameters (``client`` aside)."""
        params = self.get_params(deep=False)
        for name in DASK_PARAMS:
            params.pop(name)
        return self._local_class(**params)

    def _check_dask_params(self):
        twin = self._local_twin()
        check_params(twin)
        size = self.subtree_bytes
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise InvalidParameterError(
                f"subtree_bytes must be an integer >= 0 (bytes), got {size!r}", "subtree_bytes"
            )
        refuse_local_only(twin.get_params(deep=False))
        return twin

    def fit(self, X, y, sample_weight=None):
        """Fit on the Dask collections ``X`` (a dask DataFrame or 2-d array), ``y`` (a dask
        Series or array) and ``sample_weight`` (None, or like ``y``), whose partitions line
        up; the rows stay on the workers. A forest's trees advance one level per pass over
        the partitions, all trees in the same passes."""
        twin = self._check_dask_params()
        client = dask_client(self.client)
        with scheduler_lost(client):
            ingested = _ingest(twin, client, X, y, sample_weight, self._keeps_zero_weight)
            rows = DaskRows(client, ingested, self.subtree_bytes)
            self._fit_rows(twin, rows)
        self._take_fitted(twin)
        self.levels_ = rows.levels
        return self

    def _take_fitted(self, twin) -> None:
        """Make the fitted attributes of ``twin`` this estimator's."""
        names = set(self.get_params(deep=False))
        for name, value in vars(twin).items():
            if name not in names:
                setattr(self, name, value)

    def to_local(self):
        """The fitted model as the ordinary quercus estimator (same parameters, bins and
        trees), to predict, inspect or save on any machine."""
        check_is_fitted(self)
        twin = self._local_twin()
        names = {*self.get_params(deep=False), "levels_"}
        for name, value in vars(self).items():
            if name not in names:
                setattr(twin, name, value)
        return twin

    def save(self, path):
        """Write the file :meth:`to_local`'s ``save`` writes (a tree's JSON model file, a
        forest's zip); ``quercus.load`` reads it anywhere and gives the local model."""
        # The local class knows its own format: save_model writes trees only.
        return self.to_local().save(path)

    def __sklearn_clone__(self):
        # scikit-learn's clone deep-copies every parameter; a client is shared, not copied.
        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(client=client, **{k: clone(v, safe=False) for k, v in params.items()})

    def __getstate__(self):
        # A client holds sockets: a pickled estimator (sent to a worker, say) goes without.
        state = dict(self.__dict__)
        state["client"] = None
        return state

    def _partition_wise(self, method: str, X):
        """``method`` of the local model on each partition of the Dask collection ``X``,
        lazily: a Dask array; for data in memory, the local result."""
        local = self.to_local()
        if not _is_dask(X):
            return getattr(local, method)(X)
        import dask.array as da

        width = None if method in ("predict", "apply") else len(getattr(local, "classes_", []))
        if method == "predict":
            dtype = local.classes_.dtype if hasattr(local, "classes_") else np.float64
        elif method == "apply":
            dtype = np.int64
        else:
            dtype = np.float64
        meta = np.empty((0,) if width is None else (0, width), dtype=dtype)
        if isinstance(X, da.Array):
            if X.ndim != 2:
                raise ValueError(f"X must be a 2-d Dask array, got {X.ndim} dimension(s)")
            blocks = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X
            return blocks.map_blocks(
                _local_method,
                local,
                method,
                drop_axis=1 if width is None else None,
                chunks=None if width is None else (blocks.chunks[0], (width,)),
                meta=meta,
            )
        return X.map_partitions(_local_method, local, method, meta=meta)


def _local_method(part, local, method, partition_info=None, block_info=None):
    """``method`` of ``local`` on one partition; an error in the data names the partition
    (Dask passes its number in ``partition_info`` or ``block_info``)."""
    try:
        return getattr(local, method)(part)
    except ValueError as error:  # DataError too: bad data, not a bug
        if partition_info is not None:
            index = partition_info["number"]
        elif block_info is not None and 0 in block_info:
            index = block_info[0]["chunk-location"][0]
        else:
            raise
        error.args = (f"partition {index} of X: {error.args[0]}", *error.args[1:])
        raise


def _is_dask(X) -> bool:
    return hasattr(X, "__dask_graph__") and callable(X.__dask_graph__)


# -- trees and forests -------------------------------------------------------------------


def fit_tree_rows(tree, rows) -> None:
    """Grow the unfitted tree estimator ``tree`` (its input attributes set) on the training
    ``rows`` and finish it (:func:`~quercus.estimators.finish.finish_tree`: the prunings
    that need no rows)."""
    n_stats = 3 if tree.regression else len(tree.classes_)
    facts = DataFacts.of(rows.tables, rows.total_weight, n_stats)
    spec = growth_spec(shallow_params(tree), tree.regression, facts, tree_seed(tree.random_state))
    (grown,) = rows.grow(spec, [TreePlan(0, spec.params.seed)])
    finish_tree(tree, grown, spec)


def fit_forest_rows(forest, rows) -> None:
    """Grow the trees of the unfitted forest ``forest`` (its input attributes set) on the
    training ``rows``, each on Poisson weights drawn from (seed, tree, row)."""
    n_stats = 3 if forest.regression else len(forest.classes_)
    forest.base_seed_ = draw_base_seed(forest.random_state)
    warn_of_forest_size(forest.n_estimators, stacklevel=4)
    forest.tree_seeds_ = tree_seeds(forest.base_seed_, 0, forest.n_estimators)
    weigh = None
    if forest.bootstrap:  # "poisson"
        rate = poisson_rate(forest.max_samples, rows.n_rows)
        weigh = partial(poisson_weights, forest.base_seed_, rate)
    forest.trees_ = grow_forest(forest, rows, n_stats, 0, forest.tree_seeds_, weigh)


class _DaskTree(_DaskModel):
    _fit_rows = staticmethod(fit_tree_rows)
    _keeps_zero_weight = False

    def predict(self, X):
        """The local model's ``predict`` on each partition of ``X`` (a Dask array, lazy)."""
        return self._partition_wise("predict", X)

    def apply(self, X):
        """The leaf of each row, partition by partition (a Dask array, lazy)."""
        return self._partition_wise("apply", X)


class _DaskTreeClassifier(_DaskTree):
    def predict_proba(self, X):
        """Class probabilities, partition by partition (a Dask array, lazy)."""
        return self._partition_wise("predict_proba", X)


def _ingest(twin, client, X, y, sample_weight, keep_zero_weight: bool):
    """The rows of ``X, y, sample_weight`` typed, binned and kept on the workers as
    ``twin``'s parameters say (:func:`~quercus.distributed.ingest.ingest`; a forest keeps
    the rows of weight 0, as a local forest does), and the fitted input attributes of
    ``twin`` (schema, features, classes)."""
    rows = ingest(
        client,
        X,
        y,
        sample_weight,
        nominal=twin.nominal_features,
        ordinal=twin.ordinal_features,
        max_bins=twin.max_bins,
        regression=twin.regression,
        keep_zero_weight=keep_zero_weight,
    )
    _take_input(twin, rows)
    return rows


def _take_input(twin, rows) -> None:
    """The fitted input attributes of ``twin`` from the ingested rows."""
    twin.schema_ = rows.schema
    twin.n_features_in_ = rows.n_features_in
    if rows.feature_names_in is not None:
        twin.feature_names_in_ = rows.feature_names_in
    if rows.classes is not None:
        twin.classes_ = rows.classes
        twin.n_classes_ = len(rows.classes)


class _DaskForest(_DaskModel):
    _fit_rows = staticmethod(fit_forest_rows)
    _keeps_zero_weight = True

    @property
    def estimators_(self):
        """The fitted tree estimators, one per tree (those of :meth:`to_local`)."""
        if "trees_" not in self.__dict__:
            raise AttributeError(f"this {type(self).__name__} is not fitted: no estimators_")
        return self.to_local().estimators_

    def predict(self, X):
        """The local forest's ``predict`` on each partition of ``X`` (a Dask array, lazy)."""
        return self._partition_wise("predict", X)


class _DaskForestClassifier(_DaskForest):
    def predict_proba(self, X):
        """Class probabilities, partition by partition (a Dask array, lazy)."""
        return self._partition_wise("predict_proba", X)


# -- the classes --------------------------------------------------------------------------


def _dask_class(local_class, name: str, behaviour, **defaults):
    """``local_class`` with ``behaviour`` (fit and predictions on Dask) and a ``client``
    parameter; ``defaults`` change some of its defaults. Every parameter is keyword-only,
    in a signature scikit-learn reads for ``get_params`` and ``clone``."""
    signature = inspect.signature(local_class.__init__)
    parameters = [
        p.replace(default=defaults.get(p.name, p.default), kind=inspect.Parameter.KEYWORD_ONLY)
        for p in list(signature.parameters.values())[1:]
    ]
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters.append(inspect.Parameter("client", keyword, default=None))
    parameters.append(inspect.Parameter("subtree_bytes", keyword, default=SUBTREE_BYTES))
    own_defaults = {p.name: p.default for p in parameters}

    def __init__(self, **params):
        unexpected = set(params) - set(own_defaults)
        if unexpected:
            raise TypeError(
                f"{name}() got an unexpected keyword argument {sorted(unexpected)[0]!r}"
            )
        values = {**own_defaults, **params}
        self.client = values.pop("client")
        self.subtree_bytes = values.pop("subtree_bytes")
        local_class.__init__(self, **values)

    self_parameter = next(iter(signature.parameters.values()))
    __init__.__signature__ = signature.replace(parameters=[self_parameter, *parameters])
    cls = type(
        name,
        (behaviour, local_class),
        {"__init__": __init__, "__module__": "quercus.dask", "_local_class": local_class},
    )
    changed = ", ".join(f"{k}={v!r}" for k, v in defaults.items())
    cls.__doc__ = f"""{local_class.__name__} trained on a Dask cluster: the parameters,
    fitted attributes and methods of :class:`quercus.{local_class.__name__}`, with ``fit``
    and the predictions on Dask collections (see :mod:`quercus.dask`).

    Parameters
    ----------
    client : distributed.Client or None, default None
        The cluster to train on; None: the current Dask client.
    subtree_bytes : int, default 64 MiB
        A node whose rows take at most this many bytes (binned: about a byte per
        feature, and 20 for the target and weight) is gathered to one worker, which grows
        its subtree with the compiled grower (PLANET's in-memory build); the larger nodes
        are split level by level over all partitions. 0: every level on the cluster.
    **params
        The parameters of :class:`quercus.{local_class.__name__}`{
        f" (its default changed: {changed})" if changed else ""
    }.

    Attributes
    ----------
    levels_ : list of LevelCost
        What each level of the fit cost: the nodes split over all partitions, the bytes of
        histograms each partition sent, the subtrees grown on one worker and their rows,
        the seconds (see :class:`quercus.distributed.rows.LevelCost`). Besides it,
        the fitted attributes of :class:`quercus.{local_class.__name__}`.
    """
    return cls


DaskDecisionTreeClassifier = _dask_class(
    DecisionTreeClassifier, "DaskDecisionTreeClassifier", _DaskTreeClassifier
)
DaskDecisionTreeRegressor = _dask_class(
    DecisionTreeRegressor, "DaskDecisionTreeRegressor", _DaskTree
)
DaskID3Classifier = _dask_class(ID3Classifier, "DaskID3Classifier", _DaskTreeClassifier)
DaskCARTClassifier = _dask_class(CARTClassifier, "DaskCARTClassifier", _DaskTreeClassifier)
DaskCARTRegressor = _dask_class(CARTRegressor, "DaskCARTRegressor", _DaskTree)
DaskRandomForestClassifier = _dask_class(
    RandomForestClassifier,
    "DaskRandomForestClassifier",
    _DaskForestClassifier,
    bootstrap="poisson",
)
DaskRandomForestRegressor = _dask_class(
    RandomForestRegressor, "DaskRandomForestRegressor", _DaskForest, bootstrap="poisson"
)
