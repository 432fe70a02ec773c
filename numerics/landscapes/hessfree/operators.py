"""Riemannian gradient and Hessian–vector products on ``(S^{d−1})^N`` without a Hessian matrix (A9).

A point is ``z`` of shape ``(N, d)`` with unit rows; a tangent vector ``u`` has the same shape with
``z_i·u_i = 0`` per row. With ``P(z)u = u − (z_i·u_i) z_i`` the tangent projection:

* :func:`riemannian_gradient` — ``(V(z), grad V(z) = P(z)∇V(z))``.
* :func:`hessian_vector_product` — ``Hess V(z)[u] = P(∇²V(z)u) − (z_i·∇_i V) u_i`` per factor, obtained by
  forward-over-reverse differentiation: the JVP of the Riemannian gradient field ``z ↦ P(z)∇V(z)``
  along the tangent vector ``u``, projected back onto the tangent space. Differentiating the
  projection gives ``P∇²V u − (u_i·∇_i V) z_i − (z_i·∇_i V) u_i``; the projection removes the normal
  middle term and leaves the Weingarten (curvature) term of the sphere, the same convention as the dense
  ``numerics.sphere.riemannian_hessian`` (Absil, Mahony & Trumpf, "An extrinsic look at the Riemannian
  Hessian", GSI 2013, eq. (10); Absil–Mahony–Sepulchre 2008, Sec. 5.5; docs/theorems.md A9). Its
  eigenvalues on the tangent space are those of the dense Hessian in reduced coordinates.
  The argument is projected onto the tangent space first, so as an operator on ``R^{N×d}`` it is
  symmetric with the normal directions in its kernel.
* :func:`linearized_hessian` — ``(V, grad, hvp)`` with ``hvp`` a closure that reuses one linearisation
  of the gradient at ``z`` (``jax.linearize``): the right form when many products are taken at one
  point (Lanczos), each then costing about one gradient evaluation.

Everything is pure JAX (jit/vmap-able), keeps the input dtype and holds no ``(N·d)²`` array: the
memory is that of one gradient evaluation of the potential.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent

__all__ = ["riemannian_gradient", "hessian_vector_product", "linearized_hessian", "tangent_inner"]

Potential = Callable[[jax.Array], jax.Array]


def tangent_inner(u: jax.Array, v: jax.Array) -> jax.Array:
    """Euclidean inner product ``Σ_ij u_ij v_ij`` of two ``(..., N, d)`` arrays over the last two axes
    (the metric of the embedded product of spheres); shape ``(...)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off and an input is float64.
    """
    require_x64(u, v, what="contrastive_bounds.numerics.landscapes.hessfree.operators.tangent_inner")
    return jnp.sum(u * v, axis=(-2, -1))


def _gradient_field(potential: Potential) -> Callable[[jax.Array], jax.Array]:
    """``z ↦ P(z)∇V(z)`` on all of ``R^{N×d}`` (the extension whose JVP gives the Hessian)."""
    grad = jax.grad(potential)
    return lambda z: project_tangent(z, grad(z))


def riemannian_gradient(potential: Potential, z: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(V(z), P(z)∇V(z))``: value and Riemannian gradient.

    Args:
      potential: pure JAX ``V``, ``(N, d) -> ()``. z: ``(N, d)`` unit rows, float64 (or float32).

    Returns:
      ``(scalar, (N, d))`` in z's dtype.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.riemannian_gradient")
    value, egrad = jax.value_and_grad(potential)(z)
    return value, project_tangent(z, egrad)


def hessian_vector_product(potential: Potential, z: jax.Array, u: jax.Array) -> jax.Array:
    """``Hess V(z)[P(z)u]``: one Riemannian Hessian–vector product (module docstring).

    Args:
      potential: pure JAX ``V``. z: ``(N, d)`` unit rows. u: ``(N, d)`` (projected onto the tangent
        space at ``z`` first).

    Returns:
      ``(N, d)`` tangent vector, z's dtype. Source: Absil, Mahony & Trumpf (2013) eq. (10).

    Raises:
      X64DisabledError: JAX's x64 mode is off and an input is float64.
    """
    require_x64(z, u, what="contrastive_bounds.numerics.landscapes.hessfree.hessian_vector_product")
    ut = project_tangent(z, u)
    _, d_field = jax.jvp(_gradient_field(potential), (z,), (ut,))
    return project_tangent(z, d_field)


def linearized_hessian(potential: Potential, z: jax.Array
                       ) -> tuple[jax.Array, jax.Array, Callable[[jax.Array], jax.Array]]:
    """``(V(z), grad V(z), hvp)`` with ``hvp(u) = Hess V(z)[P(z)u]`` reusing one linearisation at ``z``.

    Args:
      potential: pure JAX ``V``. z: ``(N, d)`` unit rows.

    Returns:
      value (scalar), Riemannian gradient ``(N, d)``, and ``hvp``: ``(N, d) -> (N, d)``, linear, pure
      (jit/vmap-able inside the caller's trace).

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.operators.linearized_hessian")
    value = potential(z)
    grad, lin = jax.linearize(_gradient_field(potential), z)

    def hvp(u: jax.Array) -> jax.Array:
        return project_tangent(z, lin(project_tangent(z, u)))

    return value, grad, hvp
