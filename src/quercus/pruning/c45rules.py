"""C4.5's rule post-pruning ("C4.5rules"): a tree as an ordered list of IF ... THEN rules.

The steps of C4.5 release 8's ``c4.5rules`` (read from its sources: behaviour, not code):

1. :func:`rules_from_tree`: one rule per leaf, its conditions the tests on the path from the
   root (two tests on one numeric feature keep only the tightest bound on each side).
2. :func:`simplify_rule`: drop conditions one at a time, each time the one whose removal
   gives the lowest pessimistic error rate ``(e + added_errors(n, e)) / n`` on the training
   cases the rule then covers, while that rate (or the actual rate) does not increase.
   :func:`is_worth_keeping`: a rule left without conditions, covering nothing, or no better
   than guessing its class for every case is dropped; so are repeats.
3. :func:`select_rules`: for each class, the subset of its rules that describes the
   training classes in the fewest bits (rules plus their exceptions: "MDL sifting").
4. :func:`order_rules`: rules grouped by class, classes ordered by the false positives of
   their rules, rules within a class by estimated accuracy; the default class is the most
   frequent class among the cases no rule covers.
5. :func:`drop_unhelpful_rules`: a rule that, where it fires first, is wrong more often than
   what would decide without it is dropped, one at a time.

A case whose value is missing satisfies no condition on that feature. Data are given as the
routing matrix of the estimators (float64; category codes for nominal and ordinal features,
NaN for missing), class codes and weights; counts of cases are sums of weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix

from .._config import LEAF
from ..data.schema import NUMERIC_KIND, ORDINAL_KIND
from ..tree import Tree
from ..tree.conditions import Condition, branch_conditions, merge_conditions
from .error_estimates import added_errors

_TIE = 1e-9  # rates closer than this count as equal (sums of weights carry rounding noise)
_MAX_ERROR = 0.7  # C4.5 never fires a rule whose pessimistic error rate is above this
_CODE_WEIGHT = 0.5  # C4.5 counts the bits of the rules at half weight against the exceptions


@dataclass
class Rule:
    """``IF conditions THEN label``, with its statistics on the training cases it covers.

    ``covered`` is their weight, ``errors`` the weight of those not of the rule's class,
    ``accuracy`` the estimate ``1 - (errors + added_errors(covered, errors)) / covered``,
    ``distribution`` their class weights; ``leaf`` numbers the leaf the rule came from.
    """

    conditions: tuple[Condition, ...]
    class_index: int
    label: object
    covered: float
    errors: float
    accuracy: float
    leaf: int = 0
    distribution: np.ndarray = field(default=None, repr=False, compare=False)

    def satisfied(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of ``X`` meeting every condition."""
        mask = np.ones(len(X), dtype=bool)
        for condition in self.conditions:
            mask &= condition.satisfied(X)
        return mask

    def key(self) -> tuple:
        """What makes two rules the same: their set of conditions and their class."""
        return frozenset(self.conditions), self.class_index

    def __str__(self) -> str:
        body = " AND ".join(str(c) for c in self.conditions) or "TRUE"
        return f"IF {body} THEN {self.label} [{100 * self.accuracy:.1f}%]"


def rules_text(rules: Sequence[Rule], default_label) -> str:
    """The rules in firing order, one ``IF ... THEN class [accuracy]`` line each, then
    ``Default class: ...``."""
    return "\n".join([*(str(rule) for rule in rules), f"Default class: {default_label}"]) + "\n"


# -- 1. rules from the tree --------------------------------------------------------------------


def rules_from_tree(
    tree: Tree, schema, classes: Sequence, confidence: float = 0.25, variant: str = "j48"
) -> list[Rule]:
    """One rule per leaf of positive training weight, in the order of the tree's nodes.

    ``schema`` gives the feature names, kinds and categories (``estimator.schema_``) and
    ``classes`` the class labels. The statistics are the leaf's (:func:`simplify_rule`
    recomputes them from the cases the conditions cover, which differ when values are
    missing).
    """
    if tree.regression:
        raise ValueError("rules are for classification trees")

    def categories_of(f):
        return schema.features[f].categories

    rules = []
    stack: list[tuple[int, list[Condition]]] = [(0, [])]
    while stack:  # depth first, branches in order: the leaves as the tree prints them
        node, path = stack.pop()
        if tree.kind[node] != LEAF:
            first = tree.child_start[node]
            kids = tree.children[first : first + tree.n_children[node]]
            branches = zip(kids, branch_conditions(tree, schema, node), strict=True)
            stack.extend((int(kid), [*path, cond]) for kid, cond in reversed(list(branches)))
            continue
        total = float(tree.weighted_n_node_samples[node])
        if total <= 0:
            continue
        dist = tree.value[node]
        c = int(np.argmax(dist))
        errors = total - float(dist[c])
        rules.append(
            Rule(
                conditions=merge_conditions(path, categories_of),
                class_index=c,
                label=classes[c],
                covered=total,
                errors=errors,
                accuracy=1.0 - _rate(total, errors, confidence, variant),
                leaf=len(rules),
                distribution=dist.copy(),
            )
        )
    return rules


# -- 2. simplifying one rule -------------------------------------------------------------------


def _rate(n: float, e: float, cf: float, variant: str) -> float:
    """Pessimistic error rate of ``e`` errors among ``n`` cases."""
    e = min(max(e, 0.0), n)  # guard against rounding in sums of weights
    return (e + added_errors(n, e, cf, variant)) / n


def _satisfaction(conditions, X) -> np.ndarray:
    """(n_rows, n_conditions) mask: row meets condition."""
    out = np.ones((len(X), len(conditions)), dtype=bool)
    for j, c in enumerate(conditions):
        out[:, j] = c.satisfied(X)
    return out


def _with_stats(rule, conditions, covered_mask, y, w, n_classes, confidence, variant) -> Rule:
    dist = np.bincount(y[covered_mask], weights=w[covered_mask], minlength=n_classes)
    n = float(dist.sum())
    errors = n - float(dist[rule.class_index])
    accuracy = 1.0 - _rate(n, errors, confidence, variant) if n > 0 else 0.0
    return Rule(
        tuple(conditions), rule.class_index, rule.label, n, errors, accuracy, rule.leaf, dist
    )


def simplify_rule(
    rule: Rule,
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    n_classes: int,
    confidence: float = 0.25,
    variant: str = "j48",
) -> Rule:
    """``rule`` with conditions dropped greedily, as C4.5's ``PruneRule``.

    At each step, every remaining condition is tried away: the cases meeting all the others
    give ``n`` (weight) and ``e`` (weight not of the rule's class). The condition whose
    removal gives the lowest pessimistic rate is dropped (the last one on ties, as C4.5) if
    some removal does not increase the pessimistic rate, or the actual rate ``e / n``, of the
    current rule. A rule covering nothing counts at the error rate of guessing its class
    (C4.5's default error). The statistics are then recomputed on ``X, y, w``.
    """
    y = np.asarray(y)
    wrong = (y != rule.class_index) * w
    total = float(w.sum())
    default_error = 1.0 - (float(w[y == rule.class_index].sum()) + 1.0) / (total + 2.0)

    def rate_and_actual(n, e):
        if n <= 0:
            return default_error, 0.0
        return _rate(n, e, confidence, variant), e / n

    meets = _satisfaction(rule.conditions, X)
    active = list(range(len(rule.conditions)))
    while active:
        # A case counts for "all but condition d" when it fails d alone, or fails none.
        failed = ~meets[:, active]
        n_failed = failed.sum(axis=1)
        none, one = n_failed == 0, n_failed == 1
        which = np.argmax(failed[one], axis=1)
        n0, e0 = float(w[none].sum()), float(wrong[none].sum())
        n_d = n0 + np.bincount(which, weights=w[one], minlength=len(active))
        e_d = e0 + np.bincount(which, weights=wrong[one], minlength=len(active))
        rate0, actual0 = rate_and_actual(n0, e0)
        pairs = [rate_and_actual(n, e) for n, e in zip(n_d, e_d, strict=True)]
        rates = np.array([p[0] for p in pairs])
        actuals = np.array([p[1] for p in pairs])
        if not ((rates <= rate0 + _TIE) | (actuals <= actual0 + _TIE)).any():
            break
        best = int(np.flatnonzero(rates <= rates.min() + _TIE)[-1])  # the last of the lowest
        del active[best]
    conditions = [rule.conditions[j] for j in active]
    covered = meets[:, active].all(axis=1)
    return _with_stats(rule, conditions, covered, y, w, n_classes, confidence, variant)


def is_worth_keeping(rule: Rule, y: np.ndarray, w: np.ndarray) -> bool:
    """C4.5 keeps a simplified rule only if it has a condition, covers some case, and its
    pessimistic error rate is below the error rate of guessing its class for every case,
    ``1 - (n_class + 1) / (n + 2)``, and at most 0.7 (C4.5 never fires a rule above)."""
    if not rule.conditions or rule.covered <= 0:
        return False
    default_error = 1.0 - (float(w[y == rule.class_index].sum()) + 1.0) / (float(w.sum()) + 2.0)
    error = 1.0 - rule.accuracy
    return error < default_error and error <= _MAX_ERROR


def unique_rules(rules: Sequence[Rule]) -> list[Rule]:
    """The rules without repeats (same conditions and class), first occurrences kept."""
    unique: dict[tuple, Rule] = {}
    for rule in rules:
        unique.setdefault(rule.key(), rule)
    return list(unique.values())


# -- 3. choosing the rules of each class (MDL) -------------------------------------------------


def _log_factorial(k: int) -> float:
    return math.lgamma(k + 1) / math.log(2)


def branch_bits(X: np.ndarray, w: np.ndarray, kinds: Sequence[str]) -> tuple[np.ndarray, float]:
    """C4.5's cost of coding a test outcome per feature and of naming the feature.

    Nominal feature: the entropy of its values (a missing value counts in the total only).
    Numeric or ordinal: ``1 + log2(distinct values) / 2`` (0 for a constant; a missing value
    counts as one more value, as C4.5's -999). Naming a feature costs the entropy of the
    features' shares of the summed outcome costs.
    """
    total = float(w.sum())
    bits = np.zeros(len(kinds))
    for f, kind in enumerate(kinds):
        column = X[:, f]
        if kind in (NUMERIC_KIND, ORDINAL_KIND):
            cuts = len(np.unique(column))  # NaNs count once
            bits[f] = 1.0 + math.log2(cuts) / 2 if cuts > 1 else 0.0
        else:
            known = ~np.isnan(column)
            freq = np.bincount(column[known].astype(np.int64), weights=w[known])
            freq = freq[freq > 0]
            bits[f] = float((freq / total * (np.log2(total) - np.log2(freq))).sum())
    p = bits / bits.sum() if bits.sum() > 0 else bits
    p = p[p > 0]
    return bits, float(-(p * np.log2(p)).sum())


def rule_bits(rule: Rule, bits: np.ndarray, attribute_bits: float, n_categories) -> float:
    """Bits to code a rule's conditions (a subset test codes one bit per category), plus
    their number, less the orders they could come in."""
    k = len(rule.conditions)
    total = sum(
        attribute_bits + (n_categories(c.feature) if c.op == "in" else bits[c.feature])
        for c in rule.conditions
    )
    return total + (math.log2(k) if k else 0.0) - _log_factorial(k)


def _biased(n, e, expected):
    """Bits to code which ``e`` of ``n`` cases are exceptions, at the expected rate
    ``expected / n`` (Quinlan 1995): cheap when the counts are balanced."""
    n, e, expected = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (n, e, expected))
    )
    safe_n = np.where(n > 0, n, 1.0)
    rate = np.clip(expected / safe_n, 1e-12, 1 - 1e-12)
    out = -e * np.log2(rate) - (n - e) * np.log2(1 - rate)
    low, high = expected <= 1e-6, expected >= n - 1e-6
    out = np.where(low, np.where(e <= 1e-9, 0.0, 1e6), out)
    return np.where(high & ~low, np.where(e >= n - 1e-9, 0.0, 1e6), out)


def _exception_bits(fires, fp, fn, total):
    """Bits to code the false positives among the ``fires`` covered cases and the false
    negatives among the others."""
    fires, fp, fn = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (fires, fp, fn)))
    half = 0.5 * (fp + fn)
    many = fires > 0.5 * total
    return (
        math.log2(total)
        + _biased(fires, fp, np.where(many, half, fp))
        + _biased(total - fires, fn, np.where(many, fn, half))
    )


class _ClassCoding:
    """The description length of subsets of one class's rules (C4.5's ``CalculateValue``).

    Only the cases some rule covers can change side; the others add fixed false negatives.
    """

    def __init__(self, match: np.ndarray, is_class: np.ndarray, w: np.ndarray, bits):
        reach = match.any(axis=0)
        self.missed = float(w[is_class & ~reach].sum())
        self.total = float(w.sum())
        self.match = match[:, reach]  # (k rules, m cases) bool
        self.sparse = csr_matrix(self.match, dtype=np.float64)  # a rule covers few cases
        self.pos = np.where(is_class[reach], w[reach], 0.0)
        self.neg = np.where(is_class[reach], 0.0, w[reach])
        self.bits = np.asarray(bits, dtype=np.float64)

    def _bits(self, theory, fires, fp, fn):
        return _CODE_WEIGHT * theory + _exception_bits(fires, fp, fn + self.missed, self.total)

    def all_subsets(self) -> np.ndarray:
        """Cost of every subset, subset ``s`` holding rule ``j`` when bit ``j`` of ``s`` is
        set (C4.5's order of enumeration). Cases are grouped by the rules covering them."""
        k = len(self.bits)
        pattern = (1 << np.arange(k)) @ self.match
        pos = np.bincount(pattern, weights=self.pos, minlength=2**k)
        neg = np.bincount(pattern, weights=self.neg, minlength=2**k)
        subsets = np.arange(2**k)
        covered = (subsets[:, None] & subsets[None, :]) != 0  # (subset, pattern)
        holds = (subsets[:, None] >> np.arange(k)) & 1 == 1
        theory = holds @ self.bits - np.array([_log_factorial(n) for n in holds.sum(axis=1)])
        return self._bits(theory, covered @ (pos + neg), covered @ neg, (~covered) @ pos)

    def gains(self, chosen: np.ndarray) -> tuple[float, np.ndarray]:
        """Cost of the subset ``chosen`` and, per rule, the bits saved by toggling it."""
        count = np.rint(self.sparse.T @ chosen.astype(np.float64))
        covered = count > 0
        fires, fp = float(covered @ (self.pos + self.neg)), float(covered @ self.neg)
        fn = float((~covered) @ self.pos)
        k = int(chosen.sum())
        theory = float(self.bits[chosen].sum()) - _log_factorial(k)
        base = float(self._bits(theory, fires, fp, fn))
        # A rule in the subset takes away the cases only it covers; a rule out brings the
        # cases no rule covers.
        none, once = count == 0, count == 1
        by_rule = self.sparse @ np.column_stack(
            [self.pos * none, self.neg * none, self.pos * once, self.neg * once]
        )
        right = np.where(chosen, by_rule[:, 2], by_rule[:, 0])
        wrong = np.where(chosen, by_rule[:, 3], by_rule[:, 1])
        sign = np.where(chosen, -1.0, 1.0)
        theory_after = np.where(
            chosen, theory - self.bits + np.log2(max(k, 1)), theory + self.bits - np.log2(k + 1)
        )
        after = self._bits(
            theory_after, fires + sign * (right + wrong), fp + sign * wrong, fn - sign * right
        )
        return base, base - after


def select_rules(
    rules: Sequence[Rule],
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    schema,
    seed: int = 0,
) -> list[Rule]:
    """For each class, the subset of its rules that codes the training classes in the
    fewest bits (C4.5's "sifting"): the rules' conditions at half weight, plus the false
    positives and false negatives of the class.

    Up to 10 rules, every subset is tried (the first of equal costs wins); above, a hill
    climb adds or drops the rule saving the most bits, from 11 starting subsets (each rule
    in with probability 0, 0.1, ..., 1, drawn with ``seed``), and the cheapest subset seen
    is kept. The rules keep their order.
    """
    y = np.asarray(y)
    bits, attribute_bits = branch_bits(X, w, [f.kind for f in schema.features])

    def n_categories(f):
        return schema.features[f].n_categories

    rng = np.random.default_rng(seed)
    keep = np.zeros(len(rules), dtype=bool)
    for c in sorted({r.class_index for r in rules}):
        index = np.array([i for i, r in enumerate(rules) if r.class_index == c])
        coding = _ClassCoding(
            np.array([rules[i].satisfied(X) for i in index]),
            y == c,
            w,
            np.array([rule_bits(rules[i], bits, attribute_bits, n_categories) for i in index]),
        )
        k = len(index)
        if k <= 10:
            s = int(np.argmin(coding.all_subsets()))  # the first of equal costs
            best = (s >> np.arange(k)) & 1 == 1
        else:
            best, best_cost = None, np.inf
            for trial in range(11):
                chosen = rng.random(k) < trial / 10
                while True:
                    cost, gain = coding.gains(chosen)
                    if cost < best_cost:
                        best, best_cost = chosen.copy(), cost
                    j = int(np.argmax(gain))  # the first of equal gains
                    if gain[j] <= _TIE:
                        break
                    chosen[j] = not chosen[j]
        keep[index[best]] = True
    return [r for r, k in zip(rules, keep, strict=True) if k]


# -- 4. ordering -------------------------------------------------------------------------------


def order_rules(
    rules: Sequence[Rule], X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
) -> tuple[list[Rule], int]:
    """Rules without repeats, in firing order, and the default class.

    Classes come in the order C4.5 gives them: next is the class whose rules cover the least
    weight of other classes among the cases not covered by the classes already placed (ties:
    the class of larger training weight, then the lower index). Within a class, rules go by
    estimated accuracy (descending), covered weight (descending), then leaf order. The
    default class has the most weight among the cases no rule covers (ties: the larger
    class, then the lower index), or is the largest class when every case is covered.
    """
    y = np.asarray(y)
    rules = unique_rules(rules)
    class_weight = np.bincount(y, weights=w, minlength=n_classes)
    by_class: dict[int, list[Rule]] = {}
    for rule in rules:
        by_class.setdefault(rule.class_index, []).append(rule)
    covers = {c: np.any([r.satisfied(X) for r in rs], axis=0) for c, rs in by_class.items()}

    ordered: list[Rule] = []
    covered = np.zeros(len(y), dtype=bool)
    remaining = sorted(by_class)
    while remaining:
        false_pos = {c: float(w[covers[c] & ~covered & (y != c)].sum()) for c in remaining}
        best = min(remaining, key=lambda c: (false_pos[c], -class_weight[c], c))
        remaining.remove(best)
        ordered += sorted(by_class[best], key=lambda r: (-r.accuracy, -r.covered, r.leaf))
        covered |= covers[best]

    return ordered, _default_class(covered, y, w, n_classes)


def _default_class(covered: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int) -> int:
    """The class of most weight among the cases not ``covered`` (ties: the larger class,
    then the lower index); the largest class when all are covered."""
    uncovered = np.bincount(y[~covered], weights=w[~covered], minlength=n_classes)
    class_weight = np.bincount(y, weights=w, minlength=n_classes)
    # lexsort: the last key is the primary one; -index so that the lowest index sorts last
    return int(np.lexsort((-np.arange(n_classes), class_weight, uncovered))[-1])


def drop_unhelpful_rules(
    rules: Sequence[Rule], X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
) -> tuple[list[Rule], int]:
    """The ordered rules without those that do more harm than good on the training cases,
    and the default class.

    For each case, the rule that fires first is compared with what would decide without
    it (the next rule that fires, or the default class): it is "better" where only it is
    right, "worse" where only the other is. The first rule (in order) worse more often than
    better is dropped, and the count is made again, until none is (C4.5's last step; C4.5
    keeps the default class it had before, here it is chosen again from the cases the
    remaining rules leave uncovered).
    """
    y = np.asarray(y)
    rules = list(rules)
    while True:
        match = np.array([r.satisfied(X) for r in rules]).reshape(len(rules), len(y))
        fired = match.any(axis=0)
        default = _default_class(fired, y, w, n_classes)
        if not rules:
            return rules, default
        rank = np.cumsum(match, axis=0)
        first = np.argmax(match, axis=0)
        second = np.argmax(match & (rank == 2), axis=0)
        classes = np.array([r.class_index for r in rules])
        assigned = classes[first]
        other = np.where((rank[-1] >= 2) & fired, classes[second], default)
        differs = fired & (assigned != other)
        better = np.bincount(first, weights=w * (differs & (assigned == y)), minlength=len(rules))
        worse = np.bincount(first, weights=w * (differs & (other == y)), minlength=len(rules))
        used = np.bincount(first, weights=w * fired, minlength=len(rules)) > 0
        harmful = np.flatnonzero(used & (worse > better + _TIE))
        if len(harmful) == 0:
            return rules, default
        del rules[int(harmful[0])]


def c45_rules(
    tree: Tree,
    schema,
    classes: Sequence,
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    confidence: float = 0.25,
    variant: str = "j48",
    seed: int = 0,
) -> tuple[list[Rule], int]:
    """The whole of C4.5rules on a tree grown on ``X, y, w``: the ordered rules and the
    default class."""
    n_classes = len(classes)
    rules = [
        simplify_rule(rule, X, y, w, n_classes, confidence, variant)
        for rule in rules_from_tree(tree, schema, classes, confidence, variant)
    ]
    rules = unique_rules(rule for rule in rules if is_worth_keeping(rule, y, w))
    rules = select_rules(rules, X, y, w, schema, seed)
    rules, _ = order_rules(rules, X, y, w, n_classes)
    return drop_unhelpful_rules(rules, X, y, w, n_classes)


# -- prediction --------------------------------------------------------------------------------


def fired_rule(rules: Sequence[Rule], X: np.ndarray) -> np.ndarray:
    """Index of the first rule each row of ``X`` meets, or -1 (the default class)."""
    out = np.full(len(X), -1, dtype=np.int64)
    for i, rule in enumerate(rules):
        out[(out < 0) & rule.satisfied(X)] = i
    return out


def predict_with_rules(rules: Sequence[Rule], default_class: int, X: np.ndarray) -> np.ndarray:
    """Class index of each row of ``X``: the first rule that fires, else the default."""
    classes = np.array([r.class_index for r in rules] + [default_class], dtype=np.int64)
    return classes[fired_rule(rules, X)]  # -1 picks the default, last


def rule_probabilities(
    rules: Sequence[Rule], X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
) -> np.ndarray:
    """(n_rules + 1, n_classes): the training class distribution of the cases each rule
    covers, normalised, and last, the default's: that of the cases no rule covers (of all
    cases when every case is covered)."""
    y = np.asarray(y)
    fired = fired_rule(rules, X)
    rows = [r.distribution for r in rules]
    uncovered = fired < 0
    if w[uncovered].sum() <= 0:
        uncovered = np.ones(len(y), dtype=bool)
    rows.append(np.bincount(y[uncovered], weights=w[uncovered], minlength=n_classes))
    table = np.vstack(rows).astype(np.float64) if rows else np.zeros((1, n_classes))
    totals = table.sum(axis=1, keepdims=True)
    return table / np.where(totals > 0, totals, 1.0)
