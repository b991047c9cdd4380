"""C4.5's rule post-pruning (C4.5rules): the golf reference, each step on hand-made cases, and
C45RulesClassifier as an estimator."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_score

import quercus
from quercus.data.schema import Feature, Schema
from quercus.estimators.rule_classifier import C45RulesClassifier
from quercus.pruning import added_errors
from quercus.pruning.c45rules import (
    Condition,
    Rule,
    _ClassCoding,
    _exception_bits,
    _log_factorial,
    c45_rules,
    drop_unhelpful_rules,
    order_rules,
    rules_from_tree,
    select_rules,
    simplify_rule,
    unique_rules,
)

# Quinlan's golf data, as C4.5's golf.data spells it. Weka's weather.numeric.csv holds the
# same 14 cases spelt rainy / TRUE / FALSE / yes / no; here C4.5's spellings, so that the
# rules print as c4.5rules prints them.
GOLF = pd.DataFrame(
    [
        ("sunny", 85, 85, "false", "Don't Play"),
        ("sunny", 80, 90, "true", "Don't Play"),
        ("overcast", 83, 86, "false", "Play"),
        ("rain", 70, 96, "false", "Play"),
        ("rain", 68, 80, "false", "Play"),
        ("rain", 65, 70, "true", "Don't Play"),
        ("overcast", 64, 65, "true", "Play"),
        ("sunny", 72, 95, "false", "Don't Play"),
        ("sunny", 69, 70, "false", "Play"),
        ("rain", 75, 80, "false", "Play"),
        ("sunny", 75, 70, "true", "Play"),
        ("overcast", 72, 90, "true", "Play"),
        ("overcast", 81, 75, "false", "Play"),
        ("rain", 71, 91, "true", "Don't Play"),
    ],
    columns=["outlook", "temperature", "humidity", "windy", "class"],
)


def golf():
    return GOLF.iloc[:, :-1], GOLF["class"]


def accuracy(n, e=0.0):
    """The bracket c4.5rules prints: 1 - pessimistic error rate."""
    return 1.0 - (e + added_errors(n, e)) / n


# -- the reference ------------------------------------------------------------------------------


def test_golf_as_c45rules():
    # C4.5 release 8, c4.5rules on golf (REFERENCE-FACTS): four rules in this order, default
    # class Play, no error on the 14 training cases. The fifth leaf, sunny and humidity <= 75
    # -> Play (2 cases), becomes "humidity <= 75 -> Play" (5 cases, 1 error), which is no
    # better than guessing Play for every case, and is dropped.
    X, y = golf()
    est = C45RulesClassifier().fit(X, y)
    assert est.export_rules().splitlines() == [
        "IF outlook = overcast THEN Play [70.7%]",
        "IF outlook = rain AND windy = false THEN Play [63.0%]",
        "IF outlook = sunny AND humidity > 75 THEN Don't Play [63.0%]",
        "IF outlook = rain AND windy = true THEN Don't Play [50.0%]",
        "Default class: Play",
    ]
    # The brackets are 1 - U(0, N) for N = 4, 3, 3, 2 covered cases and no error.
    assert [r.covered for r in est.rules_] == [4, 3, 3, 2]
    assert [r.errors for r in est.rules_] == [0, 0, 0, 0]
    assert [r.accuracy for r in est.rules_] == pytest.approx([accuracy(n) for n in (4, 3, 3, 2)])
    assert [round(100 * r.accuracy, 1) for r in est.rules_] == [70.7, 63.0, 63.0, 50.0]
    assert (est.predict(X) == y).all()  # 0/14 errors


def test_golf_csv_gives_the_same_rules(shared):
    # The shared CSV spells rain as rainy, windy as TRUE/FALSE and the classes yes/no.
    X, y = quercus.read_table(shared("weather.numeric.csv"))
    est = C45RulesClassifier().fit(X, y)
    assert est.export_rules().splitlines() == [
        "IF outlook = overcast THEN yes [70.7%]",
        "IF outlook = rainy AND windy = FALSE THEN yes [63.0%]",
        "IF outlook = sunny AND humidity > 75 THEN no [63.0%]",
        "IF outlook = rainy AND windy = TRUE THEN no [50.0%]",
        "Default class: yes",
    ]


# -- 1. rules from the tree ---------------------------------------------------------------------


def test_one_rule_per_leaf_covering_its_cases():
    iris = load_iris(as_frame=True)
    X, y = iris.data, iris.target
    est = quercus.C45Classifier().fit(X, y)
    rules = rules_from_tree(est.tree_, est.schema_, est.classes_)
    assert len(rules) == est.get_n_leaves()
    matrix = X.to_numpy(dtype=float)
    leaves = est.apply(X)
    for rule, leaf in zip(rules, np.unique(leaves), strict=True):  # leaves in node order
        np.testing.assert_array_equal(rule.satisfied(matrix), leaves == leaf)
        assert rule.covered == (leaves == leaf).sum()


def test_numeric_conditions_merged():
    # J48's iris tree: petal width <= 0.6 | > 0.6: <= 1.7: petal length <= 4.9 | > 4.9:
    # petal width <= 1.5 ... The path to that last leaf tests petal width three times.
    iris = load_iris(as_frame=True)
    est = quercus.C45Classifier().fit(iris.data, iris.target)
    rules = rules_from_tree(est.tree_, est.schema_, est.classes_)
    texts = [[str(c) for c in r.conditions] for r in rules]
    assert [
        "petal width (cm) > 0.6",
        "petal width (cm) <= 1.5",  # the tightest of <= 1.7 and <= 1.5
        "petal length (cm) > 4.9",
    ] in texts
    for rule in rules:  # never two bounds on one side of one feature
        sides = [(c.feature, c.op) for c in rule.conditions]
        assert len(sides) == len(set(sides))


def test_zero_weight_leaves_give_no_rule():
    # Under a = y, the multiway split on b has no case for b = r: an empty leaf.
    rows = [("x", b, "1") for b in "pqr"] * 2 + [("y", "p", "0"), ("y", "q", "1")] * 2
    X = pd.DataFrame([r[:2] for r in rows], columns=["a", "b"])
    y = [r[2] for r in rows]
    est = quercus.C45Classifier(min_samples_leaf=1, pruning=None).fit(X, y)
    t = est.tree_
    leaves = t.kind == 0
    assert (t.weighted_n_node_samples[leaves] == 0).sum() == 1
    rules = rules_from_tree(t, est.schema_, est.classes_)
    assert len(rules) == int((t.weighted_n_node_samples[leaves] > 0).sum())
    assert all(r.covered > 0 for r in rules)


# -- conditions and missing values --------------------------------------------------------------


def test_missing_value_satisfies_no_condition():
    X = np.array([[np.nan, np.nan], [1.0, 0.0], [5.0, 2.0]])
    conditions = [
        Condition(0, "x", "<=", 3.0, text="3"),
        Condition(0, "x", ">", 3.0, text="3"),
        Condition(1, "c", "=", codes=frozenset({0}), text="red"),
        Condition(1, "c", "in", codes=frozenset({0, 2}), text="{red, blue}"),
    ]
    masks = np.array([c.satisfied(X) for c in conditions])
    assert not masks[:, 0].any()  # the row of missing values meets none
    np.testing.assert_array_equal(
        masks[:, 1:], [[True, False], [False, True], [True, False], [True, True]]
    )
    assert [str(c) for c in conditions] == ["x <= 3", "x > 3", "c = red", "c in {red, blue}"]


def test_rule_text():
    a = Condition(0, "outlook", "=", codes=frozenset({1}), text="rain")
    b = Condition(1, "windy", "=", codes=frozenset({0}), text="false")
    rule = Rule((a, b), 1, "play", 3.0, 0.0, accuracy(3))
    assert str(rule) == "IF outlook = rain AND windy = false THEN play [63.0%]"
    assert str(Rule((), 0, "play", 14.0, 5.0, 0.5)) == "IF TRUE THEN play [50.0%]"


def test_missing_values_fall_through_to_the_default():
    X, y = golf()
    est = C45RulesClassifier().fit(X, y)
    blank = pd.DataFrame([[np.nan] * 4], columns=X.columns)
    assert est.apply_rules(blank).tolist() == [-1]
    assert est.predict(blank).tolist() == ["Play"]
    # Only outlook missing: no rule fires either (each tests outlook).
    row = X.iloc[[0]].copy()
    row["outlook"] = np.nan
    assert est.apply_rules(row).tolist() == [-1]


# -- 2. simplifying a rule ----------------------------------------------------------------------


def two_feature_data():
    # (a, b, class, count): "a = 1 AND b > 5 -> pos" is the leaf's rule; b > 5 alone is pure.
    rows = [(1, 8, 1, 4), (1, 2, 0, 3), (0, 8, 1, 2), (0, 2, 0, 3)]
    X = np.array([[a, b] for a, b, _, n in rows for _ in range(n)], dtype=float)
    y = np.array([c for _, _, c, n in rows for _ in range(n)])
    return X, y, np.ones(len(y))


A1 = Condition(0, "a", "=", codes=frozenset({1}), text="1")
B5 = Condition(1, "b", ">", 5.0, text="5")


def test_redundant_condition_dropped():
    X, y, w = two_feature_data()
    rule = Rule((A1, B5), 1, "pos", 4.0, 0.0, accuracy(4))
    # By hand: as it is, 4 cases, 0 errors: rate U(4, 0) / 4 = 1.1716 / 4 = 0.293.
    # Without a: b > 5 covers 6 cases, 0 errors: 1.2378 / 6 = 0.206 (lower: drop a).
    # Without b: a = 1 covers 7 cases, 3 errors: far higher. Then without b as well:
    # 13 cases, 6 errors, rate above 0.206 and actual rate above 0: stop.
    assert accuracy(4) == pytest.approx(1 - 1.1716 / 4, abs=1e-4)
    assert accuracy(6) == pytest.approx(1 - 1.2378 / 6, abs=1e-4)
    assert (3 + added_errors(7, 3)) / 7 > 1.2378 / 6
    simple = simplify_rule(rule, X, y, w, 2)
    assert simple.conditions == (B5,)
    assert (simple.covered, simple.errors) == (6.0, 0.0)
    assert simple.accuracy == pytest.approx(accuracy(6))
    assert simple.distribution.tolist() == [0.0, 6.0]


def test_needed_conditions_kept():
    X, y, w = two_feature_data()
    y = ((X[:, 0] == 1) & (X[:, 1] > 5)).astype(int)  # now the class needs both tests
    simple = simplify_rule(Rule((A1, B5), 1, "pos", 4.0, 0.0, accuracy(4)), X, y, w, 2)
    assert simple.conditions == (A1, B5)
    assert simple.accuracy == pytest.approx(accuracy(4))


def test_equal_rates_drop_the_later_condition():
    # Symmetric data: removing either condition gives the same counts. C4.5's PruneRule
    # keeps the last condition of lowest rate as the one to drop.
    X = np.array([[1, 1]] * 3 + [[1, 0]] * 2 + [[0, 1]] * 2 + [[0, 0]] * 3, dtype=float)
    y = np.array([1] * 3 + [1] * 2 + [1] * 2 + [0] * 3)
    a = Condition(0, "a", "=", codes=frozenset({1}), text="1")
    b = Condition(1, "b", "=", codes=frozenset({1}), text="1")
    simple = simplify_rule(Rule((a, b), 1, "pos", 3.0, 0.0, 0.0), X, y, np.ones(10), 2)
    assert simple.conditions == (a,)
    assert simple.covered == 5.0 and simple.errors == 0.0


# -- 3. choosing the rules of a class -----------------------------------------------------------


def test_description_length_prefers_the_covering_rule():
    # Rule 0 covers the 10 positive cases alone; rule 1 covers 5 of them: it costs bits and
    # saves no exception, so only rule 0 is kept. A lone negative-class rule is kept.
    X = np.zeros((20, 2))
    X[:10, 0] = 1
    X[:5, 1] = 1
    y = np.r_[np.ones(10, dtype=int), np.zeros(10, dtype=int)]
    schema = Schema((Feature("a", "nominal", ("0", "1")), Feature("b", "nominal", ("0", "1"))))
    r0 = Rule((Condition(0, "a", "=", codes=frozenset({1}), text="1"),), 1, "1", 10, 0, 0.9)
    r1 = Rule((Condition(1, "b", "=", codes=frozenset({1}), text="1"),), 1, "1", 5, 0, 0.8)
    r2 = Rule((Condition(0, "a", "=", codes=frozenset({0}), text="0"),), 0, "0", 10, 0, 0.9)
    assert select_rules([r0, r1, r2], X, y, np.ones(20), schema) == [r0, r2]


@pytest.mark.parametrize("seed", range(20))
def test_fast_coding_agrees_with_the_plain_one(seed):
    # Twin: the cost of every subset (by case patterns) and the per-rule gains (sparse
    # products) against a direct count of covered cases, false positives and negatives.
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(1, 6)), int(rng.integers(5, 40))
    match = rng.random((k, n)) < rng.uniform(0.1, 0.6)
    is_class = rng.random(n) < 0.5
    w = rng.choice([0.5, 1.0, 2.0], n)
    bits = rng.uniform(1, 8, k)
    coding = _ClassCoding(match, is_class, w, bits)

    def plain(chosen):
        covered = match[chosen].any(axis=0)
        fires, fp = w[covered].sum(), w[covered & ~is_class].sum()
        fn = w[~covered & is_class].sum()
        theory = bits[chosen].sum() - _log_factorial(int(chosen.sum()))
        return 0.5 * theory + float(_exception_bits(fires, fp, fn, w.sum()))

    costs = coding.all_subsets()
    for number in range(2**k):
        chosen = (number >> np.arange(k)) & 1 == 1  # bit j of the subset's number: rule j
        assert costs[number] == pytest.approx(plain(chosen))
        base, gain = coding.gains(chosen)
        assert base == pytest.approx(plain(chosen))
        for j in range(k):
            toggled = chosen.copy()
            toggled[j] = not toggled[j]
            assert gain[j] == pytest.approx(plain(chosen) - plain(toggled))


# -- 4. ordering, default class, and the last pruning ----------------------------------------


def test_duplicates_removed():
    a = Condition(0, "a", "=", codes=frozenset({1}), text="1")
    b = Condition(1, "b", ">", 5.0, text="5")
    first = Rule((a, b), 1, "pos", 4.0, 0.0, 0.7, leaf=0)
    same = Rule((b, a), 1, "pos", 4.0, 0.0, 0.7, leaf=3)  # the same conditions, reordered
    other_class = Rule((a, b), 0, "neg", 4.0, 4.0, 0.1, leaf=4)
    assert unique_rules([first, same, other_class]) == [first, other_class]
    X, y, w = two_feature_data()
    ordered, _ = order_rules([first, same], X, y, w, 2)
    assert len(ordered) == 1 and ordered[0].leaf == 0


def interval_rule(lo, hi, c, acc=0.5, cov=1.0, leaf=0):
    """``lo <= x <= hi -> c`` on integer x."""
    conds = (Condition(0, "x", ">", lo - 0.5), Condition(0, "x", "<=", hi + 0.5))
    return Rule(conds, c, str(c), cov, 0.0, acc, leaf)


def test_order_and_default_class():
    # Class 2 (weight 4) has a rule covering x = 9, of class 0: one false positive; class 1
    # (weight 3) none: class 1 goes first. Within class 1: higher accuracy first, then more
    # covered weight.
    X = np.arange(12, dtype=float)[:, None]
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 0, 2, 2])
    w = np.ones(12)
    r_two = interval_rule(7, 11, 2, 0.9, 5, leaf=0)
    r_one_a = interval_rule(4, 5, 1, 0.6, 2, leaf=1)
    r_one_b = interval_rule(5, 6, 1, 0.6, 3, leaf=2)  # as accurate, more weight: first
    r_one_c = interval_rule(4, 4, 1, 0.8, 1, leaf=3)
    ordered, default = order_rules([r_two, r_one_a, r_one_b, r_one_c], X, y, w, 3)
    assert [r.leaf for r in ordered] == [3, 2, 1, 0]
    assert default == 0  # uncovered: x = 0..3, all class 0
    # Everything covered: the default is the most frequent class (0, weight 5).
    assert order_rules([interval_rule(0, 11, 1)], X, y, w, 3)[1] == 0
    # The uncovered cases decide before class frequency: cover all of class 0.
    zeros = Rule((Condition(0, "x", "in", codes=frozenset({0, 1, 2, 3, 9})),), 0, "0", 5, 0, 1)
    assert order_rules([zeros], X, y, w, 3)[1] == 2  # uncovered: three 1s, four 2s


def test_false_positives_counted_on_the_cases_left():
    # Class 0's rule has no false positive: first. Class 1's rule has two (x = 0, 1), both
    # already covered by class 0's rule; class 2's rule one (x = 4), not covered. On the
    # cases left, class 1 has none: it comes before class 2.
    X = np.arange(9, dtype=float)[:, None]
    y = np.array([0, 0, 1, 1, 0, 2, 2, 1, 1])
    rules = [interval_rule(0, 1, 0), interval_rule(0, 3, 1), interval_rule(4, 6, 2)]
    ordered, _ = order_rules(rules, X, y, np.ones(9), 3)
    assert [r.class_index for r in ordered] == [0, 1, 2]


def test_rule_worse_than_what_follows_is_dropped():
    # Rule 0 fires first on x <= 5 and says 1; the cases there are mostly 0, which the
    # default would give (0: the class of the uncovered x = 10, 11): worse 4 times, better
    # 2: dropped. Rule 1 is better 4 times than the default: kept.
    X = np.arange(12, dtype=float)[:, None]
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0])
    bad = Rule((Condition(0, "x", "<=", 5.0),), 1, "1", 6, 4, 0.3, 0)
    good = Rule((Condition(0, "x", ">", 5.0), Condition(0, "x", "<=", 9.0)), 1, "1", 4, 0, 0.7, 1)
    rules, default = drop_unhelpful_rules([bad, good], X, y, np.ones(12), 2)
    assert rules == [good] and default == 0
    # Nothing to drop when every rule helps.
    assert drop_unhelpful_rules([good], X, y, np.ones(12), 2) == ([good], 0)


# -- the estimator ------------------------------------------------------------------------------


def first_firing_rule_by_hand(est, X):
    """Plain Python twin of predict: compare raw values with each rule's conditions."""
    out = []
    for _, row in X.iterrows():
        label = est.classes_[est.default_class_]
        for rule in est.rules_:
            ok = True
            for c in rule.conditions:
                v = row.iloc[c.feature]
                if pd.isna(v):
                    ok = False
                elif c.op in ("<=", ">"):
                    ok = v <= c.threshold if c.op == "<=" else v > c.threshold
                else:
                    cats = est.schema_.features[c.feature].categories
                    ok = v in {cats[k] for k in c.codes}
                if not ok:
                    break
            if ok:
                label = rule.label
                break
        out.append(label)
    return np.array(out)


def test_predict_is_the_first_firing_rule(shared):
    # credit-a: numeric and nominal features, with missing values.
    X, y = quercus.read_table(shared("credit-a.csv"))
    assert X.isna().any().any()
    est = C45RulesClassifier().fit(X, y)
    assert len(est.rules_) > 5
    np.testing.assert_array_equal(est.predict(X), first_firing_rule_by_hand(est, X))
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (est.classes_[proba.argmax(axis=1)] == est.predict(X)).all()
    assert est.score(X, y) > 0.85


def test_proba_of_rules_and_default():
    X, y = golf()
    est = C45RulesClassifier().fit(X, y)
    # Every rule is pure on golf; the default row is the class mix of the 2 uncovered cases.
    np.testing.assert_array_equal(est.rule_proba_[:-1].max(axis=1), 1.0)
    np.testing.assert_array_equal(est.rule_proba_[-1], [0.0, 1.0])
    np.testing.assert_allclose(est.predict_proba(X).sum(axis=1), 1.0)


def test_clone_keeps_the_c45_parameters():
    est = C45RulesClassifier(confidence=0.1, min_samples_leaf=3)
    params = clone(est).get_params()
    assert params == quercus.C45Classifier(confidence=0.1, min_samples_leaf=3).get_params()
    assert params["criterion"] == "gain_ratio" and params["pruning"] == "pessimistic"


def test_rules_come_from_the_grown_tree():
    # As C4.5rules reads the unpruned tree: without pruning, the same rules.
    X, y = load_iris(return_X_y=True)
    pruned = C45RulesClassifier().fit(X, y)
    grown = C45RulesClassifier(pruning=None).fit(X, y)
    assert pruned.get_n_leaves() <= grown.get_n_leaves()
    assert [str(r) for r in pruned.rules_] == [str(r) for r in grown.rules_]


def test_c45_rules_pipeline_on_golf():
    X, y = golf()
    est = quercus.C45Classifier().fit(X, y)
    matrix = est._routing_matrix(est._validate_X(X, reset=False))
    codes = np.searchsorted(est.classes_, y)
    rules, default = c45_rules(est.tree_, est.schema_, est.classes_, matrix, codes, np.ones(14))
    assert len(rules) == 4 and est.classes_[default] == "Play"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "tree_at_least", "rules_at_least"),
    [
        # Measured (10 stratified folds, shuffled with seed 0): car: rules 0.944, tree
        # 0.928; tic-tac-toe: rules 0.984, tree 0.858 (rules are known to do far better
        # than the tree there). Bounds: the observed values less about a point.
        ("car", 0.92, 0.935),
        ("tic-tac-toe", 0.85, 0.975),
    ],
)
def test_cross_validated_accuracy(shared, name, tree_at_least, rules_at_least):
    codes = ["doors", "persons"] if name == "car" else None  # 2, 3, 4, 5more: nominal
    X, y = quercus.read_table(shared(f"{name}.csv"), nominal=codes)
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    rules = cross_val_score(C45RulesClassifier(), X, y, cv=folds).mean()
    tree = cross_val_score(quercus.C45Classifier(), X, y, cv=folds).mean()
    assert tree >= tree_at_least
    assert rules >= rules_at_least
    assert rules >= tree - 0.01  # never more than a point below the tree
