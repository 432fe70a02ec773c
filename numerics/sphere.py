"""Geometry of the unit sphere S^{d-1} and of products (S^{d-1})^N, in JAX.

Conventions: a point of (S^{d-1})^N is an array of shape ``(..., N, d)`` whose last axis has unit
Euclidean norm; all functions act on the last axis and broadcast over the leading ones, so the
same code serves one factor ``(d,)``, one configuration ``(N, d)`` and a batch of chains
``(chains, N, d)``. Every function is pure JAX (jit/vmap/grad-able) and keeps the input dtype.

Reference: the embedded-submanifold formulas of Absil, Mahony & Sepulchre, *Optimization
Algorithms on Matrix Manifolds* (2008), Sec. 3.6 (projection) and Example 4.1.1 (retraction by
normalisation); the exponential map of the round sphere (do Carmo, *Riemannian Geometry*, Ch. 3).

Zero vectors (case C07 of docs/reference-values.md): :func:`normalize` and :func:`project_to_sphere` raise
``ValueError`` on a zero row when called on concrete arrays (outside ``jit``). Inside a traced
computation no exception is possible; there the zero row is mapped to a zero row (never NaN, and
with a finite gradient, by the double-``where`` trick). The Langevin integrators only normalise
``z + v`` with ``v`` tangent, whose norm is ``sqrt(1 + |v|^2) >= 1``, so they never meet a zero.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_int

from .precision import ENABLE_HINT, X64DisabledError, require_x64, x64_enabled

__all__ = [
    "project_tangent",
    "normalize",
    "project_to_sphere",
    "retract",
    "exp_map",
    "geodesic_distance",
    "product_distance",
    "uniform",
    "sphere_angle",
    "on_sphere_error",
]


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _check_no_zero_rows(name: str, x: Any) -> None:
    """Raise ValueError if some vector along the last axis of a concrete array is exactly zero."""
    if not _is_concrete(x):
        return
    a = np.asarray(x)
    if a.ndim == 0:
        raise ValueError(f"{name} must have at least one axis (vectors along the last axis), got a scalar")
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {bad})")
    norms = np.sqrt(np.sum(np.abs(a) ** 2, axis=-1))
    if np.any(norms == 0):
        bad = tuple(int(i) for i in np.argwhere(norms == 0)[0])
        raise ValueError(
            f"{name} has a zero vector at index {bad}; a zero vector has no projection onto the sphere"
        )


def project_tangent(z: jax.Array, v: jax.Array) -> jax.Array:
    """Project ambient vectors onto the tangent space of the sphere at ``z``: P(z)v = v − (z·v) z.

    Args:
      z: points on S^{d−1}, shape ``(..., d)``, float32 or float64, unit norm along the last axis.
      v: ambient vectors, same shape as ``z`` (or broadcastable).

    Returns:
      Array of the broadcast shape, dtype of the inputs: the tangent component of ``v``.

    Source: A1 of docs/theorems.md (P(z) = I − zzᵀ per factor); Absil et al. (2008) eq. (3.37).
    """
    require_x64(z, v, what="sphere.project_tangent")
    return v - jnp.sum(z * v, axis=-1, keepdims=True) * z


def _safe_norm(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Return (norm, is_zero) with a gradient that is finite at zero (double-where)."""
    sq = jnp.sum(x * x, axis=-1, keepdims=True)
    is_zero = sq == 0
    safe_sq = jnp.where(is_zero, jnp.ones_like(sq), sq)
    return jnp.where(is_zero, jnp.zeros_like(sq), jnp.sqrt(safe_sq)), is_zero


def normalize(x: jax.Array) -> jax.Array:
    """Normalise each vector along the last axis to unit length (the retraction onto the sphere).

    Args:
      x: shape ``(..., d)``, float32 or float64, finite.

    Returns:
      ``x / |x|`` along the last axis, same shape and dtype.

    Raises:
      ValueError: on a concrete input with a zero vector (C07), NaN or inf. Under ``jit`` a zero
        row returns a zero row (no NaN; finite gradient) since tracing cannot raise.
    """
    require_x64(x, what="sphere.normalize")
    _check_no_zero_rows("x", x)
    n, is_zero = _safe_norm(x)
    safe_n = jnp.where(is_zero, jnp.ones_like(n), n)
    return jnp.where(is_zero, jnp.zeros_like(x), x / safe_n)


def project_to_sphere(x: Any) -> jax.Array:
    """Map arbitrary nonzero ambient vectors onto the sphere (alias of :func:`normalize`).

    Raises:
      ValueError: a zero vector (C07), NaN or inf in a concrete input.
    """
    require_x64(x, what="sphere.project_to_sphere")
    return normalize(jnp.asarray(x))


def retract(z: jax.Array, v: jax.Array) -> jax.Array:
    """Normalisation retraction R_z(v) = (z + v)/|z + v| for tangent ``v`` (first-order exp map).

    Args:
      z: points on the sphere, shape ``(..., d)``; v: tangent vectors at ``z``, same shape.

    Returns:
      Points on the sphere, same shape/dtype. For tangent v, |z+v| = sqrt(1+|v|²) ≥ 1, so this is
      never singular; no check is made (pure, jit-safe).
    Source: Absil et al. (2008), Example 4.1.1.
    """
    require_x64(z, v, what="sphere.retract")
    w = z + v
    return w * jax.lax.rsqrt(jnp.sum(w * w, axis=-1, keepdims=True))


def exp_map(z: jax.Array, v: jax.Array) -> jax.Array:
    """Riemannian exponential map of the round sphere: cos(|v|) z + sin(|v|) v/|v|.

    Args:
      z: points on the sphere, shape ``(..., d)``; v: tangent vectors at ``z`` (same shape).

    Returns:
      Points on the sphere, same shape/dtype; ``exp_z(0) = z`` with a finite gradient (double-where).
      The result is renormalised once to remove rounding drift.
    Source: do Carmo, *Riemannian Geometry*, Ch. 3, Example 2.10.
    """
    require_x64(z, v, what="sphere.exp_map")
    n, is_zero = _safe_norm(v)
    safe_n = jnp.where(is_zero, jnp.ones_like(n), n)
    sinc = jnp.where(is_zero, jnp.ones_like(n), jnp.sin(safe_n) / safe_n)
    w = jnp.cos(n) * z + sinc * v
    return w * jax.lax.rsqrt(jnp.sum(w * w, axis=-1, keepdims=True))


def geodesic_distance(x: jax.Array, y: jax.Array) -> jax.Array:
    """Great-circle distance on S^{d−1}: 2·atan2(|x − y|, |x + y|) ∈ [0, π].

    Stable for nearly equal and nearly antipodal points (unlike arccos(x·y)), in value and gradient.

    Gradient: away from coincident and antipodal pairs it is the usual one (for unit ``x``,
    ``∂d/∂y`` is the unit tangent at ``y`` pointing away from ``x``). The distance is not
    differentiable where ``x == y`` (it behaves like ``|t|``) nor where ``x == −y`` (the cut locus,
    where it is maximal); there the gradient is exactly 0 (a subgradient at the minimum and at the
    maximum), never NaN: the norms use the double-``where`` trick.

    Args:
      x, y: points on the sphere, shape ``(..., d)`` (broadcastable), float32 or float64. Not
        checked (pure, jit-safe).
    Returns:
      Shape ``(...)``, the input dtype, in radians, in [0, π].

    Source: the half-angle atan2 form of the angle between two vectors (W. Kahan, "How Futile are
    Mindless Assessments of Roundoff in Floating-Point Computation?", 2006).
    """
    require_x64(x, y, what="sphere.geodesic_distance")
    a = jnp.squeeze(_safe_norm(x - y)[0], -1)
    b = jnp.squeeze(_safe_norm(x + y)[0], -1)
    return 2.0 * jnp.arctan2(a, b)


def product_distance(x: jax.Array, y: jax.Array) -> jax.Array:
    """Geodesic distance on the product (S^{d−1})^N: sqrt(Σ_i d(x_i, y_i)²).

    Args:
      x, y: shape ``(..., N, d)``. Returns shape ``(...)``.
    """
    require_x64(x, y, what="sphere.product_distance")
    return jnp.sqrt(jnp.sum(geodesic_distance(x, y) ** 2, axis=-1))


def uniform(key: jax.Array, shape: tuple[int, ...], dtype: Any = None) -> jax.Array:
    """Sample independent uniform points on S^{d−1} (the normalised-Gaussian construction).

    Args:
      key: a JAX PRNG key.
      shape: ``(..., d)`` with d ≥ 2, e.g. ``(chains, N, d)`` for uniform points on the product.
      dtype: float dtype (default: JAX's default float, float64 when x64 is on).

    Returns:
      Array of ``shape`` on the sphere (each factor uniform, all independent).

    Raises:
      ValueError: empty shape or last axis < 2; ``dtype`` not a float dtype.
      X64DisabledError: ``dtype`` float64 while JAX's x64 mode is off (JAX would silently return
        float32; call :func:`contrastive_bounds.numerics.precision.enable_x64` first, or ask for float32).
    Source: Muller (1959), "A note on a method for generating points uniformly on n-dimensional spheres".
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) == 0:
        raise ValueError("shape must end with the ambient dimension d, got an empty shape")
    check_int("d", shape[-1], 2, None)
    for s in shape:
        check_int("shape entry", s, 1, None)
    if dtype is None:
        dtype = jnp.result_type(float)
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise ValueError(f"dtype={dtype!r} is not a dtype; use float32 or float64") from None
        if not jnp.issubdtype(dt, jnp.floating):
            raise ValueError(f"dtype={dt.name} must be a float dtype (float32 or float64)")
        if dt.itemsize > 4 and not x64_enabled():
            raise X64DisabledError(
                f"sphere.uniform: dtype={dt.name} requested but jax_enable_x64 is off: JAX would return float32: "
                f"{ENABLE_HINT}")
    g = jax.random.normal(key, shape, dtype=dtype)
    # A Gaussian vector is zero with probability 0; the retraction-style normalisation is safe.
    return g * jax.lax.rsqrt(jnp.sum(g * g, axis=-1, keepdims=True))


def sphere_angle(z: jax.Array) -> jax.Array:
    """Angle θ = atan2(z[..., 1], z[..., 0]) ∈ (−π, π] of points on S¹ (last axis of size 2)."""
    require_x64(z, what="sphere.sphere_angle")
    return jnp.arctan2(z[..., 1], z[..., 0])


def on_sphere_error(z: jax.Array) -> jax.Array:
    """max | |z_i| − 1 | over all factors: the distance of a state from the manifold (a diagnostic)."""
    require_x64(z, what="sphere.on_sphere_error")
    return jnp.max(jnp.abs(jnp.sqrt(jnp.sum(z * z, axis=-1)) - 1.0))
