"""A bound tells what it needs: informativeness against the trivial bound is judged, or the result
says it was not judged and which parameter to give (never a silent `uninformative: False`); every
accepted parameter is listed with its domain and meaning."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from contrastive_bounds import theory as A
import contrastive_bounds.theory._annealing_bounds as AB
from contrastive_bounds.theory._bound import Bound

IMAGENET = dict(tau=sp.Rational(1, 10), batch_size=256, num_classes=1000, delta=sp.Rational(1, 20), steps=500_000,
                eta_sum=50_000)


def test_frobenius_without_m_is_not_judged_and_says_how():
    """The ImageNet-sized Theorem 1 (log10 ~ 4254) without m: uninformative is None, 'not judged', m named with its domain."""
    res = A.FROBENIUS.evaluate(**IMAGENET)
    assert res.log10 > 100
    assert res.uninformative is None and res.informativeness == "not judged"
    assert res.judge_needs == ("m",)
    assert "m=<value>" in res.informativeness_note and "integers in [2, inf)" in res.informativeness_note
    d = res.to_dict()
    assert d["uninformative"] is None and d["informativeness"] == "not judged" and d["informativeness_needs"] == ["m"]


def test_frobenius_with_m_is_judged_both_ways():
    """m given: 10^4254 >= 2 sqrt(m(m-1)) -> uninformative; a small S -> informative; the trivial value is the plain one."""
    res = A.FROBENIUS.evaluate(m=2 * 50_000, **IMAGENET)
    assert res.uninformative is True and res.informativeness == "uninformative"
    assert f"{A.trivial_frobenius(100_000):.8g}"[:6] in res.reason
    small = A.FROBENIUS.evaluate(m=1000, **{**IMAGENET, "tau": 1, "eta_sum": sp.Rational(1, 100)})
    assert small.uninformative is False and small.informativeness == "informative"
    assert small.value < A.trivial_frobenius(1000)


def test_vectorised_evaluation_reports_what_it_could_not_judge():
    """evaluate_log10 without m: uninformative None and judge_needs ('m',); with m: a bool mask."""
    la = A.FROBENIUS.evaluate_log10(tau=np.array([0.1, 1.0]), pi_max=0.01, batch_size=256, steps=1000, delta=0.05,
                                    eta_sum=np.array([1e4, 1e-2]))
    assert la.uninformative is None and la.judge_needs == ("m",)
    lm = A.FROBENIUS.evaluate_log10(tau=np.array([0.1, 1.0]), pi_max=0.01, batch_size=256, steps=1000, delta=0.05,
                                    eta_sum=np.array([1e4, 1e-2]), m=512)
    assert lm.judge_needs == () and lm.uninformative.tolist() == [True, False]


def test_a_probability_bound_is_judged_without_optional_parameters():
    """The A6 tail's trivial bound 1 needs nothing more: always judged."""
    res = AB.FINITE_TIME_TAIL.evaluate(t=1e6, delta=0.5, gamma=2, critical_height=1, codimension=1, log_constant=0)
    assert res.informativeness == "informative" and res.judge_needs == ()
    la = AB.FINITE_TIME_TAIL.evaluate_log10(t=np.array([3.0, 1e12]), delta=0.5, gamma=2, critical_height=1,
                                            codimension=2, log_constant=1.0)
    assert la.uninformative.tolist() == [True, False]


def test_bounds_without_trivial_bound_say_so():
    """No trivial bound declared: uninformative False with informativeness 'no trivial bound' (stated, not implied)."""
    res = A.EPSILON.evaluate(batch_size=256, steps=1000, delta=0.05)
    assert res.uninformative is False and res.informativeness == "no trivial bound"
    assert res.to_dict()["informativeness"] == "no trivial bound"


def test_unknown_parameter_lists_every_accepted_parameter_with_domain_and_meaning():
    """The message names the bad key and every accepted keyword: parameters, the alternative num_classes, optional m."""
    with pytest.raises(ValueError) as err:
        A.FROBENIUS.evaluate(tau=0.5, wrong=1)
    msg = str(err.value)
    assert "'wrong'" in msg and "\n" not in msg
    for piece in ("tau in (0, inf): InfoNCE temperature", "(alternative) num_classes", "(optional) m in integers in [2, inf)",
                  "eta_sum in (0, inf)", "similarity units"):
        assert piece in msg, piece
    with pytest.raises(ValueError, match=r"\(optional\) m in"):
        A.FROBENIUS.evaluate_log10(tau=0.5, wrong=np.ones(2))


def test_describe_and_param_cover_optional_parameters():
    """describe() lists m (role optional) and the trivial bound; param('m') finds it; a missing one names its domain."""
    d = A.FROBENIUS.describe()
    roles = {a["name"]: a["role"] for a in d["accepts"]}
    assert roles["m"] == "optional" and roles["num_classes"] == "alternative" and roles["tau"] == "required"
    assert d["trivial"]["needs"] == ["m"]
    assert A.FROBENIUS.param("m").domain_text() == "integers in [2, inf)"
    with pytest.raises(ValueError, match=r"missing parameter eta_sum in \(0, inf\)"):
        A.FROBENIUS.evaluate(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000)


def test_loss_gap_log_form_evaluates_in_mpmath():
    """pi_max = 1e-5000 cancels log(1 + x) beyond MAX_DIGITS: the softplus log form is used, not a NameError."""
    res = A.LOSS_GAP.evaluate(tau=sp.Rational(1, 2), pi_max=mpmath.mpf("1e-5000"))
    with mpmath.workdps(40):
        ref = 4 / mpmath.log(10) + mpmath.log10(mpmath.mpf("1e-5000"))  # log(1 + x) ~ x = e^4 pi_max
    assert res.log10 == pytest.approx(float(ref), rel=1e-12)


def test_estimates_refuse_a_trivial_bound():
    """kind='estimate' has no trivial bound (informativeness is 'not applicable')."""
    x = AB.TEMPERATURE
    with pytest.raises(ValueError, match="estimate"):
        Bound("test.est", "t", (x,), {"f": x.symbol}, AB.KRAMERS_TIME.source, kind="estimate",
              trivial=(sp.Integer(1), (), "1"))
    assert math.isclose(float(AB.KRAMERS_TIME.evaluate(barrier=1, temperature=1, unstable_eigenvalue=1,
                                                        det_hessian_minimum=1, det_hessian_saddle=1).mp_value),
                        2 * math.pi * math.e, rel_tol=1e-15)
