"""Geometry of the product manifold ``M = (S^{d−1})^N`` for critical-point search (docs/theorems.md A9).

A point is an array ``z`` of shape ``(N, d)`` with unit rows; a tangent vector ``u`` at ``z`` has the
same shape with ``z_i·u_i = 0`` for every row. Everything here is pure JAX (jit/vmap-able) and keeps
the input dtype; the critical-point code runs it in float64.

* :func:`riemannian_gradient` — ``P(z)∇V`` with ``P(z) = I − z_i z_iᵀ`` per factor.
* :func:`tangent_basis` — an orthonormal basis of ``T_z M`` (one Householder reflection per factor),
  shape ``(N·d, N·(d−1))``: reduced (intrinsic) coordinates in which Hessians are square matrices.
* :func:`riemannian_hessian` — the Riemannian Hessian in those coordinates,
  ``Qᵀ ∇²V Q − blockdiag((z_i·∇_i V) I_{d−1})`` (the second term is the Weingarten term of the
  sphere: ``Hess V[u] = P(∇²V u) − (z_i·∇_i V) u_i`` per factor; Absil, Mahony & Trumpf,
  "An extrinsic look at the Riemannian Hessian", GSI 2013, eq. (10); Absil–Mahony–Sepulchre 2008,
  Sec. 5.5).
* :func:`orbit_generators` — the tangent vectors ``(A z_1, …, A z_N)`` for the ``d(d−1)/2``
  skew-symmetric generators ``A = e_a e_bᵀ − e_b e_aᵀ`` of ``so(d)``: they span the tangent space
  of the ``O(d)`` orbit of ``z``, of dimension ``r·d − r(r+1)/2`` for a configuration of rank ``r``
  (docs/theorems.md A9).
* :func:`orbit_projector` — the orthogonal projector (in reduced coordinates) onto that orbit
  tangent space, from an SVD of the generators with a rank tolerance. The critical-point code
  projects the Hessian onto its orthogonal complement, so symmetry zero modes are never counted as
  curvature.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics.precision import require_x64
__all__ = [
    "project",
    "retract",
    "normalize_rows",
    "riemannian_gradient",
    "tangent_basis",
    "riemannian_hessian",
    "orbit_generators",
    "orbit_projector",
    "geodesic_interpolate",
    "remove_orbit",
    "ORBIT_RANK_RTOL",
]

#: singular values of the (unit-scale) orbit generators below this fraction of ``sqrt(N)`` count as
#: zero when the orbit dimension is determined (the generators have norms of order ``sqrt(N)``).
ORBIT_RANK_RTOL = 1e-8


def project(z: jax.Array, v: jax.Array) -> jax.Array:
    """Tangent projection ``P(z)v = v − (z_i·v_i) z_i`` per row; shapes ``(..., N, d)``, dtype kept.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, v, what="landscapes.network.manifold.project")
    return v - jnp.sum(z * v, axis=-1, keepdims=True) * z


def normalize_rows(x: jax.Array) -> jax.Array:
    """Each row divided by its norm (no zero check: callers pass ``z + tangent``, norm ≥ 1).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(x, what="landscapes.network.manifold.normalize_rows")
    return x * jax.lax.rsqrt(jnp.sum(x * x, axis=-1, keepdims=True))


def retract(z: jax.Array, v: jax.Array) -> jax.Array:
    """Normalisation retraction ``R_z(v) = (z_i + v_i)/|z_i + v_i|`` per row, ``v`` tangent.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, v, what="landscapes.network.manifold.retract")
    return normalize_rows(z + v)


def riemannian_gradient(z: jax.Array, euclidean_grad: jax.Array) -> jax.Array:
    """``grad V(z) = P(z)∇V(z)``: the Riemannian gradient of the embedded product of spheres.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, euclidean_grad, what="landscapes.network.manifold.riemannian_gradient")
    return project(z, euclidean_grad)


def _householder_block(x: jax.Array) -> jax.Array:
    """``(d, d−1)`` orthonormal basis of ``x^⊥`` for a unit vector ``x``: columns 2..d of the
    Householder reflection that maps ``e_1`` to ``∓x`` (sign chosen so nothing cancels)."""
    d = x.shape[0]
    s = jnp.where(x[0] >= 0, 1.0, -1.0).astype(x.dtype)
    w = x.at[0].add(s)  # x + s e_1, |w|² = 2(1 + |x_0|) >= 2
    h = jnp.eye(d, dtype=x.dtype) - 2.0 * jnp.outer(w, w) / jnp.dot(w, w)
    return h[:, 1:]


def tangent_basis(z: jax.Array) -> jax.Array:
    """Orthonormal basis ``Q`` of ``T_z (S^{d−1})^N``, shape ``(N·d, N·(d−1))``, block diagonal.

    Column ``k`` is a tangent vector flattened in row-major ``(N, d)`` order; ``QᵀQ = I`` and
    ``Qᵀ vec(z_i e_i) = 0``. Source: Householder reflections (Golub & Van Loan, Matrix
    Computations, Sec. 5.1).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, what="landscapes.network.manifold.tangent_basis")
    n, d = z.shape
    blocks = jax.vmap(_householder_block)(z)  # (N, d, d-1)
    eye = jnp.eye(n, dtype=z.dtype)
    q = eye[:, None, :, None] * blocks[:, :, None, :]  # (N, d, N, d-1)
    return q.reshape(n * d, n * (d - 1))


def riemannian_hessian(hessian: jax.Array, z: jax.Array, euclidean_grad: jax.Array, q: jax.Array) -> jax.Array:
    """Riemannian Hessian in the reduced coordinates of ``q = tangent_basis(z)``.

    Args:
      hessian: Euclidean Hessian ``∇²V(z)`` as an ``(N·d, N·d)`` matrix (row-major flattening).
      z: the point ``(N, d)``; euclidean_grad: ``∇V(z)``, shape ``(N, d)``; q: ``tangent_basis(z)``.

    Returns:
      Symmetric ``(N·(d−1), N·(d−1))`` matrix ``Qᵀ∇²V Q − blockdiag((z_i·∇_i V) I_{d−1})``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(hessian, z, euclidean_grad, q, what="landscapes.network.manifold.riemannian_hessian")
    n, d = z.shape
    radial = jnp.sum(z * euclidean_grad, axis=-1)  # (N,)
    weingarten = jnp.repeat(radial, d - 1)
    h = q.T @ hessian @ q - jnp.diag(weingarten)
    return 0.5 * (h + h.T)


def orbit_generators(z: jax.Array) -> jax.Array:
    """Tangent vectors of the ``O(d)`` action at ``z``: ``(A_ab z_i)_i`` for ``a < b``.

    Returns:
      Array ``(d(d−1)/2, N·d)``: row ``k`` is the flattened field of the ``k``-th generator
      ``A = e_a e_bᵀ − e_b e_aᵀ`` (so ``(A z_i)_a = z_ib``, ``(A z_i)_b = −z_ia``). They span the tangent
      space of the orbit ``{R z : R ∈ O(d)}`` (dimension ``r·d − r(r+1)/2`` at rank ``r``).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, what="landscapes.network.manifold.orbit_generators")
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
    require_x64(z, q, what="landscapes.network.manifold.orbit_projector")
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
    require_x64(z, v, what="landscapes.network.manifold.remove_orbit")
    n, d = z.shape
    gens = orbit_generators(z)  # (n_gen, N*d)
    lam, u = jnp.linalg.eigh(gens @ gens.T)
    keep = lam > (ORBIT_RANK_RTOL * jnp.sqrt(float(n))) ** 2
    basis = (gens.T @ u) / jnp.sqrt(jnp.where(keep, lam, 1.0)) * keep  # (N*d, n_gen), zero columns dropped
    flat = v.reshape(-1)
    return (flat - basis @ (basis.T @ flat)).reshape(n, d)


def geodesic_interpolate(a: jax.Array, b: jax.Array, t: jax.Array) -> jax.Array:
    """Per-row great-circle interpolation between ``a`` and ``b`` (both ``(N, d)``) at fractions ``t``.

    Returns ``(len(t), N, d)``. For an antipodal row the great circle is not unique: the row moves
    through the direction of ``b − (a·b)a`` when defined, else through the first tangent axis.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(a, b, what="landscapes.network.manifold.geodesic_interpolate")
    c = jnp.clip(jnp.sum(a * b, axis=-1, keepdims=True), -1.0, 1.0)
    w = b - c * a
    wn = jnp.linalg.norm(w, axis=-1, keepdims=True)
    # antipodal or equal rows: pick a fixed tangent direction (only matters when antipodal)
    fallback = project(a, jnp.roll(a, 1, axis=-1) + 0.1)
    fallback = fallback / jnp.maximum(jnp.linalg.norm(fallback, axis=-1, keepdims=True), 1e-300)
    u = jnp.where(wn > 1e-12, w / jnp.maximum(wn, 1e-300), fallback)
    theta = jnp.arctan2(wn, c)
    theta = jnp.where((wn <= 1e-12) & (c < 0), jnp.pi, theta)
    tt = t[:, None, None]
    return jnp.cos(tt * theta) * a + jnp.sin(tt * theta) * u
