"""Loading model and ensemble files: ``quercus.load``.

The file formats (``model_file``, ``ensemble_file`` with ``forest_file``) sit below the
estimators, which call them to save themselves; this module sits above the estimators and
forests and gives the formats the classes a file may name, so that no import goes back down
and up again.
"""

from __future__ import annotations

from .. import estimators
from .ensemble_file import is_ensemble_file
from .errors import ModelError
from .forest_file import FOREST_ESTIMATORS, read_forest
from .model_document import MODEL_ESTIMATORS, model_from_document
from .model_file import read_model

__all__ = ["ModelError", "load", "model_from_dict"]


def _model_classes() -> dict:
    return {name: getattr(estimators, name) for name in MODEL_ESTIMATORS}


def _forest_classes() -> dict:
    # Imported for a forest file only: a tree's file needs none of the forests' modules.
    from .. import ensemble

    return {name: getattr(ensemble, name) for name in FOREST_ESTIMATORS}


def load(path):
    """The estimator or forest saved in ``path`` by its ``save`` method.

    A zip archive is read as an ensemble file (a forest), anything else as a JSON model file (see
    ``docs/model-format.md``). Raises :class:`ModelError`, with a message naming the file,
    when the file is missing or unreadable, not JSON (truncated or corrupt), of another
    format or version, or inconsistent.
    """
    if is_ensemble_file(path):  # a zip archive: an ensemble's arrays
        return read_forest(path, _forest_classes())
    return read_model(path, _model_classes())


def model_from_dict(doc: dict):
    """The estimator described by a model document (``model_to_dict`` of
    :mod:`quercus.persist.model_document` gives one), after the checks that loading a file
    makes (:class:`ModelError` when it is not a quercus model of this format version, or is
    inconsistent)."""
    return model_from_document(doc, _model_classes())
