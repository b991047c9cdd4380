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

import itertools
import numbers
import operator
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._config import LEAF, NUMERIC_SPLIT
from .._parallel import n_threads, run_parallel
from ..binning import BinMapper
from ..binning.binned import BinnedData, bin_frame, pad_rows
from ..estimators.display import NotebookDisplay
from ..estimators.params import (
    InvalidParameterError,
    check_params,
    features_per_split,
    growth_params,
)
from ..estimators.trees import DecisionTreeClassifier, DecisionTreeRegressor
from ..estimators.validate import (
    TabularInput,
    as_1d,
    check_weight_total,
    classes_and_codes,
    numeric_targets,
)
from ..persist.forest_file import save_forest
from ..tree import Tree
from ..tree._predict import fractional_rows
from ..tree.grower import grow_binned, tree_from_grown
from ..tree.stack import TreeStack, concatenate, stack_trees
from ._predict import (
    LEAF_FLAG,
    MISSING_RIGHT,
    block_rows,
    compact_forest_sum,
    compact_tree_sum_rows,
    forest_sum,
    tree_sum_rows,
)
from .bootstrap import MAX_POISSON_RATE, bootstrap_counts, poisson_counts

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


@dataclass
class DistinctRows:
    """The training rows that differ after binning (codes and target), each standing for
    the rows equal to it: training row ``i`` is distinct row ``group[i]`` (``group`` is
    None when the rows are kept as they are)."""

    binned: np.ndarray
    y_class: np.ndarray
    y_value: np.ndarray
    group: np.ndarray | None

    def weighted(self, row_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows of positive weight and their weights, given each training
        row's weight."""
        if self.group is None:
            rows = np.flatnonzero(row_weight > 0)
            return rows, row_weight[rows]
        weight = np.bincount(self.group, row_weight, minlength=len(self.binned))
        rows = np.flatnonzero(weight > 0)
        return rows, weight[rows]


def distinct_rows(binned, y_class, y_value, regression: bool) -> DistinctRows:
    """Group the rows equal after binning, when at least a tenth of them repeat another
    (skin_segmentation: 196,045 training rows, 44,969 distinct; grouping 196,000 rows took
    0.014 s, 800,000 rows of 20 features 0.33 s). Rows are compared as the 8-byte words of
    their padded codes, with the class (or the target's bits); the groups are numbered in
    the order of their first row."""
    n = len(binned)
    key = pd.DataFrame(binned.view(np.uint64))
    key["y"] = y_value.view(np.int64) if regression else y_class
    ids = key.groupby(list(key.columns), sort=False).ngroup().to_numpy()
    group, _ = pd.factorize(ids)
    n_groups = int(group.max()) + 1 if n else 0
    if n_groups > 0.9 * n:
        return DistinctRows(binned, y_class, y_value, None)
    first = np.full(n_groups, n, dtype=np.int64)
    np.minimum.at(first, group, np.arange(n))
    return DistinctRows(binned[first], y_class[first], y_value[first], group)


def pack_forest(trees: TreeStack, tree_values) -> tuple:
    """``(roots, routes, children, cat_table, values)`` of the stacked ``trees``: their
    routing table and values over every node (the stack's indexes already point across
    the trees). ``tree_values(tree)`` gives a tree's ``(n_nodes, outputs)`` values; here,
    of the stack's merged nodes."""
    merged = trees.merged
    routes = merged.packed_routes()
    roots = trees.node_offsets[:-1].copy()
    return roots, routes, merged.children, merged.cat_table, tree_values(merged)


COMPACT_DTYPE = np.dtype([("threshold", np.float64), ("feature", np.int32), ("left", np.int32)])


def pack_compact(trees: TreeStack, tree_values) -> tuple | None:
    """``(roots, nodes, values)`` in the compact layout (16-byte nodes, see ``_predict``), or
    None when a tree has a category split. Nodes are renumbered so that each split's two
    children are neighbours: the k-th split of a tree (in node order, parents first) has
    its children at 2k + 1 and 2k + 2 of its tree. ``tree_values``: as for
    :func:`pack_forest`."""
    m = trees.merged
    if (m.kind > NUMERIC_SPLIT).any():
        return None
    roots = trees.node_offsets[:-1].astype(np.int32)
    inner = np.flatnonzero(m.kind != LEAF).astype(np.int32)  # a parent before its children
    tree = trees.tree_of(inner)
    per_tree = np.bincount(tree, minlength=len(trees))
    # The k-th split of the forest is the (k - splits of the trees before)-th of its tree.
    rank = np.arange(len(inner), dtype=np.int32) - (np.cumsum(per_tree) - per_tree)[tree]
    left = (1 + 2 * rank + roots[tree]).astype(np.int32)  # its first child's new number
    del tree, rank
    new_id = np.repeat(roots, trees.n_nodes)  # a root keeps its number
    new_id[m.children[m.child_start[inner]]] = left
    new_id[m.children[m.child_start[inner] + 1]] = left + 1
    nodes = np.empty(m.node_count, dtype=COMPACT_DTYPE)
    leaf = m.kind == LEAF
    nodes["threshold"][new_id] = np.where(leaf, np.inf, m.threshold)
    feature = np.where(leaf, LEAF_FLAG, m.feature).astype(np.int32)
    feature[inner] |= np.where(m.missing_child[inner] == 1, MISSING_RIGHT, 0).astype(np.int32)
    nodes["feature"][new_id] = feature
    del feature
    nodes["left"][new_id] = new_id  # a leaf leads to itself
    nodes["left"][new_id[inner]] = left
    del left, inner
    value = tree_values(m)
    out_values = np.empty_like(value)
    out_values[new_id] = value
    return trees.node_offsets[:-1].copy(), nodes, out_values


#: Trees grown by a forest's fit are stacked this many at a time (one Python object a
#: tree only while they are few).
STACK_BATCH = 256


def _in_batches(pool, call, *iterables):
    """``pool.map(call, *iterables)``, submitted :data:`STACK_BATCH` calls at a time (the
    next batch as soon as the first result of the last one is taken, so the threads never
    wait): a future for every tree of a forest of millions would hold gigabytes."""
    arguments = zip(*iterables, strict=True)

    def submit():
        batch = list(itertools.islice(arguments, STACK_BATCH))
        return pool.map(call, *zip(*batch, strict=True)) if batch else None

    running = submit()
    while running is not None:
        current, running, submitted = running, None, False
        for result in current:
            if not submitted:
                running, submitted = submit(), True
            yield result


def stack_in_batches(trees) -> TreeStack:
    """The stack of the trees that the iterable ``trees`` yields, stacked as they come."""
    stacks, batch = [], []
    for tree in trees:
        batch.append(tree)
        if len(batch) == STACK_BATCH:
            stacks.append(stack_trees(batch))
            batch = []
    if batch:
        stacks.append(stack_trees(batch))
    return concatenate(stacks)


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


class PackedForestCache:
    """Where a fitted forest keeps its packed trees once prediction has packed them: an
    object of its own, filled in place, so that predicting leaves the estimator's
    attributes as they were (scikit-learn's convention)."""

    __slots__ = ("tables",)

    def __init__(self):
        self.tables = None


class BaseForest(NotebookDisplay, TabularInput, BaseEstimator):
    """Shared machinery of the random forests (not for direct use)."""

    _regression = False
    _tree_class = DecisionTreeClassifier

    # -- fitting --------------------------------------------------------------------------

    def _tree_params(self) -> dict:
        """The parameters of every tree, by name."""
        params = {name: getattr(self, name) for name in _TREE_PARAMS}
        if self.feature_sampling == "tree":
            params["max_features"] = None  # drawn once per tree instead
        return params

    def _tree_template(self):
        """The unfitted tree estimator that each tree of ``estimators_`` is a clone of."""
        return self._tree_class(**self._tree_params())

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

    def _poisson_rate(self, n: int) -> float:
        """Mean weight of a row under ``bootstrap='poisson'``: ``max_samples`` rows of ``n``
        (a float ``max_samples`` is that share itself)."""
        size = self.max_samples
        if size is None:
            return 1.0
        rate = size / n if isinstance(size, numbers.Integral) else float(size)
        if rate > MAX_POISSON_RATE:
            raise InvalidParameterError(
                f"max_samples={size} is more than {MAX_POISSON_RATE:g} times the {n} rows: "
                "too many for bootstrap='poisson'",
                "max_samples",
            )
        return rate

    def _tree_weights(self, tree: int, seed: int, n: int, n_draws: int) -> np.ndarray:
        """The bootstrap weights of the ``n`` rows in tree number ``tree`` (its seed
        ``seed``): multinomial draws from the tree's seed, Poisson draws keyed on the
        forest's seed, the tree's number and the row's, or all ones."""
        if isinstance(self.bootstrap, str):  # "poisson"
            return poisson_counts(self._base_seed, tree, 0, n, self._poisson_rate(n))
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
            self._poisson_rate(len(y))  # its error before any tree grows
        old = self.__dict__.get("trees_") if self.warm_start else None
        if old is not None and len(old) > self.n_estimators:
            raise ValueError(
                f"n_estimators={self.n_estimators} is fewer than the {len(old)} "
                "trees already grown: warm_start only adds trees"
            )
        if old is None:
            self._seeds = []
            self._base_seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        first = 0 if old is None else len(old)
        if self.n_estimators > first:  # before the seeds: ten million of them take a while
            warn_of_forest_size(self.n_estimators)
        seeds = tree_seeds(self._base_seed, first, self.n_estimators)
        if seeds:
            target = (y_class, y_value, n_stats)
            new = self._grow_trees(typed, y, w, target, n_draws, first, seeds)
            self.trees_ = new if old is None else concatenate([old, new])
            self._seeds = self._seeds + seeds
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
        data = bin_frame(typed, self.schema_, self.max_bins, n_threads(self.n_jobs))
        # Every tree gets its own seed (``_grow_one``).
        params = growth_params(self._tree_params(), typed.shape[1], float(w.sum()), seed=0)
        k_per_tree = params.max_features
        if self.feature_sampling == "tree":
            k_per_tree = features_per_split(self.max_features, typed.shape[1])
        distinct = distinct_rows(data.binned, y_class, y_value, self._regression)
        data = replace(data, binned=None)  # the trees read the rows of ``distinct``

        def grow(tree: int, seed: int):
            counts = self._tree_weights(tree, seed, len(y), n_draws)
            if not (counts * w).any():  # a tree of no data would predict nothing
                raise ValueError(
                    f"tree {tree}'s bootstrap sample weighs 0 (of {len(y)} rows, those "
                    "drawn all have sample_weight 0, or bootstrap='poisson' drew none): "
                    "fit on more rows, or another random_state"
                )
            return self._grow_one(data, distinct, params, seed, y, w, n_stats, counts, k_per_tree)

        with ThreadPoolExecutor(n_threads(self.n_jobs)) as pool:
            grown = _in_batches(pool, grow, range(first, first + len(seeds)), seeds)
            return stack_in_batches(_with_progress(grown, len(seeds), self.verbose))

    def _class_weight_mode(self):
        return getattr(self, "class_weight", None)

    def _grow_one(self, data, distinct, params, seed, y, w, n_stats, counts, k_per_tree):
        """One tree: on its bootstrap weights ``counts``, optionally its own attributes."""
        p = len(data.kinds)
        tree_w = w * counts
        if self._class_weight_mode() == "balanced_subsample":
            drawn = counts > 0
            tree_w[drawn] *= compute_sample_weight("balanced", y[drawn], indices=None)
        rows, row_w = distinct.weighted(tree_w)
        features = np.arange(p)
        if self.feature_sampling == "tree" and k_per_tree < p:
            features = np.sort(np.random.default_rng(seed + 1).choice(p, k_per_tree, replace=False))
        if len(features) == p:
            sub, binned = data, distinct.binned[rows]  # a copy, padding included
        else:
            sub = _feature_subset(data, features)
            binned = pad_rows(distinct.binned[np.ix_(rows, features)])
        grown = grow_binned(
            sub,
            binned,
            distinct.y_class[rows].astype(np.int32),
            distinct.y_value[rows].astype(np.float64),
            row_w,
            replace(params, seed=seed),
            regression=self._regression,
            n_stats=n_stats,
        )
        tree = tree_from_grown(grown, params, self._regression)
        if len(features) < p:  # (its routes, made at their first use, read these indexes)
            tree.feature = np.where(tree.feature >= 0, features[tree.feature], -1).astype(np.int32)
        return tree

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
            self._tree_params()["max_features"], est.n_features_in_
        )
        if not self._regression:
            est.classes_ = self.classes_
            est.n_classes_ = self.n_classes_
        return est

    def __setstate__(self, state):
        # A forest pickled before it kept a stack holds its tree estimators.
        if "estimators_" in state:
            estimators = state.pop("estimators_")
            state["trees_"] = stack_trees([e.tree_ for e in estimators])
        super().__setstate__(state)

    def _pack(self):
        """Forget the packed forest of earlier trees: :attr:`_packed` packs ``trees_``
        again where prediction first needs it. Fit does not pack: the packed tables (at 1M
        x 20, 100 trees, about 300 MiB) would add to its peak."""
        self._packing = PackedForestCache()

    @property
    def _packed(self) -> tuple:
        """The packed forest that prediction walks: the compact layout when every split is
        a numeric threshold, else the general one; made at its first use and kept."""
        cache = self.__dict__.get("_packing")
        if cache is None:  # a forest pickled before the packing was deferred
            cache = self._packing = PackedForestCache()
        if cache.tables is None:
            values = self._tree_values
            cache.tables = pack_compact(self.trees_, values) or pack_forest(self.trees_, values)
        return cache.tables

    def _sum_trees(self, matrix, out, rows=None, tree=None, count=None):
        """Add the trees' outputs for the rows of ``matrix`` to ``out``: every tree for every
        row, or (``rows``, ``tree``) one tree for some rows, counted in ``count``."""
        packed = self._packed
        roots, values = packed[0], packed[-1]
        compact = len(packed) == 3
        if rows is None:
            block = block_rows(len(matrix))
            work = len(matrix) * len(roots)  # every row goes down every tree
            if compact:
                run_parallel(
                    compact_forest_sum, matrix, roots, packed[1], values, out, block, work=work
                )
            else:
                run_parallel(forest_sum, matrix, *packed[:4], values, out, block, work=work)
        elif compact:
            run_parallel(
                compact_tree_sum_rows,
                matrix,
                rows,
                roots[tree],
                packed[1],
                values,
                out,
                count,
                work=len(rows),
            )
        else:
            run_parallel(
                tree_sum_rows,
                matrix,
                rows,
                roots[tree],
                *packed[1:4],
                values,
                out,
                count,
                work=len(rows),
            )

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
        for t, seed in enumerate(self._seeds):
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _feature_subset(data, features):
    """``data`` restricted to ``features`` (bin tables only; rows are gathered by the caller)."""
    m = data.mapper
    mapper = BinMapper(
        [m.kinds[f] for f in features],
        [m.edges[f] for f in features],
        [m.lo[f] for f in features],
        [m.hi[f] for f in features],
        m.n_bins[features],
        m.dtype,
    )
    return BinnedData(
        mapper, None, data.kinds[features], data.bin_lo[features], data.bin_hi[features]
    )


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
    schema_, n_features_in_, feature_names_in_ :
        The features, as for the single trees.
"""


class RandomForestClassifier(ClassifierMixin, BaseForest):
    _regression = False
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
    _regression = True
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
