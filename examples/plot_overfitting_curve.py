"""
Overfitting and pruning: accuracy against the size of the tree
==============================================================

The lectures' figure: as a tree grows, its accuracy on the training data keeps rising while
its accuracy on new data stops rising and falls; pruning walks back along the sizes.
:func:`quercus.plot.overfitting_curve` draws it along the estimator's *own* pruning
sequence: every pruning records its steps (``pruning_path_``, from the tree as grown,
``tree_grown_``), and each tree of the sequence is scored from one pass of the rows through
the grown tree, without refitting.

Car Evaluation follows a fixed decision model; one training label in five is flipped here,
the noise a tree overfits.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

import quercus
from quercus.plot import learning_curve, overfitting_curve

df = quercus.datasets.load("car")
X, y = df.drop(columns="class").astype("category"), df["class"]
X_grow, X_rest, y_grow, y_rest = train_test_split(X, y, test_size=0.5, random_state=0)
X_prune, X_test, y_prune, y_test = train_test_split(X_rest, y_rest, test_size=0.5, random_state=0)
rng = np.random.default_rng(0)
noisy = rng.random(len(y_grow)) < 0.2
y_grow = y_grow.where(~noisy, rng.choice(y.unique(), len(y_grow)))

# %%
# Reduced-error pruning (the lectures' algorithm)
# -----------------------------------------------
# ID3 grows on one half, reduced-error pruning prunes on a quarter (``X_val, y_val``), and
# the curve scores every tree of its sequence on the last quarter. The sequence goes on
# past the tree the pruning kept (marked), down to a single leaf. The training accuracy is
# against the noisy labels the tree learned, the test accuracy against clean ones.

id3 = quercus.ID3Classifier(pruning="reduced_error").fit(
    X_grow, y_grow, X_val=X_prune, y_val=y_prune
)
fig, ax = plt.subplots(figsize=(7, 4))
curve = overfitting_curve(id3, X_grow, y_grow, X_val=X_test, y_val=y_test, ax=ax)
ax.set_xscale("log")
print(f"grown: {curve.n_leaves[0]} leaves, kept: {curve.chosen_n_leaves}")

# %%
# Each step of the pruning is a record: the node (its id in ``tree_grown_`` and its path),
# what it became, the leaves left, and the validation errors that decided it.

steps = pd.DataFrame(id3.pruning_path_)
print(
    steps[["step", "node", "path", "n_leaves", "errors_as_leaf", "errors_as_subtree", "applied"]]
    .head(8)
    .to_string(index=False)
)

# %%
# C4.5's pessimistic pruning
# --------------------------
# C4.5 first collapses the subtrees that do not reduce its training errors, then prunes
# bottom-up with its pessimistic estimates (and subtree raising); its sequence ends at its
# tree. Without validation data, the curve cross-validates: each fold prunes its own tree.

c45 = quercus.C45Classifier().fit(X_grow, y_grow)
fig, ax = plt.subplots(figsize=(7, 4))
overfitting_curve(c45, X_grow, y_grow, cv=5, ax=ax)
print(pd.DataFrame(c45.pruning_path_)["method"].value_counts().to_dict())

# %%
# CART's cost-complexity path
# ---------------------------
# The weakest links, one after another, to the root; ``ccp_alpha="cv"`` chose where to stop.

cart = quercus.CARTClassifier(ccp_alpha="cv", random_state=0).fit(X_grow, y_grow)
fig, ax = plt.subplots(figsize=(7, 4))
overfitting_curve(cart, X_grow, y_grow, X_val=X_test, y_val=y_test, ax=ax)

# %%
# The learning curve
# ------------------
# Accuracy against the number of training cases (scikit-learn's ``learning_curve``, on the
# clean labels): more cases, a better tree.

fig, ax = plt.subplots(figsize=(7, 4))
learning_curve(quercus.C45Classifier(), X, y, cv=5, ax=ax)
plt.show()
