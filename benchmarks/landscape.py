"""Landscape networks of InfoNCE: time to a converged network, and the minima search vs scipy.

Run: ``.venv/bin/python benchmarks/landscape.py [--starts 64] [--naive-starts 32] [--repeats 3] [--tau 0.1]``

Cases (issue 13): finite-τ InfoNCE (decoupled, τ = 0.1 by default) with N = 8 points (pairs 0-1, 2-3,
4-5, 6-7) on S² and on S⁷, and N = 16 (8 pairs) on S².

1. Network: :func:`~contrastive_bounds.numerics.landscapes.network.landscape_network` with its
   default settings except ``--starts``; wall time of a first run (compilation included) and of a
   second run (kernels compiled), minima and verified transition states, and both per second of the
   warm run.
2. Minima search, the same random starts both ways (float64 both):
   ours — batched Riemannian L-BFGS on (S^{d−1})^N (one vmapped, jitted kernel; compilation
   excluded) followed by the Newton polish of every distinct output, i.e. what the search does;
   naive — what a user would write: ``scipy.optimize.minimize(method="L-BFGS-B")`` on the ambient
   coordinates with the penalty ``μ Σ_i (|z_i|² − 1)²`` (μ = 100), one start at a time, objective and
   gradient from one jitted JAX function (so the naive side pays no autodiff or Python arithmetic
   either), ``gtol = 1e-6``; and, for reference, the smarter choice of scipy L-BFGS-B on ``V(z/|z|)``
   (no penalty, same starts). The figure is the mean time per start (median over repeats: a few
   penalised starts take thousands of evaluations) with the median and mean number of evaluations;
   the ratios naive/ours are printed last.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

CASES = [("N=8 on S^2", 8, 3), ("N=8 on S^7", 8, 8), ("N=16 on S^2", 16, 3)]
PENALTY = 100.0


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, {platform.system()}, "
            f"load average (1 min) {load:.2f}")


def _starts(count: int, n: int, d: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed).normal(size=(count, n, d))
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def bench_network(n: int, d: int, tau: float, starts: int) -> dict:
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    spec = infonce_spec(n, d, tau)
    t0 = time.perf_counter()
    landscape_network(spec, starts=starts)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = landscape_network(spec, starts=starts)
    warm = time.perf_counter() - t0
    return {"cold_s": cold, "warm_s": warm, "minima": len(res.minima), "ts": len(res.transition_states),
            "h": res.critical_height, "status": res.status, "effort": res.effort_text()}


def bench_minima(n: int, d: int, tau: float, starts: int, naive_starts: int, repeats: int) -> dict:
    import jax
    import jax.numpy as jnp
    from scipy.optimize import minimize

    from contrastive_bounds.numerics.landscapes.infonce import infonce_potential
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics.landscapes.network.verify import newton_polish

    spec = infonce_spec(n, d, tau)
    z0 = _starts(starts, n, d, 1)
    minimize_batch(spec, z0, chunk=starts)  # compile
    newton_polish(spec, z0[:8], chunk=starts)
    ours = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = minimize_batch(spec, z0, chunk=starts)
        _, first = np.unique(np.round(res.energy, 8), return_index=True)
        newton_polish(spec, res.z[first], chunk=starts)
        ours.append((time.perf_counter() - t0) / starts)
    pairs = [(2 * k, 2 * k + 1) for k in range(n // 2)]
    pot = infonce_potential(n, pairs, tau)

    def penalised(x):
        z = x.reshape(n, d)
        return pot(z) + PENALTY * jnp.sum((jnp.sum(z * z, axis=-1) - 1.0) ** 2)

    def normalised(x):
        z = x.reshape(n, d)
        return pot(z / jnp.linalg.norm(z, axis=-1, keepdims=True))

    out = {"ours_s": statistics.median(ours), "ours_best": float(np.min(res.energy))}
    for label, objective in (("naive", penalised), ("normalised", normalised)):
        vg = jax.jit(jax.value_and_grad(objective))

        def fun(x, vg=vg):
            v, g = vg(jnp.asarray(x))
            return float(v), np.asarray(g, dtype=np.float64)

        fun(z0[0].reshape(-1))
        times, finals, nfev = [], [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for k in range(naive_starts):
                r = minimize(fun, z0[k].reshape(-1), jac=True, method="L-BFGS-B", options={"gtol": 1e-6, "maxiter": 20000})
                finals.append(r.x.reshape(n, d))
                nfev.append(r.nfev)
            times.append((time.perf_counter() - t0) / naive_starts)
        value = jax.jit(pot)  # outside the timed loop
        energies = [float(value(jnp.asarray(zf / np.linalg.norm(zf, axis=-1, keepdims=True)))) for zf in finals]
        out.update({f"{label}_s": statistics.median(times), f"{label}_best": float(np.min(energies)),
                    f"{label}_nfev": float(np.median(nfev)), f"{label}_nfev_mean": float(np.mean(nfev))})
    out["ours_iters"] = float(np.median(res.iterations))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=64)
    parser.add_argument("--naive-starts", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tau", type=float, default=0.1)
    parser.add_argument("--skip-network", action="store_true")
    args = parser.parse_args()

    from contrastive_bounds.numerics.precision import enable_x64

    enable_x64()
    import jax

    rows = []
    for name, n, d in CASES:
        net = None if args.skip_network else bench_network(n, d, args.tau, args.starts)
        mins = bench_minima(n, d, args.tau, args.starts, args.naive_starts, args.repeats)
        rows.append((name, net, mins))
        print(f"[{name}] done", flush=True)
    print(f"machine: {_machine()}; jax {jax.__version__} on {jax.devices()[0].platform}; float64; tau = {args.tau}; "
          f"medians of {args.repeats} repeats")
    for name, net, mins in rows:
        if net is not None:
            print(f"{name}: network {net['warm_s']:.1f} s warm ({net['cold_s']:.1f} s with compilation): "
                  f"{net['minima']} minima, {net['ts']} verified TSs, H* = {net['h']:.6g} ({net['status']}); "
                  f"{net['minima'] / net['warm_s']:.2f} minima/s, {net['ts'] / net['warm_s']:.2f} TSs/s; {net['effort']}")
        print(f"{name}: minima search {mins['ours_s'] * 1e3:.2f} ms/start (ours, batched, median "
              f"{mins['ours_iters']:.0f} iterations), {mins['naive_s'] * 1e3:.1f} ms/start (scipy L-BFGS-B + penalty, one at "
              f"a time, evaluations median {mins['naive_nfev']:.0f} / mean {mins['naive_nfev_mean']:.0f}), "
              f"{mins['normalised_s'] * 1e3:.1f} ms/start (scipy L-BFGS-B on V(z/|z|), evaluations median "
              f"{mins['normalised_nfev']:.0f} / mean {mins['normalised_nfev_mean']:.0f}); lowest V "
              f"{mins['ours_best']:.10g} / {mins['naive_best']:.10g} / {mins['normalised_best']:.10g}")
    for name, _, mins in rows:
        print(f"{name}: naive (penalty)/ours = {mins['naive_s'] / mins['ours_s']:.1f}x (goal >= 20x); "
              f"scipy on V(z/|z|)/ours = {mins['normalised_s'] / mins['ours_s']:.1f}x")


if __name__ == "__main__":
    main()
