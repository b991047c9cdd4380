"""The learning trace: the hand computation of the lectures, generated for any data.

``fit(X, y, trace=True)`` keeps, for every node of the tree as grown (before any pruning),
every candidate attribute the search scored: its gain under the tree's criterion, its split
information and gain ratio, the split it would make, whether it was admissible, and which
one was chosen. ``print(tree.trace_)`` prints it node by node:

```
node 0 (root): 14 samples: No 5, Yes 9
  attribute    information gain  split information  gain ratio  split
  Outlook                 0.247              1.577       0.156  one branch per value  <- chosen
  Humidity                0.152              1.000       0.152  one branch per value
  ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import LEAF
from ..criteria import registry
from ..data.schema import NOMINAL_KIND, ORDINAL_KIND
from ..tree.conditions import branch_conditions, format_threshold

#: The candidates' columns that only a classification tree has: C4.5's normalisation of a
#: split's information gain by the information of its branch sizes. A regression tree's
#: variance (or absolute error) decrease is not divided by it.
CLASSIFICATION_COLUMNS = ("split_information", "gain_ratio")


def candidate_columns(columns, regression: bool) -> list[str]:
    """``columns`` of a table of candidate splits, without :data:`CLASSIFICATION_COLUMNS`
    for a regression tree."""
    return [c for c in columns if not (regression and c in CLASSIFICATION_COLUMNS)]


@dataclass
class LearningTrace:
    """Every node of the grown tree and every candidate split scored there.

    ``nodes``: one row per node (``node``, ``depth``, ``path``, ``samples``,
    ``distribution``, ``split``: the attribute chosen, or None for a leaf). ``candidates``:
    one row per node and candidate attribute (``node``, ``attribute``, ``gain`` under the
    tree's criterion, named in ``gain_name``, ``split_information`` and ``gain_ratio`` for
    a classification tree, ``split``, ``admissible``, ``chosen``). Thresholds are those of
    the search (midpoints; C4.5 then moves a chosen threshold to a training value). Node ids
    are those of the tree as grown, which pruning may renumber.
    """

    nodes: pd.DataFrame
    candidates: pd.DataFrame
    gain_name: str

    @classmethod
    def from_kernel(cls, estimator, grown, rows: np.ndarray, sides: np.ndarray) -> LearningTrace:
        """The trace from the kernel's records and the grown tree."""
        schema = estimator.schema_
        names = schema.names
        paths = _paths(grown, schema)
        nodes = pd.DataFrame(
            {
                "node": np.arange(grown.node_count),
                "depth": grown.depth,
                "path": paths,
                "samples": grown.weighted_n_node_samples,
                "distribution": [
                    _distribution(estimator, grown, i) for i in range(grown.node_count)
                ],
                "split": [
                    None if grown.kind[i] == LEAF else names[grown.feature[i]]
                    for i in range(grown.node_count)
                ],
            }
        )
        node_of = rows["node"].astype(np.int64)
        feature_of = rows["feature"].astype(np.int64)
        info = rows["split_info"]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(info > 0, rows["gain"] / info, np.nan)
        candidates = pd.DataFrame(
            {
                "node": node_of,
                "attribute": [names[f] for f in feature_of],
                "gain": rows["gain"],
                "split_information": info,
                "gain_ratio": ratio,
                "split": [
                    split_text(schema.features[f], ok, t, side)
                    for f, ok, t, side in zip(
                        feature_of, rows["admissible"], rows["threshold"], sides, strict=True
                    )
                ],
                "admissible": rows["admissible"],
                "chosen": [
                    grown.kind[n] != LEAF and grown.feature[n] == f
                    for n, f in zip(node_of, feature_of, strict=True)
                ],
            }
        )
        not_admissible = ~candidates["admissible"]
        candidates.loc[not_admissible, ["gain", "split_information", "gain_ratio"]] = np.nan
        candidates = candidates[candidate_columns(candidates.columns, grown.regression)]
        return cls(nodes, candidates, registry.get(estimator.criterion).gain_name)

    def node(self, node: int) -> pd.DataFrame:
        """The candidates scored at ``node``, in feature order."""
        return self.candidates[self.candidates["node"] == node].reset_index(drop=True)

    def to_text(self, decimals: int = 3) -> str:
        """The trace node by node, as printed by ``print(trace)``."""
        out = []
        for row in self.nodes.itertuples():
            where = "root" if row.depth == 0 else row.path
            head = f"node {row.node} ({where}): {row.distribution}"
            table = self.node(row.node)
            if table.empty:
                out.append(f"{head} -> leaf")
                continue
            if row.split is None:
                head += " -> leaf (no split passed the stopping rules)"
            out.append(head)
            out.extend("  " + line for line in self._table(table, decimals))
        return "\n".join(out) + "\n"

    def _table(self, table: pd.DataFrame, decimals: int) -> list[str]:
        """The candidates of one node as aligned text columns (ratios only for entropy)."""
        entropy = self.gain_name == "information gain"
        heads = ["attribute", self.gain_name]
        if entropy:
            heads += ["split information", "gain ratio"]
        heads.append("split")
        rows = []
        for c in table.itertuples():
            numbers = [c.gain, c.split_information, c.gain_ratio] if entropy else [c.gain]
            cells = [c.attribute]
            cells += ["-" if np.isnan(v) else f"{v:.{decimals}f}" for v in numbers]
            cells.append(c.split + ("  <- chosen" if c.chosen else ""))
            rows.append(cells)
        widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
        numeric = range(1, len(heads) - 1)

        def line(cells):
            parts = [
                cell.rjust(w) if i in numeric else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
            ]
            return "  ".join(parts).rstrip()

        return [line(heads)] + [line(r) for r in rows]

    def __str__(self) -> str:
        return self.to_text()


def _paths(tree, schema) -> list[str]:
    """The conditions leading to every node, joined by AND ("" for the root)."""
    paths = [""] * tree.node_count
    for node in range(tree.node_count):  # parents come before their children
        if tree.kind[node] == LEAF:
            continue
        first = tree.child_start[node]
        kids = tree.children[first : first + tree.n_children[node]]
        for kid, condition in zip(kids, branch_conditions(tree, schema, node), strict=True):
            paths[kid] = (paths[node] + " AND " if paths[node] else "") + str(condition)
    return paths


def _distribution(estimator, tree, node: int) -> str:
    weight = float(tree.weighted_n_node_samples[node])
    head = f"{weight:g} samples"
    if tree.regression:
        return f"{head}, mean {tree.leaf_values()[node, 0]:.4g}"
    parts = [
        f"{label} {count:g}"
        for label, count in zip(estimator.classes_, tree.value[node], strict=True)
        if count > 0
    ]
    return head + (": " + ", ".join(parts) if parts else "")


def split_text(feature, ok: bool, threshold: float, sides: np.ndarray) -> str:
    """The split a candidate of the trace makes, in words (``ok``: admissible)."""
    if not ok:
        return "not admissible"
    if feature.kind == NOMINAL_KIND:
        if (sides[: feature.n_categories] < 0).all():
            return "one branch per value"
        left = [str(c) for c, s in zip(feature.categories, sides, strict=False) if s == 0]
        return f"{feature.name} in {{{', '.join(left)}}}"
    if feature.kind == ORDINAL_KIND:
        return f"{feature.name} <= {feature.categories[int(threshold - 0.5)]}"
    return f"{feature.name} <= {format_threshold(threshold)}"
