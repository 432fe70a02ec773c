"""Eyring-Kramers data of a network trap modulo symmetry (numerics.landscapes.network_kramers; A5, A9).

The landscape is decoupled InfoNCE, N = 4 points on S¹, pairs (0,1), (2,3), tau = 0.1 (H* = 0.2819): on
S¹ every configuration is four angles, so the Hessian off the rotation mode is recomputed here from an
independent numpy implementation of the loss by central finite differences in the angles (arc length
is the unit-sphere metric), and the prefactor against theory.kramers.eyring_kramers_log_time.
"""

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.kramers_curvature import orbit_volume_density
from contrastive_bounds.numerics.landscapes.network_kramers import (
    euler_step_log_rate_bias,
    network_trap,
    random_rotations,
    trap_starts,
)
from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, network_for
from contrastive_bounds.theory._kramers import eyring_kramers_log_time

TAU = 0.1


@pytest.fixture(scope="module")
def n4():
    spec = infonce_spec(4, 2, TAU)
    res = network_for(spec, SearchSettings(starts=128))
    return spec, res, network_trap(res, spec)


@pytest.mark.slow
def test_trap_of_infonce_n4_is_non_degenerate_with_independent_hessians(n4, infonce_circle_reference):
    """The trap (V = 1/tau + log 2: both pairs split antipodally) and its escape saddle: eigenvalues off the
    rotation mode equal the finite-difference Hessian of an independent implementation (1e-5 relative)."""
    spec, res, trap = n4
    assert trap.non_degenerate and trap.direct_to_global, trap.prefactor_reason
    assert trap.energy == pytest.approx(1 / TAU + math.log(2), rel=1e-12)
    assert trap.barrier == pytest.approx(res.critical_height, rel=1e-14)
    np.testing.assert_allclose(trap.eigenvalues, infonce_circle_reference.hessian_off_rotation(trap.z), rtol=1e-5)
    sad = trap.saddles[0]
    ts = next(t for t in res.transition_states if t.id == sad.ts)
    np.testing.assert_allclose(sad.eigenvalues, infonce_circle_reference.hessian_off_rotation(ts.z), rtol=1e-5, atol=1e-6)
    assert sad.eigenvalues[0] < 0 < sad.eigenvalues[1]


def test_prefactor_equals_the_bovier_gayrard_klein_formula_times_saddle_copies(n4):
    """log tau from the trap = theory.kramers.eyring_kramers_log_time (an independent implementation of the
    BGK formula) minus log of the saddle copies n_s and the orbit-volume ratio (1 on S¹: omega = sqrt(N))."""
    _, _, trap = n4
    sad = trap.saddles[0]
    assert trap.orbit_density == pytest.approx(2.0) and sad.orbit_density == pytest.approx(2.0)
    assert sad.count == pytest.approx(4.0)
    for temp in (0.03, 0.06, 0.1):
        bgk = eyring_kramers_log_time([sad.barrier], trap.eigenvalues, [sad.eigenvalues], temp)
        assert trap.log_escape_time(temp) == pytest.approx(bgk - math.log(sad.count), rel=1e-12, abs=1e-12)


def test_euler_bias_is_half_h_times_the_trace_difference(n4):
    """b1 = (h/2)(tr H(trap) - tr H(saddle)) off the symmetry modes; linear in h."""
    _, _, trap = n4
    b = euler_step_log_rate_bias(trap, 0.002)
    assert b == pytest.approx(0.001 * (sum(trap.eigenvalues) - sum(trap.saddles[0].eigenvalues)), rel=1e-12)
    assert euler_step_log_rate_bias(trap, 0.004) == pytest.approx(2 * b, rel=1e-12)
    with pytest.raises(ValueError, match="step_size"):
        euler_step_log_rate_bias(trap, -1.0)


def test_orbit_volume_density_and_dimension():
    """d = 2, rank 2: omega = sqrt(N), one orbit dimension; d = 3, planar (rank 2 = d - 1): the orbit has
    dimension 3 and the reflection across the plane halves omega."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(5, 2))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    assert orbit_volume_density(z) == (pytest.approx(math.sqrt(5)), 2, 1)
    planar = np.concatenate([z, np.zeros((5, 1))], axis=1)
    omega, rank, dim = orbit_volume_density(planar)
    assert (rank, dim) == (2, 3)
    full = rng.normal(size=(5, 3))
    full /= np.linalg.norm(full, axis=1, keepdims=True)
    assert orbit_volume_density(full)[1:] == (3, 3)
    gens = []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        f = np.zeros_like(planar)
        f[:, a], f[:, b] = planar[:, b], -planar[:, a]
        gens.append(f.ravel())
    assert omega == pytest.approx(math.sqrt(np.linalg.det(np.array(gens) @ np.array(gens).T)) / 2, rel=1e-10)


def test_random_rotations_are_orthogonal_of_both_signs_and_keep_the_gram_matrix():
    """Haar O(d): orthogonal, both determinants occur; trap_starts keep every Gram matrix."""
    q = random_rotations(np.random.default_rng(1), 200, 3)
    np.testing.assert_allclose(np.einsum("cij,ckj->cik", q, q), np.broadcast_to(np.eye(3), q.shape), atol=1e-12)
    dets = np.linalg.det(q)
    assert np.any(dets > 0) and np.any(dets < 0)
    z = np.eye(3)[:2]
    starts = trap_starts(z, 16, 5)
    np.testing.assert_allclose(np.einsum("cnd,cmd->cnm", starts, starts), np.broadcast_to(z @ z.T, (16, 2, 2)), atol=1e-12)
    with pytest.raises(ValueError, match="unit rows"):
        trap_starts(2 * z, 4, 0)
