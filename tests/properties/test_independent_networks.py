"""The second implementations the network check compares with (properties/checks/_independent_networks.py) give
closed-form values: the Hessian off the O(d) orbit of a two-point potential, orbit volumes from the generator fields,
multiplicities of symmetric and generic configurations, the prefactor in one dimension and the closure's direction
count; so a disagreement in check A9.s2_trap_network points at the network, not at its referee."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import contrastive_bounds.properties.checks._independent_networks as ind
from contrastive_bounds.properties.checks._independent_landscapes import infonce_energy

PAIRS = [(0, 1), (2, 3), (4, 5)]
CROSS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float64)


@pytest.mark.parametrize("c", [1.5, -0.5])
def test_two_antipodal_points_have_the_closed_form_spectrum_off_their_orbit(c):
    """V = c z_0·z_1 on S² at z_1 = −z_0: V(exp(u)) = c(−1 + |u_0 + u_1|²/2) + O(u⁴), so off the 2-dimensional orbit
    (u_1 = −u_0) the eigenvalues are 2c, 2c; index 0 for c > 0 and 2 for c < 0; the gradient vanishes."""
    z = np.array([[0.6, 0.0, 0.8], [-0.6, 0.0, -0.8]])
    cs = ind.critical_spectrum(lambda x: c * float(x[0] @ x[1]), z)
    assert cs.orbit_dim == cs.orbit_dim_formula == 2 and cs.zero_modes == 0
    assert cs.eigenvalues == pytest.approx([2 * c, 2 * c], abs=1e-9) and cs.gradient_norm < 1e-9
    assert cs.index == (0 if c > 0 else 2)


def test_the_infonce_trap_is_a_critical_point_with_its_closed_form_energy():
    """The three pairs split antipodally along orthogonal axes (docs/reference-values.md C15): V = 1/τ + ln 4, a
    critical point, positive definite off the 3 rotation modes, with degenerate eigenspaces of dimension 3."""
    energy = lambda z: infonce_energy(z, 0.1, PAIRS)  # noqa: E731
    assert energy(CROSS) == pytest.approx(10 + math.log(4), abs=1e-12)
    cs = ind.critical_spectrum(energy, CROSS)
    assert cs.gradient_norm < 1e-9 and cs.index == 0 and cs.zero_modes == 0 and cs.orbit_dim == 3
    assert cs.eigenvalues == pytest.approx([10 / 3] * 3 + [25 / 3] * 3 + [100 / 3] * 3, rel=1e-7)
    assert ind.following_directions(cs.eigenvalues) == 9 + 3 * 6


def test_orbit_volumes_equal_the_generator_fields_singular_values():
    """ω = Π sqrt(μ_a + μ_b) (μ: eigenvalues of zᵀz) against the product of the singular values of the generator
    fields computed directly, at rank d (cross-polytope: zᵀz = 2I, ω = 8) and at rank d − 1 (halved)."""
    def direct(z):
        d = z.shape[1]
        rows = []
        for a, b in itertools.combinations(range(d), 2):
            f = np.zeros_like(z)
            f[:, a], f[:, b] = z[:, b], -z[:, a]
            rows.append(f.reshape(-1))
        s = np.linalg.svd(np.stack(rows), compute_uv=False)
        return float(np.prod(s[s > 1e-9]))

    assert ind.orbit_volume(CROSS) == (pytest.approx(8.0, rel=1e-14), 3)
    rng = np.random.default_rng(3)
    generic = rng.normal(size=(5, 3))
    generic /= np.linalg.norm(generic, axis=1, keepdims=True)
    assert ind.orbit_volume(generic)[0] == pytest.approx(direct(generic), rel=1e-12)
    flat = np.column_stack([np.cos([0.1, 1.0, 2.5, 4.0]), np.sin([0.1, 1.0, 2.5, 4.0]), np.zeros(4)])
    omega, rank = ind.orbit_volume(flat)
    assert rank == 2 and omega == pytest.approx(direct(flat) / 2, rel=1e-12)


def test_multiplicities_by_gram_matrices():
    """48 pair-preserving permutations of 3 pairs; the cross-polytope and the collapsed pairs on an equilateral
    triangle are one copy each; a generic configuration has 48; one split pair among collapsed ones has 3."""
    perms = ind.pair_permutations(6, PAIRS)
    assert len(perms) == 48 and (1, 0, 2, 3, 4, 5) in perms and (0, 2, 1, 3, 4, 5) not in perms
    assert ind.multiplicity_by_gram(CROSS, perms) == 1
    tri = np.array([[np.cos(a), np.sin(a), 0.0] for a in (0, 0, 2 * np.pi / 3, 2 * np.pi / 3, 4 * np.pi / 3, 4 * np.pi / 3)])
    assert ind.multiplicity_by_gram(tri, perms) == 1
    rng = np.random.default_rng(0)
    assert ind.multiplicity_by_gram(rng.normal(size=(6, 3)), perms) == 48
    one_split = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=float)
    assert ind.multiplicity_by_gram(one_split, perms) == 3
    with pytest.raises(ValueError, match="num_points"):
        ind.pair_permutations(12, PAIRS)


def test_prefactor_in_one_dimension_and_the_direction_rule():
    """One mode each: log(|λ_s|/(2π)·sqrt(λ_x/|λ_s|)) = log(sqrt(λ_x |λ_s|)/(2π)); copies and orbit volumes enter
    as factors. Directions: each mode, plus 2 per pair inside eigenspaces of dimension <= 3, 2k for k > 3."""
    assert ind.eyring_kramers_log_prefactor(1, [-2.0], [3.0], 1.0, 1.0) == pytest.approx(math.log(math.sqrt(6) / (2 * math.pi)))
    assert ind.eyring_kramers_log_prefactor(6, [-2.0], [3.0], 2.0, 4.0) == pytest.approx(
        math.log(6 * math.sqrt(6) / (2 * math.pi) / 2))
    with pytest.raises(ValueError, match="exactly one negative"):
        ind.eyring_kramers_log_prefactor(1, [-2.0, -1.0], [3.0, 1.0], 1.0, 1.0)
    assert [ind.following_directions(x) for x in ([1, 2, 3], [1, 1], [1, 1, 1], [1, 1, 1, 1], [5, 5, 5, 5, 5, 9])] == \
        [3, 4, 9, 12, 16]
