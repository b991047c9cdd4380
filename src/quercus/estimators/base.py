"""The tree estimators' shared machinery: fit, prune, route and read a single tree.

``fit`` is a sequence of small named steps: validate the parameters and type the features
(``estimators/params.py``, ``estimators/validate.py``), bin (``binning/binned.py``), encode
the target, grow (``tree/grower.py``), prune. ID3, C4.5 and CART are presets of the same
estimator (see ``estimators/trees.py``).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.stats import chi2
from sklearn.base import BaseEstimator, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_is_fitted

from .._config import J48_SMALL
from .._parallel import n_threads, run_parallel
from ..binning.binned import bin_frame
from ..data.schema import NUMERIC_KIND
from ..persist.model_file import save_model
from ..pruning import cost_complexity_path
from ..pruning.cost_complexity import held_out_errors, pruning_steps
from ..pruning.sequence import PruningLog, leaves_after_cuts
from ..tree import leaves
from ..tree._predict import apply_rows, fractional_rows, path_rows
from ..tree.grower import GrowthParams, grow_binned, tree_from_grown
from ..tree.levelwise import LOOKAHEAD_CUTS
from .display import NotebookDisplay
from .folds import cv_folds
from .params import check_lookahead_budget, growth_params, shallow_params
from .validate import TabularInput

_CV_FOLDS = 10  # folds of ccp_alpha="cv", as `quercus cv` makes them by default
#: The tolerance of C4.5's comparisons by ``c45_variant``: J48's, or release 8's exact ones.
C45_TOLERANCE = {"j48": J48_SMALL, "release8": 0.0}


#: Above this many rows x numeric features a full-depth oblique tree warns of its time.
OBLIQUE_WARN_SIZE = 1_000_000


class BaseDecisionTree(NotebookDisplay, TabularInput, BaseEstimator):
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

    def _c45_tolerance(self) -> float:
        """The tolerance of C4.5's comparisons, where its rules for continuous attributes
        apply (else 0)."""
        return C45_TOLERANCE[self._c45_variant()] if self._c45_thresholds() else 0.0

    def _growth_params(self, n_features: int, total_weight: float) -> GrowthParams:
        """The growth parameters in the kernel's units (after ``check_params``)."""
        seed = int(check_random_state(self.random_state).randint(1, 2**31 - 1))
        return growth_params(
            shallow_params(self),
            n_features,
            total_weight,
            seed=seed * 2654435761 % 2**63 + 1,
        )

    def _growth_setup(self, n_stats: int, mapper, trace=False) -> dict:
        """The keywords of :func:`~quercus.tree.grower.growth_setup` for this estimator
        (``mapper``: the fitted bins)."""
        return {
            "regression": self._regression,
            "n_stats": n_stats,
            "c45_classes": n_stats if self._c45_thresholds() else 0,
            "c45_tolerance": self._c45_tolerance(),
            "chi2_critical": self._chi2_critical(n_stats, mapper),
            "trace": trace,
        }

    # -- growing --------------------------------------------------------------------------

    def _grow(
        self, typed: pd.DataFrame, y_class, y_value, w, n_stats: int, trace=False
    ) -> PruningLog:
        """Bin ``typed``, grow the tree on the rows of positive weight, prune it by cost
        complexity when asked, store ``tree_`` (and with ``trace``, the learning trace in
        ``trace_``). Returns the record of the pruning, for further pruning to add to."""
        keep = w > 0
        if not keep.any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        if not keep.all():  # a zero weight is the same as an absent row
            typed, y_class, y_value, w = typed[keep], y_class[keep], y_value[keep], w[keep]
        params = self._growth_params(typed.shape[1], float(w.sum()))
        values = self._oblique_values(typed) if params.oblique else None
        if values is None:
            params = dataclasses.replace(params, oblique=False)
        threads = n_threads(getattr(self, "n_jobs", None))
        data = bin_frame(typed, self.schema_, self.max_bins, threads)
        by_cv = isinstance(self.ccp_alpha, str) or (
            getattr(self, "pruning", None) == "cost_complexity" and params.ccp_alpha == 0.0
        )
        if params.lookahead:  # the whole fit priced, its bins known, before it grows
            check_lookahead_budget(
                params.lookahead,
                len(typed),
                typed.shape[1],
                LOOKAHEAD_CUTS,
                growth=params,
                n_bins=data.mapper.n_bins,
                kinds=data.kinds,
                trees=1 + _CV_FOLDS if by_cv else 1,  # a tree a fold besides the tree
                stacklevel=3,
            )
        # The kernel overwrites its arrays: it gets its own copies, never the caller's arrays
        # (the binned matrix is ours and not used again).
        grown = grow_binned(
            data,
            data.binned,
            np.array(y_class, dtype=np.int32),
            np.array(y_value, dtype=np.float64),
            np.array(w, dtype=np.float64),
            params,
            n_threads=threads,
            values=values,
            **self._growth_setup(n_stats, data.mapper, trace),
        )
        tree = tree_from_grown(grown, params, self._regression)
        if trace:
            from ..export.trace import LearningTrace

            self.trace_ = LearningTrace.from_kernel(self, tree, grown.trace, grown.trace_sides)
        elif hasattr(self, "trace_"):
            del self.trace_
        del grown  # one thread's node records outweigh the tree: not kept while it prunes
        log = PruningLog(tree, self.schema_)
        if by_cv:  # ccp_alpha="cv", or pruning="cost_complexity" without an alpha
            self.ccp_alpha_, self.cv_results_ = self._ccp_alpha_by_cv(
                tree, typed, y_class, y_value, w
            )
            log.cost_complexity(self.ccp_alpha_)
        elif params.ccp_alpha > 0.0:
            log.cost_complexity(params.ccp_alpha)
        self.tree_ = log.tree
        self.max_features_ = params.max_features
        self._keep_pruning(log)
        return log

    def _oblique_values(self, typed: pd.DataFrame) -> np.ndarray | None:
        """The rows' values that oblique splits test; None, with a warning naming
        ``split``, when fewer than two features are numeric (nothing to combine: the tree
        gets single-feature splits, as with ``split='axis'``)."""
        numeric = [f.name for f in self.schema_.features if f.kind == NUMERIC_KIND]
        if len(numeric) >= 2:
            if len(typed) * len(numeric) > OBLIQUE_WARN_SIZE and self.max_depth is None:
                warnings.warn(
                    f"split='oblique' on {len(typed):,} rows and {len(numeric)} numeric "
                    "features: each node's search sorts its rows many times, and a "
                    "full-depth tree takes minutes (100,000 x 10 took half a minute on 2 "
                    "cores); max_depth or min_samples_leaf bound it. Its memory is a small "
                    "multiple of the data's (with exact bins, the bins and a node's "
                    "histograms are each about the data's size; max_bins=255 makes them "
                    "small)",
                    UserWarning,
                    stacklevel=4,
                )
            return self._routing_matrix(typed)
        shown = ", ".join(repr(name) for name in numeric) or "none"
        warnings.warn(
            f"split='oblique' combines numeric features, and X has {len(numeric)} ({shown}); "
            "nominal and ordinal features keep single-feature splits, so the tree is the "
            "one split='axis' grows",
            UserWarning,
            stacklevel=4,
        )
        return None

    def _keep_pruning(self, log: PruningLog) -> None:
        """Keep the grown tree, the pruning's steps and the grown id of each node of
        ``tree_`` when a pruning ran (even one that took no step); forget those of an
        earlier fit otherwise."""
        if log.ran:
            self.tree_grown_ = log.grown
            self.pruning_path_ = list(log.steps)
            self.grown_node_ids_ = log.origin
            return
        for name in ("tree_grown_", "pruning_path_", "grown_node_ids_"):
            self.__dict__.pop(name, None)

    def _ccp_alpha_by_cv(self, tree, typed, y_class, y_value, w):
        """CART's choice of alpha: k-fold cross-validated error of the pruned trees along
        the pruning path, and the largest alpha within one standard error of the best.

        Candidates are the geometric means of consecutive alphas of the full tree's path
        (and its last alpha), as rpart does; 10 folds, stratified for classes, shuffled with
        ``random_state`` (:func:`~quercus.estimators.folds.cv_folds`), unless the tree is
        one leaf (a single candidate: its errors are NaN). Each fold
        grows its unpruned tree once, and the errors of all its pruned trees come from one
        pass over the held-out rows (:func:`~quercus.pruning.cost_complexity.held_out_errors`).
        """
        alphas, _ = cost_complexity_path(tree)
        candidates = np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])
        if len(candidates) == 1:
            # A tree of one leaf (min_samples_split above the rows, say) has nothing to prune:
            # any alpha gives it, so no folds are grown (data too small for 10 folds is no
            # error then), and no error is estimated.
            unknown = np.full(1, np.nan)
            return float(candidates[0]), {
                "ccp_alphas": candidates,
                "mean_error": unknown,
                "std_error": unknown.copy(),
            }
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
        return self.tree_.route_tables()

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
        0 first, increasing), ``impurities`` (the total leaf impurity, weighted by the
        leaves' share of the training weight, of the tree pruned at each alpha) and
        ``n_leaves`` (its number of leaves: the grown tree's, then after each weakest link).
        This estimator is not changed: the tree is grown on a copy without pruning.
        """
        params = {"ccp_alpha": 0.0}
        if "pruning" in self.get_params():
            params["pruning"] = None
        unpruned = clone(self).set_params(**params).fit(X, y, sample_weight=sample_weight)
        nodes, alphas, impurities = pruning_steps(unpruned.tree_)
        leaves = np.concatenate(
            ([unpruned.tree_.n_leaves], leaves_after_cuts(unpruned.tree_, nodes))
        )
        return Bunch(
            ccp_alphas=np.concatenate(([0.0], alphas)), impurities=impurities, n_leaves=leaves
        )

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

    def gain_table(self, X, y, node: int = 0, sample_weight=None):
        """The worked numbers at ``node``: every candidate attribute of the rows of ``X, y``
        that reach ``node``, scored as this tree scores them.

        The rows go down the tree as growth sent them (a missing value by the tree's
        ``missing`` policy: C4.5's fractional copies, the branch of the row's class, or the
        branch the split remembers), and the grower itself scores them (the tree's
        criterion, split kinds, ``min_samples_leaf`` and C4.5's rules for continuous
        attributes; every attribute, also where ``max_features`` drew some at each node).
        On the training data of an unpruned tree the table is ``trace_.node(node)`` of
        ``fit(X, y, trace=True)``: the numbers the tree was grown with. After pruning, node
        ids are those of the pruned tree, and a pruned leaf shows the split the grower chose
        there. The columns are the trace's: ``node``, ``attribute``, ``gain`` (information
        gain, Gini decrease, variance decrease ...: the criterion's), ``split_information``
        and ``gain_ratio`` (a classification tree's only), ``split``, ``admissible`` and
        ``chosen`` (the attribute ``node`` splits on). A node where the grower scores
        nothing (pure, too few rows) gives an empty table. :func:`quercus.gain_table`
        computes the lectures' table by hand instead: information gain, gain ratio and Gini
        decrease of any data (the variance decrease of a numeric target).
        """
        from ..export.node_scores import score_nodes

        check_is_fitted(self, "tree_")
        if self.tree_.oblique is not None:
            raise NotImplementedError(
                "gain_table is not available for a tree with oblique splits: an oblique "
                "split is searched over weighted sums of features, not among the single "
                "attributes the table scores"
            )
        (scores,) = score_nodes(self, X, y, sample_weight, nodes=[node])
        if scores.n_rows == 0:
            raise ValueError(f"no case of X reaches node {node}")
        return scores.candidates

    def report(self, X, y, path, **options):
        """Write the report of this tree on ``X, y`` (an HTML page) to ``path``; options
        and what the page shows: :func:`quercus.report.write_report`."""
        from ..report import write_report

        return write_report(self, X, y, path, **options)

    def save(self, path):
        """Write the fitted model to ``path`` as a JSON model file (``quercus.load`` reads
        it back; the format is described in docs/model-format.md)."""
        return save_model(self, path)

    def _linear_predictions(self, X) -> np.ndarray:
        """A tree of linear leaves: each row's leaf model applied to the row's terms."""
        matrix = self._predict_matrix(X)
        leaf = run_parallel(apply_rows, matrix, *self._tree_args())
        return leaves.linear_predictions(self.tree_.leaf_params, leaf, self.terms_.terms(matrix))

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
                    *self._tree_args()[:3],
                    tree.child_start,
                    tree.n_children,
                    tree.weighted_n_node_samples,
                    tree.leaf_values(),
                    values,
                )
        return values


__all__ = ["BaseDecisionTree"]
