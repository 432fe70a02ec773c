"""Paper A in the registry: the annealing statements as cited :class:`~._bound.Bound` and
:class:`~._claim.Claim` objects (docs/theorems.md A2, A4, A5, A6).

Source: Chaudhry, "Asymptotic and Finite-Time Guarantees for Langevin-Based Temperature Annealing in
InfoNCE", arXiv:2603.12552, and the classical results it transfers: Hajek (1988), Holley–Kusuoka–
Stroock (1989), Catoni (1992), Miclo (1992), Bovier–Gayrard–Klein (2004).

- ``annealing.schedule_condition.<convention>``: the schedule constant a logarithmic schedule needs
  to converge, in each convention of A2 (``temperature``, ``inverse_temperature``, ``author``,
  ``noise``, ``generator``): ``c > H*``, ``ĉ < 1/H*``, ``c > 2H*``.
- ``annealing.finite_time_tail`` (A6): ``P(V(Z_t) >= V_min + δ) <= C_δ (log t)^{(n-k)/2} (1+t)^{-δ/Γ}``
  for ``T = Γ/log(1 + t)``, ``Γ > H*``; ``log C_δ`` user supplied or fitted.
- ``annealing.catoni_exponent`` (A6): no schedule's decay exponent beats ``1/D <= (V(x) - V_min)/depth(x)``.
- ``annealing.kramers_time`` (A5, general Eyring–Kramers, one saddle) and
  ``annealing.kramers_time_circle`` (S¹, two saddles: rates add): estimates, not bounds.
- ``annealing.expected_escapes`` and ``annealing.trap_probability`` (A5) under
  ``T(t) = c/log(t + t0)``: ``N = ∫ dt/τ(T(t))`` in closed form and ``P(trapped) ≈ exp(-N)``.

Each is the symbolic twin of a plain function (:func:`._annealing.finite_time_tail_log`,
:func:`._annealing.catoni_difficulty`, :func:`._kramers.eyring_kramers_log_time`,
:func:`._kramers.kramers_circle_log_time`, :func:`._kramers.expected_escapes`,
:meth:`._schedules.Schedule.converges`); the tests check that they agree.
"""

from __future__ import annotations

import math

import sympy as sp
from sympy.codegen.cfunctions import log1p

from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._bound_spec import Caveat, Vacuity
from ._claim import Claim, SignCheckSpec, sign_claim_check
from ._domains import Interval, Param
from ._registry import register
from ._source import PAPER_A, Source
from ._special import Exprel, LogExprel, Softplus

__all__ = ["SCHEDULE_CONDITIONS", "FINITE_TIME_TAIL", "CATONI_EXPONENT", "KRAMERS_TIME", "KRAMERS_TIME_CIRCLE",
           "EXPECTED_ESCAPES", "TRAP_PROBABILITY"]

INF = math.inf
ARXIV_A = "2603.12552"
HAJEK = "Hajek (1988), Cooling schedules for optimal annealing, Math. Oper. Res. 13"
HKS = "Holley, Kusuoka, Stroock (1989), Asymptotics of the spectral gap with applications to simulated annealing, J. Funct. Anal. 83"
CATONI = "Catoni (1992), Rough large deviation estimates for simulated annealing, Ann. Probab. 20"
MICLO = "Miclo (1992), Recuit simulé sur R^n: étude de l'évolution de l'énergie libre, Ann. IHP Probab. Stat. 28"
BGK = ("Bovier, Gayrard, Klein (2004), Metastability in reversible diffusion processes II: precise asymptotics "
       "for small eigenvalues, J. Eur. Math. Soc. 7; Bovier, Eckhoff, Gayrard, Klein (2004), ... I, J. Eur. Math. Soc. 6")


def _src(where: str, classical: str, reading: str) -> Source:
    return Source(f"{PAPER_A}; {classical}", ARXIV_A, where, reading)


# ---------------------------------------------------------------------------------- parameters
POS = Interval(0, INF)
CRITICAL_HEIGHT = Param("critical_height", POS, description="H*: the largest barrier a non-global minimum must climb "
                        "to reach a strictly lower one", units="units of V")
H = CRITICAL_HEIGHT.symbol

# ---------------------------------------------------------------------------------- A2/A4: schedule condition
_COND_READING = ("HKS constant c_T = lim T(t)·log t compared with H*: converges in probability iff c_T > H* "
                 "(diffusions on compact manifolds); the boundary c_T = H* is not decided; every convention "
                 "reduced to c_T as in docs/theorems.md A2")
_CONVENTIONS = {
    # name: (threshold expr in H, kind, schedule text, c_T in terms of c)
    "temperature": (H, "lower", "T(t) = c/log(t + t0)", "c"),
    "inverse_temperature": (H, "lower", "beta(t) = log(t + t0)/c", "c"),
    "author": (1 / H, "upper", "beta(t) = c·log(t + t0) (the author's ĉ)", "1/c"),
    "noise": (2 * H, "lower", "sigma(t)^2 = c/log(t + t0), T = sigma^2/2", "c/2"),
    "generator": (H, "lower", "generator Δ - beta(t)∇V·∇, beta(t) = log(1 + t)/c", "c"),
}
SCHEDULE_CONDITIONS: dict[str, Bound] = {}
for _conv, (_expr, _kind, _text, _ct) in _CONVENTIONS.items():
    _rel = ">" if _kind == "lower" else "<"
    SCHEDULE_CONDITIONS[_conv] = register(Bound(
        f"annealing.schedule_condition.{_conv}",
        f"Schedule condition, {_conv.replace('_', '-')} convention {_text}: converges iff c {_rel} {sp.sstr(_expr)}",
        (CRITICAL_HEIGHT,), {"threshold": _expr},
        _src("Theorem 1 (asymptotic convergence; docs/theorems.md A2, A4)", f"{HKS}, Thm 1.1; {HAJEK}, Thm 1",
             f"{_COND_READING}; here c_T = {_ct}"),
        kind=_kind, quantity=rf"c\ \text{{({_conv.replace('_', '-')}: {_text})}}",
    ))

# ---------------------------------------------------------------------------------- A6: finite-time tail
TIME = Param("t", Interval(1, INF), description="continuous time t = k·h (never the step index); t > 1 so log t > 0",
             units="time units of the SDE")
MARGIN = Param("delta", POS, description="energy margin δ of the event V(Z_t) >= V_min + δ", units="units of V")
GAMMA = Param("gamma", POS, description="Γ of the schedule T(t) = Γ/log(1 + t) (the generator convention's c)",
              units="units of V")
CRITICAL_HEIGHT_0 = Param("critical_height", Interval(0, INF, lo_closed=True), description=CRITICAL_HEIGHT.description,
                          units="units of V")
CODIM = Param("codimension", Interval(0, INF, lo_closed=True), integer=True,
              description="n - k: dim M minus the dimension of the global-minimiser set")
LOG_CONSTANT = Param("log_constant", Interval(-INF, INF), description="log C_δ, not explicit in the theory: user "
                     "supplied or fitted to measured miss probabilities")
t, dl, G, H0, nk, lc = (p.symbol for p in (TIME, MARGIN, GAMMA, CRITICAL_HEIGHT_0, CODIM, LOG_CONSTANT))

FINITE_TIME_TAIL = register(Bound(
    "annealing.finite_time_tail",
    "A6: P(V(Z_t) >= V_min + δ) <= C_δ (log t)^{(n-k)/2} (1+t)^{-δ/Γ} for T = Γ/log(1+t), Γ > H*",
    (TIME, MARGIN, GAMMA, CRITICAL_HEIGHT_0, CODIM, LOG_CONSTANT),
    {"constant": sp.exp(lc), "log_power": sp.log(t) ** (nk / 2), "decay": (1 + t) ** (-dl / G)},
    _src("finite-time statement (docs/theorems.md A6)", f"{MICLO}; {HKS}",
         "Miclo-type density bound; exponent δ/Γ sharp up to log factors; C_δ not explicit (user supplied or "
         "fitted); the seed note's exponent H*/ε - 1 is refuted (annealing.seed_finite_time_exponent)"),
    quantity=r"P(V(Z_t) \ge V_{\min} + \delta)",
    vacuity=(Vacuity(G - H0, "gamma <= critical_height: T = Γ/log(1+t) is too fast (Γ <= H*); the A6 bound needs Γ > H*"),),
    trivial=(sp.Integer(1), (), "1 (a probability)"),
))

DEPTH = Param("depth", POS, description="depth(x) of a non-global minimum x: the barrier to a strictly lower minimum",
              units="units of V")
ENERGY_GAP = Param("energy_gap", POS, description="V(x) - V_min of the same minimum x", units="units of V")
CATONI_EXPONENT = register(Bound(
    "annealing.catoni_exponent",
    "Catoni: no schedule makes P(V(Z_t) >= V_min + δ) decay faster than t^{-1/D}, D = max over non-global minima x "
    "of depth(x)/(V(x) - V_min) (Catoni's difficulty, docs/theorems.md A6); so 1/D <= (V(x) - V_min)/depth(x) at any x",
    (DEPTH, ENERGY_GAP), {"exponent": ENERGY_GAP.symbol / DEPTH.symbol},
    _src("finite-time statement (docs/theorems.md A6)", f"{CATONI}",
         "D = max over non-global x of depth(x)/(V(x) - V_min); any one minimum gives an upper bound on 1/D, "
         "the maximiser of depth/gap the sharp one"),
    quantity=r"\alpha\ \text{(decay exponent of the miss probability, any schedule)}",
))

# ---------------------------------------------------------------------------------- A5: Eyring–Kramers
BARRIER = Param("barrier", POS, description="ΔV = V(z) - V(x): barrier from the minimum x to the saddle z",
                units="units of V")
TEMPERATURE = Param("temperature", POS, description="T of dZ = -grad V dt + sqrt(2T) dW", units="units of V")
UNSTABLE = Param("unstable_eigenvalue", POS, description="|λ1(z)|: modulus of the saddle's negative Hessian eigenvalue")
DET_MIN = Param("det_hessian_minimum", POS, description="det ∇²V(x) at the minimum (tangent space; > 0)")
DET_SADDLE = Param("det_hessian_saddle", POS, description="|det ∇²V(z)| at the saddle (tangent space)")
dv, T = BARRIER.symbol, TEMPERATURE.symbol
_REGIME = (Caveat(dv / T - 10, "barrier/temperature < 10: below the asymptotic regime of the Eyring-Kramers law "
                  "(order-one corrections; compare the exact mean first-passage time)"),
           Caveat(dv / T - 1, "barrier/temperature < 1: outside the Kramers regime (T comparable to the barrier); "
                  "the law does not apply"))
_BGK_READING = ("asymptotic as T/ΔV -> 0 with relative error O(T/ΔV) for non-degenerate critical points; undefined "
                "for degenerate minima (InfoNCE's O(d) orbits: use the Arrhenius exponent ΔV/T only)")

KRAMERS_TIME = register(Bound(
    "annealing.kramers_time",
    "Eyring-Kramers mean exit time (2π/|λ1(z)|) sqrt(|det ∇²V(z)|/det ∇²V(x)) exp(ΔV/T), one saddle",
    (BARRIER, TEMPERATURE, UNSTABLE, DET_MIN, DET_SADDLE),
    {"prefactor": 2 * sp.pi / UNSTABLE.symbol * sp.sqrt(DET_SADDLE.symbol / DET_MIN.symbol), "arrhenius": sp.exp(dv / T)},
    _src("Eyring-Kramers time (docs/theorems.md A5)", f"{BGK}, Thm 3.2 (general form)", _BGK_READING),
    kind="estimate", quantity=r"\mathbb{E}[\tau_{\mathrm{exit}}]", caveats=_REGIME,
))

BARRIER_2 = Param("barrier_2", POS, description="ΔV_2 = V(z_2) - V(x): barrier to the other saddle of the circle",
                  units="units of V")
CURV_MIN = Param("minimum_curvature", POS, description="V''(x) at the minimum")
CURV_S1 = Param("saddle_curvature", Interval(-INF, 0), description="V''(z_1) < 0 at the first saddle")
CURV_S2 = Param("saddle_curvature_2", Interval(-INF, 0), description="V''(z_2) < 0 at the second saddle")
dv2, kx, k1, k2 = BARRIER_2.symbol, CURV_MIN.symbol, CURV_S1.symbol, CURV_S2.symbol
_X2 = (dv - dv2) / T + sp.log(-k2) / 2 - sp.log(-k1) / 2  # log(rate_2/rate_1)
_MIN_BARRIER = sp.Min(dv, dv2)
KRAMERS_TIME_CIRCLE = register(Bound(
    "annealing.kramers_time_circle",
    "Kramers time on S^1 with two saddles (rates add): 2π/(sqrt(V''(x)) Σ_i sqrt(|V''(z_i)|) exp(-ΔV_i/T))",
    (BARRIER, BARRIER_2, TEMPERATURE, CURV_MIN, CURV_S1, CURV_S2),
    {"prefactor": 2 * sp.pi / sp.sqrt(kx * -k1), "arrhenius": sp.exp(dv / T),
     "second_saddle": 1 / (1 + sp.sqrt(k2 / k1) * sp.exp((dv - dv2) / T))},
    _src("Eyring-Kramers time on S^1 (docs/theorems.md A5)", f"Kramers (1940), Physica 7; {BGK}",
         f"{_BGK_READING}; the circle's two saddles are two exits, so their rates add"),
    kind="estimate", quantity=r"\mathbb{E}[\tau_{\mathrm{exit}}]",
    log_factors={"prefactor": sp.log(2 * sp.pi) - sp.log(kx) / 2 - sp.log(-k1) / 2, "second_saddle": -Softplus(_X2)},
    caveats=tuple(Caveat(c.expr.subs(dv, _MIN_BARRIER), c.note.replace("barrier/", "min(barrier, barrier_2)/"))
                  for c in _REGIME),
))

# ---------------------------------------------------------------------------------- A5: escapes under a schedule
C_SCHED = Param("c", POS, description="c of T(t) = c/log(t + t0) (temperature convention = the HKS constant; "
                "author ĉ: c = 1/ĉ; noise: c = c_σ/2)", units="units of V")
T0 = Param("t0", Interval(1, INF), description="offset t0 > 1 of log(t + t0) (finite temperature from t = 0)",
           units="time units of the SDE")
T_START = Param("t_start", Interval(0, INF, lo_closed=True), description="start of the window (continuous time)",
                units="time units of the SDE")
DURATION = Param("duration", POS, description="length t_end - t_start of the window (continuous time)",
                 units="time units of the SDE")
RATE_PREF = Param("rate_prefactor", POS, description="k0 = Σ over the saddles (all of height barrier) of "
                  "|λ1(z)|/(2π)·sqrt(det ∇²V(x)/|det ∇²V(z)|); on S^1 sqrt(|V''(z)| V''(x))/(2π) per saddle",
                  units="1/time")
c, t0, ts, dur, k0 = (p.symbol for p in (C_SCHED, T0, T_START, DURATION, RATE_PREF))
_P = dv / c
_SPAN = log1p(dur / (ts + t0))
_GROWTH_ARG = (1 - _P) * _SPAN
ESCAPE_FACTORS = {"rate_prefactor": k0, "start": (ts + t0) ** (1 - _P), "span": _SPAN, "growth": Exprel(_GROWTH_ARG)}
LOG_ESCAPES = sp.log(k0) + (1 - _P) * sp.log(ts + t0) + sp.log(_SPAN) + LogExprel(_GROWTH_ARG)
_ESC_PARAMS = (BARRIER, C_SCHED, T0, T_START, DURATION, RATE_PREF)
_ESC_READING = ("Poisson approximation with the instantaneous Kramers rate k0·exp(-ΔV/T(t)) = k0 (t + t0)^(-ΔV/c); "
                "closed form ∫ = (t_s + t0)^(1-p) L exprel((1-p) L), p = ΔV/c, L = log((t_end + t0)/(t_s + t0)); "
                "N stays finite as t_end -> inf iff c < ΔV (too fast: trapping with positive probability); saddles "
                "of one height (use theory.kramers.expected_escapes for several heights)")
_SCHED_REGIME = (Caveat(_P * sp.log(ts + t0) - 1, "barrier/T(t_start) < 1: the schedule starts hotter than the barrier, "
                        "outside the Kramers regime (the escape rate is not k0 exp(-ΔV/T) there)"),)
EXPECTED_ESCAPES = register(Bound(
    "annealing.expected_escapes",
    "A5: expected Kramers escapes N = ∫ dt/τ(T(t)) over [t_start, t_start + duration] under T = c/log(t + t0)",
    _ESC_PARAMS, ESCAPE_FACTORS,
    _src("trap probabilities (docs/theorems.md A5)", f"{BGK}; {HAJEK}", _ESC_READING),
    kind="estimate", quantity=r"\int dt/\tau(T(t))", log_factors={"growth": LogExprel(_GROWTH_ARG)},
    caveats=_SCHED_REGIME,
))
TRAP_PROBABILITY = register(Bound(
    "annealing.trap_probability",
    "A5: probability of never escaping the basin, exp(-∫ dt/τ(T(t))), under T = c/log(t + t0)",
    _ESC_PARAMS, {"trap": sp.exp(-sp.Mul(*ESCAPE_FACTORS.values()))},
    _src("trap probabilities (docs/theorems.md A5)", f"{BGK}; {HAJEK}", _ESC_READING),
    kind="estimate", quantity=r"P(\text{never escape})", log_factors={"trap": -sp.exp(LOG_ESCAPES)},
    caveats=_SCHED_REGIME,
))

# ---------------------------------------------------------------------------------- claims (certified with arb)
_SRC_CLAIMS = _src("docs/theorems.md A5/A6", f"{BGK}; {CATONI}", "sign of a derivative or difference on a stated box")


def _box_text(box: dict) -> str:
    return ", ".join(f"{k} in [{lo:g}, {hi:g}]" for k, (lo, hi) in box.items())


_BOX_K = {"barrier": (0.1, 20.0), "temperature": (0.01, 10.0)}
register(Claim(
    "annealing.kramers_time_decreases_in_temperature",
    f"The Eyring-Kramers time decreases as the temperature rises (d log τ/dT = -ΔV/T² < 0) on {_box_text(_BOX_K)}",
    _SRC_CLAIMS,
    sign_claim_check(SignCheckSpec(expr=sp.diff(sp.log(KRAMERS_TIME.factors["arrhenius"]), T), box=_BOX_K, sign=-1)),
    "holds", ("A5",)))

_p, _a, _L = sp.symbols("p a L", positive=True)
_LOG_N_PAL = (1 - _p) * sp.log(_a) + sp.log(_L) + sp.log(Exprel((1 - _p) * _L))
_BOX_TRAP = {"p": (1.5, 20.0), "a": (1.01, 1000.0), "L": (0.5, 50.0)}
register(Claim(
    "annealing.trap_probability_decreases_in_c",
    "Under T = c/log(t + t0) with p = barrier/c > 1 (too fast), the expected escapes N = k0 a^(1-p) L exprel((1-p) L) "
    "(a = t_start + t0, L = log((t_end + t0)/a)) fall as p rises, so a slower schedule (larger c) escapes more and "
    f"the trap probability exp(-N) falls with c, on {_box_text(_BOX_TRAP)}",
    _SRC_CLAIMS,
    sign_claim_check(SignCheckSpec(expr=sp.diff(_LOG_N_PAL, _p), box=_BOX_TRAP, sign=-1, max_boxes=4000)),
    "holds", ("A5",)))

_u, _w = sp.symbols("u w", positive=True)
_BOX_CAT = {"u": (1e-3, 1.0), "w": (1e-3, 10.0), "energy_gap": (0.01, 10.0), "depth": (0.01, 10.0)}
register(Claim(
    "annealing.a6_exponent_within_catoni",
    "The A6 decay exponent δ/Γ stays below Catoni's 1/D <= (V(x) - V_min)/depth(x) (D = max over non-global minima "
    "of depth/(V - V_min), Catoni's difficulty, docs/theorems.md A6) whenever δ = u (V(x) - V_min) "
    f"with u <= 1 and Γ = depth(x) (1 + w) > depth(x), on {_box_text(_BOX_CAT)}: A6 and Catoni are consistent",
    _SRC_CLAIMS,
    sign_claim_check(SignCheckSpec(
        expr=sp.factor(ENERGY_GAP.symbol / DEPTH.symbol - _u * ENERGY_GAP.symbol / (DEPTH.symbol * (1 + _w))),
        box=_BOX_CAT, sign=1)),
    "holds", ("A6",)))
