"""Schedules (docs/theorems.md A2/A4): conventions, validation (C12), verdicts."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds.theory._schedule_forms import FORMS, LOG_FORMS
from contrastive_bounds.theory._schedules import make_schedule

T_GRID = np.array([0.5, 1.0, 10.0, 1e3, 1e6])


def test_c12_author_default_rejects_t0_range_containing_zero():
    """C12: beta = c·log(t + 1) gives beta(0) = 0; validation names t0 and never clamps."""
    s = make_schedule("author", c=0.5)
    assert s.params["t0"] == 1.0
    with np.errstate(divide="ignore"):
        assert s.beta(0.0) == 0.0 and math.isinf(s.temperature(0.0))  # evaluation is not clamped
    with pytest.raises(ValueError, match=r"t0=1\.0"):
        s.validate_range(0.0, 100.0)
    s.validate_range(1e-3, 100.0)  # starting after 0 is fine
    make_schedule("author", c=0.5, t0=2.0).validate_range(0.0, 100.0)


@pytest.mark.parametrize("form", ["temperature", "inverse-temperature", "noise"])
def test_c12_log_forms_reject_non_positive_log(form):
    """C12: c/log(t + t0) with t0 = 1 divides by zero at t = 0; t0 < 1 gives negative temperatures."""
    for t0 in (1.0, 0.5):
        with pytest.raises(ValueError, match="t0="):
            make_schedule(form, c=1.0, t0=t0).validate_range(0.0, 5.0)
    s = make_schedule(form, c=1.0, t0=0.5)
    assert s.temperature(0.0) < 0  # the raw formula really is negative there: validation must catch it


def test_c12_other_forms():
    """C12: every non-logarithmic form refuses a range where it is undefined or underflows (generator at t =
    0, linear at t_end, exponential underflow, reversed or NaN ranges), naming the argument."""
    with pytest.raises(ValueError, match="t_start"):
        make_schedule("generator", c=1.0).validate_range(0.0, 1.0)
    with pytest.raises(ValueError, match="t_end=5"):
        make_schedule("linear", c=1.0, t_end=5.0).validate_range(0.0, 5.0)
    make_schedule("linear", c=1.0, t_end=5.0).validate_range(0.0, 4.999)
    with pytest.raises(ValueError, match="gamma=0.5"):  # underflow to 0.0 in float64
        make_schedule("exponential", c=1.0, gamma=0.5).validate_range(0.0, 5000.0)
    with pytest.raises(ValueError, match="t_end"):
        make_schedule("fixed", c=1.0).validate_range(2.0, 1.0)
    with pytest.raises(ValueError, match="t_start"):
        make_schedule("fixed", c=1.0).validate_range(float("nan"), 1.0)


@pytest.mark.parametrize("bad", [dict(c=-1.0), dict(c=float("nan")), dict(c=float("inf")), dict(c=1.0, t1=2.0), {}])
def test_bad_parameters(bad):
    """Negative, NaN or infinite constants, unknown parameters and a missing c are refused."""
    with pytest.raises(ValueError):
        make_schedule("temperature", **bad)


def test_unknown_form_and_gamma_domain():
    """An unknown form is refused naming it, and exponential needs gamma < 1."""
    with pytest.raises(ValueError, match="form='cosine'"):
        make_schedule("cosine", c=1.0)
    with pytest.raises(ValueError, match="gamma"):
        make_schedule("exponential", c=1.0, gamma=1.0)


def test_closed_forms():
    """Every form's T(t) or beta(t) equals its closed form at a point to 1e-15."""
    assert make_schedule("temperature", c=2.0, t0=2.0).temperature(1.0) == pytest.approx(2 / math.log(3), rel=1e-15)
    assert make_schedule("author", c=3.0, t0=1.0).beta(4.0) == pytest.approx(3 * math.log(5), rel=1e-15)
    assert make_schedule("noise", c=3.0, t0=2.0).temperature(1.0) == pytest.approx(1.5 / math.log(3), rel=1e-15)
    assert make_schedule("noise", c=3.0, t0=2.0).noise_variance(1.0) == pytest.approx(3 / math.log(3), rel=1e-15)
    assert make_schedule("generator", c=2.0).beta(math.e - 1) == pytest.approx(0.5, rel=1e-15)
    assert make_schedule("linear", c=2.0, t_end=4.0).temperature(1.0) == pytest.approx(1.5, rel=1e-15)
    assert make_schedule("exponential", c=2.0, gamma=0.5, period=2.0).temperature(4.0) == pytest.approx(0.5, rel=1e-15)
    assert make_schedule("polynomial", c=2.0, alpha=0.5, t0=1.0).beta(3.0) == pytest.approx(4.0, rel=1e-15)
    assert make_schedule("sqrt", c=2.0, t0=1.0).temperature(3.0) == pytest.approx(1.0, rel=1e-15)


@given(c=st.floats(0.01, 100.0), t0=st.floats(1.01, 10.0))
def test_conversions_round_trip(c, t0):
    """Same T(t) in every convention (except the generator, whose t0 is 1) and back."""
    s = make_schedule("temperature", c=c, t0=t0)
    for form in ("inverse-temperature", "author", "noise"):
        conv = s.to_convention(form)
        np.testing.assert_allclose(conv.temperature(T_GRID), s.temperature(T_GRID), rtol=1e-13)
        back = conv.to_convention("temperature")
        assert back.params["c"] == pytest.approx(c, rel=1e-14) and back.params["t0"] == t0
        assert conv.converges(1.0).converges == s.converges(1.0).converges
    assert make_schedule("author", c=1 / c, t0=t0).hks_constant() == pytest.approx(c, rel=1e-14)
    assert make_schedule("noise", c=2 * c, t0=t0).hks_constant() == pytest.approx(c, rel=1e-14)


def test_generator_conversion_needs_t0_one():
    """Conversion to the generator convention keeps T(t) when t0 = 1 and is refused otherwise; non-logarithmic
    forms cannot be converted to a logarithmic convention."""
    s = make_schedule("temperature", c=2.0, t0=1.0)
    g = s.to_convention("generator")
    np.testing.assert_allclose(g.temperature(T_GRID), s.temperature(T_GRID), rtol=1e-14)
    with pytest.raises(ValueError, match="t0=2.0"):
        make_schedule("temperature", c=2.0, t0=2.0).to_convention("generator")
    with pytest.raises(ValueError, match="logarithmic"):
        make_schedule("fixed", c=1.0).to_convention("author")


H = 1.53125


@pytest.mark.parametrize(
    "form,params,expected,regime",
    [
        ("temperature", dict(c=2.0), True, "slow-enough"),
        ("temperature", dict(c=1.0), False, "log-below-critical"),
        ("temperature", dict(c=H), None, "boundary"),
        ("author", dict(c=1 / 2.0), True, "slow-enough"),
        ("author", dict(c=1.0), False, "log-below-critical"),  # c_T = 1 < H*
        ("noise", dict(c=2 * H), None, "boundary"),
        ("noise", dict(c=2.0), False, "log-below-critical"),  # c_T = 1
        ("generator", dict(c=1.6), True, "slow-enough"),
        ("fixed", dict(c=0.1), False, "fixed"),
        ("exponential", dict(c=10.0, gamma=0.999), False, "too-fast"),
        ("polynomial", dict(c=1.0, alpha=0.1), False, "too-fast"),
        ("sqrt", dict(c=100.0), False, "too-fast"),
        ("linear", dict(c=10.0, t_end=1e9), False, "finite-horizon"),
    ],
)
def test_converges(form, params, expected, regime):
    """The HKS verdict and regime of each form against H* = 1.53125 (slow enough, a log constant below H*, boundary,
    fixed, faster than logarithmic, finite horizon), always with a reason."""
    v = make_schedule(form, **params).converges(H)
    assert v.converges is expected and v.regime == regime and v.reason


def test_log_constant_below_critical_height_is_not_called_too_fast():
    """A log schedule T = c/log t with c < H* is no faster than logarithmic: its regime is "log-below-critical"
    (trapped with positive probability, docs/theorems.md A4), in words "c_T below H* (no convergence guarantee)",
    and only forms faster than any log schedule are "too-fast"; every regime has its own words."""
    below = make_schedule("temperature", c=1.0).converges(H)
    assert below.regime == "log-below-critical" and below.converges is False
    assert below.regime_text == "logarithmic, c_T below H* (no convergence guarantee)"
    assert "too fast" not in below.reason and "faster" not in below.regime_text
    # the same c_T just above H* converges: the regime turns on c_T vs H*, not on the form
    assert make_schedule("temperature", c=H * (1 + 1e-9)).converges(H).regime == "slow-enough"
    fast = make_schedule("exponential", c=10.0, gamma=0.999).converges(H)
    assert fast.regime == "too-fast" and fast.regime_text == "faster than logarithmic (can stay trapped)"
    cases = [("fixed", dict(c=0.1), H), ("temperature", dict(c=2.0), H), ("temperature", dict(c=H), H),
             ("temperature", dict(c=1.0), H), ("sqrt", dict(c=1.0), H), ("linear", dict(c=1.0, t_end=10.0), H),
             ("sqrt", dict(c=1.0), 0.0)]
    texts = {(v := make_schedule(f, **p).converges(h)).regime: v.regime_text for f, p, h in cases}
    assert len(texts) == 7 and len(set(texts.values())) == 7
    assert all(text != regime for regime, text in texts.items())


def test_verdict_words_follow_the_verdict_and_are_never_python_literals():
    """``outcome_text`` and ``summary`` (what the command line prints) say the verdict in words that agree with
    ``converges``: "converges in probability" exactly when it is True, "borderline (c_T = H*)" at equality (docs/
    theorems.md A4 decides c > H* and c < H* only), no True/False/None anywhere, one summary per regime."""
    cases = [("fixed", dict(c=0.1), H), ("temperature", dict(c=2.0), H), ("temperature", dict(c=H), H),
             ("temperature", dict(c=1.0), H), ("sqrt", dict(c=1.0), H), ("linear", dict(c=1.0, t_end=10.0), H),
             ("sqrt", dict(c=1.0), 0.0)]
    verdicts = [make_schedule(f, **p).converges(h) for f, p, h in cases]
    for v in verdicts:
        assert (v.outcome_text == "converges in probability") is (v.converges is True)
        assert v.summary.startswith(v.outcome_text.split(" (")[0])
        assert not any(word in v.summary + v.outcome_text for word in ("True", "False", "None"))
    assert len({v.summary for v in verdicts}) == 7
    below = make_schedule("temperature", c=1.0, t0=2.0).converges(H)
    assert below.summary == "no convergence guarantee — logarithmic, c_T below H*"
    equal = make_schedule("temperature", c=H, t0=2.0).converges(H)
    assert equal.converges is None and equal.outcome_text == "borderline (c_T = H*)"
    assert equal.summary == "borderline (c_T = H*): the theorem decides neither way"


def test_converges_no_barrier_and_fixed_always_false():
    """Without a barrier a log schedule converges and an exponential one is undecided, a fixed temperature
    never converges, and a negative critical height is refused."""
    assert make_schedule("exponential", c=1.0, gamma=0.5).converges(0.0).converges is None
    assert make_schedule("temperature", c=0.01).converges(0.0).converges is True
    assert make_schedule("fixed", c=1e-6).converges(0.0).converges is False
    with pytest.raises(ValueError, match="critical_height"):
        make_schedule("fixed", c=1.0).converges(-1.0)


@pytest.mark.parametrize("form", FORMS)
def test_jax_matches_numpy_under_jit(form):
    """Each form's JAX temperature under jit equals numpy's, beta·T = 1, schedules hash by value and their
    parameters are immutable."""
    params = {"linear": dict(c=2.0, t_end=1e4), "exponential": dict(c=2.0, gamma=0.9),
              "polynomial": dict(c=2.0, alpha=0.7)}.get(form, dict(c=2.0))
    s = make_schedule(form, **params)
    t = np.array([0.5, 3.0, 100.0])
    got = jax.jit(lambda x: s.temperature(x, xp=jnp))(jnp.asarray(t))
    np.testing.assert_allclose(np.asarray(got), s.temperature(t), rtol=1e-13)
    np.testing.assert_allclose(s.beta(t) * s.temperature(t), 1.0, rtol=1e-13)
    assert hash(s) == hash(make_schedule(form, **params))
    with pytest.raises(TypeError):
        s.params["c"] = 3.0


def test_describe_names_constants():
    """describe() writes the schedule with its constants, and the log forms are among the forms."""
    assert "0.5 · log(t + 1)" in make_schedule("author", c=0.5).describe()
    assert set(LOG_FORMS) <= set(FORMS)


def test_v0_beta_scaled_claim_is_proved():
    """docs/theorems.md A7: beta-scaled drift makes a log schedule act as log^2 (super-logarithmic)."""
    import contrastive_bounds.theory._registry as registry

    c = registry.get_claim("annealing.v0_beta_scaled_is_superlogarithmic")
    v = c.run(False)
    assert v.status == "proved" and c.agrees(v)
    assert "beta^2" in v.evidence
