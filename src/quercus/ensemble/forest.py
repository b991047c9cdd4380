"""Random forests: bagging plus randomised attributes, as the lectures present them.

Each tree grows on a bootstrap sample, drawn as integer weights (a row drawn twice weighs
2; no copy of the data is made beyond the rows drawn), from its own integer seed, so that
its out-of-bag rows can be drawn again from the seed; or, with ``bootstrap="poisson"``, on
Poisson weights that depend on the forest's seed, the tree's number and the row's number
only (``bootstrap.py``), the same whatever the partitioning of the rows. Attributes are
randomised per split (``max_features``) or once per tree (``feature_sampling="tree"``).
The data are typed and binned once for all trees, and the trees grow in parallel threads
(the growth kernel releases the GIL): the same ``random_state`` gives the same forest for
any ``n_jobs``.
Rows that are equal after binning, target included, are grown as one row whose weight is
theirs summed (the splits and leaves are the same, the trees' ``n_node_samples`` count
distinct rows). Prediction routes all rows through all trees in one compiled pass over the
packed trees.
"""

from __future__ import annotations

import numbers
import operator
import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._parallel import n_threads
from ..binning.binned import bin_frame
from ..estimators.display import NotebookDisplay
from ..estimators.params import (
    InvalidParameterError,
    check_params,
    features_per_split,
)
from ..estimators.spec import DataFacts, growth_spec
from ..estimators.trees import DecisionTreeClassifier, DecisionTreeRegressor
from ..estimators.validate import (
    TabularInput,
    as_1d,
    check_weight_total,
    classes_and_codes,
    numeric_targets,
)
from ..grow.rows import LocalRows, TrainingRows, TreePlan
from ..persist.forest_file import save_forest
from ..tree import Tree
from ..tree._predict import fractional_rows
from ..tree.stack import concatenate, stack_trees
from .bootstrap import MAX_POISSON_RATE, bootstrap_counts, poisson_counts
from .tree_sums import PackedCache, pack_trees, stack_in_batches, sum_trees

# Parameters of the trees (passed to each tree as they are).
_TREE_PARAMS = (
    "criterion",
    "nominal_split",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "min_impurity_decrease",
    "max_leaf_nodes",
    "max_features",
    "missing",
    "max_bins",
    "nominal_features",
    "ordinal_features",
)


def _with_progress(trees, total: int, verbose):
    """``trees`` as they come, with a progress bar on stderr when ``verbose`` > 0 (trees
    grown, elapsed time, time left)."""
    if not verbose:
        return trees
    from tqdm.auto import tqdm

    return tqdm(trees, total=total, desc="growing trees", unit="tree", leave=verbose > 1)


#: What a tree holds before its nodes at the peak of a forest's fit: about 256 bytes (its
#: seed, its offsets in the stack, its share of the futures and trees of a batch), measured
#: with tracemalloc on forests of 2,000 and 20,000 one-node trees (each node adds about 64
#: bytes).
TREE_BYTES = 256
#: A forest whose trees would hold more than this before their nodes warns before it grows.
FOREST_WARN_BYTES = 2**30


def warn_of_forest_size(n_trees: int, stacklevel: int = 2) -> None:
    """A warning naming ``n_estimators`` when ``n_trees`` grown trees would hold more than
    :data:`FOREST_WARN_BYTES` before their nodes (``stacklevel``: as ``warnings.warn``'s,
    from the caller)."""
    held = n_trees * TREE_BYTES
    if held <= FOREST_WARN_BYTES:
        return
    warnings.warn(
        f"n_estimators={n_trees:,}: the grown trees would hold at least {held / 2**30:,.1f} "
        f"GiB of memory (about {TREE_BYTES} bytes a tree before its nodes), besides "
        "each tree's fit; a forest's predictions seldom change beyond a few hundred trees: "
        "set fewer",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def tree_seeds(base_seed: int, first: int, last: int) -> list[int]:
    """The seeds of trees ``first`` to ``last - 1``: tree ``i``'s depends on ``i`` only, so
    that ``warm_start`` adds the trees a larger forest would have had."""
    return [
        int(np.random.SeedSequence([base_seed, i]).generate_state(1, np.uint64)[0] % (2**62)) + 1
        for i in range(first, last)
    ]


def draw_base_seed(random_state) -> int:
    """A forest's seed, drawn from ``random_state``: its trees' seeds and Poisson weights
    derive from it."""
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def tree_params(forest) -> dict:
    """The parameters of every tree of ``forest``, by name (as the single trees name
    them)."""
    params = {name: getattr(forest, name) for name in _TREE_PARAMS}
    if forest.feature_sampling == "tree":
        params["max_features"] = None  # drawn once per tree instead
    return params


def poisson_rate(max_samples, n: int) -> float:
    """Mean weight of a row under ``bootstrap='poisson'``: ``max_samples`` rows of ``n`` (a
    float ``max_samples`` is that share itself)."""
    if max_samples is None:
        return 1.0
    if isinstance(max_samples, numbers.Integral):
        rate = max_samples / n
    else:
        rate = float(max_samples)
    if rate > MAX_POISSON_RATE:
        raise InvalidParameterError(
            f"max_samples={max_samples} is more than {MAX_POISSON_RATE:g} times the {n} rows: "
            "too many for bootstrap='poisson'",
            "max_samples",
        )
    return rate


def tree_plans(forest, first: int, seeds: list[int], n_features: int) -> list[TreePlan]:
    """The plans of the trees of ``seeds`` (trees ``first`` on): their numbers, seeds, and
    with ``feature_sampling='tree'`` the attributes each draws."""
    k_per_tree = n_features
    if forest.feature_sampling == "tree":
        k_per_tree = features_per_split(forest.max_features, n_features)
    plans = []
    for number, seed in enumerate(seeds, start=first):
        features = None
        if k_per_tree < n_features:
            draw = np.random.default_rng(seed + 1).choice(n_features, k_per_tree, replace=False)
            features = np.sort(draw)
        plans.append(TreePlan(number, seed, features))
    return plans


def grow_forest(forest, rows: TrainingRows, n_stats: int, first: int, seeds: list[int], weigh):
    """The :class:`~quercus.tree.stack.TreeStack` of ``forest``'s trees of ``seeds`` (trees
    ``first`` on), grown on the training ``rows`` (in this process or on a Dask cluster),
    each row weighed in each tree by ``weigh`` (:data:`quercus.grow.rows.Weigh`). The
    local and the Dask forests' fit."""
    facts = DataFacts.of(rows.tables, rows.total_weight, n_stats)
    spec = growth_spec(tree_params(forest), forest.regression, facts, seed=0)
    plans = tree_plans(forest, first, seeds, facts.n_features)
    trees = rows.grow(spec, plans, weigh)
    return stack_in_batches(_with_progress(trees, len(seeds), forest.verbose))


def poisson_weights(base_seed: int, rate: float, tree: int, first_row: int, w):
    """The weights of rows ``first_row`` on (weights ``w``) in tree number ``tree`` of a
    forest of ``bootstrap='poisson'``: times their Poisson draws of mean ``rate``, keyed on
    the forest's seed, the tree and the rows' numbers (a :data:`quercus.grow.rows.Weigh`
    once ``base_seed`` and ``rate`` are given)."""
    return w * poisson_counts(base_seed, tree, first_row, len(w), rate)


class TreeEstimators(Sequence):
    """A forest's ``estimators_``: its trees as fitted tree estimators, each made when it
    is asked for (and not kept: changing one changes nothing of the forest but what is
    changed in place in its arrays)."""

    def __init__(self, forest):
        self._forest = forest
        self._template = forest._tree_template()

    def __len__(self) -> int:
        return len(self._forest.trees_)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        tree = self._forest.trees_.tree(operator.index(index))
        return self._forest._tree_estimator(self._template, tree)

    def __repr__(self) -> str:
        return f"<{len(self)} tree estimators of a {type(self._forest).__name__}>"


class BaseForest(NotebookDisplay, TabularInput, BaseEstimator):
    """Shared machinery of the random forests (not for direct use)."""

    regression = False
    _tree_class = DecisionTreeClassifier

    # -- fitting --------------------------------------------------------------------------

    def _tree_template(self):
        """The unfitted tree estimator that each tree of ``estimators_`` is a clone of."""
        return self._tree_class(**tree_params(self))

    def _bootstrap_size(self, n: int) -> int:
        """Rows drawn for each tree (``max_samples`` passed ``check_params``): at most
        :data:`~quercus.ensemble.bootstrap.MAX_POISSON_RATE` times the ``n`` rows."""
        size = self.max_samples
        if size is None or not self.bootstrap:
            return n
        if isinstance(size, numbers.Integral):
            if size > MAX_POISSON_RATE * n:
                raise InvalidParameterError(
                    f"max_samples={size} is more than {MAX_POISSON_RATE:g} times the {n} rows: "
                    "too many draws for each tree",
                    "max_samples",
                )
            return int(size)
        return max(1, round(size * n))

    def _tree_weights(self, tree: int, seed: int, n: int, n_draws: int) -> np.ndarray:
        """The bootstrap weights of the ``n`` rows in tree number ``tree`` (its seed
        ``seed``): multinomial draws from the tree's seed, Poisson draws keyed on the
        forest's seed, the tree's number and the row's, or all ones."""
        if isinstance(self.bootstrap, str):  # "poisson"
            return poisson_counts(self.base_seed_, tree, 0, n, poisson_rate(self.max_samples, n))
        if self.bootstrap:
            return bootstrap_counts(seed, n, n_draws)
        return np.ones(n)

    def fit(self, X, y, sample_weight=None):
        """Grow ``n_estimators`` trees on bootstrap samples of ``X, y`` (with
        ``warm_start``, only the trees that a refit with more trees adds)."""
        check_params(self)
        typed = self._validate_X(X, reset=True)
        self._note_target(y)
        y = as_1d(y, len(typed))
        w = self._check_sample_weight(sample_weight, len(y))
        if not (w > 0).any():
            raise ValueError("sample_weight is zero for every sample: nothing to learn from")
        y_class, y_value, n_stats = self._encode_target(y)
        if self._class_weight_mode() == "balanced":
            w = check_weight_total(
                w * compute_sample_weight("balanced", y), "sample_weight x class_weight"
            )
        elif isinstance(self.class_weight, dict):
            w = check_weight_total(
                w * compute_sample_weight(self.class_weight, y), "sample_weight x class_weight"
            )
        n_draws = self._bootstrap_size(len(y))
        if isinstance(self.bootstrap, str):
            poisson_rate(self.max_samples, len(y))  # its error before any tree grows
        old = self.__dict__.get("trees_") if self.warm_start else None
        if old is not None and len(old) > self.n_estimators:
            raise ValueError(
                f"n_estimators={self.n_estimators} is fewer than the {len(old)} "
                "trees already grown: warm_start only adds trees"
            )
        if old is None:
            self.tree_seeds_ = []
            self.base_seed_ = draw_base_seed(self.random_state)
        first = 0 if old is None else len(old)
        if self.n_estimators > first:  # before the seeds: ten million of them take a while
            warn_of_forest_size(self.n_estimators)
        seeds = tree_seeds(self.base_seed_, first, self.n_estimators)
        if seeds:
            target = (y_class, y_value, n_stats)
            new = self._grow_trees(typed, y, w, target, n_draws, first, seeds)
            self.trees_ = new if old is None else concatenate([old, new])
            self.tree_seeds_ = self.tree_seeds_ + seeds
        self._pack()
        if self.oob_score:
            self._compute_oob(typed, y, y_class, y_value, n_draws)
        elif hasattr(self, "oob_score_"):
            del self.oob_score_
        return self

    def _grow_trees(self, typed, y, w, target, n_draws: int, first: int, seeds: list[int]):
        """The :class:`~quercus.tree.stack.TreeStack` of the trees of ``seeds`` (trees
        ``first`` on), grown in parallel threads on the data binned once. ``target``:
        ``(y_class, y_value, n_stats)``. The binned rows live only as long as this call:
        they are gone before the trees are packed for prediction."""
        y_class, y_value, n_stats = target
        threads = n_threads(self.n_jobs)
        data = bin_frame(typed, self.schema_, self.max_bins, threads)
        rows = LocalRows(
            data, y_class, y_value, w, self.regression, n_threads=threads, group_equal_rows=True
        )
        del data
        return grow_forest(
            self, rows, n_stats, first, seeds, self._weighing(y, n_draws, first, seeds)
        )

    def _weighing(self, y, n_draws: int, first: int, seeds: list[int]):
        """The weighing function of the trees of ``seeds`` (trees ``first`` on): their
        bootstrap draws (:meth:`_tree_weights`), and with ``class_weight=
        'balanced_subsample'`` the class weights of each tree's sample; None when every
        tree weighs the rows as they are."""
        subsample = self._class_weight_mode() == "balanced_subsample"
        if not self.bootstrap and not subsample:
            return None
        n = len(y)

        def weigh(tree: int, first_row: int, w: np.ndarray) -> np.ndarray:
            counts = self._tree_weights(tree, seeds[tree - first], n, n_draws)
            tree_w = w * counts
            if subsample:
                drawn = counts > 0
                tree_w[drawn] *= compute_sample_weight("balanced", y[drawn], indices=None)
            return tree_w

        return weigh

    def _class_weight_mode(self):
        return getattr(self, "class_weight", None)

    @property
    def estimators_(self):
        """The fitted tree estimators, one per tree (a sequence that makes each when asked
        for: the forest keeps its trees in ``trees_``, a
        :class:`~quercus.tree.stack.TreeStack`)."""
        if "trees_" not in self.__dict__:
            raise AttributeError(f"this {type(self).__name__} is not fitted: no estimators_")
        return TreeEstimators(self)

    def _tree_estimator(self, template, tree: Tree):
        """A fitted tree estimator (one of ``estimators_``) around ``tree``, sharing the
        forest's schema and classes."""
        est = clone(template)
        est.tree_ = tree
        est.schema_ = self.schema_
        est.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            est.feature_names_in_ = self.feature_names_in_
        est.max_features_ = features_per_split(
            tree_params(self)["max_features"], est.n_features_in_
        )
        if not self.regression:
            est.classes_ = self.classes_
            est.n_classes_ = self.n_classes_
        return est

    def __setstate__(self, state):
        # A forest pickled before its seeds were public attributes, or before it kept a
        # stack (it then holds its tree estimators).
        for old, new in (("_seeds", "tree_seeds_"), ("_base_seed", "base_seed_")):
            if old in state:
                state[new] = state.pop(old)
        if "estimators_" in state:
            estimators = state.pop("estimators_")
            state["trees_"] = stack_trees([e.tree_ for e in estimators])
        super().__setstate__(state)

    def _pack(self):
        """Forget the packed forest of earlier trees: :attr:`_packed` packs ``trees_``
        again where prediction first needs it. Fit does not pack: the packed tables (at 1M
        x 20, 100 trees, about 300 MiB) would add to its peak."""
        self._packing = PackedCache()

    @property
    def _packed(self) -> tuple:
        """The packed forest that prediction walks: the compact layout when every split is
        a numeric threshold, else the general one; made at its first use and kept."""
        cache = self.__dict__.get("_packing")
        if cache is None:  # a forest pickled before the packing was deferred
            cache = self._packing = PackedCache()
        if cache.tables is None:
            cache.tables = pack_trees(self.trees_, self._tree_values)
        return cache.tables

    def _sum_trees(self, matrix, out, rows=None, tree=None, count=None):
        """Add the trees' outputs for the rows of ``matrix`` to ``out`` (see
        :func:`~quercus.ensemble.tree_sums.sum_trees`)."""
        sum_trees(self._packed, matrix, out, rows=rows, tree=tree, count=count)

    def _tree_values(self, tree: Tree) -> np.ndarray:
        """What ``tree`` adds up for each of its nodes (not kept on the tree)."""
        return tree.leaf_values(keep=False)

    # -- out of bag -----------------------------------------------------------------------

    def _compute_oob(self, typed, y, y_class, y_value, n_draws):
        """Out-of-bag predictions: each row through the trees whose sample missed it (the
        weights drawn again from the seeds)."""
        matrix = self._routing_matrix(typed)
        n = len(matrix)
        out = np.zeros((n, self._packed[-1].shape[1]))
        count = np.zeros(n, dtype=np.int64)
        for t, seed in enumerate(self.tree_seeds_):
            rows = np.flatnonzero(self._tree_weights(t, seed, n, n_draws) == 0)
            self._sum_trees(matrix, out, rows=rows, tree=t, count=count)
        seen = count > 0
        if not seen.all():
            import warnings

            warnings.warn(
                f"{int((~seen).sum())} rows were in every bootstrap sample: their out-of-bag "
                "prediction is NaN (grow more trees)",
                UserWarning,
                stacklevel=3,
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            oob = out / count[:, None]
        self._store_oob(oob, seen, y, y_class, y_value)

    # -- prediction -----------------------------------------------------------------------

    def _forest_average(self, X) -> np.ndarray:
        """The trees' outputs for every row, averaged (one compiled pass)."""
        check_is_fitted(self, "trees_")
        matrix = self._predict_matrix(X)
        out = np.zeros((len(matrix), self._packed[-1].shape[1]))
        self._sum_trees(matrix, out)
        if self.trees_.merged.fractional:
            self._fractional_rows(matrix, out)
        return out / len(self.trees_)

    def _fractional_rows(self, matrix, out):
        """C4.5's missing values: rows with one go down every branch in each tree."""
        rows = np.flatnonzero(np.isnan(matrix).any(axis=1))
        if len(rows) == 0:
            return
        out[rows] = 0.0
        part = np.zeros_like(out)
        for t in self.trees_:
            fractional_rows(
                matrix,
                rows,
                t.routes,
                t.children,
                t.cat_table,
                t.child_start,
                t.n_children,
                t.weighted_n_node_samples,
                self._tree_values(t),
                part,
            )
            out[rows] += part[rows]

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importances: the trees' normalised importances, averaged."""
        check_is_fitted(self, "trees_")
        total = self.trees_.mean_feature_importances(self.n_features_in_)
        return total / total.sum() if total.sum() > 0 else total

    def report(self, X, y, path, **options):
        """Write the report of this forest on ``X, y`` (an HTML page) to ``path``; options
        and what the page shows: :func:`quercus.report.write_report`."""
        from ..report import write_report

        return write_report(self, X, y, path, **options)

    def save(self, path):
        """Write the fitted forest to ``path`` (a zip of JSON metadata and NumPy arrays, read
        back by ``quercus.load`` without pickle)."""
        return save_forest(self, path)


_FOREST_DOC = """
    n_estimators : int, default 100
        Number of trees.
    criterion, nominal_split, max_depth, min_samples_split, min_samples_leaf,
    min_impurity_decrease, max_leaf_nodes, missing, max_bins, nominal_features,
    ordinal_features :
        The trees' parameters, as for the single trees (every tree is grown fully unless
        they say otherwise; nominal and missing values are used as they are).
    max_features : int, float, 'sqrt', 'log2' or None, default {max_features!r}
        Number of attributes drawn at random: at each split (``feature_sampling='node'``)
        or once per tree (``'tree'``).
    feature_sampling : {{'node', 'tree'}}, default 'node'
        Where attributes are randomised: per split, or per tree (each tree then searches
        all of its attributes at every split).
    bootstrap : bool or 'poisson', default True
        True: grow each tree on a bootstrap sample (``max_samples`` rows drawn with
        replacement, as integer weights); False: on all rows. ``'poisson'``: each row
        weighs an independent Poisson draw of mean 1 (``max_samples / n`` when
        ``max_samples`` is given) that depends on ``random_state``, the tree's number and
        the row's number only, so that the weights of a block of rows can be drawn without
        the others. The forest then does not depend on how the rows are partitioned: the
        Dask forests draw these weights. For large n it approximates the bootstrap (a row
        is left out of bag with probability 1/e in both); Spark MLlib draws its random
        forests' samples the same way.
    max_samples : int, float or None
        Rows drawn per tree (a float: a share of the rows); None: as many as there are.
        With ``bootstrap='poisson'``, the expected sum of a tree's weights.
    oob_score : bool, default False
        Score the forest on the out-of-bag rows: ``oob_score_`` and {oob_attr}.
    n_jobs : int or None
        Threads growing trees at once (-1: one per core). The forest does not depend on it.
    random_state : int, RandomState or None
        Seeds every tree's bootstrap sample and attribute draws.
    verbose : int, default 0
        0: silent; 1: a progress bar of the trees grown on stderr, erased when done;
        2: the bar is kept.
    warm_start : bool, default False
        A refit with more ``n_estimators`` keeps the trees grown and adds the others (the
        same trees a forest of that size would have).
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    trees_ : TreeStack
        The trees, every one's arrays laid end to end (:mod:`quercus.tree.stack`): a
        forest of a million small trees is a few arrays, not a million objects.
        ``trees_.tree(k)`` is tree ``k`` as a :class:`~quercus.tree.Tree`.
    estimators_ : sequence of tree estimators
        The trees as fitted single-tree estimators (scikit-learn's attribute), each made
        when it is asked for from ``trees_``: changing one's attributes changes nothing
        of the forest.
    feature_importances_ : ndarray of shape (n_features,)
        The trees' normalised impurity importances, averaged, normalised.
    base_seed_ : int
        The forest's seed, drawn from ``random_state``: the trees' seeds and the Poisson
        weights of ``bootstrap='poisson'`` derive from it.
    tree_seeds_ : list of int
        Each tree's seed (of its bootstrap sample and its attribute draws): tree ``k``'s
        out-of-bag rows are drawn again from it.
    schema_, n_features_in_, feature_names_in_ :
        The features, as for the single trees.
"""


class RandomForestClassifier(ClassifierMixin, BaseForest):
    regression = False
    _tree_class = DecisionTreeClassifier

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="gini",
        nominal_split="binary",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_features="sqrt",
        feature_sampling="node",
        bootstrap=True,
        max_samples=None,
        oob_score=False,
        voting="soft",
        missing="learned",
        max_bins="auto",
        class_weight=None,
        nominal_features=None,
        ordinal_features=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.nominal_split = nominal_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.feature_sampling = feature_sampling
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.voting = voting
        self.missing = missing
        self.max_bins = max_bins
        self.class_weight = class_weight
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    def _encode_target(self, y):
        classes, y_class = classes_and_codes(y)
        if hasattr(self, "classes_") and self.warm_start and hasattr(self, "estimators_"):
            if not np.array_equal(classes, self.classes_):
                raise ValueError("warm_start: the classes differ from those of the first fit")
        self.classes_, self.n_classes_ = classes, len(classes)
        return y_class.astype(np.int32), np.zeros(len(y)), self.n_classes_

    def _tree_values(self, tree: Tree) -> np.ndarray:
        values = tree.leaf_values(keep=False)
        if self.voting == "hard":  # one vote for the leaf's class (``tree.node_class``)
            return np.eye(self.n_classes_)[np.argmax(values, axis=1)]
        return values

    def _store_oob(self, oob, seen, y, y_class, y_value):
        self.oob_decision_function_ = oob
        self.oob_score_ = accuracy_score(y_class[seen], np.argmax(oob[seen], axis=1))

    def predict_proba(self, X) -> np.ndarray:
        """Average of the trees' class probabilities (``voting='hard'``: share of votes)."""
        return self._forest_average(X)

    def predict_log_proba(self, X) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X) -> np.ndarray:
        """The class of highest average probability (``voting='hard'``: most votes; the
        first class on ties)."""
        check_is_fitted(self, "estimators_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class RandomForestRegressor(RegressorMixin, BaseForest):
    regression = True
    _tree_class = DecisionTreeRegressor

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="squared_error",
        nominal_split="binary",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_features=1.0,
        feature_sampling="node",
        bootstrap=True,
        max_samples=None,
        oob_score=False,
        missing="learned",
        max_bins="auto",
        nominal_features=None,
        ordinal_features=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.nominal_split = nominal_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.feature_sampling = feature_sampling
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.missing = missing
        self.max_bins = max_bins
        self.nominal_features = nominal_features
        self.ordinal_features = ordinal_features
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    class_weight = None  # regression: no class weights

    def _encode_target(self, y):
        y_value = numeric_targets(y, "RandomForestRegressor", self.schema_.target)
        return np.zeros(len(y_value), dtype=np.int32), y_value, 3

    def _store_oob(self, oob, seen, y, y_class, y_value):
        self.oob_prediction_ = oob[:, 0]
        self.oob_score_ = r2_score(y_value[seen], oob[seen, 0])

    def predict(self, X) -> np.ndarray:
        """Average of the trees' predictions."""
        return self._forest_average(X)[:, 0]


RandomForestClassifier.__doc__ = (
    "A random forest classifier: bagged trees with randomised attributes, soft or hard\n"
    "voting; nominal and missing values used as they are.\n\n    Parameters\n    ----------"
    + _FOREST_DOC.format(max_features="sqrt", oob_attr="``oob_decision_function_``")
    + """    voting : {'soft', 'hard'}, default 'soft'
        'soft': average the trees' class probabilities; 'hard': majority vote.
    class_weight : None, dict, 'balanced' or 'balanced_subsample'
        Class weights (``'balanced_subsample'``: computed on each tree's bootstrap sample).
"""
    + _ATTRIBUTES_DOC
    + """    classes_ : ndarray
        The class labels.
"""
)
RandomForestRegressor.__doc__ = (
    "A random forest regressor: the average of bagged regression trees.\n\n"
    "    Parameters\n    ----------"
    + _FOREST_DOC.format(max_features=1.0, oob_attr="``oob_prediction_``")
    + _ATTRIBUTES_DOC
)
