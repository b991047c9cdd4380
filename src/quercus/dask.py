"""quercus on a Dask cluster: ``pip install "quercus[dask]"``.

The estimators take Dask collections (a ``dask.dataframe`` with numeric, string or
categorical columns and missing values, or a 2-d ``dask.array``) and learn from rows that
stay on the workers; their predictions are Dask arrays, computed partition by partition.
``to_local()`` gives the ordinary quercus estimator of the fitted model, and ``save()``
writes the same model files. A fit whose scheduler is lost on the way raises
:class:`ClusterLostError` (a ``ConnectionError``) naming the scheduler's address. See
``docs/distributed.md`` for how they learn and what it
costs, and :mod:`quercus.capabilities` for the options that stay local.
"""

from .distributed.estimators import (
    ClusterLostError,
    DaskCARTClassifier,
    DaskCARTRegressor,
    DaskDecisionTreeClassifier,
    DaskDecisionTreeRegressor,
    DaskID3Classifier,
    DaskRandomForestClassifier,
    DaskRandomForestRegressor,
)

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
