"""
CART regression and cost-complexity pruning
===========================================

A regression tree grown to full depth fits its training data exactly and predicts new data
badly. CART's minimal cost-complexity pruning (Breiman et al. 1984) cuts it back along a path
of ever smaller trees, each the best of its size for some complexity parameter alpha; the
alpha is then chosen on held-out data or by cross-validation. quercus computes the same path
as scikit-learn (``cost_complexity_pruning_path``). The data: scikit-learn's bundled
``diabetes`` set (442 patients, 10 numeric features, disease progression after one year).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

import quercus

data = load_diabetes()
X_train, X_test, y_train, y_test = train_test_split(
    data.data, data.target, test_size=0.3, random_state=0
)
full = quercus.CARTRegressor().fit(X_train, y_train)
print(
    f"full tree: {full.get_n_leaves()} leaves, "
    f"R^2 train {full.score(X_train, y_train):.3f}, test {full.score(X_test, y_test):.3f}"
)

# %%
# The pruning path
# ----------------
# Each effective alpha is the point where the next weakest link (the subtree that lowers the
# error least per leaf) is cut off; ``impurities`` is the total leaf impurity of the pruned
# tree (here the mean squared error on the training data).

path = quercus.CARTRegressor().cost_complexity_pruning_path(X_train, y_train)
print(
    f"{len(path.ccp_alphas)} trees on the path, alpha from {path.ccp_alphas[0]:g} "
    f"to {path.ccp_alphas[-1]:.1f}"
)

# %%
# One tree per alpha of the path (every fifth, to keep it short), scored on both sets:

alphas = path.ccp_alphas[::5]
trees = [quercus.CARTRegressor(ccp_alpha=a).fit(X_train, y_train) for a in alphas]
train_r2 = [t.score(X_train, y_train) for t in trees]
test_r2 = [t.score(X_test, y_test) for t in trees]
leaves = [t.get_n_leaves() for t in trees]

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
left.plot(alphas, train_r2, marker=".", drawstyle="steps-post", label="training")
left.plot(alphas, test_r2, marker=".", drawstyle="steps-post", label="test")
left.set_xscale("symlog", linthresh=1.0)
left.set(xlabel="ccp_alpha", ylabel="R^2", title="Score along the pruning path")
left.legend()
right.plot(alphas, leaves, marker=".", drawstyle="steps-post")
right.set_xscale("symlog", linthresh=1.0)
right.set_yscale("log")
right.set(xlabel="ccp_alpha", ylabel="leaves", title="Tree size")
best = int(np.argmax(test_r2))
print(
    f"best on the test set: alpha {alphas[best]:.1f}, {leaves[best]} leaves, "
    f"R^2 {test_r2[best]:.3f}"
)

# %%
# Alpha by cross-validation
# -------------------------
# Choosing alpha on the test set is cheating. ``ccp_alpha="cv"`` chooses it by 10-fold
# cross-validation on the training data with the one-standard-error rule of Breiman et al.
# (the smallest tree whose error is within one standard error of the best).

cv = quercus.CARTRegressor(ccp_alpha="cv", random_state=0).fit(X_train, y_train)
print(
    f"alpha {cv.ccp_alpha_:.1f}: {cv.get_n_leaves()} leaves, "
    f"R^2 train {cv.score(X_train, y_train):.3f}, test {cv.score(X_test, y_test):.3f}"
)
print(cv.export_text(feature_names=data.feature_names))
