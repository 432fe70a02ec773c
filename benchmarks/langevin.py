"""Throughput of the Langevin simulator: JAX driver vs a vectorised numpy implementation of the same update.

Run: ``.venv/bin/python benchmarks/langevin.py [--repeats 5] [--steps 4000] [--prng fused-threefry] [--devices 2]``

Cases (issue 4):
  (a) ``double-well`` on S¹, 16 384 chains, float32;
  (b) ``infonce-toy`` (U0, N = 4 points on S², pairs (0,1),(2,3)), 4 096 chains, float32.

Both sides do the same work per step with the same formulas: projected Euler–Maruyama with
normalisation z ← normalize(z − h·P(z)∇V + sqrt(2·T·h)·P(z)ξ), then V and ∇V at the new point (the
driver tracks the running minimum; numpy does too), fixed T = 0.3, h = 0.01. On S¹ both draw one
normal per chain-step (the tangent coordinate; same law as P(z)ξ) and evaluate V, V'(θ) in
z-coordinates by the complex-power recursion (no atan2/sin/cos; numpy calls the very same
``FourierSeries.value_and_derivative_z``), ∇V = V'(θ)·(−z₁, z₀); on S² both draw d = 3 normals per
factor and project, and U0 and its one-hot subgradient are the same unrolled formula over the four
directed pairs. Both use the chains-last layout (contiguous chains).

JAX: :func:`contrastive_bounds.numerics.langevin.driver.simulate` through the kernel's chains-last fast path,
compiled once (compilation excluded), with ``--prng`` (default ``fused-threefry``: Threefry-2x32-20
fused into the step + Box–Muller; ``threefry2x32`` is ``jax.random.normal``) and the chains sharded
over ``--devices`` host devices (default 2: sets ``XLA_FLAGS=--xla_force_host_platform_device_count``
before JAX starts; one thread each). numpy: one thread, ``np.random.default_rng`` (PCG64, ziggurat
normals, its fastest normal generator) in float32. Repeats are interleaved (JAX, numpy, JAX, ...);
figures are medians; the machine and its load average are printed, the ratios last. Float32
throughout (a throughput figure; the checks of the test suite use float64).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import subprocess
import time

import numpy as np

TEMP, H = 0.3, 0.01


# ----------------------------------------------------------------------------- numpy baselines
# Same formulas as the JAX fast path (LangevinKernel.step_chains_last + the landscapes' fused
# value_and_grad), vectorised over chains in the same chains-last layout (arrays (N, d, chains)).
def numpy_double_well(z: np.ndarray, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """z: (chains, 1, 2) float32. Returns final z and the running min of V.

    S¹ step with one normal per chain: a = −h·(∇V·t) + sqrt(2Th)·η along t = (−y, x), then
    normalisation; V and V'(θ) by the same complex-power recursion as the landscape
    (:meth:`FourierSeries.value_and_derivative_z`, called here with numpy arrays), ∇V = V'·(−y, x).
    """
    from contrastive_bounds.numerics.landscapes.registry import get_landscape

    series = get_landscape("double-well").fourier
    f = np.float32
    scale = f(math.sqrt(2 * TEMP * H))
    h = f(H)
    x = np.ascontiguousarray(z[:, 0, 0])
    y = np.ascontiguousarray(z[:, 0, 1])
    v, dv = series.value_and_derivative_z(x, y)
    g0, g1 = -y * dv, x * dv
    vmin = v.copy()
    for _ in range(steps):
        eta = rng.standard_normal(x.shape, dtype=f)
        a = -h * (g1 * x - g0 * y) + scale * eta
        nx, ny = x - a * y, y + a * x
        r = f(1.0) / np.sqrt(nx * nx + ny * ny)
        x, y = nx * r, ny * r
        v, dv = series.value_and_derivative_z(x, y)
        g0, g1 = -y * dv, x * dv
        np.minimum(vmin, v, out=vmin)
    return np.stack([x, y], axis=-1)[:, None, :], vmin


_DIRECTED = [(0, 1, (2, 3)), (1, 0, (2, 3)), (2, 3, (0, 1)), (3, 2, (0, 1))]


def _u0_and_grad(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """U0 and its one-hot subgradient for z (4, 3, chains), the formula of
    ``infonce_potentials.hardest_negative_value_and_grad``: mean over directed pairs of
    −s_ap + max_k s_ak; rows a, p, k* of the gradient get z_k* − z_p, −z_a, +z_a."""
    rows = [z[i] for i in range(z.shape[0])]
    grads = [np.zeros_like(rows[0]) for _ in rows]
    total = np.zeros(z.shape[-1], dtype=z.dtype)
    for a, p, (k1, k2) in _DIRECTED:
        za = rows[a]
        s1 = np.sum(za * rows[k1], axis=0)
        s2 = np.sum(za * rows[k2], axis=0)
        take = s2 > s1
        best = np.where(take, s2, s1)
        total += best - np.sum(za * rows[p], axis=0)
        grads[a] += np.where(take, rows[k2], rows[k1]) - rows[p]
        grads[p] -= za
        grads[k1] += np.where(take, 0, za)
        grads[k2] += np.where(take, za, 0)
    m = z.dtype.type(1.0 / len(_DIRECTED))
    return total * m, np.stack(grads) * m


def numpy_infonce(z: np.ndarray, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """z: (chains, 4, 3) float32; projected Euler–Maruyama + normalisation on (S²)⁴, 3 normals per factor."""
    f = np.float32
    scale = f(math.sqrt(2 * TEMP * H))
    h = f(H)
    z = np.ascontiguousarray(np.moveaxis(z, 0, -1))  # (4, 3, chains)
    v, g = _u0_and_grad(z)
    vmin = v.copy()
    for _ in range(steps):
        xi = rng.standard_normal(z.shape, dtype=f)
        w = -h * g + scale * xi
        w -= np.sum(w * z, axis=1, keepdims=True) * z
        z = z + w
        z *= f(1.0) / np.sqrt(np.sum(z * z, axis=1, keepdims=True))
        v, g = _u0_and_grad(z)
        np.minimum(vmin, v, out=vmin)
    return np.moveaxis(z, -1, 0), vmin


# ----------------------------------------------------------------------------- harness
def _median_rate(fn, chains: int, steps: int, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        rates.append(chains * steps / (time.perf_counter() - t))
    return statistics.median(rates)


def _machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except Exception:  # pragma: no cover - informational only
        model = platform.processor() or "unknown"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()}, load average (1 min) {load:.2f}"


def run_case(name: str, landscape: str, chains: int, steps: int, repeats: int, numpy_steps: int, prng: str,
             unroll: int, shard: bool) -> float:
    import jax

    from contrastive_bounds.numerics.langevin import simulate
    from contrastive_bounds.numerics.landscapes.registry import get_landscape
    from contrastive_bounds.numerics.langevin.kernel import langevin_kernel
    from contrastive_bounds.numerics.sphere import uniform

    land = get_landscape(landscape)
    kernel = langevin_kernel(land, temperature=TEMP, step_size=H)
    z0 = np.asarray(uniform(jax.random.key(0), (chains, land.num_points, land.dim), dtype=np.float32))

    def jax_run():
        return simulate(kernel, z0, num_steps=steps, seed=1, record_every=steps, chunk_steps=steps, prng_impl=prng,
                        unroll=unroll, shard_chains=shard)

    jax_run()  # compile
    rng = np.random.default_rng(1)
    np_fn = numpy_double_well if landscape == "double-well" else numpy_infonce
    np_fn(z0, 2, rng)  # warm-up
    # Interleaved repeats (JAX, numpy, JAX, numpy, ...): on a shared machine a load change then hits
    # both sides alike, and the ratio of medians is less noisy than two separate blocks of runs.
    jax_rates, np_rates = [], []
    for _ in range(repeats):
        jax_rates.append(_median_rate(jax_run, chains, steps, 1))
        np_rates.append(_median_rate(lambda: np_fn(z0, numpy_steps, rng), chains, numpy_steps, 1))
    jax_rate, np_rate = statistics.median(jax_rates), statistics.median(np_rates)
    devices = len(jax.devices()) if shard else 1
    print(f"[{name}] {landscape}, {chains} chains, float32, prng={prng}, unroll={unroll}, devices={devices}")
    print(f"  numpy baseline : {np_rate:14,.0f} chain-steps/s  (median of {repeats}, {numpy_steps} steps, 1 thread)")
    print(f"  JAX driver     : {jax_rate:14,.0f} chain-steps/s  (median of {repeats}, {steps} steps)")
    return jax_rate / np_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--numpy-steps", type=int, default=400)
    ap.add_argument("--prng", default="fused-threefry", choices=["fused-threefry", "threefry2x32", "rbg", "unsafe_rbg"])
    ap.add_argument("--unroll", type=int, default=1)
    ap.add_argument("--devices", type=int, default=2,
                    help="CPU devices to shard the chains over (sets XLA_FLAGS before JAX starts; 1 = no sharding)")
    args = ap.parse_args()
    if args.devices > 1:
        flag = f"--xla_force_host_platform_device_count={args.devices}"
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flag).strip()
    print(f"machine: {_machine()}")
    ratios = {}
    for name, land, chains in (("a", "double-well", 16_384), ("b", "infonce-toy", 4_096)):
        ratios[name] = run_case(name, land, chains, args.steps, args.repeats, args.numpy_steps, args.prng, args.unroll,
                                args.devices > 1)
    print(f"machine load after the runs: {os.getloadavg()[0]:.2f}")
    for name, r in ratios.items():
        print(f"ratio JAX/numpy ({name}): {r:.1f}x")


if __name__ == "__main__":
    main()
