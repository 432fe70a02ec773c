"""The check framework (properties.checks.framework and .registry): compare_upper / compare_lower turn a
bound and a measurement into the right verdict, and every theorem of both papers has a registered check."""

from __future__ import annotations

from contrastive_bounds.properties.checks._verdicts import compare_lower, compare_upper


def test_compare_verdicts():
    """holds / violated (beyond float rounding only) / inconclusive (with the samples needed) / vacuous
    verdicts of upper and lower comparisons, with and without intervals."""
    assert compare_upper(1.0, 0.5).verdict == "holds"
    assert compare_upper(1.0, 1.0 + 1e-12).verdict == "holds"  # float rounding only
    assert compare_upper(1.0, 1.01).verdict == "violated"
    o = compare_upper(1.0, 0.9, (0.8, 1.2), samples=100)
    assert o.verdict == "inconclusive" and o.samples_needed > 100
    assert compare_upper(None, 0.3, reason="Delta infinite").verdict == "vacuous"
    assert compare_lower(0.5, 0.4).verdict == "violated"
    assert compare_lower(0.5, 0.6, (0.55, 0.65)).verdict == "holds"


def test_every_theorem_has_a_check():
    """Every theorem of Papers A and B (B2-B8, A1, A3-A6, A8) has at least one registered check."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    ids = set(registered_checks())
    for prefix in ("B2", "B3", "B4", "B5", "B6", "B7", "B8", "A1", "A3", "A4", "A5", "A6", "A8"):
        assert any(i.startswith(prefix) for i in ids), prefix

