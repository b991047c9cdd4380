"""Input checks shared by the tree estimators and the forests.

Typing ``X`` and learning its schema, matching prediction data to it (:class:`TabularInput`),
the target as one column (:func:`as_1d`), class labels as codes (:func:`classes_and_codes`),
sample weights in units of samples (:func:`as_counts`) and the sizes of numbers that the
growth kernels can sum (:data:`WEIGHT_LIMIT`, :data:`TARGET_LIMIT`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy.sparse import issparse
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ..data.encode import (
    align_frame,
    align_matrix,
    infer_numeric_schema,
    infer_schema,
    is_numeric_array,
)
from ..data.errors import DataError
from ..data.schema import NUMERIC_KIND, Schema

__all__ = [
    "LINEAR_FEATURE_LIMIT",
    "TARGET_FLOOR",
    "TARGET_LIMIT",
    "WEIGHT_LIMIT",
    "TabularInput",
    "as_1d",
    "numeric_targets",
    "as_counts",
    "check_linear_features",
    "check_weight_total",
    "classes_and_codes",
    "counts_of_shares",
    "predict_matrix",
    "routing_matrix",
    "sample_weights",
    "training_cases",
    "typed_rows",
    "with_target_name",
]

# The growth kernels sum, for each node, the weight W of its rows, and for regression the
# weighted sums of the targets and of their squares; the criteria then square class weights
# (Gini), the weighted sum of targets ((sum of w y)^2 / W) and multiply W by the sum of
# squares (M5's). With W at most WEIGHT_LIMIT and every |y| at most TARGET_LIMIT, each of
# these is at most (W |y|)^2 = 1e300, below float64's largest (1.8e308): the margin lets a
# tree's weight grow 10,000-fold, as a forest's bootstrap sample does when it draws rows
# many times (max_samples allows 1,000 draws a row on average). Above them, a sum overflows
# to infinity and the tree comes out wrong without a word (NaN probabilities, one leaf).
# Scaling the weights or the targets down would keep the sums finite but not the model:
# weights are counts of samples (min_samples_leaf, C4.5's pruning and the recorded node
# weights read them so), and the leaf values and variances a model records are in units of
# the target (a variance of targets near 1e300 is no float at all).

#: The largest total sample weight (class weights included) that a fit takes.
WEIGHT_LIMIT = 1e50
#: The largest size of a regression target.
TARGET_LIMIT = 1e100
#: A regression target whose values are all smaller than this (and not all 0) is refused:
#: weighted sums of their squares come near float64's smallest numbers (2.2e-308), where
#: they lose their precision or underflow to 0, and the tree would see no variance.
TARGET_FLOOR = 1e-100
#: The largest size of a numeric feature of linear leaf models (model trees,
#: ``leaf_model='linear'``): their least-squares fits sum weight x feature x feature and
#: weight x feature x target, at most 1e50 x 1e100 x 1e100 with these limits.
LINEAR_FEATURE_LIMIT = 1e100
_FLOAT_MAX = float(np.finfo(np.float64).max)


def as_counts(w: np.ndarray) -> np.ndarray:
    """Sample weights in units of samples. Weights that sum to 1 over several rows are
    shares (boosting normalises its weights so): they are scaled to average 1 over the rows
    of positive weight, so that ``min_samples_*`` and C4.5's counts read as numbers of
    samples. Other weights (counts, bootstrap draws, fractions) are kept as they are."""
    positive = w[w > 0]
    return counts_of_shares(w, len(positive), float(positive.sum()))


def counts_of_shares(w: np.ndarray, n_positive: int, positive_sum: float) -> np.ndarray:
    """:func:`as_counts` of the rows ``w`` of a larger set of weights, of which
    ``n_positive`` are positive and sum to ``positive_sum``: each row is scaled alone, so the
    rows of a partition are scaled as in the whole."""
    if n_positive < 2 or abs(positive_sum - 1.0) > 1e-9:
        return w.copy()
    scaled = w / (positive_sum / n_positive)  # the mean, as numpy's mean divides the sum
    # Normalising by a sum leaves rounding noise: 1/n over n rows is not 1 again exactly.
    whole = np.rint(scaled)
    near = np.abs(scaled - whole) <= 1e-9 * np.maximum(whole, 1.0)
    scaled[near] = whole[near]
    return scaled


def classes_and_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted class labels of ``y`` and each sample's index among them, as
    ``np.unique(y, return_inverse=True)`` gives them, after scikit-learn's check that ``y``
    holds classes. Labels that are all strings are factorised by hashing: sorting 196,000
    Python strings (``np.unique`` on an object array) took 0.17 s, factorising 0.03 s."""
    if y.dtype == object and pd.api.types.infer_dtype(y, skipna=False) == "string":
        codes, classes = pd.factorize(y, sort=True)
        return np.asarray(classes, dtype=object), codes
    if y.dtype.kind == "f" and not np.isfinite(y).all():  # before scikit-learn's cast warns
        raise ValueError("Input y contains NaN or infinity (missing labels): drop those rows first")
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def as_1d(y, n):
    """``y`` as a 1-d array of ``n`` labels or targets (a one-column frame is its column);
    missing labels are refused."""
    if isinstance(y, pd.DataFrame) and y.shape[1] == 1:
        y = y.iloc[:, 0]
    if not isinstance(y, pd.Series | np.ndarray):
        # A list of strings with a NaN would become a string array holding 'nan'.
        as_objects = np.asarray(y, dtype=object)
        if as_objects.ndim == 1 and pd.isna(as_objects).any():
            raise ValueError("Input y contains NaN (missing labels): drop those rows first")
    y = column_or_1d(np.asarray(y) if not isinstance(y, pd.Series) else y.to_numpy(), warn=True)
    if len(y) != n:
        raise ValueError(f"X has {n} samples but y has {len(y)}")
    if y.dtype == object and pd.isna(y).any():
        raise ValueError("Input y contains NaN (missing labels): drop those rows first")
    return y


def numeric_targets(y, estimator: str, column: str | None = None) -> np.ndarray:
    """A regressor's targets as finite float64 within :data:`TARGET_LIMIT` in size (and
    not all below :data:`TARGET_FLOOR`): a clear error naming ``estimator`` for values that
    are not numbers, and naming the target ``column`` (else ``y``) for NaN, infinity or a
    number out of those bounds."""
    target = f"target {column!r}" if column else "target y"
    try:
        values = np.asarray(y, dtype=np.float64)
    except OverflowError:  # a Python integer beyond the float range
        raise DataError(
            f"{target} holds an integer beyond the float range (about {_FLOAT_MAX:.2g}); a "
            f"regression target may be at most {TARGET_LIMIT:.0e} in size",
            column=column,
        ) from None
    except (TypeError, ValueError):
        raise ValueError(f"{estimator} needs numeric targets y") from None
    if not np.isfinite(values).all():
        raise ValueError("Input y contains NaN or infinity.")
    check_target_size(values, target, column)
    return values


def check_target_size(values: np.ndarray, target: str, column: str | None) -> None:
    """A DataError naming ``target`` (its ``column``) when a finite regression target is
    larger than :data:`TARGET_LIMIT` in size, or when all are below :data:`TARGET_FLOOR`
    and not all zero: the sums of their squares would overflow or underflow."""
    sizes = np.abs(values)
    largest = float(sizes.max()) if len(sizes) else 0.0
    if largest > TARGET_LIMIT:
        row = int(np.argmax(sizes > TARGET_LIMIT))
        raise DataError(
            f"{target} holds {values[row]:.3g} in row {row}, beyond {TARGET_LIMIT:.0e} in "
            "size, the largest regression target quercus sums without overflow (it sums "
            "squared targets times weights): express the target in a larger unit (divide "
            "it by a power of ten)",
            column=column,
        )
    if 0.0 < largest < TARGET_FLOOR:
        raise DataError(
            f"{target} holds only values below {TARGET_FLOOR:.0e} in size (the largest is "
            f"{largest:.3g}): the sums of their squares lose their precision or underflow "
            "to 0, and a regression tree would see no variance to split; express the target "
            "in a smaller unit (multiply it by a power of ten)",
            column=column,
        )


def check_weight_total(w: np.ndarray, what: str = "sample_weight") -> np.ndarray:
    """``w``, the sample weights as a fit sums them (``what`` names them in the error),
    when their total is at most :data:`WEIGHT_LIMIT`; a ValueError naming them and the
    limit otherwise."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(w))
    if not total <= WEIGHT_LIMIT:  # (NaN too: an infinite class weight times 0)
        shown = f"{total:.3g}" if np.isfinite(total) else f"more than {_FLOAT_MAX:.2g}"
        raise ValueError(
            f"{what} sums to {shown} over {len(w)} rows, above {WEIGHT_LIMIT:.0e}, the largest "
            "total weight quercus sums without overflow: weights count samples "
            "(min_samples_leaf and the like read them so); divide them by a common factor"
        )
    return w


def check_linear_features(typed: pd.DataFrame, schema: Schema) -> None:
    """A DataError naming the column, row and value when a numeric feature of ``typed``
    (a typed frame of ``schema``) is larger than :data:`LINEAR_FEATURE_LIMIT` in size:
    the least-squares fits of linear leaf models would overflow."""
    for feature in schema.features:
        if feature.kind != NUMERIC_KIND:
            continue
        values = typed[feature.name].to_numpy(dtype=np.float64)
        too_large = np.abs(values) > LINEAR_FEATURE_LIMIT  # (NaN compares False)
        if too_large.any():
            row = int(np.argmax(too_large))
            raise DataError(
                f"column {feature.name!r} holds {values[row]:.3g} in row {row}, beyond "
                f"{LINEAR_FEATURE_LIMIT:.0e} in size, the largest value a linear leaf model "
                "fits without overflow (it sums products of two features): express the "
                "column in a larger unit, or use leaf_model='mean'",
                column=feature.name,
            )


def with_target_name(schema: Schema, y) -> Schema:
    """``schema`` with the name of ``y`` as its target when ``y`` is named (a pandas Series
    with a non-empty string name); else ``schema`` as it is."""
    name = getattr(y, "name", None)
    if isinstance(name, str) and name:
        return dataclasses.replace(schema, target=name)
    return schema


class TabularInput:
    """Input handling shared by trees and forests: typing ``X`` and learning its schema in
    ``fit``, matching prediction data to it, sample weights."""

    def __sklearn_tags__(self):
        # Missing values, categories and strings are taken as they are (scikit-learn's
        # checks then send them).
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    # -- input ----------------------------------------------------------------------------

    def _validate_X(self, X, reset: bool) -> pd.DataFrame:
        """``X`` as a typed DataFrame; learns the schema when ``reset``."""
        if issparse(X):
            raise TypeError(
                f"{type(self).__name__} does not take sparse input: pass a dense array or a "
                "DataFrame"
            )
        if isinstance(X, pd.DataFrame):
            names = [str(c) for c in X.columns]
            if reset:
                self.n_features_in_ = X.shape[1]
                if all(isinstance(c, str) for c in X.columns):
                    self.feature_names_in_ = np.asarray(names, dtype=object)
                elif hasattr(self, "feature_names_in_"):
                    del self.feature_names_in_
            frame = X
        else:
            array = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
            if array.dtype == object:
                try:  # lists of numbers should be numbers, not objects
                    array = np.asarray(X, dtype=np.float64)
                except (TypeError, ValueError, OverflowError):
                    pass  # (an integer beyond the float range: typing names it)
            if np.iscomplexobj(array):
                raise ValueError("Complex data not supported")
            if array.ndim != 2:
                raise ValueError(
                    f"Expected 2D array, got {'scalar' if array.ndim == 0 else f'{array.ndim}D'} "
                    "array instead. Reshape your data with array.reshape(-1, 1) for a single "
                    "feature or array.reshape(1, -1) for a single sample."
                )
            if array.shape[1] == 0:
                raise ValueError(
                    f"0 feature(s) (shape={array.shape}) while a minimum of 1 is required."
                )
            if array.shape[0] == 0:
                raise ValueError(
                    f"0 sample(s) (shape={array.shape}) while a minimum of 1 is required."
                )
            if reset:
                self.n_features_in_ = array.shape[1]
                if hasattr(self, "feature_names_in_"):
                    del self.feature_names_in_
            elif array.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {array.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input."
                )
            names = self.schema_.names if not reset else [f"x{i}" for i in range(array.shape[1])]
            if reset and is_numeric_array(array) and not self._selects_columns():
                # Numbers only: typed without the copies that typing through pandas makes.
                typed, self.schema_ = infer_numeric_schema(array, names)
                return typed
            frame = pd.DataFrame(array, columns=names)
        if reset:
            typed, self.schema_ = infer_schema(
                frame, nominal=self.nominal_features, ordinal=self.ordinal_features
            )
            return typed
        return align_frame(frame, self.schema_)

    def _selects_columns(self) -> bool:
        """Whether ``nominal_features`` or ``ordinal_features`` may name a column (anything
        but None or an empty collection: the typing through pandas reads and checks it)."""
        return not all(
            selection is None or (hasattr(selection, "__len__") and len(selection) == 0)
            for selection in (self.nominal_features, self.ordinal_features)
        )

    def _note_target(self, y) -> None:
        """Keep the name of a named target (a pandas Series) in ``schema_``: model files
        record it, and ``quercus evaluate`` finds the target column by it."""
        self.schema_ = with_target_name(self.schema_, y)

    def _predict_matrix(self, X) -> np.ndarray:
        """Features as float64 for the routing kernel: numbers, or category codes (NaN =
        missing, including categories unseen in training)."""
        check_is_fitted(self, "schema_")
        if (
            isinstance(X, np.ndarray)
            and X.dtype.kind in "fiu"
            and X.ndim == 2
            and X.shape[1] == self.n_features_in_
            and all(f.kind == NUMERIC_KIND for f in self.schema_.features)
        ):
            # All-numeric array: no per-column typing needed, only the finiteness check.
            matrix = np.ascontiguousarray(X, dtype=np.float64)
            if np.isinf(matrix).any():
                column = int(np.flatnonzero(np.isinf(matrix).any(axis=0))[0])
                raise ValueError(f"column {self.schema_.names[column]!r} has an infinite value")
            return matrix
        if isinstance(X, pd.DataFrame):
            return align_matrix(X, self.schema_)
        return self._routing_matrix(self._validate_X(X, reset=False))

    def _routing_matrix(self, typed: pd.DataFrame) -> np.ndarray:
        """A typed frame as the float64 matrix that routing reads."""
        out = np.empty((len(typed), len(self.schema_.features)), dtype=np.float64)
        for j, feature in enumerate(self.schema_.features):
            column = typed.iloc[:, j]
            if feature.kind == NUMERIC_KIND:
                out[:, j] = column.to_numpy(dtype=np.float64)
            else:
                codes = np.asarray(column.cat.codes, dtype=np.float64)
                codes[codes < 0] = np.nan
                out[:, j] = codes
        return out

    def _check_sample_weight(self, sample_weight, n):
        """``sample_weight`` (one per row, or one for every row; None: 1 each) as float64
        counts of samples (:func:`as_counts`): finite, not negative, and at most
        :data:`WEIGHT_LIMIT` in total."""
        if sample_weight is None:
            return np.ones(n, dtype=np.float64)
        try:
            w = np.asarray(sample_weight, dtype=np.float64)
        except OverflowError:  # a Python integer beyond the float range
            raise ValueError(
                f"sample_weight holds an integer beyond the float range (about "
                f"{_FLOAT_MAX:.2g}); the weights may sum to at most {WEIGHT_LIMIT:.0e}"
            ) from None
        if w.ndim == 0:
            w = np.full(n, float(w))
        elif w.ndim != 1 or len(w) != n:
            raise ValueError(f"sample_weight.shape == {w.shape}, expected ({n},)!")
        if not np.isfinite(w).all():
            raise ValueError("sample_weight must be finite")
        if (w < 0).any():
            raise ValueError("Negative values in data passed to sample_weight")
        return as_counts(check_weight_total(w))  # (shares sum to 1: as_counts makes them n)


# -- the public entries of other modules ------------------------------------------------------


def typed_rows(estimator: TabularInput, X) -> pd.DataFrame:
    """``X`` typed as the fitted ``estimator`` typed its training features."""
    return estimator._validate_X(X, reset=False)


def routing_matrix(estimator: TabularInput, typed: pd.DataFrame) -> np.ndarray:
    """Rows typed by :func:`typed_rows` as the float64 matrix that routing reads (numbers,
    or category codes; NaN: missing)."""
    return estimator._routing_matrix(typed)


def predict_matrix(estimator: TabularInput, X) -> np.ndarray:
    """``X`` as the float64 matrix that routing reads, typed as ``estimator`` was fitted
    (the shortest way for its kind of input)."""
    return estimator._predict_matrix(X)


def sample_weights(estimator: TabularInput, sample_weight, n: int) -> np.ndarray:
    """``sample_weight`` checked and as float64 counts of samples (one per row; None: 1
    each), as ``estimator``'s fit takes them."""
    return estimator._check_sample_weight(sample_weight, n)


def training_cases(classifier, X, y, sample_weight):
    """The training cases as the fitted ``classifier``'s tree saw them: routing matrix,
    class codes and weights (with class weights), rows of zero weight left out."""
    typed = typed_rows(classifier, X)
    labels = as_1d(y, len(typed))
    y_class = np.unique(labels, return_inverse=True)[1]  # the codes of classes_
    w = sample_weights(classifier, sample_weight, len(y_class))
    if classifier.class_weight is not None:
        w = check_weight_total(
            w * compute_sample_weight(classifier.class_weight, labels),
            "sample_weight x class_weight",
        )
    keep = w > 0
    return routing_matrix(classifier, typed)[keep], y_class[keep], w[keep]
