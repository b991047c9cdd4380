"""Model files: a fitted tree estimator as a versioned JSON file, and back (never running code).

This module reads and writes the file; what the file holds is the model document of
:mod:`~quercus.persist.model_document` (``model_to_dict``, ``model_from_document``), which
is where the format is made and checked. Reading a file gives a :class:`ModelError` naming
it, whatever failed: the file missing or unreadable, not UTF-8, not JSON, or a document
that does not load.

Writing goes to a temporary file that replaces the target only when complete
(``quercus._files``), so a failed save never leaves a truncated file or loses the old one.
The same model gives the same bytes, but for the ``created`` date, which
``SOURCE_DATE_EPOCH`` fixes.

The estimators import :func:`save_model` from here, and the format's names (``FORMAT``,
``MODEL_ESTIMATORS``, ``model_to_dict``, ...) remain importable from here as they were
before the document moved to its own module.
"""

from __future__ import annotations

import json
from pathlib import Path

from .._files import write_file
from .document import parse_json
from .errors import ModelError
from .model_document import (
    FORMAT,
    FORMAT_VERSION,
    MODEL_ESTIMATORS,
    model_from_document,
    model_to_dict,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MODEL_ESTIMATORS",
    "ModelError",
    "model_from_document",
    "model_to_dict",
    "read_model",
    "save_model",
]


def save_model(estimator, path) -> Path:
    """Write ``estimator`` to ``path`` as a JSON model file; returns the path."""
    text = json.dumps(model_to_dict(estimator), ensure_ascii=False, allow_nan=False)
    return write_file(path, lambda out: out.write(text.encode("utf-8")))


def read_model(path, classes: dict):
    """The estimator saved in the model file ``path`` by :func:`save_model`, built from
    ``classes`` (the allow-list: class name -> class).

    Raises :class:`ModelError`, with a message naming the file, when the file is missing or
    unreadable, not JSON (truncated or corrupt), of another format or version, or
    inconsistent.
    """
    path = Path(path)
    where = f"model file {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"{where} not found") from None
    except UnicodeDecodeError:
        raise ModelError(f"{where} is not UTF-8 text: not a quercus model") from None
    except OSError as exc:
        raise ModelError(f"{where} cannot be read: {exc.strerror or exc}") from None
    try:
        return model_from_document(parse_json(text, where), classes)
    except ModelError as exc:
        message = str(exc)
        raise ModelError(message if message.startswith(where) else f"{where}: {message}") from None
