"""properties.stats: Holm's step-down correction and the exact binomial upper tail, against hand
computations."""

from __future__ import annotations

import pytest

from contrastive_bounds.properties._stats import binomial_upper_p, holm


def test_holm_matches_hand_computation():
    """Holm's procedure rejects exactly the hypotheses a hand computation rejects, stops at the first
    acceptance, and refuses p-values outside [0, 1]."""
    # p sorted: 0.001 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2 -> stop
    assert holm([0.03, 0.001, 0.5, 0.01], 0.05) == [False, True, False, True]
    assert holm([], 0.05) == []
    with pytest.raises(ValueError, match="p_values"):
        holm([1.5], 0.05)


def test_binomial_upper_p_exact():
    """P(X >= k) for a binomial equals the exact value (4/8 for k = 2, n = 3, p = 1/2) and is 1 at k = 0."""
    # P(X >= 2 | n=3, p=0.5) = 4/8
    assert binomial_upper_p(2, 3, 0.5) == pytest.approx(0.5, rel=1e-12)
    assert binomial_upper_p(0, 10, 0.3) == 1.0

