"""What runs where, stated once: the parameter values that need more than sums over rows.

quercus grows trees three ways: the compiled grower (a node's rows in this process, every
option), the level-wise grower (each level from sums over the rows: the look-ahead and
oblique searches grow this way, and so does every fit on Dask) and the Dask fit (the
level-wise grower over rows that stay on the workers). :data:`NEEDS` lists each parameter
value that needs something the level-wise grower or the Dask fit lacks, and why; the
estimators' refusals, the grower's check and the command line's ``--dask`` messages are
all read from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

#: A node's rows ranked by target (a median), not summed.
RANK_ORDER = "rank order"
#: C4.5's copies of a row with a missing value, one per branch, weighted.
FRACTIONAL_COPIES = "fractional copies"
#: The order of splits over the whole tree (best first), not level by level.
BEST_FIRST = "best-first order"
#: The rows' values themselves, not their bins.
RAW_VALUES = "raw values"
#: The training rows in this process after growing, or all of them at once.
ROWS_IN_MEMORY = "rows in memory"
#: A set of columns of its own for each tree.
COLUMNS_PER_TREE = "columns per tree"
#: The record of every candidate the compiled grower scored.
GROWER_TRACE = "the grower's trace"

#: What the level-wise grower lacks: it sees sums over whole rows, level by level.
LEVEL_WISE_LACKS = frozenset({RANK_ORDER, FRACTIONAL_COPIES, BEST_FIRST, GROWER_TRACE})
#: What a fit on Dask lacks: the level-wise grower's, and the rows in this process.
DASK_LACKS = LEVEL_WISE_LACKS | {RAW_VALUES, ROWS_IN_MEMORY, COLUMNS_PER_TREE}


class Need(NamedTuple):
    """A parameter value that needs ``need`` (one of the constants above): ``name`` and
    ``value`` say it (``value`` None: any value but None, 0 or False), ``holds(params)``
    tells whether the parameters ask for it, ``why`` says what it does that needs it, and
    ``remedy``, when there is one, what to set instead on Dask."""

    name: str
    value: object
    need: str
    why: str
    holds: Callable[[Mapping], bool]
    remedy: str = ""

    def shown(self, params: Mapping) -> str:
        """The parameter and its value: ``name=value``."""
        value = params.get(self.name) if self.value is None else self.value
        return f"{self.name}={value!r}"

    def reason(self) -> str:
        """Why, and the remedy when there is one."""
        return f"{self.why}; {self.remedy}" if self.remedy else self.why


def _equals(name: str, value) -> Callable[[Mapping], bool]:
    return lambda params: params.get(name) == value


def _given(name: str) -> Callable[[Mapping], bool]:
    return lambda params: params.get(name) not in (None, 0, False)


def _alpha_by_cv(params: Mapping) -> bool:
    # ccp_alpha="cv", or cost-complexity pruning without an alpha (chosen the same way)
    alpha = params.get("ccp_alpha")
    return alpha == "cv" or (params.get("pruning") == "cost_complexity" and alpha == 0.0)


def _need(name, value, need, why, holds=None, remedy="") -> Need:
    if holds is None:
        holds = _given(name) if value is None else _equals(name, value)
    return Need(name, value, need, why, holds, remedy)


#: Every parameter value that needs more than the level-wise grower or Dask gives.
NEEDS = (
    _need(
        "missing",
        "fractional",
        FRACTIONAL_COPIES,
        "C4.5's weighted copies of a row are grown by the compiled grower",
    ),
    _need("criterion", "absolute_error", RANK_ORDER, "it ranks a node's rows, not sums over them"),
    _need("max_leaf_nodes", None, BEST_FIRST, "best-first growth is not level by level"),
    _need("trace", True, GROWER_TRACE, "the learning trace is recorded by the compiled grower"),
    _need("lookahead", None, ROWS_IN_MEMORY, "it reads a node's rows between levels"),
    _need("leaf_model", "linear", RAW_VALUES, "a leaf's model is fitted on the leaf's rows"),
    _need("split", "oblique", RAW_VALUES, "its search reads a node's rows"),
    _need("pruning", "pessimistic", ROWS_IN_MEMORY, "it goes back to the training rows"),
    _need("pruning", "reduced_error", ROWS_IN_MEMORY, "it goes back to the training rows"),
    _need(
        "ccp_alpha",
        "cv",
        ROWS_IN_MEMORY,
        "cross-validating the pruning would grow ten more trees on the cluster",
        holds=_alpha_by_cv,
        remedy="a fixed ccp_alpha prunes without it",
    ),
    _need("c45_thresholds", True, RAW_VALUES, "it moves thresholds to training values"),
    _need(
        "bootstrap",
        True,
        ROWS_IN_MEMORY,
        "the multinomial bootstrap draws n rows from all n at once",
        holds=lambda params: params.get("bootstrap") is True,
        remedy="use 'poisson' (the default of the Dask forests, drawn row by row) or False",
    ),
    _need("feature_sampling", "tree", COLUMNS_PER_TREE, "attributes are drawn per node"),
    _need(
        "class_weight",
        None,
        ROWS_IN_MEMORY,
        "class weights are computed from the labels in memory",
        holds=lambda params: params.get("class_weight") is not None,
        remedy="pass the class weights in sample_weight instead (y.map of a dict of weights)",
    ),
    _need("warm_start", True, ROWS_IN_MEMORY, "a forest is grown in one pass of all its trees"),
    _need("oob_score", True, ROWS_IN_MEMORY, "out-of-bag scores are computed locally"),
)

#: The learners that need the rows in this process as a whole, and why (they have no Dask
#: estimator).
LOCAL_LEARNERS = {
    "c45": "C4.5's fractional missing values and pessimistic pruning need the rows in memory",
    "m5": "M5's model trees fit a linear model at every node and prune and smooth them over "
    "the rows in memory",
    "boost": "gradient boosting on a Dask cluster does not exist yet: a booster learns from "
    "the rows in memory",
}


def needs_of(params: Mapping, lacking: frozenset = DASK_LACKS) -> list[Need]:
    """The :class:`Need` of each of ``params`` (by name) that needs one of ``lacking``, in
    the order of :data:`NEEDS`."""
    return [n for n in NEEDS if n.need in lacking and n.name in params and n.holds(params)]


def dask_refusal(params: Mapping) -> Need | None:
    """The first of ``params`` (by name) that a fit on Dask cannot take, or None."""
    found = needs_of(params, DASK_LACKS)
    return found[0] if found else None


def level_wise_refusals(params: Mapping) -> list[Need]:
    """The needs of ``params`` that the level-wise grower lacks."""
    return needs_of(params, LEVEL_WISE_LACKS)


__all__ = [
    "BEST_FIRST",
    "COLUMNS_PER_TREE",
    "DASK_LACKS",
    "FRACTIONAL_COPIES",
    "GROWER_TRACE",
    "LEVEL_WISE_LACKS",
    "LOCAL_LEARNERS",
    "NEEDS",
    "RANK_ORDER",
    "RAW_VALUES",
    "ROWS_IN_MEMORY",
    "Need",
    "dask_refusal",
    "level_wise_refusals",
    "needs_of",
]
