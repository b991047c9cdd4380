"""The Dask estimators: quercus trees and forests trained on rows held by a Dask cluster.

Each is the local estimator of the same name without ``Dask`` (its parameters, fitted
attributes, exports and model files) plus ``client``; only ``fit`` and the predictions
differ. ``fit`` takes Dask collections, which stay on the workers: they are typed, binned
and kept there (``distributed/ingest.py``), and the tree is grown level by level
(``tree/levelwise.py``) over the sums each partition makes of its rows
(``distributed/dask_statistics.py``), with the kernels of the local fit. The model is the
one the local estimator grows on the same bins, however the rows are partitioned and
however many workers hold them; a forest is the local forest with ``bootstrap="poisson"``,
whose weights are drawn per row from (seed, tree, row), not from the partition.

What stays local, and why (the Dask estimators refuse these with an error that says so):

- ``missing="fractional"`` (C4.5's weighted copies of a row), ``criterion="absolute_error"``
  (ranks a node's rows) and ``max_leaf_nodes`` (best-first growth across the tree): the
  level-wise grower does not grow them (``tree.levelwise``);
- prunings that go back to the training rows: ``pruning="pessimistic"`` (subtree raising
  re-routes the rows), ``"reduced_error"`` (a held-out share of the rows), and
  cross-validated cost-complexity (``ccp_alpha="cv"``: ten more fits); ``ccp_alpha > 0``
  prunes the grown tree and works;
- C4.5's threshold rules (``c45_thresholds``), and so the C4.5 preset;
- forests: the multinomial bootstrap (``bootstrap=True`` draws n rows from all n at once),
  attributes drawn per tree, ``warm_start`` and ``oob_score``;
- ``class_weight``: class weights go in ``sample_weight`` (``y.map(weights)``).
"""

from __future__ import annotations

import inspect
import logging
import numbers
import time
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..binning.binned import BinnedData
from ..ensemble.bootstrap import poisson_counts
from ..ensemble.forest import (
    RandomForestClassifier,
    RandomForestRegressor,
    tree_seeds,
    warn_of_forest_size,
)
from ..estimators.params import InvalidParameterError, check_params, growth_params
from ..estimators.trees import (
    CARTClassifier,
    CARTRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)
from ..pruning.sequence import PruningLog
from ..tree import levelwise
from ..tree.grower import growth_setup, tree_from_grown
from ..tree.stack import stack_trees
from .dask_statistics import DaskForestStatistics
from .ingest import ingest

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


def _refuse(name: str, value, why: str) -> None:
    raise InvalidParameterError(
        f"{name}={value!r} is not available on Dask: {why}; the ordinary quercus estimator "
        "fits it on data in memory",
        name,
    )


def refuse_local_only(params: dict) -> None:
    """An :class:`InvalidParameterError` for a parameter value only a local fit supports
    (the module docstring says why)."""
    if params.get("missing") == "fractional":
        _refuse("missing", "fractional", "C4.5's weighted copies of a row are grown locally")
    if params.get("criterion") == "absolute_error":
        _refuse("criterion", "absolute_error", "it ranks a node's rows, not sums over them")
    if params.get("lookahead"):
        _refuse("lookahead", params["lookahead"], "it reads a node's rows between levels")
    if params.get("leaf_model") == "linear":
        _refuse("leaf_model", "linear", "a leaf's model is fitted on the leaf's rows")
    if params.get("split") == "oblique":
        _refuse("split", "oblique", "its search reads a node's rows")
    if params.get("max_leaf_nodes") is not None:
        _refuse(
            "max_leaf_nodes", params["max_leaf_nodes"], "best-first growth is not level by level"
        )
    pruning = params.get("pruning")
    if pruning in ("pessimistic", "reduced_error"):
        _refuse("pruning", pruning, "it goes back to the training rows")
    if params.get("ccp_alpha") == "cv" or (
        pruning == "cost_complexity" and params.get("ccp_alpha") == 0.0
    ):
        _refuse("ccp_alpha", "cv", "cross-validation grows ten more trees on the rows")
    if params.get("c45_thresholds"):
        _refuse("c45_thresholds", True, "it moves thresholds to training values")
    if params.get("bootstrap") is True:
        _refuse(
            "bootstrap",
            True,
            "the multinomial bootstrap draws n rows from all n at once; use 'poisson' (the "
            "default of the Dask forests, drawn row by row) or False",
        )
    if params.get("feature_sampling") == "tree":
        _refuse("feature_sampling", "tree", "attributes are drawn per node")
    if params.get("class_weight") is not None:
        _refuse(
            "class_weight",
            params["class_weight"],
            "pass the class weights in sample_weight instead (y.map of a dict of weights)",
        )
    if params.get("warm_start"):
        _refuse("warm_start", True, "a forest is grown in one pass of all its trees")
    if params.get("oob_score"):
        _refuse("oob_score", True, "out-of-bag scores are computed locally")


class LevelCost(NamedTuple):
    """What one level of a Dask fit cost (of all the trees of a forest together).

    ``nodes``: the nodes split over all partitions; ``histogram_bytes``: the bytes of
    their histograms, which each partition sends up the reduction (``nodes x features x
    bins x (statistics + 1)`` numbers of 8 bytes, and the missing values' statistics);
    ``subtrees`` and ``subtree_rows``: the nodes gathered to one worker whose subtrees
    were grown there, and their rows; ``seconds``: the level's wall time, subtrees
    included."""

    level: int
    nodes: int
    histogram_bytes: int
    subtrees: int
    subtree_rows: int
    seconds: float


class LevelLog:
    """Answers a forest's (or a tree's) requests with ``answer``, logs each level (INFO,
    logger ``quercus.distributed.estimators``: the level, the nodes being split and the
    time since the fit began; the command line shows it as its progress line) and adds up
    what each level cost (:meth:`costs`). A level runs from the subtrees it hands over to
    the partition of its splits."""

    def __init__(self, answer, n_trees: int):
        self.answer = answer
        self.n_trees = n_trees
        self.level = 0
        self.started = time.perf_counter()
        self._costs: list[LevelCost] = []

    def __call__(self, kind, batch):
        batch = list(batch)
        began = time.perf_counter()
        while len(self._costs) <= self.level:
            self._costs.append(LevelCost(len(self._costs), 0, 0, 0, 0, 0.0))
        cost = self._costs[self.level]
        if kind == "histograms":
            nodes = sum(len(items) for _, items in batch)
            trees = f" of {self.n_trees} trees" if self.n_trees > 1 else ""
            logger.info(
                "level %d: splitting %d node%s%s [%.1f s]",
                self.level,
                nodes,
                "" if nodes == 1 else "s",
                trees,
                began - self.started,
            )
            cost = cost._replace(nodes=cost.nodes + nodes)
        elif kind == "subtrees":
            cost = cost._replace(
                subtrees=cost.subtrees + sum(len(items) for _, items in batch),
                subtree_rows=cost.subtree_rows
                + sum(item[2] for _, items in batch for item in items),
            )
        answers = self.answer(kind, batch)
        if kind == "histograms":
            sent = sum(a.nbytes for per_tree in answers for h in per_tree for a in h)
            cost = cost._replace(histogram_bytes=cost.histogram_bytes + sent)
        self._costs[self.level] = cost._replace(seconds=cost.seconds + time.perf_counter() - began)
        if kind == "partition":
            self.level += 1
        return answers

    def costs(self) -> list[LevelCost]:
        """One :class:`LevelCost` per level, in order."""
        return list(self._costs)


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


def grow_on_cluster(client, rows, setups: list, weigh=None, subtree_bytes=0) -> list:
    """Grow one tree per ``(bins, settings)`` of ``setups`` level by level over the
    ingested ``rows``, all trees in the same passes over the partitions; ``weigh``: the
    trees' factors of the rows' weights (see :class:`DaskForestStatistics`); a node whose
    rows take at most ``subtree_bytes`` is grown on one worker by the compiled grower.
    Returns each tree's grown arrays, and the :class:`LevelCost` of each level."""
    bins, settings = setups[0]
    layout = (bins.n_bins, int(bins.missing_code), settings.n_stats, settings.regression)
    statistics = DaskForestStatistics(
        client, rows.parts, layout, len(setups), rows.first_rows, weigh, bins
    )
    # A row: its padded codes, class code, target and weight.
    row_bytes = -(-len(bins.kinds) * rows.mapper.dtype.itemsize // 8) * 8 + 4 + 8 + 8
    small_rows = int(subtree_bytes) // row_bytes
    roots = statistics.answer("root", [(tree, None) for tree in range(len(setups))])
    for tree, (_, weight, _) in enumerate(roots):
        if not weight > 0:
            raise ValueError(
                f"tree {tree}'s bootstrap sample weighs 0 (of {sum(rows.n_rows)} rows, those "
                "drawn all have sample_weight 0, or bootstrap='poisson' drew none): fit on "
                "more rows, or another random_state"
            )
    steps = [
        levelwise.level_steps(root, bins, settings, small_rows)
        for root, (bins, settings) in zip(roots, setups, strict=True)
    ]
    log = LevelLog(statistics.answer, len(steps))
    return levelwise.drive_together(steps, log), log.costs()


# -- trees --------------------------------------------------------------------------------


class _DaskTree(_DaskModel):
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on the Dask collections ``X`` (a dask DataFrame or 2-d array),
        ``y`` (a dask Series or array) and ``sample_weight`` (None, or like ``y``), whose
        partitions line up; the rows stay on the workers."""
        twin = self._check_dask_params()
        client = dask_client(self.client)
        regression = twin._regression
        with scheduler_lost(client):
            rows = _ingest(twin, client, X, y, sample_weight)
            n_stats = 3 if regression else len(rows.classes)
            params = twin._growth_params(rows.n_features_in, rows.total_weight)
            tables = _bin_tables(rows)
            setup = growth_setup(tables, params, **twin._growth_setup(n_stats, rows.mapper))
            (grown,), levels = grow_on_cluster(
                client, rows, [setup], subtree_bytes=self.subtree_bytes
            )
        log = PruningLog(tree_from_grown(grown, params, regression), twin.schema_)
        if params.ccp_alpha > 0.0:
            log.cost_complexity(params.ccp_alpha)
        if getattr(twin, "collapse", False):
            log.collapse_unhelpful()
        twin.tree_ = log.tree
        twin.max_features_ = params.max_features
        twin._keep_pruning(log)
        self._take_fitted(twin)
        self.levels_ = levels
        return self

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


def _ingest(twin, client, X, y, sample_weight, **options):
    """The rows of ``X, y, sample_weight`` typed, binned and kept on the workers as
    ``twin``'s parameters say (:func:`~quercus.distributed.ingest.ingest`), and the fitted
    input attributes of ``twin`` (schema, features, classes)."""
    rows = ingest(
        client,
        X,
        y,
        sample_weight,
        nominal=twin.nominal_features,
        ordinal=twin.ordinal_features,
        max_bins=twin.max_bins,
        regression=twin._regression,
        **options,
    )
    _take_input(twin, rows)
    return rows


def _bin_tables(rows) -> BinnedData:
    """The bin tables of the ingested rows, as the growers read them (the rows themselves
    are on the workers)."""
    return BinnedData(rows.mapper, None, rows.kinds, rows.bin_lo, rows.bin_hi)


def _take_input(twin, rows) -> None:
    """The fitted input attributes of ``twin`` from the ingested rows."""
    twin.schema_ = rows.schema
    twin.n_features_in_ = rows.n_features_in
    if rows.feature_names_in is not None:
        twin.feature_names_in_ = rows.feature_names_in
    if rows.classes is not None:
        twin.classes_ = rows.classes
        twin.n_classes_ = len(rows.classes)


# -- forests ------------------------------------------------------------------------------


class _DaskForest(_DaskModel):
    def fit(self, X, y, sample_weight=None):
        """Grow the forest on the Dask collections ``X``, ``y`` and ``sample_weight`` (as
        the Dask trees take them): every tree advances one level per pass over the
        partitions, all trees in the same passes."""
        twin = self._check_dask_params()
        client = dask_client(self.client)
        regression = twin._regression
        with scheduler_lost(client):
            rows = _ingest(twin, client, X, y, sample_weight, keep_zero_weight=True)
            setups, weigh, params = self._forest_setups(twin, rows)
            grown, levels = grow_on_cluster(client, rows, setups, weigh, self.subtree_bytes)
        twin.trees_ = stack_trees([tree_from_grown(g, params, regression) for g in grown])
        twin._pack()
        self._take_fitted(twin)
        self.levels_ = levels
        return self

    @property
    def estimators_(self):
        """The fitted tree estimators, one per tree (those of :meth:`to_local`)."""
        if "trees_" not in self.__dict__:
            raise AttributeError(f"this {type(self).__name__} is not fitted: no estimators_")
        return self.to_local().estimators_

    @staticmethod
    def _forest_setups(twin, rows) -> tuple:
        """Each tree's ``(bins, settings)`` for :func:`grow_on_cluster`, the factors of the
        rows' weights its Poisson draws give (None without bootstrap), and the trees'
        growth parameters; draws ``twin``'s base seed."""
        regression = twin._regression
        n_stats = 3 if regression else len(rows.classes)
        n_rows = int(sum(rows.n_rows))
        twin._base_seed = int(check_random_state(twin.random_state).randint(0, 2**31 - 1))
        warn_of_forest_size(twin.n_estimators, stacklevel=4)
        twin._seeds = tree_seeds(twin._base_seed, 0, twin.n_estimators)
        params = growth_params(twin._tree_params(), rows.n_features_in, rows.total_weight, seed=0)
        weigh = None
        if twin.bootstrap:  # "poisson"
            weigh = partial(poisson_counts, twin._base_seed, rate=twin._poisson_rate(n_rows))
        tables = _bin_tables(rows)
        setups = [
            growth_setup(tables, replace(params, seed=seed), regression=regression, n_stats=n_stats)
            for seed in twin._seeds
        ]
        return setups, weigh, params

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
        the seconds (see :class:`quercus.distributed.estimators.LevelCost`). Besides it,
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
