"""Paper A's condition c > H* on a real InfoNCE landscape with H* > 0 (docs/theorems.md A4, A5, A9).

Check ``A4.infonce_landscape``: decoupled finite-τ InfoNCE on ``(S^{d−1})^N`` (quick: N = 4, d = 2,
τ = 0.1, H* = 0.2819; thorough: N = 6, d = 2, τ = 0.1, H* = 0.1881), its transition network giving
H*, the deepest trap and its escape saddles (:func:`~contrastive_bounds.numerics.landscapes.network_kramers.network_trap`).
Chains start at the trap's minimum under independent random rotations and run (float64) under
``T(t) = c/log(t + t0)`` with ``c = 0.5·H*`` (to ``t_f = horizon_t0_multiple·t0``, ``t0`` chosen so that
the predicted never-escape probability as ``t → ∞`` is ``trapped_target``) and ``c = 1.5·H*`` (to the
time by which ``F`` × the predicted escapes reach 12, i.e. a predicted miss below 1e-5, at most ``t_f``).
"Reached the global set" = ``V < V_min + δ`` with ``V_min`` the network's global minimum energy and
``δ = (V(trap) − V_min)/2`` (the one rule, :func:`~contrastive_bounds.numerics.langevin._global_set.global_set_margin`; stated in the output).

Predictions beside the measurements:

* the HKS verdict of each schedule (theory.schedules: converges iff c > H*);
* the trapped fraction ``exp(−∫_0^{t_f} dt/τ(T(t)))`` (mpmath quadrature,
  :func:`contrastive_bounds.theory.expected_escapes`) with the Eyring–Kramers prefactor
  modulo symmetry *only where the trap and its saddles are non-degenerate modulo symmetry* (the
  output says which). Its band: escape rates within a factor ``F = F_T·F_h`` of Eyring–Kramers, with
  the stated model allowance ``F_T = 1 + 3·T_hot/H*`` at the hottest temperature ``T_hot = T(0)`` of the
  ``0.5·H*`` run (Kramers is least accurate there; its error is ``O(T/ΔV)`` and shrinks as T falls) and
  ``F_h = exp(|b₁|)``, ``b₁`` the first-order Euler–Maruyama log-rate bias
  (:func:`~contrastive_bounds.numerics.landscapes.network_kramers.euler_step_log_rate_bias`). Nothing in
  the band is fitted to the simulation under test. Where the prefactor is not defined, the rate is
  ``|λ₁(s)|/(2π)·e^{−H/T}`` and the band an order of magnitude (F = 10).
* a calibration at ``T_hot``: the measured mean escape time (fixed T, censored exponential estimate,
  exact chi-square interval) over the Eyring–Kramers time must lie in ``[1/F, F]``.

The band and the calibration are judged only inside the law's regime (and the 1.5 H* run's horizon is taken from the
prediction only there; else it runs to ``t_f``): where, at the run's ``T(0)`` (``T_hot`` for the calibration), the
potential two thermal
widths out along the stable modes of the trap and of the escape saddles (weighted by their shares of the rate) departs
from its quadratic model by more than ``MAX_HARMONIC_DEPARTURE``
(:func:`~contrastive_bounds.numerics.langevin.network_anneal.laplace_regime`: soft saddles,
saddles within a few T of each other — the Laplace integrals behind the prefactor fail whatever ``H*/T`` is), the
verdict is "inconclusive" with that reason, the numbers still shown.

Assertions (99.9 % intervals): the calibration ratio meets ``[1/F, F]``; at ``0.5·H*`` the trapped
fraction's Clopper–Pearson interval meets the band and its lower end is > 0; at ``1.5·H*`` the trapped
fraction's interval meets its band and the success fraction at the horizon is at least
``success_level``. ``noise_factor`` ≠ 1 injects a simulator whose noise is scaled wrongly (every
temperature it runs is ``noise_factor²`` times the schedule's): the check must turn red.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
from scipy import stats as sst

from contrastive_bounds.properties.checks._annealing_common import band_test
from contrastive_bounds.properties.checks._outcome import Outcome, PlotSpec, Series
from contrastive_bounds.properties.checks._framework import check

__all__ = ["a4_infonce_landscape", "choose_t0"]

CONF = 0.999
# the stated Eyring-Kramers allowance (KRAMERS_ERROR_PER_T_OVER_H, MIN_BARRIER_OVER_T) is the library's, shared with
# `anneal --search`: numerics.langevin.network_anneal


def choose_t0(trap: Any, c: float, trapped: float) -> float:
    """``t0 > 1`` such that the Eyring–Kramers probability of never escaping under ``T = c/log(t + t0)``
    (``c`` below every barrier) is ``trapped`` as ``t → ∞``: closed form
    ``Σ_s k_s·t0^{1−ΔV_s/c}/(ΔV_s/c − 1) = −log(trapped)`` solved by bisection in ``log t0``.

    Raises:
      ValueError: ``c`` not below every escape barrier, or ``trapped`` not in (0, 1).
    """
    if not 0.0 < trapped < 1.0:
        raise ValueError(f"trapped={trapped!r} must be in (0, 1)")
    terms = [(b / c, lp) for b, lp in zip(trap.barriers, trap.log_prefactors)]
    if any(a <= 1.0 for a, _ in terms):
        raise ValueError(f"c={c!r} must be below every escape barrier {trap.barriers}")
    target = -math.log(trapped)

    def n_inf(log_t0: float) -> float:
        return sum(math.exp(lp + (1 - a) * log_t0) / (a - 1) for a, lp in terms)

    lo, hi = math.log(1.0 + 1e-9), 60.0
    if n_inf(lo) <= target:
        return 1.0 + 1e-9
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if n_inf(mid) > target else (lo, mid)
    return float(math.exp(0.5 * (lo + hi)))


def escapes_closed_form(trap: Any, log_prefactors: list[float], c: float, t0: float, t: float) -> float:
    """``∫_0^t Σ_s k_s (u + t0)^{−ΔV_s/c} du`` in closed form (the Kramers escape intensity under
    ``T = c/log(u + t0)``); used only to size horizons (predictions use the mpmath quadrature)."""
    total = 0.0
    for b, lp in zip(trap.barriers, log_prefactors):
        a = b / c
        if abs(a - 1.0) < 1e-12:
            total += math.exp(lp) * (math.log(t + t0) - math.log(t0))
        else:
            total += math.exp(lp) * ((t + t0) ** (1 - a) - t0 ** (1 - a)) / (1 - a)
    return total


def _mean_ci(sample: Any) -> tuple[float, float, float]:
    """Censored exponential mean with its exact chi-square interval at CONF (Epstein & Sobel 1953)."""
    from contrastive_bounds.numerics.langevin.network_runs import censored_mean

    k = sample.hits
    m = censored_mean(sample.hit_time, sample.t_end)
    total = m * k
    a = (1 - CONF) / 2
    return m, 2 * total / float(sst.chi2.ppf(1 - a, 2 * k)), 2 * total / float(sst.chi2.ppf(a, 2 * k))


def _validate(p: Mapping[str, Any]) -> None:
    from contrastive_bounds.theory._domains import check_int, check_real

    check_int("num_points", p["num_points"], 3, 16)
    check_int("dim", p["dim"], 2, 8)
    from contrastive_bounds.numerics.landscapes.network.arguments import check_tau

    check_tau(p["tau"])
    check_int("chains", p["chains"], 16, 1_000_000)
    check_int("calibration_chains", p["calibration_chains"], 16, 1_000_000)
    check_real("trapped_target", p["trapped_target"], 0.05, 0.95)
    check_real("success_level", p["success_level"], 0.0, 1.0)
    check_real("horizon_t0_multiple", p["horizon_t0_multiple"], 0.0, 1e4)
    check_real("step_scale", p["step_scale"], 0.0, 1.0, hi_closed=True)


_QUICK = {"num_points": 4, "dim": 2, "tau": 0.1, "starts": 128, "chains": 256, "step_scale": 0.2, "trapped_target": 0.5,
          "horizon_t0_multiple": 2.0, "success_level": 0.95, "noise_factor": 1.0, "calibration_chains": 512}


@check("A4.infonce_landscape", theorem="A4 (HKS) + A5 (Eyring-Kramers) on an InfoNCE landscape network (A9)", paper="A",
       statement="T = c/log(t + t0) from the deepest trap of a finite-tau InfoNCE landscape with H* > 0: c = 1.5 H* reaches "
                 "the global set (success >= success_level at the horizon), c = 0.5 H* leaves a trapped fraction > 0; both "
                 "trapped fractions within the Eyring-Kramers band (prefactor modulo symmetry where non-degenerate)",
       quick=_QUICK, thorough={**_QUICK, "num_points": 6, "chains": 1024, "starts": 256, "calibration_chains": 2048,
                                    "horizon_t0_multiple": 4.0}, validate=_validate)
def a4_infonce_landscape(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.landscapes.network_kramers import euler_step_log_rate_bias, network_trap, trap_starts
    from contrastive_bounds.numerics.langevin.network_runs import (
        escape_sample,
        schedule_sample,
        trap_escape_time_guess,
        trap_step_size,
    )
    from contrastive_bounds.numerics.langevin._global_set import global_set_level
    from contrastive_bounds.numerics._stats import clopper_pearson
    from contrastive_bounds.theory._annealing import make_schedule
    from contrastive_bounds.theory._kramers import expected_escapes

    from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, network_for
    from contrastive_bounds.numerics.langevin.network_anneal import KRAMERS_ERROR_PER_T_OVER_H, MIN_BARRIER_OVER_T, \
        laplace_regime

    spec = infonce_spec(int(params["num_points"]), int(params["dim"]), float(params["tau"]))
    res = network_for(spec, SearchSettings(starts=int(params["starts"]), seed=0))
    trap = network_trap(res, spec)
    if trap is None or not trap.saddles or not trap.direct_to_global or not res.complete:
        return Outcome("inconclusive", f"the network of {spec.description} has no clean trap ({res.status}); pick a landscape "
                       "with H* > 0 whose deepest trap escapes straight to a global minimum", reason=res.status)
    h_star, chains, noise = trap.barrier, int(params["chains"]), float(params["noise_factor"])
    h = trap_step_size(trap, float(params["step_scale"]))
    level = global_set_level(trap.v_min, [trap.energy])  # the one rule: the trap stays outside the set
    c_lo, c_hi = 0.5 * h_star, 1.5 * h_star
    if trap.non_degenerate:
        t0 = choose_t0(trap, c_lo, float(params["trapped_target"]))
    else:  # exponent only: size t0 from the order-of-magnitude escape time
        a_guess = trap_escape_time_guess(trap, h_star / 4) * math.exp(-4.0)
        t0 = max(2.0, 1.0 / (a_guess * -math.log(float(params["trapped_target"]))))
    t_f = float(params["horizon_t0_multiple"]) * t0
    n_steps = max(1, int(round(t_f / h)))
    h = t_f / n_steps
    t_hot = c_lo / math.log(t0)
    # calibration at the hottest temperature of the 0.5 H* run: measured mean escape time vs Eyring-Kramers
    guess = trap_escape_time_guess(trap, t_hot)
    cal = escape_sample(spec, trap_starts(trap.z, int(params["calibration_chains"]), seed + 7), t_hot * noise**2,
                        t_end=2.0 * guess, step_size=h, seed=seed + 8, level=level)
    m, m_lo, m_hi = _mean_ci(cal)
    r_lo, r_hi = m_lo / guess, m_hi / guess
    if trap.non_degenerate:
        f_t = 1.0 + KRAMERS_ERROR_PER_T_OVER_H * t_hot / h_star
        f_h = math.exp(abs(euler_step_log_rate_bias(trap, h)))
        factor, lp, mode = f_t * f_h, trap.log_prefactors, "Eyring-Kramers prefactor modulo symmetry"
    else:
        factor, f_t, f_h = 10.0, None, None
        mode = "Arrhenius exponent only (rate |lambda_1(s)|/(2 pi) exp(-H/T)), order-of-magnitude band x10"
        lp = [math.log(abs(trap.saddles[0].eigenvalues[0]) / (2 * math.pi))] + [-math.inf] * (len(trap.barriers) - 1)
    premises: list[tuple[str, str, bool, str]] = []
    rows, plots, inconclusive = [], [], h_star / t_hot < MIN_BARRIER_OVER_T
    # the band's allowance holds only where the trap and its saddles are harmonic over a thermal width at the run's
    # hottest temperature: outside the law's regime an Eyring-Kramers test is reported, not judged (nor its p-value used)
    run_regimes = {c: laplace_regime(spec, trap, c / math.log(t0)) if trap.non_degenerate else "" for c in (c_lo, c_hi)}
    regime = run_regimes[c_lo]  # T_hot is the 0.5 H* run's T(0)
    outside = [f"calibration at T_hot = {t_hot:.4g}: {regime}"] if regime else []
    ek_ok, ok = bool(regime) or (r_hi >= 1.0 / factor and r_lo <= factor), True  # Eyring-Kramers tests; HKS success
    ps = [] if regime else [_calibration_p_value(m * cal.hits, cal.hits, guess, factor)]
    # the 1.5 H* run needs no more than the time by which F x (predicted escapes) reaches 12 (miss < 1e-5)
    t_conv = t_f
    if trap.non_degenerate and not run_regimes[c_hi] and escapes_closed_form(trap, lp, c_hi, t0, t_f) / factor > 12.0:
        lo_t, hi_t = 0.0, t_f
        for _ in range(60):
            mid = 0.5 * (lo_t + hi_t)
            lo_t, hi_t = (lo_t, mid) if escapes_closed_form(trap, lp, c_hi, t0, mid) / factor > 12.0 else (mid, hi_t)
        t_conv = max(hi_t, 10 * h)
    for label, c, s_off, t_run in (("0.5 H*", c_lo, 100, t_f), ("1.5 H*", c_hi, 200, t_conv)):
        sched = make_schedule("temperature", c=c, t0=t0)
        conv = sched.converges(h_star)
        temp = sched if noise == 1.0 else make_schedule("temperature", c=c * noise**2, t0=t0)
        run = schedule_sample(spec, trap_starts(trap.z, chains, seed + s_off), temp, t_end=t_run, step_size=h,
                              seed=seed + s_off + 1, level=level)
        t_run = run.t_end
        log_n = expected_escapes(sched, [b for b, x in zip(trap.barriers, lp) if x > -math.inf],
                                 [x for x in lp if x > -math.inf], 0.0, t_run)
        n_esc = math.exp(log_n)
        pred, b_lo, b_hi = math.exp(-n_esc), math.exp(-n_esc * factor), math.exp(-n_esc / factor)
        v, pv, (t_lo, t_hi) = band_test(run.trapped, run.chains, b_lo, b_hi)
        succ = clopper_pearson(run.below_at_end, run.chains, CONF)
        run_regime = run_regimes[c]
        if run_regime:
            outside.append(f"band of c = {label} (T(0) = {c / math.log(t0):.4g}): {run_regime}")
        else:
            ps.append(pv)
        row = {"schedule": f"T = {c:.4g}/log(t + {t0:.4g})", "c/H*": c / h_star, "HKS: converges": conv.converges,
               "T(0)": c / math.log(t0), "horizon": t_run, "T(horizon)": c / math.log(t_run + t0), "predicted escapes": n_esc,
               "predicted trapped": pred, "band": [b_lo, b_hi], "trapped": run.trapped / run.chains,
               "trapped 99.9%": [t_lo, t_hi], "band test": v, "success at horizon": succ.estimate,
               "success 99.9%": [succ.lo, succ.hi], "law's regime": run_regime or "inside"}
        if v == "violated" and not run_regime:
            ek_ok = False
        premises.append(("premise", f"the HKS verdict of c = {label} is '{'traps' if label == '0.5 H*' else 'converges'}'",
                         conv.converges is (label != "0.5 H*"), conv.reason))
        if label == "0.5 H*":
            if t_lo <= 0.0:
                inconclusive = True
        else:
            if succ.hi < float(params["success_level"]):
                ok = False
                ps.append(float(sst.binom.cdf(run.below_at_end, run.chains, float(params["success_level"]))))
            elif succ.lo < float(params["success_level"]):
                inconclusive = True
        rows.append(row)
        times = [float(x) for x in np.geomspace(max(h, t_run / 1000), t_run, 8)]
        sim = [float(np.mean(~(run.hit_time <= t))) for t in times]
        model = [math.exp(-math.exp(expected_escapes(sched, [b for b, x in zip(trap.barriers, lp) if x > -math.inf],
                                                     [x for x in lp if x > -math.inf], 0.0, t))) for t in times]
        plots.append(PlotSpec(f"{spec.description[:60]}: c = {label}", "continuous time t", "fraction never reached the global set",
                              [Series("simulation", times, sim), Series("Eyring-Kramers exp(-int dt/tau)", times, model, style="--")],
                              logx=True))
    inconclusive = inconclusive or bool(outside)
    verdict = "violated" if not (ok and ek_ok) else ("inconclusive" if inconclusive else "holds")
    lo_row, hi_row = rows
    text = (f"{spec.description}: H* = {h_star:.6g} (network, {res.status}; trap V = {trap.energy:.6g}, global V_min = "
            f"{trap.v_min:.6g}; non-degenerate modulo symmetry: {'yes' if trap.non_degenerate else 'NO: ' + trap.prefactor_reason}); "
            f"reached = V < V_min + {level - trap.v_min:.4g}; c = 0.5 H*: trapped {lo_row['trapped']:.3f} "
            f"[{lo_row['trapped 99.9%'][0]:.3f}, {lo_row['trapped 99.9%'][1]:.3f}] vs predicted {lo_row['predicted trapped']:.3f} "
            f"band [{lo_row['band'][0]:.3f}, {lo_row['band'][1]:.3f}] at t = {t_f:.4g}; c = 1.5 H*: success at t = "
            f"{hi_row['horizon']:.4g}: {hi_row['success at horizon']:.3f} [{hi_row['success 99.9%'][0]:.3f}, {hi_row['success 99.9%'][1]:.3f}] (needs >= "
            f"{params['success_level']}), predicted trapped {hi_row['predicted trapped']:.2e}; {mode}; band factor F = {factor:.3f}"
            + (f" (F_T = {f_t:.3f} at T_hot = {t_hot:.4g}, H*/T_hot = {h_star / t_hot:.3g}; F_h = {f_h:.3f})" if f_t is not None else "")
            + f"; calibration at T_hot: measured/predicted escape time {m:.4g}/{guess:.4g} = {m / guess:.3f} "
              f"[{r_lo:.3f}, {r_hi:.3f}] ({'inside' if r_hi >= 1 / factor and r_lo <= factor else 'OUTSIDE'} [1/F, F])"
            + "".join(f"; Eyring-Kramers {text} (reported, not judged)" for text in outside))
    out = Outcome(verdict, text, bound=lo_row["predicted trapped"], band=tuple(lo_row["band"]), empirical=lo_row["trapped"],
                   interval=tuple(lo_row["trapped 99.9%"]), false_alarm=1 - CONF,
                   p_value=min(1.0, len(ps) * min(ps)) if ps else 1.0,
                   samples=chains, table=rows, plots=plots,
                   reason=f"{mode}; step h = {h:.3g} (h * stiffest trap eigenvalue = {h * trap.stiffest:.3g}), {n_steps} steps",
                   details={"trap": trap.to_dict(), "network_status": res.status, "effort": res.effort_text(),
                            "critical_height": h_star, "t0": t0, "t_end": t_f, "step_size": h, "level": level,
                            "calibration": {"temperature": t_hot, "mean": m, "interval": [m_lo, m_hi], "ratio": [r_lo, r_hi],
                                            "eyring_kramers": guess, "chains": cal.chains, "escaped": cal.hits},
                            "band_factor": factor, "noise_factor": noise, "rows": rows})
    for cond in premises:
        out.require(*cond)
    return out


def _calibration_p_value(total: float, hits: int, predicted: float, factor: float) -> float:
    """P-value of "the true mean escape time is within [predicted/F, predicted·F]" from a censored exponential
    sample (``2·total/m ~ chi²(2·hits)``, Epstein & Sobel 1953), two-sided at the nearer edge; 1 inside."""
    if hits <= 0:
        return 1.0
    m = total / hits
    lo_edge, hi_edge = predicted / factor, predicted * factor
    if m < lo_edge:
        return min(1.0, 2 * float(sst.chi2.cdf(2 * total / lo_edge, 2 * hits)))
    if m > hi_edge:
        return min(1.0, 2 * float(sst.chi2.sf(2 * total / hi_edge, 2 * hits)))
    return 1.0
