"""Driver (numerics/langevin/_driver.py): observables against the energy trace, resume/chunking identity, C12."""

import dataclasses
import math
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import (Arc, DriverOptions, EnergyBelow, SimulationConfig, StepSizeWarning,
                                                  default_record_every, langevin_kernel, simulate)
from contrastive_bounds.theory._schedules import make_schedule

LAND = get_landscape("double-well")
KERNEL = langevin_kernel(LAND, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.02)
CHAINS = 64


def _start(theta=math.pi, chains=CHAINS):
    pos = np.zeros((chains, 1, 2))
    pos[:, 0, 0] = math.cos(theta)
    pos[:, 0, 1] = math.sin(theta)
    return pos


@dataclass(frozen=True)
class EnergyAbove:
    level: float

    def __call__(self, position, potential):
        return potential > self.level

    def describe(self):
        return f"V > {self.level}"


def _assert_same(a, b):
    for name in ("positions", "potential", "running_min", "hit_time", "occupancy", "final_basin", "escapes", "energy_trace"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.slow
def test_observables_agree_with_the_full_energy_trace():
    """With record_every = 1 the trace holds V after every step; hitting time, running min, occupancy and
    escapes recomputed from it must equal the driver's in-scan observables exactly."""
    n = 600
    target = EnergyBelow(-1.2)
    basins = (EnergyBelow(-1.0), EnergyAbove(-0.3))
    res = simulate(KERNEL, _start(), SimulationConfig(num_steps=n, seed=5, record_every=1, target=target, basins=basins),
                   DriverOptions(chunk_steps=250))
    tr = res.energy_trace  # (n, chains)
    v0 = -0.5  # V(pi)
    times = res.record_times
    np.testing.assert_allclose(times, 0.02 * np.arange(1, n + 1), rtol=1e-14)
    for c in range(CHAINS):
        inside = np.nonzero(tr[:, c] < -1.2)[0]
        expect = times[inside[0]] if inside.size else np.inf
        assert res.hit_time[c] == expect
        assert res.running_min[c] == min(v0, tr[:, c].min())
        lab = np.where(tr[:, c] < -1.0, 0, np.where(tr[:, c] > -0.3, 1, -1))
        np.testing.assert_allclose(res.occupancy[c], [(lab == 0).mean(), (lab == 1).mean()], rtol=1e-14)
        seq = [l for l in lab if l >= 0]  # the initial V = -0.5 lies in neither basin
        assert res.escapes[c] == sum(1 for a, b in zip(seq, seq[1:]) if a != b)
        assert res.final_basin[c] == lab[-1]
    assert res.hit.any() and not res.hit.all()  # the test exercises both cases


@pytest.mark.slow
def test_chunking_does_not_change_results():
    """The chunk length does not change a run's results (same seed, same records), and another seed does."""
    config = SimulationConfig(num_steps=500, seed=9, record_every=50, target=Arc(-0.5, 0.5))
    a = simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=500))
    b = simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=100))
    _assert_same(a, b)
    c = simulate(KERNEL, _start(), SimulationConfig(num_steps=500, seed=10, record_every=50), DriverOptions(chunk_steps=100))
    assert not np.array_equal(a.positions, c.positions)


@pytest.mark.slow
def test_resume_from_checkpoint_is_identical_to_an_uninterrupted_run(tmp_path):
    """A run stopped at a checkpoint and resumed equals the uninterrupted run bit for bit, a finished
    checkpoint resumes without stepping, and a checkpoint of another configuration is refused."""
    config = SimulationConfig(num_steps=600, seed=4, record_every=20, target=Arc(-0.5, 0.5), basins=(Arc(-1.6, 1.6),))
    full = simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=100))
    ck = tmp_path / "run.npz"
    part = simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=100, checkpoint=ck, stop_after_steps=300))
    assert not part.complete and part.steps_done == 300 and ck.exists()
    assert not list(tmp_path.glob("*.tmp"))  # atomic write leaves no temp file
    resume = DriverOptions(chunk_steps=100, checkpoint=ck, resume=True)
    resumed = simulate(KERNEL, _start(), config, resume)
    assert resumed.complete and resumed.steps_done == 600
    _assert_same(full, resumed)
    # a finished checkpoint resumes to the same result without stepping
    again = simulate(KERNEL, _start(), config, resume)
    _assert_same(full, again)
    # a checkpoint of another configuration is refused
    with pytest.raises(ValueError, match=r"different run \(its configuration differs: seed: 4 in the checkpoint, 5 now\)"):
        simulate(KERNEL, _start(), dataclasses.replace(config, seed=5), resume)


@pytest.mark.slow
def test_float32_runs_and_reports_its_dtype():
    """A float32 run stays float32 and says so in its result."""
    res = simulate(KERNEL, _start().astype(np.float32), SimulationConfig(num_steps=100, seed=1, record_every=100))
    assert res.dtype == "float32" and res.positions.dtype == np.float32
    assert np.max(np.abs(np.linalg.norm(res.positions, axis=-1) - 1)) < 1e-6


def test_C12_schedules_are_validated_over_the_time_span():
    """C12: a schedule undefined at the run's start (T infinite or zero there) is refused over the simulated
    time span, and accepted once the run starts later."""
    bad = langevin_kernel(LAND, temperature=make_schedule("temperature", c=2.0, t0=1.0), step_size=0.01)
    with pytest.raises(ValueError, match="t0"):
        simulate(bad, _start(), SimulationConfig(num_steps=10, seed=0))
    # the same schedule is fine once the run starts later
    simulate(bad, _start(), SimulationConfig(num_steps=10, seed=0, t_start=1.0))
    author = langevin_kernel(LAND, temperature=make_schedule("author", c=1.0), step_size=0.01)
    with pytest.raises(ValueError, match="t0"):
        simulate(author, _start(), SimulationConfig(num_steps=10, seed=0))
    zero_temp = langevin_kernel(LAND, temperature=lambda t, xp: 0.0 * t, step_size=0.01)
    with pytest.raises(ValueError, match="not finite and > 0"):
        simulate(zero_temp, _start(), SimulationConfig(num_steps=10, seed=0))


def test_input_validation_names_the_argument():
    """Bad num_steps, record_every, off-sphere or mis-shaped positions, unknown generators, arcs on non-S¹
    landscapes, reversed arcs and zero chains are refused naming the argument."""
    with pytest.raises(ValueError, match="num_steps"):
        simulate(KERNEL, _start(), SimulationConfig(num_steps=0, seed=0))
    with pytest.raises(ValueError, match="record_every=7 must divide"):
        simulate(KERNEL, _start(), SimulationConfig(num_steps=100, seed=0, record_every=7))
    with pytest.raises(ValueError, match="on the sphere"):
        simulate(KERNEL, 2 * _start(), SimulationConfig(num_steps=10, seed=0))
    with pytest.raises(ValueError, match="shape"):
        simulate(KERNEL, _start()[:, 0], SimulationConfig(num_steps=10, seed=0))
    with pytest.raises(ValueError, match="prng_impl"):
        simulate(KERNEL, _start(), SimulationConfig(num_steps=10, seed=0), DriverOptions(prng_impl="mt19937"))
    vmf = langevin_kernel(get_landscape("vmf", kappa=1.0), temperature=1.0, step_size=0.01)
    with pytest.raises(ValueError, match="Arc"):
        simulate(vmf, np.tile([[[0.0, 0.0, 1.0]]], (4, 1, 1)),
                 SimulationConfig(num_steps=10, seed=0, target=Arc(0.0, 1.0)))
    with pytest.raises(ValueError, match="theta_hi - theta_lo"):
        Arc(1.0, 0.5)
    with pytest.raises(ValueError, match="chains >= 1"):
        simulate(KERNEL, np.zeros((0, 1, 2)), SimulationConfig(num_steps=10, seed=0))


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.slow
def test_an_overflowing_step_is_an_error_not_nan(generic):
    """h = 1e160 squares past float64 in the normalisation: the run stops with a ValueError naming the
    step size (both the complex S¹ path and the generic path), instead of returning NaN positions."""
    kw = dict(temperature=1.0, step_size=1e160)
    kernel = langevin_kernel(LAND.potential, grad=LAND.grad, **kw) if generic else langevin_kernel(LAND, **kw)
    # warned about first (noise of 1e80 rad per step; on the S¹ Fourier path also h·sup|V''|), then refused
    with pytest.raises(ValueError, match=r"step_size=1e\+160.*smaller step_size"), pytest.warns(StepSizeWarning):
        simulate(kernel, _start(theta=2.0), SimulationConfig(num_steps=4, seed=0, target=EnergyBelow(-1.0)))
    with pytest.warns(StepSizeWarning) as rec:
        ok = simulate(langevin_kernel(LAND, temperature=1.0, step_size=10.0), _start(theta=2.0),
                      SimulationConfig(num_steps=4, seed=0))
    assert np.all(np.isfinite(ok.positions))  # a large but representable step is warned about, not refused
    assert {"h * sup|V''| can reach 45" in str(w.message) or "sqrt(2*T*h) = 4.47" in str(w.message) for w in rec} == {True}


def test_arc_wraps_around_pi():
    """An arc across θ = π contains the angles on both sides of it and not those outside."""
    arc = Arc(math.pi - 0.2, math.pi + 0.2)
    for theta, inside in [(math.pi, True), (-math.pi + 0.1, True), (math.pi - 0.3, False), (0.0, False)]:
        z = jnp.asarray([[math.cos(theta), math.sin(theta)]])
        assert bool(arc(z, 0.0)) is inside


def test_default_record_every_divides():
    """default_record_every divides the step count and gives at least ~100 and at most 1 000 records per run, or
    only the end where no divisor does (a prime count: recording every step had made 1.4 GB traces)."""
    for n in (1, 7, 100, 1000, 12345, 2**20):
        r = default_record_every(n)
        assert n % r == 0 and 1 <= r <= max(1, n // 100) and n // r <= 1000
    assert default_record_every(166667) == 166667  # prime
    assert default_record_every(2 * 100003) == 2 * 100003  # divisors 1, 2, 100003: 200 006 or 100 003 records
    assert default_record_every(166700) == 1667 and default_record_every(1000, 200) == 5
