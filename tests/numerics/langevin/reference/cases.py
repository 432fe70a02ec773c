"""The representative simulator runs whose outputs are stored in ``reference/`` (see test_reference_runs.py).

Plain data and builders that do not depend on the simulator's API (landscapes, temperatures, initial
positions, targets, basins), so that the recorder (``reference/record.py``) and the test replay the same
runs. Small sizes: 8-16 chains, 40-240 steps.

One case per step path and configuration the driver can take: the complex S¹ path, the chains-last
path (S² and S¹ factors), the vmapped generic path (Euler, geodesic, anisotropic noise, an explicit
gradient on S¹ with tangent noise, a plain callable potential with a callable temperature), each
noise generator (the fused default in float32, ``jax.random`` in float64, the fused generator in
float64 with odd record units, ``unsafe_rbg``), unroll > 1, ``t_start`` > 0, a checkpoint written
half-way, and chains split over two host devices.
"""

from __future__ import annotations

import math

import numpy as np

THETA_S = math.acos(-1 / 8)  # the saddles of double-well at ±θ_s

CASES: dict[str, dict] = {
    "f32_circle_fused_default": dict(landscape="double-well", temperature=("temperature", 2.0, 2.0), h=0.02,
                                     dtype="float32", chains=16, steps=240, seed=3, record_every=20, start="pi",
                                     target=("energy", -1.4), basins="double-well"),
    "f32_chains_last_fused_default": dict(landscape="infonce-toy", temperature=0.4, h=0.01, dtype="float32",
                                          chains=16, steps=120, seed=5, record_every=10, target=("energy", -1.9)),
    "f32_generic_fused_default": dict(landscape="vmf", temperature=1.0, h=0.02, dtype="float32", chains=16,
                                      steps=120, seed=6, record_every=30, chunk_steps=60),
    "f64_circle": dict(landscape="double-well", temperature=("temperature", 2.0, 1.5), h=0.02, dtype="float64",
                       chains=16, steps=200, seed=4, record_every=25, chunk_steps=50, target=("energy", -1.4),
                       basins="double-well"),
    "f64_chains_last": dict(landscape="infonce-toy", temperature=("temperature", 2.0, 2.0), h=0.01,
                            dtype="float64", chains=8, steps=120, seed=7, record_every=20, target=("energy", -1.9)),
    "f64_chains_last_circle_factors": dict(landscape="u0-s1", temperature=0.3, h=0.01, dtype="float64", chains=8,
                                           steps=100, seed=8, record_every=10),
    "f64_generic_vmf": dict(landscape="vmf", temperature=1.0, h=0.02, dtype="float64", chains=16, steps=160,
                            seed=9, record_every=40),
    "f64_generic_geodesic": dict(landscape="infonce-toy-soft", temperature=("author", 1.0, 2.0), h=0.01,
                                 dtype="float64", chains=8, steps=100, seed=10, record_every=25,
                                 integrator="geodesic"),
    "f64_generic_anisotropic": dict(landscape="vmf", temperature=1.0, h=0.01, dtype="float64", chains=16,
                                    steps=100, seed=11, record_every=20, anisotropy=[10.0, 10.0, 0.01]),
    "f64_generic_circle_tangent": dict(landscape="double-well", explicit_grad=True, temperature=("temperature", 2.0, 2.0),
                                       h=0.02, dtype="float64", chains=16, steps=120, seed=12, record_every=30,
                                       start="pi", target=("arc", -0.5, 0.5), basins="double-well"),
    "f64_plain_callable": dict(landscape="vmf", plain_callable=True, temperature="callable", h=0.02,
                               dtype="float64", chains=8, steps=80, seed=13, record_every=20),
    "f64_circle_fused_odd_units": dict(landscape="double-well", temperature=0.5, h=0.02, dtype="float64",
                                       chains=16, steps=126, seed=14, record_every=7, chunk_steps=21,
                                       prng="fused-threefry", target=("energy", -1.4)),
    "f64_chains_last_unsafe_rbg_unroll": dict(landscape="infonce-toy", temperature=0.4, h=0.01, dtype="float64",
                                              chains=8, steps=60, seed=15, record_every=15, prng="unsafe_rbg",
                                              unroll=3),
    "f64_circle_t_start": dict(landscape="triple-well", temperature=("temperature", 1.0, 1.0), h=0.01,
                               dtype="float64", chains=8, steps=100, seed=16, record_every=50, t_start=0.5),
    "f32_generic_threefry": dict(landscape="infonce-toy-soft", temperature=0.3, h=0.01, dtype="float32", chains=8,
                                 steps=60, seed=17, record_every=20, prng="threefry2x32"),
}

#: The public one-chain kernel: ``steps`` calls of ``jax.vmap(kernel.step)`` with per-chain keys
#: ``fold_in(split(key(seed), chains)[i], k)`` chained over the steps, at ``t = t_start + k·h``.
KERNEL_CASES: dict[str, dict] = {
    "vmf": dict(landscape="vmf", temperature=1.0, h=0.02, dtype="float64", chains=4, steps=5, seed=21),
    "circle_tangent": dict(landscape="double-well", temperature=("temperature", 2.0, 2.0), h=0.02, dtype="float64",
                           chains=4, steps=5, seed=22),
    "geodesic": dict(landscape="infonce-toy-soft", temperature=0.5, h=0.01, dtype="float64", chains=4, steps=5,
                     seed=23, integrator="geodesic"),
    "anisotropic": dict(landscape="vmf", temperature=1.0, h=0.01, dtype="float64", chains=4, steps=5, seed=24,
                        anisotropy=[[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.2]]),
    "u0_float32": dict(landscape="infonce-toy", temperature=0.4, h=0.01, dtype="float32", chains=4, steps=5, seed=25),
}

#: Written half-way (``stop_after_steps = steps // 2``) to ``reference/checkpoint_half.npz``, then
#: the whole run uninterrupted.
CHECKPOINT_CASE = dict(landscape="double-well", temperature=("temperature", 2.0, 2.0), h=0.02, dtype="float64",
                       chains=8, steps=200, seed=31, record_every=20, chunk_steps=50, start="pi",
                       target=("arc", -0.5, 0.5), basins="double-well")

#: Run in a process with two host devices (``--xla_force_host_platform_device_count=2``).
SHARDED_CASES: dict[str, dict] = {
    f"sharded_{name}_{impl}": dict(landscape=name, temperature=0.3, h=0.02, dtype="float64", chains=16, steps=40,
                                   seed=1, record_every=10, prng=impl, shard_chains=True)
    for name in ("double-well", "infonce-toy") for impl in ("fused-threefry", "threefry2x32")
}
SHARDED_CASES["sharded_vmf_f32_default"] = dict(landscape="vmf", temperature=1.0, h=0.02, dtype="float32", chains=16,
                                                steps=40, seed=2, record_every=10, shard_chains=True)


def landscape_of(case: dict):
    from contrastive_bounds.numerics.landscapes._infonce import hardest_negative_potential, \
        hardest_negative_value_and_grad
    from contrastive_bounds.numerics.landscapes._landscape import Landscape
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    name = case["landscape"]
    if name == "u0-s1":  # the author's U0 on S¹ factors: the chains-last path with one tangent normal per factor
        pairs = ((0, 1), (2, 3))
        return Landscape(name="u0-s1", num_points=4, dim=2, potential_fn=hardest_negative_potential(4, pairs),
                         value_and_grad_fn=hardest_negative_value_and_grad(4, pairs), trailing_batch=True)
    if name == "vmf":
        return get_landscape("vmf", kappa=2.0)
    return get_landscape(name)


def temperature_of(case: dict):
    from contrastive_bounds.theory._schedules import make_schedule

    spec = case["temperature"]
    if spec == "callable":
        return lambda t, xp: 0.5 + 0.5 / xp.log(t + 3.0)
    if isinstance(spec, tuple):
        form, c, t0 = spec
        return make_schedule(form, c=c, t0=t0)
    return float(spec)


def positions_of(case: dict) -> np.ndarray:
    import jax

    from contrastive_bounds.numerics._sphere import uniform

    land = landscape_of(case)
    dtype = np.dtype(case["dtype"])
    if case.get("start") == "pi":
        pos = np.zeros((case["chains"], 1, 2), dtype)
        pos[:, 0, 0] = -1.0
        return pos
    key = jax.random.key(1000 + case["seed"])
    return np.asarray(uniform(key, (case["chains"], land.num_points, land.dim), dtype=dtype))


def target_of(case: dict):
    from contrastive_bounds.numerics.langevin import Arc, EnergyBelow

    spec = case.get("target")
    if spec is None:
        return None
    if spec[0] == "energy":
        return EnergyBelow(spec[1])
    return Arc(spec[1], spec[2])


def basins_of(case: dict) -> tuple:
    from contrastive_bounds.numerics.langevin import Arc

    if case.get("basins") == "double-well":
        return (Arc(-THETA_S, THETA_S), Arc(THETA_S, 2 * math.pi - THETA_S))
    return ()
