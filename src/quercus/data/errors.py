"""The one exception type for bad input data."""

from __future__ import annotations


class DataError(ValueError):
    """Input data that quercus cannot use as it is.

    The message names the file, column or value at fault; ``column`` holds the column name
    where one is to blame, so that programs (and the command line) can point at it.
    """

    def __init__(self, message: str, *, column: str | None = None, source: str | None = None):
        super().__init__(message)
        self.column = column
        self.source = source


class DataWarning(UserWarning):
    """Input data that quercus can use, but not as the user may have meant it."""
