"""The tree estimators' shared machinery: fit, prune, route and read a single tree.

``fit`` is a sequence of small named steps: validate the parameters and type the features
(``estimators/params.py``, ``estimators/validate.py``), bin (``binning/binned.py``), encode
the target, grow (``grow/grower.py``), prune. ID3, C4.5 and CART are presets of the same
estimator (see ``estimators/trees.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, clone
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from .._parallel import n_threads, run_parallel
from ..binning.binned import bin_frame
from ..data.schema import NUMERIC_KIND
from ..grow.grower import GrowthSpec, grow_binned, tree_from_grown
from ..grow.levelwise import LOOKAHEAD_CUTS
from ..persist.model_file import save_model
from ..pruning.cost_complexity import pruning_steps
from ..pruning.sequence import leaves_after_cuts
from ..tree import Tree, leaves
from ..tree._predict import apply_rows, fractional_rows, path_rows
from .display import NotebookDisplay
from .finish import CV_FOLDS, TrainingCases, prunes_by_cv
from .params import check_lookahead_budget, shallow_params
from .spec import DataFacts, growth_spec, tree_seed
from .validate import TabularInput

#: Above this many rows x numeric features a full-depth oblique tree warns of its time.
OBLIQUE_WARN_SIZE = 1_000_000


class BaseDecisionTree(NotebookDisplay, TabularInput, BaseEstimator):
    """Shared fit/predict machinery of the tree estimators (not for direct use)."""

    regression = False

    # -- growing --------------------------------------------------------------------------

    def _grow(
        self, typed: pd.DataFrame, y_class, y_value, w, n_stats: int, trace=False
    ) -> tuple[Tree, GrowthSpec, TrainingCases]:
        """Bin ``typed`` and grow the tree on the rows of positive weight (with ``trace``,
        keep the learning trace in ``trace_``). Returns the grown tree, its
        :class:`~quercus.grow.grower.GrowthSpec` and the rows it was grown on, for
        :func:`~quercus.estimators.finish.finish_tree`."""
        keep = w > 0
        if not keep.any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        if not keep.all():  # a zero weight is the same as an absent row
            typed, y_class, y_value, w = typed[keep], y_class[keep], y_value[keep], w[keep]
        threads = n_threads(getattr(self, "n_jobs", None))
        params = shallow_params(self)
        seed = tree_seed(self.random_state)
        data = bin_frame(typed, self.schema_, self.max_bins, threads)
        facts = DataFacts.of(data, w.sum(), n_stats)
        spec = growth_spec(params, self.regression, facts, seed)
        values = self._oblique_values(typed) if spec.params.oblique else None
        if values is None:
            spec = spec.with_params(oblique=False)
        if spec.params.lookahead:  # the whole fit priced, its bins known, before it grows
            check_lookahead_budget(
                spec.params.lookahead,
                len(typed),
                typed.shape[1],
                LOOKAHEAD_CUTS,
                growth=spec.params,
                n_bins=data.mapper.n_bins,
                kinds=data.kinds,
                # a tree a fold besides the tree
                trees=1 + CV_FOLDS if prunes_by_cv(params, spec) else 1,
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
            spec.params,
            n_threads=threads,
            values=values,
            **spec.setup(trace),
        )
        tree = tree_from_grown(grown, spec.params, self.regression)
        if trace:
            from ..export.trace import LearningTrace

            self.trace_ = LearningTrace.from_kernel(self, tree, grown.trace, grown.trace_sides)
        elif hasattr(self, "trace_"):
            del self.trace_
        return tree, spec, TrainingCases(typed, y_class, y_value, w)

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
