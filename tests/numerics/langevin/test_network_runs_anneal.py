"""Annealing from the minima of a saved network (numerics.langevin.network_anneal, network_runs.schedule_sample).

The landscape is the double well of the circle written as a network potential on S¹, V = -cos(θ)/2 - cos(2θ):
minima θ = 0 (V = -1.5) and θ = π (V = -0.5, the trap), saddles at cos θ = -1/8 (V = 1.03125), so the trap's
barrier is 1.53125 through two saddles, with V''(θ) = cos(θ)/2 + 4 cos(2θ): 3.5 at the trap, -3.9375 at a saddle.
Its S¹ Kramers law (theory.kramers.kramers_circle_log_time) is an independent implementation of the network's
Eyring-Kramers data. Thomson's problem with N = 3 on S² (unique minimum: an equilateral triangle on a great
circle, V = 3/sqrt(3)) checks the identification of final states up to rotations and relabellings.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network, thomson_spec, user_spec
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search
from contrastive_bounds.numerics.landscapes.network_kramers import EscapeSaddle, NetworkTrap, random_rotations
from contrastive_bounds.numerics.langevin._global_set import global_set_margin
from contrastive_bounds.numerics.langevin.network_anneal import (
    UNKNOWN_MINIMUM,
    final_basins,
    minimum_trap,
    network_starts,
    trap_prediction,
    uniform_starts,
)
from contrastive_bounds.numerics.langevin.network_runs import schedule_sample
from contrastive_bounds.theory._schedules import make_schedule
from contrastive_bounds.theory._kramers import kramers_circle_log_time


def _dw(z):
    u = z / jnp.linalg.norm(z, axis=-1, keepdims=True)
    c, s = u[0, 0], u[0, 1]
    return -0.5 * c - (c * c - s * s)


@pytest.fixture(scope="module")
def dw(tmp_path_factory):
    """The double well as a network potential and its saved search (16 starts find both minima)."""
    spec = user_spec(_dw, 1, 2, name="dw-network")
    out = tmp_path_factory.mktemp("dw")
    landscape_network(spec, out=out, starts=16, max_hop_rounds=1, patience=1, draw=False)
    return spec, load_saved_search(out)


def _trap_id(saved):
    return max(saved.minima, key=lambda m: m.energy).id


@pytest.mark.slow
def test_minimum_trap_equals_the_circle_kramers_law(dw):
    """The saved trap θ = π: barrier 1.53125 through two saddles, and log tau at T = 0.2, 0.3 equals the S¹
    Kramers formula with the closed-form curvatures V''(π) = 3.5, V''(s) = -3.9375 (1e-9); the global minimum
    has no trap data; the default δ is half the gap, 0.5."""
    spec, saved = dw
    trap = minimum_trap(saved, spec, _trap_id(saved))
    assert trap.energy == pytest.approx(-0.5, abs=1e-12) and trap.barrier == pytest.approx(1.53125, abs=1e-10)
    assert len(trap.saddles) == 2 and trap.direct_to_global and trap.non_degenerate
    c = -1 / 8  # V''(θ) = c/2 + 4 cos 2θ
    curv_s, curv_x = 0.5 * c + 4 * (2 * c * c - 1), -0.5 + 4.0
    for temp in (0.2, 0.3):
        ref = kramers_circle_log_time([1.53125, 1.53125], curv_x, [curv_s, curv_s], temp)
        assert trap.log_escape_time(temp) == pytest.approx(ref, rel=1e-9)
    glob = min(saved.minima, key=lambda m: m.energy).id
    assert minimum_trap(saved, spec, glob) is None
    assert global_set_margin(saved.analysis().v_min, [m.energy for m in saved.minima]) == pytest.approx(0.5)
    assert global_set_margin(-1.5, [-1.5]) == 0.1


@pytest.mark.slow
def test_trap_prediction_is_exp_of_minus_the_escape_integral_with_the_stated_band(dw):
    """Fixed T: N = t Σ_s k_s e^{-ΔV/T}, predicted exp(-N); band exp(-N F), exp(-N/F) with F = (1 + a T/ΔV) ·
    exp(|h/2 (tr H(x) - tr H(s))|); on the radius-2 sphere N is 4 times smaller and the step h/4. No band when
    ΔV/T is below the floor or for the geodesic integrator; no prediction without a saddle."""
    spec, saved = dw
    trap = minimum_trap(saved, spec, _trap_id(saved))
    temp, t_end, h = 0.3, 50.0, 0.01
    n = t_end / math.exp(trap.log_escape_time(temp))
    p = trap_prediction(trap, make_schedule("fixed", c=temp), t_end=t_end, step_size=h, radius=1.0,
                        error_per_t_over_h=3.0, min_barrier_over_t=2.5)
    f = (1 + 3.0 * temp / 1.53125) * math.exp(abs(0.5 * h * (sum(trap.eigenvalues) - sum(trap.saddles[0].eigenvalues))))
    assert p.predicted == pytest.approx(math.exp(-n), rel=1e-9) and p.factor == pytest.approx(f, rel=1e-12)
    assert (p.lo, p.hi) == (pytest.approx(math.exp(-n * f), rel=1e-9), pytest.approx(math.exp(-n / f), rel=1e-9))
    r2 = trap_prediction(trap, make_schedule("fixed", c=temp), t_end=t_end, step_size=h, radius=2.0,
                         error_per_t_over_h=3.0, min_barrier_over_t=2.5)
    assert r2.log_expected_escapes == pytest.approx(p.log_expected_escapes - math.log(4.0), rel=1e-9)
    assert r2.step_factor == pytest.approx(math.exp(abs(math.log(p.step_factor)) / 4), rel=1e-12)
    hot = trap_prediction(trap, make_schedule("fixed", c=1.0), t_end=t_end, step_size=h, radius=1.0,
                          error_per_t_over_h=3.0, min_barrier_over_t=2.5)
    assert hot.predicted is not None and hot.lo is None and "outside the regime" in hot.reason
    geo = trap_prediction(trap, make_schedule("fixed", c=temp), t_end=t_end, step_size=h, radius=1.0,
                          error_per_t_over_h=3.0, min_barrier_over_t=2.5, integrator="geodesic")
    assert geo.lo is None and "euler" in geo.reason
    bare = NetworkTrap(0, -0.5, np.array([[-1.0, 0.0]]), 1.5, -1.5, np.array([[1.0, 0.0]]), (3.5,), 1, 1.0, (), "no saddle",
                       False, 3.5)
    none = trap_prediction(bare, make_schedule("fixed", c=temp), t_end=1.0, step_size=h, radius=1.0,
                           error_per_t_over_h=3.0, min_barrier_over_t=2.5)
    assert none.predicted is None and "no verified transition state" in none.reason
    degenerate = NetworkTrap(0, -0.5, np.array([[-1.0, 0.0]]), 1.5, -1.5, np.array([[1.0, 0.0]]), (3.5,), 1, 1.0,
                             (EscapeSaddle(0, 1.0, 1.5, 1, -1.5, (-4.0,), 1.0, 1.0, None),), "degenerate", True, 3.5)
    assert "degenerate" in trap_prediction(degenerate, make_schedule("fixed", c=temp), t_end=1.0, step_size=h, radius=1.0,
                                           error_per_t_over_h=3.0, min_barrier_over_t=2.5).reason


@pytest.mark.slow
def test_an_interrupted_and_resumed_run_is_bit_identical_and_belongs_to_its_schedule(dw, tmp_path):
    """schedule_sample stopped half-way with a checkpoint, then resumed, equals the uninterrupted run bit for bit
    (hits, final states, energy trace); the checkpoint is refused for another schedule or integrator (the kernel
    description names them) and for another landscape of the same shape (its fingerprint's probe)."""
    spec, saved = dw
    trap = saved.minimum(_trap_id(saved))
    starts = network_starts(spec, trap.z, 64, 0)
    assert np.array_equal(starts, np.broadcast_to(trap.z, (64, 1, 2)))  # no O(d) symmetry: unrotated copies
    sched = make_schedule("temperature", c=0.8, t0=2.0)
    kw = dict(t_end=4.0, step_size=0.01, seed=3, level=-1.0, record_every=40)
    whole = schedule_sample(spec, starts, sched, **kw)
    ck = tmp_path / "run.npz"
    part = schedule_sample(spec, starts, sched, checkpoint=ck, stop_after_steps=200, **kw)
    assert part.t_end < 4.0 and ck.exists()
    done = schedule_sample(spec, starts, sched, checkpoint=ck, resume=True, **kw)
    for name in ("hit_time", "final_potential", "positions", "energy_trace", "running_min"):
        assert np.array_equal(getattr(done, name), getattr(whole, name)), name
    assert done.reached == whole.reached and done.t_end == whole.t_end == 4.0
    with pytest.raises(ValueError, match="0.9 / log"):
        schedule_sample(spec, starts, make_schedule("temperature", c=0.9, t0=2.0), checkpoint=ck, resume=True, **kw)
    with pytest.raises(ValueError, match="integrator=geodesic"):  # the integrator reaches the kernel
        schedule_sample(spec, starts, sched, checkpoint=ck, resume=True, integrator="geodesic", **kw)
    def doubled(z):
        return 2.0 * _dw(z)

    doubled.__name__ = _dw.__name__  # the same name and shape: only the potential's values differ
    other = user_spec(doubled, 1, 2, name="dw-network")
    with pytest.raises(ValueError, match="probe"):
        schedule_sample(other, starts, sched, checkpoint=ck, resume=True, **kw)


@pytest.mark.slow
def test_final_basins_identify_minima_up_to_rotations_and_relabellings():
    """Thomson N = 3 on S²: rotated and relabelled, slightly perturbed copies of the triangle quench to it
    (label 0, V = sqrt(3)); the same states against a network that lacks the minimum are UNKNOWN_MINIMUM.
    On the double well without symmetry, θ near 0 and near π go to their own minima."""
    spec = thomson_spec(3, 3)
    tri = np.array([[1.0, 0.0, 0.0], [-0.5, math.sqrt(3) / 2, 0.0], [-0.5, -math.sqrt(3) / 2, 0.0]])
    rng = np.random.default_rng(1)
    states = np.einsum("cij,nj->cni", random_rotations(rng, 12, 3), tri)[:, rng.permutation(3)]
    states = states + 0.05 * rng.normal(size=states.shape)
    states /= np.linalg.norm(states, axis=-1, keepdims=True)
    m = NetworkMinimum(0, math.sqrt(3.0), tri, 1, 0.0, [], 3, True)
    labels, energies = final_basins(spec, states, [m], block=5)
    assert labels.tolist() == [0] * 12 and energies == pytest.approx(math.sqrt(3.0), rel=1e-10)
    other = NetworkMinimum(0, 5.0, tri, 1, 0.0, [], 3, True)
    assert final_basins(spec, states, [other])[0].tolist() == [UNKNOWN_MINIMUM] * 12
    with pytest.raises(KeyboardInterrupt):
        final_basins(spec, states, [m], block=5, should_stop=lambda: True)
    dw = user_spec(_dw, 1, 2, name="dw-network")
    ang = np.array([0.3, -0.4, math.pi - 0.5, math.pi + 0.2])
    z = np.stack([np.cos(ang), np.sin(ang)], axis=-1)[:, None, :]
    mins = [NetworkMinimum(7, -1.5, np.array([[1.0, 0.0]]), 1, 0.0, [], 0, True),
            NetworkMinimum(9, -0.5, np.array([[-1.0, 0.0]]), 1, 0.0, [], 0, True)]
    assert final_basins(dw, z, mins)[0].tolist() == [7, 7, 9, 9]
    u = uniform_starts(spec, 50, 2)
    assert u.shape == (50, 3, 3) and np.allclose(np.linalg.norm(u, axis=-1), 1.0)
    assert np.array_equal(u, uniform_starts(spec, 50, 2)) and not np.array_equal(u, uniform_starts(spec, 50, 3))
    rot = network_starts(spec, tri, 8, 0)
    assert np.allclose(np.einsum("cnd,cmd->cnm", rot, rot), np.broadcast_to(tri @ tri.T, (8, 3, 3)), atol=1e-12)
