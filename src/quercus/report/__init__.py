"""The report: a fitted tree or forest, its data and its evaluation in one self-contained
HTML page (``estimator.report(X, y, path)``, ``quercus report DATA -o report.html``)."""

from .build import render_report, write_report

__all__ = ["render_report", "write_report"]
