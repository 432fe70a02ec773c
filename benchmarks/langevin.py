"""Throughput of the Langevin simulator: JAX driver vs a vectorised numpy implementation of the same update.

Run: ``.venv/bin/python benchmarks/langevin.py [--repeats 5] [--steps 2000]``

Cases (issue 4):
  (a) ``double-well`` on S¹, 16 384 chains, float32;
  (b) ``infonce-toy`` (U0, N = 4 points on S², pairs (0,1),(2,3)), 4 096 chains, float32.

Both sides do the same work per step: projected Euler–Maruyama with normalisation
z ← normalize(z − h·P(z)∇V + sqrt(2·T·h)·P(z)ξ), the potential V at the new point (the driver
tracks the running minimum; numpy does too), fixed T = 0.3, h = 0.01. On S¹ both draw one normal
per chain-step (the tangent coordinate; same law as P(z)ξ); on S² both draw d = 3 normals per
factor and project. The potential and gradient on each side are written the same way as the
landscape (S¹: θ = atan2, V(θ) = −0.5 cos θ − cos 2θ; U0: hardest negative by max).
JAX: :func:`contrastive_bounds.numerics.driver.simulate` (compiled once, then timed), numpy:
``np.random.default_rng`` (PCG64, ziggurat normals) in float32. Figures are medians over
``--repeats`` runs; compilation is excluded (one warm-up run with the same shapes). The ratio is
printed last. Float32 throughout (a throughput figure; the checks of the test suite use float64).
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import subprocess
import time

import numpy as np

TEMP, H = 0.3, 0.01


# ----------------------------------------------------------------------------- numpy baselines
def numpy_double_well(z: np.ndarray, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """z: (chains, 1, 2) float32. Returns final z and running min of V."""
    f = np.float32
    scale = f(math.sqrt(2 * TEMP * H))
    x = z[:, 0, 0].copy()
    y = z[:, 0, 1].copy()
    vmin = np.full(x.shape, np.inf, dtype=f)
    for _ in range(steps):
        theta = np.arctan2(y, x)
        dv = f(0.5) * np.sin(theta) + f(2.0) * np.sin(f(2.0) * theta)  # V'(θ)
        r2 = x * x + y * y
        # Euclidean gradient of V(atan2(y, x)) = V'(θ)·(−y, x)/r²; its tangent part along t = (−y, x)
        gt = dv / r2  # ∇V·t
        eta = rng.standard_normal(x.shape, dtype=f)
        a = -H * gt + scale * eta  # tangent coordinate of the increment
        x, y = x - a * y, y + a * x
        inv = 1.0 / np.sqrt(x * x + y * y)
        x *= inv
        y *= inv
        theta = np.arctan2(y, x)
        v = f(-0.5) * np.cos(theta) - np.cos(f(2.0) * theta)
        np.minimum(vmin, v, out=vmin)
    return np.stack([x, y], axis=-1)[:, None, :], vmin


_DIRECTED = [(0, 1, (2, 3)), (1, 0, (2, 3)), (2, 3, (0, 1)), (3, 2, (0, 1))]


def _u0_and_grad(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """U0 and its (sub)gradient for z (chains, 4, 3): mean over directed pairs of −s_ap + max_k s_ak."""
    s = np.einsum("cnd,cmd->cnm", z, z)
    g = np.zeros_like(z)
    v = np.zeros(z.shape[0], dtype=z.dtype)
    m = np.float32(1.0 / len(_DIRECTED))
    for a, p, (k1, k2) in _DIRECTED:
        pick = s[:, a, k1] >= s[:, a, k2]
        k = np.where(pick, k1, k2)
        zk = np.where(pick[:, None], z[:, k1], z[:, k2])
        v += -s[:, a, p] + np.where(pick, s[:, a, k1], s[:, a, k2])
        g[:, a] += m * (zk - z[:, p])
        g[:, p] -= m * z[:, a]
        np.add.at(g, (np.arange(z.shape[0]), k), m * z[:, a])
    return m * v, g


def numpy_infonce(z: np.ndarray, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    f = np.float32
    scale = f(math.sqrt(2 * TEMP * H))
    vmin = np.full(z.shape[0], np.inf, dtype=f)
    _, g = _u0_and_grad(z)
    for _ in range(steps):
        xi = rng.standard_normal(z.shape, dtype=f)
        w = -H * g + scale * xi
        w -= np.sum(w * z, axis=-1, keepdims=True) * z
        z = z + w
        z /= np.sqrt(np.sum(z * z, axis=-1, keepdims=True))
        v, g = _u0_and_grad(z)
        np.minimum(vmin, v, out=vmin)
    return z, vmin


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
    import os

    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()}"


def run_case(name: str, landscape: str, chains: int, steps: int, repeats: int, numpy_steps: int, prng: str, unroll: int) -> None:
    import jax

    from contrastive_bounds.numerics.driver import simulate
    from contrastive_bounds.numerics.landscapes import get_landscape
    from contrastive_bounds.numerics.langevin import langevin_kernel
    from contrastive_bounds.numerics.sphere import uniform

    land = get_landscape(landscape)
    kernel = langevin_kernel(land, temperature=TEMP, step_size=H)
    z0 = np.asarray(uniform(jax.random.key(0), (chains, land.num_points, land.dim), dtype=np.float32))

    def jax_run():
        return simulate(kernel, z0, num_steps=steps, seed=1, record_every=steps, chunk_steps=steps, prng_impl=prng, unroll=unroll)

    jax_run()  # compile
    jax_rate = _median_rate(jax_run, chains, steps, repeats)
    rng = np.random.default_rng(1)
    np_fn = numpy_double_well if landscape == "double-well" else numpy_infonce
    np_fn(z0, 2, rng)  # warm-up
    np_rate = _median_rate(lambda: np_fn(z0, numpy_steps, rng), chains, numpy_steps, repeats)
    print(f"[{name}] {landscape}, {chains} chains, float32, prng={prng}, unroll={unroll}")
    print(f"  numpy baseline : {np_rate:14,.0f} chain-steps/s  (median of {repeats}, {numpy_steps} steps)")
    print(f"  JAX driver     : {jax_rate:14,.0f} chain-steps/s  (median of {repeats}, {steps} steps)")
    print(f"  ratio JAX/numpy: {jax_rate / np_rate:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--numpy-steps", type=int, default=200)
    ap.add_argument("--prng", default="threefry2x32", choices=["threefry2x32", "rbg", "unsafe_rbg"])
    ap.add_argument("--unroll", type=int, default=1)
    args = ap.parse_args()
    print(f"machine: {_machine()}")
    run_case("a", "double-well", 16_384, args.steps, args.repeats, args.numpy_steps, args.prng, args.unroll)
    run_case("b", "infonce-toy", 4_096, args.steps, args.repeats, args.numpy_steps, args.prng, args.unroll)


if __name__ == "__main__":
    main()
