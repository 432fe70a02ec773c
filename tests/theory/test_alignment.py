"""Paper B bounds: reference values (docs/reference-values.md C01-C05), domains, vacuity, two implementations agree."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds import theory as A
from contrastive_bounds.theory import epsilon_value
from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._domains import Interval, Param
from contrastive_bounds.theory._source import Source

R = sp.Rational
BIG = 10**400

C02 = [  # C, B, T, delta, tau, S, epsilon, Delta, bound (or log10)
    (100, 256, 1000, R(5, 100), R(1, 2), 10, "0.17370427116883531183", "24.574214968310783817", "33.213827245521360427", None),
    (1000, 4096, 1000, R(5, 100), 1, 1, "0.047162210885955110246", "0.7477603477291898929", "0.01168518175999980849", None),
    (200, 1024, 100000, R(5, 100), R(1, 10), 60000, "0.10231721875601699997", "1.1665191824590073645e8", None, "1284.6870081078047796"),
]


def _close(x, ref: str, rel: float = 1e-18) -> bool:
    with mpmath.workdps(40):
        ref_mp = mpmath.mpf(ref)
        return abs(x - ref_mp) <= rel * abs(ref_mp)


@pytest.mark.parametrize("row", C02)
def test_C02_theorem1_reference_values(row):
    """C02: epsilon, Delta and the Frobenius bound equal the 20-digit reference values, and a bound beyond
    float64 is reported by its log10 (value None), not as inf."""
    C, B, T, dl, tau, S, eps, delta, bound, log10 = row
    with mpmath.workdps(40):
        e = A.EPSILON.evaluate(batch_size=B, steps=T, delta=dl).mp_value
        d = A.DELTA_BOUND.evaluate(num_classes=C, batch_size=B, steps=T, delta=dl, tau=tau).mp_value
        f = A.FROBENIUS.evaluate(num_classes=C, batch_size=B, steps=T, delta=dl, tau=tau, eta_sum=S)
        assert _close(e, eps)
        assert _close(d, delta, 1e-17)
        if bound is not None:
            assert _close(f.mp_value, bound, 1e-17)
            assert f.value == pytest.approx(float(mpmath.mpf(bound)), rel=1e-15)
        else:
            assert f.value is None  # does not fit a float64
            assert f.log10 == pytest.approx(float(mpmath.mpf(log10)), rel=1e-15)
            assert not f.vacuous


def test_C02_vacuous_row_reports_reason():
    """C02's vacuous row (1 - pi_max - epsilon <= 0) is reported vacuous with that reason, value and log10
    None, never NaN."""
    f = A.FROBENIUS.evaluate(num_classes=2, batch_size=16, steps=100000, delta=R(5, 100), tau=R(1, 2), eta_sum=10)
    assert f.vacuous and f.value is None and f.log10 is None
    assert "1 - pi_max - epsilon <= 0" in f.reason
    e = A.EPSILON.evaluate(batch_size=16, steps=100000, delta=R(5, 100))
    assert _close(e.mp_value, "0.73487342576723715704")
    assert math.isinf(A.delta_value(0.5, 0.5, float(e.mp_value)))


def test_C02_vectorised_log_space_matches_mpmath():
    """The vectorised log10 evaluation equals the C02 references to 1e-12 and marks the vacuous row +inf and
    vacuous, with no NaN."""
    la = A.FROBENIUS.evaluate_log10(
        num_classes=np.array([100, 1000, 200, 2]), batch_size=np.array([256, 4096, 1024, 16]),
        steps=np.array([1000, 1000, 100000, 100000]), delta=0.05, tau=np.array([0.5, 1.0, 0.1, 0.5]),
        eta_sum=np.array([10, 1, 60000, 10]))
    np.testing.assert_allclose(la.log10[:3], [math.log10(33.213827245521360427), math.log10(0.01168518175999980849),
                                              1284.6870081078047796], rtol=1e-12)
    assert la.log10[3] == math.inf and la.vacuous.tolist() == [False, False, False, True]
    assert not np.any(np.isnan(la.log10))


def test_C01_log_space_at_tiny_tau():
    """exp(2/tau) overflows float64 below tau ~ 0.0028: log(exp(2/tau)) must be 2000 at tau = 0.001."""
    d = A.DELTA_BOUND.evaluate(num_classes=100, batch_size=256, steps=1000, delta=R(1, 20), tau=R(1, 1000))
    ln_temperature = d.factors["temperature"] * math.log(10) - math.log(2)
    assert ln_temperature == pytest.approx(2000.0, rel=1e-13)
    assert d.value is None and d.log10 > 868
    la = A.DELTA_BOUND.evaluate_log10(num_classes=100, batch_size=256, steps=1000, delta=0.05, tau=np.array([0.001, 0.5]))
    assert np.all(np.isfinite(la.log10))
    assert la.log10[0] == pytest.approx(d.log10, rel=1e-12)
    ln = A.DELTA_BOUND.lambdify("numpy")(0.001, 0.01, 256, 1000, 0.05)  # log of the bound, float backend
    assert np.isfinite(ln) and ln == pytest.approx(d.log10 * math.log(10), rel=1e-12)
    gap = A.LOSS_GAP.evaluate_log10(tau=0.001, num_classes=10)
    assert float(gap.log10) == pytest.approx(math.log10(2000 - math.log(9)), rel=1e-12)


@pytest.mark.parametrize("C,tau,ref", [(10, 1, "0.59938922370200505131"), (1000, 1, "0.0073692329329828110838"),
                                       (10, R(1, 5), "7.8031839385776533298")])
def test_C03_loss_gap_balanced(C, tau, ref):
    """C03: the loss-gap bound for balanced classes equals its reference values in both implementations and
    lies below B2's simpler e^{2/tau}/(C - 1)."""
    assert _close(A.LOSS_GAP.evaluate(num_classes=C, tau=tau).mp_value, ref, 1e-19)
    assert A.loss_gap_value(float(tau), 1 / C) == pytest.approx(float(ref), rel=1e-14)
    # the simpler e^{2/tau}/(C-1) upper bound of docs/theorems.md B2
    assert float(mpmath.mpf(ref)) <= math.exp(2 / float(tau)) / (C - 1)


def test_loss_gap_from_counts_equals_pi_form():
    """The loss gap from class counts (n_max, num_samples) equals the pi_max form, and counts without
    num_samples are refused naming it."""
    a = A.LOSS_GAP.evaluate(tau=R(1, 2), n_max=30, num_samples=100).mp_value
    b = A.LOSS_GAP.evaluate(tau=R(1, 2), pi_max=R(3, 10)).mp_value
    assert a == b
    with pytest.raises(ValueError, match="num_samples"):
        A.LOSS_GAP.evaluate(tau=1, n_max=3)


@pytest.mark.parametrize("bad,needle", [
    (dict(tau=0), "tau=0 is outside its domain (0, inf)"), (dict(tau=-1), "tau=-1"),
    (dict(delta=1.5), "delta=1.5 is outside its domain (0, 1)"), (dict(delta=0), "delta=0"),
    (dict(batch_size=0), "batch_size=0"), (dict(batch_size=2.5), "batch_size=2.5 must be an integer"),
    (dict(steps=0), "steps=0"), (dict(eta_sum=-1), "eta_sum=-1"), (dict(tau=float("nan")), "tau=nan"),
    (dict(eta_sum=float("inf")), "eta_sum=inf"), (dict(num_classes=1, pi_max=None), "num_classes=1"),
])
def test_C04_domain_errors_name_the_argument(bad, needle):
    """C04: every out-of-domain argument (zero, negative, NaN, inf, non-integer) is a ValueError naming the
    argument and its domain."""
    params = dict(pi_max=R(1, 100), batch_size=256, steps=1000, delta=R(1, 20), tau=R(1, 2), eta_sum=10)
    params.update(bad)
    params = {k: v for k, v in params.items() if v is not None}
    with pytest.raises(ValueError) as info:
        A.FROBENIUS.evaluate(**params)
    assert needle in str(info.value)


def test_C04_plain_functions_validate():
    """C04: the plain functions and the Bound objects refuse bad arguments, conflicting parameters and unknown
    parameters, naming them, also in log space."""
    with pytest.raises(ValueError, match="delta"):
        A.epsilon_value(256, 1000, 1.5)
    with pytest.raises(ValueError, match="tau"):
        A.delta_value(-0.5, 0.1, 0.1)
    with pytest.raises(ValueError, match="either pi_max or num_classes"):
        A.FROBENIUS.evaluate(pi_max=0.1, num_classes=10, batch_size=256, steps=1000, delta=0.05, tau=0.5, eta_sum=1)
    with pytest.raises(ValueError, match="no parameter 'foo'"):
        A.EPSILON.evaluate(batch_size=2, steps=2, delta=0.5, foo=1)
    with pytest.raises(ValueError, match="tau"):
        A.FROBENIUS.evaluate_log10(pi_max=0.1, batch_size=256, steps=1000, delta=0.05, tau=np.array([0.5, -1.0]), eta_sum=1)


def test_C05_mpmath_path_keeps_full_precision():
    """C05: the mpmath path keeps 32 digits through evaluate and lambdify, far below the float path's 1e-16
    rounding."""
    px = Param("x", Interval(0, 10))
    x = px.symbol
    b = Bound("test.sqrt2", "sqrt(2) - x", (px,), {"f": sp.sqrt(2) - x + 1},
              Source("test"))
    with mpmath.workdps(32):
        root2 = mpmath.sqrt(2)
        val = b.evaluate(digits=32, x=root2).mp_value - 1
        assert abs(val) < mpmath.mpf(10) ** (-32 + 5)
        f = b.lambdify("mpmath")
        assert abs(f(root2) - 1) < mpmath.mpf(10) ** (-27)
    # the float path would have an error of ~1e-16: the mpmath path must be far below that
    assert abs(val) < 1e-25


def test_uninformative_against_trivial_bound():
    """A bound above the trivial 2·sqrt(m(m-1)) is reported uninformative (not vacuous) with the reason; a
    large m keeps it informative."""
    f = A.FROBENIUS.evaluate(num_classes=100, batch_size=256, steps=1000, delta=R(1, 20), tau=R(1, 2), eta_sum=10, m=4)
    assert f.uninformative and "trivial" in f.reason and not f.vacuous
    f = A.FROBENIUS.evaluate(num_classes=100, batch_size=256, steps=1000, delta=R(1, 20), tau=R(1, 2), eta_sum=10, m=2000)
    assert not f.uninformative
    assert A.trivial_frobenius(4) == pytest.approx(2 * math.sqrt(12))


def test_cka_rsa_lower_bounds():
    """The CKA and RSA corollary bounds equal (1 - rho)/(1 + rho) exactly, are vacuous at rho = 1, and the
    a-priori CKA bound equals its closed form at 30 digits."""
    assert _close(A.CKA_LOWER.evaluate(rho=R(1, 3)).mp_value, "0.5", 1e-35)
    assert A.CKA_LOWER.evaluate(rho=1).vacuous
    assert A.RSA_LOWER.evaluate(r=0).mp_value == 1
    np.testing.assert_allclose(A.cka_lower(np.array([0.0, 1 / 3])), [1.0, 0.5], rtol=1e-15)
    apriori = A.CKA_LOWER_APRIORI.evaluate(num_classes=1000, batch_size=4096, steps=1000, delta=R(1, 20), tau=1,
                                           eta_sum=1, k_norm=10)
    with mpmath.workdps(40):
        rho_bar = mpmath.mpf("0.01168518175999980849") / 10
        assert _close(apriori.mp_value, mpmath.nstr((1 - rho_bar) / (1 + rho_bar), 30), 1e-17)


def test_weight_divergence_log_space_stable():
    """The weight-divergence bound's log space evaluation equals the mpmath value from tiny to huge eta_sum."""
    kw = dict(num_classes=100, batch_size=256, steps=1000, delta=0.05, tau=0.5, grad_norm=1, smoothness=1)
    for s in (1e-6, 1.0, 5000.0):
        exact = A.WEIGHT_DIVERGENCE.evaluate(eta_sum=s, **kw)
        la = A.WEIGHT_DIVERGENCE.evaluate_log10(eta_sum=s, **kw)
        assert float(la.log10) == pytest.approx(exact.log10, rel=1e-12, abs=1e-12)


def test_latex_renders():
    """The bounds render to LaTeX with the paper's symbols (and in notebooks through _repr_latex_)."""
    tex = A.FROBENIUS.latex()
    assert r"\|\Sigma^{CL}_T - \Sigma^{NSCL}_T\|_F \le" in tex and r"\tau" in tex and r"\pi_{max}" in tex
    assert A.CKA_LOWER.latex().startswith(r"\mathrm{CKA}_T \ge")
    assert A.FROBENIUS._repr_latex_().startswith("$")


# ------------------------------------------------------------- two implementations agree
@st.composite
def thm1_points(draw):
    return dict(
        tau=draw(st.floats(0.05, 2.0)), pi_max=draw(st.floats(0.001, 0.3)),
        batch_size=draw(st.integers(64, 8192)), steps=draw(st.integers(1, 10**6)),
        delta=draw(st.floats(1e-4, 0.5)), eta_sum=draw(st.floats(1e-3, 1e4)))


@given(thm1_points())
def test_bound_objects_match_plain_numpy_and_log_space(p):
    """Property: the Frobenius bound's mpmath value, its log10 evaluation and the plain numpy functions agree
    at random points, and agree on vacuity."""
    exact = A.FROBENIUS.evaluate(**p)
    eps = A.epsilon_value(p["batch_size"], p["steps"], p["delta"])
    assert float(A.EPSILON.evaluate(batch_size=p["batch_size"], steps=p["steps"], delta=p["delta"]).mp_value) == pytest.approx(eps, rel=1e-13)
    dlog = A.delta_log10(p["tau"], p["pi_max"], eps)
    la = A.FROBENIUS.evaluate_log10(**p)
    if exact.vacuous:
        assert math.isinf(dlog) and bool(la.vacuous)
        return
    thm = A.frobenius_log10(p["eta_sum"], p["tau"], p["batch_size"], 10**dlog if dlog < 300 else math.inf) if dlog < 300 else None
    if thm is not None:
        assert thm == pytest.approx(exact.log10, rel=1e-11, abs=1e-11)
    assert float(la.log10) == pytest.approx(exact.log10, rel=1e-11, abs=1e-11)


@given(st.lists(st.floats(1e-4, 5.0), min_size=1, max_size=40), st.floats(0.1, 2.0), st.integers(1, 512),
       st.floats(0.01, 1e3))
def test_links_l2_l3_theorem1_ordered_and_exact(etas, tau, b, dv):
    """Property: the proof links are ordered L2 <= L3 <= Theorem 1 at every step, L2 equals the recursion
    computed independently in mpmath, and one L2 step equals the Bound object's."""
    l2 = A.link_l2_log10(etas, tau=tau, batch_size=b, delta_value=dv)
    l3 = A.link_l3_log10(etas, tau=tau, batch_size=b, delta_value=dv)
    t1 = A.theorem1_log10(etas, tau=tau, batch_size=b, delta_value=dv)
    assert l2[0] == -math.inf
    assert np.all(l2[1:] <= l3[1:] + 1e-12) and np.all(l3[1:] <= t1[1:] + 1e-12)
    # independent reference: the recursion itself in mpmath
    with mpmath.workdps(40):
        a = mpmath.mpf(1) / (2 * mpmath.mpf(tau) ** 2 * b)
        c = mpmath.mpf(dv) / (mpmath.mpf(tau) * mpmath.sqrt(b))
        d = mpmath.mpf(0)
        for t, e in enumerate(etas):
            d = (1 + mpmath.mpf(e) * a) * d + mpmath.mpf(e) * c
            assert l2[t + 1] == pytest.approx(float(mpmath.log10(d)), rel=1e-11, abs=1e-11)
    # L2 one step (Bound object) equals the recursion's step
    pi_eps = dict(pi_max=0.01, batch_size=b, steps=1000, delta=0.05, tau=tau)
    dval = A.DELTA_BOUND.evaluate(**pi_eps)
    if not dval.vacuous:
        one = A.LINK_L2.evaluate(eta=etas[0], distance=0, **pi_eps)
        assert one.log10 == pytest.approx(math.log10(etas[0]) + dval.log10 - math.log10(tau) - 0.5 * math.log10(b), rel=1e-12)


def test_log10_beyond_float64_is_reported_exactly_not_as_inf():
    """tau = 1e-300 is in the domain: log10 of the bound (~8.5e597) does not fit a float64 either."""
    f = A.FROBENIUS.evaluate(tau=1e-300, batch_size=256, num_classes=100, delta=0.05, steps=1000, eta_sum=10)
    assert not f.vacuous and f.value is None and f.log10 is None
    assert f.log10_exact.startswith("8.4823140996728") and "e+597" in f.log10_exact
    assert "beyond float64 even in log space" in f.reason
    assert all(v is None or math.isfinite(v) for v in f.factors.values())
    with pytest.raises(ValueError, match="beyond float64"):
        A.FROBENIUS.evaluate_log10(tau=np.array([0.5, 1e-300]), batch_size=256, num_classes=100, delta=0.05,
                                   steps=1000, eta_sum=10)


def test_epsilon_with_huge_steps_is_the_closed_form():
    """epsilon_value takes a step count beyond float64 (10**400) and returns the closed form sqrt((log steps +
    log(B/delta)) / (2B)) instead of an OverflowError."""
    got = epsilon_value(256, BIG, 0.05)
    assert got == pytest.approx(math.sqrt((400 * math.log(10) + math.log(256 / 0.05)) / 512), rel=1e-14)



def test_links_refuse_a_tau_whose_rate_is_beyond_float64():
    """1/(2 tau^2 B) beyond float64 (tau ~ 1e-160) is refused naming tau instead of dividing by zero; just
    inside (tau = 1e-150, B = 1) the links still evaluate, and the rate enters as 1/(2 tau^2 B) exactly."""
    import numpy as np

    with pytest.raises(ValueError, match=r"^tau=1e-160: the links' rate"):
        A.link_l2_log10(np.ones(3), tau=1e-160, batch_size=4, delta_value=2.0)
    out = A.link_l2_log10(np.ones(2), tau=1e-150, batch_size=1, delta_value=2.0)
    assert np.isfinite(out[1:]).all()
    # d_1 = eta_0 * c with c = Delta/(tau sqrt B): log10(2/1e-150) = 150.30103
    assert out[1] == pytest.approx(150 + math.log10(2), rel=1e-12)
