"""The Euler–Maruyama increment of one step of overdamped Langevin dynamics and its noise scale
(docs/theorems.md A1; case C11: the noise of a step is ``sqrt(2·T·h)·ξ``, not ``sqrt(2T)·h`` nor
``sqrt(h)``). Used by every step function of :mod:`.steps` (looked up at trace time, so the self-test's
faults on it reach every step path). Source: Kloeden &
Platen (1992), §9.1 (the Euler–Maruyama scheme).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64

__all__ = ["noise_scale", "euler_maruyama_increment"]


def noise_scale(temperature: Any, step_size: Any) -> Any:
    """Standard deviation sqrt(2·T·h) of the noise of one step (A1; case C11: not h, not sqrt(h))."""
    require_x64(temperature, step_size, what="contrastive_bounds.numerics.langevin.noise_scale")
    return jnp.sqrt(2.0 * temperature * step_size)


def euler_maruyama_increment(grad: jax.Array, noise: jax.Array, temperature: jax.Array, step_size: Any) -> jax.Array:
    """The ambient Euler–Maruyama increment −h·∇V + sqrt(2·T·h)·ξ shared by both integrators.

    Args:
      grad: ∇V, any shape; noise: standard Gaussian, same shape; temperature: T > 0 (broadcastable);
      step_size: h > 0.
    Returns:
      Array of the broadcast shape. In R^n this is the unadjusted Langevin step x' = x + increment
      (case C11: on U = x²/2 its stationary variance is T/(1 − h/2)). The sphere kernel uses the same
      noise scale sqrt(2·T·h).
    """
    require_x64(grad, noise, temperature, what="contrastive_bounds.numerics.langevin.euler_maruyama_increment")
    return -step_size * grad + noise_scale(temperature, step_size) * noise
