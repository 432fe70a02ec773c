"""Bound.solve: the range of one parameter over which a bound is non-vacuous and informative, with
ends certified by arb. Each end is checked against an independent reference: a closed form (Lambert W,
logarithms) or a 40-digit mpmath root, and integer ends by evaluating the bound on both sides."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp

from contrastive_bounds import theory as A
import contrastive_bounds.theory._annealing_bounds as AB
from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._domains import Interval, Param
from contrastive_bounds.theory._source import Source

RUN = dict(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000, eta_sum=10, m=512)


def without(name: str, **over) -> dict:
    return {k: v for k, v in {**RUN, **over}.items() if k != name}


def encloses(end, ref) -> bool:
    return mpmath.mpf(end.lower) <= ref <= mpmath.mpf(end.upper)


def delta_const(tau, pi, b, t, dl) -> mpmath.mpf:
    """Δ = 2 e^{2/τ}(π + ε)/(1 - π - ε), ε = sqrt(log(T B/δ)/(2B)), at the caller's precision."""
    eps = mpmath.sqrt(mpmath.log(mpmath.mpf(t) * b / mpmath.mpf(dl)) / (2 * b))
    return 2 * mpmath.exp(2 / mpmath.mpf(tau)) * (pi + eps) / (1 - pi - eps)


def test_largest_eta_sum_is_the_lambert_w_root():
    """S e^{S/(2τ²B)} Δ/(τ√B) = 2 sqrt(m(m-1)) solves to S* = W(a K/C)/a: the certified end encloses it."""
    sol = A.FROBENIUS.solve("eta_sum", digits=20, **without("eta_sum"))
    assert sol.status == "intervals" and len(sol.intervals) == 1
    end = sol.upper
    assert end.kind == "root" and "informative" in end.condition and not end.closed
    with mpmath.workdps(40):
        a = 1 / (2 * mpmath.mpf(0.5) ** 2 * 256)
        c = delta_const(0.5, mpmath.mpf(1) / 100, 256, 1000, mpmath.mpf(0.05)) / (mpmath.mpf(0.5) * 16)
        k = 2 * mpmath.sqrt(512 * 511)
        ref = mpmath.lambertw(a * k / c).real / a
        assert encloses(end, ref)
        assert mpmath.mpf(end.upper) - mpmath.mpf(end.lower) <= ref * mpmath.mpf(10) ** -19
    cond = {c.label: c.monotone for c in sol.conditions}
    assert cond["informative"] == "decreasing" and cond["non-vacuous"] == "constant"
    assert sol.lower.kind == "window" and sol.informativeness_judged


def test_smallest_tau_matches_a_40_digit_root_and_the_bound_flips_there():
    """The certified lower end of tau encloses mpmath.findroot's root at 40 digits; evaluate() agrees on both sides."""
    sol = A.FROBENIUS.solve("tau", **without("tau"))
    end = sol.lower
    with mpmath.workdps(40):
        def f(tau):
            s, b = mpmath.mpf(10), 256
            bound = mpmath.exp(s / (2 * tau**2 * b)) * s / (tau * 16) * delta_const(tau, mpmath.mpf(1) / 100, b, 1000, mpmath.mpf(0.05))
            return mpmath.log(bound) - mpmath.log(2 * mpmath.sqrt(512 * 511))
        ref = mpmath.findroot(f, (mpmath.mpf("0.2"), mpmath.mpf("0.5")), solver="anderson")
        assert encloses(end, ref)
    assert A.FROBENIUS.evaluate(tau=sp.Rational(end.lower), **without("tau")).uninformative is True
    assert A.FROBENIUS.evaluate(tau=sp.Rational(end.upper), **without("tau")).uninformative is False
    assert sol.upper.kind == "window"


@pytest.mark.parametrize("name", ["batch_size", "num_classes", "m"])
def test_integer_ends_are_exact_and_flip_between_neighbours(name):
    """Integer parameters (a plain one, an alternative, the optional m): the end n is informative, n - 1 is not."""
    fixed = without(name, eta_sum=110) if name == "num_classes" else without(name)
    sol = A.FROBENIUS.solve(name, **fixed)
    assert sol.status == "intervals"
    end = sol.lower
    assert end.kind == "integer" and end.lower == end.upper
    n = int(end.lower)
    assert n > 2
    assert A.FROBENIUS.evaluate(**fixed, **{name: n}).informativeness == "informative"
    before = A.FROBENIUS.evaluate(**fixed, **{name: n - 1})
    assert before.informativeness == "uninformative" and before.uninformative is True and not before.vacuous


def test_vacuity_end_of_delta_is_the_closed_form():
    """Delta is vacuous iff ε >= 1 - π: δ* = T B exp(-2B(1-π)²) exactly; the set is (δ*, 1)."""
    sol = A.DELTA_BOUND.solve("delta", tau=0.5, batch_size=16, num_classes=10, steps=1000)
    assert sol.status == "intervals" and sol.lower.kind == "root" and "vacuous" in sol.lower.condition
    with mpmath.workdps(40):
        ref = 1000 * 16 * mpmath.exp(-2 * 16 * (1 - mpmath.mpf(1) / 10) ** 2)
        assert encloses(sol.lower, ref)
    assert sol.upper.kind == "window" and float(sol.upper.lower) == pytest.approx(1.0)


def test_kramers_regime_end_is_barrier_over_ten():
    """An estimate is solved for its regime: barrier/T >= 10 and >= 1 give T < barrier/10 exactly."""
    sol = AB.KRAMERS_TIME.solve("temperature", barrier=sp.Rational(3, 2), unstable_eigenvalue=2, det_hessian_minimum=3,
                                det_hessian_saddle=4)
    assert sol.status == "intervals" and encloses(sol.upper, mpmath.mpf("0.15"))
    assert {c.label for c in sol.conditions} == {"regime"}


def test_non_monotone_tail_gives_two_certified_intervals():
    """A6 tail in t with (n-k)/2 = 2: (log t)^2 first beats the decay, then loses: informative on (1, t1) U (t2, inf)."""
    kw = dict(delta=0.5, gamma=2, critical_height=1.53125, codimension=4, log_constant=-0.5)
    sol = AB.FINITE_TIME_TAIL.solve("t", **kw)
    assert sol.status == "intervals" and len(sol.intervals) == 2
    (_, t1), (t2, top) = sol.intervals
    assert t1.kind == "root" and t2.kind == "root" and top.kind == "window"
    info = next(c for c in sol.conditions if c.label == "informative")
    assert info.monotone is None
    with mpmath.workdps(40):
        def f(t):
            return mpmath.mpf(-0.5) + 2 * mpmath.log(mpmath.log(t)) - mpmath.mpf(0.25) * mpmath.log1p(t)
        assert encloses(t1, mpmath.findroot(f, mpmath.mpf(5)))
        assert encloses(t2, mpmath.findroot(f, mpmath.mpf("1.1e10")))


def test_no_solution_and_whole_window():
    """Always vacuous (2 classes, batch 16, T = 1e5): empty with the reason; epsilon over delta: the whole window."""
    sol = A.FROBENIUS.solve("eta_sum", **without("eta_sum", num_classes=2, batch_size=16, steps=100_000))
    assert sol.status == "empty" and "1 - pi_max - epsilon" in sol.reason and not sol.intervals
    whole = A.EPSILON.solve("delta", batch_size=16, steps=100)
    assert whole.status == "whole window" and whole.lower.kind == "window"


def test_a_tangency_is_refused_with_a_reason():
    """exp(-(x-1)^2) <= trivial 1 touches it at x = 1 (a double root): no certificate, refused naming the box."""
    x = Param("x", Interval(0, 10), description="test parameter")
    b = Bound("test.tangent", "tangency", (x,), {"f": sp.exp(-(x.symbol - 1) ** 2)}, Source("test"),
              trivial=(sp.Integer(1), (), "1"))
    sol = b.solve("x", max_boxes=200)
    assert sol.status == "refused" and "could not certify" in sol.reason and sol.intervals == []


def test_without_m_the_range_is_non_vacuity_only_and_says_so():
    """m missing: informativeness not judged; the note tells to give m."""
    sol = A.FROBENIUS.solve("eta_sum", **{k: v for k, v in without("eta_sum").items() if k != "m"})
    assert not sol.informativeness_judged and any("m=<value>" in n for n in sol.notes)
    assert sol.status == "whole window"


def test_solve_input_errors_name_the_argument():
    """Unknown solved parameter, a value for it, a missing parameter, bad digits: ValueError naming it."""
    with pytest.raises(ValueError, match="cannot solve for 'nope'.*accepts"):
        A.FROBENIUS.solve("nope", **without("eta_sum"))
    with pytest.raises(ValueError, match="eta_sum is the parameter solved for"):
        A.FROBENIUS.solve("eta_sum", **RUN)
    with pytest.raises(ValueError, match="missing parameter tau in"):
        A.FROBENIUS.solve("eta_sum", **{k: v for k, v in without("eta_sum").items() if k != "tau"})
    with pytest.raises(ValueError, match="digits"):
        A.FROBENIUS.solve("eta_sum", digits=2, **without("eta_sum"))


def test_vacuity_condition_with_huge_dynamic_range_is_solved_in_log_form():
    """The a-priori CKA bound is vacuous where Theorem 1 >= ||K||_F, i.e. 1 - S e^{S/128}(...) <= 0: taken as
    log P - log N (balls of e^{S/128} over wide boxes lose their sign); the end is where Theorem 1 = ||K||_F."""
    run = dict(tau=0.5, pi_max=0.01, batch_size=256, steps=1000, delta=0.05)
    sol = A.CKA_LOWER_APRIORI.solve("eta_sum", k_norm=100.0, **run)
    assert sol.status == "intervals" and sol.upper.kind == "root" and "vacuous" in sol.upper.condition
    below = A.FROBENIUS.evaluate(eta_sum=sp.Rational(sol.upper.lower), **run).mp_value
    above = A.FROBENIUS.evaluate(eta_sum=sp.Rational(sol.upper.upper), **run).mp_value
    assert below < 100 < above and (above - below) < 1e-12


def test_the_printed_interval_does_not_depend_on_the_callers_mpmath_precision():
    """The solution's text (the enclosure midpoints at 17 digits) is the same at mpmath's default precision and
    after a caller raised mp.dps to 40, and it is the double-precision midpoint of the enclosure."""
    sol = A.FROBENIUS.solve("eta_sum", **without("eta_sum"))
    text = sol.describe()
    with mpmath.workdps(40):
        text_40 = sol.describe()
    assert text == text_40
    end = sol.upper
    mid = float(end.lower) / 2 + float(end.upper) / 2
    assert A.show_end(end) == mpmath.nstr(mpmath.mpf(mid), 17) and abs(float(A.show_end(end)) - mid) <= 1e-13 * mid
