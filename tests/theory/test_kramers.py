"""Kramers law and exact mean first-passage times on S¹ (docs/theorems.md A5), trap probabilities, claims."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from contrastive_bounds.numerics.landscapes._escape import circle_escape_times
from contrastive_bounds.numerics.landscapes._registry import get_landscape
import contrastive_bounds.theory._annealing as annealing
from contrastive_bounds.theory._annealing import catoni_difficulty, finite_time_tail_log
from contrastive_bounds.theory._schedules import make_schedule
from contrastive_bounds.theory._kramers import (
    arrhenius_log_time,
    eyring_kramers_log_time,
    exact_mfpt_interval,
    expected_escapes,
    kramers_circle_log_time,
    log_probability_never_escape,
)
from contrastive_bounds.theory._registry import get_claim

SADDLE = math.acos(-1 / 8)


def _dw(y):
    return -0.5 * mp.cos(y) - mp.cos(2 * y)


def _fd_mfpt(temperature: float, n: int) -> mp.mpf:
    """Independent solve of T u'' − V' u' = −1, u(0) = u(2π) = 0, at θ = π for the double well:
    conservative second-order finite differences (p u')' = −p/T, p = e^{−(V−V(π))/T}, Thomas algorithm
    in mpmath (30 digits, so the ill-conditioning of the e^{±ΔV/T} coefficients costs nothing)."""
    with mp.workdps(30):
        h = 2 * mp.pi / n
        t = mp.mpf(temperature)
        v0 = _dw(mp.pi)
        ph = [mp.exp(-(_dw((i + mp.mpf(0.5)) * h) - v0) / t) for i in range(n)]
        rhs = [-mp.exp(-(_dw(i * h) - v0) / t) * h * h / t for i in range(1, n)]
        m = n - 1
        diag = [-(ph[i] + ph[i + 1]) for i in range(m)]
        cp = [mp.mpf(0)] * m
        dp = [mp.mpf(0)] * m
        cp[0] = ph[1] / diag[0]
        dp[0] = rhs[0] / diag[0]
        for i in range(1, m):
            den = diag[i] - ph[i] * cp[i - 1]
            cp[i] = ph[i + 1] / den if i < m - 1 else 0
            dp[i] = (rhs[i] - ph[i] * dp[i - 1]) / den
        u = [mp.mpf(0)] * m
        u[-1] = dp[-1]
        for i in range(m - 2, -1, -1):
            u[i] = dp[i] - cp[i] * u[i + 1]
        return u[n // 2 - 1]


def test_mfpt_quadrature_matches_ode_solution_to_1e8():
    """Issue 3: exact MFPT (quadrature) vs an independent ODE solve (Richardson-extrapolated FD), T = 0.1."""
    t = 0.1
    quad = exact_mfpt_interval(_dw, math.pi, 0.0, 2 * math.pi, t, slope_bound=2.5, breakpoints=[SADDLE, 2 * math.pi - SADDLE])
    u1, u2 = _fd_mfpt(t, 1000), _fd_mfpt(t, 2000)
    e1, e2 = u1 / quad.time - 1, u2 / quad.time - 1
    assert 3.5 < e1 / e2 < 4.5  # the FD solve converges at second order towards the quadrature value
    ode = (4 * u2 - u1) / 3
    assert abs(ode / quad.time - 1) < 1e-10


def test_mfpt_flat_potential_closed_form():
    """V ≡ 0: u(x0) = (x0 − a)(b − x0)/(2T) exactly."""
    r = exact_mfpt_interval(lambda y: mp.mpf(0), 0.7, 0.0, 2.0, 0.3, slope_bound=1.0)
    assert float(r.time) == pytest.approx(0.7 * 1.3 / 0.6, rel=1e-25 ** 0.5)
    assert r.log_time == pytest.approx(math.log(0.7 * 1.3 / 0.6), rel=1e-14)


def test_mfpt_is_precision_stable():
    """The exact MFPT's log time does not move (< 1e-13) when the working precision and quadrature nodes are
    raised."""
    kw = dict(slope_bound=2.5, breakpoints=[SADDLE, 2 * math.pi - SADDLE])
    a = exact_mfpt_interval(_dw, math.pi, 0.0, 2 * math.pi, 0.05, **kw)
    b = exact_mfpt_interval(_dw, math.pi, 0.0, 2 * math.pi, 0.05, dps=45, nodes=40, **kw)
    assert abs(a.log_time - b.log_time) < 1e-13


def test_mfpt_log_space_at_tiny_temperature():
    """T = 0.002: the time is e^{765}, beyond float64; returned in log space, never inf/NaN.

    Absorbing points just past the saddles (not at the global minimum) keep the quadrature within
    MAX_PANELS at this temperature; the exit time is set by the barrier either way."""
    r = exact_mfpt_interval(_dw, math.pi, 1.5, 2 * math.pi - 1.5, 0.002, slope_bound=2.5,
                            breakpoints=[SADDLE, 2 * math.pi - SADDLE], nodes=16)
    assert math.isfinite(r.log_time) and r.log_time > 709 and math.isinf(r.time_float)
    # against the two-saddle Kramers time (A5): they differ by O(T) in log space (measured 5.8e-4)
    kr = kramers_circle_log_time([1.53125, 1.53125], 3.5, [-3.9375, -3.9375], 0.002)
    assert abs(r.log_time - kr) < 5e-3


def test_kramers_ratio_tends_to_one_at_rate_T():
    """A5: exact/Kramers = 1 + O(T): (ratio − 1)/T stays bounded and converges as T halves."""
    land = get_landscape("double-well")
    temps = [0.1, 0.05, 0.025]
    slopes = []
    for t in temps:
        (rec,) = circle_escape_times(land, t)
        assert rec.barrier == 1.53125
        slopes.append((rec.ratio - 1) / t)
    assert all(s > 0 for s in slopes)
    assert abs(slopes[1] / slopes[0] - 1) < 0.1 and abs(slopes[2] / slopes[1] - 1) < 0.05
    (rec,) = circle_escape_times(land, 0.1)
    assert abs(rec.ratio - 1) < 0.05  # "within a few percent" at T = 0.1


def test_kramers_closed_form_and_general_form():
    """Kramers' log time on S¹ (two equal saddles: rates add) and the general Eyring-Kramers form equal their
    closed forms; malformed Hessians and temperatures are refused."""
    vx = 0.5 * math.cos(math.pi) + 4 * math.cos(2 * math.pi)
    vs = 0.5 * math.cos(SADDLE) + 4 * math.cos(2 * SADDLE)
    t = 0.2
    expect = math.log(2 * math.pi / math.sqrt(abs(vs) * vx) / 2) + 1.53125 / t  # two equal saddles: rates add
    assert kramers_circle_log_time([1.53125, 1.53125], vx, [vs, vs], t) == pytest.approx(expect, rel=1e-14)
    # general Hessian form in 2-D with a product structure reduces to the 1-D one times sqrt(ratio)
    g = eyring_kramers_log_time([1.0], [2.0, 3.0], [[-1.5, 3.0]], 0.5)
    assert g == pytest.approx(math.log(2 * math.pi / 1.5 * math.sqrt(1.5 * 3.0 / (2.0 * 3.0))) + 2.0, rel=1e-14)
    assert arrhenius_log_time(1.0, 0.25) == 4.0
    with pytest.raises(ValueError, match="exactly one negative"):
        eyring_kramers_log_time([1.0], [1.0, 1.0], [[-1.0, -1.0]], 1.0)
    with pytest.raises(ValueError, match="minimum_hessian_eigs"):
        eyring_kramers_log_time([1.0], [0.0], [[-1.0]], 1.0)
    with pytest.raises(ValueError, match="temperature"):
        kramers_circle_log_time([1.0], 1.0, [-1.0], 0.0)


def test_expected_escapes_log_schedule_closed_form():
    """A5: under T = c/log(t + t0) the rate is k (t + t0)^{−ΔV/c}; N grows like t^{1 − ΔV/c}."""
    c, t0, dv, lk = 2.0, 2.0, 1.0, math.log(0.3)
    s = make_schedule("temperature", c=c, t0=t0)
    p = dv / c
    for te in (10.0, 1e4):
        exact = 0.3 * ((te + t0) ** (1 - p) - t0 ** (1 - p)) / (1 - p)
        assert expected_escapes(s, [dv], [lk], 0.0, te) == pytest.approx(math.log(exact), rel=1e-10)
    assert math.isinf(expected_escapes(s, [dv], [lk], 0.0, math.inf))  # c > ΔV: escapes for sure
    fast = make_schedule("temperature", c=0.5, t0=t0)  # c < ΔV: finite intensity, trapped with P > 0
    n_inf = expected_escapes(fast, [dv], [lk], 0.0, math.inf)
    exact = 0.3 * t0 ** (1 - 2.0) / (2.0 - 1)
    assert n_inf == pytest.approx(math.log(exact), rel=1e-8)
    assert log_probability_never_escape(fast, [dv], [lk], 0.0, math.inf) == pytest.approx(-exact, rel=1e-8)
    with pytest.raises(ValueError, match="t0"):
        expected_escapes(make_schedule("author", c=1.0), [dv], [lk], 0.0, 10.0)  # C12 inside


def test_tail_bound_and_catoni():
    """The finite-time tail bound and Catoni's difficulty equal their closed forms, and bad arguments are
    refused naming them."""
    v = finite_time_tail_log(1e4, delta=0.5, gamma=2.0, critical_height=1.53125, dim_manifold=1,
                             dim_minimisers=0, log_constant=0.0)
    assert v == pytest.approx(0.5 * math.log(math.log(1e4)) - 0.25 * math.log1p(1e4), rel=1e-14)
    with pytest.raises(ValueError, match="gamma"):
        finite_time_tail_log(10.0, delta=0.5, gamma=1.0, critical_height=1.53125, dim_manifold=1,
                             dim_minimisers=0, log_constant=0.0)
    assert catoni_difficulty([-0.5], [1.53125], -1.5) == 1.53125
    assert catoni_difficulty([], [], 0.0) == 0.0
    with pytest.raises(ValueError, match="values"):
        catoni_difficulty([-2.0], [1.0], -1.5)


@pytest.mark.parametrize(
    "name,expected,status",
    [
        ("annealing.hks_condition", "holds", "proved"),
        ("annealing.seed_inverted_condition", "refuted", "refuted"),
        ("annealing.seed_finite_time_exponent", "refuted", "refuted"),
    ],
)
def test_claims(name, expected, status):
    """A8.1/A8.2 come out refuted with counterexamples; the HKS reduction is proved."""
    claim = get_claim(name)
    assert claim.expected == expected
    verdict = claim.run()
    assert verdict.status == status and claim.agrees(verdict)
    if status == "refuted":
        assert verdict.counterexample and verdict.counterexample["critical_height"] == 1.53125
    assert annealing.seed_finite_time_exponent(1.53125, 0.1) == pytest.approx(14.3125)


# ------------------------------------------------------------- temperature range, regime
def test_too_small_temperature_names_the_smallest_supported():
    """Below the exact quadrature's smallest temperature (a closed form of its panel limit),
    circle_escape_times and exact_mfpt_interval refuse the temperature naming the supported range, instead
    of running for minutes."""
    from contrastive_bounds.theory._kramers import MAX_PANELS, min_mfpt_temperature

    land = get_landscape("double-well")
    # the double well's only trap is θ = π, cut at the global minimum on both sides: [0, 2π]
    t_min = min_mfpt_temperature(0.0, 2 * math.pi, land.fourier.derivative_bound(1))
    assert t_min == pytest.approx(2 * math.pi * 2.5 / (6 * MAX_PANELS), rel=1e-12)
    with pytest.raises(ValueError, match=r"^temperature=1e-06 is below the smallest .* 'double-well': temperature must be in \[0.00262, inf\)"):
        circle_escape_times(land, 1e-6)
    with pytest.raises(ValueError, match=r"temperature must be in \[0.00262, inf\)"):
        exact_mfpt_interval(lambda th: land.fourier.value_mp(th), math.pi, 0.0, 2 * math.pi, 1e-6, slope_bound=2.5)


def test_kramers_regime_thresholds():
    """kramers_regime classifies ΔV/T into asymptotic, marginal and outside, and refuses T = 0."""
    from contrastive_bounds.theory._kramers import kramers_regime

    assert kramers_regime(1.53125, 0.1) == "asymptotic"
    assert kramers_regime(1.0, 0.1) == "asymptotic"  # ΔV/T = 10 is in
    assert kramers_regime(1.0, 0.5) == "marginal"
    assert kramers_regime(1.0, 1.0) == "marginal"
    assert kramers_regime(1.53125, 1e6) == "outside"
    with pytest.raises(ValueError, match="temperature=0"):
        kramers_regime(1.0, 0.0)
