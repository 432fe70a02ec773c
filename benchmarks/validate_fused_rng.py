"""At-scale validation of the fused noise generator before it is the float32 default (run once; the
results are recorded in docs/simulator.md, "Noise").

Run: ``.venv/bin/python benchmarks/validate_fused_rng.py [--normals 1e8] [--chains 16384] [--json out.json]``

1. The law of ``--normals`` float32 normals of ``"fused-threefry"`` as the simulator draws them
   (``--chains`` elements × steps): moments 1-4, Kolmogorov–Smirnov, Anderson–Darling, tail
   frequencies beyond 4σ and 5σ (:mod:`contrastive_bounds.numerics.langevin._noise_validation`).
2. Independence: the two normals of a Box–Muller pair and their squares, the pair's joint law
   (chi-square), successive pairs, adjacent elements and elements half the width apart (shards).
3. Simulated laws, float32, fused generator against ``jax.random.normal`` (``threefry2x32``) with
   independent seeds: the von Mises–Fisher mean E[z₃] on S² (κ/T = 2; per-chain time averages) and
   the mean first-passage time of ``double-well`` from θ = π to |θ| < 0.1 at T = 0.6 (two-sample
   z-tests of the means, two-sample KS of the passage times, the fraction that passed).

Every test has its p-value under "the generator is right"; the verdict is Bonferroni at a family
false-alarm rate of 1e-3 (each test at 1e-3 / number of tests).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time

import numpy as np
from scipy import stats

FAMILY_ALPHA = 1e-3


def simulated_laws(chains: int, seed: int) -> list:
    import jax

    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin import Arc, DriverOptions, SimulationConfig, langevin_kernel, simulate
    from contrastive_bounds.numerics.langevin._noise_validation import NormalTest
    from contrastive_bounds.numerics._sphere import uniform

    out = []
    vmf = get_landscape("vmf", kappa=2.0, dim=3)
    kernel = langevin_kernel(vmf, temperature=1.0, step_size=0.02)
    z0 = np.asarray(uniform(jax.random.key(seed), (chains, 1, 3), dtype=np.float32))
    means = {}
    for impl, s in (("fused-threefry", seed + 1), ("threefry2x32", seed + 2)):
        res = simulate(kernel, z0, SimulationConfig(num_steps=3000, seed=s, record_every=10), DriverOptions(prng_impl=impl))
        keep = res.record_times >= 10.0
        per_chain = (-res.energy_trace[keep] / 2.0).astype(np.float64).mean(axis=0)
        means[impl] = (per_chain.mean(), per_chain.std(ddof=1) / math.sqrt(chains), res.wall_time)
    (mf, sf, _), (mt, st, _) = means["fused-threefry"], means["threefry2x32"]
    z = (mf - mt) / math.hypot(sf, st)
    exact = 1 / math.tanh(2.0) - 0.5
    out.append(NormalTest("vMF E[z3], fused vs jax.random", z, float(2 * stats.norm.sf(abs(z))),
                          f"fused {mf:.5f} +- {sf:.5f}, jax.random {mt:.5f} +- {st:.5f} (exact {exact:.5f}; both carry "
                          f"the Euler O(h) bias), z = {z:+.2f}, {chains} chains each, float32"))

    land = get_landscape("double-well")
    kernel = langevin_kernel(land, temperature=0.6, step_size=0.01)
    z0 = np.tile(np.array([[[-1.0, 0.0]]], np.float32), (chains, 1, 1))
    times, hits = {}, {}
    t_end = 120.0
    for impl, s in (("fused-threefry", seed + 3), ("threefry2x32", seed + 4)):
        n = int(round(t_end / 0.01))
        res = simulate(kernel, z0, SimulationConfig(num_steps=n, seed=s, record_every=n, target=Arc(-0.1, 0.1)),
                       DriverOptions(prng_impl=impl))
        times[impl] = np.minimum(res.hit_time, res.t_end).astype(np.float64)
        hits[impl] = int(res.hit.sum())
    a, b = times["fused-threefry"], times["threefry2x32"]
    z = (a.mean() - b.mean()) / math.hypot(a.std(ddof=1) / math.sqrt(a.size), b.std(ddof=1) / math.sqrt(b.size))
    out.append(NormalTest("MFPT double-well, fused vs jax.random", z, float(2 * stats.norm.sf(abs(z))),
                          f"mean passage time (censored at {t_end:g}) fused {a.mean():.3f}, jax.random {b.mean():.3f}, "
                          f"z = {z:+.2f}; passed {hits['fused-threefry']} vs {hits['threefry2x32']} of {chains}"))
    ks = stats.ks_2samp(a, b)
    out.append(NormalTest("MFPT law, two-sample KS", float(ks.statistic), float(ks.pvalue),
                          f"passage-time distributions: D = {ks.statistic:.4f}"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--normals", type=float, default=1e8)
    ap.add_argument("--chains", type=int, default=16384)
    ap.add_argument("--law-chains", type=int, default=16384, help="chains of each simulated-law run")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--json", default=None, help="write the results to this file")
    args = ap.parse_args()

    from contrastive_bounds.numerics.langevin._noise_validation import fused_sample, independence_tests, law_tests

    steps = 2 * math.ceil(args.normals / (2 * args.chains))
    t0 = time.perf_counter()
    x = fused_sample(args.seed, steps, args.chains)
    t_gen = time.perf_counter() - t0
    results = [("law", r) for r in law_tests(x)] + [("independence", r) for r in independence_tests(x)]
    del x
    results += [("simulated law", r) for r in simulated_laws(args.law_chains, args.seed)]
    alpha = FAMILY_ALPHA / len(results)
    print(f"fused-threefry, float32: {steps * args.chains:.4g} normals ({steps} steps x {args.chains} elements, drawn "
          f"in {t_gen:.1f} s); {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"each test at alpha = {alpha:.2g} (family {FAMILY_ALPHA:g}, Bonferroni over {len(results)} tests)")
    for group, r in results:
        print(f"  [{'pass' if r.passed(alpha) else 'FAIL'}] {group:13s} {r.name:38s} p = {r.p_value:<9.3g} {r.detail}")
    ok = all(r.passed(alpha) for _, r in results)
    print(f"verdict: {'PASS' if ok else 'FAIL'} ({sum(r.passed(alpha) for _, r in results)}/{len(results)} tests pass)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"normals": steps * args.chains, "alpha_each": alpha, "pass": ok,
                       "tests": [{"group": g, "name": r.name, "statistic": r.statistic, "p_value": r.p_value,
                                  "detail": r.detail} for g, r in results]}, fh, indent=2)


if __name__ == "__main__":
    main()
