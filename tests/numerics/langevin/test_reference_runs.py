"""Behaviour kept bit for bit: the simulator reproduces runs recorded before its step paths became separate
step functions (reference/: every step path, float32 with the fused default generator, float64, each
generator, unroll, t_start > 0, checkpoint and resume, chains split over two devices), and one driver step
replays as its kernel's step with the driver's noise, on every step path.

The recorded float64 arrays are compared with ``assert_array_equal`` (0 ulp): the restructured code computes
the same operations in the same order, so XLA compiles the same arithmetic. Float32 arithmetic is compiled for the
host CPU (vector width, FMA contraction): on an Intel Xeon the float32 records made on an AMD EPYC differ by up to
1.5e-6 (170 ulp of the smallest values), so float32 arrays are compared to 1e-5 (:func:`_assert_same`) — far below
what a change of formula, noise or step order moves them (another seed moves positions by O(0.1)). The
fingerprints (``config``) are compared too, so checkpoints written before resume after.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.langevin import DriverOptions, SimulationConfig, simulate
from contrastive_bounds.numerics.langevin._fused_rng import fused_normals
from contrastive_bounds.numerics.langevin._noise import noise_key
from contrastive_bounds.numerics.langevin._paths import supported_step_paths

REFERENCE = Path(__file__).with_name("reference")


def _load_record():
    spec = importlib.util.spec_from_file_location("langevin_reference_record", REFERENCE / "record.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


record = _load_record()
cases = record.cases
RUNS = np.load(REFERENCE / "runs.npz")
CONFIGS = json.loads((REFERENCE / "runs.json").read_text())


#: float32 agreement across CPUs (module docstring): 7x the largest difference measured between two CPUs
FLOAT32_TOL = 1e-5


def _assert_same(got, want, err_msg: str) -> None:
    """Bit for bit, except float32 arrays to FLOAT32_TOL (absolute and relative; module docstring)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, err_msg
    if got.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=FLOAT32_TOL, atol=FLOAT32_TOL, err_msg=err_msg)
    else:
        np.testing.assert_array_equal(got, want, err_msg=err_msg)


def _config(config):
    """A run's fingerprint as compared: a float32 run's ``positions_sha256`` (a hash of the final positions' bits)
    left out, since its positions are compared to FLOAT32_TOL; nested fingerprints alike."""
    if isinstance(config, dict):
        drop = config.get("dtype") == "float32"
        return {k: _config(v) for k, v in config.items() if not (drop and k == "positions_sha256")}
    return config


def _assert_recorded(res, name: str, arrays=RUNS, configs=CONFIGS) -> None:
    for field in record.FIELDS:
        _assert_same(getattr(res, field), arrays[f"{name}/{field}"], err_msg=f"{name}: {field}")
    assert _config(res.config) == _config(configs[name])


QUICK = ("f64_circle", "f32_circle_fused_default")


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow) for n in sorted(cases.CASES)])
def test_runs_equal_the_recorded_runs_bit_for_bit(name):
    """Each recorded run (one per step path, generator, dtype and option) gives the same arrays and the same
    fingerprint; the result names the step path the kernel's capabilities select."""
    res = record.run(cases.CASES[name])
    _assert_recorded(res, name)
    assert res.step_path == supported_step_paths(record.kernel_of(cases.CASES[name]))[0]


@pytest.mark.parametrize("name", sorted(cases.KERNEL_CASES))
@pytest.mark.slow
def test_the_public_kernel_step_equals_the_recorded_steps(name):
    """``jax.vmap(kernel.step)`` (the one-chain BlackJAX-style step: Euler, geodesic, anisotropic, S¹ tangent
    noise, float32) over five steps gives the recorded states bit for bit."""
    states = record.kernel_steps(cases.KERNEL_CASES[name])
    for field in ("position", "potential", "grad"):
        _assert_same(getattr(states, field), RUNS[f"kernel:{name}/{field}"], err_msg=field)


def test_a_recorded_checkpoint_resumes_to_the_recorded_run_and_is_written_identically(tmp_path):
    """A checkpoint written half-way by the code before the restructuring resumes to the recorded
    uninterrupted run; the same checkpoint written now holds the same arrays and fingerprint."""
    case = cases.CHECKPOINT_CASE
    old = tmp_path / "old.npz"
    shutil.copy(REFERENCE / "checkpoint_half.npz", old)
    _assert_recorded(record.run(case, checkpoint=old, resume=True), "checkpoint_full")
    new = tmp_path / "new.npz"
    part = record.run(case, checkpoint=new, stop_after_steps=case["steps"] // 2)
    assert part.steps_done == case["steps"] // 2
    with np.load(REFERENCE / "checkpoint_half.npz") as want, np.load(new) as got:
        assert sorted(got.files) == sorted(want.files)
        for key in want.files:
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)


@pytest.mark.slow
def test_sharded_runs_equal_the_recorded_runs(tmp_path):
    """In a fresh interpreter with two host devices the sharded runs (S¹ and chains-last paths, fused and
    jax.random generators, float32 default) reproduce the recorded arrays and fingerprints."""
    out = tmp_path / "sharded.npz"
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, str(REFERENCE / "record.py"), str(out), "sharded"], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got, want = np.load(out), np.load(REFERENCE / "sharded.npz")
    assert sorted(got.files) == sorted(want.files)
    for key in want.files:
        _assert_same(got[key], want[key], err_msg=key)
    assert _config(json.loads(out.with_suffix(".json").read_text())) == _config(json.loads((REFERENCE / "sharded.json")
                                                                                        .read_text()))


def _driver_noise(path: str, kernel, prng: str, seed: int, step: int, chains: int, shape: tuple, dtype) -> np.ndarray:
    """The normals the driver draws at ``step`` for all chains (noise.py: ``normal(fold_in(key(seed), step))``, or
    the fused generator's ``fused_normals(key words, step)``), in its layout for ``path``, returned per chain
    as ``(chains,) + kernel.noise_shape((N, d))``."""
    layout = (chains,) if path == "circle" else kernel.noise_shape(shape) + (chains,)
    key = noise_key(seed, prng)
    if prng == "fused-threefry":
        noise = np.asarray(fused_normals(key, jnp.uint32(step), layout, dtype))
    else:
        noise = np.asarray(jax.random.normal(jax.random.fold_in(key, step), layout, dtype))
    return noise.reshape(chains, 1, 1) if path == "circle" else np.moveaxis(noise, -1, 0)


REPLAYS = [(land, path, prng, dtype) for land, paths, prng, dtype in (
    ("double-well", ("circle", "chains-last", "vmap"), "threefry2x32", "float64"),
    ("double-well", ("circle", "chains-last", "vmap"), "fused-threefry", "float32"),
    ("u0-s1", ("chains-last", "vmap"), "threefry2x32", "float64"),
    ("infonce-toy", ("chains-last", "vmap"), "fused-threefry", "float64")) for path in paths]


@pytest.mark.parametrize("landscape, path, prng, dtype", REPLAYS)
@pytest.mark.slow
def test_driver_steps_replay_as_kernel_steps(landscape, path, prng, dtype):
    """Three driver steps (``simulate`` with ``record_every=1``, t_start = 0.3, a schedule) equal three calls of
    the kernel's one-chain ``step_with_noise`` with the driver's noise at t = t_start + k·h, on every step path
    the kernel supports: the driver passes the configured step size and the temperature at the step's start
    time to the step it chose. Within 8 ulps of 1 in the run's dtype (measured: at most 3; the paths round
    differently, rsqrt and the complex form, and even the vmap path fuses differently inside the chunk); the
    temperature one step late or a step size off by 1e-6 moves the energies by more than 1e-8."""
    case = dict(landscape=landscape, temperature=("temperature", 2.0, 2.0), h=0.02, dtype=dtype, chains=8, steps=3,
                seed=41)
    kernel = record.kernel_of(case)
    assert path in supported_step_paths(kernel)
    z0 = cases.positions_of(case)
    t_start, h, steps = 0.3, case["h"], case["steps"]
    res = simulate(kernel, z0, SimulationConfig(num_steps=steps, seed=case["seed"], t_start=t_start, record_every=1),
                   DriverOptions(prng_impl=prng, step_path=path))
    assert res.step_path == path
    state = jax.vmap(kernel.init)(jnp.asarray(z0))
    step = jax.jit(jax.vmap(kernel.step_with_noise, in_axes=(0, 0, None)))
    tol = 8 * np.finfo(z0.dtype).eps
    for k in range(steps):
        noise = _driver_noise(path, kernel, prng, case["seed"], k, z0.shape[0], z0.shape[1:], z0.dtype)
        state = step(state, noise, np.asarray(t_start + k * h, z0.dtype))
        np.testing.assert_allclose(res.energy_trace[k], np.asarray(state.potential), rtol=0, atol=tol,
                                   err_msg=f"step {k}")
    np.testing.assert_allclose(res.positions, np.asarray(state.position), rtol=0, atol=tol)
    np.testing.assert_allclose(res.record_times, t_start + h * np.arange(1, steps + 1), rtol=1e-15)
