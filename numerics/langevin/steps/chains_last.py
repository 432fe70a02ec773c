"""The batched step of all chains in the chains-last layout: its state, ``init`` and the pure ``step``.

For landscapes whose value-and-gradient accepts trailing batch axes (``Landscape.trailing_batch``: U0,
the S¹ Fourier landscapes), one step of every chain is elementwise work over contiguous chains, with no
``vmap`` (so no layout transposes). The same Markov kernel as :func:`.sphere.step` with the ``"euler"``
integrator and isotropic noise, equal up to floating-point rounding (tests/numerics/langevin/test_fastpath.py):
z ← (z + w)/|z + w| with w = P(z)(−h∇V + sqrt(2Th)ξ); on S¹ factors w = a·(−z₁, z₀) with
a = −h·(∇V·(−z₁, z₀)) + sqrt(2Th)·η (one normal per factor). The normalisation uses
:func:`~contrastive_bounds.numerics.rsqrt` (vectorised Newton, within 2 ulps); |z + w| ≥ 1 for
tangent w, so it never meets a zero. Source of the scheme: as :mod:`.sphere`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._fastmath import rsqrt
from contrastive_bounds.numerics.langevin._increments import noise_scale
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState

__all__ = ["ChainsLastState", "init", "from_chains_first", "to_chains_first", "noise_shape", "step"]


class ChainsLastState(NamedTuple):
    """All chains of a run, chains on the last axis.

    Attributes:
      position: ``(N, d, chains)`` on (S^{d−1})^N, float32 or float64.
      potential: ``(chains,)`` V(position), same dtype.
      grad: ``(N, d, chains)`` the Euclidean gradient ∇V(position).
    """

    position: jax.Array
    potential: jax.Array
    grad: jax.Array


def init(positions: jax.Array, value_and_grad: Callable[[jax.Array], tuple[jax.Array, jax.Array]]) -> ChainsLastState:
    """The state at ``positions`` ``(N, d, chains)``; ``value_and_grad`` takes ``(N, d, *batch)``."""
    return ChainsLastState(positions, *value_and_grad(positions))


def from_chains_first(state: LangevinState) -> ChainsLastState:
    """A batched :class:`.sphere.LangevinState` (position ``(chains, N, d)``) in the chains-last layout."""
    return ChainsLastState(jnp.moveaxis(state.position, 0, -1), state.potential, jnp.moveaxis(state.grad, 0, -1))


def to_chains_first(state: ChainsLastState) -> LangevinState:
    """The inverse of :func:`from_chains_first`."""
    return LangevinState(jnp.moveaxis(state.position, -1, 0), state.potential, jnp.moveaxis(state.grad, -1, 0))


def noise_shape(position_shape: tuple[int, int, int]) -> tuple[int, int, int]:
    """Noise of one step for positions ``(N, d, chains)``: ``(N, 1, chains)`` on S¹ factors, else ``(N, d, chains)``."""
    n, d, chains = position_shape
    return (n, 1 if d == 2 else d, chains)


def step(state: ChainsLastState, noise: jax.Array, temperature: jax.Array, *, step_size: float,
         value_and_grad: Callable[[jax.Array], tuple[jax.Array, jax.Array]]) -> ChainsLastState:
    """One step of all chains (pure).

    Args:
      state: :class:`ChainsLastState`. noise: standard normals of shape :func:`noise_shape`.
      temperature: T at the step's start time, a scalar of the state's dtype. step_size: h > 0.
      value_and_grad: ``z -> (V, ∇V)`` on ``(N, d, chains)``.
    Returns:
      The next :class:`ChainsLastState`.
    """
    z = state.position
    dtype = z.dtype
    h = jnp.asarray(step_size, dtype)
    scale = noise_scale(temperature, h)
    g = state.grad
    if z.shape[1] == 2 and noise.shape[1] == 1:
        x, y = z[:, 0], z[:, 1]
        a = -h * (g[:, 1] * x - g[:, 0] * y) + scale * noise[:, 0]
        nx, ny = x - a * y, y + a * x
        # (S¹ Fourier landscapes take .circle instead: this stack compiles to scalar code on XLA:CPU)
        r = rsqrt(nx * nx + ny * ny)
        new = jnp.stack([nx * r, ny * r], axis=1)
    else:
        w = -h * g + scale * noise
        w = w - _dot1(w, z) * z
        v = z + w
        new = v * rsqrt(_dot1(v, v))
    value, gradient = value_and_grad(new)
    return ChainsLastState(new, value, gradient)


def _dot1(u: jax.Array, v: jax.Array) -> jax.Array:
    """Σ_i u[:, i]·v[:, i] (axis 1, kept): written out term by term for small d so that XLA fuses it
    with the surrounding elementwise work (a reduction is a separate kernel); a plain sum for d > 8."""
    d = u.shape[1]
    if d > 8:
        return jnp.sum(u * v, axis=1, keepdims=True)
    acc = u[:, 0:1] * v[:, 0:1]
    for i in range(1, d):
        acc = acc + u[:, i:i + 1] * v[:, i:i + 1]
    return acc
