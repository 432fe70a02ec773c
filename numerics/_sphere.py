"""Geometry of the unit sphere S^{d-1} and of products (S^{d-1})^N, in JAX.

Conventions: a point of (S^{d-1})^N is an array of shape ``(..., N, d)`` whose last axis has unit
Euclidean norm; all functions act on the last axis and broadcast over the leading ones, so the
same code serves one factor ``(d,)``, one configuration ``(N, d)`` and a batch of chains
``(chains, N, d)``. Every function is pure JAX (jit/vmap/grad-able) and keeps the input dtype;
:func:`project_tangent`, :func:`retract` and :func:`uniform` also take numpy input (numpy arrays,
a ``numpy.random.Generator``) and then compute in numpy, for the host-side batches of the landscape
search (its kicks and starts), with the same formulas.

This is the one module of the package for the geometry of spheres and their products: besides the
first-order operations it holds :func:`geodesic_interpolate` (per-row great circles),
:func:`tangent_basis` (an orthonormal basis of the tangent space, reduced coordinates) and
:func:`riemannian_hessian` (the Hessian with the sphere's Weingarten term). The ``O(d)`` orbit
directions of a configuration are symmetry, not sphere geometry:
:mod:`contrastive_bounds.numerics.landscapes.network.orbits`.

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

from contrastive_bounds.theory._domains import check_int

from ._precision import ENABLE_HINT, X64DisabledError, require_x64, x64_enabled

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
    "geodesic_interpolate",
    "tangent_basis",
    "riemannian_hessian",
]


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _host(*xs: Any) -> bool:
    """Every input is a numpy array (host-side batches compute in numpy)."""
    return all(isinstance(x, np.ndarray) for x in xs)


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
      Array of the broadcast shape, dtype of the inputs: the tangent component of ``v`` (numpy when
      both inputs are numpy arrays).

    Source: A1 of docs/theorems.md (P(z) = I − zzᵀ per factor); Absil et al. (2008) eq. (3.37).
    """
    require_x64(z, v, what="contrastive_bounds.numerics.project_tangent")
    if _host(z, v):
        return v - np.sum(v * z, axis=-1, keepdims=True) * z
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
    require_x64(x, what="contrastive_bounds.numerics.normalize")
    _check_no_zero_rows("x", x)
    n, is_zero = _safe_norm(x)
    safe_n = jnp.where(is_zero, jnp.ones_like(n), n)
    return jnp.where(is_zero, jnp.zeros_like(x), x / safe_n)


def project_to_sphere(x: Any) -> jax.Array:
    """Map arbitrary nonzero ambient vectors onto the sphere (alias of :func:`normalize`).

    Raises:
      ValueError: a zero vector (C07), NaN or inf in a concrete input.
    """
    require_x64(x, what="contrastive_bounds.numerics.project_to_sphere")
    return normalize(jnp.asarray(x))


def retract(z: jax.Array, v: jax.Array) -> jax.Array:
    """Normalisation retraction R_z(v) = (z + v)/|z + v| for tangent ``v`` (first-order exp map).

    Args:
      z: points on the sphere, shape ``(..., d)``; v: tangent vectors at ``z``, same shape.

    Returns:
      Points on the sphere, same shape/dtype (numpy when both inputs are numpy arrays). For tangent v,
      |z+v| = sqrt(1+|v|²) ≥ 1, so this is never singular; no check is made (pure, jit-safe).
    Source: Absil et al. (2008), Example 4.1.1.
    """
    require_x64(z, v, what="contrastive_bounds.numerics.retract")
    w = z + v
    if _host(z, v):
        return w / np.linalg.norm(w, axis=-1, keepdims=True)
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
    require_x64(z, v, what="contrastive_bounds.numerics.exp_map")
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
    require_x64(x, y, what="contrastive_bounds.numerics.geodesic_distance")
    a = jnp.squeeze(_safe_norm(x - y)[0], -1)
    b = jnp.squeeze(_safe_norm(x + y)[0], -1)
    return 2.0 * jnp.arctan2(a, b)


def product_distance(x: jax.Array, y: jax.Array) -> jax.Array:
    """Geodesic distance on the product (S^{d−1})^N: sqrt(Σ_i d(x_i, y_i)²).

    Args:
      x, y: shape ``(..., N, d)``. Returns shape ``(...)``.
    """
    require_x64(x, y, what="contrastive_bounds.numerics.product_distance")
    return jnp.sqrt(jnp.sum(geodesic_distance(x, y) ** 2, axis=-1))


def uniform(key: jax.Array, shape: tuple[int, ...], dtype: Any = None) -> jax.Array:
    """Sample independent uniform points on S^{d−1} (the normalised-Gaussian construction).

    Args:
      key: a JAX PRNG key, or a ``numpy.random.Generator`` (then the draw is numpy's, float64:
        ``g/|g|`` for ``g = key.normal(size=shape)``).
      shape: ``(..., d)`` with d ≥ 2, e.g. ``(chains, N, d)`` for uniform points on the product.
      dtype: float dtype (default: JAX's default float, float64 when x64 is on; numpy: float64 only).

    Returns:
      Array of ``shape`` on the sphere (each factor uniform, all independent).

    Raises:
      ValueError: empty shape or last axis < 2; ``dtype`` not a float dtype.
      X64DisabledError: ``dtype`` float64 while JAX's x64 mode is off (JAX would silently return
        float32; call :func:`contrastive_bounds.numerics.enable_x64` first, or ask for float32).
    Source: Muller (1959), "A note on a method for generating points uniformly on n-dimensional spheres".
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) == 0:
        raise ValueError("shape must end with the ambient dimension d, got an empty shape")
    check_int("d", shape[-1], 2, None)
    for s in shape:
        check_int("shape entry", s, 1, None)
    if isinstance(key, np.random.Generator):
        if dtype is not None and np.dtype(dtype) != np.float64:
            raise ValueError(f"dtype={np.dtype(dtype).name}: a numpy Generator draws float64 points only")
        g = key.normal(size=shape)
        return g / np.linalg.norm(g, axis=-1, keepdims=True)
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
    require_x64(z, what="contrastive_bounds.numerics.sphere_angle")
    return jnp.arctan2(z[..., 1], z[..., 0])


def on_sphere_error(z: jax.Array) -> jax.Array:
    """max | |z_i| − 1 | over all factors: the distance of a state from the manifold (a diagnostic)."""
    require_x64(z, what="contrastive_bounds.numerics.on_sphere_error")
    return jnp.max(jnp.abs(jnp.sqrt(jnp.sum(z * z, axis=-1)) - 1.0))


def geodesic_interpolate(a: jax.Array, b: jax.Array, t: jax.Array) -> jax.Array:
    """Per-row great-circle interpolation between ``a`` and ``b`` (both ``(N, d)``) at fractions ``t``.

    Returns ``(len(t), N, d)``: row ``i`` at fraction ``t_k`` is ``cos(t_k θ_i) a_i + sin(t_k θ_i) u_i`` with
    ``θ_i`` the angle between ``a_i`` and ``b_i`` and ``u_i`` the unit tangent at ``a_i`` towards ``b_i``. For
    an antipodal row the great circle is not unique: the row moves through the direction of
    ``b − (a·b)a`` when defined, else through a fixed tangent direction.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input).
    Source: the great circle of the round sphere (do Carmo, *Riemannian Geometry*, Ch. 3).
    """
    require_x64(a, b, what="contrastive_bounds.numerics.geodesic_interpolate")
    c = jnp.clip(jnp.sum(a * b, axis=-1, keepdims=True), -1.0, 1.0)
    w = b - c * a
    wn = jnp.linalg.norm(w, axis=-1, keepdims=True)
    # antipodal or equal rows: pick a fixed tangent direction (only matters when antipodal)
    fallback = project_tangent(a, jnp.roll(a, 1, axis=-1) + 0.1)
    fallback = fallback / jnp.maximum(jnp.linalg.norm(fallback, axis=-1, keepdims=True), 1e-300)
    u = jnp.where(wn > 1e-12, w / jnp.maximum(wn, 1e-300), fallback)
    theta = jnp.arctan2(wn, c)
    theta = jnp.where((wn <= 1e-12) & (c < 0), jnp.pi, theta)
    tt = jnp.asarray(t)[:, None, None]
    return jnp.cos(tt * theta) * a + jnp.sin(tt * theta) * u


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
    ``Qᵀ vec(z_i e_i) = 0``: the reduced (intrinsic) coordinates in which Hessians are square matrices.
    This is a dense ``(N·d)²`` object: the small-size reference of the critical-point code.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input).
    Source: Householder reflections (Golub & Van Loan, *Matrix Computations*, Sec. 5.1).
    """
    require_x64(z, what="contrastive_bounds.numerics.tangent_basis")
    n, d = z.shape
    blocks = jax.vmap(_householder_block)(z)  # (N, d, d-1)
    eye = jnp.eye(n, dtype=z.dtype)
    q = eye[:, None, :, None] * blocks[:, :, None, :]  # (N, d, N, d-1)
    return q.reshape(n * d, n * (d - 1))


def riemannian_hessian(hessian: jax.Array, z: jax.Array, euclidean_grad: jax.Array, q: jax.Array) -> jax.Array:
    """Riemannian Hessian of ``V`` on ``(S^{d−1})^N`` in the reduced coordinates of ``q = tangent_basis(z)``.

    ``Hess V[u] = P(∇²V u) − (z_i·∇_i V) u_i`` per factor (the projected Euclidean Hessian plus the
    Weingarten term of the sphere), i.e. the symmetric ``(N·(d−1), N·(d−1))`` matrix
    ``Qᵀ∇²V Q − blockdiag((z_i·∇_i V) I_{d−1})``.

    Args:
      hessian: Euclidean Hessian ``∇²V(z)`` as an ``(N·d, N·d)`` matrix (row-major flattening).
      z: the point ``(N, d)``; euclidean_grad: ``∇V(z)``, shape ``(N, d)``; q: ``tangent_basis(z)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input).
    Source: Absil, Mahony & Trumpf, "An extrinsic look at the Riemannian Hessian", GSI 2013, eq. (10);
      Absil, Mahony & Sepulchre (2008), Sec. 5.5.
    """
    require_x64(hessian, z, euclidean_grad, q, what="contrastive_bounds.numerics.riemannian_hessian")
    n, d = z.shape
    radial = jnp.sum(z * euclidean_grad, axis=-1)  # (N,)
    weingarten = jnp.repeat(radial, d - 1)
    h = q.T @ hessian @ q - jnp.diag(weingarten)
    return 0.5 * (h + h.T)
