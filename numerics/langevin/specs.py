"""What the kernel's arguments may be, turned into the functions it uses: a temperature (fixed, a
schedule or a callable) into ``t -> T(t)``, a potential (a landscape or a callable, with or without
its gradient) into V, ∇V and a fused value-and-gradient, an anisotropy (SPD matrix or positive
diagonal) into its symmetric square root. Each refuses what it cannot use with a ValueError naming
the argument. Used by :func:`.kernel.langevin_kernel`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_finite_array, check_real

__all__ = ["as_temperature_fn", "resolve_potential", "sqrt_spd"]


def as_temperature_fn(temperature: Any) -> Callable[[jax.Array], jax.Array]:
    """Turn a temperature specification into a pure function t -> T(t) for use under jit.

    Args:
      temperature: a positive finite float (fixed T); an object with a method
        ``temperature(t, xp=...)`` (a :class:`contrastive_bounds.theory.annealing.Schedule`); or a
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


def resolve_potential(potential: Any, grad: Any) -> tuple[Callable, Callable, Callable, str]:
    """Return (V, ∇V, value_and_grad, name) for a landscape or a callable ``(N, d) -> scalar``.

    Without an explicit ``grad``: a landscape's own fused ``value_and_grad`` (hand-written for S¹
    Fourier landscapes and U0, else autodiff), or one ``jax.value_and_grad`` pass of a plain callable.

    Raises:
      ValueError: ``potential`` is neither a landscape nor callable.
    """
    name = getattr(potential, "__name__", "potential")
    if hasattr(potential, "potential") and callable(getattr(potential, "potential")):
        name = str(getattr(potential, "name", type(potential).__name__))
        fused = getattr(potential, "value_and_grad", None)
        if grad is None and callable(fused):
            return potential.potential, potential.grad, fused, name
        potential = potential.potential
    elif not callable(potential):
        raise ValueError(f"potential={potential!r} must be a Landscape or a callable (N, d) -> scalar")
    if grad is None:
        vg = jax.value_and_grad(potential)
        return potential, jax.grad(potential), vg, name
    return potential, grad, (lambda z: (potential(z), grad(z))), name
