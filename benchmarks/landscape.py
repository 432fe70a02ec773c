"""Landscape networks of InfoNCE: the closed search against the previous one and pele; the minima search vs scipy.

Run: ``.venv/bin/python benchmarks/landscape.py [--closure-only] [--pele-steps 300] [--starts 64]
[--naive-starts 32] [--repeats 3] [--tau 0.1]``

0. Closure (issue 22), on decoupled InfoNCE with N = 10 points (pairs 0-1, …, 8-9) on S², τ = 0.05 — the
   landscape whose H* seed 0 of the previous search got wrong (0.0473 instead of 1.2594):

   * closed: :func:`~contrastive_bounds.numerics.landscapes.network.landscape_network` with its defaults
     (64 random starts, structured starts, basin hopping, closure under single-ended exploration,
     steepest-descent connections), seeds 0 and 1;
   * previous: the same call with ``SearchSettings.previous(starts=256)`` (random starts, hops, the 3
     softest modes, 6 rounds, L-BFGS descents: the search behind the earlier published H*), seeds 0 and 1;
   * pele (Wales group's explorer, ``pip install pele``): pele's basin hopping (``--pele-steps`` steps,
     adaptive step and temperature) and pele's ``DoubleEndedConnect`` (NEB + hybrid eigenvector-following
     transition-state search + pushoff quench) from the lowest minimum to every other minimum, on
     ``V(x/|x|) + 10 Σ(|x_i|² − 1)²`` in ambient coordinates (same critical points and energies as on the
     spheres), rotations projected out of its transition-state search; minima compared and aligned up to
     O(3) and pair relabelling with our ``equivalent`` / ``align`` (pele has no pair-permutation
     symmetry); H* of pele's database by our ``analyse_network``.

   Printed: wall time, minima, verified transition states, H*, and whether each found the 1.2594 trap;
   then the ratios previous/closed and pele/closed of wall time, last.

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


def bench_closure(n: int, d: int, tau: float, seeds: tuple[int, ...] = (0, 1)) -> list[dict]:
    """Closed search (defaults) and previous search (SearchSettings.previous(starts=256)) per seed; the
    first closed run includes compilation (reported separately)."""
    from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, landscape_network

    spec = infonce_spec(n, d, tau)
    t0 = time.perf_counter()
    landscape_network(spec, SearchSettings(starts=8, structured_starts=8, max_hop_rounds=0, max_ts_rounds=1))
    compile_s = time.perf_counter() - t0
    rows = []
    for label, settings in (("closed", SearchSettings()), ("previous", SearchSettings.previous(starts=256))):
        for seed in seeds:
            t0 = time.perf_counter()
            res = landscape_network(spec, settings, seed=seed)
            rows.append({"search": label, "seed": seed, "seconds": time.perf_counter() - t0, "minima": len(res.minima),
                         "ts": len(res.transition_states), "h": res.critical_height, "status": res.status,
                         "energies": sorted(m.energy for m in res.minima), "compile_s": compile_s})
    return rows


def bench_pele(n: int, d: int, tau: float, steps: int, seed: int = 0) -> dict | None:
    """pele's basin hopping + DoubleEndedConnect on the same landscape (None when pele is missing)."""
    try:
        from pele.potentials import BasePotential
        from pele.systems import BaseSystem
    except ImportError:
        return None
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes._infonce import infonce_potential
    from contrastive_bounds.numerics.landscapes.network import NetworkMinimum, Symmetry, TransitionState, analyse_network
    from contrastive_bounds.numerics.landscapes.network.symmetry import align, equivalent

    pairs = [(2 * k, 2 * k + 1) for k in range(n // 2)]
    sym = Symmetry.infonce(pairs)
    pot = infonce_potential(n, pairs, tau)

    def ambient(x):
        z = x.reshape(n, d)
        r2 = jnp.sum(z * z, axis=-1)
        return pot(z / jnp.sqrt(r2)[:, None]) + 10.0 * jnp.sum((r2 - 1.0) ** 2)

    vg = jax.jit(jax.value_and_grad(ambient))
    unit = lambda x: (lambda z: z / np.linalg.norm(z, axis=-1, keepdims=True))(np.asarray(x).reshape(n, d))  # noqa: E731

    class Potential(BasePotential):
        def getEnergy(self, x):
            return float(vg(jnp.asarray(x))[0])

        def getEnergyGradient(self, x):
            v, g = vg(jnp.asarray(x))
            return float(v), np.asarray(g, dtype=np.float64)

    def no_rotation(vec, coords):
        z = np.asarray(coords).reshape(n, d)
        gens = np.stack([(z @ (np.outer(np.eye(d)[a], np.eye(d)[b]) - np.outer(np.eye(d)[b], np.eye(d)[a])).T).reshape(-1)
                         for a in range(d) for b in range(a + 1, d)])
        q, _ = np.linalg.qr(gens.T)
        v = np.asarray(vec, dtype=np.float64)
        return v - q @ (q.T @ v)

    class System(BaseSystem):
        def get_potential(self):
            return Potential()

        def get_random_configuration(self):
            return unit(np.random.normal(size=(n, d))).reshape(-1)

        def get_compare_exact(self):
            return lambda x1, x2: equivalent(unit(x1), unit(x2), sym, tol=1e-5)

        def get_mindist(self):
            def mindist(x1, x2):
                a, b = unit(x1), align(unit(x1), unit(x2), sym, restarts=2)
                return float(np.linalg.norm(a - b)), a.reshape(-1), b.reshape(-1)
            return mindist

        def get_orthogonalize_to_zero_eigenvectors(self):
            return no_rotation

        def get_metric_tensor(self, coords):
            return None

        def get_nzero_modes(self):
            return d * (d - 1) // 2

    np.random.seed(seed)
    system = System()
    db = system.create_database()
    t0 = time.perf_counter()
    bh = system.get_basinhopping(database=db, outstream=None)
    bh.run(steps)
    mins = sorted(db.minima(), key=lambda m: m.energy)
    for m in mins[1:]:
        try:
            system.get_double_ended_connect(mins[0], m, db, verbosity=-1).connect()
        except Exception:  # noqa: BLE001 - a failed pele connection is reported as missing edges
            pass
    seconds = time.perf_counter() - t0
    index = {m._id: k for k, m in enumerate(db.minima())}
    pm = [NetworkMinimum(k, m.energy, unit(m.coords), 1, 0.0, [1.0], 0, True) for k, m in enumerate(db.minima())]
    pt = [TransitionState(k, t.energy, unit(t.coords), 1, 0.0, -1.0, 1, [index[t.minimum1._id], index[t.minimum2._id]], True)
          for k, t in enumerate(db.transition_states())]
    a = analyse_network(pm, pt)
    return {"seconds": seconds, "minima": len(pm), "ts": len(pt), "h": a.critical_height, "complete": a.complete,
            "energies": sorted(m.energy for m in pm), "steps": steps}


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

    from contrastive_bounds.numerics.landscapes._infonce import infonce_potential
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


TRAP = -10.150704115731948  # the N = 10, d = 3, tau = 0.05 minimum whose barrier is H* = 1.2594


def _found_trap(energies: list[float]) -> str:
    return "yes" if any(abs(e - TRAP) < 1e-6 for e in energies) else "no"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=64)
    parser.add_argument("--naive-starts", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tau", type=float, default=0.1)
    parser.add_argument("--skip-network", action="store_true")
    parser.add_argument("--closure-only", action="store_true", help="only section 0 (closure vs previous vs pele)")
    parser.add_argument("--pele-steps", type=int, default=300)
    args = parser.parse_args()

    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    import jax

    closure = bench_closure(10, 3, 0.05)
    pele = bench_pele(10, 3, 0.05, args.pele_steps)
    print("[closure] done", flush=True)
    rows = []
    if not args.closure_only:
        for name, n, d in CASES:
            net = None if args.skip_network else bench_network(n, d, args.tau, args.starts)
            mins = bench_minima(n, d, args.tau, args.starts, args.naive_starts, args.repeats)
            rows.append((name, net, mins))
            print(f"[{name}] done", flush=True)
    print(f"machine: {_machine()}; jax {jax.__version__} on {jax.devices()[0].platform}; float64")
    print(f"closure case: decoupled InfoNCE, N = 10 on S^2, tau = 0.05 (compilation {closure[0]['compile_s']:.1f} s, "
          "excluded below)")
    for r in closure:
        print(f"  {r['search']:8s} seed {r['seed']}: {r['seconds']:7.1f} s, {r['minima']} minima, {r['ts']} verified TSs, "
              f"H* = {r['h']:.6g}, trap {TRAP:.4f} found: {_found_trap(r['energies'])}; {r['status']}")
    if pele is None:
        print("  pele: not installed (pip install pele)")
    else:
        print(f"  pele    seed 0: {pele['seconds']:7.1f} s ({pele['steps']} basin-hopping steps + DoubleEndedConnect from "
              f"the lowest minimum to each other), {pele['minima']} minima, {pele['ts']} TSs, H* = {pele['h']:.6g} "
              f"({'connected' if pele['complete'] else 'some minima unconnected'}), trap found: "
              f"{_found_trap(pele['energies'])}")
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
    closed = statistics.mean(r["seconds"] for r in closure if r["search"] == "closed")
    previous = statistics.mean(r["seconds"] for r in closure if r["search"] == "previous")
    print(f"closure case: previous/closed wall time = {previous / closed:.2f}x"
          + ("" if pele is None else f"; pele/closed = {pele['seconds'] / closed:.2f}x"))


if __name__ == "__main__":
    main()
