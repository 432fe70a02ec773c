"""The analytic deflation removes exactly the O(d) rotation modes, at every rank (A9)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree import deflation
from contrastive_bounds.numerics.landscapes.hessfree.deflation import (
    deflate,
    orbit_component,
    orbit_dimension,
    orbit_frame,
    orbit_modes,
)
from contrastive_bounds.numerics.landscapes.network import orbits


def _projector(z, orthogonal=True):
    """The deflation as an explicit (N·d)² matrix (small sizes only)."""
    n, d = z.shape
    frame = orbit_frame(jnp.asarray(z), orthogonal)
    cols = jax.vmap(lambda e: deflate(frame, jnp.asarray(z), e.reshape(n, d)).reshape(-1))(jnp.eye(n * d))
    return np.asarray(cols).T, frame


def _rank_r_configuration(rng, n, d, r):
    basis = np.linalg.qr(rng.normal(size=(d, d)))[0][:, :r]
    x = rng.normal(size=(n, r))
    z = (x / np.linalg.norm(x, axis=1, keepdims=True)) @ basis.T
    return z / np.linalg.norm(z, axis=1, keepdims=True)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_deflation_is_the_projector_off_normals_and_rotation_generators(ref, d):
    """At configurations of every rank r: D is symmetric and idempotent, annihilates every rotation generator
    field (A z_i) (written out in the test) and every normal direction, keeps every tangent vector orthogonal
    to the generators, and its rank is N(d−1) − (r·d − r(r+1)/2); orbit_dimension gives r·d − r(r+1)/2."""
    rng = np.random.default_rng(d)
    n = 6
    for r in range(1, min(n, d) + 1):
        z = _rank_r_configuration(rng, n, d, r)
        p, frame = _projector(z)
        assert np.max(np.abs(p - p.T)) < 1e-13 and np.max(np.abs(p @ p - p)) < 1e-13
        gens = ref.rotation_generators(z)
        assert np.max(np.abs(p @ gens.T)) < 1e-12
        normals = np.zeros((n, n * d))
        for i in range(n):
            normals[i, i * d:(i + 1) * d] = z[i]
        assert np.max(np.abs(p @ normals.T)) < 1e-13
        expected = r * d - r * (r + 1) // 2
        assert int(orbit_dimension(frame)) == expected
        assert int(round(np.trace(p))) == n * (d - 1) - expected
        # a tangent vector orthogonal to every generator is unchanged
        excluded = np.concatenate([normals, gens])
        u, s, _ = np.linalg.svd(excluded.T, full_matrices=True)
        keep = u[:, int(np.sum(s > 1e-8)):]
        w = keep @ rng.normal(size=keep.shape[1])
        assert np.max(np.abs(p @ w - w)) < 1e-12


def test_orbit_component_is_the_least_squares_rotation_field(ref):
    """orbit_component(u) equals the orthogonal projection of u onto the span of the generator fields
    (least squares against the written-out generators), and orbit_modes are orthonormal fields in that span."""
    rng = np.random.default_rng(11)
    n, d = 7, 4
    z = ref.unit_rows(rng, n, d)
    frame = orbit_frame(jnp.asarray(z))
    u = rng.normal(size=(n, d))
    u -= np.sum(u * z, axis=1, keepdims=True) * z
    gens = ref.rotation_generators(z)
    coef, *_ = np.linalg.lstsq(gens.T, u.reshape(-1), rcond=None)
    expected = gens.T @ coef
    got = np.asarray(orbit_component(frame, jnp.asarray(z), jnp.asarray(u))).reshape(-1)
    assert np.max(np.abs(got - expected)) < 1e-12
    pairs = np.array([(a, b) for a in range(d) for b in range(a + 1, d)])
    fields = np.asarray(orbit_modes(frame, jnp.asarray(z), jnp.asarray(pairs))).reshape(len(pairs), -1)
    assert np.allclose(fields @ fields.T, np.eye(len(pairs)), atol=1e-12)
    resid = fields.T - gens.T @ np.linalg.lstsq(gens.T, fields.T, rcond=None)[0]
    assert np.max(np.abs(resid)) < 1e-12


def test_no_symmetry_deflates_only_normals_and_rank_rule_matches_the_network():
    """orthogonal=False removes only the normal directions (rank N(d−1)); the rank tolerance is the dense
    network's ORBIT_RANK_RTOL (one rule for both paths)."""
    rng = np.random.default_rng(1)
    z = _rank_r_configuration(rng, 5, 3, 3)
    p, frame = _projector(z, orthogonal=False)
    assert int(orbit_dimension(frame)) == 0 and int(round(np.trace(p))) == 5 * 2
    assert deflation.ORBIT_RANK_RTOL == orbits.ORBIT_RANK_RTOL


@pytest.mark.slow
def test_deflation_never_forms_a_generator_gram_at_d_128():
    """At N = 256, d = 128 (8 128 generators) the deflation of a vector runs on d × d arrays: no array in its
    jaxpr has as many as d(d−1)/2 · N·d entries (the generator matrix) or (d(d−1)/2)² (their Gram)."""
    n, d = 256, 128
    z = jax.ShapeDtypeStruct((n, d), jnp.float64)
    jaxpr = jax.make_jaxpr(lambda z, u: deflate(orbit_frame(z), z, u))(z, z)
    sizes = [int(np.prod(v.aval.shape)) for eqn in jaxpr.jaxpr.eqns for v in eqn.outvars]
    assert max(sizes) == n * d
    assert max(sizes) < (d * (d - 1) // 2) ** 2
