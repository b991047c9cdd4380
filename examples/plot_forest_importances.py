"""
A random forest and its feature importances
===========================================

:class:`quercus.RandomForestClassifier` grows trees on bootstrap samples, drawing the
attributes each split may use; the nominal columns of the Car Evaluation data are used as
they are, without one-hot encoding. The out-of-bag score comes free with the forest, and the
impurity importances are compared with permutation importances on held-out cars (see also
:doc:`/forests`).
"""

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

import quercus

df = quercus.datasets.load("car")
X, y = df.drop(columns="class"), df["class"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
forest = quercus.RandomForestClassifier(
    n_estimators=100,
    oob_score=True,
    random_state=0,
    n_jobs=2,
    nominal_features=["doors", "persons"],
).fit(X_train, y_train)
print(
    f"out-of-bag accuracy {forest.oob_score_:.3f}, test accuracy {forest.score(X_test, y_test):.3f}"
)

one_tree = quercus.CARTClassifier(nominal_features=["doors", "persons"]).fit(X_train, y_train)
print(f"one CART tree: test accuracy {one_tree.score(X_test, y_test):.3f}")

# %%
# Two kinds of importance
# -----------------------
# Impurity importance sums each attribute's impurity decreases over all splits of all trees
# (training data); permutation importance is the accuracy lost on the test set when one
# column is shuffled.

result = permutation_importance(forest, X_test, y_test, n_repeats=5, random_state=0)
table = pd.DataFrame(
    {"impurity": forest.feature_importances_, "permutation": result.importances_mean},
    index=X.columns,
).sort_values("permutation")
print(table.iloc[::-1].round(3).to_string())

ax = table.plot.barh(figsize=(6, 3.5))
ax.set_xlabel("importance")
ax.set_title("Car Evaluation: what the forest relies on")
plt.tight_layout()
