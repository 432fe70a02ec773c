"""What a run gets by default, and that it says so: the fused generator in float32 only (float64 keeps
jax.random.normal), chains split over the local devices when each gets enough of them, one CPU
device per core requested before JAX starts unless the user chose, and the generator and device
count of every run visible in its result and collectable for a check's details."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

from contrastive_bounds.numerics._devices import use_host_devices
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import DriverOptions, SimulationConfig, langevin_kernel, simulate
from contrastive_bounds.numerics.langevin._defaults import MIN_CHAINS_PER_SHARD, default_prng_impl, default_shards
from contrastive_bounds.numerics.langevin._runlog import recorded_runs, summarize_runs
import pytest

KERNEL = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.02)


def _start(chains: int, dtype) -> np.ndarray:
    return np.tile(np.array([[[-1.0, 0.0]]], dtype), (chains, 1, 1))


@pytest.mark.slow
def test_generator_defaults_by_dtype_and_the_result_says_which_ran():
    """float32 runs use the validated fused generator, float64 runs jax.random.normal; prng_impl given
    explicitly wins; result.prng_impl / result.devices report what ran."""
    assert default_prng_impl(np.float32) == "fused-threefry"
    assert default_prng_impl(np.float64) == "threefry2x32"
    r32 = simulate(KERNEL, _start(8, np.float32), SimulationConfig(num_steps=20, seed=1))
    r64 = simulate(KERNEL, _start(8, np.float64), SimulationConfig(num_steps=20, seed=1))
    assert (r32.prng_impl, r64.prng_impl) == ("fused-threefry", "threefry2x32")
    assert r32.devices == r64.devices == 1
    explicit = simulate(KERNEL, _start(8, np.float32), SimulationConfig(num_steps=20, seed=1),
                        DriverOptions(prng_impl="threefry2x32"))
    assert explicit.prng_impl == "threefry2x32" and not np.array_equal(explicit.positions, r32.positions)


def test_automatic_split_needs_enough_chains_per_device_and_a_divisor():
    """default_shards: the largest device count <= the available ones that divides the chains with at
    least MIN_CHAINS_PER_SHARD each; 1 otherwise."""
    m = MIN_CHAINS_PER_SHARD
    assert default_shards(2 * m, 2) == 2
    assert default_shards(2 * m - 2, 2) == 1
    assert default_shards(2 * m + 1, 2) == 1
    assert default_shards(12 * m, 8) == 8
    assert default_shards(6 * m, 8) == 6  # 8 and 7 would leave fewer than m chains per device or not divide
    assert default_shards(10**6, 1) == 1


@pytest.mark.slow
def test_runs_are_collected_for_a_checks_details():
    """recorded_runs collects every simulate call in its block (generator, devices, dtype, chain-steps);
    outside a block nothing is collected."""
    simulate(KERNEL, _start(4, np.float64), SimulationConfig(num_steps=10, seed=0))
    with recorded_runs() as runs:
        simulate(KERNEL, _start(4, np.float64), SimulationConfig(num_steps=10, seed=0))
        simulate(KERNEL, _start(6, np.float32), SimulationConfig(num_steps=30, seed=0))
    summary = summarize_runs(runs)
    assert summary == {"noise_generator": ["fused-threefry", "threefry2x32"], "devices": [1],
                       "dtype": ["float32", "float64"], "runs": 2, "chain_steps": 4 * 10 + 6 * 30}


@pytest.mark.slow
def test_host_devices_follow_the_cores_unless_the_user_chose():
    """In a fresh interpreter use_host_devices() before JAX starts gives one CPU device per usable core
    (here 3 requested explicitly), and sharding then happens by default for enough chains; with
    XLA_FLAGS' device count set, it changes nothing. After JAX started, it returns None."""
    code = textwrap.dedent(
        f"""
        from contrastive_bounds.numerics._devices import use_host_devices
        print(use_host_devices(3))
        import jax, numpy as np
        print(len(jax.devices()))
        if len(jax.devices()) == 3:
            from contrastive_bounds.numerics.langevin import SimulationConfig, simulate, langevin_kernel
            from contrastive_bounds.numerics.landscapes._registry import get_landscape
            k = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.02)
            z = np.tile(np.array([[[-1.0, 0.0]]], np.float32), ({3 * MIN_CHAINS_PER_SHARD}, 1, 1))
            r = simulate(k, z, SimulationConfig(num_steps=4, seed=0))
            print(r.devices, r.prng_impl)
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_NUM_CPU_DEVICES")}
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["3", "3", "3", "fused-threefry"]
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and out.stdout.split() == ["None", "2"], out.stderr[-2000:]
    import jax

    assert use_host_devices(len(jax.devices()) + 1) is None  # JAX runs in this process: too late to change
    assert len(jax.devices()) == len(jax.devices("cpu"))
