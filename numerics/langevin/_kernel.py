"""Annealed overdamped Langevin dynamics on (S^{d−1})^N: the BlackJAX-style kernel of one chain.

A :class:`LangevinKernel` binds a potential, a temperature schedule, a step size, an integrator and the
noise to the pure step functions of :mod:`.steps.sphere` as the pair

* ``init(position) -> LangevinState`` (position of shape ``(N, d)``), and
* ``step(key, state, t) -> LangevinState`` (one step from continuous time ``t``),

both pure and vmappable (``jax.vmap`` for many chains). Time is continuous: step k goes from
t = t_start + k·h to t + h and uses T(t) (left point), never the step index. The dynamics and the two
integrators (``"euler"``, ``"geodesic"``) are described in :mod:`.steps.sphere`; ``anisotropy=A`` gives
the author's anisotropic-noise variant (docs/theorems.md A8.5), which does NOT sample exp(−V/T) (the
kernel says so with ``samples_gibbs = False``).

The driver (:func:`._driver.simulate`) steps many chains with the fastest step path the kernel supports
(:mod:`._paths`: the complex S¹ step, the chains-last step, or ``vmap`` of this kernel's step), all the
same Markov kernel.

Sources: Chaudhry (arXiv 2603.12552) for the model; Hsu, *Stochastic Analysis on Manifolds* (2002)
Sec. 1.2 for Brownian motion on an embedded sphere; Talay & Tubaro (1990) for the weak order-1 bias.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import jax
import numpy as np

from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.numerics.langevin._config import INTEGRATORS
from contrastive_bounds.numerics.langevin._specs import PotentialFunctions, resolve_potential, sqrt_spd
from contrastive_bounds.numerics.langevin.steps import sphere
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState
from contrastive_bounds.numerics.langevin._temperature import KernelTemperature, TemperatureProgram, kernel_temperature

__all__ = ["LangevinKernel", "StepSizeWarning", "langevin_kernel"]


class StepSizeWarning(RuntimeWarning):
    """Issued by :func:`._driver.simulate` when ``step_size`` is too large for the landscape
    (:meth:`LangevinKernel.step_size_warning`): the run goes on, but its results may be meaningless."""


@dataclass(frozen=True, eq=False)
class LangevinKernel:
    """Projected Langevin kernel of one chain on (S^{d−1})^N (construct with :func:`langevin_kernel`).

    Attributes:
      potential: the potential's functions (:class:`._specs.PotentialFunctions`: V, ∇V, their fused form,
        and the fast forms the driver's step paths use).
      temperature: the schedule (:class:`._temperature.KernelTemperature`: ``t -> T(t)``, what it was made
        from, and its compiled program with data, so that schedules of one form share compiled chunks).
      step_size: h > 0 (continuous-time units).
      integrator: ``"euler"`` or ``"geodesic"``.
      noise_sqrt: ``None`` (isotropic) or the (d, d) matrix A^{1/2} of the anisotropic variant.
      description: a one-line human description (also used to fingerprint checkpoints).
      compile_key: hashable; kernels with equal keys differ at most in their temperature's values, so they
        share compiled chunks (:func:`._chunk.chunk_fn`); ``None``: the kernel is its own key.
    """

    potential: PotentialFunctions
    temperature: KernelTemperature
    step_size: float
    integrator: str = "euler"
    noise_sqrt: np.ndarray | None = None
    description: str = ""
    compile_key: Any = None

    @property
    def samples_gibbs(self) -> bool:
        """True iff the chain targets exp(−V/T) at fixed T (False for anisotropic noise, A8.5)."""
        return self.noise_sqrt is None

    @property
    def temperature_fn(self) -> Callable[[jax.Array], jax.Array]:
        """``t -> T(t)``, pure JAX, elementwise."""
        return self.temperature.fn

    def temperature_data(self, dtype: Any) -> np.ndarray:
        """The data of the temperature program for a run in ``dtype`` ((0,) without a program)."""
        return self.temperature.data(dtype)

    def with_temperature_data(self, data: Any) -> LangevinKernel:
        """This kernel with its temperature evaluated by its program on ``data`` (a traced array inside a
        compiled chunk; :meth:`._temperature.KernelTemperature.with_data`).

        Raises:
          ValueError: the kernel's temperature has no program.
        """
        return dataclasses.replace(self, temperature=self.temperature.with_data(data))

    def step_size_warning(self) -> str | None:
        """Why ``step_size`` is too large for this landscape, or ``None`` (also when no bound is known).

        The Euler step contracts near a minimum only when ``h·|V''| < 2``, and its O(h) bias is small
        only when ``h·|V''| << 1``; with ``sup|V''| <= curvature_bound`` this returns a message when
        ``h·curvature_bound > 1`` (results are finite but may be meaningless). Source: the stability
        of explicit Euler on the linearised drift (e.g. Kloeden & Platen, 1992, §9.8).
        """
        bound = self.potential.curvature_bound
        if bound is None or self.step_size * bound <= 1.0:
            return None
        return (f"step_size={self.step_size:g} is large for this landscape: h * sup|V''| can reach "
                f"{self.step_size * bound:.3g} > 1, so the O(h) bias of the Euler step is not small "
                f"and the results may be meaningless; use step_size < {1.0 / bound:.3g}")

    def init(self, position: jax.Array) -> LangevinState:
        """The state of one chain at ``position`` (shape ``(N, d)``, on the sphere)."""
        return sphere.init(position, self.potential.value_and_grad)

    def noise_shape(self, position_shape: tuple[int, ...]) -> tuple[int, ...]:
        """Shape of the standard normal noise one step of a chain of ``position_shape`` consumes:
        ``(N, 1)`` on S¹ factors with isotropic noise (one tangent normal per factor, the same Markov
        kernel at half the random-number cost), else ``(N, d)`` (:func:`.steps.sphere.noise_shape`)."""
        return sphere.noise_shape(position_shape, anisotropic=self.noise_sqrt is not None)

    def step_with_noise(self, state: LangevinState, noise: jax.Array, t: jax.Array) -> LangevinState:
        """One step from continuous time ``t`` with given standard normal ``noise`` (shape :meth:`noise_shape`).

        Pure and vmappable; the deterministic core of :meth:`step` (:func:`.steps.sphere.step` at T(t)).
        """
        return sphere.step(state, noise, self.temperature.at(t, state.position.dtype), step_size=self.step_size,
                           value_and_grad=self.potential.value_and_grad, integrator=self.integrator,
                           noise_sqrt=self.noise_sqrt)

    def step(self, key: jax.Array, state: LangevinState, t: jax.Array) -> LangevinState:
        """One step of one chain from continuous time ``t`` (pure, vmappable over key/state).

        Args:
          key: PRNG key; state: :class:`.steps.sphere.LangevinState` with position ``(N, d)``; t: scalar time.
        Returns:
          The next state.
        """
        noise = jax.random.normal(key, self.noise_shape(state.position.shape), state.position.dtype)
        return self.step_with_noise(state, noise, t)


def langevin_kernel(
    potential: Any,
    grad: Callable[[jax.Array], jax.Array] | None = None,
    *,
    temperature: Any,
    step_size: float,
    integrator: str = "euler",
    anisotropy: Any = None,
) -> LangevinKernel:
    """Build the annealed Langevin kernel for a potential on (S^{d−1})^N.

    Args:
      potential: a :class:`contrastive_bounds.numerics.landscapes.Landscape` (its ``potential``,
        ``grad`` and fast forms are used) or a pure JAX callable ``V(z)``, z of shape ``(N, d)`` -> scalar.
      grad: the Euclidean gradient of V, ``(N, d) -> (N, d)``; default: the landscape's ``grad``,
        else ``jax.grad(potential)``.
      temperature: a positive float (fixed T), a ``Schedule`` (``theory.annealing``), or a callable
        ``f(t, xp)``; evaluated at continuous time t = t_start + k·h. Schedules should be checked
        with ``Schedule.validate_range`` over the run's time span before simulating (C12); the
        driver does this when given a Schedule.
      step_size: h > 0, finite (continuous-time units).
      integrator: ``"euler"`` (projected Euler–Maruyama + normalisation, default) or ``"geodesic"``.
      anisotropy: ``None`` (isotropic, samples exp(−V/T)), or the author's diffusion matrix A: an
        SPD ``(d, d)`` array or a positive ``(d,)`` diagonal. Noise becomes P(z)A^{1/2}ξ with an
        unpreconditioned drift; the result does NOT sample exp(−V/T) (A8.5).

    Returns:
      A :class:`LangevinKernel`.

    Raises:
      ValueError: bad step_size, unknown integrator, bad anisotropy or temperature.

    Examples:
      One chain at θ = π of the double well, one step (BlackJAX style: ``init``, then a pure ``step``):

      >>> import jax, jax.numpy as jnp
      >>> from contrastive_bounds.numerics.landscapes import get_landscape
      >>> from contrastive_bounds.theory import make_schedule
      >>> kernel = langevin_kernel(get_landscape("double-well"), temperature=make_schedule("temperature", c=2.0, t0=2.0),
      ...                          step_size=0.02)
      >>> state = kernel.init(jnp.array([[-1.0, 0.0]]))
      >>> float(state.potential)                    # V(π) = -0.5
      -0.5
      >>> state = kernel.step(jax.random.key(0), state, 0.0)
      >>> state.position.shape, round(float(jnp.linalg.norm(state.position)), 12)    # still on the unit circle
      ((1, 2), 1.0)
    """
    h = check_real("step_size", step_size, 0.0, math.inf)
    if integrator not in INTEGRATORS:
        raise ValueError(f"integrator={integrator!r} is not one of {INTEGRATORS}")
    functions = resolve_potential(potential, grad)
    temp = kernel_temperature(temperature)
    noise_sqrt = None
    if anisotropy is not None:
        a = np.asarray(anisotropy, dtype=np.float64)
        d = a.shape[-1] if a.ndim >= 1 else 0
        noise_sqrt = sqrt_spd("anisotropy", a, d)
    description = (
        f"langevin(potential={functions.name}, integrator={integrator}, step_size={h!r}, "
        f"temperature={temp.description}, anisotropy="
        f"{None if noise_sqrt is None else np.round(noise_sqrt @ noise_sqrt, 12).tolist()})"
    )
    return LangevinKernel(potential=functions, temperature=temp, step_size=h, integrator=integrator,
                          noise_sqrt=noise_sqrt, description=description,
                          compile_key=_compile_key(potential, grad, h, integrator, noise_sqrt, temp.program))


def _compile_key(potential: Any, grad: Any, step_size: float, integrator: str, noise_sqrt: Any,
                 program: TemperatureProgram) -> Any:
    """What a kernel's compiled chunk depends on besides its temperature values (None if unhashable)."""
    key = (potential, grad, step_size, integrator,
           None if noise_sqrt is None else (noise_sqrt.shape, noise_sqrt.tobytes()), program)
    try:
        hash(key)
    except TypeError:
        return None
    return key
