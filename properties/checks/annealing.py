"""Checks of Paper A (Chaudhry, arXiv 2603.12552; THEOREMS.md A1-A8): annealed Langevin on spheres.

Every stochastic check compares a simulated proportion or mean with a theoretical value and a
*stated* model-error allowance (never a free tolerance): trapped fractions with the Kramers band of
:func:`contrastive_bounds.numerics.langevin.experiments.kramers_trap_band` (model factor = exact MFPT /
Kramers at the hottest temperature of the run, step factor 1 + 5h), means with the exact
quadrature. Intervals are Clopper-Pearson / normal at 99.9 %; ``p_value`` feeds Holm.

Fault injection (used by tests/properties/test_checks_annealing.py): ``noise_factor`` (a simulator whose noise
is that many times the right one; sqrt(h) is the C11 error), ``rule`` (``"hks"`` or the seed note's
``"seed-inverted"`` condition decides what a schedule is asserted to do), ``exponent`` (``"delta/Gamma"``
or the seed note's ``"seed"``), ``landscape`` (A8.4), ``anisotropy`` (A8.5).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np
from scipy import stats as sst

from contrastive_bounds.theory import registry
from contrastive_bounds.theory.annealing import make_schedule

from contrastive_bounds.properties.checks.claims import claims_outcome
from contrastive_bounds.properties.checks.framework import Outcome, PlotSpec, Series, check
from contrastive_bounds.properties.stats import binomial_upper_p, clopper_pearson, samples_to_decide_proportion

PAPER_A = "A"
CONF = 0.999  # confidence of every interval below (false alarm 1e-3 per check before Holm)
H_DOUBLE_WELL = 1.53125


def _band_test(k: int, n: int, lo: float, hi: float) -> tuple[str, float, tuple[float, float]]:
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


def _kramers_curve(land: Any, sched: Any, trap: Any, times: list[float]) -> list[float]:
    from contrastive_bounds.theory.kramers import log_probability_never_escape

    return [math.exp(log_probability_never_escape(sched, list(trap.barriers), list(trap.log_prefactors), 0.0, t))
            for t in times]


def _trapped_plot(title: str, run: Any, land: Any, sched: Any, trap: Any) -> PlotSpec:
    times = [float(x) for x in np.geomspace(max(run.step_size, run.t_end / 1000), run.t_end, 12)]
    sim = [float(np.mean(~(run.hit_time <= t))) for t in times]
    return PlotSpec(title, "continuous time t", "fraction never escaped",
                    [Series("simulation", times, sim), Series("Kramers exp(-int dt/tau)", times,
                                                                _kramers_curve(land, sched, trap, times), style="--")],
                    logx=True)


@functools.lru_cache(maxsize=16)
def _schedule_run(landscape: str, land_params: tuple, form: str, sched_params: tuple, chains: int, t_end: float,
                  step_size: float, seed: int, noise_factor: float, start: str = "trap") -> tuple:
    from contrastive_bounds.numerics.langevin.experiments import circle_trap, run_schedule
    from contrastive_bounds.numerics.landscapes.registry import get_landscape

    land = get_landscape(landscape, **dict(land_params))
    sched = make_schedule(form, **dict(sched_params))
    run = run_schedule(land, sched, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start=start,
                       noise_factor=noise_factor)
    return land, sched, circle_trap(land), run


def _trap_vs_kramers(land: Any, sched: Any, trap: Any, run: Any, *, need_positive: bool) -> tuple[Outcome, Any]:
    """Trapped fraction vs the Kramers band (and, if asked, Clopper-Pearson lower bound > 0)."""
    from contrastive_bounds.numerics.langevin.experiments import kramers_trap_band

    band = kramers_trap_band(land, sched, trap, 0.0, run.t_end, run.step_size)
    verdict, p, ci = _band_test(run.trapped, run.chains, band.lo, band.hi)
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
    return out, band


# ------------------------------------------------------------------------------------ A1
def _vmf_mean_z3(kappa: float, temperature: float, chains: int, step_size: float, t_burn: float, t_end: float,
                 seed: int, noise_factor: float = 1.0, anisotropy: Any = None) -> tuple[float, float]:
    """Mean of z3 under the chain on S² (per-chain time averages after burn-in) and its standard error."""
    from contrastive_bounds.numerics.langevin import default_record_every
    from contrastive_bounds.numerics.langevin.experiments import run_schedule
    from contrastive_bounds.numerics.landscapes.registry import get_landscape

    land = get_landscape("vmf", kappa=kappa, dim=3)
    n = int(round(t_end / step_size))
    run = run_schedule(land, temperature, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start="global",
                       delta=0.1, noise_factor=noise_factor, record_every=default_record_every(n, 200),
                       anisotropy=anisotropy)
    keep = run.record_times >= t_burn
    z3 = -run.energy_trace[keep] / kappa  # (records, chains)
    per_chain = z3.mean(axis=0)
    return float(per_chain.mean()), float(per_chain.std(ddof=1) / math.sqrt(chains))


def _vmf_exact(kappa: float, temperature: float) -> float:
    x = kappa / temperature
    return 1.0 / math.tanh(x) - 1.0 / x


@check("A1.vmf", theorem="A1 projected Euler-Maruyama on S² (Gibbs law exp(-V/T))", paper=PAPER_A,
       statement="isotropic chain on V = -kappa z3 at kappa/T = 2: E[z3] = coth 2 - 1/2 = 0.5373147 within the "
                 "99.9% interval of the Richardson-extrapolated mean (measured O(h) bias reported)",
       quick={"kappa": 1.0, "temperature": 0.5, "chains": 512, "step_size": 0.04, "t_burn": 4.0, "t_end": 24.0,
              "noise_factor": 1.0},
       thorough={"kappa": 1.0, "temperature": 0.5, "chains": 4096, "step_size": 0.02, "t_burn": 4.0, "t_end": 44.0,
                 "noise_factor": 1.0})
def vmf(params: Mapping[str, Any], seed: int) -> Outcome:
    kappa, temp, h = float(params["kappa"]), float(params["temperature"]), float(params["step_size"])
    exact = _vmf_exact(kappa, temp)
    args = (kappa, temp, int(params["chains"]))
    m1, s1 = _vmf_mean_z3(*args, h, float(params["t_burn"]), float(params["t_end"]), seed, float(params["noise_factor"]))
    m2, s2 = _vmf_mean_z3(*args, h / 2, float(params["t_burn"]), float(params["t_end"]), seed + 1,
                          float(params["noise_factor"]))
    rich, se = 2 * m2 - m1, math.sqrt(4 * s2 * s2 + s1 * s1)
    z = (rich - exact) / se
    p = float(2 * sst.norm.sf(abs(z)))
    q = float(sst.norm.ppf(0.5 + CONF / 2))
    lo, hi = rich - q * se, rich + q * se
    verdict = "holds" if lo <= exact <= hi else "violated"
    return Outcome(verdict, f"E[z3] extrapolated {rich:.5f} [{lo:.5f}, {hi:.5f}] vs exact {exact:.7f}; measured O(h) "
                            f"bias {m1 - exact:+.5f} at h = {h:g}, {m2 - exact:+.5f} at h = {h / 2:g}",
                   bound=exact, empirical=rich, interval=(lo, hi), ratio=rich / exact, false_alarm=1 - CONF, p_value=p,
                   samples=int(params["chains"]),
                   details={"exact": exact, "mean_h": m1, "se_h": s1, "mean_h2": m2, "se_h2": s2,
                            "bias_h": m1 - exact, "bias_h2": m2 - exact, "richardson": rich, "se": se,
                            "noise_factor": float(params["noise_factor"])})


# ------------------------------------------------------------------------------------ A3
@check("A3.critical_height", theorem="A3 critical height H* (persistence + exact critical points)", paper=PAPER_A,
       statement="H*(double-well) = 1.53125 exactly and H*(triple-well) = 1.5215 (4 decimals) within the stated "
                 "error bounds; the grid value is within its O(h²) bound",
       quick={"resolution": 4096}, thorough={"resolution": 65536})
def critical_height(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.landscapes.barriers import circle_barrier
    from contrastive_bounds.numerics.landscapes.registry import get_landscape

    rows, ok, worst, worst_row = [], True, -1.0, (0.0, 0.0)
    for name, ref, ref_err in (("double-well", 1.53125, 0.0), ("triple-well", 1.5215, 5e-5)):
        res = circle_barrier(get_landscape(name), resolution=int(params["resolution"]))
        err = abs(res.critical_height - ref)
        allowed = ref_err + (res.error_bound or 0.0)
        grid_ok = abs(res.grid_critical_height - res.critical_height) <= (res.grid_error_bound or 0.0) + 1e-12
        cross_ok = res.cross_check is not None and abs(res.cross_check - res.grid_critical_height) <= 1e-12
        ok &= err <= allowed and grid_ok and cross_ok
        score = err / allowed if allowed > 0 else (0.0 if err == 0 else math.inf)
        if score > worst:
            worst, worst_row = score, (err, allowed)
        rows.append({"landscape": name, "critical_height": res.critical_height, "reference": ref,
                     "error_bound": res.error_bound, "reference_rounding": ref_err, "abs_error": err,
                     "grid_critical_height": res.grid_critical_height, "grid_error_bound": res.grid_error_bound,
                     "union_find": res.cross_check, "grid_within_bound": grid_ok, "gudhi_equals_union_find": cross_ok})
    text = "; ".join(f"{r['landscape']}: H* = {r['critical_height']:.10g} (ref {r['reference']}, |err| {r['abs_error']:.2e}"
                     f" <= {r['reference_rounding'] + (r['error_bound'] or 0):.2e}; grid {r['grid_critical_height']:.6g} "
                     f"within {r['grid_error_bound']:.2e})" for r in rows)
    err_w, allowed_w = worst_row  # the row closest to its allowance: |H* - reference| against the allowed error
    return Outcome("holds" if ok else "violated", text, bound=allowed_w, empirical=err_w, interval=(err_w, err_w),
                   ratio=worst if math.isfinite(worst) else None, details={"rows": rows})


# ------------------------------------------------------------------------------------ A4
_A4_COMMON = {"chains": 1024, "step_size": 0.02, "rule": "hks", "epsilon": 0.1, "noise_factor": 1.0}


def _asserted(rule: str, sched: Any, h_star: float, epsilon: float, t_end: float) -> tuple[bool, str]:
    """What the schedule is asserted to do: converge (True) or trap (False), by the named rule."""
    if rule == "hks":
        v = sched.converges(h_star)
        return bool(v.converges), v.reason
    if rule == "seed-inverted":
        ts = np.geomspace(1.0, max(t_end, 10.0), 200)
        ok = np.all(np.asarray(sched.beta(ts)) >= (h_star + epsilon) / np.log(ts + 2.0))
        return True, ("seed note: beta(t) >= (H*+eps)/log(t+2) holds eventually for every log schedule "
                                  f"(on [1, {t_end:g}]: {'yes' if ok else 'not yet'}), so it asserts convergence")
    raise ValueError(f"rule={rule!r} must be 'hks' or 'seed-inverted'")


def _hks_case(params: Mapping[str, Any], seed: int) -> Outcome:
    """Shared by A4.convergence / A4.trapping: run T = c/log(t + t0) from the trap of double-well."""
    c, t0, te = float(params["c"]), float(params["t0"]), float(params["t_end"])
    land, sched, trap, run = _schedule_run("double-well", (), "temperature", (("c", c), ("t0", t0)), int(params["chains"]),
                                           te, float(params["step_size"]), seed, float(params["noise_factor"]))
    converge, why = _asserted(str(params["rule"]), sched, land.critical_height, float(params["epsilon"]), te)
    out, band = _trap_vs_kramers(land, sched, trap, run, need_positive=not converge)
    from contrastive_bounds.theory.kramers import log_probability_never_escape

    log_p_inf = log_probability_never_escape(sched, list(trap.barriers), list(trap.log_prefactors), 0.0, math.inf)
    succ = clopper_pearson(run.success, run.chains, CONF)
    details = {"schedule": sched.describe(), "asserted_converges": converge, "assertion": why,
               "kramers_band": band.to_dict(), "trap_probability_forever_kramers": math.exp(log_p_inf),
               "success": {"count": run.success, "fraction": run.success / run.chains, "ci": [succ.lo, succ.hi]},
               "trapped": run.trapped, "chains": run.chains, "t_end": te, "step_size": run.step_size,
               "noise_factor": float(params["noise_factor"]), "delta": run.delta}
    if converge:
        # asymptotic statement P(miss) -> 0; at the horizon: the majority has converged
        if succ.hi < 0.5:
            out.verdict = "violated"
            out.p_value = min(out.p_value or 1.0, float(sst.binom.cdf(run.success, run.chains, 0.5)))
        elif succ.lo <= 0.5 and out.verdict == "holds":
            out.verdict = "inconclusive"
        out.summary = (f"asserted: converges ({why}); success P(V(Z_t) < {run.level:.3g}) at t = {te:g}: "
                       f"{run.success / run.chains:.4f} [{succ.lo:.4f}, {succ.hi:.4f}] (needs > 1/2); " + out.summary)
    else:
        out.summary = (f"asserted: traps with positive probability ({why}; Kramers forever-trapped probability "
                       f"{math.exp(log_p_inf):.4f}); " + out.summary)
    out.details = details
    out.plots = [_trapped_plot(f"double-well, {sched.describe()}: never-escaped fraction", run, land, sched, trap)]
    return out


@check("A4.convergence", theorem="A4 (HKS 1989 Thm 1.1): T = c/log(t+t0), c > H* converges", paper=PAPER_A,
       statement="double-well (H* = 1.53125), c = 2 > H*, from the trap: escape fraction matches Kramers (forever-trapped "
                 "probability 0) and the success fraction at the horizon exceeds 1/2",
       quick={**_A4_COMMON, "c": 2.0, "t0": 2.0, "t_end": 200.0},
       thorough={**_A4_COMMON, "chains": 8192, "c": 2.0, "t0": 2.0, "t_end": 1000.0})
def a4_convergence(params: Mapping[str, Any], seed: int) -> Outcome:
    return _hks_case(params, seed)


@check("A4.trapping", theorem="A4 (HKS 1989; Hajek 1988 necessity): c < H* traps with positive probability",
       paper=PAPER_A,
       statement="double-well, T = 1/log(t + 10) (c = 1 < H*), from the trap: trapped fraction > 0 (Clopper-Pearson) "
                 "and within the Kramers band exp(-int dt/tau(T(t)))",
       quick={**_A4_COMMON, "c": 1.0, "t0": 10.0, "t_end": 200.0},
       thorough={**_A4_COMMON, "chains": 8192, "c": 1.0, "t0": 10.0, "t_end": 2000.0})
def a4_trapping(params: Mapping[str, Any], seed: int) -> Outcome:
    return _hks_case(params, seed)


@check("A4.fast_schedules", theorem="A2/A4: liminf beta/log t > 1/H* traps (exponential, beta = c (t+t0)^alpha)",
       paper=PAPER_A,
       statement="double-well from the trap: exponential T = 0.5·0.95^t and beta = 2 sqrt(t + 1) keep a positive "
                 "trapped fraction, within the Kramers band",
       quick={"chains": 1024, "step_size": 0.02, "t_end": 60.0, "noise_factor": 1.0},
       thorough={"chains": 8192, "step_size": 0.02, "t_end": 200.0, "noise_factor": 1.0})
def a4_fast(params: Mapping[str, Any], seed: int) -> Outcome:
    rows, outs = [], []
    for form, sp in (("exponential", (("c", 0.5), ("gamma", 0.95))), ("polynomial", (("alpha", 0.5), ("c", 2.0), ("t0", 1.0)))):
        land, sched, trap, run = _schedule_run("double-well", (), form, sp, int(params["chains"]), float(params["t_end"]),
                                               float(params["step_size"]), seed, float(params["noise_factor"]))
        v = sched.converges(land.critical_height)
        out, band = _trap_vs_kramers(land, sched, trap, run, need_positive=True)
        if v.converges is not False:
            out.verdict = "violated"
            out.summary = f"theory does not say it traps: {v.reason}; " + out.summary
        outs.append((out, sched, run, land, trap))
        rows.append({"schedule": sched.describe(), "theory": v.reason, "trapped": run.trapped, "chains": run.chains,
                     "interval": list(out.interval), "kramers_band": band.to_dict(), "verdict": out.verdict})
    order = {"violated": 0, "inconclusive": 1, "holds": 2}
    worst = min(outs, key=lambda o: (order[o[0].verdict], o[0].p_value or 1.0))[0]
    res = Outcome(worst.verdict, " | ".join(f"{r['schedule'].split(';')[0]}: {o[0].summary}" for r, o in zip(rows, outs)),
                  bound=worst.bound, band=worst.band, empirical=worst.empirical, interval=worst.interval,
                  ratio=worst.ratio, false_alarm=1 - CONF, p_value=min(o[0].p_value or 1.0 for o in outs) * len(outs),
                  samples=worst.samples, details={"schedules": rows})
    res.p_value = min(1.0, res.p_value)
    res.plots = [_trapped_plot(f"double-well, {o[1].describe().split(';')[0]}", o[2], o[3], o[1], o[4]) for o in outs]
    return res


# ------------------------------------------------------------------------------------ A5
@check("A5.kramers", theorem="A5 Eyring-Kramers law vs exact 1-D MFPT; simulated MFPT at fixed T", paper=PAPER_A,
       statement="exact/Kramers -> 1 monotonically as T -> 0 on double-well; simulated MFPT from pi to |theta| < 0.1 at "
                 "T = 0.6 (h = 0.01) lies in [exact, exact·(1 + 5h)] within its 99.9% interval",
       quick={"temperature": 0.6, "chains": 1024, "step_size": 0.01, "t_end": 80.0, "epsilon": 0.1, "noise_factor": 1.0,
              "theory_temperatures": [1.0, 0.5, 0.3, 0.2, 0.15]},
       thorough={"temperature": 0.6, "chains": 8192, "step_size": 0.005, "t_end": 120.0, "epsilon": 0.1,
                 "noise_factor": 1.0, "theory_temperatures": [1.0, 0.5, 0.3, 0.2, 0.15, 0.1]})
def a5_kramers(params: Mapping[str, Any], seed: int) -> Outcome:
    import mpmath

    from contrastive_bounds.numerics.langevin import Arc, simulate
    from contrastive_bounds.numerics.landscapes.escape import circle_escape_times
    from contrastive_bounds.numerics.langevin.experiments import STEP_BIAS_PER_UNIT_H, misscaled_temperature
    from contrastive_bounds.numerics.landscapes.registry import get_landscape
    from contrastive_bounds.numerics.langevin.kernel import langevin_kernel
    from contrastive_bounds.theory.kramers import exact_mfpt_interval

    land = get_landscape("double-well")
    temps = sorted(float(t) for t in params["theory_temperatures"])
    ratios = [circle_escape_times(land, t)[0].ratio for t in temps]
    mono = all(abs(math.log(a)) <= abs(math.log(b)) + 1e-12 for a, b in zip(ratios, ratios[1:]))
    temp, eps, h, te = float(params["temperature"]), float(params["epsilon"]), float(params["step_size"]), float(params["t_end"])
    ts = math.acos(-1 / 8)
    exact = exact_mfpt_interval(lambda x: -0.5 * mpmath.cos(x) - mpmath.cos(2 * x), math.pi, eps, 2 * math.pi - eps, temp,
                                slope_bound=2.5, breakpoints=[ts, math.pi, 2 * math.pi - ts]).time_float
    nf = float(params["noise_factor"])
    kernel = langevin_kernel(land, temperature=temp if nf == 1.0 else misscaled_temperature(temp, nf), step_size=h)
    chains = int(params["chains"])
    n = int(round(te / h))
    res = simulate(kernel, np.tile([[[-1.0, 0.0]]], (chains, 1, 1)), num_steps=n, seed=seed, record_every=n,
                   chunk_steps=n, target=Arc(-eps, eps))
    hits = int(res.hit.sum())
    band = (exact, exact * (1 + STEP_BIAS_PER_UNIT_H * h))
    details = {"theory_temperatures": temps, "exact_over_kramers": ratios, "monotone_to_1": mono, "exact_mfpt": exact,
               "band": list(band), "hits": hits, "chains": chains, "step_size": h, "noise_factor": nf}
    plots = [PlotSpec("double-well: exact MFPT / Kramers time vs temperature", "T", "ratio",
                      [Series("exact/Kramers", temps, ratios)])]
    if hits < max(10, chains // 2):
        return Outcome("violated", f"only {hits}/{chains} chains escaped by t = {te:g} (exact MFPT {exact:.4g}: "
                                   f"expected ~{chains * (1 - math.exp(-te / exact)):.0f})", bound=exact,
                       empirical=math.inf, p_value=0.0, false_alarm=1 - CONF, samples=chains, details=details, plots=plots)
    tau = np.minimum(res.hit_time, res.t_end)
    m = float(tau.sum() / hits)  # exponential-tail estimator for the censored chains
    se = float(tau.std(ddof=1) / math.sqrt(chains) * chains / hits)
    q = float(sst.norm.ppf(0.5 + CONF / 2))
    lo, hi = m - q * se, m + q * se
    if m < band[0]:
        p = float(2 * sst.norm.sf((band[0] - m) / se))
    elif m > band[1]:
        p = float(2 * sst.norm.sf((m - band[1]) / se))
    else:
        p = 1.0
    sim_ok = hi >= band[0] and lo <= band[1]
    verdict = "holds" if (sim_ok and mono) else "violated"
    text = (f"exact/Kramers at T = {temps}: {[round(r, 4) for r in ratios]} ({'-> 1 monotonically' if mono else 'NOT monotone'}); "
            f"simulated MFPT {m:.4g} [{lo:.4g}, {hi:.4g}] vs exact {exact:.4g} (band for the O(h) bias [{band[0]:.4g}, "
            f"{band[1]:.4g}], h = {h:g})")
    details.update(mean=m, se=se)
    return Outcome(verdict, text, bound=exact, band=band, empirical=m, interval=(lo, hi), ratio=m / exact, false_alarm=1 - CONF,
                   p_value=min(1.0, p), samples=chains, details=details, plots=plots)


# ------------------------------------------------------------------------------------ A6
def _fit_slope(t: np.ndarray, miss: np.ndarray, log_power: float) -> tuple[float, float]:
    """Least squares of log P_miss − p·log log(1+t) = log C − s·log(1+t): returns (s, log C)."""
    y = np.log(np.maximum(miss, 1e-12)) - log_power * np.log(np.log1p(t))
    a = np.polyfit(np.log1p(t), y, 1)
    return float(-a[0]), float(a[1])


@check("A6.finite_time", theorem="A6 finite-time tail P(V >= V_min + delta) <= C_delta (log t)^{(n-k)/2} (1+t)^{-delta/Gamma}",
       paper=PAPER_A,
       statement="double-well, T = Gamma/log(t + 2), Gamma = 2 > H*: the fitted log-log slope of the miss probability "
                 "P(V >= V_min + 1.2) agrees with delta/Gamma = 0.6 within a stated factor 1.25 (99.9% bootstrap interval)",
       quick={**_A4_COMMON, "c": 2.0, "t0": 2.0, "t_end": 200.0, "t_min": 20.0, "delta": 1.2, "log_power": 0.0,
              "exponent": "delta/Gamma", "factor": 1.25, "bootstrap": 400},
       thorough={**_A4_COMMON, "chains": 8192, "c": 2.0, "t0": 2.0, "t_end": 1000.0, "t_min": 20.0, "delta": 1.2,
                 "log_power": 0.0, "exponent": "delta/Gamma", "factor": 1.25, "bootstrap": 1000})
def a6_finite_time(params: Mapping[str, Any], seed: int) -> Outcome:
    """delta = 1.2 exceeds the gap (1) between the two minima, so both wells' Gibbs tails decay as exp(-delta/T):
    the exponent is delta/Gamma without a competing exp(-1/T) term; the quasi-static Gibbs miss has plain log-log
    slope 0.602 on [20, 200] (scipy quadrature), so the factor 1.25 covers log factors and the lag of the chain."""
    c, t0, te = float(params["c"]), float(params["t0"]), float(params["t_end"])
    land, sched, trap, run = _schedule_run("double-well", (), "temperature", (("c", c), ("t0", t0)), int(params["chains"]),
                                           te, float(params["step_size"]), seed, float(params["noise_factor"]))
    delta = float(params["delta"])
    if params["exponent"] == "delta/Gamma":
        claimed = delta / c
    elif params["exponent"] == "seed":  # the note's H*/eps - 1 under the precision reading eps = delta
        from contrastive_bounds.theory.annealing import seed_finite_time_exponent

        claimed = seed_finite_time_exponent(land.critical_height, delta)
    else:
        raise ValueError(f"exponent={params['exponent']!r} must be 'delta/Gamma' or 'seed'")
    keep = run.record_times >= float(params["t_min"])
    t = run.record_times[keep]
    miss = run.energy_trace[keep] >= land.v_min + delta  # (records, chains)
    lp = float(params["log_power"])
    s, log_c = _fit_slope(t, miss.mean(axis=1), lp)
    rng = np.random.default_rng(seed)
    boots = [_fit_slope(t, miss[:, rng.integers(0, run.chains, run.chains)].mean(axis=1), lp)[0]
             for _ in range(int(params["bootstrap"]))]
    lo, hi = (float(x) for x in np.quantile(boots, [(1 - CONF) / 2, (1 + CONF) / 2]))
    f = float(params["factor"])
    band = (claimed / f, claimed * f)
    verdict = "violated" if (lo > band[1] or hi < band[0]) else "holds"
    sd = float(np.std(boots, ddof=1))
    dist = max(band[0] - s, s - band[1], 0.0)
    p = float(2 * sst.norm.sf(dist / sd)) if sd > 0 else (0.0 if dist > 0 else 1.0)
    text = (f"fitted slope {s:.4f} [{lo:.4f}, {hi:.4f}] vs claimed exponent {claimed:.4f} ({params['exponent']}; band "
            f"x/÷{f:g}: [{band[0]:.4f}, {band[1]:.4f}]); fitted log C_delta = {log_c:.3f} (log power {lp:g}) over t in "
            f"[{t[0]:g}, {t[-1]:g}], delta = {delta:g}, Gamma = {c:g}")
    model = np.exp(log_c + lp * np.log(np.log1p(t)) - s * np.log1p(t))
    plots = [PlotSpec("A6: miss probability vs t (T = Gamma/log(t+2))", "t", "P(V >= V_min + delta)",
                      [Series("simulation", t.tolist(), miss.mean(axis=1).tolist()),
                       Series(f"fit C t^-{s:.3f}", t.tolist(), model.tolist(), style="--")], logx=True, logy=True)]
    return Outcome(verdict, text, bound=claimed, band=band, empirical=s, interval=(lo, hi), ratio=s / claimed, false_alarm=1 - CONF,
                   p_value=min(1.0, p), samples=run.chains, plots=plots,
                   details={"delta": delta, "Gamma": c, "claimed_exponent": claimed, "exponent_rule": params["exponent"],
                            "fitted_slope": s, "fitted_log_constant": log_c, "log_power": lp, "bootstrap_sd": sd,
                            "times": t.tolist(), "miss": miss.mean(axis=1).tolist()})


# ------------------------------------------------------------------------------------ claims
def _claims(prefixes: tuple[str, ...], certify: bool) -> Outcome:
    return claims_outcome(prefixes, certify)


@check("A.claims", theorem="annealing.* registry claims (A2, A4, A8.1, A8.2)", paper=PAPER_A,
       statement="every annealing claim's verdict is the one the toolkit asserts", quick={"certify": True})
def a_claims(params: Mapping[str, Any], seed: int) -> Outcome:
    return _claims(("annealing.",), bool(params["certify"]))


@check("A8.1_inverted_condition", theorem="annealing.seed_inverted_condition (seed note, refuted)", paper=PAPER_A,
       statement="beta(t) = t + 3 satisfies the note's beta(t) >= (H*+eps)/log(t+2) for all t >= 0 (eps = 0.1), yet on "
                 "double-well it stays trapped with positive probability (Clopper-Pearson) matching Kramers",
       quick={"chains": 1024, "step_size": 0.02, "t_end": 30.0, "epsilon": 0.1, "noise_factor": 1.0},
       thorough={"chains": 8192, "step_size": 0.02, "t_end": 100.0, "epsilon": 0.1, "noise_factor": 1.0})
def a81_inverted(params: Mapping[str, Any], seed: int) -> Outcome:
    sp = (("alpha", 1.0), ("c", 1.0), ("t0", 3.0))
    land, sched, trap, run = _schedule_run("double-well", (), "polynomial", sp, int(params["chains"]), float(params["t_end"]),
                                           float(params["step_size"]), seed, float(params["noise_factor"]))
    eps = float(params["epsilon"])
    ts = np.concatenate([[0.0], np.geomspace(1e-3, 1e6, 400)])
    premise = bool(np.all(np.asarray(sched.beta(ts)) >= (land.critical_height + eps) / np.log(ts + 2.0)))
    out, band = _trap_vs_kramers(land, sched, trap, run, need_positive=True)
    claim = registry.get_claim("annealing.seed_inverted_condition")
    v = claim.run(True)
    if not premise:
        out.verdict = "violated"
    out.summary = (f"counterexample {sched.describe().split(';')[0]}: premise beta >= (H*+eps)/log(t+2) on t in [0, 1e6]: "
                   f"{premise}; " + out.summary + f"; registry verdict: {v.status}")
    out.reason = v.evidence
    out.details = {"premise_holds": premise, "kramers_band": band.to_dict(), "trapped": run.trapped, "chains": run.chains,
                   "counterexample": {"landscape": "double-well", "critical_height": land.critical_height, "epsilon": eps,
                                      "schedule": sched.describe(), "trapped_fraction": run.trapped / run.chains,
                                      "interval": list(out.interval)},
                   "registry": {"status": v.status, "agrees": claim.agrees(v)}}
    if not claim.agrees(v):
        out.verdict = "violated"
    out.plots = [_trapped_plot("A8.1 counterexample beta = t + 3 on double-well", run, land, sched, trap)]
    return out


@check("A8.2_finite_time_exponent", theorem="annealing.seed_finite_time_exponent (seed note, refuted)", paper=PAPER_A,
       statement="the note's exponent H*/eps - 1 has the wrong monotonicity (registry, sympy) and is far above the "
                 "measured decay slope of A6", quick={"certify": True}, thorough={"certify": True})
def a82_finite_time(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.theory.annealing import seed_finite_time_exponent

    claim = registry.get_claim("annealing.seed_finite_time_exponent")
    v = claim.run(bool(params["certify"]))
    ok = claim.agrees(v)
    details: dict[str, Any] = {"status": v.status, "evidence": v.evidence, "counterexample": v.counterexample}
    text = f"registry verdict {v.status} (toolkit asserts refuted): {'agrees' if ok else 'DISAGREES'}"
    seed_exp = seed_finite_time_exponent(H_DOUBLE_WELL, 0.5)
    details["seed_exponent_delta_0.5"] = seed_exp
    text += f"; on double-well with delta = 0.5 the note's exponent is {seed_exp:.4g} vs the defensible delta/Gamma = 0.25 (Gamma = 2)"
    return Outcome("holds" if ok else "violated", text, reason=v.evidence, details=details)


# ------------------------------------------------------------------------------------ A8.3
_NOTE = {1.0: (0.85, 0.1), 5.0: (0.52, 0.07), 10.0: (0.18, 0.05)}


def _two_state_success(land: Any, trap: Any, temp: float, t_f: float, delta: float) -> float:
    """Kramers two-well model of P(V(Z_{t_f}) < V_min + delta) at fixed T from the trap.

    p_global(t) = pi_g (1 − exp(−(k+ + k−) t)), k± Kramers rates out of trap / global well, times the
    Gibbs probability erf(sqrt(delta/T)) of being within delta of the bottom of the (harmonic) global well.
    """
    from contrastive_bounds.numerics.landscapes.circle import analyse_circle

    crit = analyse_circle(land.fourier)
    g = float(crit.global_minima[0])
    curv_g = float(land.d2potential_theta(g))
    k_plus = sum(math.exp(lp - b / temp) for b, lp in zip(trap.barriers, trap.log_prefactors))
    k_minus = 0.0
    for s, b in zip(trap.saddles, trap.barriers):
        vs = trap.value + b
        k_minus += math.sqrt(abs(float(land.d2potential_theta(s))) * curv_g) / (2 * math.pi) * math.exp(-(vs - crit.v_min) / temp)
    tot = k_plus + k_minus
    if tot == 0.0:
        return 0.0
    p_g = (k_plus / tot) * (-math.expm1(-tot * t_f))
    return p_g * math.erf(math.sqrt(delta / temp))


@check("A8.3_barrier_table", theorem="seed note table (A8.3) vs Eyring-Kramers on barrier-H", paper=PAPER_A,
       statement="the note's table (linear success 85/52/18 %, best fixed tau* = 0.1/0.07/0.05 for H* = 1/5/10) is "
                 "inconsistent with Eyring-Kramers: re-run on barrier-H from the trap, linear T = T0(1 - t/t_f)",
       quick={"chains": 512, "step_size": 0.01, "t_end": 50.0, "T0": 1.0, "heights": [1.0, 5.0, 10.0]},
       thorough={"chains": 4096, "step_size": 0.005, "t_end": 200.0, "T0": 1.0, "heights": [1.0, 5.0, 10.0]})
def a83_table(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.langevin.experiments import kramers_trap_band

    h, tf, t0 = float(params["step_size"]), float(params["t_end"]), float(params["T0"])
    rows, verdicts, ps = [], [], []
    for H in (float(x) for x in params["heights"]):
        lin = (("c", t0), ("t_end", tf * (1 + 1e-6)))
        land, sched, trap, run = _schedule_run("barrier-H", (("H", H),), "linear", lin, int(params["chains"]), tf, h, seed, 1.0)
        band = kramers_trap_band(land, sched, trap, 0.0, tf, h)
        v, p, ci = _band_test(run.trapped, run.chains, band.lo, band.hi)
        verdicts.append(v)
        ps.append(p)
        succ = clopper_pearson(run.success, run.chains, CONF)
        a_time = 1.0 / sum(math.exp(lp) for lp in trap.log_prefactors)  # Kramers prefactor A: tau = A e^{H/T}
        grid = np.geomspace(0.02, 3.0, 400) * H / 1.0
        model = [_two_state_success(land, trap, float(T), tf, run.delta) for T in grid]
        t_best = float(grid[int(np.argmax(model))])
        note_succ, note_tau = _NOTE.get(H, (None, None))
        log10_escape_note = None
        if note_tau is not None:
            # Kramers expected escapes within the note's step budget (1e3/1e5/1e8 steps at this h) at tau*
            steps = {1.0: 1e3, 5.0: 1e5, 10.0: 1e8}[H]
            log10_escape_note = (math.log(steps * h) - math.log(a_time) - H / note_tau) / math.log(10)
        rows.append({"H": H, "linear_success": run.success / run.chains, "linear_success_ci": [succ.lo, succ.hi],
                     "trapped": run.trapped / run.chains, "trapped_ci": list(ci), "kramers_trapped": band.predicted,
                     "kramers_band": [band.lo, band.hi], "agrees_with_kramers": v == "holds",
                     "note_linear_success": note_succ, "best_fixed_T_model": t_best,
                     "H_over_log_tf_over_A": H / math.log(tf / a_time), "note_best_tau": note_tau,
                     "log10_expected_escapes_at_note_tau_within_note_steps": log10_escape_note,
                     "model_success_at_best_T": float(max(model)),
                     "model_success_at_note_tau": None if note_tau is None else _two_state_success(land, trap, note_tau, tf, run.delta)})
    increasing = all(b["best_fixed_T_model"] > a["best_fixed_T_model"] for a, b in zip(rows, rows[1:]))
    consistent = all(x == "holds" for x in verdicts)
    # simulation at fixed T for the first height: the note's tau* against the Kramers-model best T
    r0 = rows[0]
    fixed = {}
    if r0["note_best_tau"] is not None:
        for label, temp in (("note_tau", r0["note_best_tau"]), ("model_best_T", r0["best_fixed_T_model"])):
            land, _, trap, run = _schedule_run("barrier-H", (("H", r0["H"]),), "fixed", (("c", float(temp)),),
                                               int(params["chains"]), tf, h, seed, 1.0)
            ci = clopper_pearson(run.success, run.chains, CONF)
            fixed[label] = {"T": float(temp), "success": run.success / run.chains, "ci": [ci.lo, ci.hi],
                            "model": _two_state_success(land, trap, float(temp), tf, run.delta)}
        better = fixed["model_best_T"]["ci"][0] > fixed["note_tau"]["ci"][1]
        ps.append(float(sst.binom.cdf(int(round(fixed["model_best_T"]["success"] * int(params["chains"]))),
                                      int(params["chains"]), fixed["note_tau"]["ci"][1])) if not better else 1.0)
    else:
        better = True
    verdict = "holds" if (consistent and increasing and better) else "violated"
    text = "; ".join(f"H*={r['H']:g}: linear success {100 * r['linear_success']:.1f}% [{100 * r['linear_success_ci'][0]:.1f}, "
                     f"{100 * r['linear_success_ci'][1]:.1f}] (note {100 * r['note_linear_success']:.0f}%; Kramers trapped "
                     f"{r['kramers_trapped']:.3f} {'ok' if r['agrees_with_kramers'] else 'DISAGREES'}), best fixed T "
                     f"{r['best_fixed_T_model']:.3g} ~ H/log(t_f/A) = {r['H_over_log_tf_over_A']:.3g} (note {r['note_best_tau']}; "
                     f"log10 E[escapes] at note's tau* in note's steps: {r['log10_expected_escapes_at_note_tau_within_note_steps']:.3g})"
                     for r in rows if r["note_linear_success"] is not None)
    text = (f"linear T = {t0:g}(1 - t/{tf:g}), h = {h:g}, from the trap: " + text
            + f". Best fixed T increases with H* ({increasing}); the note's decreases: the table contradicts Eyring-Kramers")
    if fixed:
        a, b = fixed["note_tau"], fixed["model_best_T"]
        text += (f". Simulated at fixed T, H* = {r0['H']:g}, t_f = {tf:g}: note's tau* = {a['T']:g} gives success "
                 f"{a['success']:.3f} [{a['ci'][0]:.3f}, {a['ci'][1]:.3f}] (model {a['model']:.3f}); Kramers best T = "
                 f"{b['T']:.3g} gives {b['success']:.3f} [{b['ci'][0]:.3f}, {b['ci'][1]:.3f}] (model {b['model']:.3f})")
    plots = [PlotSpec("A8.3: linear-schedule success vs H* (ours vs note)", "H*", "success",
                      [Series("simulation", [r["H"] for r in rows], [r["linear_success"] for r in rows],
                              lo=[r["linear_success_ci"][0] for r in rows], hi=[r["linear_success_ci"][1] for r in rows]),
                       Series("note", [r["H"] for r in rows], [r["note_linear_success"] or 0.0 for r in rows], style="--")]),
             PlotSpec("A8.3: best fixed temperature at horizon t_f", "H*", "T*",
                      [Series("Kramers two-well model", [r["H"] for r in rows], [r["best_fixed_T_model"] for r in rows]),
                       Series("note tau*", [r["H"] for r in rows], [r["note_best_tau"] or 0.0 for r in rows], style="--")])]
    return Outcome(verdict, text, false_alarm=1 - CONF, p_value=min(1.0, min(ps) * len(ps)), samples=int(params["chains"]),
                   reason="the note's success rates and tau* are not reproduced: see details", details={"rows": rows, "fixed_T": fixed},
                   plots=plots)


# ------------------------------------------------------------------------------------ A8.4
_PUBLISHED_TOY = {
    "schedule": "beta = c·log(t+1), dt = 0.01, beta_target = 10",
    "isotropic_success_c_1.8_to_5.4": [0.85, 0.89], "success_c_10.3": 0.38, "success_c_20": 0.08,
    "fixed_beta_10_50000_steps": 0.865,
    "first_time_U0_below_-1.5_mean_steps": {"beta_10": 159, "beta_100": 130},
    "source": "THEOREMS.md A8.4 (author's repository result files)",
}


@check("A8.4_author_toy", theorem="A8.4: the author's toy U0 (N = 4 on S²) is barrier-free", paper=PAPER_A,
       statement="projected gradient descent from uniform random starts reaches the global value -2 from every start "
                 "(Clopper-Pearson lower bound >= 0.99): H* ≈ 0, so success-vs-c measures relaxation, not barrier crossing",
       quick={"landscape": "infonce-toy", "starts": 1024, "steps": 1500, "step_size": 0.05, "tolerance": 1e-3},
       thorough={"landscape": "infonce-toy", "starts": 4096, "steps": 4000, "step_size": 0.02, "tolerance": 1e-4})
def a84_toy(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax

    from contrastive_bounds.numerics.landscapes.barriers import sampled_minima
    from contrastive_bounds.numerics.landscapes.registry import get_landscape

    land = get_landscape(str(params["landscape"]))
    n = int(params["starts"])
    _, vals = sampled_minima(land, jax.random.key(seed), starts=n, steps=int(params["steps"]),
                             step_size=float(params["step_size"]))
    reached = int(np.sum(vals <= land.v_min + float(params["tolerance"])))
    ci = clopper_pearson(reached, n, CONF)
    verdict = "holds" if ci.lo >= 0.99 else ("violated" if ci.hi < 0.99 else "inconclusive")
    p = float(sst.binom.cdf(reached, n, 0.99))
    uniq = np.unique(np.round(vals, 4))
    return Outcome(verdict, f"{reached}/{n} descents from uniform starts reached V_min = {land.v_min:g} (+{params['tolerance']}), "
                            f"[{ci.lo:.4f}, {ci.hi:.4f}]; distinct final values {uniq[:8].tolist()}; published success "
                            "rates (0.85-0.89, 0.38 at c = 10.3, 0.08 at c = 20) therefore measure finite-horizon relaxation",
                   bound=0.99, empirical=reached / n, interval=(ci.lo, ci.hi), false_alarm=1 - CONF, p_value=p,
                   samples=n, details={"landscape": land.name, "final_values_unique": uniq[:20].tolist(),
                                       "fraction_reached": reached / n, "published": _PUBLISHED_TOY})


# ------------------------------------------------------------------------------------ A8.5
@check("A8.5_anisotropic", theorem="A8.5: anisotropic noise P(z)A^{1/2}xi without preconditioning is a hotter chain",
       paper=PAPER_A,
       statement="vMF on S² (kappa/T = 2): the anisotropic chain's E[z3] is below coth(kappa/T) - T/kappa (interval "
                 "entirely below), while the isotropic chain at the same h matches it within its interval plus O(h) bias",
       quick={"kappa": 1.0, "temperature": 0.5, "chains": 512, "step_size": 0.02, "t_burn": 4.0, "t_end": 24.0,
              "anisotropy": [1.0, 2.0, 3.0]},
       thorough={"kappa": 1.0, "temperature": 0.5, "chains": 4096, "step_size": 0.01, "t_burn": 4.0, "t_end": 44.0,
                 "anisotropy": [1.0, 2.0, 3.0]})
def a85_anisotropic(params: Mapping[str, Any], seed: int) -> Outcome:
    from scipy.optimize import brentq

    kappa, temp, h = float(params["kappa"]), float(params["temperature"]), float(params["step_size"])
    exact = _vmf_exact(kappa, temp)
    args = (kappa, temp, int(params["chains"]), h, float(params["t_burn"]), float(params["t_end"]))
    ma, sa = _vmf_mean_z3(*args, seed, anisotropy=list(params["anisotropy"]))
    mi, si = _vmf_mean_z3(*args, seed + 1)
    q = float(sst.norm.ppf(0.5 + CONF / 2))
    bias_allow = 5.0 * h * 0.1  # |O(h) bias| allowance for the isotropic chain: A1 measures ~0.3 h here; 0.5 h stated
    aniso_lo, aniso_hi = ma - q * sa, ma + q * sa
    iso_ok = abs(mi - exact) <= q * si + bias_allow
    hotter = aniso_hi < exact - bias_allow
    try:
        t_eff = brentq(lambda t: _vmf_exact(kappa, t) - ma, 1e-3, 100.0)
    except ValueError:
        t_eff = None
    verdict = "holds" if (hotter and iso_ok) else "violated"
    p_hot = float(sst.norm.sf((ma - (exact - bias_allow)) / sa))
    p_iso = float(2 * sst.norm.sf(max(0.0, abs(mi - exact) - bias_allow) / si))
    text = (f"anisotropic A = diag{tuple(params['anisotropy'])}: E[z3] {ma:.4f} [{aniso_lo:.4f}, {aniso_hi:.4f}] vs Gibbs "
            f"{exact:.5f} ({'hotter' if hotter else 'NOT shown hotter'}; effective T {t_eff if t_eff is None else round(t_eff, 4)} "
            f"vs {temp:g}); isotropic {mi:.4f} ± {q * si:.4f} ({'matches' if iso_ok else 'DOES NOT match'} within "
            f"interval + {bias_allow:.3g} bias allowance)")
    return Outcome(verdict, text, bound=exact, empirical=ma, interval=(aniso_lo, aniso_hi), ratio=ma / exact,
                   false_alarm=1 - CONF, p_value=min(1.0, 2 * min(p_hot, p_iso)),
                   samples=int(params["chains"]),
                   details={"exact": exact, "anisotropic_mean": ma, "anisotropic_se": sa, "isotropic_mean": mi,
                            "isotropic_se": si, "effective_temperature": t_eff, "anisotropy": list(params["anisotropy"]),
                            "bias_allowance": bias_allow})
