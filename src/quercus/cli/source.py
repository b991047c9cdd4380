"""The data a ``quercus fit`` learns from, as :func:`quercus.cli.commands.run_fit` asks it:
:class:`FitSource`, the interface, and :class:`LocalSource`, DATA read into a table in
memory (the other, :class:`quercus.cli.dask_fit.DaskSource`, holds its rows on a Dask
cluster).

The fit is written once over a source: it decides the task from the source's
:class:`~quercus.cli.tasks.TaskData` (:func:`~quercus.cli.tasks.decide_task`), has the
source build the estimator with the command line's defaults
(:func:`~quercus.cli.tasks.cli_params`), fits it on the source's ``X`` and ``y``, and asks
the source for the training score; what it prints is the same whichever the source.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from contextlib import contextmanager

from ..data.read import Table
from ..warm import announce_compiling
from .fitted import FORESTS, training_score
from .progress import Progress
from .tasks import TaskData, check_settings, make_estimator, read_data, task_data, task_target


class FitSource(ABC):
    """The training data of a fit. The class checks the command line before any work
    (:meth:`checked_algorithm`) and opens the data (:meth:`opened`); the source opened
    answers the rest: :attr:`data` for the task, the estimator, ``X`` and ``y``, the
    progress of the fit, the model and its training score."""

    data: TaskData  # what the task is decided and said from
    in_memory: bool = True  # the rows are in this process: m5 is offered for a regression
    place: str = ""  # where the rows are, for the progress lines (" on ADDRESS")

    @classmethod
    @abstractmethod
    def checked_algorithm(cls, args) -> str:
        """The algorithm of ``args``, its ``--set`` settings checked before any work (a
        :class:`~quercus.cli.options.UsageError`)."""

    @classmethod
    @abstractmethod
    def opened(cls, args, progress: Progress):
        """A context manager: the source of ``args.data``, read, and open within the block
        (with whatever it holds open: a cluster)."""

    @abstractmethod
    def estimator(self, algorithm: str, regression: bool, settings: list) -> tuple:
        """The unfitted estimator of ``algorithm`` for the task, with the command line's
        defaults under the ``--set`` ``settings``, and the defaults left out (name ->
        value)."""

    @abstractmethod
    def training(self, regression: bool) -> tuple:
        """``(X, y)`` for ``estimator.fit``: the attributes and the target to learn."""

    @abstractmethod
    def shown(self, estimator, progress: Progress):
        """A context manager within which the fit of ``estimator`` shows its progress."""

    @abstractmethod
    def local_model(self, estimator):
        """The fitted ``estimator`` as a model of this process (to save, show, evaluate)."""

    @abstractmethod
    def score(self, model, regression: bool, progress: Progress) -> str:
        """The training score line (:func:`quercus.cli.fitted.score_line`) of the fitted
        ``model``."""


class LocalSource(FitSource):
    """DATA read into a table in memory (``quiet``: ``--quiet``)."""

    def __init__(self, table: Table, quiet: bool) -> None:
        self.table = table
        self.quiet = quiet
        self.data = task_data(table)

    @classmethod
    def checked_algorithm(cls, args) -> str:
        """The algorithm of ``args``, C4.5 by default."""
        algorithm = args.algorithm or "c45"
        check_settings(algorithm, args.set)
        return algorithm

    @classmethod
    @contextmanager
    def opened(cls, args, progress: Progress):
        progress.update(f"fit: reading {args.data}")
        table = read_data(args.data, args.target, nominal=args.nominal, ordinal=args.ordinal)
        yield cls(table, args.quiet)

    def estimator(self, algorithm: str, regression: bool, settings: list) -> tuple:
        return make_estimator(algorithm, regression, settings), {}

    def training(self, regression: bool) -> tuple:
        return self.table.X, task_target(self.table.y, self.data, regression)

    @contextmanager
    def shown(self, estimator, progress: Progress):
        """Within the block, a forest counts its trees on a progress bar, and the kernels
        say when they compile."""
        forest = isinstance(estimator, FORESTS)
        if forest and progress.enabled:
            estimator.set_params(verbose=1)
        with announce_compiling(sys.stderr, before=progress.clear, quiet=self.quiet):
            yield
        if forest:
            estimator.set_params(verbose=0)  # not saved as a setting of the model

    def local_model(self, estimator):
        return estimator

    def score(self, model, regression: bool, progress: Progress) -> str:
        return training_score(model, *self.training(regression), regression)


__all__ = ["FitSource", "LocalSource"]
