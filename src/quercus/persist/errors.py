"""The error of a model or forest file that cannot be loaded, and what a malformed document
raises on its way to one.

Every module of the package raises :class:`ModelError`; it sits here, below them all, so
that none has to import another for it.
"""

from __future__ import annotations


class ModelError(ValueError):
    """A model file that cannot be loaded: not JSON, truncated, of another format or
    version, or with inconsistent contents. The message names the file."""


# What a malformed document raises while it is read, should a check be missing: reported as
# a ModelError all the same.
MALFORMED = (
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    OverflowError,
    RecursionError,
)
