"""
Saving and loading a model
==========================

``estimator.save(path)`` writes a fitted tree as one JSON document (no pickle, no code: see
:doc:`/model-format`), and :func:`quercus.load` reads it back as the same estimator, after
checking the format version and every array. Forests are saved as a zip of JSON and NumPy
arrays, and :func:`quercus.load` reads them too.
"""

import json
import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import quercus
from quercus.plot import plot_tree

df = quercus.datasets.load("playtennis")
X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
tree = quercus.C45Classifier().fit(X, y)

folder = Path(tempfile.mkdtemp())
path = folder / "playtennis.json"
tree.save(path)
print(f"{path.name}: {path.stat().st_size:,} bytes")

# %%
# What the file holds
# -------------------
# A person can read it: the format and its version, the estimator and its parameters, the
# schema that prediction data are matched against, and the flat tree arrays.

document = json.loads(path.read_text(encoding="utf-8"))
print({key: document[key] for key in ("format", "format_version", "estimator")})
print("keys:", list(document))
for feature in document["schema"]["features"]:
    print(f"  {feature['name']:12s} {feature['kind']:8s} {feature['categories']}")
print("node kinds:", document["tree"]["kind"])

# %%
# Loading it back
# ---------------
# The loaded tree predicts exactly as the saved one. Columns are matched by name, so their
# order does not matter, and extra columns are ignored.

loaded = quercus.load(path)
print(type(loaded).__name__, loaded.get_params()["pruning"])
shuffled = X[["Wind", "Humidity", "Outlook", "Temperature"]].assign(Day=range(len(X)))
assert (loaded.predict(shuffled) == tree.predict(X)).all()
print(loaded.export_text())

# %%
# It is the whole estimator, not only its predictions: drawing, rules and the report work
# on it as on the tree that was saved.

fig, ax = plt.subplots(figsize=(7.5, 3.8))
plot_tree(loaded, ax=ax)
ax.set_title(f"{path.name}, loaded")

# %%
# A file that this quercus cannot read raises :class:`quercus.ModelError`, naming the file:
# here one written by a (pretended) newer quercus in a newer format.

newer = {**document, "format_version": document["format_version"] + 1, "quercus_version": "9.0"}
broken = folder / "newer.json"
broken.write_text(json.dumps(newer), encoding="utf-8")
try:
    quercus.load(broken)
except quercus.ModelError as error:
    print(error)

# %%
# Forests
# -------

forest = quercus.RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
forest.save(folder / "forest.qf")
again = quercus.load(folder / "forest.qf")
assert np.array_equal(again.predict_proba(X), forest.predict_proba(X))
print(
    f"forest.qf: {(folder / 'forest.qf').stat().st_size:,} bytes, "
    f"{len(again.estimators_)} trees, same probabilities"
)

shutil.rmtree(folder)  # the example's scratch folder
