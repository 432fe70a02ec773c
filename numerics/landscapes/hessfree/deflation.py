"""The ``O(d)`` rotation modes of a configuration, deflated analytically (no ``(N·d)²`` array) (A9).

For an ``O(d)``-invariant potential (InfoNCE, Thomson) every generator ``Ω ∈ so(d)`` moves all points
at once, ``u = zΩ`` (row ``i`` is ``z_iᵀΩ``, tangent since ``z_iᵀΩz_i = 0``); these ``d(d−1)/2`` fields
span the tangent space of the orbit ``{zRᵀ : R ∈ O(d)}``, zero modes of the Hessian at a critical
point. In the eigenbasis ``W`` of the ``d × d`` Gram ``G = zᵀz = W diag(σ) Wᵀ`` the rotated generators
``E_ab = w_a w_bᵀ − w_b w_aᵀ`` (``a < b``) give mutually orthogonal fields ``zE_ab`` with
``|zE_ab|² = σ_a + σ_b``: the ``d(d−1)/2``-dimensional Gram of the generators is diagonal there, so the
generators are orthonormalised by a ``d × d`` eigendecomposition instead of a ``d(d−1)/2``-square Gram.

The orthogonal projection of a tangent ``u`` onto the orbit space is ``zΩ`` with ``Ω`` skew solving the
normal equations ``GΩ + ΩG = zᵀu − uᵀz`` (a Lyapunov equation), i.e. ``WᵀΩW = (WᵀCW)_ab/(σ_a + σ_b)``.
Pairs with ``sqrt(σ_a + σ_b) <= ORBIT_RANK_RTOL·sqrt(N)`` act trivially (the stabiliser of a
configuration of rank ``r`` is ``O(d − r)``) and are dropped, so the orbit dimension is
``r·d − r(r+1)/2`` (docs/theorems.md A9), with the rank rule of the dense ``network.orbits``.

Cost ``O(N d² + d³)`` per projection; memory ``O(N d + d²)``. Pure JAX, jit/vmap-able.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent

__all__ = ["OrbitFrame", "orbit_frame", "orbit_component", "deflate", "orbit_dimension", "orbit_modes",
           "ORBIT_RANK_RTOL"]

#: singular values ``sqrt(σ_a + σ_b)`` of the generators at or below this fraction of ``sqrt(N)`` count as
#: zero (the rank rule of the dense ``network.orbits.ORBIT_RANK_RTOL``; a test keeps the two equal)
ORBIT_RANK_RTOL = 1e-8


class OrbitFrame(NamedTuple):
    """The orbit's analytic frame at ``z`` (from :func:`orbit_frame`).

    Attributes:
      basis: ``W`` ``(d, d)``, orthonormal eigenvectors of ``zᵀz`` (columns).
      inverse: ``(d, d)`` symmetric, ``1/(σ_a + σ_b)`` for the generator pairs ``a != b`` kept, 0 elsewhere
        (all zeros when the potential is not ``O(d)``-invariant: nothing is deflated).
    """

    basis: jax.Array
    inverse: jax.Array


def orbit_frame(z: jax.Array, orthogonal: bool = True) -> OrbitFrame:
    """The frame of the ``O(d)`` orbit's tangent space at ``z`` (module docstring).

    Args:
      z: ``(N, d)`` unit rows. orthogonal: whether the potential is ``O(d)``-invariant; False gives an
        empty frame (no mode deflated).

    Returns:
      :class:`OrbitFrame`.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.deflation.orbit_frame")
    n, d = z.shape
    _, w = jnp.linalg.eigh(z.T @ z)
    # σ_a = |z w_a|² from the eigenvectors, not the eigenvalues: accurate to rounding squared near zero
    # (an eigenvalue of zᵀz carries an error ~eps·N, at the size of the rank threshold itself)
    sigma = jnp.sum((z @ w) ** 2, axis=0)
    pair = sigma[:, None] + sigma[None, :]
    keep = (pair > (ORBIT_RANK_RTOL ** 2) * n) & ~jnp.eye(d, dtype=bool)
    if not orthogonal:
        keep = jnp.zeros_like(keep)
    inverse = jnp.where(keep, 1.0 / jnp.where(keep, pair, 1.0), 0.0).astype(z.dtype)
    return OrbitFrame(w, inverse)


def orbit_component(frame: OrbitFrame, z: jax.Array, u: jax.Array) -> jax.Array:
    """Orthogonal projection of a tangent ``u`` (N, d) onto the orbit's tangent space: ``zΩ``, shape ``(N, d)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off and an input is float64.
    """
    require_x64(z, u, what="contrastive_bounds.numerics.landscapes.hessfree.deflation.orbit_component")
    w = frame.basis
    c = z.T @ u
    c_rot = w.T @ (c - c.T) @ w
    omega = w @ (c_rot * frame.inverse) @ w.T
    return z @ omega


def deflate(frame: OrbitFrame, z: jax.Array, u: jax.Array) -> jax.Array:
    """``u`` projected onto the tangent space at ``z`` and then off the orbit's tangent space (N, d).

    The map is the orthogonal projector onto ``T_z M ⊖ T_z(orbit)`` (symmetric, idempotent).

    Raises:
      X64DisabledError: JAX's x64 mode is off and an input is float64.
    """
    require_x64(z, u, what="contrastive_bounds.numerics.landscapes.hessfree.deflation.deflate")
    ut = project_tangent(z, u)
    return ut - orbit_component(frame, z, ut)


def orbit_dimension(frame: OrbitFrame) -> jax.Array:
    """Number of generator pairs kept: the orbit's dimension ``r·d − r(r+1)/2`` (int32 scalar).

    Raises:
      X64DisabledError: JAX's x64 mode is off and the frame is float64.
    """
    require_x64(frame.inverse, what="contrastive_bounds.numerics.landscapes.hessfree.deflation.orbit_dimension")
    return (jnp.sum(frame.inverse > 0) // 2).astype(jnp.int32)


def orbit_modes(frame: OrbitFrame, z: jax.Array, pairs: jax.Array) -> jax.Array:
    """Orthonormal orbit fields ``zE_ab / sqrt(σ_a + σ_b)`` for the given generator pairs.

    Args:
      frame: from :func:`orbit_frame`. z: ``(N, d)``. pairs: ``(k, 2)`` int indices ``(a, b)``, ``a != b``,
        into the eigenbasis (a pair not kept by the frame gives a zero field).

    Returns:
      ``(k, N, d)``; fields of distinct kept pairs are orthonormal. Used to probe the Hessian on the orbit
      (its residual) without forming all ``d(d−1)/2`` of them.

    Raises:
      X64DisabledError: JAX's x64 mode is off and an input is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.deflation.orbit_modes")
    w = frame.basis

    def one(p: jax.Array) -> jax.Array:
        wa, wb = w[:, p[0]], w[:, p[1]]
        scale = jnp.sqrt(frame.inverse[p[0], p[1]])
        return scale * (jnp.outer(z @ wa, wb) - jnp.outer(z @ wb, wa))

    return jax.vmap(one)(jnp.asarray(pairs))
