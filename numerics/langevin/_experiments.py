"""Reusable annealing experiments on S¹ landscapes: trap, start states, Kramers band, schedule runs.

Joins the simulator (:mod:`._driver`, :mod:`._kernel`) with the escape theory
(:mod:`contrastive_bounds.theory._kramers`, :mod:`.escape`) for the checks of Paper A
(docs/theorems.md A4, A5, A8) and the ``anneal`` command:

* :func:`circle_trap` — the deepest non-global minimum of an S¹ Fourier landscape with its two
  saddles, barriers and Kramers log-prefactors;
* :func:`start_positions` — ``(chains, N, d)`` float64 initial states (``trap``, ``uniform``, ``global``);
* :func:`kramers_trap_band` — the Kramers probability of never escaping the trap,
  ``exp(−∫ dt/τ(T(t)))`` (docs/theorems.md A5), with a band from a stated model-error factor (exact
  MFPT / Kramers at the hottest temperature of the run, times the step-size factor);
* :func:`misscaled_temperature` — fault injection: the temperature seen by a simulator whose noise is
  scaled wrong (case C11);
* :func:`run_schedule` — chains under a schedule from a start mode, with success/trapped counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import jax
import numpy as np

from contrastive_bounds.theory._domains import check_int, check_seed, check_real
from contrastive_bounds.theory._kramers import expected_escapes

from contrastive_bounds.numerics.landscapes._registry import Landscape
from contrastive_bounds.numerics.langevin._annealing import START_MODES
from contrastive_bounds.numerics.langevin._config import DriverOptions, SimulationConfig
from contrastive_bounds.numerics.langevin._driver import simulate
from contrastive_bounds.numerics.langevin._kernel import langevin_kernel
from contrastive_bounds.numerics.langevin._global_set import DEFAULT_MARGIN, global_set_margin
from contrastive_bounds.numerics.langevin._observables import EnergyBelow
from contrastive_bounds.numerics._sphere import uniform
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["CircleTrap", "KramersBand", "ScheduleRun", "circle_trap", "start_positions",
           "kramers_trap_band", "misscaled_temperature", "run_schedule", "default_delta", "STEP_BIAS_PER_UNIT_H",
           "STEP_BIAS_PER_CURVATURE", "step_factor"]

#: Relative O(h) bias of projected-Euler escape times per unit step size on the double well, with
#: margin: the measured bias is +14 % at h = 0.04 (+3.5 per unit h; tests/numerics/langevin/test_mfpt.py,
#: T = 0.3); 5 per unit h is allowed there (check A5.kramers). It does not carry over to other
#: landscapes: the bias scales with the curvature (see :data:`STEP_BIAS_PER_CURVATURE`).
STEP_BIAS_PER_UNIT_H = 5.0
#: Log escape-rate bias of the projected Euler-Maruyama chain on S¹ per unit of ``h·sup|V''|``, with margin.
#: The Euler-Maruyama chain's first-order modified invariant measure ``exp(−Ṽ/T)``,
#: ``Ṽ = V − (h/4)V'² + (hT/2)V''``, changes the barrier by ``−(hT/2)(V''(x) + |V''(s)|)``, and the
#: normalisation retraction ``θ ← θ + atan(a)`` shrinks the drift by ``1 − 2Th`` and the noise by
#: ``1 − 4Th`` (a further O(h·ΔV) term): both are O(h) times the scale of V'' (ΔV <= sup|V''|·π²/2).
#: Measured (mean first-passage times from the trap against the exact quadrature, 2 000 chains,
#: docs/annealing.md): |log(τ_h/τ)| / (h·sup|V''|) = 0.60-0.70 on barrier-H at H* = 10 (T = 2,
#: h = 0.005-0.04) and 0.54-0.80 on the double well (T = 0.3, h = 0.01-0.04; escapes are slower, i.e.
#: the chain is trapped longer). 1.0 is allowed: the step factor of :func:`kramers_trap_band` is
#: ``1 + h·sup|V''|`` (>= the measured exp(0.7·h·sup|V''|) up to h·sup|V''| = 1.2), with ``sup|V''|``
#: bounded by ``Σ k²(|a_k| + |b_k|)`` (the bound of the kernel's step-size warning). For the double well
#: it is 1 + 4.5h, close to the 1 + 5h calibrated there.
STEP_BIAS_PER_CURVATURE = 1.0


@dataclass(frozen=True)
class CircleTrap:
    """The deepest non-global minimum of an S¹ landscape (the trap) and its escape data.

    Attributes:
      theta: the minimum (radians, [0, 2π)); value: V there; depth: the barrier to a lower minimum.
      saddles: (left, right) highest maxima on the two escape paths (radians).
      barriers: ``V(saddle) − V(theta)`` per saddle (both > 0).
      log_prefactors: ``log(sqrt(|V''(saddle)|·V''(theta))/(2π))`` per saddle (Kramers, S¹ form).
    """

    theta: float
    value: float
    depth: float
    saddles: tuple[float, float]
    barriers: tuple[float, ...]
    log_prefactors: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"theta": self.theta, "value": self.value, "depth": self.depth, "saddles": list(self.saddles),
                "barriers": list(self.barriers), "log_prefactors": list(self.log_prefactors)}


def circle_trap(landscape: Landscape) -> CircleTrap | None:
    """The deepest non-global minimum of an S¹ Fourier landscape, or ``None`` (no Fourier form / no trap).

    Source: exact critical points of :func:`.circle.analyse_circle` (docs/theorems.md A3); prefactors
    of the S¹ Kramers law (docs/theorems.md A5, two saddles: rates add).

    Precision: numpy float64 on the Fourier series, no JAX: the same result whatever JAX's x64 mode
    (the float64 policy refuses only where JAX would compute in float32); never raises
    ``X64DisabledError``.

    Raises:
      ValueError: a degenerate minimum or saddle (zero curvature: the Kramers prefactor is undefined).
    """
    if landscape.fourier is None:
        return None
    from contrastive_bounds.numerics.landscapes._circle import analyse_circle

    crit = analyse_circle(landscape.fourier)
    if not crit.depths:
        return None
    rec = max(crit.depths, key=lambda r: r.depth)
    curv_min = float(landscape.d2potential_theta(rec.theta))
    barriers, log_pref = [], []
    for s, vs in zip(rec.saddles, rec.saddle_values):
        curv_s = float(landscape.d2potential_theta(s))
        if curv_min <= 0 or curv_s >= 0:
            raise ValueError(f"degenerate trap at theta={rec.theta!r}: V''(min)={curv_min!r}, V''(saddle)={curv_s!r}")
        barriers.append(float(vs) - rec.value)
        log_pref.append(0.5 * math.log(abs(curv_s) * curv_min) - math.log(2 * math.pi))
    return CircleTrap(float(rec.theta), float(rec.value), float(rec.depth), tuple(float(s) for s in rec.saddles),
                      tuple(barriers), tuple(log_pref))


def start_positions(landscape: Landscape, mode: str, chains: int, seed: int, trap: CircleTrap | None = None) -> np.ndarray:
    """Initial states, float64 array ``(chains, N, d)`` on the sphere.

    Args:
      landscape: any landscape; mode: ``"trap"`` (every chain at the trap of an S¹ landscape; pass
        ``trap`` or it is computed), ``"uniform"`` (i.i.d. uniform, key ``fold_in(key(seed), 1)``: independent of the
        simulation's own noise, which uses ``key(seed)``) or ``"global"``
        (every chain at ``landscape.minima[0]``); chains: >= 1; seed: integer in [0, 2**32 - 1] (the range of
        :func:`._driver.simulate`).

    Raises:
      ValueError: seed or chains out of range; unknown mode; ``trap`` on a landscape without one; ``global`` without listed minima.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.start_positions")
    chains = check_int("chains", chains, 1, None)
    seed = check_seed(seed)
    if mode == "uniform":
        return np.asarray(uniform(jax.random.fold_in(jax.random.key(seed), 1), (chains, landscape.num_points, landscape.dim), dtype=np.float64))
    if mode == "trap":
        trap = trap if trap is not None else circle_trap(landscape)
        if trap is None:
            raise ValueError(f"mode='trap' needs an S¹ landscape with a non-global minimum; {landscape.name!r} has none known")
        z = np.array([[math.cos(trap.theta), math.sin(trap.theta)]])
    elif mode == "global":
        if not landscape.minima:
            raise ValueError(f"mode='global': landscape {landscape.name!r} lists no minima")
        z = np.asarray(landscape.minima[0], dtype=np.float64)
    else:
        raise ValueError(f"mode={mode!r} is not one of {START_MODES}")
    return np.broadcast_to(z, (chains,) + z.shape).copy()


@dataclass(frozen=True)
class KramersBand:
    """Kramers probability of never escaping a trap on [t_start, t_end], with its model-error band.

    Attributes:
      predicted: ``exp(−N)``, ``N = ∫ Σ_i k_i exp(−ΔV_i/T(t)) dt`` (Kramers rates, Poisson escapes).
      lo, hi: ``exp(−N·F_h)`` and ``exp(−N/(F_T·F_h))``: the band the true never-escape probability of
        the simulated chain lies in when its escape rate is within ``[k/(F_T·F_h), k·F_h]`` of Kramers.
      log_expected_escapes: ``log N``.
      model_factor: ``F_T = max(r, 1/r)``, r = exact MFPT / Kramers time at ``max_temperature``
        (the hottest temperature of the run, where Kramers is least accurate; r → 1 as T → 0, A5), or
        at the smallest temperature the quadrature supports when that is hotter.
      step_factor: ``F_h = 1 + STEP_BIAS_PER_CURVATURE·h·sup|V''|`` (:func:`step_factor`: the
        projected Euler step's escape-rate bias, O(h) times the curvature).
      max_temperature: the hottest temperature on the range.
    """

    predicted: float
    lo: float
    hi: float
    log_expected_escapes: float
    model_factor: float
    step_factor: float
    max_temperature: float

    def to_dict(self) -> dict[str, float]:
        """JSON-ready dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _exp_neg(log_n: float, scale: float) -> float:
    if log_n == -math.inf:
        return 1.0
    x = math.log(scale) + log_n
    return math.exp(-math.exp(x)) if x < 700 else 0.0


def step_factor(landscape: Landscape, step_size: float) -> float:
    """``1 + STEP_BIAS_PER_CURVATURE·h·C₂``: the allowance for the projected Euler step's escape-rate bias.

    ``C₂ = Σ k²(|a_k| + |b_k|) >= sup|V''|`` for an S¹ Fourier landscape (4.5 for the double well; 29.39
    for barrier-H at H* = 10, whose curvature is 6.53 times larger). The bias of the log escape rate is
    O(h) times the curvature (see :data:`STEP_BIAS_PER_CURVATURE` for the derivation and the measured
    coefficients), so the band widens with ``h·C₂`` rather than with ``h`` alone.

    Args:
      landscape: S¹ Fourier landscape; step_size: h > 0.

    Raises:
      ValueError: not an S¹ Fourier landscape; h not > 0.
    """
    h = check_real("step_size", step_size, 0.0, math.inf)
    if landscape.fourier is None:
        raise ValueError(f"landscape {landscape.name!r} is not an S¹ Fourier landscape (no curvature bound)")
    return 1.0 + STEP_BIAS_PER_CURVATURE * h * landscape.fourier.derivative_bound(2)


def kramers_trap_band(landscape: Landscape, schedule: Any, trap: CircleTrap, t_start: float, t_end: float,
                      step_size: float) -> KramersBand:
    """Kramers never-escape probability of a trap under a schedule, with a stated model-error band.

    Args:
      landscape: the S¹ Fourier landscape of ``trap``; schedule: a ``Schedule`` (theory.annealing),
        validated on the range here; trap: from :func:`circle_trap`; t_start <= t_end: continuous
        time; step_size: the simulator's ``h > 0`` (sets the step factor :func:`step_factor`, which
        grows with ``h·sup|V''|``).

    Returns:
      :class:`KramersBand`. The exact-MFPT ratio is computed by mpmath quadrature
      (:func:`.escape.circle_escape_times`) once, at the hottest temperature on the range (all
      schedule forms are non-increasing in t); ratios at colder temperatures are closer to 1
      (checked by the A5 check). When that temperature is below the smallest the quadrature
      supports (:func:`.escape.min_escape_temperature`: barriers of order a thousand times T), the
      ratio is taken at that smallest temperature instead, which is hotter, so the band only widens.

    Raises:
      ValueError: bad range or schedule (C12), a landscape that is not S¹ Fourier.

    Source: docs/theorems.md A5 (Eyring–Kramers; probability of never escaping ≈ exp(−∫ dt/τ(T(t)))).
    """
    from contrastive_bounds.numerics.landscapes._escape import circle_escape_times

    h = check_real("step_size", step_size, 0.0, math.inf)
    schedule.validate_range(t_start, t_end)
    log_n = expected_escapes(schedule, list(trap.barriers), list(trap.log_prefactors), t_start, t_end)
    t_max = float(schedule.temperature(float(t_start)))
    recs = [r for r in circle_escape_times(landscape, t_max, clamp_temperature=True) if abs(r.theta - trap.theta) < 1e-9]
    ratio = recs[0].ratio if recs else 1.0
    f_t = max(ratio, 1.0 / ratio)
    f_h = step_factor(landscape, h)
    return KramersBand(_exp_neg(log_n, 1.0), _exp_neg(log_n, f_h), _exp_neg(log_n, 1.0 / (f_t * f_h)), log_n,
                       f_t, f_h, t_max)


def misscaled_temperature(schedule: Any, noise_factor: float) -> Callable[[Any, Any], Any]:
    """Fault injection: the temperature a simulator effectively uses when its noise is ``noise_factor`` × right.

    A step's noise ``noise_factor·sqrt(2·T·h)`` equals ``sqrt(2·T_eff·h)`` with
    ``T_eff = noise_factor²·T`` (the drift does not depend on T). The C11 error (noise ``sqrt(2T)·h``
    instead of ``sqrt(2Th)``) is ``noise_factor = sqrt(h)``.

    Args:
      schedule: a ``Schedule`` or a positive float (fixed T); noise_factor: > 0.

    Returns:
      ``f(t, xp) -> T_eff(t)`` accepted as ``temperature`` by :func:`.langevin.langevin_kernel`.
    """
    f2 = check_real("noise_factor", noise_factor, 0.0, math.inf) ** 2
    if isinstance(schedule, (int, float)):
        temp = check_real("temperature", schedule, 0.0, math.inf)
        return lambda t, xp: 0.0 * t + f2 * temp
    return lambda t, xp: f2 * schedule.temperature(t, xp=xp)


@dataclass
class ScheduleRun:
    """Result of :func:`run_schedule`.

    Attributes:
      chains: number of chains; level: success level ``V_min + delta``; delta: δ.
      success: chains with ``V(Z_{t_end}) < level``; reached: chains that hit ``{V < level}`` by t_end
        (``chains − reached`` never escaped: the trapped count).
      potential: ``(chains,)`` final V; hit_time: ``(chains,)`` (inf: never);
      energy_trace: ``(records, chains)`` V at ``record_times`` ``(records,)``.
      t_end, step_size, num_steps, wall_time: the time reached, h, the steps and the seconds taken.
      prng_impl: the noise generator that ran; devices: how many devices the chains were split over.
    """

    chains: int
    level: float
    delta: float
    success: int
    reached: int
    potential: np.ndarray
    hit_time: np.ndarray
    energy_trace: np.ndarray
    record_times: np.ndarray
    t_end: float
    step_size: float
    num_steps: int
    wall_time: float
    prng_impl: str = "threefry2x32"
    devices: int = 1

    @property
    def trapped(self) -> int:
        """Chains that never reached ``{V < level}`` by ``t_end``."""
        return self.chains - self.reached


def default_delta(landscape: Landscape, trap: CircleTrap | None) -> float:
    """The success tolerance δ: half the gap between the trap and the global minimum (else
    :data:`~.global_set.DEFAULT_MARGIN`), by the one rule :func:`~.global_set.global_set_margin`."""
    if trap is not None and landscape.v_min is not None:
        return global_set_margin(landscape.v_min, [trap.value])
    return DEFAULT_MARGIN


def run_schedule(landscape: Landscape, temperature: Any, *, chains: int, t_end: float, step_size: float, seed: int,
                 start: str = "trap", delta: float | None = None, noise_factor: float = 1.0,
                 record_every: int | None = None, anisotropy: Any = None, integrator: str = "euler",
                 options: DriverOptions | None = None) -> ScheduleRun:
    """Run ``chains`` annealed Langevin chains (float64) and count successes and escapes.

    Args:
      landscape: a landscape with known ``v_min``; temperature: a ``Schedule`` or positive float;
      chains: >= 1; t_end: > 0, a whole multiple of ``step_size``; step_size: h > 0; seed: in [0, 2**32 - 1];
      start: a mode of :func:`start_positions`; delta: success tolerance δ > 0 (default
      :func:`default_delta`); noise_factor: 1 for the correct simulator, anything else injects a
      mis-scaled noise (:func:`misscaled_temperature`); record_every: energy-trace spacing in steps;
      anisotropy: passed to :func:`.langevin.langevin_kernel` (A8.5 variant); integrator: ``"euler"``
      (projected Euler-Maruyama) or ``"geodesic"``; options: the :class:`._config.DriverOptions` of the run
      (progress bar, checkpoint and resume, ...; default: none).

    Returns:
      :class:`ScheduleRun`.

    Raises:
      ValueError: bad arguments (named), unknown ``v_min``, a schedule invalid on [0, t_end] (C12),
        or a trap start inside the target set.
      SimulationInterrupted: Ctrl-C during the run (see :func:`._driver.simulate`).

    Requires JAX x64 (the run is float64).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.run_schedule")
    if landscape.v_min is None:
        raise ValueError(f"landscape {landscape.name!r} has no known global minimum value; success is undefined")
    h = check_real("step_size", step_size, 0.0, math.inf)
    te = check_real("t_end", t_end, 0.0, math.inf)
    n = int(round(te / h))
    if n < 1 or abs(n * h - te) > 1e-9 * max(1.0, te):
        raise ValueError(f"t_end={te!r} must be a positive whole multiple of step_size={h!r}")
    trap = circle_trap(landscape) if landscape.fourier is not None else None
    d = default_delta(landscape, trap) if delta is None else check_real("delta", delta, 0.0, math.inf)
    if start == "trap" and trap is not None and trap.value < landscape.v_min + d:
        raise ValueError(f"delta={d!r} puts the trap (V={trap.value:.6g}) inside the target; use delta < {trap.value - landscape.v_min:.6g}")
    if hasattr(temperature, "validate_range"):
        temperature.validate_range(0.0, te)
    temp = temperature if noise_factor == 1.0 else misscaled_temperature(temperature, noise_factor)
    kernel = langevin_kernel(landscape, temperature=temp, step_size=h, anisotropy=anisotropy, integrator=integrator)
    pos = start_positions(landscape, start, chains, seed, trap)
    target = EnergyBelow(landscape.v_min + d)
    res = simulate(kernel, pos, SimulationConfig(num_steps=n, seed=seed, target=target, record_every=record_every),
                   options)
    return ScheduleRun(chains, target.level, d, int(np.sum(res.potential < target.level)), int(np.sum(res.hit)),
                       res.potential, res.hit_time, res.energy_trace, res.record_times, res.t_end, h, n, res.wall_time,
                       res.prng_impl, res.devices)
