"""Record the reference runs of cases.py (run from the repository root, x64 on):

    JAX_PLATFORMS=cpu python tests/numerics/langevin/reference/record.py tests/numerics/langevin/reference/runs.npz
    XLA_FLAGS=--xla_force_host_platform_device_count=2 JAX_PLATFORMS=cpu \
        python tests/numerics/langevin/reference/record.py tests/numerics/langevin/reference/sharded.npz sharded

Writes the arrays (``<case>/<field>``), the runs' configurations (``.json`` beside) and, in the first
form, ``checkpoint_half.npz``. The stored files were recorded before the simulator's step paths became
separate step functions; test_reference_runs.py holds the current code to them.
"""
import json, math, sys, os
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, KERNEL_CASES, landscape_of, temperature_of, positions_of, target_of, basins_of, SHARDED_CASES, CHECKPOINT_CASE
from contrastive_bounds.numerics.langevin import simulate
from contrastive_bounds.numerics.langevin.kernel import langevin_kernel

OUT = sys.argv[1]
FIELDS = ("positions", "potential", "running_min", "hit_time", "occupancy", "final_basin", "escapes", "energy_trace")

def kernel_of(c):
    land = landscape_of(c)
    if c.get("explicit_grad"):
        return langevin_kernel(land.potential, grad=land.grad, temperature=temperature_of(c), step_size=c["h"],
                               integrator=c.get("integrator", "euler"), anisotropy=c.get("anisotropy"))
    if c.get("plain_callable"):
        return langevin_kernel(land.potential, temperature=temperature_of(c), step_size=c["h"],
                               integrator=c.get("integrator", "euler"), anisotropy=c.get("anisotropy"))
    return langevin_kernel(land, temperature=temperature_of(c), step_size=c["h"], integrator=c.get("integrator", "euler"),
                           anisotropy=c.get("anisotropy"))

def run(c, **extra):
    k = kernel_of(c)
    kw = dict(num_steps=c["steps"], seed=c["seed"], record_every=c.get("record_every"), chunk_steps=c.get("chunk_steps"),
              target=target_of(c), basins=basins_of(c), prng_impl=c.get("prng"), unroll=c.get("unroll", 1),
              t_start=c.get("t_start", 0.0), shard_chains=c.get("shard_chains"))
    kw.update(extra)
    return simulate(k, positions_of(c), **kw)

def main():
    arrays, configs = {}, {}
    mode = sys.argv[2] if len(sys.argv) > 2 else "single"
    cases = SHARDED_CASES if mode == "sharded" else CASES
    for name, c in cases.items():
        res = run(c)
        for f in FIELDS:
            arrays[f"{name}/{f}"] = getattr(res, f)
        configs[name] = res.config
        print(name, res.config.get("prng_impl"), res.dtype, flush=True)
    if mode == "single":
        for name, c in KERNEL_CASES.items():
            k = kernel_of(c)
            pos = jnp.asarray(positions_of(c))
            states = jax.vmap(k.init)(pos)
            keys = jax.random.split(jax.random.key(c["seed"]), pos.shape[0])
            step = jax.jit(jax.vmap(k.step, in_axes=(0, 0, None)))
            for s in range(c["steps"]):
                keys = jax.vmap(lambda kk: jax.random.fold_in(kk, s))(keys)
                states = step(keys, states, jnp.asarray(c.get("t_start", 0.0) + s * c["h"], pos.dtype))
            for f in ("position", "potential", "grad"):
                arrays[f"kernel:{name}/{f}"] = np.asarray(getattr(states, f))
            print("kernel", name, flush=True)
        # checkpoint: stop half way, keep the file
        c = CHECKPOINT_CASE
        ck = os.path.join(os.path.dirname(OUT), "checkpoint_half.npz")
        if os.path.exists(ck):
            os.unlink(ck)
        part = run(c, checkpoint=ck, stop_after_steps=c["steps"] // 2)
        assert not part.complete
        full = run(c)
        for f in FIELDS:
            arrays[f"checkpoint_full/{f}"] = getattr(full, f)
        configs["checkpoint_full"] = full.config
    np.savez_compressed(OUT, **arrays)
    with open(OUT.replace(".npz", ".json"), "w") as fh:
        json.dump(configs, fh, indent=1, sort_keys=True)

main()
