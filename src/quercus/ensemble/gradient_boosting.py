"""Gradient-boosted trees: :class:`GradientBoostingClassifier` and
:class:`GradientBoostingRegressor`, scikit-learn estimators over the boosting loop
(``ensemble/boosting.py``).

The data are typed and binned once (nominal, ordinal and missing values as the single
trees take them); each iteration grows a best-first regression tree of at most
``max_leaf_nodes`` leaves on the rows' Newton working targets. Parameters are named as
scikit-learn's ``HistGradientBoosting*`` names them where the idea is the same.

Early stopping keeps the best iteration: the model predicts with the trees up to the
lowest validation loss, and the iterations grown after it (``n_iter_no_change`` of them)
are dropped. ``train_score_`` and ``validation_score_`` keep every iteration run.
"""

from __future__ import annotations

import copy
import numbers
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.metrics import check_scoring, get_scorer_names
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._config import LEAF
from .._parallel import n_threads
from ..binning.binned import bin_frame
from ..data.schema import NOMINAL_KIND
from ..estimators.display import NotebookDisplay
from ..estimators.params import InvalidParameterError, check_params, size_in_weight
from ..estimators.spec import DataFacts, growth_spec
from ..estimators.validate import (
    TabularInput,
    as_1d,
    check_weight_total,
    classes_and_codes,
    numeric_targets,
)
from ..grow.newton import NewtonSetup
from ..grow.rows import LocalRows
from ..persist.booster_file import save_booster
from .boosting import BoostSettings, Resume, Validation, boost, leaf_steps
from .forest import draw_base_seed
from .losses import (
    CLASSIFICATION_LOSSES,
    REGRESSION_LOSSES,
    Loss,
    classification_loss,
    regression_loss,
)
from .tree_sums import PackedCache, pack_trees, sum_trees

#: The least rows of a category placed by a nominal split's scan (``min_category_rows=None``,
#: at most ``min_samples_leaf``): scikit-learn's HistGradientBoosting's.
DEFAULT_CATEGORY_ROWS = 10

#: Fits of more rows than this stop early by default (``early_stopping='auto'``), as
#: scikit-learn's HistGradientBoosting does.
AUTO_EARLY_STOPPING_ROWS = 10_000


def at_scores(model, raw: np.ndarray):
    """A copy of ``model`` whose raw scores on any rows are ``raw``: what a scorer scores
    while the model is being fitted (its predictions at these scores)."""
    view = copy.copy(model)
    view.start_ = np.zeros(raw.shape[1])
    view._raw_scores = lambda X: raw
    return view


class BaseGradientBoosting(NotebookDisplay, TabularInput, BaseEstimator):
    """Shared machinery of the gradient-boosting estimators (not for direct use)."""

    regression = False

    # -- fitting --------------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None, *, X_val=None, y_val=None, sample_weight_val=None):
        """Boost trees on ``X, y``; early stopping on ``X_val, y_val`` when given, else on
        a held-out ``validation_fraction`` of the rows when ``early_stopping`` says so."""
        check_params(self)
        self._check_boosting_params()
        resuming = self._resuming()
        if resuming and self.max_iter == self.n_iter_:
            return self  # warm_start with no more iterations asked for: nothing to add
        typed = self._validate_X(X, reset=not resuming)
        self._note_target(y)
        y = as_1d(y, len(typed))
        w = self._check_sample_weight(sample_weight, len(y))
        if not (w > 0).any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        fitted_classes = getattr(self, "classes_", None) if resuming else None
        y_class, y_value = self._encode_target(y)
        if fitted_classes is not None and not np.array_equal(fitted_classes, self.classes_):
            self.classes_ = fitted_classes
            raise ValueError(
                "warm_start goes on with the classes of the first fit "
                f"{fitted_classes.tolist()}: y has other classes"
            )
        w = self._with_class_weight(w, y)
        loss = self._loss()
        if not resuming:  # a fit that goes on holds out the same rows
            self.base_seed_ = draw_base_seed(self.random_state)
        train, validation = self._validation(typed, y_class, X_val, y_val, sample_weight_val)
        threads = n_threads(self.n_jobs)
        fit_rows = typed if isinstance(train, slice) else typed.iloc[train]  # no copy of all
        data = bin_frame(fit_rows, self.schema_, self.max_bins, threads)
        rows = LocalRows(data, y_class[train], y_value[train], w[train], True, n_threads=threads)
        self.do_early_stopping_ = validation is not None
        if validation is not None and isinstance(validation, tuple):
            validation = self._held_out(typed, validation[0], y_class, y_value, w)
        if validation is not None and self.scoring != "loss":
            validation.metric = self._scored_metric(validation)
        resume = self._resume(self._routing_matrix(fit_rows), validation) if resuming else None
        del data
        facts = DataFacts.of(rows.tables, rows.total_weight, 3)
        spec = growth_spec(self._tree_params(), True, facts, seed=0).with_params(
            min_leaf=float(self.min_child_weight),
            min_split=2.0 * float(self.min_child_weight),
            l2=float(self.l2_regularization),
            l1=float(self.l1_regularization),
        )
        spec = replace(spec, newton=self._newton_setup(spec.params, rows.n_rows))
        settings = BoostSettings(
            learning_rate=float(self.learning_rate),
            max_iter=int(self.max_iter),
            l2=float(self.l2_regularization),
            l1=float(self.l1_regularization),
            subsample=float(self.subsample),
            seed=self.base_seed_,
            n_iter_no_change=int(self.n_iter_no_change) if validation is not None else None,
            tol=float(self.tol),
            n_threads=threads,
        )
        boosted = boost(
            rows, spec, loss, not self.regression, settings, validation=validation,
            on_iteration=self._progress(), resume=resume,
        )  # fmt: skip
        self.start_ = boosted.start
        self.trees_ = boosted.trees
        # What the trees' steps were made with: prediction reads these, not the parameters
        # (which set_params may change after the fit).
        self.learning_rate_ = settings.learning_rate
        self.l2_regularization_ = settings.l2
        self.l1_regularization_ = settings.l1
        self.n_iter_ = boosted.best_iteration
        self.n_trees_per_iteration_ = loss.n_scores
        self.train_score_ = -np.asarray(boosted.train_loss)
        self.validation_score_ = -np.asarray(boosted.validation_loss)
        self._packing = PackedCache()
        self._fitted_loss = self._loss_params()
        return self

    def _loss_params(self) -> dict:
        """The parameters that make the loss (its link included) and the trees' kind of
        leaves (step leaves under monotonic constraints): a fit that goes on keeps them."""
        names = ("loss", "quantile", "huber_delta", "power", "monotonic_cst")
        return {name: getattr(self, name, None) for name in names}

    def _resuming(self) -> bool:
        """Whether this fit goes on from the fitted trees (``warm_start``), after checking
        that it can: as many iterations or more, the same loss and step sizes."""
        if not (self.warm_start and hasattr(self, "start_")):
            return False
        if self.max_iter < self.n_iter_:
            raise InvalidParameterError(
                f"max_iter={self.max_iter} is below the {self.n_iter_} iterations fitted: "
                "warm_start adds iterations, it does not remove them",
                "max_iter",
            )
        fitted = {
            "learning_rate": self.learning_rate_,
            "l2_regularization": self.l2_regularization_,
            "l1_regularization": self.l1_regularization_,
            **getattr(self, "_fitted_loss", {}),
        }
        for name, value in fitted.items():
            now = getattr(self, name, None)
            if not (now is value or now == value):
                raise InvalidParameterError(
                    f"warm_start goes on with the {name} of the fitted trees ({value!r}), "
                    f"got {now!r}: set it back, or fit anew with warm_start=False",
                    name,
                )
        return self.trees_ is not None

    def _resume(self, train_matrix, validation) -> Resume:
        """The fitted state this fit goes on from, on the training rows (``train_matrix``)
        and the ``validation`` rows."""
        kept = self.n_iter_ + 1  # losses before the first tree and after each kept iteration
        if validation is not None and len(self.validation_score_) < kept:
            raise InvalidParameterError(
                "warm_start goes on as the first fit, which did not stop early: the "
                "validation losses of its iterations are not known (set early_stopping=False "
                "and give no X_val, or fit anew with warm_start=False)",
                "early_stopping",
            )
        val_scores = None if validation is None else self._scores_of(validation.matrix)
        return Resume(
            start=self.start_,
            trees=self.trees_,
            iterations=self.n_iter_,
            train_scores=self._scores_of(train_matrix),
            validation_scores=val_scores,
            train_loss=list(-self.train_score_[:kept]),
            validation_loss=[] if validation is None else list(-self.validation_score_[:kept]),
        )

    def _scored_metric(self, validation: Validation):
        """Minus ``scoring`` (a scikit-learn scorer, or its name) of the model at some raw
        scores of the ``validation`` rows, as a function of those scores."""
        scorer = check_scoring(self, scoring=self.scoring)
        y = validation.y if self.regression else self.classes_[validation.y]
        weighted = {} if np.all(validation.w == 1.0) else {"sample_weight": validation.w}

        def metric(raw: np.ndarray) -> float:
            return -float(scorer(at_scores(self, raw), validation.matrix, y, **weighted))

        return metric

    def _check_boosting_params(self) -> None:
        scoring = self.scoring
        if scoring is None or scoring == "loss" or callable(scoring):
            return
        if not (isinstance(scoring, str) and scoring in get_scorer_names()):
            raise InvalidParameterError(
                "scoring must be 'loss' (early stopping on the validation loss), None (the "
                "estimator's score), a scikit-learn scorer's name or a scorer, got "
                f"{scoring!r}",
                "scoring",
            )

    def _newton_setup(self, params, n_rows: int) -> NewtonSetup:
        """How each iteration's tree grows (``grow/newton.py``), from the trees'
        validated parameters, on ``n_rows`` training rows."""
        min_rows = int(size_in_weight(self.min_samples_leaf, n_rows))
        min_category_rows = self.min_category_rows
        if min_category_rows is None:
            min_category_rows = min(DEFAULT_CATEGORY_ROWS, min_rows)
        return NewtonSetup(
            max_leaf_nodes=params.max_leaf_nodes,
            max_depth=params.max_depth,
            min_child_weight=params.min_leaf,
            min_rows=min_rows,
            monotonic=self._monotonic(),
            interactions=self._interactions(),
            l2=params.l2,
            l1=params.l1,
            missing=params.missing,
            max_features=params.max_features,
            seed=0,
            nominal_smoothing=float(self.nominal_smoothing),
            min_category_rows=int(min_category_rows),
            max_split_categories=-1
            if self.max_split_categories is None
            else int(self.max_split_categories),
        )

    def _feature_index(self, feature, param: str) -> int:
        """The column index of ``feature`` (an index or a name) in ``param``."""
        names = self.schema_.names
        if isinstance(feature, str):
            if feature not in names:
                raise InvalidParameterError(
                    f"{param}: no feature named {feature!r} (features: {names})", param
                )
            return names.index(feature)
        if isinstance(feature, numbers.Integral) and 0 <= int(feature) < len(names):
            return int(feature)
        raise InvalidParameterError(
            f"{param}: {feature!r} is not a feature index below {len(names)}", param
        )

    def _monotonic(self) -> tuple | None:
        """``monotonic_cst`` as one constraint per feature, checked (None: none)."""
        cst = self.monotonic_cst
        if cst is None:
            return None
        n = len(self.schema_.names)
        if isinstance(cst, dict):
            out = [0] * n
            for feature, value in cst.items():
                out[self._feature_index(feature, "monotonic_cst")] = value
        else:
            out = list(cst)
            if len(out) != n:
                raise InvalidParameterError(
                    f"monotonic_cst has {len(out)} entries for {n} features", "monotonic_cst"
                )
        for name, kind, value in zip(self.schema_.names, self.schema_.kinds, out, strict=True):
            if value not in (-1, 0, 1):
                raise InvalidParameterError(
                    f"monotonic_cst of {name!r} is {value!r}: -1, 0 or 1", "monotonic_cst"
                )
            if value and kind == NOMINAL_KIND:
                raise InvalidParameterError(
                    f"monotonic_cst of {name!r}: a nominal feature's categories have no order "
                    "(declare it in ordinal_features to constrain it)",
                    "monotonic_cst",
                )
        if any(out) and not self.regression and len(self.classes_) > 2:
            raise InvalidParameterError(
                "monotonic_cst does not apply to more than two classes", "monotonic_cst"
            )
        return tuple(int(v) for v in out)

    def _interactions(self) -> tuple | None:
        """``interaction_cst`` as groups of feature indexes (None: none)."""
        cst = self.interaction_cst
        n = len(self.schema_.names)
        if cst is None:
            return None
        if cst == "no_interactions":
            return tuple((f,) for f in range(n))
        if cst == "pairwise":
            return tuple((a, b) for a in range(n) for b in range(a + 1, n))
        return tuple(
            tuple(self._feature_index(f, "interaction_cst") for f in group) for group in cst
        )

    def _tree_params(self) -> dict:
        """The parameters of each iteration's regression tree, by the single trees' names."""
        return {
            "criterion": "squared_error",
            "nominal_split": "binary",
            "max_depth": self.max_depth,
            "min_samples_split": 2,
            "min_samples_leaf": 1,
            "min_impurity_decrease": 0.0,
            "max_leaf_nodes": self.max_leaf_nodes,
            "max_features": self.max_features,
            "missing": self.missing,
        }

    def _early_stopping(self, n_rows: int) -> bool:
        if self.early_stopping == "auto":
            return n_rows > AUTO_EARLY_STOPPING_ROWS
        return bool(self.early_stopping)

    def _validation(self, typed, y_class, X_val, y_val, sample_weight_val):
        """The training rows (``slice(None)``: all of them, else their indexes), and the
        validation data: None (no early stopping), the held-out rows' indexes (a tuple of
        one array), or a :class:`Validation` of ``X_val, y_val``."""
        n = len(typed)
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise ValueError("X_val and y_val are given together or not at all")
            return slice(None), self._given_validation(X_val, y_val, sample_weight_val)
        if not self._early_stopping(n):
            return slice(None), None
        stratify = None if self.regression else y_class
        train, held = train_test_split(
            np.arange(n),
            test_size=self.validation_fraction,
            stratify=stratify,
            random_state=self.base_seed_ % 2**32,
        )
        return np.sort(train), (np.sort(held),)

    def _given_validation(self, X_val, y_val, sample_weight_val) -> Validation:
        matrix = self._predict_matrix(X_val)
        y_val = as_1d(y_val, len(matrix))
        w_val = self._check_sample_weight(sample_weight_val, len(matrix))
        if self.regression:
            y = numeric_targets(y_val, type(self).__name__)
        else:
            known = np.isin(y_val, self.classes_)
            if not known.all():
                raise ValueError(
                    f"y_val has the class {y_val[~known][:1].tolist()[0]!r}, not among the "
                    f"training classes {self.classes_.tolist()}"
                )
            y = np.searchsorted(self.classes_, y_val).astype(np.int32)
        return Validation(matrix, y, w_val)

    def _held_out(self, typed, rows, y_class, y_value, w) -> Validation:
        """The :class:`Validation` of the training rows ``rows`` held out."""
        matrix = self._routing_matrix(typed.iloc[rows])
        y = y_value[rows] if self.regression else y_class[rows]
        return Validation(matrix, y, w[rows])

    def _progress(self):
        if not self.verbose:
            return None

        def report(iteration: int, boosted) -> None:
            line = f"[{iteration + 1}/{self.max_iter}] train loss {boosted.train_loss[-1]:.5f}"
            if boosted.validation_loss:
                line += f", validation loss {boosted.validation_loss[-1]:.5f}"
            print(line, flush=True)

        return report

    # -- prediction -----------------------------------------------------------------------

    @property
    def _packed(self) -> tuple:
        cache = self.__dict__.get("_packing")
        if cache is None:
            cache = self._packing = PackedCache()
        if cache.tables is None:
            steps = leaf_steps(
                self.trees_,
                self.n_trees_per_iteration_,
                self.learning_rate_,
                self.l2_regularization_,
                self.l1_regularization_,
            )
            cache.tables = pack_trees(self.trees_, lambda merged: steps)
        return cache.tables

    def _raw_scores(self, X) -> np.ndarray:
        """The raw scores of the rows of ``X``, shape (rows, n_trees_per_iteration_)."""
        check_is_fitted(self, "start_")
        return self._scores_of(self._predict_matrix(X))

    def _scores_of(self, matrix: np.ndarray) -> np.ndarray:
        """The raw scores of the rows of a routing ``matrix``."""
        out = np.tile(self.start_, (len(matrix), 1))
        if self.trees_ is not None:
            sum_trees(self._packed, matrix, out)
        return out

    def _staged_raw_scores(self, X):
        """The raw scores after each iteration kept, one array per iteration."""
        check_is_fitted(self, "start_")
        matrix = self._predict_matrix(X)
        out = np.tile(self.start_, (len(matrix), 1))
        rows = np.arange(len(matrix), dtype=np.int64)
        count = np.zeros(len(matrix), dtype=np.int64)
        k = self.n_trees_per_iteration_
        for it in range(self.n_iter_):
            for j in range(k):
                sum_trees(self._packed, matrix, out, rows=rows, tree=it * k + j, count=count)
            yield out.copy()

    def _splits(self) -> tuple[np.ndarray, np.ndarray]:
        """The feature and the Newton gain of every split of every tree."""
        m = self.trees_.merged
        inner = np.flatnonzero(m.kind != LEAF)
        return m.feature[inner], np.maximum(m.impurity_decrease()[inner], 0.0)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Gain importances: each feature's share of the Newton gain of all the splits on
        it, over every tree (LightGBM's ``importance_type='gain'``, normalised)."""
        check_is_fitted(self, "start_")
        if self.trees_ is None:
            return np.zeros(self.n_features_in_)
        feature, gain = self._splits()
        total = np.bincount(feature, weights=gain, minlength=self.n_features_in_)
        return total / total.sum() if total.sum() > 0 else total

    @property
    def feature_split_counts_(self) -> np.ndarray:
        """How many splits of all the trees test each feature (LightGBM's
        ``importance_type='split'``)."""
        check_is_fitted(self, "start_")
        if self.trees_ is None:
            return np.zeros(self.n_features_in_, dtype=np.int64)
        feature, _ = self._splits()
        return np.bincount(feature, minlength=self.n_features_in_)

    def save(self, path):
        """Write this booster to ``path`` (an ensemble file; ``quercus.load`` reads it)."""
        return save_booster(self, path)

    def _loss(self) -> Loss:
        raise NotImplementedError

    def _encode_target(self, y):
        raise NotImplementedError

    def _with_class_weight(self, w, y):
        return w


_PARAMS_DOC = """
    Parameters
    ----------
    loss : str
        The loss the trees descend (see the class's list).
    learning_rate : float, default 0.1
        Each tree's steps are scaled by it (shrinkage).
    max_iter : int, default 100
        Boosting iterations (one tree each, one per class for more than two classes).
    max_leaf_nodes : int or None, default 31
        Leaves of each tree, grown best first (the split of most gain next).
    max_depth : int or None, default None
        Depth of each tree.
    min_samples_leaf : int or float, default 20
        The least rows of a leaf (a float: that share of the training rows, rounded up),
        as scikit-learn's HistGradientBoosting and LightGBM's ``min_child_samples``: a
        cut needs that many rows of known value on each side (the rows with a missing
        value then join one side).
    min_child_weight : float, default 1e-3
        The least hessian sum of a leaf (LightGBM's ``min_sum_hessian_in_leaf``).
    l2_regularization : float, default 0.0
        Added to every hessian sum in the gains and the leaves' steps (XGBoost's
        ``lambda``): a leaf's step is ``-G / (H + l2)``.
    l1_regularization : float, default 0.0
        Taken off every gradient sum's size in the gains and steps (XGBoost's ``alpha``):
        a leaf whose ``|G|`` is below it does not move.
    max_features : None, 'sqrt', 'log2', int or float, default None
        Features drawn at each split (None: all).
    monotonic_cst : array-like of int or dict, default None
        A constraint per numeric or ordinal feature (a list in the columns' order, or a
        dict of feature names): 1, the prediction never goes down as the feature grows;
        -1, never up; 0, none. Held as LightGBM's and scikit-learn's basic method holds
        them (a split on such a feature orders its sides' steps, and bounds every step
        below it by their mean). Not for more than two classes, nor nominal features.
    interaction_cst : {'pairwise', 'no_interactions'} or list of lists, default None
        Groups of features (indexes or names) whose members may interact: every path of a
        tree splits on features of one group only; the features of no group make one more
        group. ``'no_interactions'``: each feature alone; ``'pairwise'``: every pair.
    subsample : float, default 1.0
        Share of the rows each iteration grows on, drawn anew each iteration (stochastic
        gradient boosting; the draws of a row depend on the seed, the iteration and the
        row only).
    max_bins : int, 'auto' or None, default 255
        Bins of a numeric feature.
    missing : {'learned', 'majority'}, default 'learned'
        Where missing values go at a split: ``'learned'``, the side that gains most
        (tried both ways at each cut, as LightGBM and scikit-learn's HistGradientBoosting
        do); ``'majority'``, the side of more hessian weight. A split whose node saw no
        missing value sends them to its heavier side.
    nominal_features, ordinal_features :
        Which columns are nominal or ordinal, as for the single trees; a nominal feature
        splits into two subsets of its categories, found by a scan of the categories in
        the order of their ``G / (H + nominal_smoothing)`` (any number of categories).
    nominal_smoothing : float, default 10.0
        Added to each category's hessian sum when the categories are ordered: a category
        of little weight is ranked near 0, not at an extreme (LightGBM's ``cat_smooth``).
    min_category_rows : int or None, default None
        A category with fewer rows in a node is not placed by the scan; it goes to the
        right side (as in LightGBM and scikit-learn's HistGradientBoosting, whose least
        is 10). None: 10, or the rows of ``min_samples_leaf`` where they are fewer (a
        model of a few rows, grown with ``min_samples_leaf=1``, splits on every
        category).
    max_split_categories : int or None, default 32
        The smaller side of a nominal split holds at most this many categories
        (LightGBM's ``max_cat_threshold``); None: no limit.
    warm_start : bool, default False
        A fitted booster's next ``fit`` goes on from its trees up to ``max_iter``
        iterations (raise ``max_iter`` first) instead of starting anew; the same rows are
        held out for early stopping, and the trees' seeds and subsamples go on from the
        first fit's, so that fitting 50 then 100 iterations makes the model of 100. The
        loss, learning rate, regularisation and classes must stay those of the first fit.
    early_stopping : 'auto', bool, default 'auto'
        Stop when the validation loss (or ``scoring``) has not improved by more than
        ``tol`` for ``n_iter_no_change`` iterations; ``'auto'``: on for more than 10,000
        rows. The model keeps the trees up to its best iteration: prediction uses the
        best iteration, not the last one run.
    validation_fraction : float, default 0.1
        Share of the rows held out for early stopping (stratified for classes), unless
        ``X_val, y_val`` are given to ``fit``.
    n_iter_no_change : int, default 10
        Iterations without improvement before early stopping ends the fit.
    tol : float, default 1e-7
        The least decrease of the validation loss that counts as an improvement.
    scoring : 'loss', str, callable or None, default 'loss'
        What early stopping watches on the validation rows: ``'loss'``, the loss; a
        scikit-learn scorer's name (``'roc_auc'``, ``'neg_mean_absolute_error'``...) or a
        scorer ``scorer(estimator, X, y)``, greater is better; None, the estimator's
        ``score`` (accuracy or R^2). ``validation_score_`` records it; ``train_score_``
        is always minus the training loss.
    n_jobs : int or None, default None
        Threads (None: 1; -1: every core). The model does not depend on it.
    random_state : int, RandomState or None
        Seeds the validation split, the subsample and the features' draws.
    verbose : int, default 0
        Print each iteration's losses.
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    trees_ : TreeStack or None
        The trees, iteration after iteration (tree ``i * n_trees_per_iteration_ + k`` adds
        to raw score ``k`` at iteration ``i``).
    start_ : ndarray of shape (n_scores,)
        The raw scores before the first tree (``n_scores``: ``n_trees_per_iteration_``).
    n_iter_ : int
        Iterations kept: with early stopping, the best one.
    learning_rate_, l2_regularization_, l1_regularization_ : float
        The values the trees' steps were made with (prediction reads these, whatever
        ``set_params`` changes after the fit).
    n_trees_per_iteration_ : int
        Trees grown at each iteration: the number of classes above two, else 1.
    train_score_, validation_score_ : ndarray
        Minus the loss before the first tree and after each iteration run (the
        validation's with early stopping; there, ``scoring``'s value when it is not
        ``'loss'``).
    do_early_stopping_ : bool
        Whether the fit stopped early on validation rows (held out, or ``X_val``).
    feature_importances_ : ndarray of shape (n_features,)
        Each feature's share of the Newton gain of all the splits.
    feature_split_counts_ : int ndarray of shape (n_features,)
        The number of splits on each feature.
    base_seed_ : int
        The seed drawn from ``random_state``.
"""


class GradientBoostingClassifier(ClassifierMixin, BaseGradientBoosting):
    __doc__ = (
        """Gradient-boosted trees for classes: the binary log-loss on the log-odds of the
    second class, or the multinomial log-loss with one tree per class and iteration.
"""
        + _PARAMS_DOC
        + """    class_weight : None, 'balanced' or dict, default None
        Weights of the classes, times the sample weights.
"""
        + _ATTRIBUTES_DOC
        + """    classes_ : ndarray
        The class labels, sorted.
"""
    )

    regression = False
    supported_losses = CLASSIFICATION_LOSSES

    def __init__(
        self,
        loss="log_loss",
        *,
        learning_rate=0.1,
        max_iter=100,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        min_child_weight=1e-3,
        l2_regularization=0.0,
        l1_regularization=0.0,
        max_features=None,
        monotonic_cst=None,
        interaction_cst=None,
        subsample=1.0,
        max_bins=255,
        missing="learned",
        nominal_features=None,
        ordinal_features=None,
        nominal_smoothing=10.0,
        min_category_rows=None,
        max_split_categories=32,
        warm_start=False,
        early_stopping="auto",
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-7,
        scoring="loss",
        class_weight=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self.max_features = max_features
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.subsample = subsample
        self.max_bins = max_bins
        self.missing = missing
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.nominal_smoothing = nominal_smoothing
        self.min_category_rows = min_category_rows
        self.max_split_categories = max_split_categories
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scoring = scoring
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _encode_target(self, y):
        self.classes_, codes = classes_and_codes(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has one class only ({self.classes_[0]!r}): a classifier needs two or more"
            )
        return codes.astype(np.int32), np.zeros(len(codes))

    def _with_class_weight(self, w, y):
        if self.class_weight is None:
            return w
        return check_weight_total(
            w * compute_sample_weight(self.class_weight, y), "sample_weight x class_weight"
        )

    def _loss(self) -> Loss:
        return classification_loss(self.loss, len(self.classes_))

    def decision_function(self, X) -> np.ndarray:
        """The raw scores: the log-odds of ``classes_[1]`` for two classes, shape
        (n_samples,); else one score per class, shape (n_samples, n_classes)."""
        raw = self._raw_scores(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_samples, n_classes)."""
        check_is_fitted(self, "start_")
        return self._loss().predict(self._raw_scores(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (the first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X):
        """Class probabilities after each iteration kept."""
        check_is_fitted(self, "start_")
        loss = self._loss()
        for raw in self._staged_raw_scores(X):
            yield loss.predict(raw)

    def staged_predict(self, X):
        """Predicted classes after each iteration kept."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]

    def staged_decision_function(self, X):
        """Raw scores after each iteration kept."""
        for raw in self._staged_raw_scores(X):
            yield raw[:, 0] if raw.shape[1] == 1 else raw


class GradientBoostingRegressor(RegressorMixin, BaseGradientBoosting):
    __doc__ = (
        """Gradient-boosted trees for a numeric target.

    Losses: ``'squared_error'``; ``'absolute_error'`` and ``'quantile'`` (``quantile``),
    whose trees grow on the gradients' signs and whose leaves are then set to the weighted
    median, or quantile, of their rows' residuals (Friedman 2001); ``'huber'``
    (``huber_delta``); and on the log of the mean, ``'poisson'``, ``'gamma'`` and
    ``'tweedie'`` (``power`` in (1, 2)).
"""
        + _PARAMS_DOC
        + """    quantile : float, default None
        The quantile ``loss='quantile'`` predicts, in (0, 1).
    huber_delta : float, default 1.0
        Residuals beyond it count linearly in the Huber loss.
    power : float, default 1.5
        The Tweedie power.
"""
        + _ATTRIBUTES_DOC
    )

    regression = True
    supported_losses = REGRESSION_LOSSES

    def __init__(
        self,
        loss="squared_error",
        *,
        learning_rate=0.1,
        max_iter=100,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        min_child_weight=1e-3,
        l2_regularization=0.0,
        l1_regularization=0.0,
        max_features=None,
        monotonic_cst=None,
        interaction_cst=None,
        subsample=1.0,
        max_bins=255,
        missing="learned",
        nominal_features=None,
        ordinal_features=None,
        nominal_smoothing=10.0,
        min_category_rows=None,
        max_split_categories=32,
        warm_start=False,
        early_stopping="auto",
        validation_fraction=0.1,
        n_iter_no_change=10,
        tol=1e-7,
        scoring="loss",
        quantile=None,
        huber_delta=1.0,
        power=1.5,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self.max_features = max_features
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.subsample = subsample
        self.max_bins = max_bins
        self.missing = missing
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.nominal_smoothing = nominal_smoothing
        self.min_category_rows = min_category_rows
        self.max_split_categories = max_split_categories
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.scoring = scoring
        self.quantile = quantile
        self.huber_delta = huber_delta
        self.power = power
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _encode_target(self, y):
        values = numeric_targets(y, type(self).__name__)
        return np.zeros(len(values), dtype=np.int32), values

    def _loss(self) -> Loss:
        if self.loss == "quantile" and self.quantile is None:
            raise InvalidParameterError(
                "loss='quantile' needs the quantile to predict: quantile=0.9, say", "quantile"
            )
        return regression_loss(
            self.loss,
            quantile_alpha=0.5 if self.quantile is None else float(self.quantile),
            huber_delta=self.huber_delta,
            power=self.power,
        )

    def predict(self, X) -> np.ndarray:
        """The predicted mean of each row."""
        return self._loss().predict(self._raw_scores(X))

    def staged_predict(self, X):
        """Predictions after each iteration kept."""
        loss = self._loss()
        for raw in self._staged_raw_scores(X):
            yield loss.predict(raw)


__all__ = [
    "AUTO_EARLY_STOPPING_ROWS",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
]
