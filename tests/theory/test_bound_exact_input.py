"""Exact and high-precision inputs stay exact through validation (`eta_sum=1e400` had been rounded to
float64 inf and refused as "must be finite", although the bounds evaluate with mpmath; a huge integer had
raised OverflowError), and the factor breakdown keeps a factor whose log10 itself exceeds float64."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import contrastive_bounds.theory._registry as registry

BIG = 10**400
FROB = dict(tau=sp.Rational(1, 2), batch_size=256, num_classes=100, delta=sp.Rational(1, 20), steps=1000)


def test_eta_sum_beyond_float64_is_evaluated_and_growth_dominates():
    """eta_sum = 10**400 is evaluated exactly: the growth factor's log10 (itself beyond float64) is kept as a
    decimal string and named the dominant factor."""
    bound = registry.get("alignment.frobenius")
    res = bound.evaluate(digits=20, eta_sum=sp.Integer(10) ** 400, **FROB)
    assert not res.vacuous and res.value is None and res.log10 is None
    # Theorem 1's growth factor exp(S / (2 tau^2 B)): log10 = S / (2 * 0.25 * 256 * ln 10)
    with mpmath.workdps(40):
        expected = mpmath.mpf(10) ** 400 / (128 * mpmath.log(10))
        got = mpmath.mpf(res.factors_exact["growth"])
        assert abs(got / expected - 1) < mpmath.mpf("1e-18")
        # the whole bound: growth x drift x temperature x class term, dominated by growth
        assert abs(mpmath.mpf(res.log10_exact) / expected - 1) < mpmath.mpf("1e-18")
    assert res.factors["growth"] is None  # beyond float64 even in log space
    assert res.dominant_factor() == "growth"  # not "drift" (log10 399), the largest float factor
    assert res.to_dict()["factors_log10_exact"]["growth"] == res.factors_exact["growth"]
    assert "10^" in res._repr_html_()  # no formatting of a None log10


@pytest.mark.parametrize("value, shown", [
    (sp.Integer(1) + sp.Rational(1, 10**22), "delta=1.0000000000000000000001 is outside its domain (0, 1)"),
    (mpmath.mpf(1) + mpmath.mpf(2) ** -80, "delta=1.0 is outside its domain (0, 1)"),
    (sp.Integer(0), "delta=0 is outside its domain (0, 1)"),
])
def test_out_of_domain_by_less_than_float64_resolution_is_refused(value, shown):
    """A delta outside (0, 1) by less than float64 resolution is refused, shown at its own precision."""
    with pytest.raises(ValueError, match="^" + shown.replace("(", r"\(").replace(")", r"\)") + "$"):
        registry.get("alignment.frobenius").evaluate(eta_sum=10, **{**FROB, "delta": value})


def test_inside_the_domain_by_less_than_float64_resolution_is_accepted():
    """delta = 1 - 1e-22, inside (0, 1) but 1.0 in float64, is accepted and kept exact."""
    delta = sp.Integer(1) - sp.Rational(1, 10**22)  # float64 would make it 1.0, outside (0, 1)
    res = registry.get("alignment.frobenius").evaluate(eta_sum=10, **{**FROB, "delta": delta})
    assert res.params["delta"] == delta


@pytest.mark.parametrize("value, message", [
    (mpmath.mpf("inf"), "tau=+inf must be finite; domain (0, inf)"),
    (mpmath.mpf("nan"), "tau=nan is not allowed (NaN); domain (0, inf)"),
    (sp.oo, "tau=inf must be finite; domain (0, inf)"),
    (-mpmath.mpf("1e-400"), "tau=-1.0e-400 is outside its domain (0, inf)"),
])
def test_non_finite_and_tiny_negative_high_precision_inputs(value, message):
    """mpmath and sympy infinities, NaN and a negative 1e-400 are refused with exact messages."""
    with pytest.raises(ValueError) as err:
        registry.get("alignment.frobenius").evaluate(eta_sum=10, **{**FROB, "tau": value})
    assert str(err.value) == message


def test_a_real_bound_parameter_given_as_a_huge_int_stays_exact():
    """A real parameter given as a 401-digit integer is kept exact: the same log10 as the mpmath number
    10**400, and the growth factor's log10 equals the closed form 10^400 / (128 ln 10)."""
    frob = registry.get_bound("alignment.frobenius")
    kw = dict(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000)
    as_int = frob.evaluate(digits=12, eta_sum=BIG, **kw)
    as_float_text = frob.evaluate(digits=12, eta_sum=mpmath.mpf(10) ** 400, **kw)
    assert as_int.log10_exact == as_float_text.log10_exact
    with mpmath.workdps(30):  # growth factor exp(S / (2 tau^2 B)): log10 = 10^400 / (128 ln 10)
        assert abs(mpmath.mpf(as_int.factors_exact["growth"]) / (mpmath.mpf(10) ** 400 / (128 * mpmath.log(10))) - 1) < 1e-11
