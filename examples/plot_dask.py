"""
Training on a Dask cluster
==========================

``quercus.dask`` learns the same trees and forests from a Dask DataFrame whose rows stay on
the workers (:doc:`/distributed`; ``pip install "quercus[dask]"``). Here the cluster is a
small one in this process (threads, no worker processes), and the data is split into four
partitions, as a large file would be.
"""

import importlib.util

import matplotlib.pyplot as plt
import numpy as np

import quercus
from quercus.plot import plot_tree

df = quercus.datasets.load("car")
X, y = df.drop(columns="class"), df["class"]
local = quercus.CARTClassifier(max_depth=3).fit(X, y)

if importlib.util.find_spec("distributed") is None:  # quercus[dask] is not installed
    print('Dask is not installed (pip install "quercus[dask]"): the cluster is not built.')
    tree = local
else:
    import dask.dataframe as dd

    import quercus.dask
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        X_dask = dd.from_pandas(X, npartitions=4)
        y_dask = dd.from_pandas(y, npartitions=4)
        print(f"{X_dask.npartitions} partitions of {len(X):,} rows")
        dask_tree = quercus.dask.DaskCARTClassifier(max_depth=3, client=client)
        dask_tree.fit(X_dask, y_dask)
        predicted = dask_tree.predict(X_dask)  # a Dask array, one block per partition
        print(f"predictions: {type(predicted).__name__} of {predicted.numblocks[0]} blocks")
        accuracy = float((predicted.compute() == y.to_numpy()).mean())
        print(f"training accuracy {accuracy:.3f}")
        tree = dask_tree.to_local()  # the ordinary CARTClassifier, to keep or save

# %%
# The model is the local one
# --------------------------
# With the same parameters, the tree learned on the cluster is the tree a local fit grows
# on the same rows: every split, threshold and leaf.

print(tree.export_text())
print("the same tree as the local fit:", tree.export_text() == local.export_text())
assert np.array_equal(tree.predict(X), local.predict(X))

# %%
# The tree, drawn from the model the cluster learned:

fig, ax = plt.subplots(figsize=(10, 4.2), layout="constrained")
plot_tree(tree, ax=ax, fontsize=7)
ax.set_title("CART on car, learned on Dask (depth 3)")
