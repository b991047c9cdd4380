"""One example's way through the tree, in words, with the training cases at each step.

```
At the root: 14 samples: No 5, Yes 9
1. Outlook is Sunny, so Outlook = Sunny: 5 samples: No 3, Yes 2
2. Humidity is High, so Humidity = High: 3 samples: No 3
Prediction: No (probability 1)
```
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._config import NUMERIC_SPLIT, OBLIQUE_SPLIT
from ._common import (
    children,
    conditions,
    distribution_text,
    fitted_tree,
    is_leaf,
    number,
    printed_names,
    tested,
)


def _one_row(estimator, x) -> pd.DataFrame:
    """``x`` (mapping, Series, one-row DataFrame or 1-D sequence) as a one-row frame."""
    names = estimator.schema_.names
    if isinstance(x, pd.DataFrame):
        if len(x) != 1:
            raise ValueError(f"explain takes one example, got {len(x)} rows")
        return x
    if isinstance(x, pd.Series):
        return x.to_frame().T
    if isinstance(x, dict):
        return pd.DataFrame([x])
    values = np.asarray(x, dtype=object)
    if values.ndim == 2 and values.shape[0] == 1:
        values = values[0]
    if values.ndim != 1 or len(values) != len(names):
        raise ValueError(
            f"explain takes one example with {len(names)} values ({names}), got shape {np.shape(x)}"
        )
    return pd.DataFrame([list(values)], columns=names)


def _value_text(estimator, f: int, code: float, decimals: int) -> str:
    feature = estimator.schema_.features[f]
    if math.isnan(code):
        return "missing"
    if feature.categories is not None:
        return str(feature.categories[int(code)])
    return number(code, max(decimals, 6))


def explain(estimator, x, *, decimals: int = 2) -> str:
    """The decision path of one example ``x`` in words, each step with the distribution of
    the training cases that reached it, and the prediction."""
    # Reading a model needs no scikit-learn (``quercus show``): imported when explaining.
    from ..estimators.validate import predict_matrix

    tree = fitted_tree(estimator)
    names = printed_names(estimator, None)
    row = predict_matrix(estimator, _one_row(estimator, x))[0]
    lines = [f"At the root: {distribution_text(estimator, 0, decimals)}"]
    node, step = 0, 0
    while not is_leaf(tree, node):
        step += 1
        f = int(tree.feature[node])
        code = row[f]
        kids = children(tree, node)
        branch_conditions = conditions(estimator, node, names)
        if tree.kind[node] == OBLIQUE_SPLIT:
            code, f = _weighted_sum(tree, node, row), -1
        if math.isnan(code):
            index = int(tree.missing_child[node])
            if tree.fractional:
                shares = tree.weighted_n_node_samples[kids]
                shares = shares / shares.sum() if shares.sum() > 0 else shares
                split = ", ".join(
                    f"{c} {number(s, decimals)}"
                    for c, s in zip(branch_conditions, shares, strict=True)
                )
                how = (
                    f"{names[f]} is missing, so the example goes down every branch with its "
                    f"share of the training weight ({split}); followed here: the largest, "
                )
            else:
                what = tested(tree, node, names) if f < 0 else names[f]
                how = f"{what} is missing, so it takes the branch for missing values, "
        elif f < 0:  # an oblique split: its sum, worked out
            index = 0 if code <= tree.threshold[node] else 1
            how = f"{tested(tree, node, names)} = {number(code, max(decimals, 6))}, so "
        else:
            if tree.kind[node] == NUMERIC_SPLIT:
                index = 0 if code <= tree.threshold[node] else 1
            else:
                index = int(tree.category_branches(node, [int(code)])[0])
            how = f"{names[f]} is {_value_text(estimator, f, code, decimals)}, so "
        node = kids[index]
        reached = distribution_text(estimator, node, decimals)
        lines.append(f"{step}. {how}{branch_conditions[index]}: {reached}")
    lines.append(_prediction(estimator, x, decimals))
    return "\n".join(lines) + "\n"


def _weighted_sum(tree, node: int, row: np.ndarray) -> float:
    """An oblique split's sum for ``row`` (NaN when a feature it weighs is missing)."""
    weights = tree.oblique_weights(node)
    used = np.flatnonzero(weights)
    return float(weights[used] @ row[used])


def _prediction(estimator, x, decimals: int) -> str:
    from ..estimators.validate import predict_matrix

    frame = _one_row(estimator, x)
    if estimator.tree_.regression:
        return f"Prediction: {number(estimator.predict(frame)[0], decimals)}"
    proba = estimator.predict_proba(frame)[0]
    k = int(np.argmax(proba))
    text = f"Prediction: {estimator.classes_[k]} (probability {number(proba[k], decimals)})"
    if estimator.tree_.fractional and np.isnan(predict_matrix(estimator, frame)).any():
        text += " (the leaves reached mixed by their shares)"
    return text
