"""How a quercus estimator shows itself in a notebook.

A fitted tree shows its tree (the report's tree view: branches that open and close, a click
on a node shows its rows), a fitted forest its summary and its first tree; an unfitted
estimator shows scikit-learn's box of parameters, as every scikit-learn estimator does
(:mod:`quercus.report.notebook` builds the view). ``sklearn.set_config(display="text")``
turns the HTML off, as it does for scikit-learn's estimators.
"""

from __future__ import annotations

from sklearn import get_config


class NotebookDisplay:
    """The notebook's view of a tree or forest: ``_repr_html_`` and ``_repr_mimebundle_``
    (placed before scikit-learn's ``BaseEstimator`` among the bases, whose box it replaces
    once the estimator is fitted)."""

    @property
    def _repr_html_(self):
        """The HTML a notebook shows; absent (an AttributeError) when scikit-learn's
        ``display`` configuration is ``"text"``, as scikit-learn's own is."""
        if get_config()["display"] != "diagram":
            raise AttributeError(
                "_repr_html_ is only defined when the 'display' configuration option is set "
                "to 'diagram'"
            )
        return self._repr_html_inner

    def _repr_html_inner(self) -> str:
        from ..report.notebook import notebook_html

        return notebook_html(self)

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """What Jupyter's display shows: the text of ``repr`` and, unless scikit-learn's
        ``display`` configuration is ``"text"``, the HTML of :meth:`_repr_html_`."""
        output = {"text/plain": repr(self)}
        if get_config()["display"] == "diagram":
            output["text/html"] = self._repr_html_inner()
        return output
