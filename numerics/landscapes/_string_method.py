"""Barrier *estimates* where no grid method applies (docs/theorems.md A3): local minima from many random
starts (:func:`sampled_minima`) and the minimum-energy path between two states by the simplified
string method (:func:`string_method_barrier`; E, Ren & Vanden-Eijnden 2007). Both run projected
gradient descent on ``(S^{d−1})^N`` with the normalisation retraction, vmapped, in ``lax.scan``.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

from contrastive_bounds.numerics.landscapes._landscape import Landscape
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["sampled_minima", "string_method_barrier"]

# ---------------------------------------------------------------------------- high dimensions
def _normalize(z: jax.Array) -> jax.Array:
    return z / jnp.linalg.norm(z, axis=-1, keepdims=True)


def _project(z: jax.Array, g: jax.Array) -> jax.Array:
    return g - jnp.sum(g * z, axis=-1, keepdims=True) * z


def sampled_minima(landscape: Landscape, key: jax.Array, *, starts: int = 256, steps: int = 2000,
                   step_size: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Local minima from many random starts by projected gradient descent (an estimate).

    Chains are vmapped and steps run in ``lax.scan``; the retraction is normalisation.

    Args:
      landscape: any landscape; key: a JAX PRNG key; starts: number of uniform random starts
      (int >= 1); steps: descent steps (int >= 1); step_size: > 0.

    Returns:
      (final states float (starts, N, d), final values float (starts,)) in the default float dtype.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.sampled_minima")
    s = check_int("starts", starts, 1, None)
    k = check_int("steps", steps, 1, None)
    eta = check_real("step_size", step_size, 0.0, math.inf)
    z0 = _normalize(jax.random.normal(key, (s, landscape.num_points, landscape.dim)))

    def descend(z: jax.Array) -> jax.Array:
        def body(z: jax.Array, _: Any) -> tuple[jax.Array, None]:
            return _normalize(z - eta * _project(z, landscape.grad(z))), None

        return jax.lax.scan(body, z, None, length=k)[0]

    zf = jax.jit(jax.vmap(descend))(z0)
    return np.asarray(zf), np.asarray(jax.vmap(landscape.potential)(zf))


def string_method_barrier(landscape: Landscape, z_a: Any, z_b: Any, *, images: int = 32, iterations: int = 2000,
                          step_size: float = 0.01) -> tuple[float, np.ndarray]:
    """Minimum-energy-path barrier between two states by the simplified string method (an estimate).

    E, Ren & Vanden-Eijnden (2007): images evolve by projected gradient descent, then are
    re-interpolated to equal arc length (chordal, per factor normalised). Returns the highest
    energy on the converged string minus ``V(z_a)``; with a finite number of images this is a
    lower estimate of the true saddle (error O(spacing²)).

    Args:
      z_a, z_b: arrays (N, d) of unit rows; images: int >= 3; iterations: int >= 1; step_size > 0.

    Returns:
      (barrier estimate float, energies along the final string float64 (images,)).
    """
    require_x64(z_a, z_b, np.float64, what="contrastive_bounds.numerics.landscapes.string_method_barrier")
    m = check_int("images", images, 3, None)
    it = check_int("iterations", iterations, 1, None)
    eta = check_real("step_size", step_size, 0.0, math.inf)
    za = _normalize(jnp.asarray(z_a))
    zb = _normalize(jnp.asarray(z_b))
    s = jnp.linspace(0.0, 1.0, m)[:, None, None]
    path = _normalize((1 - s)[..., None][..., 0] * za + s * zb + 1e-6 * jnp.ones_like(za))
    grad = jax.vmap(landscape.grad)
    target = jnp.linspace(0.0, 1.0, m)

    def reparam(p: jax.Array) -> jax.Array:
        seg = jnp.linalg.norm((p[1:] - p[:-1]).reshape(m - 1, -1), axis=1)
        arc = jnp.concatenate([jnp.zeros(1, p.dtype), jnp.cumsum(seg)])
        arc = arc / jnp.maximum(arc[-1], 1e-300)
        flat = p.reshape(m, -1)
        new = jax.vmap(lambda col: jnp.interp(target, arc, col), in_axes=1, out_axes=1)(flat)
        return _normalize(new.reshape(p.shape))

    def body(p: jax.Array, _: Any) -> tuple[jax.Array, None]:
        moved = _normalize(p - eta * _project(p, grad(p)))
        moved = moved.at[0].set(p[0]).at[-1].set(p[-1])
        return reparam(moved), None

    final = jax.jit(lambda p: jax.lax.scan(body, p, None, length=it)[0])(path)
    energies = np.asarray(jax.vmap(landscape.potential)(final), dtype=np.float64)
    return float(energies.max() - energies[0]), energies
