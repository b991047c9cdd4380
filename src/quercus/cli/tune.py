"""``quercus tune``: choose an algorithm's parameters (or the algorithm) by cross-validation.

The search is scikit-learn's ``GridSearchCV`` over a one-step ``Pipeline`` whose step is the
algorithm, so that one search can also choose among algorithms (each with its own grid), on
the folds of ``quercus cv`` (:func:`quercus.cli.evaluate.cv_splits`). Every value of
``--grid`` and every candidate it makes is checked against the estimators' parameter rules
before any data is read: a value they do not take is a usage error naming it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np
from sklearn.model_selection import GridSearchCV, ParameterGrid
from sklearn.pipeline import Pipeline

from .._grids import DEFAULT_GRIDS
from ..estimators.params import InvalidParameterError, check_params
from ..model_selection import corrected_ttest, score_spread
from ..warm import announce_compiling
from .evaluate import cv_splits, format_comparison, format_spread, splits_text
from .fitted import check_output
from .options import UsageError, value_text
from .output import plural, results_stream, save_model
from .progress import Progress
from .tasks import (
    ALGORITHMS,
    algorithm_name,
    check_settings,
    cli_defaults,
    common_task,
    estimator_classes,
    make_estimator,
    read_data,
    settings_by_algorithm,
    task_data,
    task_line,
)

STEP = "model"  # the pipeline's one step: the algorithm


# -- checks before the data is read -------------------------------------------------------------


def _grid_names(args, algorithms: list[str]) -> dict[str, dict[str, list]]:
    """The ``--grid`` parameters of each algorithm (those it has), after the checks that
    need no data: no parameter twice, none also fixed by ``--set``, each known to one of
    the algorithms."""
    seen = set()
    for name, _ in args.grid:
        if name in seen:
            raise UsageError(f"--grid {name} is given twice: list all its values in one --grid")
        seen.add(name)
    fixed = {name for name, _ in args.set}
    for name, _ in args.grid:
        if name in fixed:
            raise UsageError(f"--grid {name} is also fixed by --set {name}: give one of the two")
    own = settings_by_algorithm(algorithms, args.grid, option="--grid")
    return {algorithm: dict(pairs) for algorithm, pairs in own.items()}


def _describe(candidate: dict) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in candidate.items()) or "its defaults"


def _refusal(algorithm: str, fixed: list, candidate: dict, regression: bool | None):
    """The :class:`InvalidParameterError` of ``candidate`` (with the settings ``fixed``)
    when no estimator of ``algorithm`` takes it, else None."""
    classes = estimator_classes(algorithm, regression)
    problems = []
    for cls in classes:
        names = cls().get_params(deep=False)
        params = dict(cli_defaults(algorithm, cls is ALGORITHMS[algorithm].regressor))
        params.update({k: v for k, v in [*fixed, *candidate.items()] if k in names})
        try:
            check_params(cls(**{k: v for k, v in params.items() if k in names}))
        except InvalidParameterError as exc:
            problems.append(exc)
    return problems[0] if len(problems) == len(classes) else None


def _check_candidates(
    algorithm: str, fixed: list, grid: list[dict], regression: bool | None, source: str
) -> None:
    """A :class:`UsageError` for the first candidate of ``grid`` that no estimator of
    ``algorithm`` takes (a value out of range, or two parameters that cannot go together),
    naming the parameter and the value."""
    for candidate in ParameterGrid(grid):
        exc = _refusal(algorithm, fixed, candidate, regression)
        if exc is None:
            continue
        if exc.name in candidate:
            raise UsageError(
                f"{source} {exc.name}={candidate[exc.name]!r} for --algorithm {algorithm}: {exc}"
            )
        raise UsageError(
            f"{source}: the candidate {_describe(candidate)} of --algorithm {algorithm}: {exc}"
        )


def _check_values(algorithms, settings, grids: dict[str, dict[str, list]]) -> None:
    """Every ``--grid`` value, alone and in every candidate, against each algorithm that has
    the parameter (before the task is known: a value either estimator takes)."""
    for algorithm in algorithms:
        grid = grids[algorithm]
        for name, values in grid.items():
            for value in values:
                check_settings(algorithm, [*settings[algorithm], (name, value)], option="--grid")
        if grid:
            _check_candidates(algorithm, settings[algorithm], [grid], None, "--grid")


# -- the search ---------------------------------------------------------------------------------


def _base_estimator(algorithm: str, regression: bool, settings: list, seed: int):
    """The estimator every candidate of ``algorithm`` starts from: the command line's
    defaults and ``--set``; seeded by ``--seed`` (reduced-error pruning's held-out rows, a
    forest's bootstrap samples) unless ``--set random_state`` says otherwise."""
    estimator = make_estimator(algorithm, regression, settings)
    if "random_state" in estimator.get_params() and "random_state" not in dict(settings):
        estimator.set_params(random_state=seed)
    return estimator


def _grid_of(algorithm: str, estimator, grids, settings: list, regression: bool, given):
    """The grid searched for ``algorithm``: its ``--grid`` parameters when --grid is given,
    else its default grid without the parameters ``--set`` fixes and without the values
    they exclude (``--set split=oblique`` takes no ``criterion='absolute_error'``)."""
    if given:  # checked before the data was read, now for the task's estimator alone
        grid, source = [grids[algorithm]], "--grid"
    else:
        fixed = dict(settings)
        grid = []
        # The grids of quercus.model_selection.default_grid, read by class name.
        for entry in DEFAULT_GRIDS[type(estimator).__name__]:
            kept = {
                name: [
                    v
                    for v in values
                    if _refusal(algorithm, settings, {name: v}, regression) is None
                ]
                for name, values in entry.items()
                if name not in fixed
            }
            if all(kept.values()) and kept not in grid:
                grid.append(kept)
        source = f"the default grid of --algorithm {algorithm} with --set"
    _check_candidates(algorithm, settings, grid, regression, source)
    return grid


class _Scorer:
    """``estimator.score`` (accuracy, or R^2), counted on a progress bar: GridSearchCV
    scores each fit once, so the count is the fits done."""

    def __init__(self, progress: Progress, total: int, refit: str):
        self.bar = progress.bar(total, "tune: fits")
        self.progress, self.refit = progress, refit

    def __call__(self, estimator, X, y) -> float:
        score = float(estimator.score(X, y))
        self.bar.update(1)
        if self.bar.n == self.bar.total:
            self.bar.close()
            self.progress.update(self.refit)
        return score


@dataclass(frozen=True)
class Candidate:
    """One row of the table: its index in ``cv_results_``, its algorithm, the values
    searched, its score on every split and its rank."""

    index: int
    algorithm: str
    values: dict
    scores: np.ndarray
    rank: int


def _candidates(search, bases: dict) -> list[Candidate]:
    """The candidates of a finished search, best first (ties in the grid's order), their
    values in the order the grid lists the parameters."""
    order = {
        name: i
        for i, name in enumerate(dict.fromkeys(k for entry in search.param_grid for k in entry))
    }
    results = search.cv_results_
    n_splits = search.n_splits_
    rows = []
    for index, params in enumerate(results["params"]):
        algorithm = next(a for a, base in bases.items() if params[STEP] is base)
        searched = sorted((k for k in params if k != STEP), key=order.__getitem__)
        values = {k.removeprefix(f"{STEP}__"): params[k] for k in searched}
        scores = np.array([results[f"split{i}_test_score"][index] for i in range(n_splits)])
        rows.append(
            Candidate(index, algorithm, values, scores, int(results["rank_test_score"][index]))
        )
    return sorted(rows, key=lambda c: (c.rank, c.index))


def _table(candidates: list[Candidate], several: bool, score: str) -> str:
    """The candidates as a text table: rank, algorithm, the searched values ('-' where a
    candidate does not search that parameter), mean and standard deviation over the splits."""
    names = list(dict.fromkeys(name for c in candidates for name in c.values))
    headers = ["rank", *(["algorithm"] if several else []), *names, score, "std"]
    rows = []
    for c in candidates:
        cells = [str(c.rank), *([c.algorithm] if several else [])]
        cells += [value_text(c.values[name]) if name in c.values else "-" for name in names]
        cells += [f"{np.mean(c.scores):.3f}", f"{np.std(c.scores, ddof=1):.3f}"]
        rows.append(cells)
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]
    numeric = {0, len(headers) - 2, len(headers) - 1}

    def line(cells):
        return "  ".join(
            cell.rjust(w) if j in numeric else cell.ljust(w)
            for j, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)]) + "\n"


def _rivals(candidates: list[Candidate], several: bool) -> list[tuple[str, Candidate]]:
    """What the best is compared with: the best of each other algorithm, or the runner-up."""
    best = candidates[0]
    if several:
        rivals, seen = [], {best.algorithm}
        for c in candidates:
            if c.algorithm not in seen:
                seen.add(c.algorithm)
                rivals.append((f"best of {c.algorithm}", c))
        return rivals
    return [("runner-up", candidates[1])] if len(candidates) > 1 else []


def _report(out: TextIO, args, search, bases, sizes, regression: bool) -> None:
    """The table, the best candidate with its spread, and its paired comparisons."""
    several = len(bases) > 1
    score = "R^2" if regression else "accuracy"
    candidates = _candidates(search, bases)
    spread_of = splits_text(args.folds, args.repeats)
    out.write(_table(candidates, several, score))
    best = candidates[0]
    n_train, n_test = sizes
    out.write(
        f"\nbest: {algorithm_name(best.algorithm, bases[best.algorithm])} with "
        f"{_describe(best.values)}\n"
    )
    spread = score_spread(best.scores, n_train=n_train, n_test=n_test)
    out.write(format_spread(spread, score, spread_of, bounded=not regression))
    for what, rival in _rivals(candidates, several):
        out.write(f"\nthe best against the {what} (rank {rival.rank}: {_describe(rival.values)})\n")
        test = corrected_ttest(best.scores, rival.scores, n_train=n_train, n_test=n_test)
        out.write(format_comparison(test, ("best", what), score, spread_of))
    if len(candidates) > 1:
        out.write(
            "\nnote: the best was chosen on these folds, so its score is optimistic; an\n"
            "unbiased estimate needs data not used to choose it (nested cross-validation)\n"
        )


def run_tune(args, out: TextIO) -> int:
    """``quercus tune``: a cross-validated grid search; the table of candidates, the best,
    its comparison with the runner-up, and the best refitted on all rows with -o."""
    algorithms = list(dict.fromkeys(args.algorithm or ["c45"]))
    settings = settings_by_algorithm(algorithms, args.set)
    for algorithm in algorithms:
        check_settings(algorithm, settings[algorithm])
    grids = _grid_names(args, algorithms)
    _check_values(algorithms, settings, grids)
    check_output(args.output)
    model_out, out = out, results_stream(args.output, out)  # text to stderr for -o -
    table = read_data(args.data, args.target, nominal=args.nominal, ordinal=args.ordinal)
    # Each must learn the task (a regression: cart, forest, m5; m5 makes it a regression).
    regression, y = common_task(table, algorithms)
    bases = {a: _base_estimator(a, regression, settings[a], args.seed) for a in algorithms}
    param_grid = []
    for algorithm, base in bases.items():
        for entry in _grid_of(
            algorithm, base, grids, settings[algorithm], regression, bool(args.grid)
        ):
            param_grid.append({STEP: [base], **{f"{STEP}__{k}": v for k, v in entry.items()}})
    X, y = table.X.reset_index(drop=True), y.reset_index(drop=True)
    splits = cv_splits(
        y, folds=args.folds, seed=args.seed, repeats=args.repeats, regression=regression
    )
    n_candidates = len(ParameterGrid(param_grid))
    first = bases[algorithms[0]]
    out.write(task_line(task_data(table), regression, algorithms[0], first, algorithms))
    for algorithm in algorithms[1:]:
        out.write(f"also searched: {algorithm_name(algorithm, bases[algorithm])}\n")
    kind = "" if regression else "stratified "
    folds = splits_text(args.folds, args.repeats).replace("folds", f"{kind}folds")
    out.write(
        f"grid search: {plural(n_candidates, 'candidate')} x {folds} (shuffled, seed "
        f"{args.seed}) = {plural(n_candidates * len(splits), 'fit')}, "
        f"scored by {'R^2' if regression else 'accuracy'}"
        f"{'' if args.grid else ' (the default grid)'}\n"
    )
    with (
        Progress(args.quiet) as progress,
        announce_compiling(sys.stderr, before=progress.clear, quiet=args.quiet),
    ):
        scorer = _Scorer(
            progress,
            n_candidates * len(splits),
            f"tune: refitting the best on all {len(y):,} rows",
        )
        search = GridSearchCV(
            Pipeline([(STEP, bases[algorithms[0]])]),
            param_grid,
            scoring=scorer,
            cv=splits,
            refit=True,
            error_score="raise",
        )
        search.fit(X, y)
        scorer.bar.close()
    sizes = np.mean([(len(train), len(test)) for train, test in splits], axis=0)
    _report(out, args, search, bases, tuple(float(s) for s in sizes), regression)
    if args.output is not None:
        best = search.best_estimator_.named_steps[STEP]
        save_model(best, args.output, model_out, args.quiet, what="best model")
    return 0


__all__ = ["run_tune"]
