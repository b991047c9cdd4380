"""
The HTML report of a tree
=========================

``tree.report(X, y, path)`` writes one self-contained HTML page about a fitted tree
(:doc:`/report`): the tree drawn with branches that open and close, every candidate split
of every node scored as the tree scored it, the evaluation (on a test set when one is
given), the importances, the rules, the pruning steps and the overfitting and learning
curves. The page loads nothing from anywhere: open it offline in any browser.
"""

import re
import shutil
import tempfile
from pathlib import Path

from sklearn.model_selection import train_test_split

import quercus
from quercus.plot import learning_curve

df = quercus.datasets.load("car")
X, y = df.drop(columns="class"), df["class"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
tree = quercus.C45Classifier(nominal_features=["doors", "persons"]).fit(X_train, y_train)

folder = Path(tempfile.mkdtemp())
path = tree.report(X_train, y_train, folder / "car.html", X_test=X_test, y_test=y_test)
text = path.read_text(encoding="utf-8")
print(f"{path.name}: {len(text.encode()):,} bytes, one file")
print("sections:", re.findall(r'<section id="(\w+)">', text))

# %%
# From the command line the same page is ``quercus report car.csv --test test.csv -o
# car.html``; ``quercus demo`` writes the page of the lectures' PlayTennis tree.
#
# The curves
# ----------
# The page draws its curves with :mod:`quercus.plot`, as inline SVG. This is its learning
# curve: training and cross-validated accuracy against the number of training rows.

curve = learning_curve(quercus.C45Classifier(nominal_features=["doors", "persons"]), X, y)
curve.ax_.set_title("C4.5 on car: the report's learning curve")
shutil.rmtree(folder)  # the example's scratch folder

# %%
# In a notebook
# -------------
# A fitted tree shows itself as the page's tree view, in the notebook's output: its
# branches open and close, and a click on a node shows its rows. A deep tree is cut to its
# first 250 nodes. A forest shows its size, its out-of-bag score and its first tree; an
# unfitted estimator shows scikit-learn's box of its parameters. ``tree._repr_html_()`` is
# that output, here in the page (the repr of the block's last value, as a notebook's cell
# shows it):

# sphinx_gallery_capture_repr_block = ('_repr_html_',)
table = quercus.read_table(quercus.datasets.path("playtennis"))
quercus.ID3Classifier().fit(*table)
