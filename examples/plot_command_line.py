"""
The command line
================

Everything here is also a ``quercus`` command (:doc:`/cli`): learn a tree from a CSV file,
save it, cross-validate, predict, and draw. The example runs the commands through
:func:`quercus.cli.main`, which takes the arguments a shell would pass; in a terminal each
line below is ``quercus`` followed by the same words.
"""

import os
import shutil
import tempfile
from pathlib import Path

import matplotlib.image
import matplotlib.pyplot as plt

from quercus.cli import main

folder = Path(tempfile.mkdtemp())


def quercus(*words):
    """Run ``quercus WORDS...`` in the example's folder, as a shell there would, and stop
    on a failure."""
    print("$ quercus", " ".join(words))
    here = os.getcwd()
    os.chdir(folder)
    try:
        status = main(list(words))
    finally:
        os.chdir(here)
    assert status == 0, status


quercus("datasets", "--copy", ".")  # the shipped data sets as CSV files

# %%
# Learn, print and save a tree
# ----------------------------
# ``fit`` reads the file (the class is the last column unless ``--target`` names it),
# prints the tree and its training accuracy, and ``-o`` saves the model.

quercus("fit", "playtennis.csv", "--algorithm", "id3", "-o", "playtennis.json")

# %%
# Its rules, and predictions with the true class beside them (``+`` marks an error):

quercus("show", "playtennis.json", "--format", "rules")
quercus("predict", "playtennis.json", "playtennis.csv", "--actual")

# %%
# Cross-validation
# ----------------
# ``cv`` scores an algorithm on held-out folds; ``--compare`` scores a second one on the
# same folds and tests the difference.

quercus("cv", "car.csv", "--folds", "5", "--algorithm", "c45", "--compare", "cart", "--quiet")

# %%
# A picture of the tree
# ---------------------
# ``show --format png`` draws the tree with matplotlib (``svg`` uses Graphviz's ``dot``
# when it is installed); a large tree is drawn to the depth that fits.

quercus("fit", "car.csv", "--algorithm", "cart", "--set", "max_depth=3", "-o", "car.json")
quercus("show", "car.json", "--format", "png", "-o", "car.png")
fig, ax = plt.subplots(figsize=(9, 4.5), layout="constrained")
ax.imshow(matplotlib.image.imread(folder / "car.png"))
ax.set_axis_off()
shutil.rmtree(folder)  # the example's scratch folder
