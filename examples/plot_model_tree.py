"""
Model trees: a linear model in each leaf
========================================

A regression tree predicts a constant in each leaf: every shell that reaches a leaf gets the
same age. :class:`quercus.ModelTreeRegressor` is M5 as Weka's M5P builds it
(:doc:`/algorithms/m5`): each leaf holds a linear model of the attributes, so the
prediction varies within a leaf, and fewer leaves are needed.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

import quercus

# %%
# Abalone: the age of a shell
# ---------------------------
# UCI's abalone data: ``Sex`` is nominal (M, F, I for infant), seven measurements are
# numeric, and the target is the number of rings (the age). A pruned regression tree
# (CART, its pruning chosen by cross-validation) and the model tree learn from 70% of the
# shells and are scored on the other 30%.

frame = quercus.datasets.load("abalone")
X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

trees = {
    "regression tree": quercus.CARTRegressor(ccp_alpha="cv", random_state=0).fit(X_train, y_train),
    "model tree": quercus.ModelTreeRegressor().fit(X_train, y_train),
}
for name, tree in trees.items():
    rmse = np.sqrt(np.mean((tree.predict(X_test) - y_test) ** 2))
    print(f"{name:16s} {tree.get_n_leaves():3d} leaves   test RMSE {rmse:.3f} rings")

# %%
# The model tree has fewer leaves and the smaller error. Its text lists the tree, then each
# leaf's equation (``LM1``, ``LM2``, ...), smoothed with the models above it as M5 does:
# these are the equations the tree predicts with. A nominal attribute enters as ranked
# indicator terms (``Sex=F,M``: 1 for those categories).

print(trees["model tree"].export_text())

# %%
# Predicted against actual
# ------------------------
# The regression tree can only predict as many ages as it has leaves: its points lie on
# horizontal lines. The model tree's predictions vary with the measurements.

fig, axes = plt.subplots(1, 2, figsize=(8, 3.8), sharex=True, sharey=True, layout="constrained")
for ax, (name, tree) in zip(axes, trees.items(), strict=True):
    ax.scatter(y_test, tree.predict(X_test), s=5, alpha=0.4)
    ax.plot([0, 30], [0, 30], color="0.4", lw=1)
    ax.set_title(f"{name} ({tree.get_n_leaves()} leaves)")
    ax.set_xlabel("actual rings")
axes[0].set_ylabel("predicted rings")

# %%
# ``DecisionTreeRegressor(leaf_model="linear")`` puts a linear model in the leaves of any
# regression tree, and ``export_text(style="weka")`` prints a model tree exactly as M5P
# does. From the command line: ``quercus fit abalone.csv --algorithm m5``.
