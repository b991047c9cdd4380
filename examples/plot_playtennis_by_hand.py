"""
PlayTennis by hand: entropy, gains and the ID3 tree
===================================================

The fourteen days of Quinlan's PlayTennis table, worked through as in a lecture: the entropy
of the class, the information gain of every attribute, the ID3 tree that the gains build, and
the tree read as rules. Every number is computed by quercus from the shipped data.
"""

import matplotlib.pyplot as plt

import quercus
from quercus.plot import plot_tree

# sphinx_gallery_thumbnail_number = 2

df = quercus.datasets.load("playtennis")
print(df.to_string(index=False))

# %%
# The entropy of the class
# ------------------------
# Nine days are "Yes" and five "No": H = -(9/14) log2(9/14) - (5/14) log2(5/14).

y = df["PlayTennis"]
print(y.value_counts().to_dict())
print(f"H(PlayTennis) = {quercus.entropy(y):.3f} bits")
print(f"the same from the counts: {quercus.entropy([9, 5], counts=True):.3f} bits")

# %%
# The gain of Outlook, step by step
# ---------------------------------
# Outlook splits the days into Sunny (2 Yes, 3 No), Overcast (4 Yes) and Rain (3 Yes, 2 No).
# The gain is the entropy before the split less the weighted entropy of the branches.

for value, days in df.groupby("Outlook")["PlayTennis"]:
    counts = days.value_counts().to_dict()
    h = quercus.entropy(days)
    print(f"Outlook = {value:8s} {len(days)} days {counts}  H = {h:.3f}")
remainder = quercus.conditional_entropy(df["Outlook"], y)
print(f"H(PlayTennis | Outlook) = {remainder:.3f}")
print(
    f"Gain(Outlook) = {quercus.entropy(y):.3f} - {remainder:.3f} = "
    f"{quercus.information_gain(df['Outlook'], y):.3f}"
)

# %%
# Every attribute at once
# -----------------------
# :func:`quercus.gain_table` computes the gain, split information and gain ratio of every
# attribute, best first. Outlook wins, so it becomes the root.

table = quercus.gain_table(df, "PlayTennis")
print(table[["information_gain", "split_information", "gain_ratio"]].round(3).to_string())

fig, ax = plt.subplots(figsize=(6, 2.6), layout="constrained")
gains = table["information_gain"][::-1]  # the best at the top
ax.barh(gains.index, gains.to_numpy())
for k, gain in enumerate(gains):
    ax.annotate(f"{gain:.3f}", (gain, k), textcoords="offset points", xytext=(4, -4))
ax.set_xlabel("information gain (bits)")
ax.set_title("Choosing the root of PlayTennis")

# %%
# The ID3 tree
# ------------
# ID3 repeats the choice in every branch. Below Sunny, Humidity separates the classes
# completely (gain 0.971); below Rain, Wind does. ``fit(..., trace=True)`` keeps every
# candidate of every node, so the whole hand computation can be printed.

X = df.drop(columns="PlayTennis")
tree = quercus.ID3Classifier().fit(X, y, trace=True)
print(tree.export_text())
print(
    f"depth {tree.get_depth()}, {tree.get_n_leaves()} leaves, "
    f"training accuracy {tree.score(X, y):.2f}"
)

# %%
# :func:`quercus.plot.plot_tree` draws it, each node with a bar of its days' classes:

fig, ax = plt.subplots(figsize=(7.5, 3.8))
plot_tree(tree, ax=ax)

# %%
print(tree.trace_)

# %%
# The tree as rules
# -----------------
# Each leaf is one rule: the conditions on its path and the class it predicts.

print(tree.export_rules())

# %%
# And one day explained along its path:

print(tree.explain(X.iloc[0]))
