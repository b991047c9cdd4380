"""Model trees: regression trees with a linear model in each leaf (M5, as Weka's M5P)."""

from __future__ import annotations

import dataclasses

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._config import LEARNED
from .._parallel import n_threads, run_parallel
from ..binning.binned import bin_frame
from ..criteria.registry import M5
from ..grow.grower import GrowthParams, grow_binned, tree_from_grown
from ..pruning.m5 import fit_m5
from ..tree import leaves
from ..tree._predict import apply_rows
from ..tree.terms import fit_terms, growth_frame, in_feature_space, split_terms
from .base import BaseDecisionTree
from .params import check_params, size_in_weight
from .validate import as_1d, check_linear_features, numeric_targets

#: M5 stops at a node whose standard deviation is below this share of the whole set's.
SPREAD_FRACTION = 0.05
#: Each side of a split keeps at least two rows (and more than a fifth of its node).
MIN_LEAF = 2


class ModelTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A model tree: a regression tree whose leaves hold linear models (M5, Quinlan 1992;
    M5', Wang & Witten 1997), as Weka's M5P builds it.

    Missing values are filled with the training mean (numeric) or most frequent category,
    and a nominal feature of K categories enters the models as K - 1 indicator terms, its
    categories ranked by their mean target (see ``terms_``). The tree is grown by the
    decrease of the fifth root of the variance (Weka's criterion), every split leaving
    more than a fifth of its node on each side, until a node has fewer than
    ``min_samples_split`` rows or a standard deviation under 5% of the whole set's. Every
    node then gets a linear model over the terms its subtree splits on (terms chosen by
    Weka's LinearRegression: colinear terms dropped, then backward elimination); pruning
    turns a node into a leaf where its model's error, times ``(n + 2v) / (n - v)`` for
    ``n`` rows and ``v`` parameters, is no larger than its subtree's; smoothing blends each
    leaf's model with those above it.

    Parameters
    ----------
    leaf_model : {'linear', 'mean'}, default 'linear'
        'linear': a linear model in each leaf (M5P); 'mean': constant models, a pruned and
        smoothed regression tree (M5P's -R).
    pruning : bool, default True
        Prune as M5 does (M5P's -N turns it off).
    smoothing : bool, default True
        Blend each leaf's model with its ancestors', ``(n p + 15 q) / (n + 15)`` from the
        leaf up, folded into the leaf's coefficients (M5P's -U turns it off).
    min_samples_split : int or float, default 4
        A node of fewer (weighted) rows is not split (M5P's -M). It is not a leaf size:
        each side of a split holds at least two rows and more than a fifth of the node.
    max_depth : int or None, default None
        Maximum depth; None grows until the other rules stop.
    nominal_features : str, or list of str or int, optional
        Columns to treat as nominal (string, boolean and categorical columns are), by name
        or position; a string is one column name.
    ordinal_features : dict of column -> list of levels, optional
        Ordinal columns: their levels keep their order (as ranks) in splits and terms.
    n_jobs : int or None, default -1
        Threads that grow the tree (the same tree for any number).

    Attributes
    ----------
    tree_ : Tree
        The model tree; ``tree_.leaf_params`` holds each node's coefficients over the terms,
        its intercept and its training RMSE before smoothing.
    terms_ : TermEncoding
        The terms of the models (``terms_.names``) and the values missing ones take.
    """

    regression = True
    _m5 = True  # model files keep its terms (persist/model_file.py)
    criterion = "m5"  # what the tree's gains are (the report names them); not a parameter

    def __init__(
        self,
        *,
        leaf_model="linear",
        pruning=True,
        smoothing=True,
        min_samples_split=4,
        max_depth=None,
        nominal_features=None,
        ordinal_features=None,
        n_jobs=-1,
    ):
        self.leaf_model = leaf_model
        self.pruning = pruning
        self.smoothing = smoothing
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Grow, fit the models, prune and smooth on features ``X`` and targets ``y``."""
        check_params(self)
        typed = self._validate_X(X, reset=True)
        self._note_target(y)
        y = numeric_targets(as_1d(y, len(typed)), type(self).__name__, self.schema_.target)
        w = self._check_sample_weight(sample_weight, len(y))
        if self.leaf_model == "linear":
            check_linear_features(typed, self.schema_)
        keep = w > 0
        if not keep.any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        matrix = self._routing_matrix(typed)[keep]
        y, w = y[keep], w[keep]
        self.terms_ = fit_terms(matrix, y, w, self.schema_)
        filled = self.terms_.filled(matrix)
        grown = self._grow_m5(filled, y, w)
        leaf_of_row = run_parallel(apply_rows, self.terms_.ranked(filled), *grown.route_tables())
        models = fit_m5(
            grown,
            leaf_of_row,
            self.terms_.terms(matrix),
            y,
            w,
            split_terms(grown, self.terms_),
            linear=self.leaf_model == "linear",
            prune=bool(self.pruning),
            smooth=bool(self.smoothing),
        )
        tree = in_feature_space(models.tree, self.terms_, self.schema_)
        self.tree_ = dataclasses.replace(tree, leaf_model=leaves.LINEAR, leaf_params=models.params)
        return self

    def _grow_m5(self, filled, y, w):
        """The grown tree (before models and pruning), on the growth frame's ranks."""
        frame, schema = growth_frame(filled, self.schema_, self.terms_)
        mean = np.average(y, weights=w)
        variance = float(np.average((y - mean) ** 2, weights=w))
        params = GrowthParams(
            criterion=M5,
            multiway=False,
            max_depth=-1 if self.max_depth is None else int(self.max_depth),
            min_split=size_in_weight(self.min_samples_split, float(w.sum())),
            min_leaf=float(MIN_LEAF),
            min_impurity_decrease=0.0,
            max_leaf_nodes=-1,
            max_features=len(schema.features),
            seed=1,
            ccp_alpha=0.0,
            missing=LEARNED,
            # M5's impurity is variance^(1/5): a standard deviation under 5% of the whole's.
            min_impurity_split=(SPREAD_FRACTION**2 * variance) ** 0.2,
        )
        threads = n_threads(self.n_jobs)
        data = bin_frame(frame, schema, None, threads)
        grown = grow_binned(
            data,
            data.binned,
            np.zeros(len(y), dtype=np.int32),
            np.array(y, dtype=np.float64),
            np.array(w, dtype=np.float64),
            params,
            n_threads=threads,
            regression=True,
            n_stats=3,
        )
        return tree_from_grown(grown, params, True)

    def predict(self, X) -> np.ndarray:
        """The leaf model's prediction for each row of ``X``."""
        check_is_fitted(self, "tree_")
        return self._linear_predictions(X)

    def gain_table(self, X, y, node: int = 0, sample_weight=None):
        """Not for model trees: their splits are searched on the filled and ranked terms
        (see ``terms_``), which the worked tables of the other trees do not show."""
        raise NotImplementedError(
            "gain_table is not available for ModelTreeRegressor: its splits are searched on "
            "filled values and ranked categories (terms_), not on the rows as given"
        )

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Not for model trees, which M5 prunes by its own estimate (``pruning``)."""
        raise NotImplementedError(
            "ModelTreeRegressor is pruned by M5's error estimate (pruning=True), not by cost "
            "complexity"
        )
