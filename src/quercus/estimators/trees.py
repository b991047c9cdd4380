"""Decision tree estimators: the general classes and the ID3, C4.5 and CART presets."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._parallel import run_parallel
from ..criteria import registry
from ..pruning.m5 import fit_leaf_models
from ..tree import leaves
from ..tree._predict import apply_rows
from ..tree.terms import fit_terms
from .base import BaseDecisionTree
from .finish import Validation, finish_tree
from .params import check_params
from .validate import (
    as_1d,
    check_linear_features,
    check_weight_total,
    classes_and_codes,
    numeric_targets,
)

_COMMON_DOC = """
    max_depth : int or None, default None
        Maximum depth; None grows until the other rules stop.
    min_samples_split : int or float, default 2
        Smallest (weighted) number of samples a node needs to be split; a float is a fraction
        of the total weight.
    min_samples_leaf : int or float, default {min_samples_leaf}
        Smallest (weighted) number of samples in a child. For multiway splits, as in C4.5, at
        least two branches must reach it (the others may be smaller or empty).
    min_impurity_decrease : float, default 0.0
        A split must decrease the impurity, weighted by the node's share of the samples, by at
        least this much.
    ccp_alpha : float or 'cv', default 0.0
        Complexity parameter of CART's minimal cost-complexity pruning: after growing, weakest
        links are pruned while their effective alpha is at most ``ccp_alpha`` (0: no pruning).
        See ``cost_complexity_pruning_path``. 'cv': chosen by 10-fold cross-validation with
        the one-standard-error rule (``ccp_alpha_`` and ``cv_results_`` record the choice).
        A pruned tree (by ``ccp_alpha``, ``pruning`` or ``collapse``) keeps the grown tree in
        ``tree_grown_``, the steps of its pruning in ``pruning_path_`` (one record per step,
        with the numbers that decided it) and the grown id of each node of ``tree_`` in
        ``grown_node_ids_``; model files keep none of them.
    pruning : {{None, 'pessimistic', 'reduced_error', 'cost_complexity'}}, classifiers only
        'pessimistic': C4.5's error-based pruning as Weka's J48 does it (collapse, then
        bottom-up comparison of leaf, subtree and largest-branch error estimates at
        ``confidence``, with subtree raising). Default of C45Classifier.
        'reduced_error': grow on all but a held-out ``validation_fraction`` (or on all of
        ``X`` when ``fit`` gets ``X_val, y_val``), then repeatedly replace by a leaf the node
        whose replacement most increases validation accuracy, while none decreases it.
        'cost_complexity': CART's pruning with ``ccp_alpha``; with ``ccp_alpha=0`` the
        alpha is chosen by cross-validation, as ``ccp_alpha='cv'`` (any ``ccp_alpha > 0``
        prunes whatever ``pruning`` is, as in scikit-learn).
    confidence : float, default 0.25
        Confidence level of the pessimistic error estimates (J48's -C); lower prunes more.
    subtree_raising : bool, default True
        Let pessimistic pruning replace a node by its largest branch.
    validation_fraction : float, default 0.25
        Share of the training cases held out (stratified, seeded by ``random_state``) for
        reduced-error pruning.
    significance : float or None, classifiers only
        Pre-pruning by the chi-square test of independence (the lectures' statistical
        test): a split is made only if its branch-by-class table rejects independence at
        this level (for example 0.05). None: no test.
    c45_thresholds : bool, classifiers only (default True for C45Classifier)
        C4.5's rules for numeric attributes, as J48 applies them: a cut needs
        ``0.1 * known weight / classes`` (within ``[min_samples_leaf, 25]``) on each side,
        its gain pays ``log2(candidate cuts) / node weight``, and the threshold is moved down
        to the largest training value at or below the midpoint.
    c45_variant : {{'j48', 'release8'}}, classifiers only, default 'j48'
        Where Weka's J48 and Quinlan's C4.5 release 8 differ, which to follow. 'j48': gains,
        gain ratios and threshold placement compare within 1e-6, pessimistic pruning uses
        the exact normal deviate (0.6745 at confidence 0.25) and ``n - e`` at the high end.
        'release8': exact comparisons, C4.5's interpolated deviate table (0.6925) and
        ``0.67 (n - e)``. Both raise the last of equally large branches.
    collapse : bool, classifiers only (default True for C45Classifier)
        After growing, turn into a leaf every subtree whose leaves make as many training
        errors as its root would alone (within 1e-3), as C4.5 does while it grows and J48
        before pruning (J48's -O turns it off). ID3 and CART do not.
    missing : {{'learned', 'fractional', 'majority', 'class_majority'}}, default {missing!r}
        What a missing value does at a split. 'fractional' (C4.5): the gain is computed on
        the known values and scaled by their share of the weight; in training a case goes
        down every branch with its weight times the branch's share of the known weight, and
        prediction mixes the leaves reached with those shares. 'majority' (ID3): the branch
        of the most common value (the heaviest branch). 'class_majority' (classifiers): in
        training, the branch where the case's class is most common; in prediction, as
        'majority'. 'learned' (CART, as scikit-learn, LightGBM and XGBoost): each split
        sends missing values to the branch that gives the highest gain, remembered for
        prediction (the heaviest branch when training had none there).
    lookahead : {{0, 1, 2}}, default 0
        Levels to look ahead when choosing a split: 0 is greedy; with k > 0 each candidate
        split is scored by the least impurity its children reach after k more levels of
        splits, each chosen as well as possible (the lectures' remedy for parity, where
        every single split gains nothing). Budget: at each level but the last, a numeric
        feature offers at most 16 cuts (its greedy best and others evenly spaced); the
        work at a node grows as rows x features x (features x 16)^k. The whole fit is
        priced before it starts, its bins known: one estimated above a minute warns, one
        above 30 minutes is refused, each naming the max_depth, lookahead or
        min_samples_leaf that would take less. Grows level by level (not with
        ``missing='fractional'``, ``criterion='absolute_error'``, ``max_leaf_nodes`` or
        ``trace``), on one thread.
    split : {{'axis', 'oblique'}}, default 'axis'
        'axis': each split tests one feature. 'oblique': a node may also test a linear
        combination of the numeric features, ``w . x <= t`` (CART-LC's multivariate
        split), found by OC1's search: starting from the best single-feature split, each
        weight in turn moves to its best value (an exact line search), then seeded random
        directions are tried to escape local minima (``random_state``). A node of over
        20,000 rows steers its search by a seeded sample of them and places the threshold
        on all of them. The oblique split is kept where it gains more than every
        single-feature split; nominal and ordinal features keep their usual splits. A row
        with a missing value in a feature of the combination goes where the ``missing``
        policy sends it. Needs 'gini', 'entropy', 'misclassification' or
        'squared_error', grows level by level (see ``lookahead`` for what that excludes)
        on one thread, and takes no ``lookahead``.
    max_leaf_nodes : int or None, default None
        Grow best-first, splitting the leaf of largest impurity decrease, up to this many
        leaves.
    max_features : int, float, 'sqrt', 'log2' or None, default None
        Number of features drawn at random (seeded by ``random_state``) at each node.
    max_bins : 'auto', int or None, default {max_bins!r}
        Numeric thresholds are searched over bins. 'auto': exact (one bin per distinct value)
        up to 50,000 rows or for features with at most 255 distinct values, else 255 quantile
        bins; None: always exact (as C4.5); an integer: at most that many bins. Above
        200,000 rows, 'auto' and an integer place the bins by a random sample of 200,000
        rows (seeded, as LightGBM and scikit-learn's HistGradientBoosting do); thresholds
        still lie halfway between training values.
    nominal_features : str, or list of str or int, optional
        Columns to treat as nominal (for example numeric codes), by name or position; a
        string is one column name. String, boolean and
        categorical columns of a DataFrame are nominal without being listed.
    ordinal_features : dict of column -> list of levels, optional
        Ordinal columns, split by thresholds along the given level order. Ordered pandas
        categoricals are ordinal without being listed.
    random_state : int, RandomState or None
        Seed for ``max_features``.
    n_jobs : int or None, default -1
        Threads that grow the tree: -1 every core, -2 all but one, None or 1 one. A large
        tree grows its top on one thread, then its subtrees on all; the tree is the same
        for any number of threads.
"""


def _doc(cls_doc: str, cls) -> str:
    """The class docstring, with the defaults of ``cls`` in the shared parameter text."""
    defaults = cls()
    return cls_doc + _COMMON_DOC.format(
        min_samples_leaf=defaults.min_samples_leaf,
        missing=defaults.missing,
        max_bins=defaults.max_bins,
    )


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    regression = False

    def __init__(
        self,
        *,
        criterion="gini",
        nominal_split="binary",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        ccp_alpha=0.0,
        pruning=None,
        confidence=0.25,
        subtree_raising=True,
        validation_fraction=0.25,
        significance=None,
        c45_thresholds=False,
        c45_variant="j48",
        collapse=False,
        missing="learned",
        lookahead=0,
        split="axis",
        max_leaf_nodes=None,
        max_features=None,
        max_bins="auto",
        class_weight=None,
        nominal_features=None,
        ordinal_features=None,
        random_state=None,
        n_jobs=-1,
    ):
        self.criterion = criterion
        self.nominal_split = nominal_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.pruning = pruning
        self.confidence = confidence
        self.subtree_raising = subtree_raising
        self.validation_fraction = validation_fraction
        self.significance = significance
        self.c45_thresholds = c45_thresholds
        self.c45_variant = c45_variant
        self.collapse = collapse
        self.missing = missing
        self.lookahead = lookahead
        self.split = split
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.max_bins = max_bins
        self.class_weight = class_weight
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, X_val=None, y_val=None, trace=False):
        """Grow the tree on features ``X`` (DataFrame or array) and class labels ``y``.

        ``X_val, y_val``: validation cases for ``pruning='reduced_error'`` (by default a
        stratified ``validation_fraction`` of ``X, y`` is held out instead). ``trace``:
        keep the learning trace in ``trace_`` (every candidate split of every node, with
        its gain, as a ``LearningTrace``; ``print(tree.trace_)``).
        """
        check_params(self)
        typed = self._validate_X(X, reset=True)
        self._note_target(y)
        y = as_1d(y, len(typed))
        self.classes_, y_class = classes_and_codes(y)
        self.n_classes_ = len(self.classes_)
        w = self._check_sample_weight(sample_weight, len(y_class))
        if self.class_weight is not None:
            w = check_weight_total(
                w * compute_sample_weight(self.class_weight, y), "sample_weight x class_weight"
            )
        validation = None
        if self.pruning == "reduced_error":
            typed, y_class, w, validation = self._hold_out(typed, y_class, w, X_val, y_val)
        y_value = np.zeros(len(y_class))
        tree, spec, cases = self._grow(
            typed, y_class.astype(np.int32), y_value, w, self.n_classes_, trace
        )
        finish_tree(self, tree, spec, cases, validation)
        return self

    def _hold_out(self, typed, y_class, w, X_val, y_val):
        """Split off the validation cases of reduced-error pruning."""
        if X_val is not None:
            if y_val is None:
                raise ValueError("X_val needs y_val")
            val_typed = self._validate_X(X_val, reset=False)
            labels = as_1d(y_val, len(val_typed))
            index = {c: i for i, c in enumerate(self.classes_.tolist())}
            unknown = [v for v in labels.tolist() if v not in index]
            if unknown:
                raise ValueError(f"y_val has a class not seen in y: {unknown[0]!r}")
            val_class = np.array([index[v] for v in labels.tolist()], dtype=np.int64)
            return typed, y_class, w, Validation(val_typed, val_class, np.ones(len(val_class)))
        fraction = self.validation_fraction
        rows = np.arange(len(y_class))
        counts = np.bincount(y_class)
        stratify = y_class if counts[counts > 0].min() >= 2 else None
        grow_rows, val_rows = train_test_split(
            rows, test_size=fraction, random_state=self.random_state, stratify=stratify
        )
        grow_rows.sort()
        val_rows.sort()
        return (
            typed.iloc[grow_rows],
            y_class[grow_rows],
            w[grow_rows],
            Validation(typed.iloc[val_rows], y_class[val_rows], w[val_rows]),
        )

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the training class distribution of each sample's leaf (with
        ``missing='fractional'``, a sample with a missing value mixes the leaves it reaches)."""
        check_is_fitted(self, "tree_")
        return self._leaf_values(X)

    def predict_log_proba(self, X) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable class of each sample (the first class on ties)."""
        check_is_fitted(self, "tree_")
        if self.tree_.fractional:
            return self.classes_[np.argmax(self._leaf_values(X), axis=1)]
        return self.classes_[self.tree_.node_class[self.apply(X)]]


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    regression = True

    def __init__(
        self,
        *,
        criterion="squared_error",
        leaf_model="mean",
        nominal_split="binary",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        ccp_alpha=0.0,
        missing="learned",
        lookahead=0,
        split="axis",
        max_leaf_nodes=None,
        max_features=None,
        max_bins="auto",
        nominal_features=None,
        ordinal_features=None,
        random_state=None,
        n_jobs=-1,
    ):
        self.criterion = criterion
        self.leaf_model = leaf_model
        self.nominal_split = nominal_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.missing = missing
        self.lookahead = lookahead
        self.split = split
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.max_bins = max_bins
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, trace=False):
        """Grow the tree on features ``X`` and numeric targets ``y`` (``trace``: keep the
        learning trace in ``trace_``, as for classifiers)."""
        check_params(self)
        typed = self._validate_X(X, reset=True)
        self._note_target(y)
        y_value = numeric_targets(
            as_1d(y, len(typed)), "DecisionTreeRegressor", self.schema_.target
        )
        w = self._check_sample_weight(sample_weight, len(y_value))
        if self.leaf_model == "linear":
            check_linear_features(typed, self.schema_)
        y_class = np.zeros(len(y_value), dtype=np.int32)
        tree, spec, cases = self._grow(typed, y_class, y_value, w, 3, trace)
        finish_tree(self, tree, spec, cases)
        if self.leaf_model == "linear":
            self._fit_leaf_models(typed, y_value, w)
        elif hasattr(self, "terms_"):
            del self.terms_
        return self

    def _fit_leaf_models(self, typed, y_value, w) -> None:
        """Replace each leaf's mean by a linear model of every term (``terms_``), fitted on
        the leaf's training rows as M5 fits a model."""
        keep = w > 0
        matrix = self._routing_matrix(typed)[keep]
        y_value, w = y_value[keep], w[keep]
        self.terms_ = fit_terms(matrix, y_value, w, self.schema_)
        leaf = run_parallel(apply_rows, matrix, *self._tree_args())
        params = fit_leaf_models(self.tree_, leaf, self.terms_.terms(matrix), y_value, w)
        self.tree_ = dataclasses.replace(self.tree_, leaf_model=leaves.LINEAR, leaf_params=params)

    def predict(self, X) -> np.ndarray:
        """Mean (absolute error: median; linear leaves: their model) training target of each
        sample's leaf."""
        check_is_fitted(self, "tree_")
        if self.tree_.leaf_model == leaves.LINEAR:
            return self._linear_predictions(X)
        return self._leaf_values(X)[:, 0]


def _preset(base, name: str, **defaults):
    """A subclass of ``base`` that differs only in the defaults of some parameters.

    Its ``__init__`` takes the same keyword parameters as the base class, with the new
    defaults in its signature (which scikit-learn reads for ``get_params`` and ``clone``).
    """
    signature = inspect.signature(base.__init__)
    unknown = set(defaults) - set(signature.parameters)
    if unknown:
        raise TypeError(f"{name}: unknown parameters {sorted(unknown)}")
    parameters = [
        p.replace(default=defaults.get(p.name, p.default)) for p in signature.parameters.values()
    ]
    own_defaults = {p.name: p.default for p in parameters[1:]}

    def __init__(self, **params):
        unexpected = set(params) - set(own_defaults)
        if unexpected:
            raise TypeError(
                f"{name}() got an unexpected keyword argument {sorted(unexpected)[0]!r}"
            )
        base.__init__(self, **{**own_defaults, **params})

    __init__.__signature__ = signature.replace(parameters=parameters)
    return type(name, (base,), {"__init__": __init__, "__module__": __name__})


ID3Classifier = _preset(
    DecisionTreeClassifier,
    "ID3Classifier",
    criterion="entropy",
    nominal_split="multiway",
    missing="majority",
)
C45Classifier = _preset(
    DecisionTreeClassifier,
    "C45Classifier",
    criterion="gain_ratio",
    nominal_split="multiway",
    min_samples_leaf=2,
    pruning="pessimistic",
    c45_thresholds=True,
    collapse=True,
    missing="fractional",
    max_bins=None,  # C4.5 tries every value
)
CARTClassifier = _preset(DecisionTreeClassifier, "CARTClassifier")
CARTRegressor = _preset(DecisionTreeRegressor, "CARTRegressor")


_PARAMS = """
    Parameters
    ----------
    criterion : {criteria}, default {criterion!r}
        Impurity measure of a split.{criterion_note}
    nominal_split : {{'multiway', 'binary'}}, default {nominal_split!r}
        'multiway': one branch per category (ID3, C4.5); 'binary': the best two-way partition
        of the categories (CART; exact for two classes and for regression, ordered by the
        share of the node's majority class for more classes)."""

_CLS, _REG = (
    "{" + ", ".join(repr(name) for name in registry.names(task, aliases=False)) + "}"
    for task in (registry.CLASSIFICATION, registry.REGRESSION)
)
_REGRESSION_NOTE = """ 'm5': Weka M5P's (the decrease of the fifth root of
        the variance, each side of a split more than a fifth of its node).
    leaf_model : {'mean', 'linear'}, default 'mean'
        What a leaf predicts: its mean (``criterion='absolute_error'``: its median), or a
        linear model of every feature fitted on the leaf's rows (numeric features as they
        are, a nominal one as indicator terms; terms chosen as M5 chooses them, see
        ``ModelTreeRegressor``, whose pruning and smoothing this tree does not do). Best
        with shallow trees (``max_depth``, ``min_samples_leaf``); ``terms_`` holds the
        terms."""
_GAIN_RATIO_NOTE = (
    " 'gain_ratio' follows C4.5: only attributes with at least the\n        average gain"
    " compete on gain ratio; a numeric cut is chosen by gain."
)


def tree_class_doc(summary: str, cls, criterion: str, nominal_split: str) -> str:
    """The docstring of a tree class: ``summary``, then the shared text of the parameters,
    with ``cls``'s criteria and defaults."""
    regression = cls.regression
    return _doc(
        summary
        + _PARAMS.format(
            criteria=_REG if regression else _CLS,
            criterion=criterion,
            nominal_split=nominal_split,
            criterion_note=_REGRESSION_NOTE if regression else _GAIN_RATIO_NOTE,
        ),
        cls,
    )


for _cls, _summary, _crit, _split in [
    (
        DecisionTreeClassifier,
        "A decision tree classifier (CART defaults: Gini, binary splits).",
        "gini",
        "binary",
    ),
    (
        DecisionTreeRegressor,
        "A regression tree (squared error, mean leaves).",
        "squared_error",
        "binary",
    ),
    (
        ID3Classifier,
        "ID3: information gain, one branch per category, no pruning.",
        "entropy",
        "multiway",
    ),
    (
        C45Classifier,
        "C4.5: gain ratio, one branch per category, at least two samples in two branches.",
        "gain_ratio",
        "multiway",
    ),
    (CARTClassifier, "CART classification tree: Gini, binary splits.", "gini", "binary"),
    (
        CARTRegressor,
        "CART regression tree: squared error, binary splits.",
        "squared_error",
        "binary",
    ),
]:
    _cls.__doc__ = tree_class_doc(_summary + "\n", _cls, _crit, _split)
