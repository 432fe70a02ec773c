"""Shared pieces of Paper A's checks: intervals, cached schedule runs, the Kramers band comparison.

Every stochastic check compares a simulated proportion or mean with a theoretical value and a
*stated* model-error allowance (never a free tolerance): trapped fractions with the Kramers band of
:func:`contrastive_bounds.numerics.langevin.kramers_trap_band` (model factor = exact MFPT /
Kramers at the hottest temperature of the run, step factor 1 + 5h), means with the exact
quadrature. Intervals are Clopper-Pearson / normal at 99.9 %; ``p_value`` feeds Holm.

:func:`trap_vs_kramers` also checks, inside the check, every theory value the band is made of
against a second implementation (:mod:`._independent_annealing`): the schedule's temperatures at
given times (not only its asymptotic verdict), the trap's barriers and Kramers prefactors, the
expected number of escapes, and the model factor, recomputed from an exact MFPT that does not use
the Kramers formula under test. A band whose model factor came from the function it validates
would cancel that function's error; here the two must agree.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy import stats as sst

from contrastive_bounds.theory._schedules import make_schedule

from contrastive_bounds.properties.checks._agreement import Agreement, agreement, apply_agreements
from contrastive_bounds.properties.checks._outcome import Outcome, PlotSpec, Series
import contrastive_bounds.properties.checks._independent_annealing as ind
from contrastive_bounds.properties._stats import binomial_upper_p, samples_to_decide_proportion
from contrastive_bounds.numerics._stats import clopper_pearson

__all__ = ["PAPER_A", "CONF", "H_DOUBLE_WELL", "band_test", "kramers_curve", "trapped_plot", "schedule_run", "fit_slope",
           "miss_slope",
           "trap_vs_kramers", "landscape_scale", "verify_band", "vmf_mean_z3_simulated", "vmf_exact"]

PAPER_A = "A"
CONF = 0.999  # confidence of every interval (false alarm 1e-3 per check before Holm)
H_DOUBLE_WELL = 1.53125


def band_test(k: int, n: int, lo: float, hi: float) -> tuple[str, float, tuple[float, float]]:
    """Is the proportion k/n consistent with a true value in [lo, hi]? -> (verdict, p-value, CI 99.9 %).

    holds: the Clopper-Pearson interval meets the band; violated: it is disjoint from it. The
    p-value is the exact binomial tail against the nearest band end (1 inside the band).
    """
    ci = clopper_pearson(k, n, CONF)
    p_hat = k / n
    if p_hat > hi:
        p = binomial_upper_p(k, n, hi)
    elif p_hat < lo:
        p = float(sst.binom.cdf(k, n, lo))
    else:
        p = 1.0
    verdict = "violated" if (ci.lo > hi or ci.hi < lo) else "holds"
    return verdict, min(1.0, p), (ci.lo, ci.hi)


def kramers_curve(sched: Any, trap: Any, times: list[float]) -> list[float]:
    """Kramers never-escaped probability exp(-int_0^t dt/tau) at each time."""
    from contrastive_bounds.theory._kramers import log_probability_never_escape

    return [math.exp(log_probability_never_escape(sched, list(trap.barriers), list(trap.log_prefactors), 0.0, t))
            for t in times]


def trapped_plot(title: str, run: Any, sched: Any, trap: Any) -> PlotSpec:
    """Figure: simulated never-escaped fraction vs the Kramers curve over time."""
    times = [float(x) for x in np.geomspace(max(run.step_size, run.t_end / 1000), run.t_end, 12)]
    sim = [float(np.mean(~(run.hit_time <= t))) for t in times]
    return PlotSpec(title, "continuous time t", "fraction never escaped",
                    [Series("simulation", times, sim), Series("Kramers exp(-int dt/tau)", times,
                                                                kramers_curve(sched, trap, times), style="--")],
                    logx=True)


@functools.lru_cache(maxsize=16)
def schedule_run(landscape: str, land_params: tuple, form: str, sched_params: tuple, chains: int, t_end: float,
                 step_size: float, seed: int, noise_factor: float, start: str = "trap") -> tuple:
    """``(landscape, schedule, trap, ScheduleRun)`` of a run (cached: several checks share runs)."""
    from contrastive_bounds.numerics.langevin._experiments import circle_trap, run_schedule
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    land = get_landscape(landscape, **dict(land_params))
    sched = make_schedule(form, **dict(sched_params))
    run = run_schedule(land, sched, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start=start,
                       noise_factor=noise_factor)
    return land, sched, circle_trap(land), run


def fit_slope(t: np.ndarray, miss: np.ndarray, log_power: float) -> tuple[float, float]:
    """Least squares of ``log P_miss − p·log log(1+t) = log C − s·log(1+t)``: returns ``(s, log C)``.

    Args:
      t: times, float (R,) with t > 0; miss: miss probabilities at those times, (R,) in [0, 1] (zeros
      are floored at 1e-12); log_power: p, the power of the log factor (docs/theorems.md A6).
    """
    y = np.log(np.maximum(miss, 1e-12)) - log_power * np.log(np.log1p(t))
    a = np.polyfit(np.log1p(t), y, 1)
    return float(-a[0]), float(a[1])


def miss_slope(run: Any, level: float, t_min: float, log_power: float, bootstrap: int,
               seed: int) -> tuple[np.ndarray, np.ndarray, float, float, tuple[float, float], float]:
    """Decay slope of the miss probability ``P(V(Z_t) >= level)`` of a run, with its bootstrap interval.

    The chains are resampled with replacement ``bootstrap`` times (seeded by ``seed``); the interval is
    the (1 ± CONF)/2 quantiles of the refitted slopes (99.9 %: false alarm 1e-3 for a true slope outside it).

    Returns:
      ``(t, miss, slope, log C, (lo, hi), bootstrap sd)``; ``t`` the record times >= ``t_min``, ``miss``
      the (records, chains) booleans.
    """
    keep = run.record_times >= t_min
    t = run.record_times[keep]
    miss = run.energy_trace[keep] >= level  # (records, chains)
    s, log_c = fit_slope(t, miss.mean(axis=1), log_power)
    rng = np.random.default_rng(seed)
    boots = [fit_slope(t, miss[:, rng.integers(0, run.chains, run.chains)].mean(axis=1), log_power)[0]
             for _ in range(int(bootstrap))]
    lo, hi = (float(x) for x in np.quantile(boots, [(1 - CONF) / 2, (1 + CONF) / 2]))
    return t, miss, s, log_c, (lo, hi), float(np.std(boots, ddof=1))


def landscape_scale(land: Any) -> float | None:
    """f when ``land`` is f·double-well (``double-well``: 1, ``barrier-H``: H/1.53125), else None."""
    if land.name == "double-well":
        return 1.0
    if land.name == "barrier-H":
        return float(land.params["H"]) / H_DOUBLE_WELL
    return None


def verify_band(land: Any, sched: Any, trap: Any, band: Any, t_end: float) -> list[Agreement]:
    """Every ingredient of the Kramers band against its independent value (see the module docstring).

    Returns no rows for a landscape outside the double-well family (no closed form: the band is
    then only the toolkit's; the check's summary says so through the absence of the count).
    """
    scale = landscape_scale(land)
    if scale is None:
        return []
    from contrastive_bounds.numerics.landscapes._escape import min_escape_temperature

    rows = ind.verify_schedule(sched, [0.0, t_end / 3.0, t_end])
    rows += ind.verify_trap(trap, scale)
    log_n = ind.expected_escapes_mp(scale, sched.form, dict(sched.params), 0.0, t_end)
    n_tool = math.exp(band.log_expected_escapes) if band.log_expected_escapes > -math.inf else 0.0
    rows.append(agreement("kramers_trap_band expected escapes N", f"{sched.form}, [0, {t_end:g}]", n_tool,
                          math.exp(log_n) if log_n > -math.inf else 0.0, rtol=1e-7))
    temp = max(band.max_temperature, min_escape_temperature(land))
    exact, _ = ind.mfpt_grid(ind.double_well_potential(scale), math.pi, 0.0, 2 * math.pi, temp)
    ratio = exact * float(ind.kramers_rate(scale, temp))
    rows.append(agreement("kramers_trap_band model factor (exact MFPT / Kramers)", f"T={temp:.6g}", band.model_factor,
                          max(ratio, 1.0 / ratio), rtol=1e-7))
    return rows


def trap_vs_kramers(land: Any, sched: Any, trap: Any, run: Any, *, need_positive: bool) -> tuple[Outcome, Any]:
    """Trapped fraction vs the Kramers band (and, if asked, Clopper-Pearson lower bound > 0), with the
    band's ingredients checked against their independent values (:func:`verify_band`)."""
    from contrastive_bounds.numerics.langevin._experiments import kramers_trap_band

    band = kramers_trap_band(land, sched, trap, 0.0, run.t_end, run.step_size)
    verdict, p, ci = band_test(run.trapped, run.chains, band.lo, band.hi)
    frac = run.trapped / run.chains
    text = (f"trapped (never reached V < {run.level:.4g}) {frac:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] vs Kramers "
            f"{band.predicted:.4f}, band [{band.lo:.4f}, {band.hi:.4f}] (model factor {band.model_factor:.3f} = exact/Kramers "
            f"at T_max = {band.max_temperature:.3g}, step factor {band.step_factor:.3f})")
    if need_positive and ci[0] <= 0.0:
        verdict = "violated" if verdict == "violated" else "inconclusive"
        text += "; the trapped fraction's lower bound is 0"
    out = Outcome(verdict, text, bound=band.predicted, band=(band.lo, band.hi), empirical=frac, interval=ci,
                  ratio=frac / band.predicted if band.predicted > 0 else None, false_alarm=1 - CONF, p_value=p,
                  samples=run.chains)
    if verdict == "inconclusive":
        out.samples_needed = samples_to_decide_proportion(frac, 0.0 if frac > 0 else 0.5, CONF)
    apply_agreements(out, verify_band(land, sched, trap, band, run.t_end))
    return out, band


def vmf_exact(kappa: float, temperature: float) -> float:
    """E[z3] = coth(kappa/T) - T/kappa of vMF on S² (docs/theorems.md A1)."""
    x = kappa / temperature
    return 1.0 / math.tanh(x) - 1.0 / x


def vmf_mean_z3_simulated(kappa: float, temperature: float, chains: int, step_size: float, t_burn: float, t_end: float,
                          seed: int, noise_factor: float = 1.0, anisotropy: Any = None) -> tuple[float, float]:
    """Mean of z3 under the chain on S² (per-chain time averages after burn-in) and its standard error."""
    from contrastive_bounds.numerics.langevin import default_record_every
    from contrastive_bounds.numerics.langevin._experiments import run_schedule
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    land = get_landscape("vmf", kappa=kappa, dim=3)
    n = int(round(t_end / step_size))
    run = run_schedule(land, temperature, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start="global",
                       delta=0.1, noise_factor=noise_factor, record_every=default_record_every(n, 200),
                       anisotropy=anisotropy)
    keep = run.record_times >= t_burn
    z3 = -run.energy_trace[keep] / kappa  # (records, chains)
    per_chain = z3.mean(axis=0)
    return float(per_chain.mean()), float(per_chain.std(ddof=1) / math.sqrt(chains))

