"""The generic step of one chain on (S^{d−1})^N: its state, ``init`` and the pure ``step``.

Dynamics (A1 of docs/theorems.md): dZ = −grad V(Z) dt + sqrt(2 T(t)) dW^M on M = (S^{d−1})^N with the
Riemannian gradient grad V = P(Z)∇V, P(z) = I − zzᵀ per factor. One step of size h at temperature T:

* ``"euler"``: projected Euler–Maruyama with the normalisation retraction,
  z ← normalize(z − h·P(z)∇V + sqrt(2·T·h)·P(z)ξ), ξ ~ N(0, I_d) per factor. The normalisation
  supplies the Itô drift −(d−1)·T·z of Brownian motion on the sphere, so at fixed T the chain samples
  exp(−V/T) up to an O(h) bias (weak order 1).
* ``"geodesic"``: the same tangent increment through the exponential map; also weak order 1.

Noise: isotropic ξ; or the author's anisotropic variant (A8.5; the public notebook ``anisotropic.ipynb``
of farischaudhry/contrastive-learning-temperature-schedules) P(z)·A^{1/2}ξ with an unpreconditioned drift,
which does NOT sample exp(−V/T). On S¹ factors (d = 2) with isotropic noise one normal per factor is
enough: P(z)ξ has the law of η·t(z), t(z) = (−z₂, z₁), η ~ N(0, 1).

Sources: Chaudhry (arXiv 2603.12552) for the model; Hsu, *Stochastic Analysis on Manifolds* (2002)
Sec. 1.2 for Brownian motion on an embedded sphere; Talay & Tubaro (1990) for the weak order-1 bias.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import exp_map, project_tangent, retract
from contrastive_bounds.numerics.langevin._increments import euler_maruyama_increment, noise_scale

__all__ = ["LangevinState", "init", "noise_shape", "tangent_increment", "step"]

ValueAndGrad = Callable[[jax.Array], tuple[jax.Array, jax.Array]]


class LangevinState(NamedTuple):
    """State of one chain.

    Attributes:
      position: shape ``(N, d)``, on (S^{d−1})^N, dtype float32 or float64.
      potential: shape ``()``, V(position), same dtype.
      grad: shape ``(N, d)``, the Euclidean gradient ∇V(position) (not yet projected).
    """

    position: jax.Array
    potential: jax.Array
    grad: jax.Array


def init(position: Any, value_and_grad: ValueAndGrad) -> LangevinState:
    """The state of one chain at ``position`` (shape ``(N, d)``, on the sphere, float32/float64).

    Args:
      position: the chain's points; value_and_grad: ``z -> (V(z), ∇V(z))``, pure JAX.
    Raises:
      X64DisabledError: float64 ``position`` while JAX's x64 mode is off.
    """
    require_x64(position, what="contrastive_bounds.numerics.langevin.steps.sphere.init")
    position = jnp.asarray(position)
    return LangevinState(position, *value_and_grad(position))


def noise_shape(position_shape: tuple[int, ...], *, anisotropic: bool = False) -> tuple[int, int]:
    """Shape of the standard normal noise one step of a chain of ``position_shape`` (``(..., N, d)``) takes:
    ``(N, 1)`` (one tangent normal per S¹ factor) when d = 2 and the noise is isotropic, else ``(N, d)``."""
    n, d = position_shape[-2], position_shape[-1]
    if d == 2 and not anisotropic:
        return (n, 1)
    return (n, d)


def tangent_increment(state: LangevinState, noise: jax.Array, temperature: jax.Array, *, step_size: float,
                      noise_sqrt: Any = None) -> jax.Array:
    """The tangent increment −h·P(z)∇V + sqrt(2·T·h)·P(z)·[A^{1/2}]ξ of one step (shape of the position).

    Args:
      state: one chain. noise: N(0, I) of shape :func:`noise_shape`: ``(N, d)`` ambient (projected here) or
        ``(N, 1)`` tangent coordinates on S¹ factors (isotropic only). temperature: T > 0, a scalar of the
        state's dtype. step_size: h > 0. noise_sqrt: ``None`` or the (d, d) matrix A^{1/2} (A8.5).
    Raises:
      ValueError: tangent noise ``(N, 1)`` with ``noise_sqrt``.
    """
    z = state.position
    dtype = z.dtype
    h = jnp.asarray(step_size, dtype)
    if noise.shape[-1] == 1 and z.shape[-1] == 2:
        if noise_sqrt is not None:
            raise ValueError("anisotropic kernels need ambient noise of shape (N, d)")
        tangent = jnp.stack([-z[..., 1], z[..., 0]], axis=-1)
        return project_tangent(z, -h * state.grad) + (noise_scale(temperature, h) * noise) * tangent
    if noise_sqrt is not None:
        noise = noise @ jnp.asarray(noise_sqrt, dtype).T
    return project_tangent(z, euler_maruyama_increment(state.grad, noise, temperature, h))


def step(state: LangevinState, noise: jax.Array, temperature: jax.Array, *, step_size: float,
         value_and_grad: ValueAndGrad, integrator: str = "euler", noise_sqrt: Any = None) -> LangevinState:
    """One step of one chain (pure, vmappable over state and noise).

    Args:
      state: :class:`LangevinState` (position ``(N, d)``). noise: as :func:`tangent_increment`.
      temperature: T at the step's start time t (left point; the caller evaluates the schedule), a scalar
        of the state's dtype. step_size: h > 0. value_and_grad: ``z -> (V, ∇V)``.
      integrator: ``"euler"`` (normalisation retraction) or ``"geodesic"`` (exponential map).
      noise_sqrt: ``None`` (isotropic) or A^{1/2}, shape ``(d, d)``.
    Returns:
      The next :class:`LangevinState`, same shapes and dtype.
    """
    z = state.position
    increment = tangent_increment(state, noise, temperature, step_size=step_size, noise_sqrt=noise_sqrt)
    new = retract(z, increment) if integrator == "euler" else exp_map(z, increment)
    value, gradient = value_and_grad(new)
    return LangevinState(new, value, gradient)
