"""
Oblique splits: one slanted line instead of a staircase
=======================================================

A split on one attribute cuts along an axis. Where the classes are divided by a slanted
line, an ordinary tree approximates it with a staircase of small leaves. With
``split="oblique"`` a node may test a weighted sum of numeric attributes, ``w . x <= t``,
found by OC1's search (:doc:`/algorithms/oblique`), and draws the line with one test.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import quercus
from quercus.plot import decision_regions


def points(n, seed):
    """``n`` points of the unit square, classed by which side of ``a + b = 1`` they lie."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(0, 1, size=(n, 2)), columns=["a", "b"])
    y = np.where(X["a"] + X["b"] > 1, "above", "below")
    return X, y


X, y = points(1000, 0)
X_new, y_new = points(5000, 1)  # fresh points to score on

axis = quercus.CARTClassifier().fit(X, y)
oblique = quercus.CARTClassifier(split="oblique", random_state=0).fit(X, y)
for name, tree in [("axis-parallel", axis), ("oblique", oblique)]:
    print(
        f"{name:14s} {tree.get_n_leaves():3d} leaves   "
        f"accuracy on fresh points {tree.score(X_new, y_new):.3f}"
    )

# %%
# The oblique tree
# ----------------
# The text shows the weighted sum of each oblique test (the largest weight scaled to 1):

print(oblique.export_text())

# %%
# The regions
# -----------
# :func:`quercus.plot.decision_regions` draws each leaf's region exactly: rectangles for
# the axis-parallel tree, a polygon per leaf for the oblique one.

fig, axes = plt.subplots(1, 2, figsize=(8.5, 4), layout="constrained")
decision_regions(axis, X, y, ax=axes[0])
axes[0].set_title(f"axis-parallel: {axis.get_n_leaves()} leaves")
decision_regions(oblique, X, y, ax=axes[1])
axes[1].set_title(f"oblique: {oblique.get_n_leaves()} leaves")

# %%
# Nominal and ordinal attributes keep their usual splits, and a node may split on one of
# them instead. From the command line: ``quercus fit data.csv --algorithm cart --set
# split=oblique``.
