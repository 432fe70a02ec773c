"""Throughput of the Langevin simulator against what a user would pick instead, in the same run.

Run: ``.venv/bin/python benchmarks/langevin.py [--repeats 5] [--steps 4000] [--prng IMPL] [--devices N]``
(needs the ``bench`` extra for BlackJAX: ``pip install -e ".[bench]"``; without it that line is skipped).

Cases:
  (a) ``double-well`` on S¹, 16 384 chains, float32;
  (b) ``infonce-toy`` (U0, N = 4 points on S², pairs (0,1),(2,3)), 4 096 chains, float32.

JAX: :func:`contrastive_bounds.numerics.langevin.simulate` with its DEFAULT configuration, as the entry
points run it: one CPU device per core requested before JAX starts
(:func:`contrastive_bounds.numerics.use_host_devices`, what the command line does), then
``simulate`` without ``prng_impl`` or ``shard_chains`` (float32: the validated fused generator;
chains split over the devices). ``--prng`` / ``--devices`` override for comparisons. Compilation
excluded.

Baselines (each the same dynamics, T = 0.3, h = 0.01, float32):

* numpy, one thread, the same formulas (projected Euler–Maruyama + normalisation, V at every step
  for the running minimum): on S¹ one normal per chain-step and V, V'(θ) by the complex-power
  recursion (the very same ``FourierSeries.value_and_derivative_z``); for U0 the same unrolled
  hardest-negative value and one-hot subgradient. ``np.random.default_rng`` (PCG64 ziggurat).
* (a) BlackJAX SGLD (``blackjax.sgld``, the standard JAX Langevin library) on the angle θ with the
  exact gradient V'(θ) = 0.5 sin θ + 2 sin 2θ (no autodiff), ``vmap`` over chains (a key per chain
  and step, split from the step's key) inside a jitted ``lax.scan`` over steps. It does less work
  than the simulator (no running minimum, no normalisation): the ratio is in its favour.
* (b) the author's-notebook style (farischaudhry/contrastive-learning-temperature-schedules,
  ``anisotropic.ipynb``, isotropic step; written here, not copied): U0 from the similarity matrix with
  a masked max per positive pair, its gradient by ``jax.grad``, the noise of step t from
  ``fold_in(chain key, t)``, tangent projection by ``einsum`` with I − zzᵀ, renormalisation;
  ``vmap`` over chains of a jitted ``lax.scan``.

Repeats are interleaved (each implementation once per round); figures are medians; the machine and
its load average are printed; the ratios last.
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
# Same formulas as the JAX fast path (numerics.langevin.steps.chains_last.step + the landscapes' fused
# value_and_grad), vectorised over chains in the same chains-last layout (arrays (N, d, chains)).
def numpy_double_well(z: np.ndarray, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """z: (chains, 1, 2) float32. Returns final z and the running min of V.

    S¹ step with one normal per chain: a = −h·(∇V·t) + sqrt(2Th)·η along t = (−y, x), then
    normalisation; V and V'(θ) by the same complex-power recursion as the landscape
    (:meth:`FourierSeries.value_and_derivative_z`, called here with numpy arrays), ∇V = V'·(−y, x).
    """
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

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


# ----------------------------------------------------------------------------- JAX baselines
def blackjax_sgld_double_well(chains: int, steps: int):
    """A jitted function ``(key, theta (chains,)) -> theta`` running ``steps`` BlackJAX SGLD steps of
    every chain on the angle of the double well, exact gradient; ``None`` if blackjax is missing."""
    try:
        import blackjax
    except ImportError:
        return None
    import jax
    import jax.numpy as jnp

    def grad_log_density(theta, minibatch):  # log density -V(θ): gradient -V'(θ), exact
        return -(0.5 * jnp.sin(theta) + 2.0 * jnp.sin(2.0 * theta))

    sgld = blackjax.sgld(grad_log_density)

    @jax.jit
    def run(key, theta):
        def one(th, k):
            keys = jax.random.split(k, chains)
            th = jax.vmap(lambda kk, t: sgld.step(kk, t, None, H, TEMP))(keys, th)
            return th, None

        theta, _ = jax.lax.scan(one, theta, jax.random.split(key, steps))
        return theta

    return run


def notebook_style_u0(steps: int):
    """The author's-notebook style for the U0 toy: ``(keys (chains,), z (chains, 4, 3)) -> z``."""
    import jax
    import jax.numpy as jnp

    pairs = jnp.array([(0, 1), (2, 3)])

    def u0(z):
        zn = z / jnp.linalg.norm(z, axis=1, keepdims=True)
        sim = zn @ zn.T

        def pair_energy(pair):
            i, j = pair[0], pair[1]
            mask = jnp.zeros_like(sim[i]).at[jnp.array([i, j])].set(-jnp.inf)
            return (-sim[i, j] + jnp.max(sim[i] + mask)) + (-sim[i, j] + jnp.max(sim[j] + mask))

        return jnp.sum(jax.lax.map(pair_energy, pairs)) / (2 * pairs.shape[0])

    grad_u0 = jax.grad(u0)

    def one_chain(key, z):
        def step(z, t):
            xi = jax.random.normal(jax.random.fold_in(key, t), z.shape, z.dtype)
            proj = jnp.eye(3, dtype=z.dtype) - jnp.einsum("bi,bj->bij", z, z)
            noise = jnp.einsum("bij,bj->bi", proj, xi) * jnp.sqrt(2 * H * TEMP)
            z = z - grad_u0(z) * H + noise
            return z / jnp.linalg.norm(z, axis=1, keepdims=True), None

        z, _ = jax.lax.scan(step, z, jnp.arange(steps))
        return z

    return jax.jit(jax.vmap(one_chain)), u0


# ----------------------------------------------------------------------------- harness
def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except Exception:  # pragma: no cover - informational only
        model = platform.processor() or "unknown"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()}, load average (1 min) {load:.2f}"


def run_case(name: str, landscape: str, chains: int, steps: int, repeats: int, numpy_steps: int, peer_steps: int,
             prng: str | None, unroll: int) -> dict[str, float]:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin import DriverOptions, SimulationConfig, langevin_kernel, simulate
    from contrastive_bounds.numerics._sphere import uniform

    land = get_landscape(landscape)
    kernel = langevin_kernel(land, temperature=TEMP, step_size=H)
    z0 = np.asarray(uniform(jax.random.key(0), (chains, land.num_points, land.dim), dtype=np.float32))
    config = SimulationConfig(num_steps=steps, seed=1, record_every=steps)
    options = DriverOptions(unroll=unroll, prng_impl=prng)

    def jax_run():
        return simulate(kernel, z0, config, options)

    first = jax_run()  # compile
    rng = np.random.default_rng(1)
    np_fn = numpy_double_well if landscape == "double-well" else numpy_infonce
    np_fn(z0, 2, rng)  # warm-up
    runs = {"JAX simulate (defaults)": (jax_run, steps), "numpy": (lambda: np_fn(z0, numpy_steps, rng), numpy_steps)}
    peer = None
    if landscape == "double-well":
        sgld = blackjax_sgld_double_well(chains, peer_steps)
        if sgld is None:
            print("  BlackJAX not installed (pip install -e '.[bench]'): its line is skipped")
        else:
            theta0 = jnp.asarray(np.arctan2(z0[:, 0, 1], z0[:, 0, 0]))
            key = jax.random.key(2)
            jax.block_until_ready(sgld(key, theta0))
            peer = "BlackJAX SGLD"
            runs[peer] = (lambda: jax.block_until_ready(sgld(key, theta0)), peer_steps)
    else:
        nb, u0 = notebook_style_u0(peer_steps)
        zz = jnp.asarray(z0[:8])  # the notebook's U0 is the simulator's U0 (sanity check)
        ours = np.asarray(jax.vmap(land.potential)(zz))
        np.testing.assert_allclose(np.asarray(jax.vmap(u0)(zz)), ours, rtol=1e-5, atol=1e-6)
        keys = jax.random.split(jax.random.key(2), chains)
        zj = jnp.asarray(z0)
        jax.block_until_ready(nb(keys, zj))
        peer = "notebook style"
        runs[peer] = (lambda: jax.block_until_ready(nb(keys, zj)), peer_steps)
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):  # interleaved: a load change hits every implementation alike
        for k, (fn, _n) in runs.items():
            times[k].append(_timed(fn))
    rates = {k: chains * runs[k][1] / statistics.median(v) for k, v in times.items()}
    print(f"[{name}] {landscape}, {chains} chains, float32; simulate ran prng={first.prng_impl}, "
          f"devices={first.devices}, step path={first.step_path}, unroll={unroll}")
    for k, r in rates.items():
        print(f"  {k:24s}: {r:14,.0f} chain-steps/s  (median of {repeats}, {runs[k][1]} steps)")
    return {"numpy": rates["JAX simulate (defaults)"] / rates["numpy"],
            **({peer: rates["JAX simulate (defaults)"] / rates[peer]} if peer else {})}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--numpy-steps", type=int, default=400)
    ap.add_argument("--peer-steps", type=int, default=1000, help="steps of the BlackJAX / notebook-style runs")
    ap.add_argument("--prng", default=None, choices=["fused-threefry", "threefry2x32", "rbg", "unsafe_rbg"],
                    help="override simulate's default generator")
    ap.add_argument("--unroll", type=int, default=1)
    ap.add_argument("--devices", type=int, default=None,
                    help="CPU devices (default: one per core, as the command line; 1 = no split)")
    args = ap.parse_args()
    from contrastive_bounds.numerics._devices import use_host_devices

    use_host_devices(args.devices)  # before JAX starts, as the entry points do
    print(f"machine: {_machine()}")
    ratios = {}
    for name, land, chains in (("a", "double-well", 16_384), ("b", "infonce-toy", 4_096)):
        ratios[name] = run_case(name, land, chains, args.steps, args.repeats, args.numpy_steps, args.peer_steps,
                                args.prng, args.unroll)
    print(f"machine load after the runs: {os.getloadavg()[0]:.2f}")
    goals = {("a", "BlackJAX SGLD"): 15.0, ("b", "notebook style"): 40.0}
    for name, rs in ratios.items():
        for peer, r in rs.items():
            goal = goals.get((name, peer))
            note = f"  (goal >= {goal:g}x: {'met' if r >= goal else 'not met'})" if goal else ""
            print(f"ratio JAX simulate (defaults) / {peer} ({name}): {r:.1f}x{note}")


if __name__ == "__main__":
    main()
