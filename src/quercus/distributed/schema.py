"""The schema and the classes of a whole Dask collection, from its merged first-pass report.

The client types the union of the partitions' distinct values with the very function a
local fit types the whole column with (:func:`quercus.data.infer_schema`), so kinds,
categories, warnings and errors are the local ones; the class labels are
:func:`~quercus.estimators.validate.classes_and_codes`'s of the union of the labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.encode import infer_schema
from ..data.errors import DataError
from ..data.schema import NUMERIC_KIND
from ..estimators.validate import as_1d, classes_and_codes
from .capacity import MAX_VALUES
from .partitions import Source
from .reports import Report

__all__ = ["classes_from_report", "schema_from_report"]


def _cycled(sample: pd.Series, length: int) -> pd.Series:
    """``sample`` repeated to ``length`` values: the same distinct values and dtype."""
    return sample.iloc[np.arange(length) % len(sample)].reset_index(drop=True)


def schema_from_report(report: Report, source: Source, nominal, ordinal, levels) -> tuple:
    """The schema of the whole ``X``: the union of the partitions' distinct values typed
    by :func:`~quercus.data.infer_schema`, as the whole column would be. Also, per column,
    whether it is typed as a categorical (its values kept as they are)."""
    length = max(len(column.sample) for column in report.columns)
    union = pd.DataFrame(
        {
            label: _cycled(column.sample, length)
            for label, column in zip(source.labels, report.columns, strict=True)
        }
    )
    _, schema = infer_schema(union, nominal=nominal, ordinal=ordinal)
    for feature, column in zip(schema.features, report.columns, strict=True):
        if feature.kind == NUMERIC_KIND:
            continue
        if column.overflow or feature.n_categories > MAX_VALUES:
            raise DataError(
                f"column {feature.name!r} has more than {MAX_VALUES:,} distinct categories:"
                " too many for a nominal attribute on a cluster (each category needs a code"
                " of 16 bits); drop it, or group its values first",
                column=feature.name,
            )
    categorical = tuple(
        isinstance(union[label].dtype, pd.CategoricalDtype) and name not in levels
        for label, name in zip(source.labels, source.names, strict=True)
    )
    return schema, categorical


def classes_from_report(report: Report) -> np.ndarray:
    """The class labels, as :func:`classes_and_codes` finds them in the whole ``y``."""
    labels = as_1d(report.labels, len(report.labels))
    classes = classes_and_codes(labels)[0]  # its errors first: continuous targets ...
    if report.labels_overflow:
        raise ValueError(
            f"y has more than {MAX_VALUES:,} distinct class labels: is it a regression target?"
        )
    return classes
