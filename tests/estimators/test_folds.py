"""The folds of ccp_alpha="cv" and quercus cv: scikit-learn's, and one warning or error."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from quercus.estimators.folds import FoldsError, cv_folds


def test_folds_are_scikit_learns_shuffled_folds():
    labels = np.array(["a"] * 12 + ["b"] * 8)
    ours = cv_folds(4, 3, n_rows=20, classes=labels)
    theirs = StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros((20, 1)), labels)
    for (train, test), (train_sk, test_sk) in zip(ours, theirs, strict=True):
        assert np.array_equal(train, train_sk) and np.array_equal(test, test_sk)
    plain = KFold(5, shuffle=True, random_state=1).split(np.zeros((20, 1)))
    for (_, test), (_, test_sk) in zip(cv_folds(5, 1, n_rows=20), plain, strict=True):
        assert np.array_equal(test, test_sk)


def test_a_small_class_is_one_warning_in_quercus_words():
    labels = np.array([1] * 15 + [2] * 3 + [3] * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        folds = cv_folds(5, 0, n_rows=20, classes=labels, context="cv")
    assert [str(w.message) for w in caught] == [
        "cv: class 3 has only 2 rows (and 1 more class), fewer than the 5 folds: some folds "
        "have none of it"
    ]
    assert len(folds) == 5
    assert sorted(np.concatenate([test for _, test in folds]).tolist()) == list(range(20))


@pytest.mark.parametrize(
    ("n_rows", "labels", "message", "most"),
    [
        (4, None, "5 folds need at least 5 rows, got 4", 4),
        (8, ["x", "y"] * 4, "the largest, 'x', has 4", 4),
    ],
)
def test_data_that_cannot_be_cut(n_rows, labels, message, most):
    with pytest.raises(FoldsError, match=message) as error:
        cv_folds(5, 0, n_rows=n_rows, classes=labels)
    assert error.value.most == most
