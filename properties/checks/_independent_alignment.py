"""Second implementations of Paper B's bounds, and their reference values, for the checks.

Written from the statements of docs/theorems.md B2, B4, B5, B6 in mpmath (40 digits), without using
:mod:`contrastive_bounds.theory._alignment`: each ``verify_*`` function evaluates the toolkit's
numpy function *and* its sympy :class:`~contrastive_bounds.theory.Bound` at the check's own
points and at tabulated reference points, and returns one :class:`~._agreement.Agreement` per
comparison. Closed forms used (constant step size eta, a = 1/(2 tau^2 B), c = Delta/(tau sqrt B)):

* L2 solved: ``b_T = (c/a)((1 + eta a)^T - 1)``; L3: ``(1 + eta a)^T T eta c``; Theorem 1: ``e^{S a} S c``;
* Theorem 2 form: ``(G/(beta_s tau)) Delta (e^{beta_s S} - 1)``;
* CKA/RSA corollaries: ``(1 - x)/(1 + x)`` and ``sqrt(1 - x^2)``.

Reference values: docs/reference-values.md C02 (Theorem 1; epsilon, Delta, bound) and C03 (loss gap) as published;
the others are exact rationals or 40-digit mpmath values computed once and tabulated here, so an
edit of either implementation shows.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

from contrastive_bounds.properties.checks._agreement import Agreement, agreement

__all__ = ["epsilon_mp", "delta_mp", "frobenius_log10_mp", "loss_gap_mp", "corollary_mp", "sharp_mp",
           "links_log10_mp", "weight_divergence_log10_mp", "verify_loss_gap", "verify_corollaries",
           "verify_theorem1", "verify_links", "verify_weight_divergence", "verify_epsilon", "C02", "C03"]

DPS = 40

#: docs/reference-values.md C02: (C, B, T, delta, tau, S) -> (epsilon, Delta, log10 bound), published.
C02 = [((100, 256, 1000, "0.05", "0.5", 10), ("0.17370427116883531183", "24.574214968310783817", "1.5213189224469810")),
       ((1000, 4096, 1000, "0.05", "1", 1), ("0.047162210885955110246", "0.7477603477291898929", "-1.9323645278801396")),
       ((200, 1024, 100000, "0.05", "0.1", 60000), ("0.10231721875601699997", "1.1665191824590073645e8",
                                                     "1284.6870081078047796"))]
#: docs/reference-values.md C03: (C, tau) -> log(1 + e^{2/tau}/(C - 1)), published.
C03 = [((10, "1"), "0.59938922370200505131"), ((1000, "1"), "0.0073692329329828110838"),
       ((10, "0.2"), "7.8031839385776533298")]
#: exact special values of the corollaries: x -> (1 - x)/(1 + x) and x -> sqrt(1 - x^2)
COROLLARY_REFS = [("0", "1"), ("1/3", "1/2"), ("1/2", "1/3"), ("3/5", "1/4")]
SHARP_REFS = [("0", "1"), ("3/5", "4/5"), ("7/25", "24/25")]
#: Theorem-2 form, 40-digit mpmath: (tau, pi_max, B, T, delta, S, G, beta_s) -> log10 bound
WEIGHT_DIVERGENCE_REFS = [
    (("0.5", "0.1", 64, 300, "0.05", 300, "0.125", "0.03125"), "6.867147005022192650125251322584557064375"),
    (("1", "0.01", 256, 1000, "0.05", 10, "1", "0.5"), "2.991456938234526432276401551253680333153"),
]
#: L2 / L3 / Theorem 1 along a constant-step run, 40-digit mpmath:
#: (eta, T, tau, B, Delta) -> (log10 L2, log10 L3, log10 Theorem 1)
LINK_REFS = [
    (("1", 300, "0.5", 64, "16"), ("6.116355914707291820438972991079181778648", "7.088369713442075420682525955406426482501",
                                   "7.150692013890610711951839307547274009246")),
    (("0.01", 1000, "1", 256, "2"), ("0.1011537902864698561923020828949340589282",
                                     "0.1053922442737092382136669273923704864042",
                                     "0.105392327107729301617594427524110862709")),
]


def _mpf(x: Any) -> mpmath.mpf:
    if isinstance(x, str) and "/" in x:
        num, den = x.split("/")
        return mpmath.mpf(num) / mpmath.mpf(den)
    return mpmath.mpf(x)


def epsilon_mp(batch_size: int, steps: int, delta: Any) -> mpmath.mpf:
    """eps_{B,delta} = sqrt(log(T B/delta)/(2B)) (docs/theorems.md B4), 40 digits."""
    with mpmath.workdps(DPS):
        return mpmath.sqrt(mpmath.log(mpmath.mpf(steps) * batch_size / _mpf(delta)) / (2 * mpmath.mpf(batch_size)))


def delta_mp(tau: Any, pi_max: Any, epsilon: Any) -> mpmath.mpf:
    """Delta = 2 e^{2/tau}(pi_max + eps)/(1 - pi_max - eps); ``inf`` when 1 - pi_max - eps <= 0."""
    with mpmath.workdps(DPS):
        p, e = _mpf(pi_max), _mpf(epsilon)
        if 1 - p - e <= 0:
            return mpmath.inf
        return 2 * mpmath.exp(2 / _mpf(tau)) * (p + e) / (1 - p - e)


def frobenius_log10_mp(tau: Any, pi_max: Any, batch_size: int, steps: int, delta: Any, eta_sum: Any) -> mpmath.mpf:
    """log10 of exp(S/(2 tau^2 B)) (S/(tau sqrt B)) Delta (Theorem 1); ``inf`` when vacuous."""
    with mpmath.workdps(DPS):
        t, s, b = _mpf(tau), _mpf(eta_sum), mpmath.mpf(batch_size)
        dl = delta_mp(tau, pi_max, epsilon_mp(batch_size, steps, delta))
        if dl == mpmath.inf:
            return mpmath.inf
        return (s / (2 * t * t * b) + mpmath.log(s / (t * mpmath.sqrt(b))) + mpmath.log(dl)) / mpmath.log(10)


def loss_gap_mp(tau: Any, pi_max: Any) -> mpmath.mpf:
    """log(1 + e^{2/tau} pi_max/(1 - pi_max)) (docs/theorems.md B2)."""
    with mpmath.workdps(DPS):
        p = _mpf(pi_max)
        return mpmath.log(1 + mpmath.exp(2 / _mpf(tau)) * p / (1 - p))


def corollary_mp(x: Any) -> mpmath.mpf:
    """(1 - x)/(1 + x): the CKA (x = rho) and RSA (x = r) corollaries of docs/theorems.md B5."""
    with mpmath.workdps(DPS):
        v = _mpf(x)
        return (1 - v) / (1 + v)


def sharp_mp(x: Any) -> mpmath.mpf:
    """sqrt(1 - x^2) for 0 <= x < 1 (the law-of-cosines sharpening)."""
    with mpmath.workdps(DPS):
        v = _mpf(x)
        return mpmath.sqrt(1 - v * v)


def links_log10_mp(eta: Any, steps: int, tau: Any, batch_size: int, delta_value: Any) -> tuple[mpmath.mpf, ...]:
    """log10 of L2 (solved recursion), L3 (Groenwall product) and Theorem 1 at T for constant eta."""
    with mpmath.workdps(DPS):
        e, t, b, dv = _mpf(eta), _mpf(tau), mpmath.mpf(batch_size), _mpf(delta_value)
        a = 1 / (2 * t * t * b)
        c = dv / (t * mpmath.sqrt(b))
        growth = (1 + e * a) ** steps
        l2 = (c / a) * (growth - 1)
        l3 = growth * steps * e * c
        thm = mpmath.exp(steps * e * a) * steps * e * c
        return tuple(mpmath.log10(v) for v in (l2, l3, thm))


def weight_divergence_log10_mp(tau: Any, pi_max: Any, batch_size: int, steps: int, delta: Any, eta_sum: Any,
                               grad_norm: Any, smoothness: Any) -> mpmath.mpf:
    """log10 of (G/(beta_s tau)) Delta (e^{beta_s S} - 1) (docs/theorems.md B6, constant 1)."""
    with mpmath.workdps(DPS):
        dl = delta_mp(tau, pi_max, epsilon_mp(batch_size, steps, delta))
        if dl == mpmath.inf:
            return mpmath.inf
        bs = _mpf(smoothness)
        return mpmath.log10(_mpf(grad_norm) / (bs * _mpf(tau)) * dl * mpmath.expm1(bs * _mpf(eta_sum)))


# ----------------------------------------------------------------------------------------- verify
def _fmt(**kw: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in kw.items())


def verify_loss_gap(points: list[tuple[float, float]]) -> list[Agreement]:
    """The loss-gap bound: numpy ``loss_gap_value`` and the ``alignment.loss_gap`` Bound at ``points``
    ``[(tau, pi_max), ...]`` against :func:`loss_gap_mp`, and at the C03 rows against docs/reference-values.md."""
    from contrastive_bounds import theory as A
    rows = []
    for tau, pi in points:
        ref = loss_gap_mp(repr(float(tau)), repr(float(pi)))
        where = _fmt(tau=tau, pi_max=pi)
        rows.append(agreement("alignment.loss_gap_value (numpy)", where, A.loss_gap_value(tau, pi), ref))
        rows.append(agreement("alignment.loss_gap (Bound)", where, A.LOSS_GAP.evaluate(tau=tau, pi_max=pi).mp_value, ref))
    for (c, tau), ref in C03:
        where = _fmt(num_classes=c, tau=tau)
        rows.append(agreement("alignment.loss_gap_value (numpy)", where, A.loss_gap_value(float(tau), 1 / c),
                              mpmath.mpf(ref), source="reference docs/reference-values.md C03", rtol=1e-12))
        import sympy as sp

        rows.append(agreement("alignment.loss_gap (Bound)", where,
                              A.LOSS_GAP.evaluate(num_classes=c, tau=sp.Rational(tau)).mp_value, mpmath.mpf(ref),
                              source="reference docs/reference-values.md C03", rtol=1e-12))
    return rows


def verify_corollaries(rhos: list[float], rs: list[float]) -> list[Agreement]:
    """CKA/RSA corollaries (paper form and sharp form; numpy and Bound) at the check's rho/r values
    (those < 1) and at exact special values."""
    from contrastive_bounds import theory as A
    rows = []
    pairs = [("cka_lower", A.cka_lower, A.CKA_LOWER, "rho", corollary_mp), ("rsa_lower", A.rsa_lower, A.RSA_LOWER, "r", corollary_mp),
             ("cka_lower_sharp", A.cka_lower_sharp, A.CKA_LOWER_SHARP, "rho", sharp_mp),
             ("rsa_lower_sharp", A.rsa_lower_sharp, A.RSA_LOWER_SHARP, "r", sharp_mp)]
    for name, fn, bound, arg, ref_fn in pairs:
        xs = [x for x in (rhos if arg == "rho" else rs) if 0 <= x < 1]
        refs = COROLLARY_REFS if ref_fn is corollary_mp else SHARP_REFS
        for x in xs:
            ref = ref_fn(repr(float(x)))
            rows.append(agreement(f"alignment.{name} (numpy)", f"{arg}={x:.6g}", fn(x), ref, rtol=1e-12))
            rows.append(agreement(f"alignment.{name} (Bound)", f"{arg}={x:.6g}", bound.evaluate(**{arg: x}).mp_value, ref,
                                  rtol=1e-12))
        for x, v in refs:
            rows.append(agreement(f"alignment.{name} (numpy)", f"{arg}={x}", fn(float(_mpf(x))), _mpf(v),
                                  source="reference (exact value)", rtol=1e-14))
    return rows


def verify_epsilon(batch_size: int, steps: int, delta: float) -> list[Agreement]:
    """eps_{B,delta}: numpy ``epsilon_value`` and the Bound at the check's point and the C02 rows."""
    from contrastive_bounds import theory as A
    rows = [agreement("alignment.epsilon_value (numpy)", _fmt(batch_size=batch_size, steps=steps, delta=delta),
                      A.epsilon_value(batch_size, steps, delta), epsilon_mp(batch_size, steps, repr(float(delta))))]
    for (c, b, t, dl, tau, s), (eps_ref, _, _) in C02:
        where = _fmt(batch_size=b, steps=t, delta=dl)
        rows.append(agreement("alignment.epsilon_value (numpy)", where, A.epsilon_value(b, t, float(dl)), mpmath.mpf(eps_ref),
                              source="reference docs/reference-values.md C02", rtol=1e-12))
    return rows


def verify_theorem1(tau: float, pi_max: float, batch_size: int, steps: int, delta: float, eta_sum: float) -> list[Agreement]:
    """Theorem 1 (and its epsilon, Delta): numpy functions and the Bound object at the check's point,
    and at the three finite C02 rows (the vacuous row is checked by ``B4.reference_values``)."""
    import sympy as sp

    from contrastive_bounds import theory as A
    where = _fmt(tau=tau, pi_max=pi_max, batch_size=batch_size, steps=steps, delta=delta, S=eta_sum)
    ref = frobenius_log10_mp(repr(float(tau)), repr(float(pi_max)), batch_size, steps, repr(float(delta)), repr(float(eta_sum)))
    if ref == mpmath.inf:
        return []
    eps = A.epsilon_value(batch_size, steps, delta)
    num = A.frobenius_log10(eta_sum, tau, batch_size, A.delta_value(tau, pi_max, eps))
    sym = A.FROBENIUS.evaluate(digits=25, tau=tau, pi_max=pi_max, batch_size=batch_size, steps=steps, delta=delta,
                               eta_sum=eta_sum)
    rows = [agreement("alignment.frobenius_log10 (numpy)", where, num, ref),
            agreement("alignment.frobenius (Bound, log10)", where, float(sym.log10_exact), ref)]
    for (c, b, t, dl, tau_s, s), (eps_ref, delta_ref, log_ref) in C02:
        w = _fmt(num_classes=c, batch_size=b, steps=t, delta=dl, tau=tau_s, S=s)
        e_num = A.epsilon_value(b, t, float(dl))
        rows.append(agreement("alignment.delta_log10 (numpy)", w, A.delta_log10(float(tau_s), 1 / c, e_num),
                              mpmath.log10(mpmath.mpf(delta_ref)), source="reference docs/reference-values.md C02", rtol=1e-12))
        rows.append(agreement("alignment.frobenius_log10 (numpy)", w,
                              A.frobenius_log10(s, float(tau_s), b, 10.0 ** A.delta_log10(float(tau_s), 1 / c, e_num)),
                              mpmath.mpf(log_ref), source="reference docs/reference-values.md C02", rtol=1e-12))
        val = A.FROBENIUS.evaluate(num_classes=c, batch_size=b, steps=t, delta=sp.Rational(dl), tau=sp.Rational(tau_s), eta_sum=s)
        rows.append(agreement("alignment.frobenius (Bound, log10)", w, float(val.log10_exact), mpmath.mpf(log_ref),
                              source="reference docs/reference-values.md C02", rtol=1e-12))
    return rows


def verify_links(eta: float, steps: int, tau: float, batch_size: int, delta_value: float) -> list[Agreement]:
    """L2, L3 and Theorem 1 along a constant-step run at T: the toolkit's per-step numpy functions
    against the closed forms (:func:`links_log10_mp`), at the check's point and two tabulated points."""
    import numpy as np

    from contrastive_bounds import theory as A
    rows = []
    points = [((eta, steps, tau, batch_size, delta_value), None)] + [
        ((float(_mpf(e)), t, float(_mpf(ta)), b, float(_mpf(dv))), refs) for (e, t, ta, b, dv), refs in LINK_REFS]
    for (e, t, ta, b, dv), refs in points:
        kw = dict(tau=ta, batch_size=b, delta_value=dv)
        etas = np.full(t, e)
        got = (A.link_l2_log10(etas, **kw)[-1], A.link_l3_log10(etas, **kw)[-1], A.theorem1_log10(etas, **kw)[-1])
        want = links_log10_mp(repr(e), t, repr(ta), b, repr(dv)) if refs is None else tuple(mpmath.mpf(v) for v in refs)
        src = "independent" if refs is None else "reference (40-digit mpmath)"
        where = _fmt(eta=e, T=t, tau=ta, B=b, Delta=f"{dv:.6g}")
        for name, g, w in zip(("link_l2_log10", "link_l3_log10", "theorem1_log10"), got, want):
            rows.append(agreement(f"alignment.{name} (numpy)", where, g, w, source=src, rtol=1e-9))
    return rows


def verify_weight_divergence(tau: float, pi_max: float, batch_size: int, steps: int, delta: float, eta_sum: float,
                             grad_norm: float, smoothness: float) -> list[Agreement]:
    """Theorem 2's form: the Bound at the check's point and two tabulated points vs the mpmath closed form."""
    from contrastive_bounds import theory as A
    rows = []
    pts = [((tau, pi_max, batch_size, steps, delta, eta_sum, grad_norm, smoothness), None)] + [
        ((float(_mpf(a)), float(_mpf(p)), b, t, float(_mpf(d)), float(s), float(_mpf(g)), float(_mpf(bs))), ref)
        for (a, p, b, t, d, s, g, bs), ref in WEIGHT_DIVERGENCE_REFS]
    for (ta, p, b, t, d, s, g, bs), ref in pts:
        want = weight_divergence_log10_mp(*(repr(x) if isinstance(x, float) else x for x in (ta, p, b, t, d, s, g, bs))) \
            if ref is None else mpmath.mpf(ref)
        if want == mpmath.inf:
            continue
        val = A.WEIGHT_DIVERGENCE.evaluate(digits=25, tau=ta, pi_max=p, batch_size=b, steps=t, delta=d, eta_sum=s,
                                           grad_norm=g, smoothness=bs)
        rows.append(agreement("alignment.weight_divergence (Bound, log10)",
                              _fmt(tau=ta, pi_max=p, B=b, T=t, delta=d, S=s, G=f"{g:.6g}", beta_s=f"{bs:.6g}"),
                              float(val.log10_exact), want, source="independent" if ref is None else
                              "reference (40-digit mpmath)", rtol=1e-12))
    return rows


def log10_or_inf(x: Any) -> float:
    """float log10 of a positive mpmath/float value (``inf`` for inf)."""
    return math.inf if x == mpmath.inf else float(mpmath.log10(x))
