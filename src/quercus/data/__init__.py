"""Ingestion and encoding: files and in-memory data -> typed frame + schema."""

from .encode import align_frame, as_frame, encode_classes, infer_schema
from .errors import DataError, DataWarning
from .read import Table, detect_format, read_table
from .schema import (
    NOMINAL_KIND,
    NUMERIC_KIND,
    ORDINAL_KIND,
    Feature,
    Schema,
    type_column,
    type_frame,
)

__all__ = [
    "NOMINAL_KIND",
    "NUMERIC_KIND",
    "ORDINAL_KIND",
    "DataError",
    "DataWarning",
    "Feature",
    "Schema",
    "Table",
    "align_frame",
    "as_frame",
    "detect_format",
    "encode_classes",
    "infer_schema",
    "read_table",
    "type_column",
    "type_frame",
]
