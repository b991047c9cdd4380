"""The model: a tree's flat arrays (:class:`Tree`), many trees stacked (``stack``),
prediction (``_predict``), what a leaf predicts (``leaves``), the conditions of a path
(``conditions``), a model tree's terms (``terms``, ``linear_fit``) and C4.5's thresholds
at training values (``thresholds``). The learners that grow trees are ``quercus.grow``."""

from .arrays import Tree

__all__ = ["Tree"]
