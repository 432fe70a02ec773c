"""Checks of Paper B (Luthra, Mishra, Galanti, arXiv:2510.08852): THEOREMS.md B2-B8.

Deterministic inequalities are searched with hypothesis (``hypothesis.target`` drives the search
toward the largest empirical/bound ratio; the largest found is reported). Theorem 1 is checked along
coupled similarity-descent runs with the slack of every proof link; real data are scikit-learn's
digits, trained with CL and NSCL under shared randomness.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target

from contrastive_bounds.theory import alignment as A
from contrastive_bounds.theory import registry

from contrastive_bounds.properties import strategies as cbst
from contrastive_bounds.properties.checks.claims import claims_outcome
from contrastive_bounds.properties.checks.framework import Outcome, PlotSpec, Series, check, compare_lower, compare_upper
from contrastive_bounds.properties.stats import binomial_upper_p, clopper_pearson

PAPER_B = "B"


def _search(n_examples: int, seed: int, strategy: Any, body: Any) -> None:
    """Run ``body`` on ``n_examples`` hypothesis examples (seeded, no database, no shrinking phases skipped)."""
    runner = settings(max_examples=n_examples, deadline=None, database=None, derandomize=False,
                      suppress_health_check=list(HealthCheck),
                      phases=(Phase.generate, Phase.target, Phase.shrink))(given(strategy)(body))
    import hypothesis

    hypothesis.seed(seed)(runner)()


# ------------------------------------------------------------------------------------ B2
@check("B2.loss_gap", theorem="alignment.loss_gap (Luthra et al. 2025, Thm 1)", paper=PAPER_B,
       statement="L_NSCL <= L_DCL <= L_NSCL + log(1 + e^{2/tau} n_max/(N - n_max)) for any unit embeddings",
       quick={"examples": 60, "tau": 0.5}, thorough={"examples": 600, "tau": 0.5})
def loss_gap(params: Mapping[str, Any], seed: int) -> Outcome:
    from hypothesis import strategies as st

    from contrastive_bounds.numerics.alignment.training import population_loss_gap

    tau = float(params["tau"])
    worst: dict[str, Any] = {"ratio": -math.inf}
    lower_violation: list[Any] = []

    @st.composite
    def case(draw: Any) -> Any:
        n = draw(st.sampled_from(cbst.SIZE_BUCKETS))
        z1, z2 = draw(cbst.embedding_pairs(n=n))
        y = draw(cbst.labels(n=n))
        return z1, z2, y

    def body(c: Any) -> None:
        z1, z2, y = c
        l_dcl, l_nscl = population_loss_gap(z1, z2, y, tau=tau)
        n_max = int(np.bincount(y).max())
        bound = A.loss_gap_value(tau, n_max / len(y))
        gap = l_dcl - l_nscl
        if gap < -1e-12 * max(1.0, abs(l_dcl)):
            lower_violation.append({"gap": gap, "n": len(y)})
        ratio = gap / bound
        target(ratio, label="gap/bound")
        if ratio > worst["ratio"]:
            worst.update(ratio=ratio, gap=gap, bound=bound, n=len(y), n_max=n_max)
        assert gap <= bound * (1 + 1e-9), f"gap {gap} > bound {bound}"

    try:
        _search(int(params["examples"]), seed, case(), body)
    except AssertionError as exc:
        return Outcome("violated", f"loss gap exceeds its bound: {exc}", details={"worst": worst})
    if lower_violation:
        return Outcome("violated", f"L_DCL < L_NSCL on {len(lower_violation)} examples (the lower side of B2)",
                       details={"examples": lower_violation[:5]})
    out = compare_upper(worst["bound"], worst["gap"], what="largest gap/bound example: gap",
                        samples=int(params["examples"]))
    out.summary = (f"{params['examples']} hypothesis examples (targeting gap/bound): largest ratio {worst['ratio']:.3g}; "
                   f"L_NSCL <= L_DCL everywhere. " + out.summary)
    out.details = {"worst": worst}
    return out


# ------------------------------------------------------------------------------------ B5 (deterministic)
@check("B5.corollaries_any_pair", theorem="alignment.cka_lower, alignment.rsa_lower", paper=PAPER_B,
       statement="CKA >= (1-rho)/(1+rho) and RSA >= (1-r)/(1+r) (and the sharp sqrt(1-x^2) forms) for any pair "
                 "of similarity matrices with rho, r < 1",
       quick={"examples": 60}, thorough={"examples": 600})
def corollaries_any_pair(params: Mapping[str, Any], seed: int) -> Outcome:
    """Equivalent upper-bound form: deficit 1 - CKA <= 2 rho/(1 + rho) (same for RSA with r).

    The ratio deficit/allowed deficit is the bound's tightness; hypothesis targets its maximum.
    """
    from contrastive_bounds.numerics.alignment.similarity import cka_rho, cosine_gram_cka, rsa_from_similarity, rsa_r

    worst: dict[str, Any] = {"ratio": -math.inf}
    beyond: list[dict[str, float]] = []  # r >= 1: the formula is not asserted there (vacuous), but recorded

    def body(pair: Any) -> None:
        a, b = pair
        rho, r = cka_rho(a, b), rsa_r(a, b)
        cka, rsa_v = cosine_gram_cka(a, b), rsa_from_similarity(a, b)
        for name, measured, lower, x in (("CKA", cka, A.cka_lower(rho), rho), ("RSA", rsa_v, A.rsa_lower(r), r),
                                         ("CKA sharp", cka, A.cka_lower_sharp(rho), rho),
                                         ("RSA sharp", rsa_v, A.rsa_lower_sharp(r), r)):
            if x >= 1:
                if measured < lower:
                    beyond.append({"metric": name, "x": x, "measured": measured, "formula": lower})
                continue
            assert measured >= lower - 1e-9, f"{name} {measured} < lower bound {lower}"
            allowed = 1.0 - lower
            if allowed < 1e-8:  # numerically identical pair: the ratio would be rounding noise
                continue
            ratio = (1.0 - measured) / allowed
            target(ratio, label=f"{name} deficit / allowed deficit")
            if ratio > worst["ratio"]:
                worst.update(ratio=ratio, metric=name, measured=measured, lower=lower, rho=rho, r=r)

    try:
        _search(int(params["examples"]), seed, cbst.gram_pairs(min_perturbation=0.01, max_perturbation=2.0), body)
    except AssertionError as exc:
        return Outcome("violated", f"corollary inequality fails: {exc}", details={"worst": worst})
    name = worst["metric"]
    out = compare_upper(1.0 - worst["lower"], 1.0 - worst["measured"], what=f"tightest example: 1 - {name}",
                        samples=int(params["examples"]))
    out.summary = (f"{params['examples']} Gram pairs (hypothesis targets deficit/allowed): every pair satisfies both "
                   f"corollaries; " + out.summary + f" ({name} = {worst['measured']:.4g} vs lower bound {worst['lower']:.4g})")
    if beyond:
        ex = min(beyond, key=lambda e: e["measured"] - e["formula"])
        out.summary += (f". Finding: for rho or r >= 1 (where the toolkit reports the bound vacuous) the formula fails "
                        f"on {len(beyond)} examples, e.g. {ex['metric']} = {ex['measured']:.4g} < {ex['formula']:.4g} at "
                        f"{ex['x']:.3g}: the corollaries hold only for rho, r < 1")
    out.details = {"worst": worst, "beyond_validity": beyond[:10]}
    return out


# ------------------------------------------------------------------------------------ B3 identity
@check("B3.gradient", theorem="similarity descent, closed-form gradient (THEOREMS.md B3)", paper=PAPER_B,
       statement="closed-form G equals jax.grad of the batch loss in Sigma (decoupled and coupled)",
       quick={"num_samples": 48, "num_classes": 4, "batch_size": 16, "tau": 0.5, "trials": 6},
       thorough={"num_samples": 96, "num_classes": 6, "batch_size": 32, "tau": 0.5, "trials": 30})
def gradient_identity(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax

    from contrastive_bounds.numerics.alignment.descent import batch_loss_on_sigma, full_gradient, sample_batch
    from contrastive_bounds.numerics.alignment.descent_run import make_problem

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


# ------------------------------------------------------------------------------------ B4 (runs)
@functools.lru_cache(maxsize=8)
def _descent(num_samples: int, num_classes: int, batch_size: int, steps: int, tau: float, step_size: float,
             delta: float, seed: int) -> Any:
    from contrastive_bounds.numerics.alignment.descent_run import DescentConfig, make_problem, run_similarity_descent

    sigma0, labels = make_problem(num_samples, num_classes, seed=seed)
    cfg = DescentConfig(batch_size=batch_size, steps=steps, tau=tau, step_size=step_size, seed=seed, delta=delta,
                        replace=True, empty_negatives="exclude")
    return run_similarity_descent(sigma0, labels, cfg)


_DESCENT_QUICK = {"num_samples": 1000, "num_classes": 10, "batch_size": 64, "steps": 300, "tau": 0.5,
                  "step_size": 1.0, "delta": 0.05}
_DESCENT_THOROUGH = {"num_samples": 2000, "num_classes": 20, "batch_size": 128, "steps": 2000, "tau": 0.5,
                     "step_size": 1.0, "delta": 0.05}


def _validate_descent(params: Mapping[str, Any]) -> None:
    """Parameters of the descent checks: the theorems need S = steps * step_size > 0."""
    from contrastive_bounds.numerics.alignment.descent_run import DescentConfig
    from contrastive_bounds.theory.domains import check_int, check_probability, check_real

    n = check_int("num_samples", params["num_samples"], 2)
    check_int("num_classes", params["num_classes"], 2, n)
    check_real("step_size", params["step_size"], 0.0)  # > 0: Theorems 1 and 2 need S > 0
    check_probability("delta", params["delta"])
    DescentConfig(batch_size=int(params["batch_size"]), steps=int(params["steps"]), tau=float(params["tau"]),
                  step_size=float(params["step_size"]), delta=float(params["delta"]), replace=True).validate(n)


def _descent_from(params: Mapping[str, Any], seed: int) -> Any:
    return _descent(int(params["num_samples"]), int(params["num_classes"]), int(params["batch_size"]),
                    int(params["steps"]), float(params["tau"]), float(params["step_size"]), float(params["delta"]), seed)


@check("B4.theorem1", theorem="alignment.frobenius (Paper B, Theorem 1) and links L1-L3", paper=PAPER_B,
       statement="||Sigma_CL_T - Sigma_NSCL_T||_F <= exp(S/(2 tau^2 B)) S Delta/(tau sqrt B) along coupled similarity descent",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=_validate_descent)
def theorem1(params: Mapping[str, Any], seed: int) -> Outcome:
    res = _descent_from(params, seed)
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
    if sym.vacuous != res.vacuous or (
            not sym.vacuous and abs(sym_log - thm_log) > 1e-9 * max(1.0, abs(thm_log))):
        return Outcome("violated", f"Theorem-1 bound disagrees between implementations: Bound object log10 "
                                   f"{sym.log10} vs per-step numerics log10 {thm_log}", bound_log10=thm_log,
                       empirical=d_t, details={"bound_object_log10": sym.log10, "numeric_log10": thm_log})
    if res.vacuous:
        out = compare_upper(None, d_t, reason=s["reason"], what="d_T")
    else:
        bound = 10.0 ** thm_log if thm_log < 300 else None
        out = compare_upper(bound, d_t, what="d_T", bound_log10=thm_log, trivial=s["trivial_bound"])
        if not all(links.values()):
            bad = [k for k, v in links.items() if not v]
            out.verdict = "violated"
            out.summary = f"link(s) {bad} violated at some step; " + out.summary
        else:
            out.summary += f"; every link (L1 per step, L2, L3, Thm 1) holds at every step; status: {s['status']}"
    out.slack = {k: float(v) for k, v in s["slack_log10"].items() if v is not None}
    out.plots = plots
    out.details = {k: s[k] for k in ("pi_max", "epsilon", "delta_value", "status", "reason", "trivial_bound",
                                     "bounds", "holds", "batch_event", "max_same_fraction", "nscl_empty")}
    return out


# (C, B, T, delta, tau, S) -> (epsilon, Delta, log10 bound) of CASES.md C02 (40-digit mpmath, independent)
_C02 = [((100, 256, 1000, "0.05", "0.5", 10), ("0.17370427116883531183", "24.574214968310783817", "1.5213189224469810")),
        ((1000, 4096, 1000, "0.05", "1", 1), ("0.047162210885955110246", "0.7477603477291898929", "-1.9323645278801396")),
        ((200, 1024, 100000, "0.05", "0.1", 60000), ("0.10231721875601699997", "1.1665191824590073645e8", "1284.6870081078047796"))]
_C03 = [((10, "1"), "0.59938922370200505131"), ((1000, "1"), "0.0073692329329828110838"), ((10, "0.2"), "7.8031839385776533298")]


@check("B4.reference_values", theorem="alignment.epsilon / delta / frobenius / loss_gap (CASES.md C02, C03)", paper=PAPER_B,
       statement="the bound objects and the per-step numerics reproduce the reference table to 1e-12 relative",
       quick={"rtol": 1e-12}, thorough={"rtol": 1e-12})
def reference_values(params: Mapping[str, Any], seed: int) -> Outcome:
    import mpmath
    import sympy as sp

    rtol = float(params["rtol"])
    worst, rows = 0.0, []

    def rel(a: float, b: float) -> float:
        return abs(a - b) / max(abs(b), 1e-300)

    for (c, b, t, dl, tau, s), (eps_ref, delta_ref, log_ref) in _C02:
        q = dict(num_classes=c, batch_size=b, steps=t, delta=sp.Rational(dl), tau=sp.Rational(tau))
        eps = float(A.EPSILON.evaluate(batch_size=b, steps=t, delta=sp.Rational(dl)).mp_value)
        dlt = A.DELTA_BOUND.evaluate(**q)
        fro = A.FROBENIUS.evaluate(eta_sum=s, **q)
        eps_num = A.epsilon_value(b, t, float(dl))
        log_num = A.frobenius_log10(s, float(tau), b, A.delta_value(float(tau), 1 / c, eps_num))
        errs = [rel(eps, float(mpmath.mpf(eps_ref))), rel(eps_num, float(mpmath.mpf(eps_ref))),
                rel(float(dlt.mp_value), float(mpmath.mpf(delta_ref))), rel(fro.log10, float(mpmath.mpf(log_ref))),
                rel(log_num, float(mpmath.mpf(log_ref)))]
        worst = max(worst, *errs)
        rows.append({"params": [c, b, t, dl, tau, s], "max_rel_error": max(errs)})
    for (c, tau), ref in _C03:
        errs = [rel(float(A.LOSS_GAP.evaluate(num_classes=c, tau=sp.Rational(tau)).mp_value), float(mpmath.mpf(ref))),
                rel(A.loss_gap_value(float(tau), 1 / c), float(mpmath.mpf(ref)))]
        worst = max(worst, *errs)
        rows.append({"params": [c, tau], "max_rel_error": max(errs)})
    vac = A.FROBENIUS.evaluate(num_classes=2, batch_size=16, steps=100000, delta=sp.Rational("0.05"), tau=sp.Rational("0.5"), eta_sum=10)
    if not vac.vacuous:
        return Outcome("violated", "the vacuous C02 row (C=2, B=16) was not reported vacuous", details={"rows": rows})
    verdict = "holds" if worst <= rtol else "violated"
    return Outcome(verdict, f"{len(rows)} reference rows, both implementations: max relative error {worst:.2e} "
                            f"(tolerance {rtol:g}); the vacuous row is reported vacuous",
                   bound=rtol, empirical=worst, interval=(worst, worst), ratio=worst / rtol, details={"rows": rows})


@check("B6.weight_divergence", theorem="alignment.weight_divergence (Paper B, Theorem 2)", paper=PAPER_B,
       statement="Theorem 2's form (G/(beta_s tau)) Delta (exp(beta_s S) - 1) bounds the divergence of the coupled "
                 "runs when the parameters are the similarity entries (G = 1/sqrt(B), beta_s = 1/(2 tau^2 B))",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=_validate_descent)
def weight_divergence(params: Mapping[str, Any], seed: int) -> Outcome:
    """In the Sigma parametrisation the recursion of Theorem 2, d' <= (1 + eta beta_s) d + eta (G/tau) Delta, is
    link L2 with beta_s = 1/(2 tau^2 B) and G = 1/sqrt(B): the constants are known, so the bound is checkable.
    It sits between L2 (exact recursion) and Theorem 1. An upper bound only: it does not say weights diverge."""
    res = _descent_from(params, seed)
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
    if not (l2 - 1e-9 <= val.log10 <= t1 + 1e-9):
        out.verdict = "violated"
        out.summary = (f"Theorem-2 form (log10 {val.log10:.6g}) is not between L2 ({l2:.6g}) and Theorem 1 ({t1:.6g}); "
                       + out.summary)
    else:
        out.summary += f"; log10 bounds: L2 {l2:.4f} <= Theorem-2 form {val.log10:.4f} <= Theorem 1 {t1:.4f}"
    out.details = {"log10": {"L2": l2, "theorem2_form": val.log10, "theorem1": t1}, "factors": val.factors}
    return out


@check("B5.cka_rsa_along_descent", theorem="alignment.cka_lower / rsa_lower / cka_lower_apriori", paper=PAPER_B,
       statement="measured CKA_T and RSA_T of the coupled runs are above (1-rho)/(1+rho), (1-r)/(1+r) and the a-priori bound",
       quick=_DESCENT_QUICK, thorough=_DESCENT_THOROUGH, validate=_validate_descent)
def cka_rsa_along_descent(params: Mapping[str, Any], seed: int) -> Outcome:
    res = _descent_from(params, seed)
    s = res.summary()
    out = compare_lower(s["cka_lower"], s["cka"], what="CKA_T")
    rsa_ok = s["rsa"] >= s["rsa_lower"] - 1e-9
    prior_ok = s["cka"] >= s["cka_lower_prior"] - 1e-9 and s["rsa"] >= s["rsa_lower_prior"] - 1e-9
    if not (rsa_ok and prior_ok):
        out.verdict = "violated"
    prior_note = ("a-priori (Theorem-1) CKA bound is vacuous here (rho_bar >= 1)" if s["cka_lower_prior"] <= 0
                  else f"a-priori CKA bound {s['cka_lower_prior']:.4g}")
    out.summary += (f"; RSA_T {s['rsa']:.4g} >= (1-r)/(1+r) = {s['rsa_lower']:.4g}; {prior_note}")
    out.details = {k: s[k] for k in ("cka", "rho", "cka_lower", "cka_lower_prior", "rsa", "r", "rsa_lower", "rsa_lower_prior")}
    return out


@check("B4.batch_event", theorem="alignment.epsilon (Hoeffding + union bound of Theorem 1)", paper=PAPER_B,
       statement="P(some anchor's same-class fraction > pi_max + eps over T steps) <= delta",
       quick={"runs": 400, "num_classes": 10, "batch_size": 64, "steps": 100, "delta": 0.05},
       thorough={"runs": 4000, "num_classes": 10, "batch_size": 64, "steps": 1000, "delta": 0.05})
def batch_event(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax
    import jax.numpy as jnp

    runs, c, b, steps, dl = (int(params["runs"]), int(params["num_classes"]), int(params["batch_size"]),
                             int(params["steps"]), float(params["delta"]))
    eps = A.epsilon_value(b, steps, dl)
    pi_max = 1.0 / c

    @jax.jit
    def max_fraction(key: jax.Array) -> jax.Array:
        y = jax.random.randint(key, (steps, b), 0, c)  # i.i.d. balanced labels (the Hoeffding setting)
        counts = jax.nn.one_hot(y, c).sum(axis=1)  # (steps, c)
        same = jnp.take_along_axis(counts, y, axis=1) - 1.0  # other batch members of the anchor's class
        return jnp.max(same / (b - 1))

    fr = np.asarray(jax.vmap(max_fraction)(jax.random.split(jax.random.key(seed), runs)))
    failures = int(np.sum(fr > pi_max + eps))
    ci = clopper_pearson(failures, runs, 0.999)
    p = binomial_upper_p(failures, runs, dl)
    out = compare_upper(dl, failures / runs, (ci.lo, ci.hi), samples=runs, what="failure frequency",
                        false_alarm=1e-3)
    out.p_value = p
    out.summary += (f"; eps = {eps:.4g}, largest same-class fraction seen {fr.max():.4g} vs pi_max + eps = "
                    f"{pi_max + eps:.4g} (Clopper-Pearson 99.9%)")
    return out


# ------------------------------------------------------------------------------------ B7 claims
@check("B7.claims", theorem="B7 qualitative claims (alignment.*)", paper=PAPER_B,
       statement="monotonicity of the Theorem-1 bound in C, tau, B, S and the learning-rate scaling table",
       quick={"certify": True}, thorough={"certify": True})
def b7_claims(params: Mapping[str, Any], seed: int) -> Outcome:
    return claims_outcome(("alignment.",), bool(params["certify"]))


# ------------------------------------------------------------------------------------ B8 real data
@check("B8.digits", theorem="alignment.loss_gap on real data; trends of B7 (paper Figs. 3-5)", paper=PAPER_B,
       statement="CL vs NSCL (and SupCon, CE) on scikit-learn digits under shared randomness: loss gap within its bound "
                 "at every epoch; CKA/RSA trends in C and tau reported as findings",
       quick={"epochs": 5, "tau": 0.5, "num_classes": [2, 10], "taus": [0.1, 1.0], "batch_size": 128, "probe": False},
       thorough={"epochs": 30, "tau": 0.5, "num_classes": [2, 4, 6, 8, 10], "taus": [0.1, 0.5, 1.0], "batch_size": 128,
                 "probe": True})
def digits(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.alignment.training import TrainConfig, train_alignment

    epochs, bs = int(params["epochs"]), int(params["batch_size"])
    runs: dict[str, Any] = {}
    configs = [(c, float(params["tau"])) for c in params["num_classes"]]
    configs += [(10, t) for t in params["taus"] if (10, t) not in configs]
    worst_ratio, worst = -math.inf, None
    for c, t in configs:
        res = train_alignment(TrainConfig(num_classes=int(c), tau=t, epochs=epochs, batch_size=bs, seed=seed,
                                          probe=bool(params["probe"])))
        runs[f"C={c},tau={t}"] = res.history
        for rec in res.history:
            for kind in ("cl", "nscl"):
                gap = rec.get(f"loss_gap_{kind}")
                if gap is None:
                    continue
                ratio = gap / rec["loss_gap_bound"]
                if ratio > worst_ratio:
                    worst_ratio, worst = ratio, (gap, rec["loss_gap_bound"], c, t, rec["epoch"], kind)
    gap, bound, c, t, ep, kind = worst
    out = compare_upper(bound, gap, what=f"largest loss gap (C={c}, tau={t}, epoch {ep}, {kind} model)")
    final = {k: h[-1] for k, h in runs.items()}
    by_c = [(c, final[f"C={c},tau={float(params['tau'])}"]["cka_z"]["cl-nscl"]) for c in params["num_classes"]]
    by_t = [(t, final[f"C=10,tau={t}"]["cka_z"]["cl-nscl"]) for t in params["taus"]]
    order = final[f"C=10,tau={params['taus'][-1]}"]
    rises_c = all(b[1] >= a[1] for a, b in zip(by_c, by_c[1:]))
    rises_t = all(b[1] >= a[1] for a, b in zip(by_t, by_t[1:]))
    ordering = sorted(("nscl", "supcon", "ce"), key=lambda m: -order["cka_z"][f"cl-{m}"])
    out.summary += (f". Findings: CL-NSCL CKA vs C {[(c, round(v, 3)) for c, v in by_c]} "
                    f"({'rises' if rises_c else 'does not rise monotonically'}); vs tau {[(t, round(v, 3)) for t, v in by_t]} "
                    f"({'rises' if rises_t else 'does not rise monotonically'}); CKA ordering with CL: {' > '.join(ordering)}")
    plots = []
    for metric in ("cka_z", "rsa"):
        series = []
        for name, hist in runs.items():
            series.append(Series(f"CL-NSCL {name}", [h["epoch"] for h in hist], [h[metric]["cl-nscl"] for h in hist]))
        plots.append(PlotSpec(f"digits: CL-NSCL {metric} over epochs", "epoch", metric, series))
    h = runs[f"C=10,tau={params['taus'][-1]}"]
    plots.append(PlotSpec(f"digits C=10 tau={params['taus'][-1]}: CKA of CL with each model", "epoch", "CKA (cosine Gram of z)",
                          [Series(f"CL-{m}", [r["epoch"] for r in h], [r["cka_z"][f"cl-{m}"] for r in h])
                           for m in ("nscl", "supcon", "ce")]))
    out.plots = plots
    out.details = {"final": final, "trend_rises_with_C": rises_c, "trend_rises_with_tau": rises_t,
                   "ordering": ordering}
    return out
