"""C4.5rules: the C4.5 tree rewritten as an ordered list of simplified IF ... THEN rules."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..pruning.c45rules import (
    c45_rules,
    fired_rule,
    predict_with_rules,
    rule_probabilities,
    rules_text,
)
from ..pruning.sequence import pessimistic_stage
from ..pruning.subtree import collapse_unhelpful
from .finish import pessimistic_variant
from .params import shallow_params
from .trees import C45Classifier, tree_class_doc
from .validate import training_cases

# Seed of the random starting subsets when a class has more than 10 rules to choose from
# (C4.5 also draws them from a fixed sequence: the same data give the same rules).
_SEED = 0


class C45RulesClassifier(C45Classifier):
    _has_rules = True  # its model file holds the rules (quercus.persist.model_file)

    def fit(self, X, y, sample_weight=None, trace=False):
        """Fit the C4.5 tree (kept in ``tree_``, pruned), then turn the tree as it was before
        pessimistic pruning into rules: simplify each, choose and order them (``rules_``,
        ``default_class_``)."""
        super().fit(X, y, sample_weight=sample_weight, trace=trace)
        matrix, y_class, w = training_cases(self, X, y, sample_weight)
        self.rules_, self.default_class_ = c45_rules(
            collapse_unhelpful(self._tree_before_pessimistic()),
            self.schema_,
            self.classes_,
            matrix,
            y_class,
            w,
            confidence=float(self.confidence),
            variant=pessimistic_variant(shallow_params(self)),
            seed=_SEED,
        )
        self.rule_proba_ = rule_probabilities(self.rules_, matrix, y_class, w, self.n_classes_)
        return self

    def _tree_before_pessimistic(self):
        """The tree as it was before pessimistic pruning: the grown tree with every other
        step of its pruning (collapse, cost complexity) taken."""
        if self.pruning != "pessimistic" or not hasattr(self, "tree_grown_"):
            return self.tree_
        steps = [s for s in self.pruning_path_ if s.applied and s.method != "pessimistic"]
        return pessimistic_stage(self.tree_grown_, steps)[0]

    def apply_rules(self, X) -> np.ndarray:
        """Index in ``rules_`` of the first rule each sample meets, -1 for the default."""
        check_is_fitted(self, "rules_")
        return fired_rule(self.rules_, self._predict_matrix(X))

    def predict(self, X) -> np.ndarray:
        """Class of the first rule each sample meets, else the default class."""
        check_is_fitted(self, "rules_")
        matrix = self._predict_matrix(X)
        return self.classes_[predict_with_rules(self.rules_, self.default_class_, matrix)]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the training class distribution of the cases the first
        rule that fires covers (for the default class: of the cases no rule covers)."""
        fired = self.apply_rules(X)
        return self.rule_proba_[fired]  # -1, the default, is the last row

    def export_rules(self) -> str:
        """The rules in firing order, one ``IF ... THEN class [accuracy]`` line each, then
        ``Default class: ...``."""
        check_is_fitted(self, "rules_")
        return rules_text(self.rules_, self.classes_[self.default_class_])


_SUMMARY = """C4.5rules: the C4.5 tree as an ordered list of rules (IF conditions THEN class).

The tree is grown as by C45Classifier (and pruned into ``tree_``). The tree as grown gives
one rule per leaf; each rule loses the conditions whose removal does not raise its
pessimistic error rate on the training cases it covers; for each class, the subset of its
rules that describes the training data in the fewest bits is kept; classes are ordered by
their rules' false positives, rules within a class by estimated accuracy, and rules that
do more harm than good are dropped. A sample takes the class of the first rule it meets
(a missing value meets no condition), else the default class: the most frequent among the
training cases no rule covers. Steps and details: ``quercus.pruning.c45rules``.
"""

_ATTRIBUTES = """
    Attributes
    ----------
    rules_ : list of quercus.pruning.c45rules.Rule
        The rules in firing order (conditions, class, covered training weight, errors and
        estimated accuracy ``1 - pessimistic error rate``).
    default_class_ : int
        Index in ``classes_`` of the class given when no rule fires.
    rule_proba_ : ndarray of shape (n_rules + 1, n_classes)
        Class distribution of the training cases each rule covers; last row, the default's.
    tree_ : Tree
        The pruned C4.5 tree, as C45Classifier fits it.
"""

C45RulesClassifier.__doc__ = (
    tree_class_doc(_SUMMARY, C45RulesClassifier, "gain_ratio", "multiway") + _ATTRIBUTES
)
