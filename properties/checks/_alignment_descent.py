"""Checks of Paper B along coupled similarity descent (docs/theorems.md B3-B6): the runs and their bounds.

Theorem 1 is checked along coupled CL/NSCL runs with the slack of every proof link; its bound (two
implementations in the toolkit: the sympy Bound and the per-step numpy functions) is also compared
with an mpmath closed form at the run's parameters and with docs/reference-values.md C02, and the link bounds with
their closed forms for a constant step size (:mod:`._independent_alignment`). The reported metrics
(d_T, CKA, RSA, rho, r) are recomputed a second way (:mod:`._independent_metrics`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np

from contrastive_bounds import theory as A
from contrastive_bounds.properties._statements import chain_text, compare_text
from contrastive_bounds.properties.checks._agreement import Agreement, agreement, apply_agreements
from contrastive_bounds.properties.checks._alignment_bounds import PAPER_B
from contrastive_bounds.properties.checks._outcome import Outcome, PlotSpec, Series
from contrastive_bounds.properties.checks._framework import check
from contrastive_bounds.properties.checks._verdicts import compare_lower, compare_upper
import contrastive_bounds.properties.checks._independent_alignment as ind
import contrastive_bounds.properties.checks._independent_metrics as im

__all__ = ["descent_run", "descent_from", "validate_descent", "metric_agreements", "gradient_identity", "theorem1",
           "weight_divergence", "cka_rsa_along_descent"]


# ------------------------------------------------------------------------------------ B3 identity
@check("B3.gradient", theorem="similarity descent, closed-form gradient (docs/theorems.md B3)", paper=PAPER_B,
       statement="closed-form G equals jax.grad of the batch loss in Sigma (decoupled and coupled)",
       quick={"num_samples": 48, "num_classes": 4, "batch_size": 16, "tau": 0.5, "trials": 6},
       thorough={"num_samples": 96, "num_classes": 6, "batch_size": 32, "tau": 0.5, "trials": 30})
def gradient_identity(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax

    from contrastive_bounds.numerics.alignment._descent_gradients import batch_loss_on_sigma, full_gradient
    from contrastive_bounds.numerics.alignment._descent import sample_batch
    from contrastive_bounds.numerics.alignment._descent_problem import make_problem

    sigma0, labels = make_problem(int(params["num_samples"]), int(params["num_classes"]), seed=seed)
    key = jax.random.key(seed)
    worst = 0.0
    for i in range(int(params["trials"])):
        key, k = jax.random.split(key)
        batch = sample_batch(k, labels, int(params["batch_size"]))
        for kind in ("cl", "nscl"):
            for coupled in (False, True):
                g = np.asarray(full_gradient(sigma0, batch, labels, tau=float(params["tau"]), kind=kind, coupled=coupled))
                ref = np.asarray(jax.grad(lambda s: batch_loss_on_sigma(s, batch, labels, tau=float(params["tau"]),
                                                                          kind=kind, coupled=coupled))(sigma0))
                err = float(np.max(np.abs(g - ref)) / max(np.max(np.abs(ref)), 1e-300))
                worst = max(worst, err)
    tol = 1e-10
    verdict = "holds" if worst <= tol else "violated"
    return Outcome(verdict, f"max relative difference closed form vs jax.grad: {worst:.2e} (tolerance {tol:g}, float64)",
                   bound=tol, empirical=worst, interval=(worst, worst), ratio=worst / tol,
                   samples=int(params["trials"]) * 4)


@functools.lru_cache(maxsize=8)
def descent_run(num_samples: int, num_classes: int, batch_size: int, steps: int, tau: float, step_size: float,
             delta: float, seed: int) -> Any:
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
    from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent

    sigma0, labels = make_problem(num_samples, num_classes, seed=seed)
    cfg = DescentConfig(batch_size=batch_size, steps=steps, tau=tau, step_size=step_size, seed=seed, delta=delta,
                        replace=True, empty_negatives="exclude")
    return run_similarity_descent(sigma0, labels, cfg)


_DESCENT_QUICK = {"num_samples": 1000, "num_classes": 10, "batch_size": 64, "steps": 300, "tau": 0.5,
                  "step_size": 1.0, "delta": 0.05}
_DESCENT_THOROUGH = {"num_samples": 2000, "num_classes": 20, "batch_size": 128, "steps": 2000, "tau": 0.5,
                     "step_size": 1.0, "delta": 0.05}


def validate_descent(params: Mapping[str, Any]) -> None:
    """Parameters of the descent checks: the theorems need S = steps * step_size > 0."""
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig
    from contrastive_bounds.theory._domains import check_int, check_probability, check_real

    n = check_int("num_samples", params["num_samples"], 2)
    check_int("num_classes", params["num_classes"], 2, n)
    check_real("step_size", params["step_size"], 0.0)  # > 0: Theorems 1 and 2 need S > 0
    check_probability("delta", params["delta"])
    DescentConfig(batch_size=int(params["batch_size"]), steps=int(params["steps"]), tau=float(params["tau"]),
                  step_size=float(params["step_size"]), delta=float(params["delta"]), replace=True).validate(n)


def descent_from(params: Mapping[str, Any], seed: int) -> Any:
    return descent_run(int(params["num_samples"]), int(params["num_classes"]), int(params["batch_size"]),
                    int(params["steps"]), float(params["tau"]), float(params["step_size"]), float(params["delta"]), seed)




def _deficit_rtol(value: float) -> float:
    """Relative tolerance of 1 - value: 1e-7, or the rounding of a value near 1 (1e-13 absolute) if larger."""
    return max(1e-7, 1e-13 / max(abs(1.0 - value), 1e-300))


def metric_agreements(res: Any, s: Mapping[str, Any]) -> list[Agreement]:
    """The metrics a descent run reports (d_T, CKA, RSA, rho, r) against their second computation.

    CKA and RSA of the coupled runs are within 1e-5 of 1, so they are compared through their deficits
    ``1 - CKA`` and ``1 - RSA`` (relative 1e-7, or 1e-13 absolute where that is larger: the rounding of a
    value near 1); compared as values they would not show an uncentred CKA (0.9999914 vs 0.9999913)."""
    a, b = np.asarray(res.sigma_cl, np.float64), np.asarray(res.sigma_nscl, np.float64)
    return [agreement("d_T (incremental, descent_step)", "final step", float(res.distance[-1]), float(np.linalg.norm(a - b)),
                      rtol=1e-8),
            # near 1 the deficits 1 - CKA, 1 - RSA carry the information (and the corollaries bound them)
            agreement("1 - cosine_gram_cka", "final Sigma pair", 1.0 - s["cka"], 1.0 - im.cka_trace(a, b),
                      rtol=_deficit_rtol(s["cka"])),
            agreement("1 - rsa_from_similarity (Pearson)", "final Sigma pair", 1.0 - s["rsa"], 1.0 - im.rsa_corrcoef(a, b),
                      rtol=_deficit_rtol(s["rsa"])),
            agreement("cka_rho", "final Sigma pair", s["rho"], im.rho_direct(a, b), rtol=1e-9),
            agreement("rsa_r", "final Sigma pair", s["r"], im.r_direct(a, b), rtol=1e-9)]


def _theorem1_agreements(params: Mapping[str, Any], res: Any) -> list[Agreement]:
    """Theorem 1 at the run's point and C02; links L2/L3/Theorem 1 along the run vs closed forms."""
    tau, b, steps = float(params["tau"]), int(params["batch_size"]), int(params["steps"])
    eta = float(params["step_size"])
    rows = ind.verify_theorem1(tau, res.pi_max, b, steps, float(params["delta"]), eta * steps)
    if not res.vacuous and eta > 0:
        rows += ind.verify_links(eta, steps, tau, b, res.delta_value)
    return rows


@check("B4.theorem1", theorem="alignment.frobenius (Paper B, Theorem 1) and links L1-L3", paper=PAPER_B,
       statement="||Sigma_CL_T - Sigma_NSCL_T||_F <= exp(S/(2 tau^2 B)) S Delta/(tau sqrt B) along coupled similarity descent",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=validate_descent)
def theorem1(params: Mapping[str, Any], seed: int) -> Outcome:
    res = descent_from(params, seed)
    s = res.summary()
    d_t = float(res.distance[-1])
    thm_log = float(res.bounds_log10["theorem1"][-1])
    links = res.link_holds()
    t = np.arange(len(res.distance))
    with np.errstate(divide="ignore"):
        series = [Series("measured d_t", t[1:].tolist(), res.distance[1:].tolist())]
    for link, arr in res.bounds_log10.items():
        if np.all(np.isfinite(arr[1:])) and np.max(arr[1:]) < 300:  # larger bounds are not plottable in float64
            series.append(Series(f"bound {link}", t[1:].tolist(), (10.0 ** np.minimum(arr[1:], 300)).tolist(), style="--"))
    series.append(Series("trivial bound 2 sqrt(m(m-1))", [float(t[1]), float(t[-1])], [s["trivial_bound"]] * 2, style=":"))
    plots = [PlotSpec("Theorem 1 along similarity descent: d_t and each link's bound", "step t",
                      "||Sigma_CL - Sigma_NSCL||_F", series, logy=True)]
    # the per-step numerics and the symbolic Bound object are independent implementations: they must agree
    sym = A.FROBENIUS.evaluate(digits=20, tau=float(params["tau"]), pi_max=res.pi_max, batch_size=int(params["batch_size"]),
                               steps=int(params["steps"]), delta=float(params["delta"]),
                               eta_sum=float(params["step_size"]) * int(params["steps"]))
    sym_log = sym.log10 if sym.log10 is not None else (float(sym.log10_exact) if sym.log10_exact else None)
    same = sym.vacuous == res.vacuous and (sym.vacuous or abs(sym_log - thm_log) <= 1e-9 * max(1.0, abs(thm_log)))
    if res.vacuous:
        out = compare_upper(None, d_t, reason=s["reason"], what="d_T")
    else:
        bound = 10.0 ** thm_log if thm_log < 300 else None
        out = compare_upper(bound, d_t, what="d_T", bound_log10=thm_log, trivial=s["trivial_bound"])
        bad = [k for k, v in links.items() if not v]
        out.require("exact", "every link of the proof (L1 per step, L2, L3, Theorem 1) holds at every step", not bad,
                    f"violated: {bad}" if bad else f"status: {s['status']}")
        if not bad:
            out.summary += f"; every link (L1 per step, L2, L3, Thm 1) holds at every step; status: {s['status']}"
    out.require("independent", "the Theorem-1 bound is the same in both toolkit implementations (sympy Bound object "
                "and per-step numerics)", same, f"Bound log10 {sym_log} (vacuous {sym.vacuous}) vs numerics {thm_log} "
                f"(vacuous {res.vacuous})")
    out.slack = {k: float(v) for k, v in s["slack_log10"].items() if v is not None}
    out.plots = plots
    out.details = {k: s[k] for k in ("pi_max", "epsilon", "delta_value", "status", "reason", "trivial_bound",
                                     "bounds", "holds", "batch_event", "max_same_fraction", "nscl_empty")}
    return apply_agreements(out, _theorem1_agreements(params, res))


@check("B5.cka_rsa_along_descent", theorem="alignment.cka_lower / rsa_lower / cka_lower_apriori", paper=PAPER_B,
       statement="measured CKA_T and RSA_T of the coupled runs are above (1-rho)/(1+rho), (1-r)/(1+r) and the a-priori bound",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=validate_descent)
def cka_rsa_along_descent(params: Mapping[str, Any], seed: int) -> Outcome:
    res = descent_from(params, seed)
    s = res.summary()
    out = compare_lower(s["cka_lower"], s["cka"], what="CKA_T", trivial=0.0)  # CKA of two PSD Grams is >= 0
    rsa_ok = s["rsa"] >= s["rsa_lower"] - 1e-9
    prior_ok = s["cka"] >= s["cka_lower_prior"] - 1e-9 and s["rsa"] >= s["rsa_lower_prior"] - 1e-9
    out.require("exact", "RSA_T >= (1 - r)/(1 + r)", rsa_ok, f"RSA_T {s['rsa']:.10g}, bound {s['rsa_lower']:.10g}")
    out.require("exact", "CKA_T and RSA_T are above their a-priori (Theorem-1) bounds", prior_ok,
                f"CKA {s['cka']:.10g} vs {s['cka_lower_prior']:.6g}; RSA {s['rsa']:.10g} vs {s['rsa_lower_prior']:.6g}")
    prior_note = ("a-priori (Theorem-1) CKA bound is vacuous here (rho_bar >= 1)" if s["cka_lower_prior"] <= 0
                  else f"a-priori CKA bound {s['cka_lower_prior']:.4g}")
    out.summary += (f"; {compare_text('RSA_T', s['rsa'], '(1-r)/(1+r) =', s['rsa_lower'], weak=True)}; {prior_note}")
    out.details = {k: s[k] for k in ("cka", "rho", "cka_lower", "cka_lower_prior", "rsa", "r", "rsa_lower", "rsa_lower_prior")}
    return apply_agreements(out, metric_agreements(res, s) + ind.verify_corollaries([s["rho"]], [s["r"]]))


@check("B6.weight_divergence", theorem="alignment.weight_divergence (Paper B, Theorem 2)", paper=PAPER_B,
       statement="Theorem 2's form (G/(beta_s tau)) Delta (exp(beta_s S) - 1) bounds the divergence of the coupled "
                 "runs when the parameters are the similarity entries (G = 1/sqrt(B), beta_s = 1/(2 tau^2 B))",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=validate_descent)
def weight_divergence(params: Mapping[str, Any], seed: int) -> Outcome:
    """In the Sigma parametrisation the recursion of Theorem 2, d' <= (1 + eta beta_s) d + eta (G/tau) Delta, is
    link L2 with beta_s = 1/(2 tau^2 B) and G = 1/sqrt(B): the constants are known, so the bound is checkable.
    It sits between L2 (exact recursion) and Theorem 1. An upper bound only: it does not say weights diverge."""
    res = descent_from(params, seed)
    tau, b = float(params["tau"]), int(params["batch_size"])
    s_sum = float(params["step_size"]) * int(params["steps"])
    val = A.WEIGHT_DIVERGENCE.evaluate(digits=20, tau=tau, pi_max=res.pi_max, batch_size=b, steps=int(params["steps"]),
                                       delta=float(params["delta"]), eta_sum=s_sum, grad_norm=1 / math.sqrt(b),
                                       smoothness=1 / (2 * tau * tau * b))
    d_t = float(res.distance[-1])
    if val.vacuous:
        return compare_upper(None, d_t, reason=val.reason, what="d_T")
    l2, t1 = float(res.bounds_log10["L2"][-1]), float(res.bounds_log10["theorem1"][-1])
    out = compare_upper(val.value, d_t, what="d_T", bound_log10=val.log10, trivial=res.summary()["trivial_bound"])
    between = l2 - 1e-9 <= val.log10 <= t1 + 1e-9
    out.require("exact", "the Theorem-2 form lies between link L2 and Theorem 1 (in this parametrisation)", between,
                f"log10: L2 {l2:.6g}, Theorem-2 form {val.log10:.6g}, Theorem 1 {t1:.6g}")
    if between:
        out.summary += "; log10 bounds: " + chain_text([("L2", l2), ("Theorem-2 form", val.log10), ("Theorem 1", t1)],
                                                       ".4f", weak=True)
    out.details = {"log10": {"L2": l2, "theorem2_form": val.log10, "theorem1": t1}, "factors": val.factors}
    return apply_agreements(out, ind.verify_weight_divergence(tau, res.pi_max, b, int(params["steps"]), float(params["delta"]),
                                                              s_sum, 1 / math.sqrt(b), 1 / (2 * tau * tau * b)))
