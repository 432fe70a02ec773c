"""The Riemannian Hessian of (S^{d-1})^N with its Weingarten term, and the O(d) orbit dimension (A9)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network.orbits import orbit_generators, orbit_projector, remove_orbit
from contrastive_bounds.numerics.landscapes.network.verify import orbit_dimension_formula
from contrastive_bounds.numerics._sphere import exp_map, riemannian_hessian, tangent_basis


def _potential(z):
    """A generic smooth potential on (S^2)^3 (no symmetry): the Weingarten term is not zero here."""
    a = jnp.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5], [-0.8, 0.9, 0.2]])
    return jnp.sum(a * z) + jnp.sum((z @ z.T) ** 3) + jnp.sin(z[0] @ z[1]) * z[2, 1]


def _unit(rng, n, d):
    z = rng.normal(size=(n, d))
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


@pytest.mark.slow
def test_riemannian_hessian_is_the_second_derivative_along_geodesics():
    """<a, Hess a> must equal d²/dt² V(exp_z(t·Qa)) at t = 0 (geodesics have no covariant acceleration),
    computed by JAX through the sphere's exponential map (numerics.sphere.exp_map, independent code);
    dropping the Weingarten term must break the agreement."""
    rng = np.random.default_rng(3)
    z = jnp.asarray(_unit(rng, 3, 3))
    e = jax.grad(_potential)(z)
    h = jax.hessian(_potential)(z).reshape(9, 9)
    q = tangent_basis(z)
    assert np.allclose(np.asarray(q.T @ q), np.eye(6), atol=1e-14)
    assert np.max(np.abs(np.asarray(jnp.einsum("kd,kdj->kj", z, q.reshape(3, 3, 6))))) < 1e-14
    hess = np.asarray(riemannian_hessian(h, z, e, q))
    no_weingarten = np.asarray(q.T @ h @ q)
    second_derivative = jax.jit(lambda u: jax.grad(jax.grad(lambda t: _potential(exp_map(z, t * u))))(0.0))
    for _ in range(5):
        a = rng.normal(size=6)
        second = second_derivative((q @ jnp.asarray(a)).reshape(3, 3))
        assert a @ hess @ a == pytest.approx(float(second), rel=1e-11, abs=1e-11)
        assert abs(a @ no_weingarten @ a - float(second)) > 1e-3


@pytest.mark.parametrize("d", [2, 3, 4, 5])
@pytest.mark.slow
def test_orbit_dimension_is_r_d_minus_r_r_plus_1_over_2(d):
    """The numerical rank of the generators (A z_i) equals dim O(d) − dim O(d − r) = r·d − r(r+1)/2 for
    configurations of every rank r (points spread in a random r-dimensional subspace)."""
    rng = np.random.default_rng(d)
    n = 6
    rank_of = jax.jit(lambda z: orbit_projector(z, tangent_basis(z), True)[1])
    for r in range(1, min(n, d) + 1):
        basis = np.linalg.qr(rng.normal(size=(d, d)))[0][:, :r]
        z = _unit(rng, n, r) @ basis.T
        rank = rank_of(jnp.asarray(z))
        expected = r * d - r * (r + 1) // 2
        assert int(rank) == expected == orbit_dimension_formula(z)
        assert orbit_generators(jnp.asarray(z)).shape == (d * (d - 1) // 2, n * d)


def test_remove_orbit_leaves_no_rotation_component():
    """After remove_orbit, a vector has no component along any generator field A z (so band images
    cannot slide along the orbit); a vector orthogonal to the orbit is unchanged."""
    rng = np.random.default_rng(0)
    z = jnp.asarray(_unit(rng, 5, 4))
    v = jnp.asarray(rng.normal(size=(5, 4)))
    strip = jax.jit(remove_orbit)
    w = strip(z, v)
    gens = np.asarray(orbit_generators(z))
    assert np.max(np.abs(gens @ np.asarray(w).reshape(-1))) < 1e-12
    assert np.allclose(np.asarray(strip(z, w)), np.asarray(w), atol=1e-13)
