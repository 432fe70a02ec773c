"""numerics.langevin.experiments, the reusable annealing experiments on S¹ landscapes: the trap and its
Kramers prefactors against closed forms (C13), start positions, the Kramers trap band and its stated
factors, and the mis-scaled temperature used for fault injection."""

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin._experiments import (
    circle_trap,
    kramers_trap_band,
    misscaled_temperature,
    start_positions,
)
from contrastive_bounds.theory._schedules import make_schedule


def test_double_well_trap_closed_form():
    """C13: trap at pi, V = -0.5, two saddles cos(theta) = -1/8 (V = 33/32), prefactor sqrt(|V''(z)| V''(x))/(2 pi)."""
    trap = circle_trap(get_landscape("double-well"))
    assert trap.theta == pytest.approx(math.pi, abs=1e-12)
    assert trap.value == pytest.approx(-0.5, abs=1e-14)
    assert trap.barriers == pytest.approx((1.53125, 1.53125), abs=1e-12)
    # V'' = 0.5 cos + 4 cos 2: at pi 3.5; at cos = -1/8: -1/16 + 4(2/64 - 1) = -3.9375
    expected = 0.5 * math.log(3.9375 * 3.5) - math.log(2 * math.pi)
    assert trap.log_prefactors == pytest.approx((expected, expected), abs=1e-10)
    assert circle_trap(get_landscape("vmf")) is None


def test_start_positions_and_errors():
    """Trap starts sit at the trap, uniform starts on the sphere, and an unknown mode or a landscape without a
    trap is refused naming it."""
    land = get_landscape("double-well")
    z = start_positions(land, "trap", 4, 0)
    assert z.shape == (4, 1, 2) and z.dtype == np.float64
    np.testing.assert_allclose(z[:, 0, 0], -1.0, atol=1e-15)
    u = start_positions(land, "uniform", 8, 0)
    np.testing.assert_allclose(np.linalg.norm(u, axis=-1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="mode"):
        start_positions(land, "nowhere", 4, 0)
    with pytest.raises(ValueError, match="trap"):
        start_positions(get_landscape("vmf"), "trap", 4, 0)


def test_kramers_band_contains_prediction_and_matches_closed_form():
    """Fixed T: N = t_f·Σk exactly, so predicted = exp(-t_f Σk); band ends use the stated factors."""
    land = get_landscape("double-well")
    trap = circle_trap(land)
    temp, tf, h = 0.4, 30.0, 0.02
    band = kramers_trap_band(land, make_schedule("fixed", c=temp), trap, 0.0, tf, h)
    k = sum(math.exp(lp - b / temp) for b, lp in zip(trap.barriers, trap.log_prefactors))
    assert band.predicted == pytest.approx(math.exp(-k * tf), rel=1e-8)
    f_h = 1 + h * 4.5  # 1 + h·sup|V''|: sup|V''| <= 0.5 + 4 = 4.5 on the double well
    assert band.step_factor == pytest.approx(f_h, rel=1e-12)
    assert band.lo == pytest.approx(math.exp(-k * tf * f_h), rel=1e-8)
    assert band.hi == pytest.approx(math.exp(-k * tf / (f_h * band.model_factor)), rel=1e-8)
    assert 1.0 < band.model_factor < 1.3  # exact/Kramers at T = 0.4 (A5: 1.12 at 0.3, 1.23 at 0.5)


def test_misscaled_temperature_scales_by_the_square_of_the_noise_factor():
    """misscaled_temperature multiplies a schedule or a fixed temperature by noise_factor**2 and refuses a
    negative factor."""
    s = make_schedule("temperature", c=2.0, t0=2.0)
    f = misscaled_temperature(s, 3.0)
    assert float(f(5.0, np)) == pytest.approx(9.0 * 2.0 / math.log(7.0))
    assert float(misscaled_temperature(0.5, 0.1)(1.0, np)) == pytest.approx(0.005)
    with pytest.raises(ValueError, match="noise_factor"):
        misscaled_temperature(s, -1.0)


@pytest.mark.slow
def test_kramers_band_below_the_quadrature_range_uses_the_smallest_supported_temperature():
    """Below the exact quadrature's smallest temperature (barrier-H, H = 1e5, T = 2) the band's model factor
    is taken at that temperature (hotter, so the band only widens) and the call is quick instead of a
    minutes-long 10^5-panel mpmath quadrature; the factor is within 1e-2 of 1 there."""
    import time

    from contrastive_bounds.numerics.landscapes._escape import circle_escape_times, min_escape_temperature
    from contrastive_bounds.theory._kramers import MAX_PANELS

    land = get_landscape("barrier-H", H=1e5)
    trap = circle_trap(land)
    t_min = min_escape_temperature(land)
    # closed form: the trap θ = π is cut at the global minimum on both sides (width 2π), sup|V'| <= Σ k|c_k|
    assert t_min == pytest.approx(2 * math.pi * land.fourier.derivative_bound(1) / (6 * MAX_PANELS), rel=1e-12)
    temp = 2.0  # ΔV/T = 5e4: far below the quadrature's range (t_min ≈ 171)
    assert temp < t_min
    start = time.perf_counter()
    band = kramers_trap_band(land, make_schedule("fixed", c=temp), trap, 0.0, 10.0, 0.01)
    assert time.perf_counter() - start < 60.0  # generous: a guard against the 10^5-panel quadrature
    ratio = circle_escape_times(land, t_min)[0].ratio
    assert band.model_factor == pytest.approx(max(ratio, 1.0 / ratio), rel=1e-12)
    assert 1.0 <= band.model_factor < 1.01  # ΔV/T_min ≈ 600: exact/Kramers within ~1e-3 of 1
    assert band.predicted == 1.0 and band.lo == 1.0 and band.hi == 1.0  # no escape over ΔV/T = 5e4
    with pytest.raises(ValueError, match="not an S¹ Fourier landscape"):
        min_escape_temperature(get_landscape("vmf"))

