"""Every estimator passes scikit-learn's estimator checks.

A check that cannot apply is skipped here, by name, with the reason (none so far: the array
API check skips itself when array-api-compat is not installed).
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus

ESTIMATORS = [
    quercus.DecisionTreeClassifier(random_state=0),
    quercus.DecisionTreeRegressor(random_state=0),
    quercus.ID3Classifier(random_state=0),
    quercus.C45Classifier(random_state=0),
    quercus.C45RulesClassifier(random_state=0),
    quercus.CARTClassifier(random_state=0),
    quercus.CARTRegressor(random_state=0),
    quercus.ModelTreeRegressor(),
    quercus.DecisionTreeRegressor(leaf_model="linear", max_depth=3),
    quercus.DecisionTreeClassifier(lookahead=1, max_depth=4),
    quercus.DecisionTreeRegressor(lookahead=1, max_depth=4),
    quercus.DecisionTreeClassifier(split="oblique", random_state=0),
    quercus.DecisionTreeRegressor(split="oblique", random_state=0, max_depth=6),
]
SKIPPED = {}  # check name -> reason


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: SKIPPED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
