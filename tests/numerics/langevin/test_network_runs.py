"""Runs on network potentials (numerics.langevin.network_runs): the radius-R clock, censored means, the
Arrhenius exponent and its bootstrap interval.

The radius-R clock is checked against an independent numpy simulation of projected Euler-Maruyama on
the circle of radius R in ambient coordinates (x <- R·(x + w)/|x + w|, w the tangent part of
-h∇W + sqrt(2Th)ξ) and against R² times the exact mean first-passage time of the unit circle (mpmath
quadrature), for a potential that depends on the direction only (W(x) = V(x/|x|), V the double well).
"""

import math

import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
from scipy.optimize import brentq

from contrastive_bounds.numerics.landscapes.network import user_spec
from contrastive_bounds.numerics.langevin.network_runs import (
    EscapeSample,
    arrhenius_exponent,
    censored_mean,
    escape_sample,
    radius_clock_temperature,
)
from contrastive_bounds.theory._schedules import make_schedule
from contrastive_bounds.theory._kramers import exact_mfpt_interval

R, T, H, CHAINS, LEVEL = 1.5, 0.6, 0.02, 1500, -1.0


def _dw(z):
    u = z / jnp.linalg.norm(z, axis=-1, keepdims=True)
    c, s = u[0, 0], u[0, 1]
    return -0.5 * c - (c * c - s * s)


def _numpy_radius_circle(seed, t_end):
    """Projected Euler-Maruyama on the circle of radius R, ambient coordinates; first time W < LEVEL."""
    rng = np.random.default_rng(seed)
    x = np.tile([-R, 0.0], (CHAINS, 1))
    hit = np.full(CHAINS, np.inf)
    n = int(round(t_end / H))
    for k in range(n):
        u = x / R
        c, s = u[:, 0], u[:, 1]
        # grad_x W for W(x) = -0.5 c - (c² - s²), c = x0/|x|, s = x1/|x|: tangent part = (dW/dθ)/R · t
        dtheta = 0.5 * s + 2 * np.sin(2 * np.arctan2(s, c))
        t_vec = np.stack([-s, c], axis=1)
        noise = rng.normal(size=CHAINS)
        a = -H * dtheta / R + math.sqrt(2 * T * H) * noise
        x = x + a[:, None] * t_vec
        x = R * x / np.linalg.norm(x, axis=1, keepdims=True)
        u = x / R
        w = -0.5 * u[:, 0] - (u[:, 0] ** 2 - u[:, 1] ** 2)
        new = (w < LEVEL) & np.isinf(hit)
        hit[new] = (k + 1) * H
    return hit


def _exact_unit():
    a = brentq(lambda th: -0.5 * math.cos(th) - math.cos(2 * th) - LEVEL, 0.0, 1.5)
    return exact_mfpt_interval(lambda th: -0.5 * mpmath.cos(th) - mpmath.cos(2 * th), math.pi, a, 2 * math.pi - a, T,
                               slope_bound=2.5, breakpoints=[math.acos(-1 / 8), math.pi, 2 * math.pi - math.acos(-1 / 8)]
                               ).time_float


@pytest.mark.slow
def test_radius_clock_equals_a_direct_simulation_on_the_radius_r_circle():
    """Escape times on the radius-1.5 circle (radius clock): the network runner, an independent numpy
    simulation and R² x the exact unit-circle time agree (means within 4 standard errors; the exact one
    within that plus the O(h/R²) Euler bias, 5·h/R² relative)."""
    exact = R * R * _exact_unit()
    t_end = 6 * exact
    spec = user_spec(_dw, 1, 2, name="dw-direction", radius=R)
    ours = escape_sample(spec, np.tile([[[-1.0, 0.0]]], (CHAINS, 1, 1)), T, t_end=t_end, step_size=H, seed=4, level=LEVEL)
    direct = _numpy_radius_circle(5, t_end)
    m1, m2 = ours.mean(), censored_mean(direct, t_end)
    se = math.hypot(m1 / math.sqrt(ours.hits), m2 / math.sqrt(np.isfinite(direct).sum()))
    assert abs(m1 - m2) < 4 * se, (m1, m2, se)
    allow = 4 * m1 / math.sqrt(ours.hits) + 5 * H / R**2 * exact
    assert abs(m1 - exact) < allow, (m1, exact, allow)
    # the unit clock would be R² = 2.25 times shorter: far outside
    assert abs(m1 / R**2 - exact) > 3 * allow


def test_radius_clock_temperature_reads_the_schedule_at_r_squared_times_s():
    """The unit-sphere chain of a radius-R run sees T(R²·s); a fixed T is unchanged."""
    sched = make_schedule("temperature", c=0.3, t0=2.0)
    f = radius_clock_temperature(sched, 2.0)
    for s in (0.0, 0.5, 3.0):
        assert float(f(jnp.asarray(s), jnp)) == pytest.approx(float(sched.temperature(4.0 * s)), rel=1e-14)
    assert radius_clock_temperature(0.25, 3.0) == 0.25
    assert radius_clock_temperature(sched, 1.0) is sched


def test_censored_mean_is_the_exponential_maximum_likelihood():
    """Sum of min(tau, t_end) over the number of escapes; a sample with no escape is refused."""
    t = np.array([1.0, 2.0, np.inf, 0.5])
    assert censored_mean(t, 4.0) == pytest.approx((1 + 2 + 4 + 0.5) / 3)
    rng = np.random.default_rng(0)
    x = rng.exponential(10.0, 20000)
    assert censored_mean(np.where(x <= 15, x, np.inf), 15.0) == pytest.approx(10.0, rel=0.03)
    with pytest.raises(ValueError, match="no chain escaped"):
        censored_mean(np.array([np.inf, np.inf]), 1.0)


def _synthetic(rng, barrier, c, temps, chains=4000):
    out = []
    for temp in temps:
        mean = 0.1 * math.exp(barrier / temp) * (1 + c * temp)
        t_end = 2.5 * mean
        x = rng.exponential(mean, chains)
        out.append(EscapeSample(temp, np.where(x <= t_end, x, np.inf), t_end, 0.01, 0.0))
    return out


def test_arrhenius_corrected_model_recovers_the_barrier_the_linear_fit_misses():
    """Synthetic exponential escapes with tau = 0.1 e^{H/T}(1 + 8T), H = 0.28, H/T in 2.5..5.5: the corrected
    model's 99 % bootstrap interval contains H and its estimate is within 5 %; the linear fit is biased low."""
    rng = np.random.default_rng(2)
    temps = [0.28 / r for r in (2.5, 3.5, 4.5, 5.5)]
    samples = _synthetic(rng, 0.28, 8.0, temps)
    cor = arrhenius_exponent(samples, model="corrected", confidence=0.99, resamples=400, seed=1)
    lin = arrhenius_exponent(samples, model="linear", confidence=0.99, resamples=400, seed=1)
    assert cor.lo <= 0.28 <= cor.hi and abs(cor.barrier - 0.28) < 0.05 * 0.28, cor
    assert lin.hi < 0.28, lin
    assert cor.correction > 0  # the prefactor grows with T here (1 + 8T)
    with pytest.raises(ValueError, match="at least 3"):
        arrhenius_exponent(samples[:2], model="corrected")
    with pytest.raises(ValueError, match="distinct"):
        arrhenius_exponent([samples[0], samples[0]])
