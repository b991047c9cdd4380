"""The estimator layer: validation and encoding around the tree kernels.

``fit`` is a sequence of small named steps: validate the parameters, type the features and
learn the schema, bin, encode the target, grow, wrap the arrays in a :class:`~quercus.tree.
Tree`. ID3, C4.5 and CART are presets of the same estimator (see ``estimators/trees.py``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix, issparse
from scipy.stats import chi2
from sklearn.base import BaseEstimator, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._config import (
    CRITERIA,
    FRACTIONAL,
    MISSING_POLICIES,
    NOMINAL,
    NUMERIC,
    ORDINAL,
)
from .._parallel import run_parallel
from ..binning import fit_bins
from ..data.encode import align_frame, infer_schema
from ..data.schema import NUMERIC as NUMERIC_KIND
from ..data.schema import ORDINAL as ORDINAL_KIND
from ..pruning import cost_complexity_path, prune_cost_complexity
from ..pruning.cost_complexity import held_out_errors
from ..tree import Tree
from ..tree._grow import grow_tree
from ..tree._predict import apply_rows, fractional_rows, path_rows
from .folds import cv_folds
from .params import InvalidParameterError

_KIND_CODES = {NUMERIC_KIND: NUMERIC, "nominal": NOMINAL, ORDINAL_KIND: ORDINAL}
_CV_FOLDS = 10  # folds of ccp_alpha="cv", as `quercus cv` makes them by default


@dataclass(frozen=True)
class GrowthParams:
    """The validated growth parameters, in the units the kernel takes (weights)."""

    criterion: int
    multiway: bool
    max_depth: int
    min_split: float
    min_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int
    max_features: int
    seed: int
    ccp_alpha: float
    missing: int


def _size(value, total_weight) -> float:
    """``min_samples_*`` in weight: a count as it is, a fraction of the total weight."""
    if isinstance(value, numbers.Integral):
        return float(value)
    return math.ceil(value * total_weight)


def _as_counts(w: np.ndarray) -> np.ndarray:
    """Sample weights in units of samples. Weights that sum to 1 over several rows are
    shares (boosting normalises its weights so): they are scaled to average 1 over the rows
    of positive weight, so that ``min_samples_*`` and C4.5's counts read as numbers of
    samples. Other weights (counts, bootstrap draws, fractions) are kept as they are."""
    positive = w[w > 0]
    if len(positive) < 2 or abs(positive.sum() - 1.0) > 1e-9:
        return w.copy()
    scaled = w / positive.mean()
    # Normalising by a sum leaves rounding noise: 1/n over n rows is not 1 again exactly.
    whole = np.rint(scaled)
    near = np.abs(scaled - whole) <= 1e-9 * np.maximum(whole, 1.0)
    scaled[near] = whole[near]
    return scaled


def _max_features(value, n_features):
    """The number of features tried at a split (``value`` passed ``check_params``)."""
    if value is None:
        return n_features
    if value == "sqrt":
        return max(1, int(math.sqrt(n_features)))
    if value == "log2":
        return max(1, int(math.log2(n_features)))
    if isinstance(value, numbers.Integral):
        if value > n_features:
            raise InvalidParameterError(
                f"max_features must be in [1, n_features={n_features}], got {value}",
                "max_features",
            )
        return int(value)
    return max(1, int(value * n_features))


def encode_classes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


@dataclass
class BinnedData:
    """A typed frame binned once (for one tree, or for every tree of a forest)."""

    mapper: object  # binning.BinMapper
    binned: np.ndarray  # (n_rows, >= n_features), C order, bin codes, rows padded
    kinds: np.ndarray  # int8 kernel codes NUMERIC / NOMINAL / ORDINAL
    bin_lo: np.ndarray  # (n_features, max bins): smallest training value of each bin
    bin_hi: np.ndarray  # largest training value of each bin


def pad_rows(binned: np.ndarray) -> np.ndarray:
    """``binned`` C-ordered with its rows padded to whole 8-byte words (zero columns after
    the features), as the growth kernel moves rows a word at a time."""
    per_word = 8 // binned.itemsize
    width = -(-binned.shape[1] // per_word) * per_word
    if width == binned.shape[1] and binned.flags.c_contiguous:
        return binned
    out = np.zeros((binned.shape[0], width), dtype=binned.dtype)
    out[:, : binned.shape[1]] = binned
    return out


def bin_frame(typed: pd.DataFrame, schema, max_bins) -> BinnedData:
    """Fit the bins of ``typed`` and bin it (rows padded for the kernel: ``pad_rows``)."""
    mapper = fit_bins(typed, schema, max_bins)
    binned = pad_rows(mapper.transform(typed))
    p = len(mapper.kinds)
    width = int(mapper.n_bins.max()) if p else 1
    bin_lo = np.full((p, width), np.nan)
    bin_hi = np.full((p, width), np.nan)
    for f in range(p):
        if mapper.lo[f] is not None:
            bin_lo[f, : len(mapper.lo[f])] = mapper.lo[f]
            bin_hi[f, : len(mapper.hi[f])] = mapper.hi[f]
    kinds = np.asarray([_KIND_CODES[k] for k in mapper.kinds], dtype=np.int8)
    return BinnedData(mapper, binned, kinds, bin_lo, bin_hi)


def grow_binned(
    data: BinnedData,
    binned: np.ndarray,
    y_class: np.ndarray,
    y_value: np.ndarray,
    w: np.ndarray,
    params: GrowthParams,
    *,
    regression: bool,
    n_stats: int,
    c45_classes: int = 0,
    c45_tolerance: float = 0.0,
    chi2_critical: np.ndarray | None = None,
    trace: bool = False,
):
    """The growth kernel on binned rows (``binned``, ``y_class``, ``y_value``, ``w`` are
    overwritten: pass copies). Returns the kernel's arrays (see ``grow_tree``)."""
    return grow_tree(
        binned,
        y_class,
        y_value,
        w,
        data.kinds,
        data.mapper.n_bins,
        data.mapper.missing,
        data.bin_lo,
        data.bin_hi,
        params.multiway,
        params.criterion,
        regression,
        n_stats,
        params.max_depth,
        params.min_split,
        params.min_leaf,
        params.min_impurity_decrease,
        params.max_leaf_nodes,
        params.max_features,
        params.seed,
        c45_classes,
        c45_tolerance,
        np.zeros(1) if chi2_critical is None else chi2_critical,
        params.missing,
        bool(trace),
    )


def tree_from_grown(grown, params: GrowthParams, regression: bool) -> Tree:
    """The flat tree of :func:`grow_binned`'s arrays, grown with ``params``."""
    return Tree.from_grown(
        grown,
        regression=regression,
        median_leaves=params.criterion == CRITERIA["absolute_error"],
        fractional=params.missing == FRACTIONAL,
    )


class TabularInput:
    """Input handling shared by trees and forests: typing ``X`` and learning its schema in
    ``fit``, matching prediction data to it, sample weights."""

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
                except (TypeError, ValueError):
                    pass
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
            frame = pd.DataFrame(array, columns=names)
        if reset:
            typed, self.schema_ = infer_schema(
                frame, nominal=self.nominal_features, ordinal=self.ordinal_features
            )
            return typed
        return align_frame(frame, self.schema_)

    def _note_target(self, y) -> None:
        """Keep the name of a named target (a pandas Series) in ``schema_``: model files
        record it, and ``quercus evaluate`` finds the target column by it."""
        name = getattr(y, "name", None)
        if isinstance(name, str) and name:
            self.schema_ = dataclasses.replace(self.schema_, target=name)

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
        if sample_weight is None:
            return np.ones(n, dtype=np.float64)
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 0:
            return _as_counts(np.full(n, float(w)))
        if w.ndim != 1 or len(w) != n:
            raise ValueError(f"sample_weight.shape == {w.shape}, expected ({n},)!")
        if not np.isfinite(w).all():
            raise ValueError("sample_weight must be finite")
        if (w < 0).any():
            raise ValueError("Negative values in data passed to sample_weight")
        return _as_counts(w)


class BaseDecisionTree(TabularInput, BaseEstimator):
    """Shared fit/predict machinery of the tree estimators (not for direct use)."""

    _regression = False

    def _chi2_critical(self, n_classes: int, mapper) -> np.ndarray:
        """Critical chi-square values by degrees of freedom for ``significance``
        pre-pruning (classifiers), or a single zero when it is off."""
        alpha = getattr(self, "significance", None)
        if alpha is None or self._regression:
            return np.zeros(1)
        branches = int(mapper.n_bins.max()) if self.nominal_split == "multiway" else 2
        df = np.arange(max(branches - 1, 1) * max(n_classes - 1, 1) + 1)
        critical = np.full(len(df), np.inf)
        critical[1:] = chi2.ppf(1.0 - alpha, df[1:])
        return critical

    def _c45_variant(self) -> str:
        """Which C4.5: "j48" (Weka's J48, the default) or "release8" (Quinlan's C4.5)."""
        return getattr(self, "c45_variant", "j48")

    def _c45_thresholds(self) -> bool:
        """Whether C4.5's rules for continuous attributes apply (classifiers that ask)."""
        return not self._regression and bool(getattr(self, "c45_thresholds", False))

    def _growth_params(self, n_features: int, total_weight: float) -> GrowthParams:
        """The growth parameters in the kernel's units (after ``check_params``)."""
        seed = int(check_random_state(self.random_state).randint(1, 2**31 - 1))
        return GrowthParams(
            criterion=CRITERIA[self.criterion],
            multiway=self.nominal_split == "multiway",
            max_depth=-1 if self.max_depth is None else int(self.max_depth),
            min_split=_size(self.min_samples_split, total_weight),
            min_leaf=_size(self.min_samples_leaf, total_weight),
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_leaf_nodes=-1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes),
            max_features=_max_features(self.max_features, n_features),
            seed=seed * 2654435761 % 2**63 + 1,
            ccp_alpha=0.0 if self.ccp_alpha == "cv" else float(self.ccp_alpha),
            missing=MISSING_POLICIES[self.missing],
        )

    # -- growing --------------------------------------------------------------------------

    def _grow(self, typed: pd.DataFrame, y_class, y_value, w, n_stats: int, trace=False):
        """Bin ``typed``, grow the tree on the rows of positive weight, store ``tree_``
        (and with ``trace``, the learning trace in ``trace_``)."""
        keep = w > 0
        if not keep.any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        if not keep.all():  # a zero weight is the same as an absent row
            typed, y_class, y_value, w = typed[keep], y_class[keep], y_value[keep], w[keep]
        params = self._growth_params(typed.shape[1], float(w.sum()))
        data = bin_frame(typed, self.schema_, self.max_bins)
        c45 = self._c45_thresholds()
        # The kernel overwrites its arrays: it gets its own copies, never the caller's arrays
        # (the binned matrix is ours and not used again).
        grown = grow_binned(
            data,
            data.binned,
            np.array(y_class, dtype=np.int32),
            np.array(y_value, dtype=np.float64),
            np.array(w, dtype=np.float64),
            params,
            regression=self._regression,
            n_stats=n_stats,
            c45_classes=n_stats if c45 else 0,
            c45_tolerance=1e-6 if c45 and self._c45_variant() == "j48" else 0.0,
            chi2_critical=self._chi2_critical(n_stats, data.mapper),
            trace=trace,
        )
        tree = tree_from_grown(grown, params, self._regression)
        if trace:
            from ..export.trace import LearningTrace

            self.trace_ = LearningTrace.from_kernel(self, tree, *grown[5:])
        elif hasattr(self, "trace_"):
            del self.trace_
        by_cv = isinstance(self.ccp_alpha, str) or (
            getattr(self, "pruning", None) == "cost_complexity" and params.ccp_alpha == 0.0
        )
        if by_cv:  # ccp_alpha="cv", or pruning="cost_complexity" without an alpha
            self.ccp_alpha_, self.cv_results_ = self._ccp_alpha_by_cv(
                tree, typed, y_class, y_value, w
            )
            tree = prune_cost_complexity(tree, self.ccp_alpha_)
        else:
            tree = prune_cost_complexity(tree, params.ccp_alpha)
        self.tree_ = tree
        self.max_features_ = params.max_features
        return self

    def _ccp_alpha_by_cv(self, tree, typed, y_class, y_value, w):
        """CART's choice of alpha: k-fold cross-validated error of the pruned trees along
        the pruning path, and the largest alpha within one standard error of the best.

        Candidates are the geometric means of consecutive alphas of the full tree's path
        (and its last alpha), as rpart does; 10 folds, stratified for classes, shuffled with
        ``random_state`` (:func:`~quercus.estimators.folds.cv_folds`). Each fold
        grows its unpruned tree once, and the errors of all its pruned trees come from one
        pass over the held-out rows (:func:`~quercus.pruning.cost_complexity.held_out_errors`).
        """
        alphas, _ = cost_complexity_path(tree)
        candidates = np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])
        labels = y_value if self._regression else self.classes_[y_class]
        matrix = self._routing_matrix(typed)  # every row, routed by the fold trees below
        params = {"ccp_alpha": 0.0}  # w already holds any class weights
        if "pruning" in self.get_params():
            params.update(pruning=None, class_weight=None)
        index = {c: i for i, c in enumerate(self.classes_.tolist())} if not self._regression else {}
        errors = []
        folds = cv_folds(
            _CV_FOLDS,
            self.random_state,
            n_rows=len(labels),
            classes=None if self._regression else labels,
            context="ccp_alpha='cv'",
            stacklevel=4,  # the caller of fit
        )
        for train, test in folds:
            est = clone(self).set_params(**params)
            est.fit(typed.iloc[train], labels[train], sample_weight=w[train])
            if est.schema_.features == self.schema_.features:
                held_out = matrix[test]
            else:  # the fold typed a column differently: match the rows to its schema
                held_out = est._predict_matrix(typed.iloc[test])
            if self._regression:
                target, class_codes = y_value[test], None
            else:  # the fold's classes, as codes of ours (a fold may lack a class)
                target = y_class[test]
                class_codes = np.array([index[c] for c in est.classes_.tolist()])
            errors.append(
                held_out_errors(est.tree_, held_out, target, w[test], candidates, class_codes)
            )
        errors = np.asarray(errors)
        mean = errors.mean(axis=0)
        std_error = errors.std(axis=0, ddof=1) / np.sqrt(len(errors))
        best = int(np.argmin(mean))
        within = np.flatnonzero(mean <= mean[best] + std_error[best] + 1e-12)
        chosen = float(candidates[within.max()])
        return chosen, {"ccp_alphas": candidates, "mean_error": mean, "std_error": std_error}

    # -- routing --------------------------------------------------------------------------

    def _tree_args(self):
        return self.tree_.routes, self.tree_.children, self.tree_.cat_table

    def apply(self, X) -> np.ndarray:
        """Index of the leaf that each sample ends in."""
        return run_parallel(apply_rows, self._predict_matrix(X), *self._tree_args())

    def decision_path(self, X):
        """Sparse indicator matrix (n_samples, n_nodes): nonzero where a sample passes a node."""
        matrix = self._predict_matrix(X)
        indptr, indices = path_rows(matrix, *self._tree_args(), self.tree_.max_depth + 1)
        data = np.ones(len(indices), dtype=np.int64)
        return csr_matrix((data, indices, indptr), shape=(len(matrix), self.tree_.node_count))

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The minimal cost-complexity pruning path of the tree grown on ``X, y``.

        Returns a :class:`sklearn.utils.Bunch` with ``ccp_alphas`` (the effective alphas,
        0 first, increasing) and ``impurities`` (the total leaf impurity, weighted by the
        leaves' share of the training weight, of the tree pruned at each alpha). This
        estimator is not changed: the tree is grown on a copy without pruning.
        """
        unpruned = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        alphas, impurities = cost_complexity_path(unpruned.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def get_depth(self) -> int:
        """Depth of the tree (the root alone has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of each feature (total weighted impurity decrease of its
        splits), normalised to sum to 1."""
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances(self.n_features_in_)

    # -- reading the model (see quercus.export) --------------------------------------------

    def export_text(self, **options) -> str:
        """The tree as indented text; options of :func:`quercus.export.export_text`."""
        from ..export import export_text

        return export_text(self, **options)

    def export_graphviz(self, **options) -> str:
        """The tree as Graphviz DOT text; options of :func:`quercus.export.export_graphviz`."""
        from ..export import export_graphviz

        return export_graphviz(self, **options)

    def to_rules(self, **options) -> list:
        """One IF ... THEN rule per leaf (:class:`quercus.export.LeafRule` objects)."""
        from ..export import to_rules

        return to_rules(self, **options)

    def export_rules(self, **options) -> str:
        """The rules of :meth:`to_rules` as text, one line each."""
        from ..export import export_rules

        return export_rules(self, **options)

    def explain(self, x, **options) -> str:
        """The decision path of one example in words (:func:`quercus.export.explain`)."""
        from ..export import explain

        return explain(self, x, **options)

    def gain_table(self, X, y, node: int = 0, sample_weight=None, **options):
        """The worked numbers at ``node`` of this tree: :func:`quercus.gain_table` of the
        cases of ``X, y`` (the training data, usually) whose path passes through ``node``.

        A case with a missing value follows one branch here (the one ``apply`` takes),
        also in a C4.5 tree, where training split it fractionally. ``fit(X, y,
        trace=True)`` keeps the numbers of the tree as it was grown, in the tree's own
        criterion (``trace_.node(node)``).
        """
        from ..criteria import gain_table

        check_is_fitted(self, "tree_")
        if not 0 <= node < self.tree_.node_count:
            raise ValueError(f"node must be in [0, {self.tree_.node_count}), got {node!r}")
        typed = self._validate_X(X, reset=False)
        indptr, indices = path_rows(
            self._routing_matrix(typed), *self._tree_args(), self.tree_.max_depth + 1
        )
        # Rows whose path lists ``node``: the row of each path entry, kept where it is node.
        row_of_entry = np.repeat(np.arange(len(typed)), np.diff(indptr))
        rows = row_of_entry[indices == node]
        frame = typed.iloc[rows]
        labels = np.asarray(y)[rows]
        weights = None if sample_weight is None else np.asarray(sample_weight)[rows]
        if len(rows) == 0:
            raise ValueError(f"no case of X reaches node {node}")
        return gain_table(frame, labels, weights, **options)

    def save(self, path):
        """Write the fitted model to ``path`` as a JSON model file (``quercus.load`` reads
        it back; the format is described in docs/model-format.md)."""
        from ..export.model_file import save_model

        return save_model(self, path)

    def _leaf_values(self, X) -> np.ndarray:
        """The tree's prediction for every row: its leaf's values, or for rows with a missing
        value in a fractional tree, the weighted mix of the leaves they reach."""
        matrix = self._predict_matrix(X)
        tree = self.tree_
        values = tree.leaf_values()[run_parallel(apply_rows, matrix, *self._tree_args())]
        if tree.fractional:
            rows = np.flatnonzero(np.isnan(matrix).any(axis=1))
            if len(rows):
                fractional_rows(
                    matrix,
                    rows,
                    *self._tree_args(),
                    tree.child_start,
                    tree.n_children,
                    tree.weighted_n_node_samples,
                    tree.leaf_values(),
                    values,
                )
        return values


__all__ = [
    "BaseDecisionTree",
    "BinnedData",
    "TabularInput",
    "GrowthParams",
    "bin_frame",
    "grow_binned",
    "pad_rows",
]
