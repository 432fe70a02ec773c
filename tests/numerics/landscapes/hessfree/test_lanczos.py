"""Lanczos lowest eigenpairs against dense eigensolvers and JAX's LOBPCG (A9)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.sparse.linalg import lobpcg_standard

from contrastive_bounds.numerics.landscapes.hessfree.lanczos import lanczos_lowest, lanczos_matvecs
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian, softest_modes


def _matrix_operator(a, shape):
    a = jnp.asarray(a)
    return lambda v: (a @ v.reshape(-1)).reshape(shape)


@pytest.mark.slow
@pytest.mark.parametrize("n,d,k,krylov", [(6, 3, 4, 12), (16, 4, 6, 20), (12, 8, 5, 16)])
def test_softest_modes_equal_the_dense_deflated_spectrum(ref, n, d, k, krylov):
    """The k lowest eigenvalues of the deflated Riemannian Hessian of InfoNCE at a random point equal
    numpy.linalg.eigvalsh of the dense Hessian restricted off the normals and rotation generators (built in
    the test) to 1e-8; explicit residuals are tiny and the modes are orthonormal and deflated. Covers a space
    smaller than the Krylov basis (N = 6, d = 3: 9 dimensions, basis 12) and restarts."""
    rng = np.random.default_rng(n + d)
    pot = ref.infonce(n, 0.1)
    z = ref.unit_rows(rng, n, d)
    dense = ref.deflated_dense_spectrum(pot, z)
    sp = jax.jit(lambda z, key: softest_modes(pot, z, key, k=k, krylov_dim=krylov, tol=1e-12))(
        jnp.asarray(z), jax.random.key(1))
    m = min(k, dense.size)
    assert np.max(np.abs(np.asarray(sp.eigenvalues)[:m] - dense[:m])) < 1e-8
    assert np.all(np.asarray(sp.valid)[:m]) and not np.any(np.asarray(sp.valid)[m:])
    assert np.max(np.asarray(sp.residual_norms)[:m]) < 1e-8
    modes = np.asarray(sp.modes)[:m].reshape(m, -1)
    assert np.allclose(modes @ modes.T, np.eye(m), atol=1e-10)
    gens = ref.rotation_generators(z)
    assert np.max(np.abs(gens @ modes.T)) < 1e-10
    assert np.max(np.abs(np.sum(np.asarray(sp.modes)[:m] * z[None], axis=-1))) < 1e-12


@pytest.mark.slow
def test_degenerate_and_clustered_spectra_locking_and_an_exhausted_space():
    """On a matrix with a known spectrum (a triple eigenvalue at the bottom, a pair 1e-6 apart): every Ritz
    value lies within its residual of a true eigenvalue, the distinct lowest values all appear in order, and
    a run with the first run's copies of the triple eigenvalue locked out finds another copy (one Krylov space
    holds one vector of a degenerate eigenspace: certificates rely on the locked run). A 5-dimensional range
    inside a 40-dimensional space gives exactly its 5 eigenvalues with the rest marked invalid."""
    rng = np.random.default_rng(0)
    n = 60
    q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    spectrum = np.concatenate([[-2.0, -2.0, -2.0, -1.0, -1.0 + 1e-6, 0.5], np.linspace(1.0, 50.0, n - 6)])
    a = (q * spectrum) @ q.T
    shape = (n // 2, 2)
    ident = lambda v: v  # noqa: E731
    res = lanczos_lowest(_matrix_operator(a, shape), ident, jnp.asarray(rng.normal(size=shape)),
                         jax.random.key(3), k=6, krylov_dim=20, max_restarts=80, tol=1e-12)
    lam, r = np.asarray(res.eigenvalues), np.asarray(res.residual_norms)
    assert bool(res.converged) and int(res.matvecs) <= lanczos_matvecs(6, 20, int(res.restarts))
    assert np.all(np.min(np.abs(lam[:, None] - spectrum[None, :]), axis=1) <= r + 1e-10)
    distinct = [v for i, v in enumerate(lam) if i == 0 or v - lam[i - 1] > 1e-9]
    assert np.allclose(distinct[:4], [-2.0, -1.0, -1.0 + 1e-6, 0.5], atol=1e-9)
    copies = int(np.sum(np.abs(lam + 2.0) < 1e-9))
    assert 1 <= copies <= 3
    locked = np.asarray(res.eigenvectors)[:copies].reshape(copies, -1)

    def off_locked(v):
        flat = v.reshape(-1)
        return (flat - jnp.asarray(locked).T @ (jnp.asarray(locked) @ flat)).reshape(shape)

    again = lanczos_lowest(lambda v: off_locked(_matrix_operator(a, shape)(off_locked(v))), off_locked,
                           jnp.asarray(rng.normal(size=shape)), jax.random.key(5), k=2, krylov_dim=20,
                           max_restarts=80, tol=1e-12)
    expected_next = -2.0 if copies < 3 else -1.0
    assert float(again.eigenvalues[0]) == pytest.approx(expected_next, abs=1e-9)
    basis = np.linalg.qr(rng.normal(size=(40, 5)))[0]
    small = (basis * np.array([-3.0, -1.0, 0.25, 2.0, 7.0])) @ basis.T
    proj = jnp.asarray(basis @ basis.T)
    out = lanczos_lowest(_matrix_operator(small, (20, 2)), lambda v: (proj @ v.reshape(-1)).reshape(20, 2),
                         jnp.asarray(rng.normal(size=(20, 2))), jax.random.key(4), k=6, krylov_dim=12)
    assert np.allclose(np.asarray(out.eigenvalues)[:5], [-3.0, -1.0, 0.25, 2.0, 7.0], atol=1e-12)
    assert list(np.asarray(out.valid)) == [True] * 5 + [False]
    with pytest.raises(ValueError, match="k=10 must be in"):
        lanczos_lowest(_matrix_operator(small, (20, 2)), ident, jnp.ones((20, 2)), jax.random.key(0), k=10,
                       krylov_dim=12)


@pytest.mark.slow
def test_lanczos_agrees_with_jax_lobpcg_at_nd_512(ref):
    """At N = 32, d = 16 (N·d = 512) the lowest 4 eigenvalues of the deflated Hessian at a random point agree
    between our Lanczos and jax.experimental.sparse.linalg.lobpcg_standard applied to λ_max·I − H (an
    independent block solver; shift from the dense maximum) to 1e-8."""
    rng = np.random.default_rng(7)
    n, d = 32, 16
    pot = ref.infonce(n, 0.1)
    z = jnp.asarray(ref.unit_rows(rng, n, d))
    op = deflated_hessian(pot, z)
    sp = jax.jit(lambda z, key: softest_modes(pot, z, key, k=4, tol=1e-12))(z, jax.random.key(0))
    top = float(sp.top)
    shift = 1.05 * max(top, 1.0) + 1.0
    shifted = jax.vmap(lambda x: (shift * op.project(x.reshape(n, d)) - op.matvec(x.reshape(n, d))).reshape(-1),
                       in_axes=1, out_axes=1)
    x0 = jnp.stack([op.project(jnp.asarray(rng.normal(size=(n, d)))).reshape(-1) for _ in range(4)], axis=1)
    theta, _, _ = lobpcg_standard(shifted, x0, m=400)
    assert np.allclose(np.sort(shift - np.asarray(theta)), np.asarray(sp.eigenvalues), atol=1e-8)
