"""Tree builder, the flat tree arrays and prediction."""

from .arrays import Tree

__all__ = ["Tree"]
