"""The step of all chains of an S¹ Fourier landscape in complex coordinates: state, ``init``, pure ``step``.

A chain on S¹ is one complex number w = z₀ + i·z₁ (|w| = 1), so both coordinates live in one array
(no stack/concatenate, which XLA:CPU compiles to scalar code) and a step of all chains is one
elementwise loop. With a = −h·V'(θ) + sqrt(2Th)·η (η ~ N(0, 1), one normal per chain), t(z) = (−z₁, z₀):
z ← (z + a·t(z))/|z + a·t(z)| — the same Markov kernel as :func:`.sphere.step` with the ``"euler"``
integrator on S¹, equal up to rounding (tests/numerics/langevin/test_fastpath.py). The landscape gives V and
V'(θ) in z-coordinates (:meth:`~contrastive_bounds.numerics.landscapes.FourierSeries.value_and_derivative_z`).

The state carried from step to step is the positions alone, so that a step of all chains reads and
writes one array: V'(θ) is evaluated inside the step from the positions, and the step returns V at the
new positions beside the new state (BlackJAX's ``(state, info)``), for the observables; :func:`potential`
evaluates V of a state when it is needed again. The normalisation uses
:func:`~contrastive_bounds.numerics.rsqrt`. Source of the scheme: as :mod:`.sphere`.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._fastmath import rsqrt
from contrastive_bounds.numerics.langevin._increments import noise_scale
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState

__all__ = ["CircleState", "init", "from_chains_first", "to_chains_first", "real_positions", "potential", "step"]

ValueAndDerivative = Callable[[Any, Any], tuple[Any, Any]]


class CircleState(NamedTuple):
    """All chains of a run on S¹: their positions ``w = z₀ + i·z₁``, complex64/complex128 of shape ``(chains,)``,
    |w| = 1 (V and V'(θ) are functions of them, evaluated when needed)."""

    position: jax.Array


def init(positions: jax.Array) -> CircleState:
    """The state at complex positions ``w`` (any shape, |w| = 1)."""
    return CircleState(positions)


def from_chains_first(state: LangevinState) -> CircleState:
    """The state of a batched :class:`.sphere.LangevinState` on S¹ (position ``(chains, 1, 2)``)."""
    return init(jax.lax.complex(state.position[:, 0, 0], state.position[:, 0, 1]))


def potential(state: CircleState, value_and_derivative: ValueAndDerivative) -> jax.Array:
    """V at the state's positions, real, shape of ``state.position``."""
    value, _ = value_and_derivative(state.position.real, state.position.imag)
    return value


def to_chains_first(state: CircleState, value_and_derivative: ValueAndDerivative) -> LangevinState:
    """The batched :class:`.sphere.LangevinState` (position ``(chains, 1, 2)``): V and the Euclidean gradient
    ∇V = V'(θ)·(−z₁, z₀) re-evaluated at the positions (as the landscapes give it)."""
    x, y = state.position.real, state.position.imag
    value, deriv = value_and_derivative(x, y)
    position = jnp.stack([x, y], axis=-1)[:, None, :]
    grad = jnp.stack([-y * deriv, x * deriv], axis=-1)[:, None, :]
    return LangevinState(position, value, grad)


def real_positions(state: CircleState) -> jax.Array:
    """The positions as real chains-last points ``(1, 2, chains)`` (what targets and basins see)."""
    w = state.position
    return jnp.stack([w.real, w.imag])[None]


def step(state: CircleState, noise: jax.Array, temperature: jax.Array, *, step_size: float,
         value_and_derivative: ValueAndDerivative) -> tuple[CircleState, jax.Array]:
    """One step of all chains (pure).

    Args:
      state: :class:`CircleState`. noise: standard normals, real, the shape of ``state.position``.
      temperature: T at the step's start time, a real scalar of the positions' float dtype.
      step_size: h > 0. value_and_derivative: ``(x, y) -> (V, V'(θ))``, elementwise.
    Returns:
      ``(next state, V at its positions)`` (V real, the shape of the positions).
    """
    x, y = state.position.real, state.position.imag
    dtype = x.dtype
    h = jnp.asarray(step_size, dtype)
    scale = noise_scale(temperature, h)
    _, deriv = value_and_derivative(x, y)
    a = -h * deriv + scale * noise
    nx, ny = x - a * y, y + a * x
    r = rsqrt(nx * nx + ny * ny)
    w = jax.lax.complex(nx * r, ny * r)
    w = jax.lax.optimization_barrier(w)  # V below reads the new positions instead of redoing the step
    value, _ = value_and_derivative(w.real, w.imag)
    return CircleState(w), value
