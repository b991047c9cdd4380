"""A subset split's final table (``splitting/category_sets.py``): the compiled settling of
a grower's pending tables against its NumPy twin, and routing through both forms."""

import numpy as np
import pytest

from quercus.splitting._category_bits import category_branch, settle_unseen, settled_tables
from quercus.splitting.category_sets import (
    BITSET,
    code_branches,
    pack_sides,
    pending_table,
    subset_table,
    table_sides,
    table_sizes,
)


def _random_sides(rng, n: int) -> np.ndarray:
    """0 or 1 for each of ``n`` categories, -1 for those not seen at the node: few or
    many seen, leaning to either branch."""
    sides = (rng.random(n) < rng.random()).astype(np.int64)
    sides[rng.random(n) < rng.choice([0.0, 0.5, 0.99])] = -1
    return sides


@pytest.mark.parametrize("n", [2, 3, 31, 32, 33, 64, 100, 1_000, 20_000])
def test_settled_tables_are_their_numpy_twin(n):
    """The compiled grower settles each pending table (unseen categories sent to the
    heaviest branch) into the same words as ``subset_table`` makes of the same sides: the
    list of the branch with fewer categories when they are fewer than the bitset's words,
    else the headed bitset."""
    rng = np.random.default_rng(n)
    tables, starts, expected, n_categories = [], [], [], []
    at = 0
    for _ in range(12):
        sides = _random_sides(rng, n)
        heaviest = int(rng.integers(2))
        pending = pending_table(sides)
        settle_unseen(pending, 0, n, heaviest)
        tables.append(pending)
        starts.append(at)
        at += len(pending)
        settled = sides.copy()
        settled[settled < 0] = heaviest
        expected.append(subset_table(settled))
        n_categories.append(n)
    table = np.concatenate(tables).astype(np.int32)
    subset = np.ones(len(starts), dtype=np.bool_)
    out, new_starts = settled_tables(
        table, np.array(starts, dtype=np.int32), subset, np.array(n_categories, dtype=np.int64)
    )
    np.testing.assert_array_equal(out, np.concatenate(expected))
    sizes = table_sizes(out, new_starts, n_categories)
    np.testing.assert_array_equal(sizes, [len(e) for e in expected])
    assert (np.diff(new_starts) == sizes[:-1]).all()


@pytest.mark.parametrize("n", [2, 5, 33, 1_000])
def test_both_forms_route_every_category_alike(n):
    """The same sides in a headed bitset and in a list of either branch: every category
    takes the same branch through the compiled routing and through the NumPy twin."""
    rng = np.random.default_rng(n)
    for _ in range(20):
        sides = (rng.random(n) < rng.random()).astype(np.int64)
        side = int(rng.integers(2))
        listed = np.flatnonzero(sides == side)
        forms = [
            np.concatenate([[BITSET], pack_sides(sides)]),
            np.concatenate([[2 * len(listed) + side], listed]),
        ]
        for form in forms:
            table = np.concatenate([[7, 7], form]).astype(np.int32)  # a table at word 2
            np.testing.assert_array_equal(table_sides(table, 2, n), sides)
            np.testing.assert_array_equal(code_branches(False, table, 2, np.arange(n)), sides)
            compiled = [category_branch(False, table, 2, c) for c in range(n)]
            np.testing.assert_array_equal(compiled, sides)
