"""Reading a fitted tree: as text, rules, Graphviz DOT and explanations (model files are
``quercus.persist``)."""

from .explain import explain
from .graphviz import export_graphviz
from .leaf_rules import LeafRule, export_rules, to_rules
from .text import export_text
from .weka import weka_text

__all__ = [
    "LeafRule",
    "explain",
    "export_graphviz",
    "export_rules",
    "export_text",
    "to_rules",
    "weka_text",
]
