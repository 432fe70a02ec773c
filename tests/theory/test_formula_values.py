"""Values of the plain (numpy/float) theory formulas at reference points, their return types and the
argument each error names: written to kill the mutants that survived the mutation-testing run
(docs/self-test.md, "Mutation testing"); each value is a closed form, a docs/reference-values.md reference, or exact."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds import theory as A
import contrastive_bounds.theory._kramers as K
from contrastive_bounds.theory._schedule_forms import LOG_FORMS
from contrastive_bounds.theory._schedules import hks_constant_to_form, make_schedule

C02 = [((100, 256, 1000, 0.05, 0.5), 0.17370427116883531183, 24.574214968310783817),
       ((1000, 4096, 1000, 0.05, 1.0), 0.047162210885955110246, 0.7477603477291898929),
       ((200, 1024, 100000, 0.05, 0.1), 0.10231721875601699997, 1.1665191824590073645e8)]


@pytest.mark.parametrize("row", C02)
def test_epsilon_and_delta_value_reproduce_c02(row):
    """docs/reference-values.md C02: eps_{B,delta} and Delta from the numpy functions (not only through the Bound objects)."""
    (c, b, t, dl, tau), eps, delta = row
    e = A.epsilon_value(b, t, dl)
    assert e == pytest.approx(eps, rel=1e-13)
    assert A.delta_value(tau, 1 / c, e) == pytest.approx(delta, rel=1e-12)
    assert A.delta_log10(tau, 1 / c, e) == pytest.approx(math.log10(delta), rel=1e-13)


def test_delta_value_vacuous_and_beyond_float64():
    """inf exactly when 1 - pi_max - eps <= 0; a clear error (not inf) when finite but beyond float64."""
    assert A.delta_value(0.5, 0.5, 0.5) == math.inf
    assert A.delta_log10(0.5, 0.6, 0.5) == math.inf
    assert A.delta_value(0.0029, 0.1, 0.0) == pytest.approx(2 * math.exp(2 / 0.0029) * 0.1 / 0.9, rel=1e-10)
    with pytest.raises(ValueError, match="overflows float64"):
        A.delta_value(0.0028, 0.1, 0.0)
    for kw, name in (({"tau": -1.0, "pi_max": 0.1, "epsilon": 0.1}, "tau"), ({"tau": 1.0, "pi_max": 1.0, "epsilon": 0.1}, "pi_max"),
                     ({"tau": 1.0, "pi_max": 0.1, "epsilon": -0.1}, "epsilon")):
        with pytest.raises(ValueError, match=name):
            A.delta_log10(**kw)


@pytest.mark.parametrize("c, tau, ref", [(10, 1.0, 0.59938922370200505131), (1000, 1.0, 0.0073692329329828110838),
                                         (10, 0.2, 7.8031839385776533298)])
def test_loss_gap_value_reproduces_c03(c, tau, ref):
    """docs/reference-values.md C03: log(1 + e^{2/tau}/(C - 1)) from the numpy function."""
    assert A.loss_gap_value(tau, 1 / c) == pytest.approx(ref, rel=1e-14)


def test_loss_gap_value_domain_and_small_tau():
    """Arguments named in errors; pi_max < 1; no overflow at tau = 0.001 (C01): ~ 2/tau + logit(pi_max)."""
    assert A.loss_gap_value(0.001, 0.5) == pytest.approx(2000.0, rel=1e-12)
    for args, name in (((0.0, 0.1), "tau"), ((1.0, 1.0), "pi_max"), ((1.0, 1.5), "pi_max"), ((1.0, 0.0), "pi_max")):
        with pytest.raises(ValueError, match=name):
            A.loss_gap_value(*args)


@pytest.mark.parametrize("fn, x, want", [(A.cka_lower, 1 / 3, 0.5), (A.rsa_lower, 0.6, 0.25), (A.cka_lower, 0.0, 1.0),
                                         (A.cka_lower_sharp, 0.6, 0.8), (A.rsa_lower_sharp, 0.28, 0.96),
                                         (A.cka_lower_sharp, 1.5, -1.0), (A.rsa_lower, 2.0, -1 / 3)])
def test_corollaries_exact_values_and_types(fn, x, want):
    """(1 - x)/(1 + x) and sqrt(1 - x^2) at exact points; a float for a scalar, an array for an array."""
    got = fn(x)
    assert isinstance(got, float) and got == pytest.approx(want, rel=1e-15, abs=1e-15)
    arr = fn(np.array([x, 0.0]))
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == (2,)
    assert arr[0] == pytest.approx(want, rel=1e-15, abs=1e-15) and arr[1] == 1.0


@pytest.mark.parametrize("fn", [A.cka_lower, A.rsa_lower, A.cka_lower_sharp, A.rsa_lower_sharp])
def test_corollaries_reject_negative_and_nan(fn):
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(ValueError, match="must be finite and >= 0"):
            fn(bad)


def test_trivial_frobenius_and_link_l1():
    """2 sqrt(m(m-1)) at m = 2, 10; link L1 = Delta/(tau sqrt B) + d/(2 tau^2 B) (docs/theorems.md B4)."""
    assert A.trivial_frobenius(2) == pytest.approx(2 * math.sqrt(2), rel=1e-15)
    assert A.trivial_frobenius(10) == pytest.approx(2 * math.sqrt(90), rel=1e-15)
    with pytest.raises(ValueError, match="m"):
        A.trivial_frobenius(1)
    got = A.link_l1_bound(3.0, tau=0.5, batch_size=16, delta_value=2.0)
    assert isinstance(got, float) and got == pytest.approx(2.0 / (0.5 * 4) + 3.0 / (2 * 0.25 * 16), rel=1e-15)
    arr = A.link_l1_bound(np.array([0.0, 3.0]), tau=0.5, batch_size=16, delta_value=2.0)
    assert arr.shape == (2,) and arr[0] == pytest.approx(1.0, rel=1e-15)
    assert A.link_l1_bound(1.0, tau=0.5, batch_size=16, delta_value=math.inf) == math.inf
    for kw, name in (({"tau": 0.0}, "tau"), ({"batch_size": 0}, "batch_size"), ({"delta_value": -1.0}, "delta_value")):
        with pytest.raises(ValueError, match=name):
            A.link_l1_bound(1.0, **{"tau": 0.5, "batch_size": 16, "delta_value": 2.0, **kw})


def test_links_closed_forms_for_a_constant_step():
    """L2 = (c/a)((1 + eta a)^T - 1), L3 = (1 + eta a)^T T eta c, Theorem 1 = e^{T eta a} T eta c, at every t."""
    eta, t, tau, b, dv = 0.5, 40, 0.5, 8, 3.0
    a, c = 1 / (2 * tau * tau * b), dv / (tau * math.sqrt(b))
    kw = dict(tau=tau, batch_size=b, delta_value=dv)
    etas = np.full(t, eta)
    l2, l3, thm = A.link_l2_log10(etas, **kw), A.link_l3_log10(etas, **kw), A.theorem1_log10(etas, **kw)
    assert l2.shape == l3.shape == thm.shape == (t + 1,) and l2[0] == l3[0] == thm[0] == -math.inf
    for k in (1, 7, t):
        g = (1 + eta * a) ** k
        assert l2[k] == pytest.approx(math.log10(c / a * (g - 1)), rel=1e-12)
        assert l3[k] == pytest.approx(math.log10(g * k * eta * c), rel=1e-12)
        assert thm[k] == pytest.approx(math.log10(math.exp(k * eta * a) * k * eta * c), rel=1e-12)
    assert A.frobenius_log10(t * eta, tau, b, dv) == pytest.approx(thm[-1], rel=1e-14)
    assert np.all(A.link_l2_log10(etas, tau=tau, batch_size=b, delta_value=math.inf)[1:] == math.inf)
    with pytest.raises(ValueError, match="etas"):
        A.link_l2_log10(np.array([]), **kw)
    with pytest.raises(ValueError, match="etas"):
        A.link_l3_log10(np.array([1.0, -1.0]), **kw)


def test_arrhenius_and_regime():
    """Delta V / T exactly; barrier 0 allowed; the regime thresholds at Delta V/T = 10 and 1."""
    assert K.arrhenius_log_time(1.5, 0.25) == 6.0
    assert K.arrhenius_log_time(0.0, 0.5) == 0.0
    with pytest.raises(ValueError, match="barrier"):
        K.arrhenius_log_time(-1.0, 0.5)
    with pytest.raises(ValueError, match="temperature"):
        K.arrhenius_log_time(1.0, 0.0)
    with pytest.raises(ValueError, match="temperature"):
        K.arrhenius_log_time(1.0, math.inf)
    assert [K.kramers_regime(1.0, t) for t in (0.1, 0.1000001, 1.0, 1.0000001)] == ["asymptotic", "marginal", "marginal", "outside"]
    assert K.min_mfpt_temperature(0.0, 2 * math.pi, 3.0) == pytest.approx(2 * math.pi * 3.0 / 6000.0, rel=1e-15)


def test_kramers_log_times_closed_form():
    """S¹ Kramers time of double-well's trap: 2 pi / (2 sqrt(63/16 · 7/2)) e^{49/32/T} (two saddles, rates add)."""
    temp = 0.3
    want = math.log(2 * math.pi / (2 * math.sqrt(63 / 16 * 7 / 2))) + 49 / 32 / temp
    got = K.kramers_circle_log_time([49 / 32, 49 / 32], 3.5, [-63 / 16, -63 / 16], temp)
    assert got == pytest.approx(want, rel=1e-14)
    # general form: n = 2, one saddle with eigenvalues (-2, 3), minimum (1, 4): rate |l|/(2 pi) sqrt(det_x/|det_z|)
    got = K.eyring_kramers_log_time([1.0], [1.0, 4.0], [[-2.0, 3.0]], 0.5)
    assert got == pytest.approx(-(math.log(2.0 / (2 * math.pi) * math.sqrt(4.0 / 6.0)) - 2.0), rel=1e-14)


def test_expected_escapes_closed_form_for_the_log_schedule():
    """T = c/log(t + t0): the rate k (t + t0)^(-DV/c) integrates to k ((t1+t0)^(1-a) - t0^(1-a))/(1 - a), a = DV/c."""
    sched = make_schedule("temperature", c=1.0, t0=10.0)
    dv, lp = 1.5, math.log(0.3)
    a = dv / 1.0
    want = 0.3 * ((200 + 10.0) ** (1 - a) - 10.0 ** (1 - a)) / (1 - a)
    assert math.exp(K.expected_escapes(sched, [dv], [lp], 0.0, 200.0)) == pytest.approx(want, rel=1e-10)
    assert K.log_probability_never_escape(sched, [dv], [lp], 0.0, 200.0) == pytest.approx(-want, rel=1e-10)
    forever = 0.3 * (10.0 ** (1 - a)) / (a - 1)
    assert math.exp(K.expected_escapes(sched, [dv], [lp], 0.0, math.inf)) == pytest.approx(forever, rel=1e-8)
    assert K.expected_escapes(sched, [dv], [lp], 5.0, 5.0) == -math.inf
    assert K.expected_escapes(make_schedule("temperature", c=2.0, t0=10.0), [dv], [lp], 0.0, math.inf) == math.inf


@pytest.mark.parametrize("form", [f for f in LOG_FORMS if f != "generator"])
def test_hks_constant_to_form_round_trip(form):
    """The built schedule has the asked HKS constant and the same T(t) as T = c/log(t + t0)."""
    s = hks_constant_to_form(form, 1.7, t0=3.0)
    assert s.form == form and s.hks_constant() == pytest.approx(1.7, rel=1e-15)
    for t in (0.0, 2.5, 100.0):
        assert s.temperature(t) == pytest.approx(1.7 / math.log(t + 3.0), rel=1e-14)
        assert s.noise_variance(t) == pytest.approx(2 * 1.7 / math.log(t + 3.0), rel=1e-14)
    g = hks_constant_to_form("generator", 1.7)
    assert g.form == "generator" and g.temperature(4.0) == pytest.approx(1.7 / math.log(5.0), rel=1e-15)
    with pytest.raises(ValueError, match="hks_constant"):
        hks_constant_to_form(form, 0.0)
    with pytest.raises(ValueError, match="form"):
        hks_constant_to_form("linear", 1.0)


@pytest.mark.parametrize("call, name", [
    (lambda: A.epsilon_value(0, 10, 0.05), "batch_size"), (lambda: A.epsilon_value(8, 0, 0.05), "steps"),
    (lambda: A.epsilon_value(8, 10, 1.5), "delta"), (lambda: A.delta_log10(0.0, 0.1, 0.1), "tau"),
    (lambda: A.delta_log10(1.0, 1.5, 0.1), "pi_max"), (lambda: A.delta_log10(1.0, 0.1, -1.0), "epsilon"),
    (lambda: A.link_l2_log10([1.0], tau=0.0, batch_size=4, delta_value=1.0), "tau"),
    (lambda: A.link_l2_log10([1.0], tau=1.0, batch_size=0, delta_value=1.0), "batch_size"),
    (lambda: A.link_l2_log10([1.0], tau=1.0, batch_size=4, delta_value=-1.0), "delta_value"),
    (lambda: A.link_l1_bound(1.0, tau=0.0, batch_size=4, delta_value=1.0), "tau"),
    (lambda: A.link_l1_bound(1.0, tau=1.0, batch_size=0, delta_value=1.0), "batch_size"),
    (lambda: A.link_l1_bound(1.0, tau=1.0, batch_size=1, delta_value=-1.0), "delta_value"),
    (lambda: A.frobenius_log10(0.0, 1.0, 4, 1.0), "eta_sum"), (lambda: A.loss_gap_value(-1.0, 0.1), "tau"),
    (lambda: A.loss_gap_value(1.0, 2.0), "pi_max"), (lambda: K.arrhenius_log_time(-1.0, 1.0), "barrier"),
    (lambda: K.arrhenius_log_time(1.0, -1.0), "temperature"), (lambda: A.trivial_frobenius(1), "m")])
def test_errors_name_the_argument_exactly(call, name):
    """The house rule: a ValueError whose message starts with 'NAME=value' (not a mangled or missing name)."""
    with pytest.raises(ValueError, match=rf"^{name}="):
        call()


def test_domain_edges_of_the_plain_formulas():
    """Edges that are in the domain: batch_size = 1, steps = 1, a zero step size, Delta below 1; NaN rejected."""
    assert A.epsilon_value(1, 1, 0.5) == pytest.approx(math.sqrt(math.log(2.0) / 2), rel=1e-15)
    assert A.link_l1_bound(0.0, tau=1.0, batch_size=1, delta_value=0.5) == 0.5
    out = A.link_l2_log10(np.array([0.0, 1.0]), tau=1.0, batch_size=1, delta_value=0.5)
    assert out[1] == -math.inf and out[2] == pytest.approx(math.log10(0.5), rel=1e-14)
    assert A.link_l3_log10(np.array([0.0, 1.0]), tau=1.0, batch_size=1, delta_value=0.5)[1] == -math.inf
    with pytest.raises(ValueError, match="distance"):
        A.link_l1_bound(math.nan, tau=1.0, batch_size=1, delta_value=0.5)
    with pytest.raises(ValueError, match="distance"):
        A.link_l1_bound(math.inf, tau=1.0, batch_size=1, delta_value=0.5)
    with pytest.raises(ValueError, match="distance"):
        A.link_l1_bound(np.array([0.5, -1e-3]), tau=1.0, batch_size=1, delta_value=0.5)


def test_delta_value_overflow_threshold_is_where_float64_ends():
    """Above ln Delta = 709 (float64 ends at 709.78) a ValueError naming the way out, never OverflowError or inf."""
    pi_max, eps = 0.1, 0.0
    base = math.log(2.0) + math.log(pi_max + eps) - math.log(1 - pi_max - eps)
    tau = 2.0 / (709.9 - base)  # ln Delta = 709.9
    with pytest.raises(ValueError, match="overflows float64"):
        A.delta_value(tau, pi_max, eps)
    tau_ok = 2.0 / (708.5 - base)
    assert A.delta_value(tau_ok, pi_max, eps) == pytest.approx(math.exp(708.5), rel=1e-9)


def test_eyring_kramers_validation_edges():
    """A saddle eigenvalue in (0, 1) is a valid positive one; degenerate or wrongly signed Hessians are refused."""
    got = K.eyring_kramers_log_time([1.0], [0.5, 4.0], [[-2.0, 0.5]], 0.5)
    assert got == pytest.approx(-(math.log(2.0 / (2 * math.pi) * math.sqrt(2.0 / 1.0)) - 2.0), rel=1e-14)
    with pytest.raises(ValueError, match=r"^barriers\[0\]="):
        K.eyring_kramers_log_time([0.0], [1.0], [[-1.0]], 1.0)
    for args in (([1.0], [[1.0]], [[-1.0]]), ([1.0], [1.0, -1.0], [[-1.0, 1.0]]), ([1.0], [math.nan], [[-1.0]]),
                 ([1.0], [1.0], [[-1.0, 2.0]]), ([1.0], [1.0, 1.0], [[-1.0, -1.0]]), ([1.0], [1.0], [[0.0]]), ([], [1.0], [])):
        with pytest.raises(ValueError):
            K.eyring_kramers_log_time(args[0], args[1], args[2], 0.5)


def test_never_escape_probability_at_huge_and_zero_intensity():
    """log P(no escape) = -N; -inf once N exceeds float64 (log N >= 709), 0 when nothing can escape."""
    fixed = make_schedule("fixed", c=1.0)
    assert K.log_probability_never_escape(fixed, [0.0], [750.0], 0.0, 1.0) == -math.inf
    assert K.log_probability_never_escape(fixed, [0.0], [700.0], 0.0, 1.0) == pytest.approx(-math.exp(700.0), rel=1e-10)
    assert K.log_probability_never_escape(fixed, [1.0], [0.0], 0.0, 0.0) == 0.0
    assert math.exp(K.expected_escapes(fixed, [0.0], [0.0], 0.0, 2.5)) == pytest.approx(2.5, rel=1e-12)
    with pytest.raises(ValueError, match=r"^barriers\[0\]="):
        K.expected_escapes(fixed, [-1.0], [0.0], 0.0, 1.0)
    with pytest.raises(ValueError, match="same positive length"):
        K.expected_escapes(fixed, [1.0], [0.0, 1.0], 0.0, 1.0)
