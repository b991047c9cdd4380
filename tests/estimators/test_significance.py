"""Chi-square pre-pruning (``significance=``): a split needs a dependent branch-by-class table."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2_contingency

import quercus


@pytest.mark.parametrize(
    "table",
    [
        [[10, 0], [0, 10]],
        [[6, 4], [4, 6]],
        [[9, 3], [4, 8]],
        [[12, 2, 1], [3, 9, 4]],
        [[5, 5, 5], [4, 6, 5]],
        [[7, 1], [5, 3], [1, 7]],
    ],
)
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_split_only_when_scipy_rejects_independence(table, alpha):
    rows = [
        (f"v{i}", k)
        for i, counts in enumerate(table)
        for k, c in enumerate(counts)
        for _ in range(c)
    ]
    frame = pd.DataFrame(rows, columns=["x", "y"])
    est = quercus.ID3Classifier(significance=alpha).fit(frame[["x"]], frame["y"])
    p_value = chi2_contingency(np.asarray(table), correction=False).pvalue
    assert (est.get_n_leaves() > 1) == (p_value < alpha)


def test_noise_is_pre_pruned():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(1000, 5)), rng.integers(0, 2, 1000)
    leaves = [
        quercus.ID3Classifier(significance=a).fit(X, y).get_n_leaves() for a in (None, 0.05, 0.001)
    ]
    assert leaves[0] > leaves[1] > leaves[2]
    with pytest.raises(ValueError, match="significance must be None or in"):
        quercus.ID3Classifier(significance=1.5).fit(X, y)
