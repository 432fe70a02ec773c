"""The deflated Riemannian Hessian as an operator, and its softest modes by Lanczos (A9).

* :func:`deflated_hessian` — at ``z``: ``V``, the Riemannian gradient, the operator
  ``u ↦ D Hess V(z)[D u]`` with ``D`` the projector onto the tangent space off the ``O(d)`` orbit
  (:mod:`.deflation`), ``D`` itself and the orbit frame. One linearisation of the gradient serves every
  product (:func:`~.operators.linearized_hessian`).
* :func:`softest_modes` — the ``k`` lowest eigenpairs of that operator (:func:`~.lanczos.lanczos_lowest`)
  with explicit residual norms, the gradient norm and the orbit dimension: everything the certificates
  of :mod:`.certify` read. Pure JAX (jit/vmap-able: ``k``, ``krylov_dim``, ``max_restarts`` and
  ``orthogonal`` are static).

The eigenvalues are those of the dense ``network.verify`` reference (the Hessian in reduced
coordinates projected off the orbit), in the unit-sphere metric; no ``(N·d)²`` array is formed.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics.landscapes.hessfree.deflation import OrbitFrame, deflate, orbit_dimension, orbit_frame
from contrastive_bounds.numerics.landscapes.hessfree.lanczos import lanczos_lowest
from contrastive_bounds.numerics.landscapes.hessfree.operators import linearized_hessian
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["DeflatedHessian", "deflated_hessian", "locked_operator", "Spectrum", "softest_modes"]

Potential = Callable[[jax.Array], jax.Array]


class DeflatedHessian(NamedTuple):
    """The Hessian at one point as operators (from :func:`deflated_hessian`).

    Attributes:
      value: ``V(z)``. gradient: Riemannian gradient ``(N, d)``.
      matvec: ``u ↦ D Hess V(z)[D u]``, ``(N, d) -> (N, d)``. project: ``u ↦ D u``.
      frame: the :class:`~.deflation.OrbitFrame` at ``z``.
    """

    value: jax.Array
    gradient: jax.Array
    matvec: Callable[[jax.Array], jax.Array]
    project: Callable[[jax.Array], jax.Array]
    frame: OrbitFrame


def deflated_hessian(potential: Potential, z: jax.Array, orthogonal: bool = True) -> DeflatedHessian:
    """The deflated Riemannian Hessian at ``z`` (module docstring).

    Args:
      potential: pure JAX ``V``, ``(N, d) -> ()``. z: ``(N, d)`` unit rows, float64.
      orthogonal: whether ``V`` is ``O(d)``-invariant (False: only the normal directions are removed).

    Returns:
      :class:`DeflatedHessian`.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.spectrum.deflated_hessian")
    value, grad, hvp = linearized_hessian(potential, z)
    frame = orbit_frame(z, orthogonal)

    def project(u: jax.Array) -> jax.Array:
        return deflate(frame, z, u)

    def matvec(u: jax.Array) -> jax.Array:
        return project(hvp(project(u)))

    return DeflatedHessian(value, grad, matvec, project, frame)


def locked_operator(op: DeflatedHessian, lock: jax.Array) -> DeflatedHessian:
    """The operator and projector restricted to the complement of the orthonormal rows of ``lock`` ``(k, N, d)``
    (float64 like ``op``): the deflated Hessian with those directions locked out (for a second Lanczos run or a
    quadrature that must skip modes computed apart).

    Raises:
      X64DisabledError: JAX's x64 mode is off (``lock`` and ``op`` are float64)."""
    require_x64(jnp.float64, what="contrastive_bounds.numerics.landscapes.hessfree.spectrum.locked_operator")

    def project(u: jax.Array) -> jax.Array:
        w = op.project(u)
        return w - jnp.tensordot(jnp.tensordot(lock, w, axes=((1, 2), (0, 1))), lock, axes=(0, 0))

    def matvec(u: jax.Array) -> jax.Array:
        return project(op.matvec(project(u)))

    return DeflatedHessian(op.value, op.gradient, matvec, project, op.frame)


class Spectrum(NamedTuple):
    """The lowest part of the deflated Hessian's spectrum at a point (from :func:`softest_modes`).

    Attributes:
      value: ``V(z)``. gradient_norm: ``|grad V(z)|_2`` (Riemannian, over all ``N·d`` coordinates).
      eigenvalues: ``(k,)`` lowest Ritz values, ascending (``inf`` where not valid).
      modes: ``(k, N, d)`` unit Ritz vectors (tangent, orthogonal to the orbit).
      residual_norms: ``(k,)`` explicit ``|H y − θ y|_2``. valid: ``(k,)`` bool.
      top: largest Ritz value seen (scale of the zero band). orbit_dim: symmetry modes deflated.
      matvecs: Hessian–vector products used. converged: Lanczos met its tolerance.
    """

    value: jax.Array
    gradient_norm: jax.Array
    eigenvalues: jax.Array
    modes: jax.Array
    residual_norms: jax.Array
    valid: jax.Array
    top: jax.Array
    orbit_dim: jax.Array
    matvecs: jax.Array
    converged: jax.Array


def softest_modes(potential: Potential, z: jax.Array, key: jax.Array, *, k: int = 4, orthogonal: bool = True,
                  start: jax.Array | None = None, lock: jax.Array | None = None, krylov_dim: int = 32,
                  max_restarts: int = 40, tol: float = 1e-11) -> Spectrum:
    """The ``k`` softest modes of the deflated Riemannian Hessian at ``z`` with residual norms.

    Args:
      potential: pure JAX ``V``. z: ``(N, d)`` unit rows, float64. key: JAX PRNG key (random start).
      k: eigenpairs, ``1 <= k <= krylov_dim − 3``. orthogonal: ``V`` is ``O(d)``-invariant.
      start: optional ``(N, d)`` start vector (e.g. the previous mode); a random one mixed in at weight
        1e-3 so a start orthogonal to a wanted eigenvector still finds it.
      lock: optional ``(j, N, d)`` orthonormal tangent vectors (zero rows allowed) also projected out
        ("locking"): the modes of the Hessian in their complement, e.g. a second copy of a degenerate
        eigenvalue that one Krylov space cannot see. krylov_dim, max_restarts, tol: as
        :func:`~.lanczos.lanczos_lowest`.

    Returns:
      :class:`Spectrum`.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
      ValueError: ``k`` out of range (named).
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.softest_modes")
    op = deflated_hessian(potential, z, orthogonal)
    if lock is not None:
        op = locked_operator(op, lock)
    k_rand, k_lanczos = jax.random.split(key)
    noise = jax.random.normal(k_rand, z.shape, z.dtype)
    if start is None:
        v0 = noise
    else:
        s = op.project(start)
        v0 = s / jnp.maximum(jnp.linalg.norm(s), 1e-300) + 1e-3 * noise / jnp.linalg.norm(noise)
    res = lanczos_lowest(op.matvec, op.project, v0, k_lanczos, k=k, krylov_dim=krylov_dim, max_restarts=max_restarts,
                         tol=tol)
    return Spectrum(op.value, jnp.linalg.norm(op.gradient), res.eigenvalues, res.eigenvectors, res.residual_norms,
                    res.valid, res.top, orbit_dimension(op.frame), res.matvecs, res.converged)
