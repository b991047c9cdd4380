"""A Sphinx directive of the quercus docs: tables built from the measured reference files.

``.. j48-reference:: ../tests/fixtures/j48_reference.json`` renders Weka J48's figures as
``scripts/j48_reference.py`` stored them for the test suite (accuracy over its folds, tree
sizes), so that the page and the tests read one file and the page cannot drift from it.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils.statemachine import StringList
from pygments.lexers.data import JsonLexer
from pygments.token import Comment
from sphinx.util.docutils import SphinxDirective


class J48Reference(SphinxDirective):
    """A table of the J48 reference: one row per data set."""

    required_arguments = 1

    def run(self):
        _, filename = self.env.relfn2path(self.arguments[0], self.env.docname)
        path = Path(filename)
        self.env.note_dependency(filename)
        fixture = json.loads(path.read_text(encoding="utf-8"))
        datasets = fixture["datasets"]
        rows = [
            "* - data set",
            "  - rows",
            "  - folds",
            "  - J48 accuracy over the folds",
            "  - J48 leaves per fold (mean)",
            "  - J48 leaves on all rows",
            "  - J48's tree text on file",
        ]
        for name in sorted(datasets):
            entry = datasets[name]
            default = entry["configs"]["default"]
            full = default["full_tree"]
            rows += [
                f"* - {name}",
                f"  - {entry['n_rows']:,}",
                f"  - {len(default['per_fold'])}",
                f"  - {default['accuracy']:.4f}",
                f"  - {default['mean_leaves']:.1f}",
                f"  - {full['leaves']:,}",
                f"  - {'yes' if full['text'] is not None else 'no (too long)'}",
            ]
        n_folds = sum(len(d["configs"]["default"]["per_fold"]) for d in datasets.values())
        with_text = sum(
            d["configs"]["default"]["full_tree"]["text"] is not None for d in datasets.values()
        )
        text = [
            f"{len(datasets)} data sets, {n_folds} folds in all, {with_text} trees on file; "
            f"Weka {fixture['weka_version']}, J48 "
            f"``{next(iter(datasets.values()))['configs']['default']['options']}``.",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "",
            *("   " + row for row in rows),
        ]
        container = self.parse_content(text)
        return container

    def parse_content(self, lines):
        from docutils import nodes

        node = nodes.container()
        self.state.nested_parse(
            StringList(lines, source=self.arguments[0]), self.content_offset, node
        )
        return node.children


class ExampleOrder:
    """The gallery's order: from the hand computation to forests, then files and drawings."""

    ORDER = (
        "plot_playtennis_by_hand.py",
        "plot_c45_missing_pruning.py",
        "plot_cart_regression_pruning.py",
        "plot_overfitting_curve.py",
        "plot_forest_importances.py",
        "plot_save_and_load.py",
        "plot_draw_tree.py",
        "plot_decision_regions.py",
    )

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = Path(filename).name
        return (self.ORDER.index(name), name) if name in self.ORDER else (len(self.ORDER), name)

    def __repr__(self):
        return "ExampleOrder"


class ElidedJsonLexer(JsonLexer):
    """JSON in which ``...`` stands for elided items, as the model-format page writes it."""

    name = "JSON with ... for elided items"

    def get_tokens_unprocessed(self, text):
        offset = 0
        for k, part in enumerate(text.split("...")):
            if k:
                yield offset, Comment, "..."
                offset += 3
            for index, token, value in super().get_tokens_unprocessed(part):
                yield offset + index, token, value
            offset += len(part)


def setup(app):
    app.add_directive("j48-reference", J48Reference)
    app.add_lexer("json", ElidedJsonLexer)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
