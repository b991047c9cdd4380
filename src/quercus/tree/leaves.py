"""What a leaf predicts: the leaf models, in one place.

A tree's nodes all hold their training statistics (``Tree.value``: class weights, or
weight, weighted sum and weighted sum of squares of the target). What a leaf predicts from
them is its *leaf model*:

- ``"distribution"`` (classification): the class weights, normalised to probabilities;
- ``"mean"`` (regression, squared error): the weighted mean target, from the statistics;
- ``"median"`` (regression, absolute error): the weighted median target, which the
  statistics cannot give: the grower computes it from the node's rows and the tree keeps it
  as the leaf model's one parameter per node;
- ``"step"`` (a booster's trees): the leaf's step, which the statistics do not give when
  it is a quantile of the rows' residuals (absolute error, quantile loss) or a Newton step
  held within monotonic bounds; the tree keeps it as the one parameter per node (a booster
  whose steps are the statistics' Newton steps keeps ``"mean"`` leaves);
- ``"linear"`` (model trees, M5): a linear model of the row's terms
  (:mod:`quercus.tree.terms`). Its parameters per node are the coefficients of the terms,
  the intercept and the model's training RMSE before smoothing (what M5P prints beside each
  leaf). A node's prediction without a row, where one is needed (the text of a split's
  branches), is its training mean.

A model whose prediction needs parameters beyond the statistics keeps them in
``Tree.leaf_params`` (one row per node). Prediction, forests, pruning, the text exports and
the model files all go through this module, so a new kind of leaf is added here.
"""

from __future__ import annotations

import numpy as np

from ..criteria.registry import ABSOLUTE_ERROR

DISTRIBUTION = "distribution"
MEAN = "mean"
MEDIAN = "median"
STEP = "step"
LINEAR = "linear"


def model_for(regression: bool, criterion: int | None = None) -> str:
    """The leaf model of a tree grown with ``criterion`` (a criterion's kernel code)."""
    if not regression:
        return DISTRIBUTION
    return MEDIAN if criterion == ABSOLUTE_ERROR else MEAN


def check_model(model: str, regression: bool) -> None:
    """Raise ``ValueError`` unless ``model`` is a leaf model of the task."""
    allowed = (MEAN, MEDIAN, STEP, LINEAR) if regression else (DISTRIBUTION,)
    if model not in allowed:
        task = "regression" if regression else "classification"
        raise ValueError(f"leaf model {model!r} is not one of {task}'s: {', '.join(allowed)}")


def n_params(model: str) -> int:
    """The leaf model's parameters per node (the columns of ``Tree.leaf_params``)."""
    return 1 if model in (MEDIAN, STEP) else 0


def params_from_grown(
    model: str, nodes: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray | None:
    """The leaf model's parameters from the grower's node records (``grow/_records.NODE``),
    written into ``out`` (``(n_nodes, n_params(model))``) when given, or None for a model
    without parameters. A one-parameter model's value is the record's ``median`` field."""
    if model not in (MEDIAN, STEP):
        return None
    if out is None:
        out = np.empty((len(nodes), 1))
    out[:, 0] = nodes["median"]
    return out


def predictions(model: str, value: np.ndarray, params: np.ndarray | None) -> np.ndarray:
    """What each node predicts, ``(n_nodes, outputs)``: class probabilities (the first
    class for a node of no weight), or the mean or median target (0 for no weight; a linear
    model's node: its training mean; a step: the step)."""
    if model in (MEDIAN, STEP):
        return params[:, :1]
    if model in (MEAN, LINEAR):
        w = value[:, 0]
        return np.where(w > 0, value[:, 1] / np.where(w > 0, w, 1.0), 0.0)[:, None]
    totals = value.sum(axis=1, keepdims=True)
    return value / np.where(totals > 0, totals, 1.0)


def newton_steps(value: np.ndarray, l2: float = 0.0, l1: float = 0.0) -> np.ndarray:
    """The Newton step of each node of a booster's tree, shape ``(n_nodes,)``: from its
    statistics ``[H, -G, .]`` (the hessian sum and minus the gradient sum), ``-G`` moved
    ``l1`` towards 0 (0 within ``l1``), over ``H + l2``; 0 for a node of no weight. With
    neither, the mean leaf's prediction."""
    w, total = value[:, 0], value[:, 1]
    if l1 > 0.0:
        total = np.sign(total) * np.maximum(np.abs(total) - l1, 0.0)
    return np.where(w > 0, total / np.where(w > 0, w + l2, 1.0), 0.0)


def linear_predictions(params: np.ndarray, leaf: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """A linear leaf model's prediction for rows of ``terms`` (their term matrix) that end
    in the nodes ``leaf``."""
    n_terms = terms.shape[1]
    coef = params[leaf, :n_terms]
    return np.einsum("ij,ij->i", coef, terms) + params[leaf, n_terms]


def name_of_value(model: str) -> str:
    """The word for a regression leaf's value in the text exports: "mean", "median" or
    "step"."""
    return {MEDIAN: "median", STEP: "step"}.get(model, "mean")


def to_file(model: str, params: np.ndarray | None) -> dict:
    """The model-file fields of a leaf model: ``{"median": per-node list}`` for medians,
    ``{"linear": per-node rows}`` for linear models, none for models the file describes by
    its criterion."""
    if model == MEDIAN:
        return {"median": params[:, 0]}
    if model == STEP:
        return {"step": params[:, 0]}
    if model == LINEAR:
        return {"linear": params}
    return {}


def from_file(
    median: np.ndarray | None,
    regression: bool,
    linear: np.ndarray | None = None,
    step: np.ndarray | None = None,
) -> tuple[str, np.ndarray | None]:
    """``(leaf model, parameters)`` of a model file's tree: its ``median`` field, when
    present, makes a median leaf model, its ``linear`` field a linear one, its ``step``
    field a booster's steps."""
    if linear is not None:
        return LINEAR, linear
    if step is not None:
        return STEP, np.asarray(step, dtype=np.float64).reshape(-1, 1)
    if median is not None:
        return MEDIAN, np.asarray(median, dtype=np.float64).reshape(-1, 1)
    return (MEAN if regression else DISTRIBUTION), None
