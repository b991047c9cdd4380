"""Gradient boosting: the loop that adds a tree per iteration (per class for a multinomial
loss) to every row's raw scores, over the training rows wherever they live.

Each iteration (Friedman 2001; the Newton form of XGBoost and LightGBM):

1. every row's gradient ``g`` and hessian ``h`` of the loss at its raw scores become its
   working target ``-g / h`` and weight ``h`` (:meth:`TrainingRows.retarget`); rows of
   zero hessian weigh 0;
2. a regression tree grows on them for each raw score (:meth:`TrainingRows.grow`, the
   trees of one iteration side by side): with weights ``h`` and targets ``-g / h`` a node's
   statistics are ``H`` and ``-G``, its squared-error gain is Newton's gain
   ``G_L**2 / H_L + G_R**2 / H_R - G**2 / H`` (halved) and its mean ``-G / H`` is the
   Newton step;
3. the leaves' steps times the learning rate are added to the rows' raw scores
   (:meth:`TrainingRows.add_scores`); for absolute error and the quantile loss each
   leaf's step is first set to the weighted quantile of its rows' residuals
   (:meth:`TrainingRows.leaf_values`: the tree keeps these steps, step leaves);
4. the loss on the training rows (:meth:`TrainingRows.reduce`) and on the validation rows
   is recorded, and with early stopping the loop ends once the validation loss has not
   gone down by more than ``tol`` for ``n_iter_no_change`` iterations.

The loop knows the rows only through :class:`~quercus.grow.rows.TrainingRows`, so the same
loop runs on rows in memory and on a Dask cluster. ``subsample`` weighs each iteration's
rows by keyed Bernoulli draws (a row's draw depends on the seed, the iteration and the row
number only), the same however the rows are split into partitions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from ..grow.rows import TrainingRows, TreePlan
from ..tree import leaves
from ..tree.leaves import newton_steps
from ..tree.stack import TreeStack, concatenate, stack_trees
from .bootstrap import bernoulli_counts
from .losses import Loss, weighted_quantile
from .tree_sums import pack_trees, sum_trees

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BoostSettings:
    """How the loop runs: ``learning_rate`` scales every step; at most ``max_iter``
    iterations; ``l2`` and ``l1`` regularise the leaves' steps (the trees' growth
    specification regularises their splits alike); ``subsample`` the expected share of
    rows each iteration grows on (1: all); ``seed`` keys the subsample's and the trees'
    draws; early stopping after ``n_iter_no_change`` iterations without a validation loss
    lower than the best by more than ``tol`` (``n_iter_no_change`` None: no early
    stopping); ``n_threads`` for the gradients' pass over the rows (the model does not
    depend on it)."""

    learning_rate: float
    max_iter: int
    l2: float = 0.0
    l1: float = 0.0
    subsample: float = 1.0
    seed: int = 0
    n_iter_no_change: int | None = None
    tol: float = 1e-7
    n_threads: int = 1


@dataclass
class Validation:
    """Rows held out for early stopping: their raw values as prediction routes them
    (``matrix``), targets, weights and raw scores, updated iteration by iteration."""

    matrix: np.ndarray
    y: np.ndarray
    w: np.ndarray
    scores: np.ndarray | None = None
    #: What early stopping lowers, from the rows' raw scores (None: the loss).
    metric: Callable[[np.ndarray], float] | None = None

    def value(self, loss: Loss) -> float:
        """The value early stopping lowers at the rows' current raw scores."""
        if self.metric is None:
            return loss.value(self.y, self.scores, self.w)
        return float(self.metric(self.scores))


@dataclass(frozen=True)
class Resume:
    """A booster's state to go on from (``warm_start``): its ``start`` and its ``trees``
    of ``iterations`` iterations, the training and validation rows' raw scores with them,
    and the losses recorded up to them (``validation_loss`` empty without validation)."""

    start: np.ndarray
    trees: TreeStack
    iterations: int
    train_scores: np.ndarray
    validation_scores: np.ndarray | None
    train_loss: list
    validation_loss: list


@dataclass
class Boosted:
    """A booster's trees and record: ``start`` the raw scores before the first tree (one
    per raw score); ``trees`` tree ``i * n_scores + k`` adds to raw score ``k`` at
    iteration ``i`` (None before the first; what its nodes add to the raw scores is
    :func:`leaf_steps` of them); ``train_loss``/``validation_loss`` the losses before the
    first tree and after each iteration run; ``best_iteration`` the iterations kept."""

    start: np.ndarray
    trees: TreeStack | None = None
    train_loss: list = field(default_factory=list)
    validation_loss: list = field(default_factory=list)
    best_iteration: int = 0


def newton_targets(
    loss: Loss, classes: bool, y_class, y_value, w, scores
) -> tuple[np.ndarray, np.ndarray]:
    """The working targets ``-g / h`` and weights ``h`` of some rows (a
    :data:`~quercus.grow.rows.Retarget` once ``loss`` and ``classes`` are given): one
    column per raw score; a row whose hessian is 0 or subnormal (a log-loss row scored
    beyond about 700 the wrong way, whose ``-g / h`` would overflow) weighs 0 and has
    target 0."""
    g, h = loss.gradients(y_class if classes else y_value, scores, w)
    positive = h >= np.finfo(np.float64).tiny
    target = np.zeros_like(g)
    np.divide(-g, h, out=target, where=positive)
    return target, np.where(positive, h, 0.0)


def fused_targets(
    loss: Loss, classes: bool, y_class, y_value, w, scores, n_threads: int = 1
) -> tuple:
    """:func:`newton_targets` and :func:`loss_sums` of some rows in one pass (a
    :data:`~quercus.grow.rows.Retarget` that gives the loss at the same scores too), for a
    loss with a ``fused`` kernel, on ``n_threads`` threads."""
    return loss.fused(y_class if classes else y_value, scores, w, n_threads)


def fused_loss_sums(
    loss: Loss, classes: bool, y_class, y_value, w, scores, n_threads: int = 1
) -> np.ndarray:
    """:func:`loss_sums` by the loss's ``fused`` kernel (the same arithmetic as
    :func:`fused_targets`' sums; the targets are not kept)."""
    y = y_class if classes else y_value
    return loss.fused(y, scores, w, n_threads, sums_only=True)[2]


def loss_sums(loss: Loss, classes: bool, y_class, y_value, w, scores) -> np.ndarray:
    """``[weighted loss sum, weight]`` of some rows (a :data:`~quercus.grow.rows.PerRows`),
    whose ratio over all the rows is the mean loss."""
    total = float(np.sum(w))
    if total <= 0.0:
        return np.zeros(2)
    mean = loss.value(y_class if classes else y_value, scores, w)
    return np.array([mean * total, total])


def subsample_weights(seed: int, fraction: float, n_scores: int, tree: int, first_row: int, w):
    """The weights of rows ``first_row`` on (weights ``w``) in tree number ``tree``: kept
    (times 1) with probability ``fraction`` by keyed draws of the tree's iteration (``tree
    // n_scores``: the trees of one iteration share their rows), else 0."""
    return w * bernoulli_counts(seed, tree // n_scores, first_row, len(w), fraction)


def leaf_steps(
    trees: TreeStack, n_scores: int, learning_rate: float, l2: float = 0.0, l1: float = 0.0
) -> np.ndarray:
    """What each node of ``trees`` (whole iterations: tree ``t`` for raw score ``t %
    n_scores``) adds to the raw scores: its Newton step (regularised by ``l2`` and ``l1``:
    :func:`~quercus.tree.leaves.newton_steps`), or the step its tree keeps (step leaves),
    times ``learning_rate`` in its tree's column, shape ``(nodes, n_scores)``."""
    merged = trees.merged
    if merged.leaf_model == leaves.STEP:  # steps the statistics do not give, kept apart
        means = merged.leaf_params[:, 0]
    else:
        means = newton_steps(merged.value, l2, l1)
    steps = np.zeros((trees.merged.node_count, n_scores))
    score = np.repeat(np.arange(len(trees)) % n_scores, np.diff(trees.node_offsets))
    steps[np.arange(len(means)), score] = learning_rate * means
    return steps


def residual_quantile(q: float, y_class, y_value, w, scores) -> float:
    """The weighted ``q``-quantile of some rows' residuals ``y - raw`` (a leaf's step for
    the absolute error and the quantile loss)."""
    return weighted_quantile(y_value - scores[:, 0], w, q)


def quantile_leaves(rows: TrainingRows, trees: TreeStack, q: float) -> TreeStack:
    """``trees`` (just grown on ``rows``) with step leaves: each leaf's step the weighted
    ``q``-quantile of its rows' residuals, an inner node's its Newton step (shown, never
    added)."""
    merged = trees.merged
    params = newton_steps(merged.value)[:, None]
    for t, (nodes, values) in enumerate(rows.leaf_values(partial(residual_quantile, q))):
        params[trees.node_offsets[t] + nodes, 0] = values
    merged = replace(merged, leaf_model=leaves.STEP, leaf_params=params)
    return replace(trees, merged=merged)


def validation_scores(val: Validation, trees: TreeStack, steps: np.ndarray) -> None:
    """Add the iteration's ``trees`` (with their ``steps``) to the validation rows' raw
    scores, routed on their raw values as prediction routes them."""
    sum_trees(pack_trees(trees, lambda merged: steps), val.matrix, val.scores)


def _stopped(losses: list, best: int, settings: BoostSettings) -> bool:
    """Whether the last ``n_iter_no_change`` iterations all failed to beat the best
    validation loss (``losses[best]``) by more than ``tol``."""
    n = settings.n_iter_no_change
    return n is not None and len(losses) - 1 - best >= n


def boost(
    rows: TrainingRows,
    spec,
    loss: Loss,
    classes: bool,
    settings: BoostSettings,
    *,
    validation: Validation | None = None,
    on_iteration: Callable[[int, Boosted], None] | None = None,
    resume: Resume | None = None,
) -> Boosted:
    """Boost trees grown as ``spec`` (a :class:`~quercus.grow.grower.GrowthSpec` of a
    regression tree) on ``rows`` for ``loss`` (``classes``: the rows' targets are class
    codes); early stopping on ``validation`` when ``settings.n_iter_no_change`` is set.

    Returns the :class:`Boosted` trees of the best iteration: with early stopping, the
    iterations after the lowest validation loss are dropped. With ``resume``, the loop goes
    on from its iterations (tree seeds and subsamples numbered on from them: ``max_iter``
    iterations in two fits make the model of one)."""
    k = loss.n_scores
    fused = loss.fused is not None
    if fused:
        retarget = partial(fused_targets, loss, classes, n_threads=settings.n_threads)
        sums = partial(fused_loss_sums, loss, classes, n_threads=settings.n_threads)
    else:
        retarget = partial(newton_targets, loss, classes)
        sums = partial(loss_sums, loss, classes)
    # With a fused kernel, the loss after an iteration is recorded by the next iteration's
    # pass over the rows for the gradients; else, or when a progress report wants it at
    # once, by a pass of its own.
    deferred = fused and on_iteration is None
    weigh = None
    if settings.subsample < 1.0:
        weigh = partial(subsample_weights, settings.seed, settings.subsample, k)
    if resume is None:
        start = _start_scores(rows, loss, classes)
        result = Boosted(start=start)
        rows.start_scores(start)
        if not deferred:
            result.train_loss.append(_mean(rows.reduce(sums)))
        if validation is not None:
            validation.scores = np.tile(start, (len(validation.matrix), 1))
            result.validation_loss.append(validation.value(loss))
        first, earlier = 0, []
    else:
        first = resume.iterations
        result = Boosted(start=resume.start, train_loss=list(resume.train_loss))
        rows.start_scores(resume.train_scores)
        if validation is not None:
            validation.scores = resume.validation_scores
            result.validation_loss = list(resume.validation_loss)
        earlier = [resume.trees]
    stacks, best = [], first
    recorded = resume is not None or not deferred  # the loss at the rows' scores is
    for it in range(first, settings.max_iter):
        at_scores = rows.retarget(retarget)
        if not recorded:
            result.train_loss.append(
                _mean(at_scores) if at_scores is not None else _mean(rows.reduce(sums))
            )
        plans = [
            TreePlan(it * k + j, _tree_seed(settings.seed, it * k + j), target=j) for j in range(k)
        ]
        trees = stack_trees(list(rows.grow(spec, plans, weigh)))
        if loss.leaf_quantile is not None:
            trees = quantile_leaves(rows, trees, loss.leaf_quantile)
        step = leaf_steps(trees, k, settings.learning_rate, settings.l2, settings.l1)
        rows.add_scores(trees, step)
        stacks.append(trees)
        recorded = not deferred
        if recorded:
            result.train_loss.append(_mean(rows.reduce(sums)))
        if validation is not None:
            validation_scores(validation, trees, step)
            result.validation_loss.append(validation.value(loss))
            if result.validation_loss[-1] < result.validation_loss[best] - settings.tol:
                best = it + 1
        else:
            best = it + 1
        if on_iteration is not None:
            on_iteration(it, result)
        if validation is not None and _stopped(result.validation_loss, best, settings):
            logger.info("early stop after %d iterations, best %d", it + 1, best)
            break
    if not recorded:
        result.train_loss.append(_mean(rows.reduce(sums)))
    result.best_iteration = best
    kept = earlier + stacks[: best - first]  # (the iterations before a resumed fit's first)
    if kept:
        result.trees = concatenate(kept)
    return result


def _start_scores(rows: TrainingRows, loss: Loss, classes: bool) -> np.ndarray:
    """The loss's starting raw scores from the targets and weights of all the rows (taken
    whole: a quantile or Huber's location is no sum over partitions)."""
    y, w = rows.reduce(lambda y_class, y_value, w, scores: ((y_class if classes else y_value), w))
    return np.asarray(loss.start(y, w), dtype=np.float64)


def _mean(sums: np.ndarray) -> float:
    return float(sums[0] / sums[1]) if sums[1] > 0 else float("nan")


def _tree_seed(seed: int, tree: int) -> int:
    """Tree number ``tree``'s seed for its feature draws, from the booster's ``seed``."""
    return int(np.random.SeedSequence([seed, tree]).generate_state(1)[0])


__all__ = [
    "BoostSettings",
    "Boosted",
    "Resume",
    "Validation",
    "boost",
    "fused_loss_sums",
    "fused_targets",
    "leaf_steps",
    "loss_sums",
    "newton_targets",
    "quantile_leaves",
    "residual_quantile",
    "subsample_weights",
    "validation_scores",
]
