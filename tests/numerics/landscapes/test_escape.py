"""numerics.landscapes.escape: escape-time records of S¹ landscapes say whether the Eyring-Kramers law
applies at their temperature."""

from contrastive_bounds.numerics.landscapes._escape import circle_escape_times
from contrastive_bounds.numerics.landscapes._registry import get_landscape


def test_escape_records_carry_the_regime():
    """At T >> ΔV the exact/Kramers ratio is far from 1 (5.8e-6): the record says 'outside'."""
    land = get_landscape("double-well")
    (hot,) = circle_escape_times(land, 1e6)
    assert hot.regime == "outside" and hot.ratio < 1e-4
    (cold,) = circle_escape_times(land, 0.1)
    assert cold.regime == "asymptotic" and abs(cold.ratio - 1) < 0.05
