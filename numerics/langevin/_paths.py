"""How the driver steps all chains of a run: the step paths a kernel supports and the one it chooses.

A step path is one of the pure step functions of :mod:`.steps` bound to a kernel, with the layout it
keeps the chains in inside a compiled chunk and the conversions from and to the chains-first
:class:`.steps.sphere.LangevinState` the driver keeps outside (initial states, checkpoints, results):

========================  ===============================================  =================================
path                      kernels                                          state inside the chunk
========================  ===============================================  =================================
``"circle"``              S¹ Fourier landscapes (N = 1, d = 2), Euler,     :class:`.steps.circle.CircleState`
                          isotropic noise
``"chains-last"``         landscapes evaluated on trailing batch axes      :class:`.steps.chains_last.ChainsLastState`
                          (U0, S¹ Fourier), Euler, isotropic noise
``"vmap"``                every kernel (``jax.vmap`` of its one-chain      :class:`.steps.chains_last.ChainsLastState`
                          :func:`.steps.sphere.step`)
========================  ===============================================  =================================

All three are the same Markov kernel, equal up to floating-point rounding (the tests compare them with
the same noise). By default the driver takes the first supported path of :data:`._config.STEP_PATHS`, the
fastest (benchmarks/README.md: the complex S¹ step and the chains-last step have no per-chain ``vmap``,
no stack/concatenate and no layout transposes); ``DriverOptions(step_path=...)`` takes another one.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import jax

from contrastive_bounds.numerics.langevin._config import STEP_PATHS
from contrastive_bounds.numerics.langevin._kernel import LangevinKernel
from contrastive_bounds.numerics.langevin.steps import chains_last, circle, sphere
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState

__all__ = ["StepPath", "supported_step_paths", "default_step_path", "choose_step_path", "step_path"]


class StepPath(NamedTuple):
    """One way to step all chains of a run (built by :func:`step_path`; every function is pure).

    Attributes:
      name: one of :data:`._config.STEP_PATHS`.
      enter: chains-first :class:`.steps.sphere.LangevinState` (position ``(chains, N, d)``) -> the path's state.
      step: ``(state, noise, temperature) -> (state, potential)``: one step of all chains and V ``(chains,)``
        at the new positions; ``temperature`` is T at the step's start time, a scalar of the run's dtype.
      potential: ``state -> (chains,)``: V at the state's positions (read from the state, or evaluated where
        the state does not carry it).
      noise_shape: ``state -> shape`` of one step's standard normals for all chains.
      positions: ``state -> (N, d, chains)``: the positions as targets and basins see them.
      leave: the path's state -> chains-first :class:`.steps.sphere.LangevinState`.
    """

    name: str
    enter: Callable[[LangevinState], Any]
    step: Callable[[Any, jax.Array, jax.Array], tuple[Any, jax.Array]]
    potential: Callable[[Any], jax.Array]
    noise_shape: Callable[[Any], tuple[int, ...]]
    positions: Callable[[Any], jax.Array]
    leave: Callable[[Any], LangevinState]


def supported_step_paths(kernel: LangevinKernel) -> tuple[str, ...]:
    """The step paths ``kernel`` supports, fastest first (``"vmap"`` always, last)."""
    fast = kernel.integrator == "euler" and kernel.noise_sqrt is None
    out = []
    if fast and kernel.potential.circle_value_and_derivative is not None:
        out.append("circle")
    if fast and kernel.potential.batched_value_and_grad is not None:
        out.append("chains-last")
    return tuple(out) + ("vmap",)


def default_step_path(kernel: LangevinKernel) -> str:
    """The fastest step path ``kernel`` supports (what a run takes unless told otherwise)."""
    return supported_step_paths(kernel)[0]


def choose_step_path(kernel: LangevinKernel, requested: str | None = None) -> str:
    """``requested`` if ``kernel`` supports it, the default when ``None``.

    Raises:
      ValueError: naming ``step_path`` when it is not one of :data:`._config.STEP_PATHS` or the kernel does
        not support it (and which paths it supports).
    """
    if requested is None:
        return default_step_path(kernel)
    supported = supported_step_paths(kernel)
    if requested not in STEP_PATHS:
        raise ValueError(f"step_path={requested!r} is not one of {STEP_PATHS}")
    if requested not in supported:
        raise ValueError(f"step_path={requested!r} is not supported by this kernel ({kernel.description}); it "
                         f"supports {supported}")
    return requested


def step_path(kernel: LangevinKernel, name: str) -> StepPath:
    """The :class:`StepPath` ``name`` of ``kernel`` (its potential, step size, integrator and noise bound in;
    the temperature is the caller's, step by step).

    Raises:
      ValueError: as :func:`choose_step_path`.
    """
    name = choose_step_path(kernel, name)
    h = kernel.step_size
    if name == "circle":
        vd = kernel.potential.circle_value_and_derivative
        return StepPath(name, circle.from_chains_first,
                        functools.partial(circle.step, step_size=h, value_and_derivative=vd),
                        functools.partial(circle.potential, value_and_derivative=vd),
                        lambda state: state.position.shape, circle.real_positions,
                        functools.partial(circle.to_chains_first, value_and_derivative=vd))
    if name == "chains-last":
        return StepPath(name, chains_last.from_chains_first,
                        _with_potential(functools.partial(chains_last.step, step_size=h,
                                                          value_and_grad=kernel.potential.batched_value_and_grad)),
                        _potential, lambda state: chains_last.noise_shape(state.position.shape), _position,
                        chains_last.to_chains_first)
    one_chain = functools.partial(sphere.step, step_size=h, value_and_grad=kernel.potential.value_and_grad,
                                  integrator=kernel.integrator, noise_sqrt=kernel.noise_sqrt)
    every_chain = jax.vmap(one_chain, in_axes=(-1, -1, None), out_axes=-1)

    def vmapped(state: chains_last.ChainsLastState, noise: jax.Array, temperature: jax.Array):
        return chains_last.ChainsLastState(*every_chain(LangevinState(*state), noise, temperature))

    def noise_shape(state: chains_last.ChainsLastState) -> tuple[int, ...]:
        n, d, chains = state.position.shape
        return kernel.noise_shape((n, d)) + (chains,)

    return StepPath(name, chains_last.from_chains_first, _with_potential(vmapped), _potential, noise_shape, _position,
                    chains_last.to_chains_first)


def _with_potential(step: Callable[..., Any]) -> Callable[..., tuple[Any, jax.Array]]:
    """A step whose state carries V as a step returning ``(state, V)``."""
    def stepped(state: Any, noise: jax.Array, temperature: jax.Array) -> tuple[Any, jax.Array]:
        new = step(state, noise, temperature)
        return new, new.potential
    return stepped


def _potential(state: Any) -> jax.Array:
    return state.potential


def _position(state: Any) -> jax.Array:
    return state.position
