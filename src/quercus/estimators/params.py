"""Every estimator parameter's type and range, checked without data, and the checked values
in the growth kernel's units.

One table, :data:`PARAM_RULES`, says what each parameter accepts. :func:`check_params`
applies it at the start of ``fit``, the command line applies it to ``--set`` values before
reading any data (a bad value is a usage error), and the model-file loader applies it to the
parameters a file holds. What depends on the data (``max_features`` at most the number of
features) is checked where the data is known: :func:`growth_params`, which trees and forests
call to turn their checked parameters into :class:`~quercus.grow.grower.GrowthParams`.
"""

from __future__ import annotations

import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._config import MISSING_POLICIES, NOMINAL
from ..capabilities import Need, level_wise_refusals
from ..criteria import registry
from ..splitting.lookahead_cost import lookahead_seconds

if TYPE_CHECKING:
    from ..grow.grower import GrowthParams


class InvalidParameterError(ValueError):
    """A parameter value outside what the estimator accepts; ``name`` is the parameter.
    ``remedy``, when known: parameter values that make the estimator acceptable (the
    command line says them as ``--set NAME=VALUE``)."""

    def __init__(self, message: str, name: str, remedy: Mapping | None = None):
        super().__init__(message)
        self.name = name
        self.remedy = dict(remedy or {})


@dataclass(frozen=True)
class ParamRule:
    """What one parameter accepts: ``accepts(value, estimator)`` and the words for it; for
    an integer, ``most``: the largest the kernels hold and why (None: no limit)."""

    accepts: Callable[[object, object], bool]
    describe: Callable[[object], str]
    most: tuple[int, str] | None = None


#: The largest count a tree's or a forest's 32-bit node, depth and bin numbers hold.
INT32_MOST = 2**31 - 1
#: The largest whole number a float64 weight holds exactly.
WEIGHT_MOST = 2**53
#: The largest size NumPy takes.
INT64_MOST = 2**63 - 1


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_real(value) -> bool:
    """A finite number (an integer too large for a float64 is not one)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # math.isfinite(10**400)
        return False


def _fraction(value, *, closed_right: bool) -> bool:
    """A float in (0, 1] or (0, 1)."""
    return (
        _is_real(value)
        and not _is_int(value)
        and 0 < value
        and (value <= 1 if closed_right else value < 1)
    )


def _fixed(
    accepts: Callable[[object], bool], words: str, most: tuple[int, str] | None = None
) -> ParamRule:
    return ParamRule(lambda value, _: accepts(value), lambda _: words, most)


def _choice(*options) -> ParamRule:
    words = " or ".join(repr(o) for o in options)
    return _fixed(lambda v: isinstance(v, str) and v in options, f"one of {words}")


def _boolean() -> ParamRule:
    return _fixed(lambda v: isinstance(v, bool | np.bool_), "True or False")


def _int_at_least(
    low: int, allow_none: bool = False, most: tuple[int, str] | None = None
) -> ParamRule:
    words = f"an integer >= {low}" + (" or None" if allow_none else "")
    return _fixed(lambda v: (v is None and allow_none) or (_is_int(v) and v >= low), words, most)


def _size(low: int) -> ParamRule:
    """``min_samples_*``: a count or a fraction of the training weight."""
    return _fixed(
        lambda v: (_is_int(v) and v >= low) or _fraction(v, closed_right=True),
        f"an integer >= {low} or a float in (0, 1]",
        (WEIGHT_MOST, "the kernels compare it with float64 weights, exact up to 2**53"),
    )


def _sequence(value) -> bool:
    """A list, tuple, set or 1-d array (not a string)."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, list | tuple | set | frozenset)


def _criteria(estimator) -> tuple:
    """The criterion names the registry lists for the estimator's task."""
    return registry.names(registry.REGRESSION if estimator.regression else registry.CLASSIFICATION)


def _losses(estimator) -> tuple:
    """The losses a booster fits (its class says)."""
    return tuple(getattr(estimator, "supported_losses", ()))


def _missing_policies(estimator) -> tuple:
    if _losses(estimator):  # a booster's Newton trees send missing values one way
        return ("learned", "majority")
    policies = tuple(MISSING_POLICIES)
    if estimator.regression:  # no class to take the majority of
        policies = tuple(p for p in policies if p != "class_majority")
    return policies


def _confidence_bounds(estimator) -> tuple[float, bool]:
    """J48 refuses a confidence above 0.5; Quinlan's C4.5 takes any in (0, 1)."""
    j48 = getattr(estimator, "c45_variant", "j48") == "j48"
    return (0.5, True) if j48 else (1.0, False)


def _confidence_ok(value, estimator) -> bool:
    high, closed = _confidence_bounds(estimator)
    return _is_real(value) and 0 < value and (value <= high if closed else value < high)


def _class_weight_ok(value, estimator) -> bool:
    if value is None:
        return True
    if isinstance(value, str):  # a forest may also weigh each tree's bootstrap sample
        return value == "balanced" or (
            value == "balanced_subsample" and hasattr(estimator, "n_estimators")
        )
    return isinstance(value, Mapping) and all(_is_real(w) and w >= 0 for w in value.values())


def _class_weight_words(estimator) -> str:
    forest = ", 'balanced_subsample'" if hasattr(estimator, "n_estimators") else ""
    return f"None, 'balanced'{forest} or a dict of class: weight >= 0"


#: The constructor parameters of each estimator class, as ``get_params`` names them.
_PARAM_NAMES: dict[type, tuple[str, ...]] = {}


def shallow_params(estimator) -> dict:
    """``estimator.get_params(deep=False)``, with the names read once per class:
    scikit-learn reads the constructor's signature at every call (a third of a millisecond,
    paid several times by every fit)."""
    names = _PARAM_NAMES.get(type(estimator))
    if names is None:
        names = _PARAM_NAMES[type(estimator)] = tuple(estimator.get_params(deep=False))
    return {name: getattr(estimator, name) for name in names}


def _model_tree(estimator) -> bool:
    """Whether ``estimator`` is a model tree (M5), whose pruning is on or off."""
    return "smoothing" in shallow_params(estimator)


def _pruning_ok(value, estimator) -> bool:
    if _model_tree(estimator):
        return isinstance(value, bool | np.bool_)
    return value is None or (
        isinstance(value, str) and value in ("pessimistic", "reduced_error", "cost_complexity")
    )


def _pruning_words(estimator) -> str:
    if _model_tree(estimator):
        return "True or False"
    return "None, 'pessimistic', 'reduced_error' or 'cost_complexity'"


def _column_key(key) -> bool:
    return isinstance(key, str) or _is_int(key)


def _nominal_ok(value) -> bool:
    if value is None or isinstance(value, str):
        return True
    return isinstance(value, list | tuple | np.ndarray) and all(_column_key(k) for k in value)


def _ordinal_ok(value) -> bool:
    if value is None:
        return True
    return isinstance(value, Mapping) and all(
        _column_key(k) and isinstance(levels, list | tuple | np.ndarray) and len(levels) > 0
        for k, levels in value.items()
    )


def _random_state_ok(value) -> bool:
    if value is None or isinstance(value, np.random.RandomState):
        return True
    return _is_int(value) and 0 <= value < 2**32


def _n_jobs_ok(value) -> bool:
    return value is None or (_is_int(value) and value != 0)


def _max_features_ok(value) -> bool:
    if value is None or isinstance(value, str):
        return value in (None, "sqrt", "log2")
    return (_is_int(value) and value >= 1) or _fraction(value, closed_right=True)


def _max_bins_ok(value) -> bool:
    if isinstance(value, str):
        return value == "auto"
    return value is None or (_is_int(value) and value >= 2)


def _max_samples_ok(value) -> bool:
    return value is None or (_is_int(value) and value >= 1) or _fraction(value, closed_right=True)


def _listed(options: tuple) -> str:
    return "one of " + ", ".join(repr(o) for o in options)


PARAM_RULES: dict[str, ParamRule] = {
    "criterion": ParamRule(
        lambda v, e: isinstance(v, str) and v in _criteria(e), lambda e: _listed(_criteria(e))
    ),
    "nominal_split": _choice("multiway", "binary"),
    "max_depth": _int_at_least(0, allow_none=True, most=(INT32_MOST, "a node's depth is int32")),
    "min_samples_split": _size(2),
    "min_samples_leaf": _size(1),
    "min_impurity_decrease": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    "ccp_alpha": _fixed(
        lambda v: v == "cv" if isinstance(v, str) else _is_real(v) and v >= 0,
        "a number >= 0 or 'cv'",
    ),
    "pruning": ParamRule(_pruning_ok, _pruning_words),
    "smoothing": _boolean(),
    "leaf_model": _choice("linear", "mean"),
    "confidence": ParamRule(
        _confidence_ok,
        lambda e: (
            "in (0, 0.5] (J48's bound; c45_variant='release8' allows (0, 1))"
            if _confidence_bounds(e)[1]
            else "in (0, 1)"
        ),
    ),
    "subtree_raising": _boolean(),
    "validation_fraction": _fixed(lambda v: _fraction(v, closed_right=False), "in (0, 1)"),
    "significance": _fixed(lambda v: v is None or (_is_real(v) and 0 < v < 1), "None or in (0, 1)"),
    "c45_thresholds": _boolean(),
    "c45_variant": _choice("j48", "release8"),
    "collapse": _boolean(),
    "missing": ParamRule(
        lambda v, e: isinstance(v, str) and v in _missing_policies(e),
        lambda e: _listed(_missing_policies(e)),
    ),
    "lookahead": _fixed(lambda v: _is_int(v) and 0 <= v <= 2, "0, 1 or 2"),
    "split": _choice("axis", "oblique"),
    "max_leaf_nodes": _int_at_least(
        2, allow_none=True, most=(INT32_MOST, "a tree numbers its nodes by int32")
    ),
    "max_features": _fixed(
        _max_features_ok,
        "None, 'sqrt', 'log2', an integer >= 1 or a float in (0, 1]",
        (INT32_MOST, "features are numbered by int32"),
    ),
    "max_bins": _fixed(
        _max_bins_ok, "'auto', None or an integer >= 2", (INT32_MOST, "bins are counted by int32")
    ),
    "class_weight": ParamRule(_class_weight_ok, _class_weight_words),
    "nominal_features": _fixed(_nominal_ok, "None, a column name or a list of names/positions"),
    "ordinal_features": _fixed(_ordinal_ok, "None or a dict of column: list of levels"),
    "random_state": _fixed(
        _random_state_ok, "None, an integer in [0, 2**32) or a numpy RandomState"
    ),
    "n_estimators": _int_at_least(
        1, most=(INT32_MOST, "a forest numbers its nodes by int32, each tree one at least")
    ),
    "feature_sampling": _choice("node", "tree"),
    "bootstrap": _fixed(
        lambda v: isinstance(v, bool | np.bool_) or (isinstance(v, str) and v == "poisson"),
        "True, False or 'poisson'",
    ),
    "max_samples": _fixed(
        _max_samples_ok,
        "None, an integer >= 1 or a float in (0, 1]",
        (INT64_MOST, "a tree's draws are counted by int64"),
    ),
    "oob_score": _boolean(),
    "voting": _choice("soft", "hard"),
    "n_jobs": _fixed(_n_jobs_ok, "None or a non-zero integer (-1: every core)"),
    # gradient boosting
    "loss": ParamRule(
        lambda v, e: isinstance(v, str) and v in _losses(e), lambda e: _listed(_losses(e))
    ),
    "learning_rate": _fixed(lambda v: _is_real(v) and v > 0, "a number > 0"),
    "max_iter": _int_at_least(1, most=(INT32_MOST, "trees are numbered by int32")),
    "min_child_weight": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    "l2_regularization": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    "l1_regularization": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    "subsample": _fixed(lambda v: _fraction(v, closed_right=True), "a float in (0, 1]"),
    "early_stopping": _fixed(
        lambda v: isinstance(v, bool | np.bool_) or v == "auto", "'auto', True or False"
    ),
    "n_iter_no_change": _int_at_least(1),
    "tol": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    # a scorer's name is checked by the booster against scikit-learn's list
    "scoring": _fixed(
        lambda v: v is None or isinstance(v, str) or callable(v),
        "'loss', None, a scikit-learn scorer's name or a scorer",
    ),
    "huber_delta": _fixed(lambda v: _is_real(v) and v > 0, "a number > 0"),
    "quantile": _fixed(lambda v: v is None or (_is_real(v) and 0 < v < 1), "None or in (0, 1)"),
    "nominal_smoothing": _fixed(lambda v: _is_real(v) and v >= 0, "a number >= 0"),
    "min_category_rows": _fixed(
        lambda v: (
            v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0)
        ),
        "None or an integer >= 0",
    ),
    "max_split_categories": _fixed(
        lambda v: (
            v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1)
        ),
        "None or an integer >= 1",
    ),
    "power": _fixed(lambda v: _is_real(v) and 1 < v < 2, "a number in (1, 2)"),
    "verbose": _int_at_least(0),
    "warm_start": _boolean(),
    "monotonic_cst": _fixed(
        lambda v: v is None or isinstance(v, dict) or _sequence(v),
        "None, a dict of feature names to -1, 0 or 1, or one of those per feature",
    ),
    "interaction_cst": _fixed(
        lambda v: (
            v is None
            or v in ("pairwise", "no_interactions")
            or (_sequence(v) and all(_sequence(group) for group in v))
        ),
        "None, 'pairwise', 'no_interactions' or groups of features (lists of indexes or names)",
    ),
}


def check_param(estimator, name: str, value) -> None:
    """An :class:`InvalidParameterError` when ``value`` is not what ``name`` accepts, or is
    an integer larger than the kernels hold."""
    rule = PARAM_RULES[name]
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    if not rule.accepts(value, estimator):
        raise InvalidParameterError(f"{name} must be {rule.describe(estimator)}, got {shown}", name)
    if rule.most is not None and _is_int(value) and value > rule.most[0]:
        most, why = rule.most
        raise InvalidParameterError(f"{name} must be at most {most:,} ({why}), got {shown}", name)


def check_params(estimator) -> None:
    """Check every parameter of ``estimator`` (:class:`InvalidParameterError` naming the
    first one that is wrong), and the pairs that must agree."""
    params = shallow_params(estimator)
    for name, value in params.items():
        check_param(estimator, name, value)
    criterion = params.get("criterion")
    if params.get("nominal_split") == "multiway" and not registry.get(criterion).multiway:
        raise InvalidParameterError(
            f"criterion {criterion!r} scores binary splits only; it needs nominal_split='binary'",
            "criterion",
        )
    if params.get("leaf_model") == "linear" and criterion == "absolute_error":
        raise InvalidParameterError(
            "leaf_model='linear' fits least-squares models: it needs criterion "
            "'squared_error' or 'm5', not 'absolute_error'",
            "leaf_model",
        )
    if params.get("lookahead"):
        _check_lookahead(estimator, params)
    if params.get("split") == "oblique":
        _check_oblique(params)
    if params.get("oob_score") and not params.get("bootstrap", True):
        raise InvalidParameterError(
            "oob_score needs bootstrap=True or 'poisson' (no row is out of bag otherwise)",
            "oob_score",
        )


def _refuse_with(params: Mapping, option: str, owner: str, refused, advice: str) -> None:
    """An :class:`InvalidParameterError` naming ``owner`` when ``params`` ask for one of
    the ``refused`` needs (:class:`~quercus.capabilities.Need`)."""
    for need in refused:
        if need.name in params and need.holds(params):
            raise InvalidParameterError(
                f"{option} does not combine with {need.name}={params[need.name]!r} "
                f"({need.why}): {advice}",
                owner,
            )


def _check_lookahead(estimator, params: Mapping) -> None:
    """The look-ahead grows level by level: what only the compiled grower does is refused,
    and for C4.5's missing values the policies that do work are named."""
    if params.get("missing") == "fractional":
        working = tuple(p for p in _missing_policies(estimator) if p != "fractional")
        default = inspect.signature(type(estimator)).parameters.get("missing")
        # C45Classifier (the command line's default algorithm) has it without being asked.
        whose = (
            f", the default of {type(estimator).__name__}"
            if default is not None and default.default == "fractional"
            else ""
        )
        raise InvalidParameterError(
            f"lookahead does not combine with missing='fractional'{whose} (C4.5's weighted "
            "copies of a row need the greedy grower): look-ahead works with missing="
            f"{', '.join(map(repr, working[:-1]))} or {working[-1]!r}; set one of them, or "
            "lookahead=0",
            "lookahead",
            remedy={"missing": working[0]},
        )
    _refuse_with(
        params,
        "lookahead",
        "lookahead",
        level_wise_refusals(params),
        "set lookahead=0 or change the other parameter",
    )


def _asks_lookahead(params: Mapping) -> bool:
    return bool(params.get("lookahead"))


#: The criteria whose gain an oblique split's search minimises: an impurity decrease.
OBLIQUE_CRITERIA = ("gini", "entropy", "information_gain", "misclassification", "squared_error")


def _check_oblique(params: Mapping) -> None:
    """Oblique splits grow level by level and score by an impurity's decrease: what does
    not fit is refused."""
    criterion = params.get("criterion")
    if criterion not in OBLIQUE_CRITERIA:
        raise InvalidParameterError(
            "split='oblique' minimises an impurity: it needs criterion 'gini', 'entropy' or "
            f"'misclassification' (classes) or 'squared_error' (regression), not {criterion!r}",
            "split",
        )
    # Besides growing level by level, an oblique split competes with single-feature
    # splits on constant leaves.
    oblique_only = (
        Need(
            "leaf_model", "linear", "", "linear leaves", lambda p: p.get("leaf_model") == "linear"
        ),
        Need("lookahead", None, "", "it chooses among single-feature splits", _asks_lookahead),
    )
    _refuse_with(
        params,
        "split='oblique'",
        "split",
        [*level_wise_refusals(params), *oblique_only],
        "use split='axis' or change the other parameter",
    )


#: A look-ahead fit estimated to take longer (the whole tree, its bins known) is refused...
LOOKAHEAD_BUDGET_SECONDS = 1800.0
#: ...and one estimated to take longer than this warns before it starts.
LOOKAHEAD_WARN_SECONDS = 60.0


def check_lookahead_budget(
    lookahead: int,
    n_rows: int,
    n_features: int,
    cuts: int,
    *,
    growth: GrowthParams,
    n_bins,
    kinds,
    trees: int = 1,
    stacklevel: int = 2,
) -> None:
    """Before a look-ahead fit of ``n_rows`` rows, ``cuts`` the cuts a feature offers at
    each level but the last.

    Given the growth parameters ``growth`` and the bins (each feature's number ``n_bins``
    and kernel kind ``kinds``), the whole fit of ``trees`` such trees (a tree and its
    cross-validation folds) is priced
    (:func:`~quercus.splitting.lookahead_cost.lookahead_seconds`): beyond
    :data:`LOOKAHEAD_BUDGET_SECONDS` an :class:`InvalidParameterError` naming ``lookahead``,
    beyond :data:`LOOKAHEAD_WARN_SECONDS` a warning (``stacklevel``: where it points, as
    for ``warnings.warn``), each with the estimate and the values of ``max_depth``,
    ``lookahead`` and ``min_samples_leaf`` that would take less."""
    price = _lookahead_price(growth, n_rows, n_bins, kinds, cuts, trees)
    seconds, levels = price()
    if seconds <= LOOKAHEAD_WARN_SECONDS:
        return
    refused = seconds > LOOKAHEAD_BUDGET_SECONDS
    # What would run without a warning; failing that, what the budget takes.
    quicker = _quicker_lookahead(price, growth, levels, n_rows, LOOKAHEAD_WARN_SECONDS)
    if refused and not quicker:
        quicker = _quicker_lookahead(price, growth, levels, n_rows, LOOKAHEAD_BUDGET_SECONDS)
    whole = "the whole tree" if trees == 1 else f"the tree and its {trees - 1} folds' trees"
    said = (
        f"lookahead={lookahead} on {n_rows:,} rows and {n_features} features: "
        f"{_duration(seconds)} estimated for {whole} ({levels} levels of nodes searched, "
        "bins included"
    )
    advice = " or ".join(f"{name}={value} ({_duration(t)})" for name, value, t in quicker)
    if refused:
        raise InvalidParameterError(
            f"{said}; the limit is {_duration(LOOKAHEAD_BUDGET_SECONDS)}): "
            + (f"set {advice}, or " if advice else "")
            + "use fewer rows or features",
            "lookahead",
            remedy={quicker[0][0]: quicker[0][1]} if quicker else None,
        )
    warnings.warn(
        f"{said}), before it starts" + (f"; {advice} would take less" if advice else ""),
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def _lookahead_price(growth: GrowthParams, n_rows: int, n_bins, kinds, cuts: int, trees: int):
    """``price(lookahead=, max_depth=, min_leaf=)``: the estimated ``(seconds, levels)`` of
    ``trees`` fits with those values in place of ``growth``'s."""
    n_bins = np.asarray(n_bins)
    many_ways = (np.asarray(kinds) == NOMINAL) & bool(growth.multiway)
    share = growth.max_features / max(len(n_bins), 1)

    def price(lookahead=growth.lookahead, max_depth=growth.max_depth, min_leaf=growth.min_leaf):
        seconds, levels = lookahead_seconds(
            lookahead,
            n_rows,
            n_bins,
            many_ways,
            max_depth=max_depth,
            min_rows=max(growth.min_split, 2.0 * min_leaf),
            share=share,
            cuts=cuts,
        )
        return trees * seconds, levels

    return price


def _quicker_lookahead(
    price, growth: GrowthParams, levels: int, n_rows: int, limit: float
) -> list[tuple]:
    """``(parameter, value, seconds)`` of the values that bring the look-ahead fit within
    ``limit`` seconds, one parameter changed at a time: the deepest ``max_depth`` that
    still leaves the root its look-ahead, ``lookahead=1``, the least ``min_samples_leaf``
    (a power of two)."""
    quicker = []
    for depth in range(levels - 1, growth.lookahead, -1):
        seconds = price(max_depth=depth)[0]
        if seconds <= limit:
            quicker.append(("max_depth", depth, seconds))
            break
    if growth.lookahead > 1:
        seconds = price(lookahead=1)[0]
        if seconds <= limit:
            quicker.append(("lookahead", 1, seconds))
    leaf = 2 ** math.ceil(math.log2(max(growth.min_leaf, 1.0) + 1.0))
    while 2 * leaf <= n_rows:
        seconds = price(min_leaf=float(leaf))[0]
        if seconds <= limit:
            quicker.append(("min_samples_leaf", leaf, seconds))
            break
        leaf *= 2
    return quicker


def _duration(seconds: float) -> str:
    """``seconds`` as people say them: "under a second", "about 40 s", "about 12 min",
    "about 3.5 h", "about 9 days"."""
    if seconds < 1.0:
        return "under a second"
    if seconds < 90.0:
        return f"about {seconds:.0f} s"
    if seconds < 90.0 * 60.0:
        return f"about {seconds / 60.0:.0f} min"
    if seconds < 48.0 * 3600.0:
        return f"about {seconds / 3600.0:.1f} h"
    return f"about {seconds / 86400.0:,.0f} days"


# -- checked values in the kernel's units -----------------------------------------------------


def size_in_weight(value, total_weight) -> float:
    """``min_samples_*`` in weight: a count as it is, a fraction of the total weight."""
    if isinstance(value, numbers.Integral):
        return float(value)
    return math.ceil(value * total_weight)


def features_per_split(value, n_features):
    """The number of features tried at a split (``value`` passed ``check_params``)."""
    if value is None:
        return n_features
    if value == "sqrt":
        return max(1, int(math.sqrt(n_features)))
    if value == "log2":
        return max(1, int(math.log2(n_features)))
    if isinstance(value, numbers.Integral):
        if value > n_features:
            raise InvalidParameterError(
                f"max_features must be in [1, n_features={n_features}], got {value}",
                "max_features",
            )
        return int(value)
    return max(1, int(value * n_features))


def growth_params(values: Mapping, n_features: int, total_weight: float, seed: int) -> GrowthParams:
    """The growth parameters in the kernel's units, from a tree's parameter ``values`` by
    name after ``check_params`` (trees and forests share the names; no ``ccp_alpha`` is 0)."""
    from ..grow.grower import GrowthParams  # the grower's kernels: imported for a fit only

    ccp_alpha = values.get("ccp_alpha", 0.0)
    return GrowthParams(
        criterion=registry.CRITERIA[values["criterion"]],
        multiway=values["nominal_split"] == "multiway",
        max_depth=-1 if values["max_depth"] is None else int(values["max_depth"]),
        min_split=size_in_weight(values["min_samples_split"], total_weight),
        min_leaf=size_in_weight(values["min_samples_leaf"], total_weight),
        min_impurity_decrease=float(values["min_impurity_decrease"]),
        max_leaf_nodes=-1 if values["max_leaf_nodes"] is None else int(values["max_leaf_nodes"]),
        max_features=features_per_split(values["max_features"], n_features),
        seed=seed,
        ccp_alpha=0.0 if ccp_alpha == "cv" else float(ccp_alpha),
        missing=MISSING_POLICIES[values["missing"]],
        lookahead=int(values.get("lookahead", 0)),
        oblique=values.get("split", "axis") == "oblique",
    )
