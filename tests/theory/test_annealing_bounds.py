"""Paper A bounds in the registry (docs/theorems.md A2, A4, A5, A6): each Bound agrees with the toolkit's
plain implementation (theory.kramers, theory.annealing, theory.schedules) and with reference values
at two or more points (closed forms, or mpmath at 40 digits written out here independently)."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

import contrastive_bounds.theory._annealing as A
import contrastive_bounds.theory._annealing_bounds as AB
import contrastive_bounds.theory._kramers as K
import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._schedules import hks_constant_to_form, make_schedule

LN10 = math.log(10.0)
# double well V = -cos(x)/2 - cos(2x): minimum at pi (V = -1/2, V'' = 7/2), saddles at cos x = -1/8
# (V = 33/32, V'' = -63/16), barrier 49/32 = 1.53125 (docs/theorems.md A3)
DW = dict(barrier=sp.Rational(49, 32), barrier_2=sp.Rational(49, 32), minimum_curvature=sp.Rational(7, 2),
          saddle_curvature=sp.Rational(-63, 16), saddle_curvature_2=sp.Rational(-63, 16))


def ln(res) -> mpmath.mpf:
    """Natural log of a BoundValue, at its own precision."""
    return mpmath.log(res.mp_value)


def test_every_paper_a_bound_is_registered_with_its_sources():
    """`list`/`bound` see Paper A: every statement of the issue is a registered, cited Bound."""
    names = {b.name for b in registry.bounds()}
    expected = {f"annealing.schedule_condition.{c}" for c in ("temperature", "inverse_temperature", "author", "noise",
                                                              "generator")}
    expected |= {"annealing.finite_time_tail", "annealing.catoni_exponent", "annealing.kramers_time",
                 "annealing.kramers_time_circle", "annealing.expected_escapes", "annealing.trap_probability"}
    assert expected <= names
    cites = {n: registry.get_bound(n).source.cite() for n in expected}
    assert all("2603.12552" in c for c in cites.values())
    assert "Holley" in cites["annealing.schedule_condition.author"] and "Hajek" in cites["annealing.schedule_condition.noise"]
    assert "Catoni" in cites["annealing.catoni_exponent"]
    assert "Bovier" in cites["annealing.kramers_time"] and "Bovier" in cites["annealing.trap_probability"]
    assert "Miclo" in cites["annealing.finite_time_tail"]


@pytest.mark.parametrize("temperature", [sp.Rational(1, 10), sp.Rational(1, 20), sp.Rational(3, 4)])
def test_circle_kramers_time_matches_the_closed_form_and_kramers_module(temperature):
    """Two equal saddles: tau = 2 pi/(2 sqrt(63/16 * 7/2)) e^(49/(32 T)) = pi sqrt(32)/21 e^(49/(32 T))."""
    res = AB.KRAMERS_TIME_CIRCLE.evaluate(digits=30, temperature=temperature, **DW)
    with mpmath.workdps(40):
        ref = mpmath.log(mpmath.pi * mpmath.sqrt(32) / 21) + mpmath.mpf(49) / 32 / mpmath.mpf(sp.Rational(temperature).p) * sp.Rational(temperature).q
        assert abs(ln(res) - ref) < mpmath.mpf(10) ** -25 * abs(ref)
    plain = K.kramers_circle_log_time([1.53125, 1.53125], 3.5, [-63 / 16, -63 / 16], float(temperature))
    assert plain == pytest.approx(float(ref), rel=1e-14)
    assert res.informativeness == "not applicable" and res.kind == "estimate"


def test_circle_kramers_time_with_unequal_saddles_adds_rates():
    """Different saddles: rates add; agrees with kramers_circle_log_time and a 40-digit sum of rates."""
    kw = dict(barrier=1.2, barrier_2=1.9, minimum_curvature=2.5, saddle_curvature=-1.5, saddle_curvature_2=-4.0)
    for temp in (0.05, 0.3):
        res = AB.KRAMERS_TIME_CIRCLE.evaluate(temperature=temp, **kw)
        with mpmath.workdps(40):
            rate = sum(mpmath.sqrt(-mpmath.mpf(k) * mpmath.mpf(2.5)) / (2 * mpmath.pi) * mpmath.exp(-mpmath.mpf(dv) / mpmath.mpf(temp))
                       for dv, k in ((1.2, -1.5), (1.9, -4.0)))
            assert abs(ln(res) + mpmath.log(rate)) < 1e-25
        assert float(ln(res)) == pytest.approx(K.kramers_circle_log_time([1.2, 1.9], 2.5, [-1.5, -4.0], temp), rel=1e-13)
        la = AB.KRAMERS_TIME_CIRCLE.evaluate_log10(temperature=temp, **kw)
        assert float(la.log10) * LN10 == pytest.approx(float(ln(res)), rel=1e-12)


def test_general_kramers_time_matches_eyring_kramers_log_time():
    """2-D minimum eigenvalues (1, 3), saddle (-2, 2): 2 pi/2 sqrt(4/3) e^(dV/T), two temperatures."""
    for temp in (0.05, 0.5):
        res = AB.KRAMERS_TIME.evaluate(barrier=1.5, temperature=temp, unstable_eigenvalue=2, det_hessian_minimum=3,
                                       det_hessian_saddle=4)
        ref = math.log(math.pi * math.sqrt(4 / 3)) + 1.5 / temp
        assert float(ln(res)) == pytest.approx(ref, rel=1e-14)
        assert float(ln(res)) == pytest.approx(K.eyring_kramers_log_time([1.5], [1.0, 3.0], [[-2.0, 2.0]], temp), rel=1e-14)


def test_kramers_time_never_overflows_and_flags_its_regime():
    """T = 1e-400 (exact): log10 ~ 6.5e399 kept as a decimal string, value None, no inf/NaN; ΔV/T < 10 noted."""
    res = AB.KRAMERS_TIME.evaluate(barrier=1.5, temperature=sp.Rational(1, 10**400), unstable_eigenvalue=2,
                                   det_hessian_minimum=3, det_hessian_saddle=4)
    assert res.value is None and res.log10 is None and not res.vacuous
    with mpmath.workdps(30):
        ratio = mpmath.mpf(res.log10_exact) / (mpmath.mpf("1.5e400") / mpmath.log(10))
    assert abs(ratio - 1) < 1e-12
    assert res.notes == ()
    warm = AB.KRAMERS_TIME.evaluate(barrier=1.0, temperature=0.5, unstable_eigenvalue=1, det_hessian_minimum=1,
                                    det_hessian_saddle=1)
    assert len(warm.notes) == 1 and "asymptotic regime" in warm.notes[0]
    hot = AB.KRAMERS_TIME.evaluate(barrier=1.0, temperature=2, unstable_eigenvalue=1, det_hessian_minimum=1,
                                   det_hessian_saddle=1)
    assert len(hot.notes) == 2 and any("outside the Kramers regime" in n for n in hot.notes)


@pytest.mark.parametrize("t, codim, log_c", [(1000.0, 1, 0.3), (1e8, 6, -2.0)])
def test_finite_time_tail_matches_plain_function_and_mpmath(t, codim, log_c):
    """A6 tail C (log t)^{(n-k)/2} (1+t)^{-δ/Γ}: Bound = finite_time_tail_log = 40-digit mpmath."""
    kw = dict(delta=0.5, gamma=2.0, critical_height=1.53125)
    res = AB.FINITE_TIME_TAIL.evaluate(t=t, codimension=codim, log_constant=log_c, **kw)
    with mpmath.workdps(40):
        ref = mpmath.mpf(log_c) + mpmath.mpf(codim) / 2 * mpmath.log(mpmath.log(t)) - mpmath.mpf(0.25) * mpmath.log1p(t)
        assert abs(ln(res) - ref) < mpmath.mpf(10) ** -25
    plain = A.finite_time_tail_log(t, dim_manifold=codim + 2, dim_minimisers=2, log_constant=log_c, **kw)
    assert plain == pytest.approx(float(ref), rel=1e-13, abs=1e-13)
    assert res.informativeness == ("informative" if ref < 0 else "uninformative")


def test_finite_time_tail_vacuous_below_the_critical_height_and_uninformative_above_one():
    """Γ <= H*: vacuous (the plain function refuses); a value >= 1 is judged against the trivial bound 1."""
    res = AB.FINITE_TIME_TAIL.evaluate(t=100, delta=0.5, gamma=1.5, critical_height=1.53125, codimension=1, log_constant=0)
    assert res.vacuous and "critical_height" in res.reason and res.value is None
    with pytest.raises(ValueError, match="gamma"):
        A.finite_time_tail_log(100, delta=0.5, gamma=1.5, critical_height=1.53125, dim_manifold=1, dim_minimisers=0,
                               log_constant=0)
    big = AB.FINITE_TIME_TAIL.evaluate(t=100, delta=0.5, gamma=2, critical_height=1.53125, codimension=2, log_constant=3)
    assert big.uninformative is True and "trivial bound 1" in big.reason


def test_catoni_exponent_matches_catoni_difficulty():
    """Double well: depth 49/32, gap 1 -> 1/D = 32/49 (closed form); a two-minimum landscape takes the smaller."""
    res = AB.CATONI_EXPONENT.evaluate(depth=sp.Rational(49, 32), energy_gap=1)
    assert res.mp_value == pytest.approx(mpmath.mpf(32) / 49, rel=1e-28)
    assert float(res.mp_value) == pytest.approx(1 / A.catoni_difficulty([-0.5], [1.53125], -1.5), rel=1e-15)
    d = A.catoni_difficulty([0.0, 1.0], [2.0, 0.5], -1.0)  # ratios 2/1 and 0.5/2: D = 2
    values = [float(AB.CATONI_EXPONENT.evaluate(depth=dep, energy_gap=gap).mp_value) for dep, gap in ((2.0, 1.0), (0.5, 2.0))]
    assert min(values) == pytest.approx(1 / d, rel=1e-15)


@pytest.mark.parametrize("hks", [0.5, 1.53125, 7.25])
def test_schedule_conditions_match_the_schedule_conventions(hks):
    """The threshold of each convention is the constant of the schedule whose c_T equals H*; just on the
    right side the schedule converges, just on the wrong side it does not (Schedule.converges)."""
    for conv, bound in AB.SCHEDULE_CONDITIONS.items():
        form = conv.replace("_", "-")
        threshold = float(bound.evaluate(critical_height=hks).mp_value)
        sched = make_schedule("generator", c=hks) if form == "generator" else hks_constant_to_form(form, hks)
        assert threshold == pytest.approx(sched.params["c"], rel=1e-15)
        safe = threshold * (1.01 if bound.kind == "lower" else 0.99)
        fast = threshold * (0.99 if bound.kind == "lower" else 1.01)
        params = {} if form == "generator" else {"t0": 2.0}
        assert make_schedule(form, c=safe, **params).converges(hks).converges is True
        assert make_schedule(form, c=fast, **params).converges(hks).converges is False


ESC = dict(t0=2.0, t_start=0.0, duration=1000.0)


@pytest.mark.parametrize("c", [0.8, 1.53125, 3.0])
def test_expected_escapes_matches_quadrature_and_closed_forms(c):
    """N = k0 ∫ (t + t0)^(-ΔV/c) dt: Bound = kramers.expected_escapes (mpmath quadrature over the
    schedule) for c below, at and above the barrier (p = 1 is the exprel 0/0 point)."""
    k0 = 2 * math.sqrt(63 / 16 * 3.5) / (2 * math.pi)
    res = AB.EXPECTED_ESCAPES.evaluate(barrier=1.53125, c=c, rate_prefactor=k0, **ESC)
    quad = K.expected_escapes(make_schedule("temperature", c=c, t0=2.0), [1.53125] * 2,
                              [math.log(k0 / 2)] * 2, 0.0, 1000.0)
    assert float(ln(res)) == pytest.approx(quad, rel=1e-9)
    trap = AB.TRAP_PROBABILITY.evaluate(barrier=1.53125, c=c, rate_prefactor=k0, **ESC)
    never = K.log_probability_never_escape(make_schedule("temperature", c=c, t0=2.0), [1.53125] * 2,
                                           [math.log(k0 / 2)] * 2, 0.0, 1000.0)
    assert float(ln(trap)) == pytest.approx(never, rel=1e-9)


def test_expected_escapes_closed_forms_at_p_equal_one_and_two():
    """p = ΔV/c = 1: N = k0 log((t_end + t0)/(t_start + t0)); p = 2: N = k0 (1/(t_start + t0) - 1/(t_end + t0))."""
    one = AB.EXPECTED_ESCAPES.evaluate(barrier=sp.Rational(3, 2), c=sp.Rational(3, 2), t0=3, t_start=5, duration=100,
                                       rate_prefactor=sp.Rational(1, 3))
    two = AB.EXPECTED_ESCAPES.evaluate(barrier=3, c=sp.Rational(3, 2), t0=3, t_start=5, duration=100, rate_prefactor=sp.Rational(1, 3))
    with mpmath.workdps(40):
        assert abs(one.mp_value - mpmath.log(mpmath.mpf(108) / 8) / 3) < mpmath.mpf(10) ** -28
        assert abs(two.mp_value - (mpmath.mpf(1) / 8 - mpmath.mpf(1) / 108) / 3) < mpmath.mpf(10) ** -28


def test_trap_probability_tends_to_a_positive_limit_only_when_too_fast():
    """c < ΔV: P(trapped) -> exp(-k0 (t_s + t0)^(1-p)/(p - 1)) > 0 as the window grows; c > ΔV: -> 0."""
    k0, t0 = 0.5, 2.0
    fast = AB.TRAP_PROBABILITY.evaluate(barrier=2, c=1, t0=t0, t_start=0, duration=10**300, rate_prefactor=k0)
    assert float(fast.mp_value) == pytest.approx(math.exp(-k0 * t0 ** (1 - 2.0) / (2.0 - 1)), rel=1e-12)
    slow = AB.TRAP_PROBABILITY.evaluate(barrier=1, c=2, t0=t0, t_start=0, duration=10**300, rate_prefactor=k0)
    assert slow.value is None and slow.log10 < -1e140  # exp(-N) with N ~ 1e150: 0 in float64, kept in log10


def test_paper_a_claims_are_certified_or_proved():
    """claims --certify treats Paper A like Paper B: the A5/A6 sign claims come out proved or certified."""
    seen = 0
    for claim in registry.claims():
        if not set(claim.tags) & {"A5", "A6"}:
            continue
        seen += 1
        verdict = claim.run(True)
        assert claim.agrees(verdict) and verdict.status in ("proved", "certified"), (claim.name, verdict.evidence)
    assert seen >= 3


def test_every_statement_that_uses_catonis_d_says_what_d_is():
    """A bound's title or a claim's statement that uses Catoni's D (``1/D``, ``t^{-1/D}``) defines it where a reader
    of ``list`` sees it: D = max over non-global minima of depth/(V - V_min), Catoni's difficulty (docs/theorems.md
    A6). The title of annealing.catoni_exponent had used D with no word of what it is (only its source's reading
    said it). The definition is the one catoni_difficulty computes: D = 2 for depth 1 at V(x) - V_min = 1/2."""
    import re

    texts = {b.name: b.title for b in registry.bounds()} | {c.name: c.statement for c in registry.claims()}
    using = {name: text for name, text in texts.items() if re.search(r"1/D\b", text)}
    assert {"annealing.catoni_exponent", "annealing.a6_exponent_within_catoni"} <= set(using)
    for name, text in using.items():
        assert re.search(r"D = max over non-global minima (x )?of depth(\(x\))?/\(V(\(x\))? - V_min\)", text), name
        assert "Catoni's difficulty" in text and "docs/theorems.md A6" in text, name
    assert A.catoni_difficulty([0.5], [1.0], 0.0) == 2.0
    assert registry.get_bound("annealing.catoni_exponent").evaluate(depth=1, energy_gap=0.5).value == 0.5  # 1/D
