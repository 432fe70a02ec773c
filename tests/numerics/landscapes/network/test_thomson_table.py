"""Thomson problem: global minima for N = 2..12 from random starts match the published table (A9).

Reference: D. J. Wales and S. Ulker, Phys. Rev. B 74, 212101 (2006) / Cambridge Cluster Database
(9 decimals, kept in numerics.landscapes.thomson.THOMSON_GLOBAL_MINIMA).
"""

from __future__ import annotations

import math

import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network, thomson_spec
from contrastive_bounds.numerics.landscapes._thomson import THOMSON_GLOBAL_MINIMA

# symmetry orders of the known global minima (point group acting on the points, O(3) incl. reflections)
_POINT_GROUP_ORDER = {2: 2, 3: 6, 4: 24, 6: 48, 12: 120}


@pytest.mark.parametrize("n", sorted(THOMSON_GLOBAL_MINIMA))
@pytest.mark.slow
def test_thomson_global_minimum_matches_the_published_table(n):
    """The lowest minimum of a minima search from 16 random starts (+ 2 hop rounds) equals the table's
    energy to 1e-8 relative, it is a verified minimum (index 0 off the 3 or 2 rotation modes), and for the
    Platonic/antipodal shapes its multiplicity is N!/|point group|."""
    res = landscape_network(thomson_spec(n), transition_states=False, starts=16, hop_batch=8, max_hop_rounds=2,
                            patience=1, chunk=8)
    best = min(res.minima, key=lambda m: m.energy)
    assert abs(best.energy - THOMSON_GLOBAL_MINIMA[n]) <= 1e-8 * THOMSON_GLOBAL_MINIMA[n]
    assert best.verified and best.gradient_norm <= 1e-8
    assert best.orbit_dim == (2 if n == 2 else 3)  # an antipodal pair has rank 1: orbit dimension 1·3 − 1
    assert best.eigenvalues[0] > 0
    if n in _POINT_GROUP_ORDER:
        assert best.multiplicity == math.factorial(n) // _POINT_GROUP_ORDER[n]
    assert res.status == "minima only (no transition-state search)"


@pytest.mark.slow
def test_two_points_search_with_transition_states_saves_and_reads_back(tmp_path):
    """N = 2 with the transition-state phase on: following the antipodal minimum's modes uphill ends where the two
    points coincide (V = +inf); those candidates are rejected, written with energy null (JSON has no inf; the save
    failed with "Out of range float values" before), and the saved search reads back with them as +inf. The only
    minimum is the global one, V = 1/2, and no transition state is verified."""
    import json

    from contrastive_bounds.numerics.landscapes.network import load_saved_search

    res = landscape_network(thomson_spec(2), out=tmp_path / "s", starts=8, chunk=8)
    assert [m.energy for m in res.minima] == [pytest.approx(0.5, rel=1e-12)]
    assert not any(t.verified for t in res.transition_states)
    saved = json.loads((tmp_path / "s" / "network.json").read_text())
    rejected = [t for t in saved["transition_states"] if t["energy"] is None]
    assert rejected and all(not t["verified"] for t in rejected)
    back = load_saved_search(tmp_path / "s")
    assert sum(t.energy == math.inf for t in back.transition_states) == len(rejected)
