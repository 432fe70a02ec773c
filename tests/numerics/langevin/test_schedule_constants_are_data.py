"""A schedule's constants are data of the compiled Langevin chunk (docs/reference-values.md C14): runs that differ only
in them compile once, and give bit for bit what compiling the constants in gives (the simulator did
that before, one compilation per run), on every form, dtype and kernel path."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import DriverOptions, EnergyBelow, SimulationConfig, langevin_kernel, simulate
from contrastive_bounds.numerics.langevin._experiments import run_schedule
from contrastive_bounds.theory._schedules import make_schedule

#: One schedule of every form, with constants whose reciprocals round (1/1.7, 2/2.9, 1/1.3, 1/3), an
#: exponent XLA rewrites (alpha = 2: x*x) and a factor XLA folds with 2h (linear, sqrt, exponential).
SCHEDULES = [("fixed", dict(c=0.8)), ("temperature", dict(c=1.7, t0=2.0)), ("inverse-temperature", dict(c=1.3, t0=3.0)),
             ("author", dict(c=0.7, t0=2.5)), ("noise", dict(c=2.9, t0=2.0)), ("generator", dict(c=1.3)),
             ("linear", dict(c=1.1, t_end=3.0)), ("exponential", dict(c=2.0, gamma=0.7, period=0.9)),
             ("polynomial", dict(c=0.6, alpha=2.0, t0=1.0)), ("sqrt", dict(c=1.9, t0=1.0))]


def _run(kernel, positions):
    res = simulate(kernel, positions, SimulationConfig(num_steps=60, seed=7, record_every=20, t_start=0.5,
                                                       target=EnergyBelow(-1.0)), DriverOptions(chunk_steps=60))
    return res.energy_trace, res.positions, res.hit_time, res.running_min


def _compiled_in(kernel):
    """The same kernel with its temperature compiled in as constants (how every run compiled before)."""
    return dataclasses.replace(kernel, temperature=kernel.temperature._replace(program=None), compile_key=None)


@pytest.mark.slow
def test_two_schedule_constants_compile_the_chunk_once(compile_count):
    """A second run with other c and t0 (and a landscape rebuilt by name) compiles nothing."""
    land = get_landscape("barrier-H", H=1.5)
    run_schedule(land, make_schedule("temperature", c=1.0, t0=2.0), chains=32, t_end=1.0, step_size=0.01, seed=0)
    with compile_count() as compiles:
        again = run_schedule(get_landscape("barrier-H", H=1.5), make_schedule("temperature", c=3.0, t0=4.0), chains=32,
                             t_end=1.0, step_size=0.01, seed=0)
    assert compiles.names == []
    assert get_landscape("barrier-H", H=1.5) is land and get_landscape("barrier-H", H=1) is not land  # int != float
    with compile_count() as compiles:  # another form is another program
        run_schedule(land, make_schedule("author", c=1.0, t0=2.0), chains=32, t_end=1.0, step_size=0.01, seed=0)
    assert compiles.names.count("jit(chunk)") == 1
    assert np.all(np.isfinite(again.energy_trace))


@pytest.mark.parametrize("form,params", SCHEDULES, ids=[f for f, _ in SCHEDULES])
@pytest.mark.slow
def test_every_form_is_bit_identical_to_its_constants_compiled_in(form, params):
    """Float64 on the complex S¹ path: trace, final positions, hitting times and running minima equal."""
    kernel = langevin_kernel(get_landscape("double-well"), temperature=make_schedule(form, **params), step_size=0.01)
    start = np.tile([[[-1.0, 0.0]]], (8, 1, 1))
    for a, b in zip(_run(kernel, start), _run(_compiled_in(kernel), start)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("landscape,form,dtype", [
    ("infonce-toy", "temperature", np.float64), ("infonce-toy", "noise", np.float32),
    ("vmf", "linear", np.float64), ("vmf", "generator", np.float32), ("double-well", "inverse-temperature", np.float32),
    ("double-well", "sqrt", np.float32),
])
@pytest.mark.slow
def test_other_kernel_paths_and_float32_are_bit_identical(landscape, form, dtype):
    """The chains-last path (U0), the vmapped path (vMF on S²) and float32 (data rounded in float32)."""
    land = get_landscape(landscape)
    kernel = langevin_kernel(land, temperature=make_schedule(form, **dict(SCHEDULES)[form]), step_size=0.01)
    z = np.random.default_rng(3).standard_normal((8, land.num_points, land.dim))
    start = (z / np.linalg.norm(z, axis=-1, keepdims=True)).astype(dtype)
    for a, b in zip(_run(kernel, start), _run(_compiled_in(kernel), start)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.slow
def test_programs_evaluate_the_schedules_definitions(dtype):
    """Eagerly, program(data, t) is the schedule's T(t) (theory's definition) to a few ulps of its
    scale, every form (ulps of the scale: 1 - t/t_end cancels near t_end)."""
    t = np.linspace(0.5, 2.9, 301).astype(dtype)  # inside every schedule's valid range (C12)
    for form, params in SCHEDULES:
        kernel = langevin_kernel(get_landscape("double-well"), temperature=make_schedule(form, **params), step_size=0.01)
        data = kernel.temperature_data(dtype)
        assert data.dtype == dtype
        got = np.asarray(kernel.temperature.program(jnp.asarray(data), jnp.asarray(t)))
        want = make_schedule(form, **params).temperature(t.astype(np.float64))
        assert got.dtype == dtype
        assert np.all(np.isfinite(want)) and np.all(want > 0)
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(got, want, rtol=8 * eps, atol=8 * eps * np.max(want), err_msg=form)
