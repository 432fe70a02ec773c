"""Checks of Paper B's deterministic bounds (docs/theorems.md B2, B4, B5, B7): searched inequalities and values.

Inequalities that hold for any input are searched with hypothesis (``hypothesis.target`` drives the
search toward the largest empirical/bound ratio; the largest found is reported). "Measured <= bound"
alone cannot see a bound that became weaker, so every check also compares the bound it used with a
second implementation and with reference values (:mod:`._independent_alignment`, folded in by
:func:`~._agreement.apply_agreements`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target

from contrastive_bounds import theory as A
import contrastive_bounds.properties.strategies as cbst
from contrastive_bounds.properties.checks._agreement import apply_agreements
from contrastive_bounds.properties.checks._claims import claims_outcome
from contrastive_bounds.properties._statements import compare_text
from contrastive_bounds.properties.checks._outcome import Outcome
from contrastive_bounds.properties.checks._framework import check
from contrastive_bounds.properties.checks._verdicts import compare_upper
import contrastive_bounds.properties.checks._independent_alignment as ind
from contrastive_bounds.properties._stats import binomial_upper_p
from contrastive_bounds.numerics._stats import clopper_pearson

__all__ = ["PAPER_B", "hypothesis_search", "loss_gap", "corollaries_any_pair", "reference_values", "batch_event",
           "b7_claims"]

PAPER_B = "B"


def hypothesis_search(n_examples: int, seed: int, strategy: Any, body: Any) -> None:
    """Run ``body`` on ``n_examples`` hypothesis examples (seeded, no database; generate, target, shrink)."""
    runner = settings(max_examples=n_examples, deadline=None, database=None, derandomize=False,
                      suppress_health_check=list(HealthCheck),
                      phases=(Phase.generate, Phase.target, Phase.shrink))(given(strategy)(body))
    import hypothesis

    hypothesis.seed(seed)(runner)()


@check("B2.loss_gap", theorem="alignment.loss_gap (Luthra et al. 2025, Thm 1)", paper=PAPER_B,
       statement="L_NSCL <= L_DCL <= L_NSCL + log(1 + e^{2/tau} n_max/(N - n_max)) for any unit embeddings; the bound "
                 "equals its mpmath closed form and docs/reference-values.md C03",
       quick={"examples": 60, "tau": 0.5}, thorough={"examples": 600, "tau": 0.5})
def loss_gap(params: Mapping[str, Any], seed: int) -> Outcome:
    from hypothesis import strategies as st

    from contrastive_bounds.numerics.alignment._training import population_loss_gap

    tau = float(params["tau"])
    worst: dict[str, Any] = {"ratio": -math.inf}
    lower_violation: list[Any] = []
    priors: set[float] = set()

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
        priors.add(n_max / len(y))
        bound = A.loss_gap_value(tau, n_max / len(y))
        gap = l_dcl - l_nscl
        if gap < -1e-12 * max(1.0, abs(l_dcl)):
            lower_violation.append({"gap": gap, "n": len(y)})
        ratio = gap / bound
        target(ratio, label="gap/bound")
        if ratio > worst["ratio"]:
            worst.update(ratio=ratio, gap=gap, bound=bound, n=len(y), n_max=n_max, pi_max=n_max / len(y))
        assert gap <= bound * (1 + 1e-9), compare_text("gap", gap, "bound", bound, ".17g")

    points = lambda: [(tau, p) for p in sorted(priors)[:6]] + ([(tau, worst["pi_max"])] if "pi_max" in worst else [])  # noqa: E731
    try:
        hypothesis_search(int(params["examples"]), seed, case(), body)
    except AssertionError as exc:
        out = Outcome("violated", "searched examples", details={"worst": worst})
        out.require("exact", "L_DCL - L_NSCL <= log(1 + e^{2/tau} n_max/(N - n_max)) on every searched example", False,
                    str(exc))
        return apply_agreements(out, ind.verify_loss_gap(points()))
    out = compare_upper(worst["bound"], worst["gap"], what="largest gap/bound example: gap",
                        samples=int(params["examples"]))
    out.require("exact", "L_NSCL <= L_DCL on every searched example (the lower side of B2)", not lower_violation,
                f"{len(lower_violation)} examples below, e.g. {lower_violation[:2]}" if lower_violation else
                f"{params['examples']} examples")
    out.summary = (f"{params['examples']} hypothesis examples (targeting gap/bound): largest ratio {worst['ratio']:.3g}; "
                   f"L_NSCL <= L_DCL {'everywhere' if not lower_violation else 'NOT everywhere'}. " + out.summary)
    out.details = {"worst": worst, "lower_side_violations": lower_violation[:5]}
    return apply_agreements(out, ind.verify_loss_gap(points()))


@check("B5.corollaries_any_pair", theorem="alignment.cka_lower, alignment.rsa_lower", paper=PAPER_B,
       statement="CKA >= (1-rho)/(1+rho) and RSA >= (1-r)/(1+r) (and the sharp sqrt(1-x^2) forms) for any pair "
                 "of similarity matrices with rho, r < 1; the four bounds equal their closed forms",
       quick={"examples": 60}, thorough={"examples": 600})
def corollaries_any_pair(params: Mapping[str, Any], seed: int) -> Outcome:
    """Equivalent upper-bound form: deficit 1 - CKA <= 2 rho/(1 + rho) (same for RSA with r).

    The ratio deficit/allowed deficit is the bound's tightness; hypothesis targets its maximum.
    """
    from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram_cka
    from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

    worst: dict[str, Any] = {"ratio": -math.inf}
    beyond: list[dict[str, float]] = []  # r >= 1: the formula is not asserted there (vacuous), but recorded
    seen: dict[str, list[float]] = {"rho": [], "r": []}

    def body(pair: Any) -> None:
        a, b = pair
        rho, r = cka_rho(a, b), rsa_r(a, b)
        if len(seen["rho"]) < 8:
            seen["rho"].append(rho)
            seen["r"].append(r)
        cka, rsa_v = cosine_gram_cka(a, b), rsa_from_similarity(a, b)
        for name, measured, lower, x in (("CKA", cka, A.cka_lower(rho), rho), ("RSA", rsa_v, A.rsa_lower(r), r),
                                         ("CKA sharp", cka, A.cka_lower_sharp(rho), rho),
                                         ("RSA sharp", rsa_v, A.rsa_lower_sharp(r), r)):
            if x >= 1:
                if measured < lower:
                    beyond.append({"metric": name, "x": x, "measured": measured, "formula": lower})
                continue
            assert measured >= lower - 1e-9, compare_text(name, measured, "lower bound", lower, ".17g")
            allowed = 1.0 - lower
            if allowed < 1e-8:  # numerically identical pair: the ratio would be rounding noise
                continue
            ratio = (1.0 - measured) / allowed
            target(ratio, label=f"{name} deficit / allowed deficit")
            if ratio > worst["ratio"]:
                worst.update(ratio=ratio, metric=name, measured=measured, lower=lower, rho=rho, r=r)

    try:
        hypothesis_search(int(params["examples"]), seed, cbst.gram_pairs(min_perturbation=0.01, max_perturbation=2.0), body)
    except AssertionError as exc:
        out = Outcome("violated", "searched Gram pairs", details={"worst": worst})
        out.require("exact", "CKA >= (1-rho)/(1+rho) and RSA >= (1-r)/(1+r) (and the sharp forms) on every searched pair",
                    False, str(exc))
        return out
    name = worst["metric"]
    # the deficit 1 - CKA is at most 1 (CKA of PSD Grams >= 0), 1 - RSA at most 2 (a correlation): the trivial bounds
    out = compare_upper(1.0 - worst["lower"], 1.0 - worst["measured"], what=f"tightest example: 1 - {name}",
                        samples=int(params["examples"]), trivial=1.0 if name.startswith("CKA") else 2.0)
    out.summary = (f"{params['examples']} Gram pairs (hypothesis targets deficit/allowed): every pair satisfies both "
                   f"corollaries; " + out.summary + f" ({name} = {worst['measured']:.4g} vs lower bound {worst['lower']:.4g})")
    if beyond:
        ex = min(beyond, key=lambda e: e["measured"] - e["formula"])
        out.summary += (f". Finding: for rho or r >= 1 (where the toolkit reports the bound vacuous) the formula fails "
                        f"on {len(beyond)} examples, e.g. "
                        f"{compare_text(ex['metric'] + ' =', ex['measured'], '', ex['formula'])} at {ex['x']:.3g}: the "
                        f"corollaries hold only for rho, r < 1")
    out.details = {"worst": worst, "beyond_validity": beyond[:10]}
    return apply_agreements(out, ind.verify_corollaries(seen["rho"] + [worst["rho"]], seen["r"] + [worst["r"]]))


@check("B4.reference_values", theorem="alignment.epsilon / delta / frobenius / loss_gap (docs/reference-values.md C02, C03)", paper=PAPER_B,
       statement="the bound objects and the per-step numerics reproduce the reference table to 1e-12 relative",
       quick={"rtol": 1e-12}, thorough={"rtol": 1e-12})
def reference_values(params: Mapping[str, Any], seed: int) -> Outcome:
    import mpmath
    import sympy as sp

    rtol = float(params["rtol"])
    worst, rows = 0.0, []

    def rel(a: float, b: float) -> float:
        return abs(a - b) / max(abs(b), 1e-300)

    for (c, b, t, dl, tau, s), (eps_ref, delta_ref, log_ref) in ind.C02:
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
    for (c, tau), ref in ind.C03:
        errs = [rel(float(A.LOSS_GAP.evaluate(num_classes=c, tau=sp.Rational(tau)).mp_value), float(mpmath.mpf(ref))),
                rel(A.loss_gap_value(float(tau), 1 / c), float(mpmath.mpf(ref)))]
        worst = max(worst, *errs)
        rows.append({"params": [c, tau], "max_rel_error": max(errs)})
    vac = A.FROBENIUS.evaluate(num_classes=2, batch_size=16, steps=100000, delta=sp.Rational("0.05"), tau=sp.Rational("0.5"), eta_sum=10)
    out = Outcome("holds", f"{len(rows)} reference rows, both implementations: max relative error {worst:.2e} "
                           f"(tolerance {rtol:g}); the vacuous row is reported vacuous",
                  bound=rtol, empirical=worst, interval=(worst, worst), ratio=worst / rtol, details={"rows": rows})
    out.require("reference", f"every C02/C03 row equals docs/reference-values.md to {rtol:g} relative (Bound objects and "
                "per-step numerics)", worst <= rtol, f"largest relative error {worst:.2e}")
    out.require("reference", "the vacuous C02 row (C=2, B=16) is reported vacuous", bool(vac.vacuous),
                f"vacuous: {vac.vacuous}")
    return out


def _batch_fractions(key: Any, labels: Any, runs: int, steps: int, batch_size: int, num_classes: int) -> tuple:
    """Per run: the largest same-class fraction over its steps' anchors, and each step's first-anchor count.

    Step ``t`` of run ``r`` draws ``sample_batch(fold_in(fold_in(key, r), t), labels, batch_size, replace=True)``
    (the descent driver's batches). Returns ``((runs,), (runs, steps))`` arrays. Compiled once per shape.
    """
    return _batch_fractions_jit()(key, labels, runs, steps, batch_size, num_classes)


@functools.lru_cache(maxsize=1)
def _batch_fractions_jit() -> Any:
    """The jitted kernel of :func:`_batch_fractions` (built on first use: importing the checks imports no JAX)."""
    import jax

    return jax.jit(_batch_fractions_kernel, static_argnums=(2, 3, 4, 5))


def _batch_fractions_kernel(key: Any, labels: Any, runs: int, steps: int, batch_size: int, num_classes: int) -> tuple:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._descent import sample_batch  # looked up at trace time (the self-test)

    def one_run(k: Any) -> tuple:
        idx = jax.vmap(lambda t: sample_batch(jax.random.fold_in(k, t), labels, batch_size, replace=True))(jnp.arange(steps))
        y = labels[idx]  # (steps, b)
        counts = jax.nn.one_hot(y, num_classes).sum(axis=1)  # (steps, c)
        same = jnp.take_along_axis(counts, y, axis=1) - 1.0  # other positions of the anchor's class
        return jnp.max(same / (batch_size - 1)), same[:, 0]

    # runs one after the other (lax.map): memory O(steps·B·C) whatever the number of runs (thorough: 4000 x 1000)
    return jax.lax.map(lambda r: one_run(jax.random.fold_in(key, r)), jnp.arange(runs))


@check("B4.batch_event", theorem="alignment.epsilon (Hoeffding + union bound of Theorem 1)", paper=PAPER_B,
       statement="with the toolkit's batch sampler (sample_batch, with replacement, keys as the descent driver's): "
                 "P(some anchor's same-class fraction > pi_max + eps over T steps) <= delta; the anchor's same-class "
                 "count follows its exact law Binomial(B - 1, 1/C) (chi-square); eps equals its closed form",
       quick={"runs": 400, "num_samples": 1000, "num_classes": 10, "batch_size": 64, "steps": 100, "delta": 0.05},
       thorough={"runs": 4000, "num_samples": 1000, "num_classes": 10, "batch_size": 64, "steps": 1000, "delta": 0.05})
def batch_event(params: Mapping[str, Any], seed: int) -> Outcome:
    """The batches are drawn by :func:`~contrastive_bounds.numerics.alignment.sample_batch` (with
    replacement: the Hoeffding setting) from the balanced labels of ``make_problem`` (class ``i mod C``), step ``t``
    of run ``r`` with key ``fold_in(fold_in(key(seed), r), t)``. Two stochastic tests, Bonferroni (false alarm
    1e-3 in all): the failure frequency of the theorem's event against delta (Clopper-Pearson), and the law of
    the first anchor's same-class count among the other B - 1 positions against Binomial(B - 1, 1/C), which
    holds exactly when the sampler draws i.i.d. uniform indices (chi-square goodness of fit, cells with
    expected count >= 5). The event's bound is loose (Hoeffding and a union bound over T B anchors), so the
    second test is the one that sees a sampler that is not i.i.d."""
    import jax
    import jax.numpy as jnp
    from scipy import stats as sst

    from contrastive_bounds.numerics.alignment._descent_problem import make_problem

    runs, n, c, b, steps, dl = (int(params["runs"]), int(params["num_samples"]), int(params["num_classes"]),
                                int(params["batch_size"]), int(params["steps"]), float(params["delta"]))
    if n % c:
        raise ValueError(f"num_samples={n} must be a multiple of num_classes={c} (balanced classes: the exact law)")
    eps = A.epsilon_value(b, steps, dl)
    _, labels = make_problem(n, c, dim=2, seed=seed)
    lab = jnp.asarray(labels)
    pi_max = float(np.bincount(labels).max() / n)

    fr, first = _batch_fractions(jax.random.key(seed), lab, runs, steps, b, c)
    fr, first = np.asarray(fr), np.asarray(first).astype(np.int64).ravel()
    failures = int(np.sum(fr > pi_max + eps))
    ci = clopper_pearson(failures, runs, 0.999)
    p_event = binomial_upper_p(failures, runs, dl)
    # the exact law of the first anchor's same-class count, chi-square over cells with expected >= 5
    pmf = sst.binom.pmf(np.arange(b), b - 1, 1.0 / c)
    observed = np.bincount(first, minlength=b)[:b].astype(float)
    expected = pmf * first.size
    cells, obs_c, exp_c, acc_o, acc_e = [], [], [], 0.0, 0.0
    for k in range(b):  # merge from the left until each cell expects >= 5; the tail joins the last cell
        acc_o, acc_e = acc_o + observed[k], acc_e + expected[k]
        if acc_e >= 5.0:
            obs_c.append(acc_o)
            exp_c.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and exp_c:
        obs_c[-1] += acc_o
        exp_c[-1] += acc_e
    chi2 = float(np.sum((np.asarray(obs_c) - np.asarray(exp_c)) ** 2 / np.asarray(exp_c)))
    p_law = float(sst.chi2.sf(chi2, len(obs_c) - 1))
    law_ok = p_law > 1e-3 / 2
    out = compare_upper(dl, failures / runs, (ci.lo, ci.hi), samples=runs, what="failure frequency",
                        false_alarm=1e-3, trivial=1.0)
    if not law_ok:
        out.verdict = "violated"
    out.p_value = min(1.0, 2 * min(p_event, p_law))
    mean_first = float(first.mean())
    out.summary += (f"; eps = {eps:.4g}, largest same-class fraction seen {fr.max():.4g} vs pi_max + eps = "
                    f"{pi_max + eps:.4g} (Clopper-Pearson 99.9%); the first anchor's same-class count: mean {mean_first:.4f} "
                    f"vs (B-1)/C = {(b - 1) / c:.4f}, chi-square {chi2:.1f} on {len(obs_c) - 1} df, p = {p_law:.3g} "
                    f"({'consistent with' if law_ok else 'NOT'} Binomial(B - 1, 1/C): the sampler "
                    f"{'draws i.i.d. indices' if law_ok else 'is not i.i.d. uniform'})")
    out.details = {"epsilon": eps, "pi_max": pi_max, "failures": failures, "runs": runs, "p_event": p_event,
                   "chi_square": chi2, "cells": len(obs_c), "p_law": p_law, "mean_first_anchor_count": mean_first,
                   "sampler": "numerics.alignment.descent.sample_batch(replace=True)"}
    return apply_agreements(out, ind.verify_epsilon(b, steps, dl))


@check("B7.claims", theorem="B7 qualitative claims (alignment.*)", paper=PAPER_B,
       statement="monotonicity of the Theorem-1 bound in C, tau, B, S and the learning-rate scaling table",
       quick={"certify": True}, thorough={"certify": True})
def b7_claims(params: Mapping[str, Any], seed: int) -> Outcome:
    return claims_outcome(("alignment.",), bool(params["certify"]))
