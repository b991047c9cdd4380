"""The level-wise grower: growth driven from Python over a statistics provider.

Where the compiled grower (``_grow.py``) walks the rows itself, this one asks a
:class:`~quercus.grow.statistics.StatisticsProvider` for sums over them, one level of the
tree at a time, and finds and applies splits with the same kernels: each node's best split
from its histograms (``splitting._choose.best_split_from_histograms``), the branch of the
missing values (``splitting._partition.missing_branch``), the chi-square test
(``splitting._significance.passes_chi_square``) and the stopping rules
(``_settings.stop_splitting``). A provider that sums the rows on several machines plugs in here.

Over :class:`~quercus.grow.statistics.LocalStatistics` it grows the very tree the compiled
grower grows (same features, thresholds, category tables, statistics and node numbers),
which ``tests/grow/test_levelwise.py`` checks. What stays with the compiled grower, and why:

- ``missing="fractional"`` (C4.5): a row with a missing value becomes weighted copies in
  every branch, which a provider summing whole rows does not hold;
- ``criterion="absolute_error"``: it ranks a node's rows by target, not sums of bins;
- ``max_leaf_nodes`` (best-first growth): it expands one leaf at a time across the tree,
  not level by level;
- the learning trace (``trace=True``), a teaching aid on small data.

``max_features`` draws the same features at the same node in both growers: a node's draw
is keyed on the seed and its path from the root (``_draws.candidate_features``), not on
the order in which nodes are grown.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import (
    CLASS_MAJORITY,
    FRACTIONAL,
    LEAF,
    MULTIWAY_SPLIT,
    NOMINAL,
    NUMERIC,
    NUMERIC_SPLIT,
    OBLIQUE_SPLIT,
    SUBSET_SPLIT,
)
from ..capabilities import level_wise_refusals
from ..criteria.registry import ABSOLUTE_ERROR
from ..splitting._choose import best_split_from_histograms, threshold_between
from ..splitting._lookahead import LookaheadContext
from ..splitting._partition import missing_branch
from ..splitting._rules import SplitRules
from ..splitting._scan import impurity, stats_weight
from ..splitting._significance import passes_chi_square
from ..splitting.category_sets import subset_table
from ..splitting.oblique import ObliqueProblem, ObliqueSplit
from ._draws import candidate_features, child_draw_key
from ._records import CANDIDATE, NODE, TRACE, GrownArrays
from ._settings import LEAF_EPSILON, Bins, Settings, split_rules, stop_splitting
from .statistics import Histograms, LocalStatistics, Split, StatisticsProvider

#: The look-ahead's budget: a threshold feature offers at most this many cuts at each level
#: but the last (``splitting/_lookahead.py``).
LOOKAHEAD_CUTS = 16
LOOKAHEAD_UNLIMITED = 1 << 30  # the levels left without max_depth


def check_level_wise(s: Settings) -> None:
    """Raise ``ValueError`` for settings only the compiled grower supports (the needs
    :mod:`quercus.capabilities` lists as lacking level by level)."""
    asked = {
        "missing": "fractional" if s.missing_mode == FRACTIONAL else None,
        "criterion": "absolute_error" if s.criterion == ABSOLUTE_ERROR else None,
        "max_leaf_nodes": s.max_leaf_nodes if s.max_leaf_nodes > 0 else None,
        "trace": bool(s.trace_on),
    }
    refused = level_wise_refusals(asked)
    if refused:
        need = refused[0]
        raise ValueError(f"{need.shown(asked)} needs the compiled grower: {need.why}")


def grow_local(
    data, y_class, y_value, w, bins: Bins, s: Settings, small_rows=0, values=None
) -> GrownArrays:
    """:func:`grow_level_wise` over the rows of this process (the arrays the compiled
    grower takes; they are only read); nodes of at most ``small_rows`` rows are handed to
    the compiled grower. Given the rows' ``values`` (float64, as routing reads them), each
    node also searches an oblique split over the numeric features."""
    provider = LocalStatistics(
        data,
        y_class,
        y_value,
        w,
        bins.n_bins,
        bins.missing_code,
        s.n_stats,
        s.regression,
        bins,
        values,
    )
    oblique = None if values is None else np.flatnonzero(np.asarray(bins.kinds) == NUMERIC)
    return drive(level_steps(provider.root(), bins, s, small_rows, oblique), provider)


def grow_level_wise(provider: StatisticsProvider, bins: Bins, s: Settings) -> GrownArrays:
    """Grow a tree level by level over ``provider``'s statistics; returns the arrays the
    compiled grower returns (see :class:`~quercus.grow._records.GrownArrays`)."""
    return drive(level_steps(provider.root(), bins, s), provider)


class Request(NamedTuple):
    """A question of :func:`level_steps` to its provider: the provider method ``kind``
    (``"histograms"``, ``"branch_weights"``, ``"partition"`` or ``"drop"``) and its
    argument, a list with one item per node."""

    kind: str
    items: list


def drive(steps, provider: StatisticsProvider):
    """Run the generator of :func:`level_steps` to its end, answering each
    :class:`Request` with the provider's method of that name; returns the grown arrays."""
    try:
        request = next(steps)
        while True:
            request = steps.send(getattr(provider, request.kind)(request.items))
    except StopIteration as done:
        return done.value


def drive_together(steps: list, answer) -> list[GrownArrays]:
    """Run the :func:`level_steps` generators of several trees (a forest's) to their ends,
    in rounds: each round answers the pending requests of one kind from every tree at once,
    ``answer(kind, [(tree, items), ...])`` returning one answer per tree in that order, so
    the trees share each pass over the rows. Returns the grown arrays of each tree."""
    grown: list[GrownArrays | None] = [None] * len(steps)
    pending: dict[int, Request] = {}

    def advance(tree: int, reply=None, first=False) -> None:
        try:
            pending[tree] = next(steps[tree]) if first else steps[tree].send(reply)
        except StopIteration as done:
            pending.pop(tree, None)
            grown[tree] = done.value

    for tree in range(len(steps)):
        advance(tree, first=True)
    while pending:
        kind = next(iter(pending.values())).kind
        trees = [tree for tree, request in pending.items() if request.kind == kind]
        replies = answer(kind, [(tree, pending[tree].items) for tree in trees])
        for tree, reply in zip(trees, replies, strict=True):
            advance(tree, reply)
    return grown


def level_steps(root, bins: Bins, s: Settings, small_rows: int = 0, oblique=None):
    """The level-wise growth of one tree, as a generator of :class:`Request` s: at each
    level it asks for the histograms of the nodes it is about to split, then for the
    branch weights of the splits it chose, then for their partition, each for the whole
    level at once, and takes back one answer per node in that order. It returns the grown
    arrays. ``root`` is the provider's ``root()``.

    Asking for a whole level at once lets a provider answer every node of the level in one
    pass over its rows, and a forest's trees share that pass (their requests go out
    together). The provider names nodes by keys that are never reused (the root is 0); the
    grown tree numbers its nodes as the compiled grower does.

    A node of at most ``small_rows`` rows that may be split is handed over whole: the
    provider grows its subtree with the compiled grower on the node's rows
    (``Request("subtrees", [(key, settings, rows), ...])``, the settings of the subtree:
    its root's depth and feature-draw key, the whole tree's weight), and the subtree is
    grafted in. Deep trees are mostly small nodes, which one process grows far faster than
    a level-wise pass over every row.

    Given ``oblique``, the numeric features an oblique split may combine, each node also
    asks for its best oblique split (``Request("oblique", [(key, features, start,
    problem, seed), ...])``), which wins over the axis-parallel one when its gain is
    higher."""
    check_level_wise(s)
    rules = split_rules(s)  # the split search's rules, once per tree
    n_rows, w_root, root_values = root
    grown = _Nodes(s.n_stats)
    grown.add(-1, 0, n_rows, root_values, key=0, draw_key=s.root_key)
    next_key = 1
    level = [0]
    while level:
        splittable = [node for node in level if _open(grown, node, s)]
        small = [node for node in splittable if grown.records["n_samples"][node] <= small_rows]
        if small:
            subtrees = yield Request(
                "subtrees",
                [
                    (grown.keys[node], _subtree_settings(grown, node, w_root, s), n)
                    for node in small
                    for n in [int(grown.records["n_samples"][node])]
                ],
            )
            # Kept whole and laid into the tree's arrays as one block by preorder(): node
            # by node in Python, a deep tree's grafts would cost more than growing them.
            grown.grafts.update(zip(small, subtrees, strict=True))
            splittable = [node for node in splittable if node not in set(small)]
        leaves = [grown.keys[node] for node in sorted(set(level) - set(splittable))]
        if leaves:
            yield Request("drop", leaves)
        if not splittable:
            break
        searched = []
        for batch in _histogram_batches(splittable, bins, s, n_rows):
            histograms = yield Request("histograms", [grown.keys[node] for node in batch])
            searched.extend(
                _search(grown, node, h, bins, s, rules)
                for node, h in zip(batch, histograms, strict=True)
            )
            del histograms  # one batch of histograms at a time
        if s.lookahead > 0:
            ahead = yield Request(
                "lookahead",
                [
                    (grown.keys[node], *_lookahead_question(grown, node, found, bins, s))
                    for node, found in zip(splittable, searched, strict=True)
                ],
            )
            searched = [_look_ahead(f, a) for f, a in zip(searched, ahead, strict=True)]
        slanted = [None] * len(splittable)
        if oblique is not None:
            slanted = yield Request(
                "oblique",
                [
                    (grown.keys[node], *_oblique_question(grown, node, found, oblique, bins, s))
                    for node, found in zip(splittable, searched, strict=True)
                ],
            )
        chosen = []
        for node, found, tilted in zip(splittable, searched, slanted, strict=True):
            choice = _choose(grown, node, found, w_root, bins, s, tilted)
            if choice is not None:
                chosen.append(choice)
        dropped = [grown.keys[node] for node in set(splittable) - {c.node for c in chosen}]
        if dropped:
            yield Request("drop", sorted(dropped))
        if not chosen:
            break
        by_class = s.missing_mode == CLASS_MAJORITY and not s.regression
        weights = yield Request(
            "branch_weights", [(grown.keys[c.node], c.split, by_class) for c in chosen]
        )
        placed, requests = [], []
        for c, (child_w, class_w) in zip(chosen, weights, strict=True):
            heaviest, missing_child, _ = missing_branch(
                child_w, c.split.n_children, s.missing_mode, int(c.candidate["missing"])
            )
            kids = list(range(next_key, next_key + c.split.n_children))
            next_key += c.split.n_children
            placed.append((heaviest, missing_child, kids))
            requests.append(
                (grown.keys[c.node], c.split, missing_child, class_w if by_class else None, kids)
            )
        partitions = yield Request("partition", requests)
        level, gone = [], []
        for c, (heaviest, missing_child, kids), part in zip(
            chosen, placed, partitions, strict=True
        ):
            gone.append(grown.keys[c.node])
            if len(s.chi2_critical) > 1 and not passes_chi_square(part.table, s.chi2_critical):
                gone.extend(kids)  # pre-pruning: the class does not depend on the branch
                continue
            _apply(grown, c, heaviest, missing_child, kids, part, bins)
            level.extend(grown.children[c.node])
        yield Request("drop", gone)
    return grown.preorder()


def _subtree_settings(grown, node: int, w_root: float, s: Settings) -> Settings:
    """The settings of the compiled grower for the subtree under ``node``."""
    rec = grown.records[node]
    return s._replace(root_depth=int(rec["depth"]), w_total=float(w_root), root_key=rec["draw_key"])


class _Nodes:
    """The nodes grown so far, by id in the order they were created, with the children
    and category table of each split."""

    def __init__(self, n_stats: int):
        self.records = np.zeros(0, dtype=NODE)
        self.values = np.zeros((0, n_stats))
        self.children: dict[int, list[int]] = {}
        self.cat_tables: dict[int, np.ndarray] = {}
        self.grafts: dict[int, GrownArrays] = {}  # subtrees grown whole, by their root
        self.oblique: dict[int, np.ndarray] = {}  # the weights of each oblique split
        self.keys: list[int] = []  # the provider's name of each node
        self.n = 0

    def add(self, parent, depth, n_rows, values, key: int, draw_key: np.uint64) -> int:
        if self.n == len(self.records):
            cap = max(64, 2 * self.n)
            records = np.zeros(cap, dtype=NODE)
            records[: self.n] = self.records[: self.n]
            stats = np.zeros((cap, self.values.shape[1]))
            stats[: self.n] = self.values[: self.n]
            self.records, self.values = records, stats
        node = self.n
        self.n += 1
        rec = self.records[node : node + 1]
        rec[["kind", "pending", "feature", "cat_start", "missing_child"]] = (LEAF, LEAF, -1, -1, -1)
        rec["depth"] = depth
        rec["n_samples"] = n_rows
        rec["start"] = parent  # kept for empty branches: they take their parent's values
        rec["threshold"] = np.nan
        rec["improvement"] = -1.0
        rec["draw_key"] = draw_key
        self.values[node] = values
        self.keys.append(key)
        return node

    def preorder(self) -> GrownArrays:
        """The nodes renumbered in preorder, the children's slots and category tables laid
        out in the order the compiled grower lays them out (preorder of the splits). A
        grafted subtree, already in that order, is one block of each array."""
        order = []  # a grafted node stands for its whole subtree
        stack = [0]
        while stack:
            node = stack.pop()
            order.append(node)
            if node not in self.grafts:
                stack.extend(reversed(self.children.get(node, [])))
        sizes = [len(self.grafts[n].nodes) if n in self.grafts else 1 for n in order]
        firsts = np.cumsum([0, *sizes[:-1]]).tolist()
        new_id = dict(zip(order, firsts, strict=True))
        nodes, values, children, cat_table = [], [], [], []
        n_slots = n_cat = 0
        for old, first in zip(order, firsts, strict=True):
            subtree = self.grafts.get(old)
            if subtree is not None:
                block = subtree.nodes.copy()
                block["child_start"][block["kind"] != LEAF] += n_slots
                block["cat_start"][block["cat_start"] >= 0] += n_cat
                nodes.append(block)
                values.append(subtree.values)
                children.append(subtree.children + first)
                cat_table.append(subtree.cat_table)
                n_slots += len(subtree.children)
                n_cat += len(subtree.cat_table)
                continue
            rec = self.records[old : old + 1].copy()
            kids = self.children.get(old)
            if kids is not None:
                rec["child_start"] = n_slots
                children.append(np.array([new_id[k] for k in kids]))
                n_slots += len(kids)
                if old in self.cat_tables:
                    rec["cat_start"] = n_cat
                    cat_table.append(self.cat_tables[old])
                    n_cat += len(self.cat_tables[old])
            nodes.append(rec)
            values.append(self.values[old : old + 1])
        nodes = np.concatenate(nodes)
        nodes["start"] = 0
        oblique = None
        if self.oblique:  # grafted subtrees have none: each oblique node is a node of ours
            oblique = np.array([self.oblique[old] for old in sorted(self.oblique, key=new_id.get)])
        return GrownArrays(
            nodes,
            np.concatenate(values),
            np.concatenate(children or [np.zeros(0)]).astype(np.int32),
            np.concatenate(cat_table or [np.zeros(0)]).astype(np.int32),
            np.zeros(0, dtype=TRACE),
            np.zeros((0, 1), dtype=np.int8),
            oblique,
        )


def _open(grown: _Nodes, node: int, s: Settings) -> bool:
    """Fill in ``node``'s weight and impurity; return whether it may be split."""
    rec = grown.records[node : node + 1]
    if rec["n_samples"][0] == 0:
        # An empty branch of a multiway split: a leaf with its parent's distribution.
        grown.values[node] = grown.values[rec["start"][0]]
        rec["weight"] = 0.0
        rec["impurity"] = 0.0
        return False
    values = grown.values[node : node + 1]
    weight = stats_weight(values, 0, s.regression)
    node_impurity = impurity(values, 0, s.criterion, s.regression, s.l2, s.l1)
    rec["weight"] = weight
    rec["impurity"] = node_impurity
    depth = int(rec["depth"][0])
    return not stop_splitting(depth, int(rec["n_samples"][0]), weight, node_impurity, s)


class _Choice(NamedTuple):
    node: int
    candidate: np.void  # the winning CANDIDATE record
    split: Split
    improvement: float


class _Search(NamedTuple):
    """A node's candidate features (``features[:n_cand]``), the best split of each
    (``candidates``, ``sides``) and the index of the winner (-1: none)."""

    features: np.ndarray
    n_cand: int
    candidates: np.ndarray
    sides: np.ndarray
    chosen: int


def _search(
    grown: _Nodes, node: int, h: Histograms, bins: Bins, s: Settings, rules: SplitRules
) -> _Search:
    """The greedy search of ``node`` from its histograms ``h``, by the tree's split
    ``rules`` (:func:`~._settings.split_rules` of ``s``)."""
    p = len(bins.kinds)
    features = np.zeros(p, dtype=np.int64)
    draw_key = grown.records["draw_key"][node]
    n_cand = candidate_features(p, s.max_features, draw_key, np.zeros(1, np.uint64), features)
    candidates = np.zeros(p, dtype=CANDIDATE)
    sides = np.zeros((p, max(1, int(np.max(bins.n_bins)))), dtype=np.int8)
    chosen = best_split_from_histograms(
        h.hist,
        h.counts,
        h.missing,
        grown.values[node],
        bins,
        rules,
        features,
        n_cand,
        candidates,
        sides,
    )
    if s.lookahead == 0:  # only the winner's sides are read again (_choose)
        width = 0
        if chosen >= 0 and bins.kinds[candidates[chosen]["feature"]] == NOMINAL:
            width = int(bins.n_bins[candidates[chosen]["feature"]])
        kept = np.zeros((p, width), dtype=np.int8)
        if width:
            kept[chosen] = sides[chosen, :width]
        sides = kept
    return _Search(features, n_cand, candidates, sides, chosen)


#: The histograms one request may ask for, at the least: small data asks for a level's at
#: once (on Dask, each request is a round trip to the workers).
MIN_BATCH_BYTES = 2**20


def _histogram_batches(nodes, bins, s, n_rows):
    """``nodes`` in batches whose histograms take at most twice the root's rows as float64
    features, or :data:`MIN_BATCH_BYTES` (one node at least): a level's nodes all held
    histograms at once before, and with a bin per distinct value one node's are already
    several times the data."""
    p = len(bins.kinds)
    per_node = p * max(1, int(np.max(bins.n_bins))) * (s.n_stats + 1) * 8
    size = max(1, max(2 * n_rows * p * 8, MIN_BATCH_BYTES) // per_node)
    return [nodes[i : i + size] for i in range(0, len(nodes), size)]


def _lookahead_question(grown: _Nodes, node: int, found: _Search, bins: Bins, s: Settings):
    """What the provider's ``lookahead`` needs besides the node: the candidate features,
    their greedy sides, the levels ``max_depth`` leaves below the children, the depth of
    the look-ahead and the kernel's context (``splitting._lookahead.lookahead_splits``)."""
    depth = int(grown.records["depth"][node])
    levels = LOOKAHEAD_UNLIMITED if s.max_depth < 0 else s.max_depth - depth - 1
    context = LookaheadContext(
        kinds=bins.kinds,
        n_bins=np.asarray(bins.n_bins, dtype=np.int64),
        missing_code=int(bins.missing_code),
        criterion=int(s.criterion),
        regression=bool(s.regression),
        n_stats=int(s.n_stats),
        min_leaf=float(s.min_leaf),
        min_split=float(s.min_split),
        multiway=bool(s.multiway),
        max_cuts=LOOKAHEAD_CUTS,
    )
    return found.features[: found.n_cand], found.sides, levels, int(s.lookahead), context


def _look_ahead(found: _Search, scores: np.ndarray) -> _Search:
    """The search with the winner by look-ahead: the least look-ahead cost (``scores[j]``:
    cost, threshold codes, greedy gain), ties to the higher greedy gain, then the first."""
    best = -1
    for j in range(found.n_cand):
        cost, gain = scores[j, 0], scores[j, 3]
        if not np.isfinite(cost):
            continue
        if best < 0:
            best = j
            continue
        scale = 1e-12 * max(abs(scores[best, 0]), 1.0)
        if cost < scores[best, 0] - scale or (
            abs(cost - scores[best, 0]) <= scale and gain > scores[best, 3] + 1e-12
        ):
            best = j
    if best >= 0 and scores[best, 1] >= 0:  # a threshold: the cut the look-ahead chose
        cand = found.candidates[best]
        cand["lo"], cand["hi"] = int(scores[best, 1]), int(scores[best, 2])
        cand["gain"] = scores[best, 3]
        cand["missing"] = -1  # the heavier side, as the look-ahead placed them
    return found._replace(chosen=best)


def _oblique_question(grown: _Nodes, node: int, found: _Search, oblique, bins: Bins, s: Settings):
    """What the provider's ``oblique`` needs besides the node: the numeric features among
    the node's candidates, the best axis-parallel split over them to start from
    (``(feature, threshold)`` or None), the search's problem and the node's seed."""
    candidates = found.candidates[: found.n_cand]
    numeric = np.isin(candidates["feature"], oblique) & (candidates["cut"] >= 0)
    start = None
    if numeric.any():
        best = candidates[numeric][np.argmax(candidates["gain"][numeric])]
        f = int(best["feature"])
        t = threshold_between(bins, f, best["lo"], best["hi"])
        start = (f, float(t))
    features = np.intersect1d(found.features[: found.n_cand], oblique)
    problem = ObliqueProblem(int(s.criterion), bool(s.regression), int(s.n_stats), s.min_leaf)
    seed = int(grown.records["draw_key"][node] & np.uint64(0x7FFFFFFF))
    return features, start, problem, seed


def _choose(
    grown: _Nodes,
    node: int,
    found: _Search,
    w_root: float,
    bins: Bins,
    s: Settings,
    tilted: ObliqueSplit | None = None,
):
    """The winning split of ``node``'s search as a :class:`_Choice`, or None when no split
    is admissible or it improves too little; the oblique split ``tilted`` wins when its
    gain is higher (by more than rounding)."""
    best_gain = found.candidates[found.chosen]["gain"] if found.chosen >= 0 else -np.inf
    if tilted is not None and tilted.gain > best_gain + 1e-12 * max(abs(best_gain), 1.0):
        cand = np.zeros(1, dtype=found.candidates.dtype)[0]
        cand["feature"], cand["gain"], cand["missing"] = tilted.feature, tilted.gain, -1
        split = Split(
            OBLIQUE_SPLIT, tilted.feature, 2, weights=tilted.weights, threshold=tilted.threshold
        )
    elif found.chosen >= 0:
        cand = found.candidates[found.chosen]
        split = _split_of(cand, found.sides[found.chosen], bins, s.multiway)
    else:
        return None
    improvement = grown.records["weight"][node] / w_root * cand["gain"]
    if improvement + LEAF_EPSILON < s.min_impurity_decrease:
        return None
    return _Choice(node, cand, split, improvement)


def _apply(grown: _Nodes, c: _Choice, heaviest: int, missing_child: int, kids, part, bins):
    """Make ``c.node`` a split with the children of partition ``part`` (provider keys
    ``kids``)."""
    node, cand, split = c.node, c.candidate, c.split
    depth = int(grown.records["depth"][node]) + 1
    parent_key = grown.records["draw_key"][node]
    children = [
        grown.add(
            node,
            depth,
            int(part.n_rows[ch]),
            part.values[ch],
            key=kids[ch],
            draw_key=child_draw_key(parent_key, ch),
        )
        for ch in range(split.n_children)
    ]
    rec = grown.records[node : node + 1]
    rec["kind"] = rec["pending"] = split.kind
    rec["feature"] = split.feature
    rec["n_children"] = split.n_children
    rec["missing_child"] = missing_child
    rec["improvement"] = c.improvement
    rec["bin_cut"] = split.bin_cut
    if split.kind == OBLIQUE_SPLIT:
        rec["threshold"] = split.threshold
        grown.oblique[node] = split.weights
    elif split.kind == NUMERIC_SPLIT:
        rec["threshold"] = threshold_between(bins, split.feature, cand["lo"], cand["hi"])
    elif split.kind == SUBSET_SPLIT:
        sides = split.cat_table.copy()
        sides[sides < 0] = heaviest  # a category absent at the node
        grown.cat_tables[node] = subset_table(sides)
    grown.children[node] = children


def _split_of(cand, side: np.ndarray, bins: Bins, multiway: bool) -> Split:
    """The :class:`Split` of a winning candidate record."""
    f = int(cand["feature"])
    n_codes = int(bins.n_bins[f])
    if bins.kinds[f] != NOMINAL:
        return Split(NUMERIC_SPLIT, f, 2, bin_cut=int(cand["lo"]))
    if multiway:
        return Split(MULTIWAY_SPLIT, f, n_codes)  # category c to branch c
    return Split(SUBSET_SPLIT, f, 2, cat_table=side[:n_codes].astype(np.int32))
