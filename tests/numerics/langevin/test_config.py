"""The run configuration objects (numerics/langevin/_config.py, annealing.py): validated when built, each error
naming the argument and its range; frozen; defaults resolved once (record_every); importable without JAX (the
command line validates with them before JAX starts); the anneal experiment's config and the library call."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from contrastive_bounds.numerics.langevin import (AnnealConfig, Arc, DriverOptions, EnergyBelow, SimulationConfig,
                                                  anneal, default_record_every)
from contrastive_bounds.numerics.langevin._config import MAX_STEPS, check_checkpoint_path, whole_steps
from contrastive_bounds.theory._schedules import make_schedule

SCHEDULE = make_schedule("temperature", c=2.0, t0=2.0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_steps=0, seed=0), r"^num_steps=0 is outside its domain: integers in \[1, 2147483646\]"),
    (dict(num_steps=2**31, seed=0), r"^num_steps=2147483648 is outside"),
    (dict(num_steps=10, seed=-1), r"^seed=-1 is outside its domain: integers in \[0, 4294967295\]"),
    (dict(num_steps=10, seed=2**32), r"^seed=4294967296 is outside"),
    (dict(num_steps=10, seed=0, t_start=-0.5), r"^t_start=-0.5 is outside its domain \[0, inf\)"),
    (dict(num_steps=10, seed=0, t_start=math.nan), r"^t_start=nan"),
    (dict(num_steps=10, seed=0, record_every=0), r"^record_every=0 is outside its domain: integers in \[1, 10\]"),
    (dict(num_steps=10, seed=0, record_every=11), r"^record_every=11 is outside"),
    (dict(num_steps=10, seed=0, record_every=3), r"^record_every=3 must divide num_steps=10"),
    (dict(num_steps=10, seed=0, target=1.5), r"^target=1.5 must be None or a predicate"),
    (dict(num_steps=10, seed=0, basins=Arc(0.0, 1.0)), r"^basins=.* must be a sequence"),
])
def test_simulation_config_refuses_bad_fields_naming_them(kwargs, message):
    """Each bad field is a ValueError that starts with the field's name and states its range."""
    with pytest.raises(ValueError, match=message):
        SimulationConfig(**kwargs)


def test_simulation_config_resolves_its_defaults_and_is_frozen():
    """record_every None becomes default_record_every(num_steps) (about 100 records) once; basins become a tuple;
    values are normalised (integral floats to int); the object is frozen and hashable (a compile-cache key part)."""
    config = SimulationConfig(num_steps=1000, seed=3.0, basins=[EnergyBelow(-1.0)])
    assert config.record_every == default_record_every(1000) == 10 and config.num_records == 100
    assert config.seed == 3 and isinstance(config.seed, int) and config.basins == (EnergyBelow(-1.0),)
    assert config.t_start == 0.0 and config.target is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.num_steps = 5  # type: ignore[misc]
    assert hash(config) == hash(SimulationConfig(num_steps=1000, seed=3, basins=(EnergyBelow(-1.0),)))
    assert dataclasses.replace(config, seed=4).seed == 4
    with pytest.raises(ValueError, match="seed"):
        dataclasses.replace(config, seed=-4)  # replace validates again


@pytest.mark.parametrize("kwargs, message", [
    (dict(prng_impl="mt19937"), r"^prng_impl='mt19937' is not one of \('threefry2x32', 'rbg', 'unsafe_rbg', "
                                r"'fused-threefry'\)"),
    (dict(step_path="fast"), r"^step_path='fast' is not one of \('circle', 'chains-last', 'vmap'\)"),
    (dict(shard_chains=2), r"^shard_chains=2 must be None, True or False"),
    (dict(unroll=0), r"^unroll=0 is outside its domain: integers in \[1, 1024\]"),
    (dict(chunk_steps=0), r"^chunk_steps=0 is outside"),
    (dict(chunk_seconds=0.0), r"^chunk_seconds=0.0 is outside its domain \(0, inf\)"),
    (dict(checkpoint_seconds=-1.0), r"^checkpoint_seconds=-1.0 is outside its domain \[0, inf\)"),
    (dict(stop_after_steps=0), r"^stop_after_steps=0 is outside"),
    (dict(resume=True), r"^resume=True needs checkpoint=<file path>"),
    (dict(checkpoint=""), r"^checkpoint='' must be a file path"),
    (dict(checkpoint=3), r"^checkpoint=3 must be a file path"),
])
def test_driver_options_refuse_bad_fields_naming_them(kwargs, message):
    """Each bad option is a ValueError naming it and its allowed values; checkpoint_seconds may be inf."""
    with pytest.raises(ValueError, match=message):
        DriverOptions(**kwargs)
    assert DriverOptions(checkpoint_seconds=math.inf).checkpoint_seconds == math.inf


def test_stop_after_steps_beyond_the_run_is_refused_by_simulate():
    """stop_after_steps is checked against the run's num_steps when both are known (in simulate)."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin import langevin_kernel, simulate

    kernel = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.01)
    with pytest.raises(ValueError, match=r"^stop_after_steps=11 is outside its domain \[1, num_steps=10\]"):
        simulate(kernel, np.tile([[[1.0, 0.0]]], (2, 1, 1)), SimulationConfig(num_steps=10, seed=0),
                 DriverOptions(stop_after_steps=11))
    with pytest.raises(TypeError, match="SimulationConfig"):
        simulate(kernel, np.tile([[[1.0, 0.0]]], (2, 1, 1)), dict(num_steps=10, seed=0))  # type: ignore[arg-type]


def test_whole_steps_names_both_arguments():
    """t_end / step_size must be a whole number of steps in [1, 2**31 - 2]; messages name both (or the given names)."""
    assert whole_steps(1.0, 0.02) == 50 and whole_steps(0.3, 0.1) == 3  # 0.3/0.1 = 2.9999999999999996
    with pytest.raises(ValueError, match=r"^t_end=1.0 must be a positive whole multiple of step_size=0.3"):
        whole_steps(1.0, 0.3)
    with pytest.raises(ValueError, match=r"^--time / --step-size = 5e\+15 steps is outside its domain: at most "
                                         rf"{MAX_STEPS} steps"):
        whole_steps(1e9, 2e-7, names=("--time", "--step-size"))


def test_checkpoint_paths_are_checked_before_work(tmp_path):
    """check_checkpoint_path: a folder, a path under a file and an unwritable place are refused naming the argument;
    a fresh path's folder is created (as the first write would)."""
    with pytest.raises(ValueError, match=r"^checkpoint='.*' is a folder; give a file path such as '.*/run.npz'"):
        check_checkpoint_path(tmp_path)
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"^ck='.*/f/x.npz': its folder '.*/f' is not a folder"):
        check_checkpoint_path(tmp_path / "f" / "x.npz", name="ck")
    with pytest.raises(ValueError, match=r"^checkpoint='/proc/x.npz': its folder '/proc' is not writable"):
        check_checkpoint_path("/proc/x.npz")
    assert check_checkpoint_path(str(tmp_path / "new" / "run.npz")) == tmp_path / "new" / "run.npz"
    assert (tmp_path / "new").is_dir()


@pytest.mark.parametrize("kwargs, message", [
    (dict(schedule=2.0), r"^schedule=2.0 must be a Schedule"),
    (dict(chains=0), r"^chains=0 is outside its domain: integers in \[1, 10000000\]"),
    (dict(t_end=0.0), r"^t_end=0.0 is outside its domain \(0, inf\)"),
    (dict(step_size=-0.1), r"^step_size=-0.1 is outside"),
    (dict(t_end=1.0, step_size=0.3), r"^t_end=1.0 must be a positive whole multiple of step_size=0.3"),
    (dict(seed=2**32), r"^seed=4294967296 is outside"),
    (dict(start="bogus"), r"^start='bogus' is not one of \('trap', 'uniform', 'global'\) or a minimum label m<id>"),
    (dict(delta=0.0), r"^delta=0.0 is outside its domain \(0, inf\)"),
    (dict(integrator="rk4"), r"^integrator='rk4' is not one of \('euler', 'geodesic'\)"),
    (dict(schedule=make_schedule("temperature", c=2.0, t0=1.0)), r"t0"),  # T(0) = 2/log(1) is infinite (C12)
])
def test_anneal_config_refuses_bad_fields_naming_them(kwargs, message):
    """AnnealConfig validates every field when built (and the schedule on [0, t_end])."""
    with pytest.raises(ValueError, match=message):
        AnnealConfig(**{"schedule": SCHEDULE, **kwargs})
    ok = AnnealConfig(SCHEDULE, t_end=2.0, start="m12")
    assert ok.steps() == (0.02, 100) and ok.steps(0.5) == (0.5, 4)


@pytest.mark.slow
def test_anneal_reports_the_experiment_and_refuses_what_needs_a_saved_search():
    """anneal(landscape, config) runs the experiment: its counts equal run_schedule's with the same arguments, its
    intervals are Clopper-Pearson of those counts, the verdict is the schedule's for H*, and a trap start gets the
    Kramers band; a start at a minimum label needs a saved search (network_anneal), a trap needs an S¹ trap."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin._experiments import run_schedule
    from contrastive_bounds.numerics._stats import clopper_pearson

    land = get_landscape("double-well")
    config = AnnealConfig(SCHEDULE, chains=64, t_end=4.0, seed=5)
    report = anneal(land, config)
    again = run_schedule(land, SCHEDULE, chains=64, t_end=4.0, step_size=0.02, seed=5)
    assert report.run.success == again.success and report.run.reached == again.reached
    np.testing.assert_array_equal(report.run.hit_time, again.hit_time)
    assert report.success == clopper_pearson(again.success, 64, 0.95)
    assert report.trapped == clopper_pearson(64 - again.reached, 64, 0.95)
    assert report.verdict == SCHEDULE.converges(land.critical_height) and report.verdict.converges
    assert report.band is not None and report.band.lo <= report.band.predicted <= report.band.hi
    with pytest.raises(ValueError, match=r"^start='m3' is not one of .* needs a saved landscape search"):
        anneal(land, AnnealConfig(SCHEDULE, chains=4, t_end=1.0, start="m3"))
    with pytest.raises(ValueError, match=r"^start='trap' needs an S¹ landscape"):
        anneal(get_landscape("vmf"), AnnealConfig(SCHEDULE, chains=4, t_end=1.0))


@pytest.mark.slow
def test_the_configuration_modules_import_no_jax():
    """config, annealing and cost (and the package face) load without JAX: the command line builds its
    configuration before JAX starts; the face loads the simulator's names on first use."""
    code = ("import sys, json\n"
            "import contrastive_bounds.numerics.langevin as L\n"
            "from contrastive_bounds.numerics.langevin._config import SimulationConfig, DriverOptions\n"
            "from contrastive_bounds.numerics.langevin._annealing import AnnealConfig\n"
            "from contrastive_bounds.theory._schedules import make_schedule\n"
            "AnnealConfig(make_schedule('temperature', c=2.0, t0=2.0), t_end=1.0, step_size=0.02)\n"
            "SimulationConfig(num_steps=10, seed=0); DriverOptions(prng_impl='rbg')\n"
            "before = 'jax' in sys.modules\n"
            "k = L.langevin_kernel\n"
            "print(json.dumps([before, 'jax' in sys.modules, set(L.__all__) <= set(dir(L))]))\n")
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, True, True]
