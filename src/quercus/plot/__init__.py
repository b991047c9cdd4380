"""Drawings with matplotlib (the optional extra ``quercus[plot]``): the tree, its decision
regions, the overfitting and learning curves, the impurity measures against ``p``, and a
booster's loss by iteration.

Every function draws on ``ax=`` (when None, on a new figure of its own: three calls make
three figures), works with any backend
(``Agg`` included), and returns what it drew: the curves and regions return a record of
the numbers with the Axes and Figure (``ax_``, ``figure_``), as scikit-learn's displays do.
"""

from .boosting import BoostingCurve, boosting_curve
from .curves import (
    ImpurityCurves,
    LearningCurve,
    OverfittingCurve,
    impurity_curves,
    learning_curve,
    overfitting_curve,
)
from .regions import DecisionRegions, Region, decision_regions
from .tree import plot_tree

__all__ = [
    "BoostingCurve",
    "DecisionRegions",
    "ImpurityCurves",
    "LearningCurve",
    "OverfittingCurve",
    "Region",
    "boosting_curve",
    "decision_regions",
    "impurity_curves",
    "learning_curve",
    "overfitting_curve",
    "plot_tree",
]
