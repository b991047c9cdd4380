"""C4.5's and J48's pessimistic error estimates against their published test vectors."""

import pytest

from quercus.pruning import added_errors, c45_deviate

# (n, e) -> AddErrs at CF = 25 %, from REFERENCE-FACTS (C4.5 release 8 and Weka's Stats).
C45 = {
    (2, 0): 1.0000,
    (3, 0): 1.1101,
    (4, 0): 1.1716,
    (6, 0): 1.2378,
    (14, 5): 1.7950,
    (16, 1): 1.5069,
    (100, 10): 2.8147,
    (10, 0.5): 1.3676,
    (5, 4.6): 0.2680,
}
J48 = {(14, 5): 1.7611, (16, 1): 1.4757, (100, 10): 2.7496, (5, 4.6): 0.4000}


@pytest.mark.parametrize(("case", "expected"), sorted(C45.items()))
def test_c45_vectors(case, expected):
    assert added_errors(*case, cf=0.25, variant="c45") == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize(("case", "expected"), sorted(J48.items()))
def test_j48_vectors(case, expected):
    assert added_errors(*case, cf=0.25, variant="j48") == pytest.approx(expected, abs=5e-5)


def test_deviates():
    assert c45_deviate(0.25) == pytest.approx(0.6925)
    assert c45_deviate(0.25) ** 2 == pytest.approx(0.47956, abs=1e-5)
    assert c45_deviate(0.05) == pytest.approx(1.65)


def test_no_error_bound_is_shared_and_monotone():
    # Zero errors: both variants use the exact bound n (1 - cf^(1/n)).
    for n in (1, 2, 5, 40):
        assert added_errors(n, 0, variant="c45") == pytest.approx(added_errors(n, 0))
    # More confidence (smaller cf) adds more errors; more cases add more (absolute) errors.
    assert added_errors(20, 3, cf=0.1) > added_errors(20, 3, cf=0.25) > added_errors(20, 3, 0.5)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="refuses a confidence above 0.5"):
        added_errors(10, 1, cf=0.6, variant="j48")
    with pytest.raises(ValueError, match="confidence must be in"):
        added_errors(10, 1, cf=0.0)
    with pytest.raises(ValueError, match="errors <= cases"):
        added_errors(3, 5)
    with pytest.raises(ValueError, match="variant"):
        added_errors(3, 1, variant="c50")
