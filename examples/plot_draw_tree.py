"""
Drawing a tree with matplotlib
==============================

:func:`quercus.plot.plot_tree` draws any fitted quercus tree (it needs matplotlib: ``pip
install "quercus[plot]"``). Inner nodes name their attribute and training cases, edges carry
the branch's condition, and leaves show the prediction with ``(weight/errors)`` as C4.5
prints it.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_diabetes

import quercus
from quercus.plot import plot_tree

# %%
# The ID3 tree of PlayTennis
# --------------------------
# Multiway splits on nominal attributes: one edge per value.

df = quercus.datasets.load("playtennis")
tree = quercus.ID3Classifier().fit(df.drop(columns="PlayTennis"), df["PlayTennis"])
fig, ax = plt.subplots(figsize=(7, 3.5))
plot_tree(tree, ax=ax)
ax.set_title("ID3 on PlayTennis")

# %%
# A binary CART tree on restaurant
# --------------------------------
# CART splits a nominal attribute into two subsets of its values (``in {...}``).

df = quercus.datasets.load("restaurant")
cart = quercus.CARTClassifier().fit(df.drop(columns="WillWait"), df["WillWait"])
fig, ax = plt.subplots(figsize=(8, 4))
plot_tree(cart, ax=ax)
ax.set_title("CART on the restaurant examples")

# %%
# A regression tree, cut at depth 2
# ---------------------------------
# ``max_depth`` draws the top levels only; deeper subtrees are drawn as one dashed box.

data = load_diabetes()
regression = quercus.CARTRegressor(min_samples_leaf=20).fit(data.data, data.target)
fig, ax = plt.subplots(figsize=(9, 4))
plot_tree(regression, ax=ax, max_depth=2, feature_names=data.feature_names, decimals=1)
ax.set_title("CARTRegressor on diabetes, top two levels")
plt.show()
