"""The folds of a k-fold cross-validation, one policy for ``ccp_alpha="cv"`` and ``quercus
cv``: shuffled and seeded; stratified by class for classification.

As in Weka and scikit-learn, a class with fewer rows than folds is not an error (some folds
then lack it): one warning names it. Only data that cannot be split at all is an error.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

__all__ = ["FoldsError", "cv_folds"]


class FoldsError(ValueError):
    """Data that cannot be cut into the folds asked for; ``most`` is the largest number of
    folds it can be cut into."""

    def __init__(self, message: str, most: int):
        super().__init__(message)
        self.most = most


def _label(value):
    """A class label as Python prints it (``7``, not ``np.int64(7)``)."""
    return value.item() if isinstance(value, np.generic) else value


def cv_folds(
    n_folds: int,
    random_state,
    *,
    n_rows: int,
    classes=None,
    context: str = "",
    stacklevel: int = 2,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` row indices of ``n_folds`` shuffled folds.

    Parameters
    ----------
    n_folds : int
        Number of folds.
    random_state : int, RandomState or None
        Seeds the shuffle.
    n_rows : int
        Number of rows (regression: the folds are scikit-learn's ``KFold``).
    classes : array-like of shape (n_rows,), optional
        Class labels: the folds are stratified (scikit-learn's ``StratifiedKFold``).
    context : str, optional
        What makes the folds, said first in messages (``"ccp_alpha='cv'"``).
    stacklevel : int, default 2
        Where the warning about a small class points, as for ``warnings.warn``.

    Raises
    ------
    FoldsError
        Fewer rows than folds, or (stratified) no class with as many rows as folds.
    """
    said = f"{context}: " if context else ""
    if n_rows < n_folds:
        raise FoldsError(
            f"{said}{n_folds} folds need at least {n_folds} rows, got {n_rows}", n_rows
        )
    if classes is None:
        return list(KFold(n_folds, shuffle=True, random_state=random_state).split(range(n_rows)))
    labels, counts = np.unique(np.asarray(classes), return_counts=True)
    if counts.max() < n_folds:
        largest = int(np.argmax(counts))
        raise FoldsError(
            f"{said}{n_folds} stratified folds need a class with at least {n_folds} rows; "
            f"the largest, {_label(labels[largest])!r}, has {counts[largest]}",
            int(counts.max()),
        )
    small = np.flatnonzero(counts < n_folds)
    if len(small):
        smallest = int(small[np.argmin(counts[small])])
        n_small, more = int(counts[smallest]), len(small) - 1
        others = f" (and {more} more class{'es' * (more > 1)})" if more else ""
        warnings.warn(
            f"{said}class {_label(labels[smallest])!r} has only {n_small} "
            f"row{'s' * (n_small != 1)}"
            f"{others}, fewer than the {n_folds} folds: some folds have none of it",
            UserWarning,
            stacklevel=stacklevel + 1,
        )
    splitter = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    with warnings.catch_warnings():
        # Said above, once, in quercus's words.
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        return list(splitter.split(np.zeros((n_rows, 1)), classes))
