"""Record the reference runs of cases.py (run from the repository root):

    JAX_PLATFORMS=cpu python tests/numerics/langevin/reference/record.py tests/numerics/langevin/reference/runs.npz
    XLA_FLAGS=--xla_force_host_platform_device_count=2 JAX_PLATFORMS=cpu \\
        python tests/numerics/langevin/reference/record.py tests/numerics/langevin/reference/sharded.npz sharded

Writes the arrays (``<case>/<field>``), the runs' configurations (``.json`` beside) and, in the first
form, ``checkpoint_half.npz``. The stored files were recorded before the simulator's step paths became
separate step functions (commit 65da986, with the same runs written against its keyword-argument
``simulate``); test_reference_runs.py holds the current code to them. The functions here are the runs
the test replays.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np


def _load_cases():
    spec = importlib.util.spec_from_file_location("langevin_reference_cases", Path(__file__).with_name("cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load_cases()
CASES, CHECKPOINT_CASE, KERNEL_CASES, SHARDED_CASES = cases.CASES, cases.CHECKPOINT_CASE, cases.KERNEL_CASES, \
    cases.SHARDED_CASES
basins_of, landscape_of, positions_of, target_of, temperature_of = cases.basins_of, cases.landscape_of, \
    cases.positions_of, cases.target_of, cases.temperature_of

FIELDS = ("positions", "potential", "running_min", "hit_time", "occupancy", "final_basin", "escapes", "energy_trace")


def kernel_of(case: dict):
    """The case's :class:`LangevinKernel` (a landscape, or its potential with/without its gradient)."""
    from contrastive_bounds.numerics.langevin import langevin_kernel

    land = landscape_of(case)
    kw = dict(temperature=temperature_of(case), step_size=case["h"], integrator=case.get("integrator", "euler"),
              anisotropy=case.get("anisotropy"))
    if case.get("explicit_grad"):
        return langevin_kernel(land.potential, grad=land.grad, **kw)
    if case.get("plain_callable"):
        return langevin_kernel(land.potential, **kw)
    return langevin_kernel(land, **kw)


def run(case: dict, **options):
    """The case's run: ``simulate`` with its configuration (``options``: more DriverOptions fields)."""
    from contrastive_bounds.numerics.langevin import DriverOptions, SimulationConfig, simulate

    config = SimulationConfig(num_steps=case["steps"], seed=case["seed"], t_start=case.get("t_start", 0.0),
                              record_every=case.get("record_every"), target=target_of(case), basins=basins_of(case))
    opts = DriverOptions(prng_impl=case.get("prng"), unroll=case.get("unroll", 1), chunk_steps=case.get("chunk_steps"),
                         shard_chains=case.get("shard_chains"), **options)
    return simulate(kernel_of(case), positions_of(case), config, opts)


def kernel_steps(case: dict):
    """``case["steps"]`` steps of ``jax.jit(jax.vmap(kernel.step))`` from the case's positions: chain i's key at
    step k is ``fold_in`` of its previous key and k (the first: ``split(key(seed), chains)[i]``)."""
    import jax
    import jax.numpy as jnp

    kernel = kernel_of(case)
    pos = jnp.asarray(positions_of(case))
    states = jax.vmap(kernel.init)(pos)
    keys = jax.random.split(jax.random.key(case["seed"]), pos.shape[0])
    step = jax.jit(jax.vmap(kernel.step, in_axes=(0, 0, None)))
    for k in range(case["steps"]):
        keys = jax.vmap(lambda key: jax.random.fold_in(key, k))(keys)
        states = step(keys, states, jnp.asarray(case.get("t_start", 0.0) + k * case["h"], pos.dtype))
    return states


def main(out: str, mode: str = "single") -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    arrays, configs = {}, {}
    for name, case in (SHARDED_CASES if mode == "sharded" else CASES).items():
        res = run(case)
        arrays.update({f"{name}/{f}": getattr(res, f) for f in FIELDS})
        configs[name] = res.config
        print(name, res.prng_impl, res.dtype, res.step_path, flush=True)
    if mode == "single":
        for name, case in KERNEL_CASES.items():
            states = kernel_steps(case)
            arrays.update({f"kernel:{name}/{f}": np.asarray(getattr(states, f)) for f in ("position", "potential", "grad")})
        ck = os.path.join(os.path.dirname(out), "checkpoint_half.npz")
        if os.path.exists(ck):
            os.unlink(ck)
        part = run(CHECKPOINT_CASE, checkpoint=ck, stop_after_steps=CHECKPOINT_CASE["steps"] // 2)
        assert not part.complete
        full = run(CHECKPOINT_CASE)
        arrays.update({f"checkpoint_full/{f}": getattr(full, f) for f in FIELDS})
        configs["checkpoint_full"] = full.config
    np.savez_compressed(out, **arrays)
    with open(out.replace(".npz", ".json"), "w") as fh:
        json.dump(configs, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
