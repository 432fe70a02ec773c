"""Annealed overdamped Langevin dynamics on (S^{d−1})^N: a BlackJAX-style kernel.

The kernel is a pair of pure functions ``init(position) -> LangevinState`` and
``step(key, state, t) -> LangevinState`` acting on ONE chain (position of shape ``(N, d)``); use
``jax.vmap`` for many chains (the driver in :mod:`.driver` does, with one noise draw per step for
all chains through :meth:`LangevinKernel.step_with_noise`).

Dynamics (A1 of docs/theorems.md): dZ = −grad V(Z) dt + sqrt(2 T(t)) dW^M on M = (S^{d−1})^N, with the
Riemannian gradient grad V = P(Z)∇V and P(z) = I − zzᵀ per factor. Time is continuous: step k
goes from t = t_start + k·h to t + h and uses T(t) (left point), never the step index.

Integrators (``integrator=``):

* ``"euler"`` (default): projected Euler–Maruyama with the normalisation retraction,
  z ← normalize(z − h·P(z)∇V + sqrt(2·T(t)·h)·P(z)ξ), ξ ~ N(0, I_d) per factor. The
  normalisation supplies the Itô drift −(d−1)·T·z of Brownian motion on the sphere, so at fixed T
  the chain samples exp(−V/T) up to an O(h) bias (weak order 1).
* ``"geodesic"``: the same tangent increment applied through the exponential map,
  z ← exp_z(−h·P(z)∇V + sqrt(2·T(t)·h)·P(z)ξ); also weak order 1, with a different O(h) bias.

``anisotropy=A`` gives the author's anisotropic-noise variant (docs/theorems.md A8.5; the public notebook
``anisotropic.ipynb`` of farischaudhry/contrastive-learning-temperature-schedules): the noise is
P(z)·A^{1/2}ξ while the drift is NOT preconditioned by A. This chain does NOT sample exp(−V/T)
(for A ≠ I its stationary law is not the Gibbs law; with A = diag(10, 10, 0.01) it is a hotter
chain); the kernel marks it with ``samples_gibbs = False``.

Sources: Chaudhry (arXiv 2603.12552) for the model; Hsu, *Stochastic Analysis on Manifolds* (2002)
Sec. 1.2 for Brownian motion on an embedded sphere; Talay & Tubaro (1990) for the weak order-1 bias.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_real

from contrastive_bounds.numerics.fastmath import rsqrt
from contrastive_bounds.numerics.sphere import exp_map, project_tangent, retract
from contrastive_bounds.numerics.langevin.specs import as_temperature_fn, resolve_potential, sqrt_spd
from contrastive_bounds.numerics.langevin.temperature import TemperatureProgram, temperature_program
from contrastive_bounds.numerics.langevin.increments import euler_maruyama_increment, noise_scale

__all__ = [
    "LangevinState",
    "LangevinKernel",
    "StepSizeWarning",
    "langevin_kernel",
    "as_temperature_fn",
    "euler_maruyama_increment",
    "noise_scale",
]

INTEGRATORS = ("euler", "geodesic")


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


class StepSizeWarning(RuntimeWarning):
    """Issued by :func:`.driver.simulate` when ``step_size`` is too large for the landscape
    (:meth:`LangevinKernel.step_size_warning`): the run goes on, but its results may be meaningless."""


@dataclass(frozen=True, eq=False)
class LangevinKernel:
    """Projected Langevin kernel on (S^{d−1})^N (construct with :func:`langevin_kernel`).

    Attributes:
      potential: V, ``(N, d) -> ()``, pure JAX.
      grad: ∇V (Euclidean), ``(N, d) -> (N, d)``, pure JAX.
      temperature_fn: ``t -> T(t)``, pure JAX, elementwise.
      step_size: h > 0 (continuous-time units).
      integrator: ``"euler"`` or ``"geodesic"``.
      noise_sqrt: ``None`` (isotropic) or the (d, d) matrix A^{1/2} of the anisotropic variant.
      samples_gibbs: True iff the chain targets exp(−V/T) at fixed T (False for anisotropic noise).
      description: a one-line human description (also used to fingerprint checkpoints).
      temperature_spec: what was passed as ``temperature`` (a float, Schedule or callable); the
        driver calls its ``validate_range`` over the run's time span when it has one.
      curvature_bound: an upper bound of ``sup|V''(θ)|`` when one is known in closed form (S¹
        Fourier landscapes: ``Σ k²(|a_k| + |b_k|)``), else ``None``; see :meth:`step_size_warning`.
      temperature_program, temperature_values: the temperature as a compiled-in program and the
        values of its traced parameters (:mod:`.temperature`): inside a compiled chunk T(t) is
        ``temperature_program(temperature_data(dtype), t)``, bit for bit what compiling
        ``temperature_fn`` would give; ``None`` and ``()`` for a kernel built without :func:`langevin_kernel`.
      compile_key: hashable; kernels with equal keys differ at most in ``temperature_values``, so
        they share compiled chunks (:func:`.chunk.chunk_fn`); ``None``: the kernel is its own key.
    """

    potential: Callable[[jax.Array], jax.Array]
    grad: Callable[[jax.Array], jax.Array]
    temperature_fn: Callable[[jax.Array], jax.Array]
    step_size: float
    value_and_grad: Callable[[jax.Array], tuple[jax.Array, jax.Array]] | None = None
    integrator: str = "euler"
    noise_sqrt: np.ndarray | None = None
    description: str = ""
    samples_gibbs: bool = field(default=True)
    temperature_spec: Any = None
    value_and_grad_batched: Callable[[jax.Array], tuple[jax.Array, jax.Array]] | None = None
    circle_value_and_derivative: Callable[[Any, Any], tuple[Any, Any]] | None = None
    curvature_bound: float | None = None
    temperature_program: TemperatureProgram | None = None
    temperature_values: Any = ()
    compile_key: Any = None

    def temperature_data(self, dtype: Any) -> np.ndarray:
        """The data of the temperature program for a run in ``dtype`` ((0,) without a program)."""
        if self.temperature_program is None:
            return np.zeros(0, dtype)
        return self.temperature_program.data(self.temperature_values, dtype)

    def with_temperature_data(self, data: Any) -> "LangevinKernel":
        """This kernel with ``temperature_fn`` evaluated by its temperature program on ``data`` (from
        :meth:`temperature_data`; a traced array inside a compiled chunk).

        Raises:
          ValueError: the kernel has no temperature program (built without :func:`langevin_kernel`).
        """
        if self.temperature_program is None:
            raise ValueError("this kernel has no temperature program (build it with langevin_kernel)")
        return dataclasses.replace(self, temperature_fn=functools.partial(self.temperature_program, data))

    def step_size_warning(self) -> str | None:
        """Why ``step_size`` is too large for this landscape, or ``None`` (also when no bound is known).

        The Euler step contracts near a minimum only when ``h·|V''| < 2``, and its O(h) bias is small
        only when ``h·|V''| << 1``; with ``sup|V''| <= curvature_bound`` this returns a message when
        ``h·curvature_bound > 1`` (results are finite but may be meaningless). Source: the stability
        of explicit Euler on the linearised drift (e.g. Kloeden & Platen, 1992, §9.8).
        """
        if self.curvature_bound is None or self.step_size * self.curvature_bound <= 1.0:
            return None
        return (f"step_size={self.step_size:g} is large for this landscape: h * sup|V''| can reach "
                f"{self.step_size * self.curvature_bound:.3g} > 1, so the O(h) bias of the Euler step is not small "
                f"and the results may be meaningless; use step_size < {1.0 / self.curvature_bound:.3g}")

    @property
    def supports_chains_last(self) -> bool:
        """Whether :meth:`step_chains_last` is available: the potential accepts trailing batch axes
        (``value_and_grad_batched``), the integrator is ``"euler"`` and the noise is isotropic."""
        return self.value_and_grad_batched is not None and self.integrator == "euler" and self.noise_sqrt is None

    @property
    def supports_circle(self) -> bool:
        """Whether :meth:`step_circle` is available: one point on S¹ with a known ``(V, V'(θ))`` in
        z-coordinates (S¹ Fourier landscapes), the ``"euler"`` integrator and isotropic noise."""
        return self.circle_value_and_derivative is not None and self.integrator == "euler" and self.noise_sqrt is None

    def circle_state(self, w: jax.Array) -> LangevinState:
        """The state :meth:`step_circle` works on for points ``w = z₀ + i·z₁`` (complex, any shape):
        position ``w``, potential ``V`` and, in the ``grad`` slot, ``V'(θ)`` (real, shape of ``w``)."""
        value, deriv = self.circle_value_and_derivative(w.real, w.imag)
        return LangevinState(w, value, deriv)

    def step_circle(self, w: jax.Array, noise: jax.Array, t: jax.Array) -> jax.Array:
        """One step of all chains on S¹ in complex coordinates (the driver's fastest path).

        Args:
          w: positions ``z₀ + i·z₁``, complex64/complex128 of any shape (one per chain), |w| = 1.
          noise: standard normals, real, the shape of ``w`` (the tangent coordinate of each chain).
          t: scalar continuous time.
        Returns:
          The new positions, shape and dtype of ``w``.

        The same Markov kernel as :meth:`step_with_noise` on S¹ (equal up to rounding): with
        a = −h·V'(θ) + sqrt(2Th)·η, z ← (z + a·t(z))/|z + a·t(z)|, t(z) = (−z₁, z₀). V'(θ) is
        evaluated from ``w`` inside the step, and the state is the positions alone, so that a step
        is one elementwise loop over chains: complex numbers keep both coordinates in one array
        (no stack/concatenate, which XLA:CPU compiles to scalar code) and the normalisation uses
        :func:`.fastmath.rsqrt`. Use :meth:`circle_state` for V and V'(θ) at the new positions.
        """
        if not self.supports_circle:
            raise ValueError("step_circle needs an S¹ Fourier landscape, the euler integrator and isotropic noise")
        x, y = w.real, w.imag
        dtype = x.dtype
        h = jnp.asarray(self.step_size, dtype)
        scale = noise_scale(jnp.asarray(self.temperature_fn(jnp.asarray(t, dtype)), dtype), h)
        _, deriv = self.circle_value_and_derivative(x, y)
        a = -h * deriv + scale * noise
        nx, ny = x - a * y, y + a * x
        r = rsqrt(nx * nx + ny * ny)
        return jax.lax.complex(nx * r, ny * r)

    def step_chains_last(self, state: LangevinState, noise: jax.Array, t: jax.Array) -> LangevinState:
        """One step of ALL chains at once, in the chains-last layout (the driver's fast path).

        Args:
          state: position and grad of shape ``(N, d, chains)``, potential ``(chains,)``.
          noise: standard Gaussian of shape ``noise_shape((N, d)) + (chains,)``.
          t: scalar continuous time.

        The same Markov kernel as :meth:`step_with_noise` (equal up to floating-point rounding):
        z ← (z + w)/|z + w| with w = P(z)(−h∇V + sqrt(2Th)ξ); on S¹ factors w = a·(−z₁, z₀) with
        a = −h·(∇V·(−z₁, z₀)) + sqrt(2Th)·η. Elementwise over chains with no ``vmap`` (so no
        layout transposes) and :func:`.fastmath.rsqrt` (vectorised Newton, within 2 ulps) for the
        normalisation (|z + w| ≥ 1 for tangent w, so it never meets a zero). Requires
        :attr:`supports_chains_last`.
        """
        if not self.supports_chains_last:
            raise ValueError("step_chains_last needs a landscape with trailing-batch value_and_grad, "
                             "the euler integrator and isotropic noise")
        z = state.position
        dtype = z.dtype
        h = jnp.asarray(self.step_size, dtype)
        temp = jnp.asarray(self.temperature_fn(jnp.asarray(t, dtype)), dtype)
        scale = noise_scale(temp, h)
        g = state.grad
        if z.shape[1] == 2 and noise.shape[1] == 1:
            x, y = z[:, 0], z[:, 1]
            a = -h * (g[:, 1] * x - g[:, 0] * y) + scale * noise[:, 0]
            nx, ny = x - a * y, y + a * x
            # (the driver steps S¹ Fourier landscapes with step_circle instead: this stack compiles
            # to scalar code on XLA:CPU)
            r = rsqrt(nx * nx + ny * ny)
            new = jnp.stack([nx * r, ny * r], axis=1)
        else:
            w = -h * g + scale * noise
            w = w - _dot1(w, z) * z
            v = z + w
            new = v * rsqrt(_dot1(v, v))
        value, gradient = self.value_and_grad_batched(new)
        return LangevinState(new, value, gradient)

    def init(self, position: jax.Array) -> LangevinState:
        """Build the state of one chain at ``position`` (shape ``(N, d)``, on the sphere)."""
        position = jnp.asarray(position)
        return LangevinState(position, *self._value_and_grad(position))

    def noise_shape(self, position_shape: tuple[int, ...]) -> tuple[int, ...]:
        """Shape of the standard Gaussian noise one step consumes for a chain of ``position_shape``.

        ``(N, d)`` in general. On S¹ factors (d = 2) with isotropic noise the tangent space is a line
        spanned by t(z) = (−z₂, z₁), and P(z)ξ has the law of η·t(z) with η ~ N(0, 1): one normal per
        factor, shape ``(N, 1)`` — the same Markov kernel at half the random-number cost.
        """
        n, d = position_shape[-2], position_shape[-1]
        if d == 2 and self.noise_sqrt is None:
            return (n, 1)
        return (n, d)

    def step_with_noise(self, state: LangevinState, noise: jax.Array, t: jax.Array) -> LangevinState:
        """One step from continuous time ``t`` with given standard Gaussian ``noise``.

        Args:
          state: one chain (position ``(N, d)``).
          noise: N(0, I) of shape :meth:`noise_shape` — ``(N, d)`` ambient noise (projected here), or
            ``(N, 1)`` tangent coordinates on S¹ factors (isotropic kernels only).
          t: scalar continuous time of the current state.

        Pure and vmappable; this is the deterministic core of :meth:`step`.
        """
        z = state.position
        dtype = z.dtype
        h = jnp.asarray(self.step_size, dtype)
        temp = jnp.asarray(self.temperature_fn(jnp.asarray(t, dtype)), dtype)
        if noise.shape[-1] == 1 and z.shape[-1] == 2:
            if self.noise_sqrt is not None:
                raise ValueError("anisotropic kernels need ambient noise of shape (N, d)")
            tangent = jnp.stack([-z[..., 1], z[..., 0]], axis=-1)
            increment = project_tangent(z, -h * state.grad) + (noise_scale(temp, h) * noise) * tangent
        else:
            if self.noise_sqrt is not None:
                noise = noise @ jnp.asarray(self.noise_sqrt, dtype).T
            increment = project_tangent(z, euler_maruyama_increment(state.grad, noise, temp, h))
        if self.integrator == "euler":
            new = retract(z, increment)
        else:
            new = exp_map(z, increment)
        value, gradient = self._value_and_grad(new)
        return LangevinState(new, value, gradient)

    def _value_and_grad(self, z: jax.Array) -> tuple[jax.Array, jax.Array]:
        if self.value_and_grad is not None:
            return self.value_and_grad(z)
        return self.potential(z), self.grad(z)

    def step(self, key: jax.Array, state: LangevinState, t: jax.Array) -> LangevinState:
        """One step of one chain from continuous time ``t`` (pure, vmappable over key/state).

        Args:
          key: PRNG key; state: :class:`LangevinState` with position ``(N, d)``; t: scalar time.
        Returns:
          The next :class:`LangevinState`.
        """
        noise = jax.random.normal(key, self.noise_shape(state.position.shape), state.position.dtype)
        return self.step_with_noise(state, noise, t)


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
      potential: a :class:`contrastive_bounds.numerics.landscapes.registry.Landscape` (its ``potential`` and
        ``grad`` are used) or a pure JAX callable ``V(z)``, z of shape ``(N, d)`` -> scalar.
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
    """
    h = check_real("step_size", step_size, 0.0, math.inf)
    if integrator not in INTEGRATORS:
        raise ValueError(f"integrator={integrator!r} is not one of {INTEGRATORS}")
    batched = None
    if grad is None and getattr(potential, "trailing_batch", False) and getattr(potential, "value_and_grad_fn", None) is not None:
        batched = potential.value_and_grad_fn  # accepts (N, d, *batch): the driver's chains-last fast path
    circle = None
    series = getattr(potential, "fourier", None)
    if grad is None and series is not None and (potential.num_points, potential.dim) == (1, 2):
        circle = series.value_and_derivative_z  # (x, y) -> (V, V'(θ)): the driver's complex S¹ path
    v, g, vg, name = resolve_potential(potential, grad)
    temp_fn = as_temperature_fn(temperature)
    program, values = temperature_program(temperature)
    noise_sqrt = None
    if anisotropy is not None:
        a = np.asarray(anisotropy, dtype=np.float64)
        d = a.shape[-1] if a.ndim >= 1 else 0
        noise_sqrt = sqrt_spd("anisotropy", a, d)
    if hasattr(temperature, "describe"):
        temp_desc = temperature.describe()
    elif callable(temperature):
        temp_desc = getattr(temperature, "__qualname__", type(temperature).__name__)
    else:
        temp_desc = repr(float(temperature))
    desc = (
        f"langevin(potential={name}, integrator={integrator}, step_size={h!r}, "
        f"temperature={temp_desc}, anisotropy={None if noise_sqrt is None else np.round(noise_sqrt @ noise_sqrt, 12).tolist()})"
    )
    return LangevinKernel(
        potential=v,
        grad=g,
        value_and_grad=vg,
        temperature_fn=temp_fn,
        step_size=h,
        integrator=integrator,
        noise_sqrt=noise_sqrt,
        description=desc,
        samples_gibbs=noise_sqrt is None,
        temperature_spec=temperature,
        value_and_grad_batched=batched,
        circle_value_and_derivative=circle,
        curvature_bound=(series.derivative_bound(2) if series is not None and grad is None
                         and (potential.num_points, potential.dim) == (1, 2) else None),
        temperature_program=program,
        temperature_values=values,
        compile_key=_compile_key(potential, grad, h, integrator, noise_sqrt, program),
    )


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
