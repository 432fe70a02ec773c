"""The radius-R InfoNCE landscape is the tau/R² one (the reading of "curvature" in A8.8, docs/theorems.md A8).

Similarities on the sphere of radius R are R²·cos, so V_R(u) = V_{tau/R²}(u) for unit directions u: the
two networks have the same minima, transition states and H*.
"""

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network


def test_radius_r_potential_equals_the_tau_over_r_squared_potential():
    """N = 4 on S¹ and N = 6 on S², tau = 0.1 at R = sqrt(2) against tau = 0.05 at R = 1: equal potentials at
    random unit directions (1e-13 relative), so every critical point, barrier and H* of one is the other's."""
    rng = np.random.default_rng(0)
    for n, d in ((4, 2), (6, 3)):
        a = infonce_spec(n, d, 0.1, radius=math.sqrt(2.0))
        b = infonce_spec(n, d, 0.05)
        for _ in range(5):
            z = rng.normal(size=(n, d))
            z /= np.linalg.norm(z, axis=1, keepdims=True)
            assert a.energy(z) == pytest.approx(b.energy(z), rel=1e-13)


@pytest.mark.slow
@pytest.mark.heavy(reason="51 s; test_radius_r_potential_equals_the_tau_over_r_squared_potential checks the identity "
                          "the networks rest on in every run")
def test_radius_r_network_equals_the_tau_over_r_squared_network():
    """N = 4 on S¹, tau = 0.1, R = sqrt(2) against tau = 0.05 at R = 1: both searches complete, with equal minima
    energies and H* (1e-10 relative), the barrier higher than at R = 1."""
    a = infonce_spec(4, 2, 0.1, radius=math.sqrt(2.0))
    b = infonce_spec(4, 2, 0.05)
    ra = landscape_network(a, starts=64, seed=0, chunk=8)
    rb = landscape_network(b, starts=64, seed=0, chunk=8)
    assert ra.status == rb.status == "complete"
    assert ra.critical_height == pytest.approx(rb.critical_height, rel=1e-10)
    assert sorted(m.energy for m in ra.minima) == pytest.approx(sorted(m.energy for m in rb.minima), rel=1e-10)
    assert ra.critical_height > 0.2819  # tau/R² = 0.05 < 0.1: the barrier is higher than at R = 1
