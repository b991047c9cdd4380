"""Loading model and ensemble files: ``quercus.load``.

The file formats (``model_file``, ``ensemble_file`` with ``forest_file``) sit below the
estimators, which call them to save themselves; this module sits above the estimators and
forests and gives the formats the classes a file may name, so that no import goes back down
and up again.
"""

from __future__ import annotations

from .. import estimators
from .booster_file import BOOSTER, BOOSTER_ESTIMATORS
from .ensemble_file import is_ensemble_file, read_ensemble
from .errors import ModelError
from .forest_file import FOREST, FOREST_ESTIMATORS
from .model_document import MODEL_ESTIMATORS, model_from_document
from .model_file import read_model

__all__ = ["ModelError", "load", "model_from_dict"]


def _model_classes() -> dict:
    return {name: getattr(estimators, name) for name in MODEL_ESTIMATORS}


def _ensemble_classes() -> dict:
    # Imported for an ensemble file only: a tree's file needs none of the ensembles' modules.
    from .. import ensemble

    return {name: getattr(ensemble, name) for name in (*FOREST_ESTIMATORS, *BOOSTER_ESTIMATORS)}


#: The kind of each ensemble class a file may name.
_ENSEMBLE_KINDS = dict.fromkeys(FOREST_ESTIMATORS, FOREST) | dict.fromkeys(
    BOOSTER_ESTIMATORS, BOOSTER
)


def load(path):
    """The estimator, forest or booster saved in ``path`` by its ``save`` method.

    A zip archive is read as an ensemble file (a forest or a booster), anything else as a
    JSON model file (see ``docs/model-format.md``). Raises :class:`ModelError`, with a
    message naming the file, when the file is missing or unreadable, not JSON (truncated or
    corrupt), of another format or version, or inconsistent.
    """
    if is_ensemble_file(path):  # a zip archive: an ensemble's arrays
        return read_ensemble(path, _ensemble_classes(), _ENSEMBLE_KINDS)
    return read_model(path, _model_classes())


def model_from_dict(doc: dict):
    """The estimator described by a model document (``model_to_dict`` of
    :mod:`quercus.persist.model_document` gives one), after the checks that loading a file
    makes (:class:`ModelError` when it is not a quercus model of this format version, or is
    inconsistent)."""
    return model_from_document(doc, _model_classes())
