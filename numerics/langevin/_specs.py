"""What the kernel's arguments may be, turned into the functions it uses: a temperature (fixed, a
schedule or a callable) into ``t -> T(t)``, a potential (a landscape or a callable, with or without
its gradient) into :class:`PotentialFunctions` (V, ∇V, a fused value-and-gradient and the fast forms
the driver's step paths use), an anisotropy (SPD matrix or positive
diagonal) into its symmetric square root. Each refuses what it cannot use with a ValueError naming
the argument. Used by :func:`._kernel.langevin_kernel`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_real

__all__ = ["PotentialFunctions", "as_temperature_fn", "resolve_potential", "sqrt_spd"]


class PotentialFunctions(NamedTuple):
    """A potential V on (S^{d−1})^N as the functions the kernel and its step paths call (pure JAX).

    Attributes:
      value: ``V``, ``(N, d) -> ()``. grad: ``∇V`` (Euclidean), ``(N, d) -> (N, d)``.
      value_and_grad: ``z -> (V(z), ∇V(z))`` in one pass.
      name: the landscape's name (or the callable's), for descriptions.
      batched_value_and_grad: ``(N, d, *batch) -> ((*batch), (N, d, *batch))`` when the landscape evaluates
        on trailing batch axes (U0, S¹ Fourier landscapes: the chains-last step), else ``None``.
      circle_value_and_derivative: ``(x, y) -> (V, V'(θ))`` elementwise for a point ``x + i·y`` of S¹ (S¹
        Fourier landscapes with N = 1, d = 2: the complex step), else ``None``.
      curvature_bound: an upper bound of ``sup|V''(θ)|`` known in closed form (S¹ Fourier landscapes:
        ``Σ k²(|a_k| + |b_k|)``), else ``None``.
    """

    value: Callable[[Any], Any]
    grad: Callable[[Any], Any]
    value_and_grad: Callable[[Any], tuple[Any, Any]]
    name: str
    batched_value_and_grad: Callable[[Any], tuple[Any, Any]] | None = None
    circle_value_and_derivative: Callable[[Any, Any], tuple[Any, Any]] | None = None
    curvature_bound: float | None = None


def as_temperature_fn(temperature: Any) -> Callable[[jax.Array], jax.Array]:
    """Turn a temperature specification into a pure function t -> T(t) for use under jit.

    Args:
      temperature: a positive finite float (fixed T); an object with a method
        ``temperature(t, xp=...)`` (a :class:`contrastive_bounds.theory.Schedule`); or a
        callable ``f(t, xp)`` taking continuous time and an array namespace.

    Returns:
      ``fn(t)`` evaluating T elementwise with ``jax.numpy``.

    Raises:
      ValueError: a fixed temperature that is not finite and > 0, or an unsupported object.
    """
    if isinstance(temperature, (int, float, np.floating, np.integer)) and not isinstance(temperature, bool):
        value = check_real("temperature", temperature, 0.0, math.inf)

        def fixed(t: jax.Array) -> jax.Array:
            return jnp.full_like(t, value)

        return fixed
    method = getattr(temperature, "temperature", None)
    if callable(method):
        return lambda t: method(t, xp=jnp)
    if callable(temperature):
        return lambda t: temperature(t, jnp)
    raise ValueError(
        f"temperature={temperature!r} must be a positive float, a Schedule, or a callable f(t, xp)"
    )


def sqrt_spd(name: str, a: Any, d: int) -> np.ndarray:
    """Symmetric square root (d, d) of an SPD (d, d) matrix or of a positive (d,) diagonal.

    Raises:
      ValueError: naming ``name``: not finite, wrong shape, not symmetric, not positive (definite).
    """
    arr = check_finite_array(name, np.asarray(a, dtype=np.float64))
    if arr.ndim == 1:
        if arr.shape != (d,):
            raise ValueError(f"{name} must have shape ({d},) or ({d}, {d}), got {arr.shape}")
        if np.any(arr <= 0):
            raise ValueError(f"{name} must be positive on the diagonal, got {arr.tolist()}")
        return np.diag(np.sqrt(arr))
    if arr.shape != (d, d):
        raise ValueError(f"{name} must have shape ({d},) or ({d}, {d}), got {arr.shape}")
    if not np.allclose(arr, arr.T, rtol=1e-12, atol=1e-12):
        raise ValueError(f"{name} must be symmetric")
    w, v = np.linalg.eigh(arr)
    if np.any(w <= 0):
        raise ValueError(f"{name} must be positive definite; smallest eigenvalue {w.min():g}")
    return (v * np.sqrt(w)) @ v.T


def resolve_potential(potential: Any, grad: Any) -> PotentialFunctions:
    """The :class:`PotentialFunctions` of a landscape or of a callable ``(N, d) -> scalar``.

    Without an explicit ``grad``: a landscape's own fused ``value_and_grad`` (hand-written for S¹
    Fourier landscapes and U0, else autodiff) and its fast forms (trailing batch axes, S¹ z-coordinates,
    the curvature bound), or one ``jax.value_and_grad`` pass of a plain callable. With ``grad`` the
    potential is used through ``V`` and ``grad`` only (no fast forms).

    Raises:
      ValueError: ``potential`` is neither a landscape nor callable.
    """
    landscape = potential
    name = getattr(potential, "__name__", "potential")
    if hasattr(potential, "potential") and callable(getattr(potential, "potential")):
        name = str(getattr(potential, "name", type(potential).__name__))
        fused = getattr(potential, "value_and_grad", None)
        if grad is None and callable(fused):
            return PotentialFunctions(potential.potential, potential.grad, fused, name, *_fast_forms(landscape))
        potential = potential.potential
    elif not callable(potential):
        raise ValueError(f"potential={potential!r} must be a Landscape or a callable (N, d) -> scalar")
    if grad is None:
        return PotentialFunctions(potential, jax.grad(potential), jax.value_and_grad(potential), name)
    return PotentialFunctions(potential, grad, (lambda z: (potential(z), grad(z))), name)


def _fast_forms(landscape: Any) -> tuple[Any, Any, float | None]:
    """``(batched_value_and_grad, circle_value_and_derivative, curvature_bound)`` of a landscape."""
    batched = None
    if getattr(landscape, "trailing_batch", False) and getattr(landscape, "value_and_grad_fn", None) is not None:
        batched = landscape.value_and_grad_fn
    series = getattr(landscape, "fourier", None)
    if series is None or (landscape.num_points, landscape.dim) != (1, 2):
        return batched, None, None
    return batched, series.value_and_derivative_z, series.derivative_bound(2)
