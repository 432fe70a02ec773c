"""Hessian–vector products on (S^{d−1})^N against a dense Riemannian Hessian built independently (A9)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree.operators import (
    hessian_vector_product,
    linearized_hessian,
    riemannian_gradient,
    tangent_inner,
)
from contrastive_bounds.numerics._sphere import riemannian_hessian, tangent_basis


CASES = [("infonce", 6, 3), ("infonce", 8, 4), ("generic", 3, 3), ("generic", 5, 2)]


def _potential(ref, name, n):
    return ref.infonce(n, 0.1) if name == "infonce" else ref.generic_potential


@pytest.mark.parametrize("name,n,d", CASES)
def test_hvp_equals_the_dense_riemannian_hessian_times_v(ref, name, n, d):
    """Forward-over-reverse HVP equals (P∇²V P − Weingarten)·v from jax.hessian and the projection formula,
    to 1e-10 relative, for tangent and non-tangent v; dropping the Weingarten term breaks the agreement."""
    rng = np.random.default_rng(n * 10 + d)
    pot = _potential(ref, name, n)
    z = ref.unit_rows(rng, n, d)
    dense = ref.dense_riemannian_hessian(pot, z)
    hvp = jax.jit(lambda z, u: hessian_vector_product(pot, z, u))
    scale = np.max(np.abs(dense))
    for _ in range(4):
        v = rng.normal(size=(n, d))
        got = np.asarray(hvp(jnp.asarray(z), jnp.asarray(v))).reshape(-1)
        assert np.max(np.abs(got - dense @ v.reshape(-1))) <= 1e-10 * scale
    # the reference is sensitive to the curvature term: without it, the products disagree
    g = np.asarray(jax.grad(pot)(jnp.asarray(z)))
    radial = np.repeat(np.sum(z * g, axis=1), d)
    no_weingarten = dense + np.diag(radial) @ _tangent_projector(z)
    v = rng.normal(size=(n, d))
    got = np.asarray(hvp(jnp.asarray(z), jnp.asarray(v))).reshape(-1)
    assert np.max(np.abs(got - no_weingarten @ v.reshape(-1))) > 1e-3 * scale


def _tangent_projector(z):
    n, d = z.shape
    p = np.zeros((n * d, n * d))
    for i in range(n):
        p[i * d:(i + 1) * d, i * d:(i + 1) * d] = np.eye(d) - np.outer(z[i], z[i])
    return p


def test_hvp_matches_the_network_reduced_coordinate_hessian(ref):
    """In the reduced coordinates of numerics.sphere.tangent_basis, Qᵀ(H Q a) equals the dense
    riemannian_hessian (the convention the network verifies with), to 1e-10."""
    rng = np.random.default_rng(5)
    n, d = 6, 3
    pot = ref.infonce(n, 0.2)
    z = jnp.asarray(ref.unit_rows(rng, n, d))
    q = tangent_basis(z)
    e = jax.grad(pot)(z)
    ht = np.asarray(riemannian_hessian(jax.hessian(pot)(z).reshape(n * d, n * d), z, e, q))
    cols = jax.vmap(lambda a: hessian_vector_product(pot, z, (q @ a).reshape(n, d)).reshape(-1))(jnp.eye(q.shape[1]))
    reduced = np.asarray(q.T @ cols.T)
    assert np.max(np.abs(reduced - ht)) <= 1e-10 * np.max(np.abs(ht))


def test_linearized_hvp_gradient_and_symmetry(ref):
    """linearize's closure gives the same products as hessian_vector_product; the gradient is P∇V and tangent;
    the operator is symmetric (<u, Hv> = <Hu, v>) away from critical points."""
    rng = np.random.default_rng(2)
    n, d = 8, 4
    pot = ref.infonce(n, 0.1)
    z = jnp.asarray(ref.unit_rows(rng, n, d))
    value, grad, hvp = linearized_hessian(pot, z)
    v0, g0 = riemannian_gradient(pot, z)
    assert float(value) == pytest.approx(float(pot(z)), abs=1e-13)
    egrad = np.asarray(jax.grad(pot)(z))
    zz = np.asarray(z)
    assert np.allclose(np.asarray(g0), egrad - np.sum(zz * egrad, 1, keepdims=True) * zz, atol=1e-13)
    assert np.max(np.abs(np.sum(np.asarray(grad) * zz, axis=1))) < 1e-13
    u, v = (jnp.asarray(rng.normal(size=(n, d))) for _ in range(2))
    assert np.allclose(np.asarray(hvp(u)), np.asarray(hessian_vector_product(pot, z, u)), atol=1e-12)
    lhs, rhs = float(tangent_inner(u, hvp(v))), float(tangent_inner(hvp(u), v))
    assert lhs == pytest.approx(rhs, rel=1e-12, abs=1e-12)
