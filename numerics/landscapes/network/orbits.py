"""Tangent directions of the ``O(d)`` orbit of a configuration on ``(S^{d−1})^N`` (docs/theorems.md A9).

For an ``O(d)``-invariant potential the orbit ``{R z : R ∈ O(d)}`` through a critical point is a
manifold of critical points; its tangent directions are zero modes of the Hessian that are symmetry,
not curvature. The critical-point code removes them explicitly (the sphere geometry itself — tangent
bases, the Riemannian Hessian, retractions — is :mod:`contrastive_bounds.numerics._sphere`):

* :func:`orbit_generators` — the tangent vectors ``(A z_1, …, A z_N)`` for the ``d(d−1)/2``
  skew-symmetric generators ``A = e_a e_bᵀ − e_b e_aᵀ`` of ``so(d)``: they span the tangent space
  of the orbit, of dimension ``r·d − r(r+1)/2`` for a configuration of rank ``r``;
* :func:`orbit_projector` — the orthogonal projector (in the reduced coordinates of
  :func:`~contrastive_bounds.numerics.tangent_basis`) onto that space, from an SVD of the
  generators with a rank tolerance;
* :func:`remove_orbit` — a vector minus its component along the orbit (ambient coordinates), for the band.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64

__all__ = ["orbit_generators", "orbit_projector", "remove_orbit", "ORBIT_RANK_RTOL"]

#: singular values of the (unit-scale) orbit generators below this fraction of ``sqrt(N)`` count as
#: zero when the orbit dimension is determined (the generators have norms of order ``sqrt(N)``).
ORBIT_RANK_RTOL = 1e-8


def orbit_generators(z: jax.Array) -> jax.Array:
    """Tangent vectors of the ``O(d)`` action at ``z``: ``(A_ab z_i)_i`` for ``a < b``.

    Returns:
      Array ``(d(d−1)/2, N·d)``: row ``k`` is the flattened field of the ``k``-th generator
      ``A = e_a e_bᵀ − e_b e_aᵀ`` (so ``(A z_i)_a = z_ib``, ``(A z_i)_b = −z_ia``). They span the tangent
      space of the orbit ``{R z : R ∈ O(d)}`` (dimension ``r·d − r(r+1)/2`` at rank ``r``).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.network.orbits.orbit_generators")
    n, d = z.shape
    rows = []
    for a in range(d):
        for b in range(a + 1, d):
            f = jnp.zeros_like(z).at[:, a].set(z[:, b]).at[:, b].set(-z[:, a])
            rows.append(f.reshape(-1))
    return jnp.stack(rows)


def orbit_projector(z: jax.Array, q: jax.Array, orthogonal: bool) -> tuple[jax.Array, jax.Array]:
    """Projector onto the ``O(d)``-orbit tangent space in reduced coordinates, and its rank.

    The generators (:func:`orbit_generators`) are written in the basis ``q``, orthonormalised by an
    SVD, and the singular vectors whose singular value exceeds ``ORBIT_RANK_RTOL·sqrt(N)`` span the
    orbit's tangent space.

    Args:
      z: ``(N, d)``; q: ``tangent_basis(z)``; orthogonal: whether the potential is ``O(d)``-invariant
        (False: the projector is zero, rank 0).

    Returns:
      (``(n_t, n_t)`` symmetric projector ``U_r U_rᵀ``, rank as an int32 scalar), ``n_t = N(d−1)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, q, what="contrastive_bounds.numerics.landscapes.network.orbits.orbit_projector")
    n, d = z.shape
    nt = q.shape[1]
    if not orthogonal or d < 2:
        return jnp.zeros((nt, nt), z.dtype), jnp.zeros((), jnp.int32)
    w = q.T @ orbit_generators(z).T  # (n_t, n_gen)
    u, s, _ = jnp.linalg.svd(w, full_matrices=True)
    k = min(nt, s.shape[0])
    mask = jnp.zeros(nt, z.dtype).at[:k].set((s[:k] > ORBIT_RANK_RTOL * jnp.sqrt(float(n))).astype(z.dtype))
    return (u * mask) @ u.T, jnp.sum(mask).astype(jnp.int32)


def remove_orbit(z: jax.Array, v: jax.Array) -> jax.Array:
    """``v`` minus its orthogonal projection onto the ``O(d)``-orbit tangent space at ``z`` (ambient).

    The orbit's orthonormal basis comes from an eigendecomposition of the generators' Gram matrix
    (directions with eigenvalue above ``(ORBIT_RANK_RTOL·sqrt(N))²`` kept). Used by the band so
    images neither slide along orbits nor measure distances along them.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, v, what="contrastive_bounds.numerics.landscapes.network.orbits.remove_orbit")
    n, d = z.shape
    gens = orbit_generators(z)  # (n_gen, N*d)
    lam, u = jnp.linalg.eigh(gens @ gens.T)
    keep = lam > (ORBIT_RANK_RTOL * jnp.sqrt(float(n))) ** 2
    basis = (gens.T @ u) / jnp.sqrt(jnp.where(keep, lam, 1.0)) * keep  # (N*d, n_gen), zero columns dropped
    flat = v.reshape(-1)
    return (flat - basis @ (basis.T @ flat)).reshape(n, d)
