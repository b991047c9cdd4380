"""The report's pruning trace: each step of the tree's pruning (``pruning_path_``) with the
numbers that decided it, and for each pruned leaf the step that made it one."""

from __future__ import annotations

import dataclasses

from . import page

APPLIED = "\u2713"
#: Rows of the pruning table at most (the applied steps come first).
MAX_STEPS = 300

_METHODS = {
    "cost_complexity": "cost-complexity pruning (CART's weakest links)",
    "collapse": "C4.5's collapse of subtrees that do not reduce the training errors",
    "reduced_error": "reduced-error pruning (errors on the validation rows)",
    "pessimistic": "pessimistic pruning (C4.5's estimated errors)",
}

# The numbers that decide a step, by field, in words.
_NUMBERS = {
    "alpha": "\u03b1 (effective)",
    "impurity": "impurity after",
    "errors_as_leaf": "errors as a leaf",
    "errors_as_subtree": "errors as the subtree",
    "estimate_as_leaf": "estimated errors as a leaf",
    "estimate_as_subtree": "estimated errors as the subtree",
    "estimate_as_branch": "estimated errors as its largest branch",
}


def _final_ids(estimator) -> dict[int, int]:
    """The node of ``tree_`` of each grown node that is still in it."""
    origin = getattr(estimator, "grown_node_ids_", None)
    if origin is None:
        return {}
    return {int(g): k for k, g in enumerate(origin)}


def _numbers(step) -> list[tuple[str, float]]:
    return [
        (_NUMBERS[f.name], float(getattr(step, f.name)))
        for f in dataclasses.fields(step)
        if f.name in _NUMBERS
    ]


def step_words(step) -> str:
    """One step in words: the method, what it did and the numbers that decided it."""
    what = "made a leaf" if step.action == "leaf" else "replaced by its largest branch"
    numbers = ", ".join(f"{name} {value:.4g}" for name, value in _numbers(step))
    confidence = getattr(step, "confidence", None)
    tail = f" (confidence {confidence:g})" if confidence is not None else ""
    return f"{_METHODS[step.method]}, step {step.step}: {what}; {numbers}{tail}"


def pruned_by(estimator) -> dict[int, str]:
    """For each node of ``tree_`` that an applied step made a leaf, that step in words."""
    final = _final_ids(estimator)
    out = {}
    for step in getattr(estimator, "pruning_path_", None) or []:
        if step.applied and step.action == "leaf" and step.node in final:
            out[final[step.node]] = step_words(step)
    return out


def pruning_section(estimator) -> str:
    """The steps of the pruning, one table per method, or why there are none."""
    steps = getattr(estimator, "pruning_path_", None)
    if steps is None:
        return page.section(
            "pruning",
            "Pruning",
            page.paragraph(
                "This tree is not pruned. pruning='pessimistic' (C4.5), 'reduced_error' or "
                "'cost_complexity', or ccp_alpha > 0, prune a tree; the report then lists "
                "every step with the numbers that decided it.",
                "hint",
            ),
        )
    if not steps:
        return page.section(
            "pruning",
            "Pruning",
            page.paragraph("The pruning ran and took no step: every subtree was kept.", "hint"),
        )
    final = _final_ids(estimator)
    parts = [
        page.paragraph(
            f"{sum(s.applied for s in steps):,} steps made the tree from the one grown "
            f"({estimator.tree_grown_.n_leaves:,} leaves, now {estimator.get_n_leaves():,}). "
            "Steps not applied are the ones further pruning would take next, in order. Click "
            "a node to show it in the tree.",
            "hint",
        )
    ]
    shown = steps[:MAX_STEPS]
    methods = list(dict.fromkeys(s.method for s in shown))
    for method in methods:
        mine = [s for s in shown if s.method == method]
        parts.append(f"<h4>{page.escape(_METHODS[method])}</h4>")
        parts.append(_steps_table(mine, final))
    if len(steps) > MAX_STEPS:
        parts.append(
            page.paragraph(
                f"The first {MAX_STEPS:,} of {len(steps):,} steps; pruning_path_ holds them all.",
                "note",
            )
        )
    return page.section("pruning", "Pruning", *parts)


def _steps_table(steps, final: dict[int, int]) -> str:
    names = [name for name, _ in _numbers(steps[0])]
    heads = ["step", "node", "path", "action", "leaves after", *names, "applied"]
    head = "".join(f"<th>{page.escape(h)}</th>" for h in heads)
    rows = []
    for step in steps:
        node = final.get(step.node)
        if node is None:
            where = f"grown node {step.node}"
            cell = f"<td>{page.escape(where)}</td>"
        else:
            cell = f'<td><button type="button" class="goto" data-node="{node}">{node}</button></td>'
        action = "leaf" if step.action == "leaf" else "raise its largest branch"
        cells = [
            f'<td class="num">{step.step}</td>',
            cell,
            f"<td>{page.escape(step.path or '(the root)')}</td>",
            f"<td>{page.escape(action)}</td>",
            f'<td class="num">{step.n_leaves:,}</td>',
            *(f'<td class="num">{value:.4g}</td>' for _, value in _numbers(step)),
            f"<td>{APPLIED if step.applied else ''}</td>",
        ]
        cls = ' class="applied"' if step.applied else ' class="further"'
        rows.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    return (
        f'<table class="pruning"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
