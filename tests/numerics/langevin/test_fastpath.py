"""The simulator's fast path (issue 4, item 7): z-coordinate S¹ landscapes, the hand-written U0
gradient, the chains-last step and the fused Threefry/Box–Muller generator, each checked against an
independent reference (θ form, autodiff, the vmapped generic step, Random123 known answers, the
normal law). Statistical tests state their false-alarm probability. No timings here (see
benchmarks/langevin.py)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from contrastive_bounds.numerics.landscapes._circle import FourierSeries
from contrastive_bounds.numerics.langevin import (Arc, DriverOptions, EnergyBelow, SimulationConfig, langevin_kernel,
                                                  simulate)
from contrastive_bounds.numerics.langevin._fused_rng import fused_normal_pairs, fused_normals, threefry2x32
from contrastive_bounds.numerics.landscapes._infonce import (
    hardest_negative_potential,
    hardest_negative_value_and_grad,
)
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.landscapes._landscape import scaled
from contrastive_bounds.numerics.langevin._paths import supported_step_paths
from contrastive_bounds.numerics.langevin.steps import chains_last, circle
from contrastive_bounds.numerics._sphere import uniform
from contrastive_bounds.theory._schedules import make_schedule

ALPHA = 1e-4


def _random_series(seed: int, kmax: int = 8) -> FourierSeries:
    rng = np.random.default_rng(seed)
    ks = sorted(set(rng.integers(0, kmax + 1, size=5).tolist()) | {kmax})
    cos = {k: float(rng.normal()) for k in ks}
    sin = {k: float(rng.normal()) for k in ks if k > 0}
    return FourierSeries.from_dicts(cos, sin)


@pytest.mark.parametrize("seed", range(6))
def test_z_form_equals_theta_form_float64(seed):
    """V and V' by the complex-power recursion equal the cos/sin form to rounding (float64)."""
    s = _random_series(seed)
    th = np.linspace(-7.0, 7.0, 2001)
    v, dv = s.value_and_derivative_z(np.cos(th), np.sin(th))
    bound = s.derivative_bound(1) + s.derivative_bound(0)
    np.testing.assert_allclose(v, s.value(th), rtol=0, atol=64 * np.finfo(float).eps * bound)
    np.testing.assert_allclose(dv, s.value(th, order=1), rtol=0, atol=64 * np.finfo(float).eps * bound)


def test_z_form_float32_keeps_dtype_and_precision():
    """In float32 the z form keeps its dtype and stays within float32 rounding of the float64 value, scaled by
    the series' derivative bound."""
    s = _random_series(7)
    th = np.linspace(0.0, 2 * math.pi, 997)
    x, y = jnp.asarray(np.cos(th), jnp.float32), jnp.asarray(np.sin(th), jnp.float32)
    v, dv = jax.jit(s.value_and_derivative_z)(x, y)
    assert v.dtype == jnp.float32 and dv.dtype == jnp.float32
    bound = s.derivative_bound(1)
    np.testing.assert_allclose(np.asarray(v, np.float64), s.value(th), atol=64 * 1.2e-7 * bound)
    np.testing.assert_allclose(np.asarray(dv, np.float64), s.value(th, order=1), atol=64 * 1.2e-7 * bound)


def test_constant_series_has_array_shape():
    """A constant series returns arrays of the input's shape, not scalars."""
    v, dv = FourierSeries.from_dicts({0: 2.5}).value_and_derivative_z(np.zeros(3), np.ones(3))
    assert v.shape == (3,) and dv.shape == (3,) and np.all(v == 2.5) and np.all(dv == 0.0)


def _circle_landscapes():
    return [
        get_landscape("double-well"),
        get_landscape("triple-well"),
        get_landscape("barrier-H", H=4.0),
        get_landscape("fourier", cos={1: 0.3, 3: -0.7}, sin={2: 0.4, 5: 0.1}),
        scaled(get_landscape("double-well"), 2.5),
    ]


@pytest.mark.parametrize("land", _circle_landscapes(), ids=lambda l: l.name)
@pytest.mark.slow
def test_circle_gradient_is_the_theta_form_gradient(land):
    """Analytic ∇V = V'(θ)(−z1, z0) equals autodiff of V(atan2(z1, z0)) at unit z (both tangent), and the
    fused value equals the potential."""
    series = land.fourier

    def theta_form(z):
        return series.value(jnp.arctan2(z[0, 1], z[0, 0]), xp=jnp)

    for th in np.linspace(-3.0, 3.1, 13):
        z = jnp.asarray([[math.cos(th), math.sin(th)]])
        v, g = land.value_and_grad(z)
        assert float(v) == pytest.approx(float(theta_form(z)), abs=1e-13)
        assert float(land.potential(z)) == pytest.approx(float(v), abs=1e-15)
        np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(theta_form)(z)), atol=1e-12)
        np.testing.assert_allclose(np.asarray(land.grad(z)), np.asarray(g), atol=0)


def _unit(key, shape, dtype=jnp.float64):
    return uniform(jax.random.key(key), shape, dtype=dtype)


@pytest.mark.parametrize("name", ["double-well", "infonce-toy"])
@pytest.mark.slow
def test_trailing_batch_equals_vmap(name):
    """The chains-last value-and-gradient equals vmap of the per-chain one."""
    land = get_landscape(name)
    assert land.trailing_batch
    z = _unit(3, (50, land.num_points, land.dim))
    v_ref, g_ref = jax.vmap(land.value_and_grad)(z)
    v, g = land.value_and_grad_fn(jnp.moveaxis(z, 0, -1))
    np.testing.assert_allclose(np.asarray(v), np.asarray(v_ref), atol=1e-15)
    np.testing.assert_allclose(np.asarray(jnp.moveaxis(g, -1, 0)), np.asarray(g_ref), atol=1e-15)


@pytest.mark.parametrize(
    "num_points,pairs",
    [(4, ((0, 1), (2, 3))), (6, ((0, 1), (2, 3), (4, 5))), (5, ((0, 4), (1, 2))), (40, tuple((2 * i, 2 * i + 1) for i in range(20)))],
)
@pytest.mark.slow
def test_u0_hand_gradient_equals_autodiff(num_points, pairs):
    """At generic points (a unique hardest negative a.s.) the one-hot subgradient IS the gradient:
    equal to jax.grad of the masked-max form; N = 40 exercises the autodiff fallback (M·(N−2) > 512)."""
    pot = hardest_negative_potential(num_points, pairs)
    vg = hardest_negative_value_and_grad(num_points, pairs)
    z = _unit(num_points, (64, num_points, 3))
    v, g = jax.vmap(vg)(z)
    v_ref, g_ref = jax.vmap(jax.value_and_grad(pot))(z)
    np.testing.assert_allclose(np.asarray(v), np.asarray(v_ref), atol=1e-14)
    np.testing.assert_allclose(np.asarray(g), np.asarray(g_ref), atol=1e-14)


@pytest.mark.slow
def test_u0_gradient_at_a_tie_is_the_one_sided_gradient_of_the_first_maximiser():
    """z2 = z3 ties the negatives of anchors 0 and 1. The hand gradient picks k = 2: it equals the
    gradient of the piece where k = 2 is the unique maximiser (autodiff at z3 tilted out of the plane by
    δ = 1e-6, so that s_a3 = s_a2·cos δ < s_a2 for a = 0, 1; the piece's gradient moves by O(δ)); autodiff of the max at the tie splits the weight and
    differs (both lie in the Clarke subdifferential; their tied-row sums agree)."""
    pairs = ((0, 1), (2, 3))
    z = jnp.asarray([[1.0, 0, 0], [0.0, 1, 0], [0.6, 0.8, 0], [0.6, 0.8, 0]])
    _, g = hardest_negative_value_and_grad(4, pairs)(z)
    pot = hardest_negative_potential(4, pairs)
    delta = 1e-6
    tilted = z.at[3].set(jnp.asarray([0.6 * math.cos(delta), 0.8 * math.cos(delta), math.sin(delta)]))
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(pot)(tilted)), atol=5e-6)
    g_tie = jax.grad(pot)(z)
    assert float(jnp.max(jnp.abs(g - g_tie))) > 0.1
    np.testing.assert_allclose(np.asarray(g[2] + g[3]), np.asarray(g_tie[2] + g_tie[3]), atol=1e-15)


@pytest.mark.parametrize("name", ["double-well", "infonce-toy"])
@pytest.mark.slow
def test_chains_last_step_equals_vmapped_generic_step(name):
    """The chains-last step is the same Markov kernel: with the same noise, one step of steps.chains_last.step
    equals vmap(kernel.step_with_noise) to float64 rounding (with a schedule, t > 0)."""
    land = get_landscape(name)
    kernel = langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.03)
    assert "chains-last" in supported_step_paths(kernel)
    chains = 40
    z = _unit(5, (chains, land.num_points, land.dim))
    state = jax.vmap(kernel.init)(z)
    noise = jax.random.normal(jax.random.key(6), (chains,) + kernel.noise_shape((land.num_points, land.dim)), jnp.float64)
    t = jnp.asarray(0.7)
    ref = jax.vmap(kernel.step_with_noise, in_axes=(0, 0, None))(state, noise, t)
    out = chains_last.to_chains_first(chains_last.step(
        chains_last.from_chains_first(state), jnp.moveaxis(noise, 0, -1), kernel.temperature.at(t, jnp.float64),
        step_size=kernel.step_size, value_and_grad=kernel.potential.batched_value_and_grad))
    np.testing.assert_allclose(np.asarray(out.position), np.asarray(ref.position), atol=1e-14)
    np.testing.assert_allclose(np.asarray(out.potential), np.asarray(ref.potential), atol=1e-13)
    np.testing.assert_allclose(np.asarray(out.grad), np.asarray(ref.grad), atol=1e-13)


@pytest.mark.parametrize("land", _circle_landscapes(), ids=lambda l: l.name)
def test_circle_step_equals_vmapped_generic_step(land):
    """The complex S¹ step is the same Markov kernel: with the same noise, one step of steps.circle.step equals
    vmap(kernel.step_with_noise) to float64 rounding, returns V at the new positions, and its state converted
    back gives V and ∇V = V'(θ)(−z₁, z₀)."""
    kernel = langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.03)
    assert supported_step_paths(kernel) == ("circle", "chains-last", "vmap")
    z = _unit(5, (40, 1, 2))
    state = jax.vmap(kernel.init)(z)
    noise = jax.random.normal(jax.random.key(6), (40, 1, 1), jnp.float64)
    t = jnp.asarray(0.7)
    ref = jax.vmap(kernel.step_with_noise, in_axes=(0, 0, None))(state, noise, t)
    vd = kernel.potential.circle_value_and_derivative
    new, value = circle.step(circle.from_chains_first(state), noise[:, 0, 0], kernel.temperature.at(t, jnp.float64),
                             step_size=kernel.step_size, value_and_derivative=vd)
    assert new.position.dtype == jnp.complex128 and value.dtype == jnp.float64
    out = circle.to_chains_first(new, vd)
    np.testing.assert_allclose(np.asarray(out.position), np.asarray(ref.position), atol=1e-14)
    np.testing.assert_allclose(np.asarray(value), np.asarray(ref.potential), atol=1e-13)
    np.testing.assert_array_equal(np.asarray(out.potential), np.asarray(value))
    np.testing.assert_array_equal(np.asarray(circle.potential(new, vd)), np.asarray(value))
    np.testing.assert_allclose(np.asarray(out.grad), np.asarray(ref.grad), atol=1e-12)


@pytest.mark.slow
def test_every_step_path_gives_the_observables_of_the_others():
    """simulate() on an S¹ Fourier landscape down each step path (complex, chains-last, vmap of the one-chain
    step; same jax.random noise) and with a kernel given V and ∇V only (vmap, its one path) gives the same
    positions, energies, running minimum, hit times, occupancy and escapes, with a schedule, a target and
    two basins (float64); the result names the path and a non-default path is part of the fingerprint."""
    land = get_landscape("double-well")
    sched = make_schedule("temperature", c=2.0, t0=1.5)
    fast = langevin_kernel(land, temperature=sched, step_size=0.02)
    generic = langevin_kernel(land.potential, grad=land.grad, temperature=sched, step_size=0.02)
    assert supported_step_paths(generic) == ("vmap",)
    z0 = np.asarray(_unit(11, (64, 1, 2)))
    theta_s = math.acos(-1 / 8)
    config = SimulationConfig(num_steps=600, seed=3, record_every=25, target=EnergyBelow(-1.4),
                              basins=(Arc(-theta_s, theta_s), Arc(theta_s, 2 * math.pi - theta_s)))
    runs = {path: simulate(fast, z0, config, DriverOptions(chunk_steps=150, prng_impl="threefry2x32", step_path=path))
            for path in ("circle", "chains-last", "vmap")}
    runs["generic"] = simulate(generic, z0, config, DriverOptions(chunk_steps=150, prng_impl="threefry2x32"))
    a = runs["circle"]
    assert [r.step_path for r in runs.values()] == ["circle", "chains-last", "vmap", "vmap"]
    assert "step_path" not in a.config and runs["vmap"].config["step_path"] == "vmap"
    assert "step_path" not in runs["generic"].config
    for b in list(runs.values())[1:]:
        for name in ("positions", "potential", "running_min", "energy_trace"):
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), atol=1e-12, err_msg=name)
        np.testing.assert_array_equal(a.final_basin, b.final_basin)
        np.testing.assert_array_equal(a.escapes, b.escapes)
        np.testing.assert_allclose(a.occupancy, b.occupancy, atol=0)
        np.testing.assert_allclose(a.hit_time, b.hit_time, atol=1e-12)
    assert np.isfinite(a.hit_time).sum() > 10 and a.escapes.sum() > 0  # the observables were exercised


@pytest.mark.parametrize("name", ["double-well", "infonce-toy"])
@pytest.mark.slow
def test_fused_noise_depends_only_on_seed_and_step(name):
    """Steps 2p, 2p+1 share a Box–Muller pair; with odd record intervals a record may start at an odd
    step. Whatever the record interval and chunking, a run sees the same noise at step k: results agree."""
    land = get_landscape(name)
    kernel = langevin_kernel(land, temperature=0.4, step_size=0.02)
    z0 = np.asarray(_unit(2, (24, land.num_points, land.dim)))
    fused = "fused-threefry"
    ref = simulate(kernel, z0, SimulationConfig(num_steps=90, seed=8, record_every=90),
                   DriverOptions(chunk_steps=90, prng_impl=fused))
    for record_every, chunk in ((15, 45), (9, 9), (1, 30), (45, 90), (3, 90)):
        other = simulate(kernel, z0, SimulationConfig(num_steps=90, seed=8, record_every=record_every),
                         DriverOptions(chunk_steps=chunk, prng_impl=fused))
        np.testing.assert_allclose(other.positions, ref.positions, atol=1e-13, err_msg=f"record_every={record_every}")
        np.testing.assert_allclose(other.running_min, ref.running_min, atol=1e-13)
        np.testing.assert_allclose(other.energy_trace[-1], ref.energy_trace[-1], atol=1e-13)


@pytest.mark.slow
def test_fused_pairs_are_the_per_step_normals_and_independent():
    """fused_normals(step) is the real (even step) or imaginary (odd) part of fused_normal_pairs(step // 2);
    the two parts of a pair are independent N(0, 1): E[X·Y] = 0 and E[X²Y²] = 1 (z-tests on 2^18 pairs,
    each at 5e-5; with the law test above the family false alarm stays ≤ 2e-4)."""
    seed = jax.random.key_data(jax.random.key(77)).astype(jnp.uint32)
    pairs = fused_normal_pairs(seed, jnp.arange(4, dtype=jnp.uint32), (3, 5), jnp.float32)
    assert pairs.shape == (4, 3, 5) and pairs.dtype == jnp.complex64
    for k in range(8):
        part = pairs[k // 2].imag if k % 2 else pairs[k // 2].real
        np.testing.assert_array_equal(np.asarray(fused_normals(seed, k, (3, 5), jnp.float32)), np.asarray(part))
    big = np.asarray(fused_normal_pairs(seed, jnp.arange(2, dtype=jnp.uint32), (131072,), jnp.float32))
    x, y = big.real.astype(np.float64).ravel(), big.imag.astype(np.float64).ravel()
    n = x.size
    zc = stats.norm.ppf(1 - 5e-5 / 2)
    assert abs(np.mean(x * y)) / math.sqrt(1 / n) < zc
    assert abs(np.mean(x * x * y * y) - 1.0) / math.sqrt(8 / n) < zc  # Var(X²Y²) = 9 − 1


def test_generic_kernels_do_not_take_the_fast_path():
    """Kernels the fast steps do not cover (geodesic integrator, anisotropic noise, non-S¹ landscapes without a
    batched form) support only the vmap path, and a run asked for another path is refused naming step_path."""
    land = get_landscape("double-well")
    geodesic = langevin_kernel(land, temperature=0.3, step_size=0.01, integrator="geodesic")
    assert supported_step_paths(geodesic) == ("vmap",)
    assert supported_step_paths(langevin_kernel(get_landscape("vmf", kappa=1.0), temperature=0.3,
                                                step_size=0.01)) == ("vmap",)
    assert supported_step_paths(langevin_kernel(land, temperature=0.3, step_size=0.01,
                                                anisotropy=[1.0, 2.0])) == ("vmap",)
    assert supported_step_paths(langevin_kernel(get_landscape("infonce-toy"), temperature=0.3,
                                                step_size=0.01)) == ("chains-last", "vmap")
    with pytest.raises(ValueError, match=r"^step_path='circle' is not supported by this kernel .* \('vmap',\)"):
        simulate(geodesic, np.tile([[[1.0, 0.0]]], (2, 1, 1)), SimulationConfig(num_steps=2, seed=0),
                 DriverOptions(step_path="circle"))
    with pytest.raises(ValueError, match=r"^step_path='fast' is not one of"):
        DriverOptions(step_path="fast")


def test_threefry_known_answers():
    """Random123 known-answer vectors of Threefry-2x32-20 (Salmon et al. 2011, kat_vectors)."""
    cases = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for key, ctr, expected in cases:
        out = threefry2x32(*(jnp.uint32(v) for v in key + ctr))
        assert tuple(int(o) for o in out) == expected


@pytest.mark.slow
def test_fused_normals_follow_the_standard_normal_law():
    """2^20 draws over 8 steps (float32): mean and variance z-tests, the tail mass P(|ξ| > 2.5)
    (binomial z-test) and Kolmogorov–Smirnov against N(0, 1); lag-one correlation between steps.
    Five tests, Bonferroni: each at 2e-5, family false alarm ≤ 1e-4."""
    seed = jax.random.key_data(jax.random.key(123)).astype(jnp.uint32)
    draws = jnp.stack([fused_normals(seed, jnp.uint32(k), (1, 1, 131072), jnp.float32) for k in range(8)])
    x = np.asarray(draws, np.float64).reshape(8, -1)
    assert draws.dtype == jnp.float32
    n = x.size
    zc = stats.norm.ppf(1 - 2e-5 / 2)
    assert abs(x.mean() / math.sqrt(1 / n)) < zc
    assert abs((x.var() - 1.0) / math.sqrt(2 / n)) < zc
    p_tail = 2 * stats.norm.sf(2.5)
    tail = np.mean(np.abs(x) > 2.5)
    assert abs(tail - p_tail) / math.sqrt(p_tail * (1 - p_tail) / n) < zc
    assert stats.kstest(x.ravel(), "norm").pvalue > 2e-5
    r = np.corrcoef(x[:-1].ravel(), x[1:].ravel())[0, 1]
    assert abs(r) * math.sqrt(x[1:].size) < zc
    again = fused_normals(seed, jnp.uint32(3), (1, 1, 131072), jnp.float32)
    np.testing.assert_array_equal(np.asarray(again).ravel(), x[3].astype(np.float32))


def test_fused_generator_runs_are_reproducible_and_chunking_free():
    """Runs with the fused generator do not depend on the chunk length, change with the seed, stay on the
    sphere, and shard_chains on one device changes nothing."""
    land = get_landscape("double-well")
    kernel = langevin_kernel(land, temperature=0.3, step_size=0.02)
    z0 = np.asarray(_unit(9, (32, 1, 2)))
    config = SimulationConfig(num_steps=300, seed=4, record_every=30)
    a = simulate(kernel, z0, config, DriverOptions(chunk_steps=300, prng_impl="fused-threefry"))
    b = simulate(kernel, z0, config, DriverOptions(chunk_steps=60, prng_impl="fused-threefry"))
    for name in ("positions", "potential", "running_min", "energy_trace"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    c = simulate(kernel, z0, SimulationConfig(num_steps=300, seed=5, record_every=30),
                 DriverOptions(chunk_steps=300, prng_impl="fused-threefry"))
    assert not np.array_equal(a.positions, c.positions)
    assert np.max(np.abs(np.linalg.norm(a.positions, axis=-1) - 1)) < 1e-12
    one_device = DriverOptions(shard_chains=True, chunk_steps=300, prng_impl="fused-threefry")
    assert simulate(kernel, z0, config, one_device).config == a.config  # 1 device: no-op


@pytest.mark.slow
def test_sharded_run_on_two_host_devices():
    """In a fresh interpreter with 2 host devices: a sharded run is deterministic, stays on the sphere,
    records 'shards' in its fingerprint, and rejects a chain count that does not divide."""
    code = textwrap.dedent(
        """
        import numpy as np, jax
        jax.config.update("jax_enable_x64", True)
        from contrastive_bounds.numerics.langevin import DriverOptions, SimulationConfig, langevin_kernel, simulate
        from contrastive_bounds.numerics.landscapes._registry import get_landscape
        from contrastive_bounds.numerics._sphere import uniform
        assert len(jax.devices()) == 2
        for name in ("double-well", "infonce-toy"):
            land = get_landscape(name)
            k = langevin_kernel(land, temperature=0.3, step_size=0.02)
            z0 = np.asarray(uniform(jax.random.key(0), (16, land.num_points, land.dim)))
            for impl in ("fused-threefry", "threefry2x32"):
                config = SimulationConfig(num_steps=40, seed=1, record_every=10)
                options = DriverOptions(prng_impl=impl, shard_chains=True)
                a, b = simulate(k, z0, config, options), simulate(k, z0, config, options)
                assert np.array_equal(a.positions, b.positions) and a.config["shards"] == 2
                assert np.max(np.abs(np.linalg.norm(a.positions, axis=-1) - 1)) < 1e-12
                half = a.positions.shape[0] // 2
                assert not np.allclose(a.positions[:half] - z0[:half], a.positions[half:] - z0[half:])
        try:
            simulate(k, z0[:15], SimulationConfig(num_steps=10, seed=1), DriverOptions(shard_chains=True))
        except ValueError as e:
            assert "divisible" in str(e)
        else:
            raise AssertionError("no ValueError")
        print("OK")
        """
    )
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-2000:]
