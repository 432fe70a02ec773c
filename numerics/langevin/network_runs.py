"""Langevin runs on landscape-network potentials: escape times, Arrhenius exponents, schedules (A4, A5, A8).

The chains run on ``(S^{d−1})^N`` under the potential of a :class:`~contrastive_bounds.numerics.landscapes.network.LandscapeSpec`
(float64, the projected Euler–Maruyama kernel of :mod:`.kernel`), started at a network minimum under
random rotations (:func:`~contrastive_bounds.numerics.landscapes.network_kramers.trap_starts`):

* :func:`escape_sample` — first times ``V < level`` at a fixed temperature, with the censored
  exponential estimate of the mean (:func:`censored_mean`);
* :func:`arrhenius_exponent` — the slope of log mean escape time against 1/T over several
  temperatures, with a bootstrap interval over chains (optionally with the first-order finite-T
  correction ``c·T`` of the prefactor in the model);
* :func:`schedule_sample` — chains under a schedule: who ever reached ``V < level`` and who is below it
  at the horizon.

**Radius.** A spec built with ``radius=R`` is ``V(R·u)`` on unit spheres. Langevin on the radius-R sphere
``x = R·u`` is ``dx = −grad V dt + sqrt(2T) dW``; in ``u`` this is ``du = −R^{−2} grad_u V(Ru) dt +
R^{−1} sqrt(2T) dW``, i.e. the unit-sphere chain of ``V(R·u)`` run on the clock ``s = t/R²``. So every run
here takes ``radius`` and simulates the unit-sphere chain with step ``h/R²`` and temperature
``T(R²·s)``, and reports times in the radius-R clock ``t = R²·s`` (tested against a direct simulation on
the radius-R circle).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real, check_seed

from contrastive_bounds.numerics.langevin import DriverOptions, EnergyBelow, SimulationConfig, simulate
from contrastive_bounds.numerics.langevin._kernel import langevin_kernel
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["EscapeSample", "ArrheniusEstimate", "ScheduleSample", "radius_clock_temperature", "escape_sample",
           "censored_mean", "arrhenius_exponent", "schedule_sample", "run_description"]


def radius_clock_temperature(temperature: Any, radius: float) -> Any:
    """The unit-sphere chain's temperature for a run on the radius-R sphere: ``s -> T(R²·s)``.

    Args:
      temperature: a positive float (returned unchanged) or a ``Schedule``; radius: R > 0.
    Returns:
      A float or a callable ``f(s, xp)`` for :func:`.kernel.langevin_kernel`.
    """
    r2 = check_real("radius", radius, 0.0, math.inf) ** 2
    if isinstance(temperature, (int, float)):
        return check_real("temperature", temperature, 0.0, math.inf)
    if r2 == 1.0:
        return temperature
    return lambda s, xp: temperature.temperature(r2 * s, xp=xp)


def _run(spec: Any, temperature: Any, starts: np.ndarray, *, t_end: float, step_size: float, seed: int, level: float,
         radius: float | None, integrator: str = "euler", **driver: Any) -> Any:
    radius = float(getattr(spec, "radius", 1.0)) if radius is None else radius
    r2 = check_real("radius", radius, 0.0, math.inf) ** 2
    h = check_real("step_size", step_size, 0.0, math.inf)
    te = check_real("t_end", t_end, 0.0, math.inf)
    n = max(1, int(round(te / h)))
    if hasattr(temperature, "validate_range"):
        temperature.validate_range(0.0, n * h)
    kernel = langevin_kernel(spec.potential, temperature=radius_clock_temperature(temperature, radius), step_size=h / r2,
                             integrator=integrator)
    # a checkpoint (given, or written after Ctrl-C) must name the landscape and the schedule it belongs to
    kernel = dataclasses.replace(kernel, description=run_description(kernel, spec, temperature, radius))
    return simulate(kernel, np.asarray(starts, dtype=np.float64),
                    SimulationConfig(num_steps=n, seed=check_seed(seed), target=EnergyBelow(float(level)),
                                     record_every=driver.pop("record_every", n)), DriverOptions(**driver)), r2, n * h


def run_description(kernel: Any, spec: Any, temperature: Any, radius: float) -> str:
    """The kernel's description with what it leaves out for a network potential: the landscape's
    fingerprint (a callable potential is described by its name only), the schedule (the radius clock
    wraps it in a function) and the radius — the checkpoint fingerprint of a run, so that a resume with
    another landscape, schedule or radius is refused naming the difference."""
    fp = spec.fingerprint() if hasattr(spec, "fingerprint") else {"name": getattr(spec, "name", "potential")}
    temp = temperature.describe() if hasattr(temperature, "describe") else repr(temperature)
    return (f"{kernel.description}; landscape {json.dumps(fp, sort_keys=True, default=str)}; schedule {temp}; "
            f"radius {float(radius)!r}")


@dataclass(frozen=True)
class EscapeSample:
    """First times ``V < level`` of chains at a fixed temperature (radius-R clock).

    Attributes:
      temperature: T; hit_time: ``(chains,)`` (``inf``: not by ``t_end``); t_end: the horizon;
      step_size: h (radius-R clock); level: the target level.
    """

    temperature: float
    hit_time: np.ndarray
    t_end: float
    step_size: float
    level: float

    @property
    def chains(self) -> int:
        return int(self.hit_time.size)

    @property
    def hits(self) -> int:
        return int(np.sum(np.isfinite(self.hit_time)))

    def mean(self) -> float:
        """Censored exponential estimate of the mean escape time (:func:`censored_mean`)."""
        return censored_mean(self.hit_time, self.t_end)


def censored_mean(hit_time: Any, t_end: float) -> float:
    """``Σ min(τ_i, t_end) / #{τ_i <= t_end}``: the maximum-likelihood mean of exponential times
    censored at ``t_end`` (escape from a deep well is memoryless up to O(e^{−ΔV/T})).

    Raises:
      ValueError: no time below ``t_end`` (nothing to estimate from).
    """
    t = np.asarray(hit_time, dtype=np.float64)
    te = check_real("t_end", t_end, 0.0, math.inf)
    hit = np.isfinite(t) & (t <= te)
    k = int(hit.sum())
    if k == 0:
        raise ValueError(f"no chain escaped by t_end = {te:g}: the mean escape time cannot be estimated")
    return float(np.sum(np.minimum(np.where(np.isfinite(t), t, te), te)) / k)


def escape_sample(spec: Any, starts: Any, temperature: float, *, t_end: float, step_size: float, seed: int,
                  level: float, radius: float | None = None) -> EscapeSample:
    """Chains from ``starts`` ``(chains, N, d)`` at fixed ``temperature`` until ``t_end``: first times ``V < level``.

    Args:
      spec: a landscape spec (``spec.potential``, unit spheres, float64). starts: initial states.
      temperature: T > 0. t_end: horizon (radius-R clock), > 0. step_size: h > 0 (radius-R clock).
      seed: noise seed. level: the target level (e.g. midway between the trap and the lower minimum).
      radius: R (see the module docstring); None: the spec's own radius.

    Raises:
      ValueError: bad arguments (named). Requires JAX x64.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.network_runs.escape_sample")
    t = check_real("temperature", temperature, 0.0, math.inf)
    res, r2, te = _run(spec, t, starts, t_end=t_end, step_size=step_size, seed=seed, level=level, radius=radius)
    return EscapeSample(t, np.asarray(res.hit_time, dtype=np.float64) * r2, te, float(step_size), float(level))


@dataclass(frozen=True)
class ArrheniusEstimate:
    """Arrhenius exponent from fixed-temperature escape times.

    Attributes:
      barrier: fitted slope H of ``log τ = a + H/T (+ c·T)``; lo, hi: bootstrap percentile interval at
        ``confidence`` (resampling chains within each temperature).
      log_prefactor: the intercept a; correction: the fitted c (0 when the model has no c·T term).
      temperatures, means, hits, chains: per temperature.
      model: ``"linear"`` (a + H/T) or ``"corrected"`` (a + H/T + c·T).
      resamples: bootstrap resamples that could be fitted.
    """

    barrier: float
    lo: float
    hi: float
    log_prefactor: float
    correction: float
    temperatures: tuple[float, ...]
    means: tuple[float, ...]
    hits: tuple[int, ...]
    chains: tuple[int, ...]
    model: str
    confidence: float
    resamples: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _design(temps: np.ndarray, model: str) -> np.ndarray:
    cols = [np.ones_like(temps), 1.0 / temps]
    if model == "corrected":
        cols.append(temps)
    return np.stack(cols, axis=1)


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    sw = np.sqrt(w)
    return np.linalg.lstsq(x * sw[:, None], y * sw, rcond=None)[0]


def arrhenius_exponent(samples: Sequence[EscapeSample], *, model: str = "linear", confidence: float = 0.95,
                       resamples: int = 2000, seed: int = 0) -> ArrheniusEstimate:
    """Slope of log mean escape time against 1/T (the Arrhenius exponent), with a bootstrap interval.

    Each temperature's mean is :func:`censored_mean`; the fit is weighted least squares with weights
    = escapes (the variance of a log exponential mean is about 1/escapes). ``model="corrected"`` adds
    the first-order finite-temperature term ``c·T`` of the prefactor (``τ = A e^{H/T}(1 + c T + …)``),
    which removes the leading bias of the linear fit at moderate ``H/T`` (needs >= 3 temperatures).
    The interval resamples the chains of every temperature with replacement (percentile method).

    Raises:
      ValueError: fewer than 2 temperatures (3 for ``corrected``), repeated temperatures, a
        temperature with no escape, an unknown model, bad confidence/resamples.
    """
    if model not in ("linear", "corrected"):
        raise ValueError(f"model={model!r} must be 'linear' or 'corrected'")
    need = 3 if model == "corrected" else 2
    if len(samples) < need:
        raise ValueError(f"model={model!r} needs at least {need} temperatures, got {len(samples)}")
    temps = np.array([s.temperature for s in samples], dtype=np.float64)
    if np.unique(temps).size != temps.size:
        raise ValueError("temperatures must be distinct")
    conf = check_real("confidence", confidence, 0.0, 1.0)
    resamples = check_int("resamples", resamples, 10, None)
    means = np.array([s.mean() for s in samples])
    hits = np.array([s.hits for s in samples], dtype=np.float64)
    x = _design(temps, model)
    beta = _fit(x, np.log(means), hits)
    rng = np.random.default_rng(check_seed(seed))
    slopes = []
    for _ in range(resamples):
        ys, ws = [], []
        ok = True
        for s in samples:
            t = s.hit_time[rng.integers(0, s.chains, s.chains)]
            k = int(np.sum(np.isfinite(t) & (t <= s.t_end)))
            if k == 0:
                ok = False
                break
            ys.append(math.log(censored_mean(t, s.t_end)))
            ws.append(k)
        if ok:
            slopes.append(_fit(x, np.asarray(ys), np.asarray(ws, dtype=np.float64))[1])
    if len(slopes) < resamples // 2:
        raise ValueError("too few escapes for a bootstrap interval (most resamples had a temperature with none)")
    lo, hi = np.quantile(np.asarray(slopes), [(1 - conf) / 2, (1 + conf) / 2])
    return ArrheniusEstimate(float(beta[1]), float(lo), float(hi), float(beta[0]),
                             float(beta[2]) if model == "corrected" else 0.0, tuple(float(t) for t in temps),
                             tuple(float(m) for m in means), tuple(int(k) for k in hits),
                             tuple(s.chains for s in samples), model, conf, len(slopes))


@dataclass(frozen=True)
class ScheduleSample:
    """Chains under a schedule (radius-R clock).

    Attributes:
      reached: chains that ever had ``V < level`` by ``t_end``.
      below_at_end: chains with ``V(Z_{t_end}) < level``.
      chains: the number of chains; level: the target level.
      t_end: the horizon; step_size: h (radius-R clock).
      hit_time: ``(chains,)`` first times ``V < level`` (``inf``: never).
      final_potential: ``(chains,)`` V at ``t_end``.
      positions: ``(chains, N, d)`` float64 final states (unit spheres).
      running_min: ``(chains,)`` the lowest V each chain saw.
      energy_trace: ``(records, chains)`` V at ``record_times`` ``(records,)`` (radius-R clock).
      num_steps, wall_time, prng_impl, devices: the steps, seconds, noise generator and device count of the run.
    """

    reached: int
    below_at_end: int
    chains: int
    level: float
    t_end: float
    step_size: float
    hit_time: np.ndarray
    final_potential: np.ndarray
    positions: np.ndarray | None = None
    running_min: np.ndarray | None = None
    energy_trace: np.ndarray | None = None
    record_times: np.ndarray | None = None
    num_steps: int = 0
    wall_time: float = 0.0
    prng_impl: str = ""
    devices: int = 1

    @property
    def trapped(self) -> int:
        """Chains that never reached ``V < level``."""
        return self.chains - self.reached


def schedule_sample(spec: Any, starts: Any, schedule: Any, *, t_end: float, step_size: float, seed: int, level: float,
                    radius: float | None = None, integrator: str = "euler", record_every: int | None = None,
                    progress: bool = False, checkpoint: Any = None, resume: bool = False,
                    stop_after_steps: int | None = None) -> ScheduleSample:
    """Chains from ``starts`` ``(chains, N, d)`` under ``schedule`` (a ``Schedule`` of continuous time, radius-R
    clock) to ``t_end`` (``radius`` None: the spec's own radius).

    Args:
      integrator: ``"euler"`` (projected Euler–Maruyama) or ``"geodesic"`` (:func:`.kernel.langevin_kernel`).
      record_every: energy-trace spacing in steps (default: one record, at the end).
      progress, checkpoint, resume, stop_after_steps: passed to :func:`.driver.simulate` (a progress bar;
        save the run's state to a ``.npz`` file and continue it; stop early at a chunk boundary). A
        checkpoint's fingerprint names the landscape, the schedule and the radius (:func:`run_description`).

    Raises:
      ValueError: bad arguments (named); a schedule invalid on [0, t_end] (C12); a checkpoint of another run.
      SimulationInterrupted: Ctrl-C during the run (:func:`.driver.simulate`; its result is in the unit clock).
      X64DisabledError: JAX's x64 mode is off (the run is float64).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.network_runs.schedule_sample")
    driver = {"progress": progress, "checkpoint": checkpoint, "resume": resume, "stop_after_steps": stop_after_steps}
    if record_every is not None:
        driver["record_every"] = record_every
    res, r2, te = _run(spec, schedule, starts, t_end=t_end, step_size=step_size, seed=seed, level=level, radius=radius,
                       integrator=integrator, **driver)
    pot = np.asarray(res.potential, dtype=np.float64)
    return ScheduleSample(int(np.sum(res.hit_time <= res.t_end)), int(np.sum(pot < level)), int(pot.size), float(level),
                          te if res.steps_done == res.num_steps else res.t_end * r2, float(step_size), np.asarray(res.hit_time, dtype=np.float64) * r2, pot,
                          np.asarray(res.positions, dtype=np.float64), np.asarray(res.running_min, dtype=np.float64),
                          np.asarray(res.energy_trace, dtype=np.float64), np.asarray(res.record_times) * r2,
                          int(res.num_steps), float(res.wall_time), str(res.prng_impl), int(res.devices))


def trap_level(trap: Any) -> float:
    """``V_min + δ`` with ``δ = (V(trap) − V_min)/2``: the target level "reached the global set" of runs
    from a network trap (``V_min``: the network's global minimum energy), by the one rule
    :func:`~contrastive_bounds.numerics.langevin._global_set.global_set_level` with the trap outside the set."""
    from contrastive_bounds.numerics.langevin._global_set import global_set_level

    return global_set_level(trap.v_min, [trap.energy])


def trap_step_size(trap: Any, step_scale: float) -> float:
    """``h = step_scale / λ_max``, ``λ_max`` the stiffest Hessian eigenvalue at the trap (``h·λ_max`` is
    the Euler step's stability number: it must stay well below 2)."""
    s = check_real("step_scale", step_scale, 0.0, 1.0, hi_closed=True)
    return s / max(float(trap.stiffest), 1e-12)


def trap_escape_time_guess(trap: Any, temperature: float) -> float:
    """The Eyring–Kramers mean escape time when its prefactor is defined, else ``2π/|λ₁(s)|·e^{H/T}``
    (an order-of-magnitude guess used only to size horizons)."""
    if trap.non_degenerate:
        return math.exp(trap.log_escape_time(temperature))
    s = trap.saddles[0]
    return 2 * math.pi / abs(s.eigenvalues[0]) * math.exp(s.barrier / temperature)


def trap_arrhenius(spec: Any, trap: Any, barrier_over_t: Sequence[float], *, chains: int, step_scale: float,
                   horizon_factor: float, seed: int, model: str = "corrected", confidence: float = 0.95,
                   resamples: int = 2000) -> tuple[ArrheniusEstimate, list[EscapeSample]]:
    """Arrhenius exponent of escape from a network trap (:func:`arrhenius_exponent`).

    Chains start at the trap under random rotations (seed ``seed``), run at ``T = H/r`` for each ratio
    ``r`` of ``barrier_over_t`` (``H`` the trap's barrier) with ``h = step_scale/λ_max`` to
    ``t_end = horizon_factor × trap_escape_time_guess(T)``, and escape when ``V < trap_level(trap)``.

    Raises:
      ValueError: bad arguments (named), or a temperature with no escape.
    """
    from contrastive_bounds.numerics.landscapes.network_kramers import trap_starts

    if not trap.saddles:
        raise ValueError("the trap has no escape saddle")
    hf = check_real("horizon_factor", horizon_factor, 0.0, math.inf)
    h = trap_step_size(trap, step_scale)
    level = trap_level(trap)
    samples = []
    for k, r in enumerate(barrier_over_t):
        ratio = check_real(f"barrier_over_t[{k}]", r, 0.0, math.inf)
        temp = trap.barrier / ratio
        t_end = max(hf * trap_escape_time_guess(trap, temp), 10 * h)
        starts = trap_starts(trap.z, chains, seed + k)
        samples.append(escape_sample(spec, starts, temp, t_end=t_end, step_size=h, seed=seed + 1000 + k, level=level))
    return arrhenius_exponent(samples, model=model, confidence=confidence, resamples=resamples, seed=seed), samples
