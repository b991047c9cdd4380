"""Reading a fitted model: text layouts of the tree."""

from .weka import weka_text

__all__ = ["weka_text"]
