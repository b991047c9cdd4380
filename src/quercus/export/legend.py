"""What a picture of a tree moves out of its boxes into a legend, so that its text stays
readable: long sets of categories and, where there are many classes, the names of the classes.

- An edge of a subset split whose set has more than :data:`MAX_LISTED` categories is labelled
  by a key, ``in set A (12 values)``, and the legend lists the set in full: ``A: Neighborhood
  in {Blmngtn, ClearCr, ...}``. The same set of the same attribute keeps its key.
- A tree of more than :data:`MAX_NAMED_CLASSES` classes names no class in its inner nodes
  (``683 samples``, with the class bar of the matplotlib drawing); the legend gives each
  class's colour. Leaves still name the class they predict, in its colour.

Both the Graphviz export and :func:`quercus.plot.plot_tree` draw their legends from
:class:`Legend`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from .colours import class_colours

__all__ = ["Legend", "MAX_LISTED", "MAX_NAMED_CLASSES", "LEGEND_WIDTH"]

#: Categories an edge label lists; a longer set is named by a key and listed in the legend.
MAX_LISTED = 5
#: Classes a node's text names; with more, the legend names them by colour.
MAX_NAMED_CLASSES = 6
#: Characters per line of a set listed in the legend (longer sets wrap).
LEGEND_WIDTH = 100


def _key(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the key of the ``index``-th set."""
    key = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        key = chr(ord("A") + rest) + key
    return key


@dataclass
class Legend:
    """The sets of categories a picture names by key, and the classes it names by colour.

    ``class_names`` is empty unless the tree has more than :data:`MAX_NAMED_CLASSES` classes
    (then ``named_in_nodes`` is False). Without ``keyed``, no set is named by a key: the
    labels are written out in full and the legend stays empty.
    """

    class_names: list[str] = field(default_factory=list)
    sets: dict[tuple[str, str], str] = field(default_factory=dict)  # (name, text) -> key
    keyed: bool = True

    @classmethod
    def of(cls, estimator, enabled: bool = True) -> Legend:
        """The legend of ``estimator``'s tree: its classes when there are many of them; the
        sets are added as the edges are labelled (:meth:`edge_text`). Not ``enabled``: an
        empty legend that writes every label out in full."""
        if not enabled:
            return cls(keyed=False)
        tree = estimator.tree_
        classes = [] if tree.regression else [str(c) for c in estimator.classes_]
        return cls(classes if len(classes) > MAX_NAMED_CLASSES else [])

    @property
    def named_in_nodes(self) -> bool:
        """Whether the nodes' text names the classes of their cases."""
        return not self.class_names

    @property
    def colours(self) -> list[str]:
        """The colour of each of ``class_names``."""
        return class_colours(len(self.class_names))

    def edge_text(self, condition) -> str:
        """The label of the edge of ``condition`` (a branch's :class:`Condition`), without
        the attribute's name: ``Sunny``, ``<= 75.5``, ``in {a, b}`` or ``in set A (12
        values)``."""
        if condition.op == "=":
            return condition.text
        if self.keyed and condition.op == "in" and len(condition.codes) > MAX_LISTED:
            key = self.sets.setdefault((condition.name, condition.text), _key(len(self.sets)))
            return f"in set {key} ({len(condition.codes)} values)"
        return f"{condition.op} {condition.text}"

    def set_lines(self, width: int = LEGEND_WIDTH) -> list[str]:
        """The sets in full, in the order of their keys, wrapped at ``width`` characters (a
        continued line indented under its set)."""
        lines = []
        for (name, text), key in self.sets.items():
            lines += textwrap.wrap(
                f"{key}: {name} in {text}",
                width=width,
                subsequent_indent=" " * (len(key) + 2),
                break_on_hyphens=False,
            )
        return lines

    def __bool__(self) -> bool:
        return bool(self.class_names or self.sets)
