"""Bound.evaluate keeps its digits when a factor cancels: exp(x) - 1 and log(1 + x) at small x used to
come back 8 % or 21 % off, or as a silent 0.0 upper bound. References are written here independently:
mpmath's expm1/log1p formulas at 80 digits on the exact float inputs, and evaluate_log10 (which uses the
bounds' log_factors). Also: exact Fraction/Decimal inputs, reliable vacuity signs, and claim
counterexamples at integer points of integer parameters."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from sympy.codegen.cfunctions import log1p

import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._reliable import MAX_DIGITS, reliable_sign, reliable_value
from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._bound_spec import Vacuity
from contrastive_bounds.theory._claim import Claim, SignCheckSpec, _integer_witness, sign_claim_check
from contrastive_bounds.theory._domains import Interval, Param
from contrastive_bounds.theory._source import Source

W_KW = dict(tau=0.5, num_classes=10, batch_size=64, steps=100, delta=0.05, grad_norm=1)


def _weight_divergence_ref(eta_sum, smoothness, tau=0.5, num_classes=10, batch_size=64, steps=100, delta=0.05,
                           grad_norm=1):
    """Paper B Theorem 2 with '<~' read as <=: (G/(beta tau)) * Delta * expm1(beta S), Delta =
    2 e^{2/tau} (pi + eps)/(1 - pi - eps), eps = sqrt(log(T B/delta)/(2B)), pi = 1/C; at 80 digits."""
    with mpmath.workdps(80):
        t, s, b, g, d = (mpmath.mpf(v) for v in (tau, eta_sum, smoothness, grad_norm, delta))
        pi = mpmath.mpf(1) / num_classes
        eps = mpmath.sqrt(mpmath.log(mpmath.mpf(steps) * batch_size / d) / (2 * batch_size))
        big_delta = 2 * mpmath.exp(2 / t) * (pi + eps) / (1 - pi - eps)
        return g / (b * t) * big_delta * mpmath.expm1(b * s)


@pytest.mark.parametrize("eta_sum, smoothness", [
    (1e-300, 1.0),   # was value 0.0, reason None (an upper bound of 0: false)
    (1e-20, 1e-20),  # was 1.3545e-18 against 1.4749e-18 (8 % off)
    (1e-30, 1.0),    # was right to ~3e-12 only
    (1e-8, 1.0),
    (1.0, 1.0),      # ordinary point
    (40.0, 1.0),     # large growth, no cancellation
])
def test_weight_divergence_has_all_its_digits(eta_sum, smoothness):
    """The weight-divergence bound has all 15 digits where its exp(x) - 1 factor cancels (it had been 8 % off
    at 1e-20 and 0.0 at 1e-300), and the log-space path agrees."""
    bound = registry.get_bound("alignment.weight_divergence")
    res = bound.evaluate(eta_sum=eta_sum, smoothness=smoothness, **W_KW)
    ref = _weight_divergence_ref(eta_sum, smoothness)
    assert not res.vacuous and res.reason is None
    with mpmath.workdps(80):
        assert abs(res.mp_value / ref - 1) < mpmath.mpf("1e-30")
        assert abs(mpmath.mpf(res.log10_exact) - mpmath.log10(ref)) < mpmath.mpf("1e-27")
    assert res.value == pytest.approx(float(ref), rel=1e-15)
    # the vectorised log-space path (log_factors: log(expm1(x))) agrees to float64 precision
    la = bound.evaluate_log10(eta_sum=eta_sum, smoothness=smoothness, **W_KW)
    assert float(la.log10) == pytest.approx(res.log10, rel=1e-13, abs=1e-13)


def test_digits_beyond_the_precision_cap_still_work():
    """reliable_value delivers more digits than the precision cap when asked (5000 digits of e)."""
    x = sp.Symbol("x", positive=True)
    v, _ = reliable_value(sp.exp(x), {"x": 1}, 5000)
    with mpmath.workdps(5010):
        assert abs(v - mpmath.e) < mpmath.mpf(10) ** -5000


def test_more_digits_are_honoured():
    """digits=60 gives 60 correct digits of a cancelling factor."""
    bound = registry.get_bound("alignment.weight_divergence")
    res = bound.evaluate(digits=60, eta_sum=1e-20, smoothness=1e-20, **W_KW)
    with mpmath.workdps(120):
        ref = _weight_divergence_ref(1e-20, 1e-20)
        assert abs(res.mp_value / ref - 1) < mpmath.mpf("1e-60")


def test_value_underflowing_to_zero_is_none_with_log10():
    """A positive value below float64's smallest subnormal used to be returned as value=0.0."""
    bound = registry.get_bound("alignment.weight_divergence")
    eta_sum = mpmath.mpf("1e-400")  # 53 bits; the reference gets the same binary number
    res = bound.evaluate(eta_sum=eta_sum, smoothness=1, **W_KW)
    assert res.value is None and not res.vacuous
    with mpmath.workdps(80):
        ref = _weight_divergence_ref(eta_sum, 1)
        assert res.log10 == pytest.approx(float(mpmath.log10(ref)), rel=1e-15)
        assert abs(res.mp_value / ref - 1) < mpmath.mpf("1e-30")
    # a subnormal result is None too (only its log10 is meaningful)
    sub = bound.evaluate(eta_sum=1e-311, smoothness=1, **W_KW)
    assert sub.value is None and sub.log10 == pytest.approx(math.log10(float(_weight_divergence_ref(1e-311, 1))))


# ---------------------------------------------------------------- a user bound (docs/tutorial.md)
TAU = Param("tau", Interval(0, math.inf))
BATCH_SIZE = Param("batch_size", Interval(2, math.inf, lo_closed=True), integer=True)
_tau, _b = TAU.symbol, BATCH_SIZE.symbol
_negatives = 2 * (_b - 1) * sp.exp(-2 / _tau)
_SRC = Source("Chen et al. (2020)", "2002.05709", "eq. (1) (NT-Xent)")
NTXENT_FLOOR = Bound("test.ntxent_floor", "NT-Xent floor", (TAU, BATCH_SIZE), {"floor": sp.log(1 + _negatives)},
                     _SRC, kind="lower", log_factors={"floor": sp.log(log1p(_negatives))})
NO_LOG_FACTORS = Bound("test.ntxent_floor_plain", "NT-Xent floor", (TAU, BATCH_SIZE),
                       {"floor": sp.log(1 + _negatives)}, _SRC, kind="lower")


def _floor_log10_ref(tau: float, batch_size: int) -> mpmath.mpf:
    with mpmath.workdps(80):
        x = 2 * (batch_size - 1) * mpmath.exp(-2 / mpmath.mpf(tau))
        return mpmath.log10(mpmath.log1p(x))


@pytest.mark.parametrize("bound", [NTXENT_FLOOR, NO_LOG_FACTORS], ids=["log_factors", "plain"])
@pytest.mark.parametrize("tau", [0.5, 0.05, 0.02, 0.01, 1e-3])
def test_user_bound_with_a_cancelling_factor(bound, tau):
    """tau=0.02 was 21 % off, tau=0.01 and 1e-3 were value 0.0 with log10 None and no reason.
    Without log_factors the precision doubling alone recovers it (1e-869 needs ~900 digits)."""
    res = bound.evaluate(tau=tau, batch_size=256)
    ref = _floor_log10_ref(tau, 256)
    assert res.reason is None and not res.vacuous
    with mpmath.workdps(80):
        assert abs(mpmath.mpf(res.log10_exact) - ref) < mpmath.mpf("1e-27") * max(1, abs(ref))
    if ref > -307:
        assert res.value == pytest.approx(float(mpmath.mpf(10) ** ref), rel=1e-15)
    else:
        assert res.value is None and res.log10 == pytest.approx(float(ref), rel=1e-15)
    if bound is NTXENT_FLOOR and tau >= 0.01:  # log space with log_factors (float64: e^(-2/tau) must not underflow)
        la = bound.evaluate_log10(tau=tau, batch_size=256)
        assert float(la.log10) == pytest.approx(float(ref), rel=1e-13)


def test_cancellation_beyond_the_precision_cap_is_reported_never_zero():
    """log(1 + 510 e^-20000) needs ~8700 digits > MAX_DIGITS: without log_factors the factor is
    unknown and says so; with log_factors (log(log1p(x))) it is computed."""
    assert MAX_DIGITS < 8700
    res = NO_LOG_FACTORS.evaluate(tau=1e-4, batch_size=256)
    assert res.value is None and res.log10 is None and res.mp_value is None and not res.vacuous
    assert "factor 'floor'" in res.reason and "could not be told from 0" in res.reason
    assert "<b>unknown</b>" in res._repr_html_() and res.to_dict()["exact"] is None
    good = NTXENT_FLOOR.evaluate(tau=1e-4, batch_size=256)
    with mpmath.workdps(80):
        assert abs(mpmath.mpf(good.log10_exact) - _floor_log10_ref(1e-4, 256)) < mpmath.mpf("1e-24")


def test_reliable_value_takes_the_fast_path_on_ordinary_inputs():
    """Ordinary inputs are accepted after the two cheap evaluations; only cancelling ones escalate the
    precision."""
    x = sp.Symbol("x", positive=True)
    v, how = reliable_value(sp.exp(x) - 1, {"x": 1.5}, 30)
    assert how == "mpmath@80"  # accepted after the two cheap evaluations (40 and 80 digits)
    with mpmath.workdps(60):
        assert abs(v - mpmath.expm1(mpmath.mpf(1.5))) < mpmath.mpf("1e-45")
    v, how = reliable_value(sp.exp(x) - 1, {"x": 1e-100}, 30)
    assert how != "mpmath@80"
    with mpmath.workdps(200):
        assert abs(v / mpmath.expm1(mpmath.mpf(1e-100)) - 1) < mpmath.mpf("1e-32")


def test_vacuity_sign_is_decided_reliably():
    """log(1+x) - x + x^2/2 = x^3/3 + O(x^4) > 0: at 40 digits and x = 1e-20 it is lost in rounding
    (1e-61 against an error of 1e-40), so the sign must come from a higher precision."""
    x_param = Param("x", Interval(0, 1))
    x = x_param.symbol
    vac_expr = sp.log(1 + x) - x + x**2 / 2
    bound = Bound("test.reliable_vacuity", "x", (x_param,), {"f": x}, _SRC,
                  vacuity=(Vacuity(vac_expr, "never for x > 0"),))
    res = bound.evaluate(x=1e-20)
    assert not res.vacuous and res.value == 1e-20
    assert reliable_sign(vac_expr, {"x": 1e-20}) == 1
    # an exact zero counts as 0 (vacuous under "expr <= 0")
    assert reliable_sign(1 - x * 2, {"x": 0.5}) == 0
    edge = Bound("test.edge", "x", (x_param,), {"f": x}, _SRC, vacuity=(Vacuity(1 - 2 * x, "x >= 1/2"),))
    assert edge.evaluate(x=0.5).vacuous and not edge.evaluate(x=0.4999999999).vacuous


# ---------------------------------------------------------------- exact stdlib inputs (Fraction, Decimal)
FROB_KW = dict(batch_size=256, num_classes=100, delta=sp.Rational(1, 20), steps=1000, eta_sum=10)


def test_fraction_and_decimal_are_exact():
    """fractions.Fraction and decimal.Decimal inputs are kept exact (as the equivalent sympy Rational), never
    rounded through float64."""
    frob = registry.get_bound("alignment.frobenius")
    exact = frob.evaluate(tau=sp.Rational(1, 3), **FROB_KW).mp_value
    via_float = frob.evaluate(tau=1 / 3, **FROB_KW).mp_value
    assert frob.evaluate(tau=Fraction(1, 3), **FROB_KW).mp_value == exact
    with mpmath.workdps(40):
        assert abs(via_float / exact - 1) > mpmath.mpf("1e-17")  # the float input really differs
    assert frob.evaluate(tau=Decimal("0.1"), **FROB_KW).mp_value == frob.evaluate(tau=sp.Rational(1, 10), **FROB_KW).mp_value
    res = frob.evaluate(tau=0.5, **{**FROB_KW, "delta": Decimal("0.05"), "batch_size": Fraction(256),
                                    "steps": Decimal("1000")})
    assert res.params["delta"] == sp.Rational(1, 20) and res.params["batch_size"] == 256
    # the getting-started value at 30 digits (docs/getting-started.md, exact delta = 1/20)
    assert mpmath.nstr(res.mp_value, 30) == "33.2138272455213604267336468691"


@pytest.mark.parametrize("kw, message", [
    ({"batch_size": Fraction(5, 2)}, "batch_size=5/2 must be an integer"),
    ({"steps": Decimal("10.5")}, "steps=10.5 must be an integer"),
    ({"delta": Decimal("NaN")}, "delta=nan is not allowed (NaN); domain (0, 1)"),
    ({"delta": Decimal("1")}, "delta=1 is outside its domain (0, 1)"),
    ({"delta": Fraction(21, 20)}, "delta=1.05 is outside its domain (0, 1)"),
])
def test_bad_fraction_and_decimal_inputs_are_named(kw, message):
    """Non-integral, NaN and out-of-domain Fraction and Decimal inputs are refused naming the argument
    exactly."""
    with pytest.raises(ValueError) as err:
        registry.get_bound("alignment.frobenius").evaluate(tau=0.5, **{**FROB_KW, **kw})
    assert str(err.value) == message


# ---------------------------------------------------------------- claim counterexamples at integer points
def test_refuted_claim_counterexample_is_an_integer_point_that_replays():
    """A refuted claim's counterexample has integer values for integer parameters and replays as a violation
    (batch_size=3207.39 had been reported)."""
    box = {"tau": (0.05, 10.0), "batch_size": (2, 4096)}
    deriv = sp.diff(NTXENT_FLOOR.expr, _tau)
    wrong = Claim("test.decreasing_in_tau", "the floor decreases with tau", _SRC,
                  sign_claim_check(SignCheckSpec(deriv, box, sign=-1)), expected="refuted")
    for certify in (False, True):
        v = wrong.run(certify=certify)
        assert v.status == "refuted"
        point = v.counterexample["point"]
        assert type(point["batch_size"]) is int and 2 <= point["batch_size"] <= 4096
        NTXENT_FLOOR.evaluate(**point)  # a valid domain point: does not raise
        with mpmath.workdps(40):
            d = sp.lambdify([_tau, _b], deriv, "mpmath")(mpmath.mpf(point["tau"]), point["batch_size"])
        # the claim says d < 0; the reported value is d itself, positive there
        assert d > 0 and v.counterexample["value"] == pytest.approx(float(d), rel=1e-12)


def test_arb_refuting_sub_box_is_moved_to_an_integer_point_or_withheld():
    """_integer_witness: a sub-box where arb showed target < 0 for all reals becomes an integer point:
    inside it when it holds one (certainly wrong there), else the nearest integers if re-checked
    wrong at 40 digits, else no witness (the integer statement is not refuted)."""
    n = Param("n", Interval(1, 10, lo_closed=True, hi_closed=True), integer=True).symbol
    box = {"n": (1, 10)}
    point, note = _integer_witness((n - 6) ** 2 - sp.Rational(1, 10), [n], box, ((5.8, 6.2),))
    assert point.tolist() == [6.0] and note == ""
    point, note = _integer_witness(sp.Rational(39, 10) - n, [n], box, ((4.1, 4.6),))
    assert point.tolist() == [4.0] and "nearest integer" in note
    point, _ = _integer_witness((n - sp.Rational(7, 2)) ** 2 - sp.Rational(1, 25), [n], box, ((3.35, 3.65),))
    assert point is None
    with pytest.raises(ValueError, match="holds no integer"):
        sign_claim_check(SignCheckSpec(n, {"n": (2.2, 2.8)}))


def test_evaluate_digits_has_an_upper_limit():
    """digits above EVALUATE_MAX_DIGITS is refused naming digits before any work (5000 digits failed on
    Python's int-string limit, 100000 ran for minutes); the limit itself evaluates."""
    import contrastive_bounds.theory._registry as registry
    from contrastive_bounds.theory._bound import EVALUATE_MAX_DIGITS

    b = registry.get_bound("alignment.loss_gap")
    with pytest.raises(ValueError, match=rf"digits=5000 is outside its domain: integers in \[5, {EVALUATE_MAX_DIGITS}\]"):
        b.evaluate(digits=5000, tau=1, pi_max=0.1)
    from fractions import Fraction

    v = b.evaluate(digits=EVALUATE_MAX_DIGITS, tau=1, pi_max=Fraction(1, 10))  # exact 1/10, not the double 0.1
    assert v.digits == EVALUATE_MAX_DIGITS
    with mpmath.workdps(EVALUATE_MAX_DIGITS + 10):
        exact = mpmath.log(1 + mpmath.e ** 2 / 9)  # C03, C = 10, tau = 1: log(1 + e^{2/tau}/(C - 1))
        assert abs(v.mp_value - exact) < mpmath.mpf(10) ** (-EVALUATE_MAX_DIGITS + 1)
