"""Tests of the Paper A checks (properties/checks/annealing_*.py) and numerics/langevin/experiments.py.

Two kinds: (1) each check runs at a small size and returns the expected verdict; (2) injected
faults are caught: a simulator whose noise is scaled wrong (case C11: sqrt(2T)·h instead of
sqrt(2Th), i.e. noise_factor = sqrt(h); or a too-hot factor), the seed note's inverted schedule
condition, the seed note's finite-time exponent, a landscape with a barrier passed as the author's
toy, and isotropic noise passed as the anisotropic variant. Every stochastic verdict uses 99.9 %
intervals (false alarm 1e-3 per check); seeds are fixed, so each test is deterministic.
"""

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.langevin.experiments import (
    circle_trap,
    kramers_trap_band,
    misscaled_temperature,
    start_positions,
)
from contrastive_bounds.numerics.landscapes.registry import get_landscape
from contrastive_bounds.properties.checks import annealing as ca
from contrastive_bounds.properties.checks.registry import registered_checks
from contrastive_bounds.theory.annealing import make_schedule

SMALL_A4 = {"chains": 512, "step_size": 0.02, "rule": "hks", "epsilon": 0.1, "noise_factor": 1.0}
C11 = math.sqrt(0.02)  # noise sqrt(2T)·h = sqrt(h) × the right sqrt(2Th) at h = 0.02


# ------------------------------------------------------------------------------------ experiments
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
    assert band.step_factor == pytest.approx(1.1)
    assert band.lo == pytest.approx(math.exp(-k * tf * 1.1), rel=1e-8)
    assert band.hi == pytest.approx(math.exp(-k * tf / (1.1 * band.model_factor)), rel=1e-8)
    assert 1.0 < band.model_factor < 1.3  # exact/Kramers at T = 0.4 (A5: 1.12 at 0.3, 1.23 at 0.5)


def test_misscaled_temperature():
    s = make_schedule("temperature", c=2.0, t0=2.0)
    f = misscaled_temperature(s, 3.0)
    assert float(f(5.0, np)) == pytest.approx(9.0 * 2.0 / math.log(7.0))
    assert float(misscaled_temperature(0.5, 0.1)(1.0, np)) == pytest.approx(0.005)
    with pytest.raises(ValueError, match="noise_factor"):
        misscaled_temperature(s, -1.0)


def test_all_paper_a_checks_registered():
    ids = {k for k, v in registered_checks().items() if v.paper == "A"}
    assert {"A1.vmf", "A3.critical_height", "A4.convergence", "A4.trapping", "A4.fast_schedules", "A5.kramers",
            "A6.finite_time", "A8.1_inverted_condition", "A8.2_finite_time_exponent", "A8.3_barrier_table",
            "A8.4_author_toy", "A8.5_anisotropic", "A.claims"} <= ids


# ------------------------------------------------------------------------------------ deterministic checks
def test_a3_and_claims_hold():
    assert ca.critical_height({"resolution": 1024}, 0).verdict == "holds"
    assert ca.a_claims({"certify": True}, 0).verdict == "holds"
    out = ca.a82_finite_time({"certify": True}, 0)
    assert out.verdict == "holds" and "refuted" in out.summary


# ------------------------------------------------------------------------------------ A1
VMF = {"kappa": 1.0, "temperature": 0.5, "chains": 256, "step_size": 0.04, "t_burn": 4.0, "t_end": 16.0}


def test_a1_vmf_holds_and_catches_wrong_noise():
    assert ca.vmf({**VMF, "noise_factor": 1.0}, 0).verdict == "holds"
    # C11 noise sqrt(2T)·h: T_eff = T·h, E[z3] -> ~0.98 instead of 0.537
    assert ca.vmf({**VMF, "noise_factor": math.sqrt(0.04)}, 0).verdict == "violated"
    # noise 1.5x too large: T_eff = 2.25 T, E[z3] = 0.29
    assert ca.vmf({**VMF, "noise_factor": 1.5}, 0).verdict == "violated"


# ------------------------------------------------------------------------------------ A4
def test_a4_trapping_holds_and_catches_c11_noise():
    p = {**SMALL_A4, "c": 1.0, "t0": 10.0, "t_end": 100.0}
    out = ca.a4_trapping(p, 0)
    assert out.verdict == "holds", out.summary
    lo, hi = out.interval
    assert lo > 0.0
    bad = ca.a4_trapping({**p, "noise_factor": C11}, 0)  # a cold chain: trapped fraction 1, Kramers ~0.6
    assert bad.verdict == "violated" and bad.p_value < 1e-6


def test_a4_inverted_condition_is_caught():
    """With the seed note's rule, c = 0.75 < H* is asserted to converge; the simulation shows trapping."""
    p = {**SMALL_A4, "c": 0.75, "t0": 2.0, "t_end": 100.0}
    assert ca.a4_convergence({**p, "rule": "seed-inverted"}, 0).verdict == "violated"
    assert ca.a4_convergence({**p, "rule": "hks"}, 0).verdict == "holds"  # HKS: asserted trapping, confirmed


def test_a4_convergence_holds():
    out = ca.a4_convergence({**SMALL_A4, "c": 2.0, "t0": 2.0, "t_end": 200.0}, 0)
    assert out.verdict == "holds", out.summary
    assert out.details["success"]["fraction"] > 0.5


def test_a4_fast_schedules_hold_and_catch_hot_noise():
    p = {"chains": 512, "step_size": 0.02, "t_end": 40.0}
    assert ca.a4_fast({**p, "noise_factor": 1.0}, 0).verdict == "holds"
    assert ca.a4_fast({**p, "noise_factor": 2.0}, 0).verdict == "violated"


# ------------------------------------------------------------------------------------ A5 / A6
A5 = {"temperature": 0.6, "chains": 512, "step_size": 0.01, "t_end": 80.0, "epsilon": 0.1,
      "theory_temperatures": [0.5, 0.3, 0.2]}


def test_a5_holds_and_catches_c11_noise():
    out = ca.a5_kramers({**A5, "noise_factor": 1.0}, 0)
    assert out.verdict == "holds", out.summary
    assert out.details["monotone_to_1"]
    assert ca.a5_kramers({**A5, "noise_factor": math.sqrt(0.01)}, 0).verdict == "violated"


def test_a6_delta_over_gamma_holds_and_seed_exponent_is_caught():
    p = {**SMALL_A4, "c": 2.0, "t0": 2.0, "t_end": 200.0, "t_min": 20.0, "delta": 1.2, "log_power": 0.0,
         "factor": 1.25, "bootstrap": 200}
    assert ca.a6_finite_time({**p, "exponent": "delta/Gamma"}, 0).verdict == "holds"
    bad = ca.a6_finite_time({**p, "exponent": "seed"}, 0)  # H*/delta - 1 = 0.276 vs the measured ~0.55
    assert bad.verdict == "violated"


# ------------------------------------------------------------------------------------ A8
def test_a81_counterexample_and_hot_noise():
    p = {"chains": 512, "step_size": 0.02, "t_end": 20.0, "epsilon": 0.1}
    out = ca.a81_inverted({**p, "noise_factor": 1.0}, 0)
    assert out.verdict == "holds" and out.details["premise_holds"] and out.interval[0] > 0.9
    assert ca.a81_inverted({**p, "noise_factor": 3.0}, 0).verdict == "violated"


def test_a83_table_small():
    out = ca.a83_table({"chains": 192, "step_size": 0.01, "t_end": 30.0, "T0": 1.0, "heights": [1.0, 5.0, 10.0]}, 0)
    assert out.verdict == "holds", out.summary
    rows = out.details["rows"]
    assert [r["best_fixed_T_model"] for r in rows] == sorted(r["best_fixed_T_model"] for r in rows)
    assert rows[-1]["linear_success"] < 0.05  # H* = 10: the note's 18 % is not reproduced


def test_a84_toy_barrier_free_and_barrier_is_caught():
    p = {"starts": 1024, "steps": 1500, "step_size": 0.05, "tolerance": 1e-3}
    assert ca.a84_toy({**p, "landscape": "infonce-toy"}, 0).verdict == "holds"
    assert ca.a84_toy({**p, "landscape": "double-well"}, 0).verdict == "violated"


def test_a85_anisotropic_hotter_and_isotropic_is_caught():
    p = {"kappa": 1.0, "temperature": 0.5, "chains": 256, "step_size": 0.02, "t_burn": 4.0, "t_end": 16.0}
    out = ca.a85_anisotropic({**p, "anisotropy": [1.0, 2.0, 3.0]}, 0)
    assert out.verdict == "holds", out.summary
    assert out.details["effective_temperature"] > 0.5
    assert ca.a85_anisotropic({**p, "anisotropy": [1.0, 1.0, 1.0]}, 0).verdict == "violated"


def test_kramers_band_below_the_quadrature_range_uses_the_smallest_supported_temperature():
    """New-user report (round 3): `anneal barrier-H --param H=1e5` spent minutes in a 10^5-panel mpmath
    quadrature for the band's model factor. Below the quadrature's smallest temperature the factor is
    now taken there (hotter, so at least as wide) and the call is quick; the factor is ~1 + O(T/ΔV)."""
    import time

    from contrastive_bounds.numerics.landscapes.escape import circle_escape_times, min_escape_temperature
    from contrastive_bounds.theory.kramers import MAX_PANELS

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
