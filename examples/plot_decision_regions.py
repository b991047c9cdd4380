"""
Decision regions of a tree on two attributes
============================================

A tree's tests are axis-parallel: each leaf owns a rectangle of the plane of two numeric
attributes. :func:`quercus.plot.decision_regions` draws those rectangles from the tree's own
thresholds (not a grid of predictions), with the training points. A nominal attribute is an
axis of categories, one cell each.
"""

import matplotlib.pyplot as plt

import quercus
from quercus.plot import decision_regions, impurity_curves

# %%
# Two numeric attributes: the iris petals
# ---------------------------------------
# CART's first split, ``petallength <= 2.45``, is the vertical edge that sets the setosas
# apart; deeper splits cut the rest of the plane.

iris = quercus.datasets.load("iris")
petals = iris[["petallength", "petalwidth"]]
cart = quercus.CARTClassifier(max_depth=3).fit(petals, iris["class"])
fig, ax = plt.subplots(figsize=(7, 4.5))
drawn = decision_regions(cart, petals, iris["class"], ax=ax)
for region in drawn.regions:
    print(
        f"leaf {region.leaf:2d}: {region.label:16s} "
        f"petallength in ({region.x0:.2f}, {region.x1:.2f}], "
        f"petalwidth in ({region.y0:.2f}, {region.y1:.2f}]"
    )

# %%
# A nominal attribute on one axis
# -------------------------------
# Car Evaluation's ``safety`` (ordered low < med < high) against ``persons`` (nominal):
# each category is a cell, and a leaf's region is the cells its path admits.

car = quercus.datasets.load("car")
X = car[["safety", "persons"]].astype("category")
tree = quercus.CARTClassifier(max_depth=3, ordinal_features={"safety": ["low", "med", "high"]}).fit(
    X, car["class"]
)
fig, ax = plt.subplots(figsize=(7, 4.5))
decision_regions(tree, X, car["class"], ax=ax)

# %%
# The impurity of two classes
# ---------------------------
# Entropy, Gini index and misclassification error against the share ``p`` of one class,
# the lectures' figure, from the criteria the trees split with: entropy in bits is 1 at
# ``p = 0.5``, Gini ``2p(1 - p)`` and the error ``min(p, 1 - p)`` are 0.5 there.
# ``scaled_entropy=True`` halves the entropy so that the three curves meet.

fig, ax = plt.subplots(figsize=(6, 4))
curves = impurity_curves(ax=ax)
print(f"at p = 0.25: entropy {curves.entropy[50]:.4f}, Gini {curves.gini[50]:.4f}")
plt.show()
