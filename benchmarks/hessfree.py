"""Hessian-free transition-state searches (issue 28): ours against pele, and the growth with N·d.

Run: ``.venv/bin/python benchmarks/hessfree.py [--tol 1e-6] [--searches 4] [--repeats 3] [--tau 0.1]
[--pele-sizes 64x8,128x16] [--sizes 32x4,32x8,64x8,64x16,128x16,128x32] [--skip-pele] [--skip-scaling]``

Landscape: decoupled InfoNCE over the pairs (0, 1), (2, 3), … at τ = 0.1 with N/2 > d + 1 (no simplex: the
regime of many minima, the traps the issue is about), float64 on CPU. A minimum comes from batched L-BFGS
(the network's ``minimize_batch``) from random starts; the starts of the searches are that minimum kicked
0.05 rad along each of its softest modes (Hessian-free Lanczos), both signs.

(a) One transition-state search from the same start, on the same potential, ours against pele's
    ``FindTransitionState`` (hybrid eigenvector following with a Rayleigh–Ritz lowest-eigenvector search
    by finite differences of gradients, L-BFGS in the tangent space, pele 0.1.2 from the ``test`` extra).
    pele gets the potential as a ``BasePotential`` over the embedded coordinates x ∈ R^{N·d}:
    ``V(x_i/|x_i|)`` with its gradient from one jitted JAX function (no autodiff or Python arithmetic on its
    side), the radial and rotation zero modes projected out of its eigenvector by ``orthogZeroEigs`` (our
    jitted analytic deflation), the same initial mode, the same gradient tolerance (``--tol`` on the 2-norm;
    pele's RMS tolerance is ``tol/sqrt(N·d)``). Ours: one search = the queue of
    ``search_transition_states`` with one start (``queue_searcher``, one lane: no vmap; compiled once,
    compilation reported separately). Per search: the median over the starts of the median over ``--repeats`` runs, one start per
    call (pele's too); batched: all starts in one call of the refilled queue (``queue_searcher`` with the default lanes of
    ``search_transition_states``), time per search = call time / starts, and for reference all starts in one
    plain ``vmap`` (which runs every lane until the slowest search ends); pele has no batched form: its
    per-search time is its batched time. Every end point is certified by our verifier with the
    same gradient tolerance; same saddle = energies within 1e-8.
(b) Time per verified saddle and peak memory against N·d: the starts of ``--searches`` searches followed
    and certified in one ``search_transition_states`` call (its defaults; warm; compilation reported);
    memory = XLA's compiled footprint (arguments + outputs + temporaries) of the queued searches and of the
    verifier, the larger of the two, next to what a dense float64 Hessian alone would take. The growth exponents are
    least-squares slopes of log(time per verified saddle) and log(memory) against log(N·d).

Floor: one gradient and one Hessian–vector product timed inside a compiled loop (no dispatch), times the
numbers our searches used; the searches cannot be cheaper than that with these counts.
Ratios are printed last.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import platform
import statistics
import time

import numpy as np

KICK = 0.05


def _machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    import jax

    return (f"{platform.machine()}, {os.cpu_count()} logical CPUs, {platform.system()}, JAX {jax.__version__} "
            f"on {jax.default_backend()}, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)")


def _sizes(text: str) -> list[tuple[int, int]]:
    return [tuple(int(x) for x in item.split("x")) for item in text.split(",") if item]


def _setup(n: int, d: int, tau: float, searches: int, seed: int = 0):
    """Potential, a converged L-BFGS minimum, and ``searches`` kicked starts with their modes."""
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes.hessfree import softest_modes
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics._sphere import retract

    spec = infonce_spec(n, d, tau)
    g = np.random.default_rng(seed).normal(size=(4, n, d))
    res = minimize_batch(spec, g / np.linalg.norm(g, axis=-1, keepdims=True), chunk=4, gtol=1e-9, max_iter=20000)
    best = int(np.argmin(np.where(np.asarray(res.status) == 1, res.gradient_norm, np.inf)
                         if np.any(np.asarray(res.status) == 1) else res.gradient_norm))
    zmin = np.asarray(res.z[best])
    sp = softest_modes(spec.potential, jnp.asarray(zmin), jax.random.key(seed), k=max(1, math.ceil(searches / 2)))
    modes = np.asarray(sp.modes)
    starts, dirs = [], []
    for m in modes:
        for s in (1.0, -1.0):
            starts.append(np.asarray(retract(jnp.asarray(zmin), KICK * s * jnp.asarray(m))))
            dirs.append(s * m)
    return spec, zmin, float(res.energy[best]), np.stack(starts[:searches]), np.stack(dirs[:searches])


def _unit_costs(potential, z: np.ndarray, repeats: int = 3) -> tuple[float, float]:
    """Seconds per gradient and per Hessian–vector product, inside one compiled loop of 50 (no dispatch)."""
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes.hessfree.operators import linearized_hessian, riemannian_gradient

    reps = 50

    def grads(z):
        def body(_, c):
            _, g = riemannian_gradient(potential, z + 1e-12 * c)
            return g
        return jax.lax.fori_loop(0, reps, body, jnp.zeros_like(z))

    def hvps(z):
        _, _, hvp = linearized_hessian(potential, z)
        return jax.lax.fori_loop(0, reps, lambda _, u: hvp(u) / (1.0 + jnp.linalg.norm(u)), jnp.ones_like(z))

    out = []
    for fn in (jax.jit(grads), jax.jit(hvps)):
        x = jnp.asarray(z)
        jax.block_until_ready(fn(x))
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            jax.block_until_ready(fn(x))
            times.append((time.perf_counter() - t0) / reps)
        out.append(statistics.median(times))
    return out[0], out[1]


def _pele_potential(potential, n: int, d: int):
    import jax
    import jax.numpy as jnp
    from pele.potentials import BasePotential

    from contrastive_bounds.numerics.landscapes.hessfree.deflation import deflate, orbit_frame

    def embedded(x):
        z = x.reshape(n, d)
        return potential(z / jnp.linalg.norm(z, axis=1, keepdims=True))

    value = jax.jit(embedded)
    value_and_grad = jax.jit(jax.value_and_grad(embedded))
    strip = jax.jit(lambda z, u: deflate(orbit_frame(z), z, u))

    class Embedded(BasePotential):
        def getEnergy(self, x):
            return float(value(jnp.asarray(x)))

        def getEnergyGradient(self, x):
            v, g = value_and_grad(jnp.asarray(x))
            return float(v), np.array(g)

    def zero_modes(vec, coords):
        z = coords.reshape(n, d)
        z = z / np.linalg.norm(z, axis=1, keepdims=True)
        return np.array(strip(jnp.asarray(z), jnp.asarray(vec.reshape(n, d)))).reshape(-1)

    return Embedded(), zero_modes


def bench_pele(n: int, d: int, tau: float, tol: float, searches: int, repeats: int) -> dict:
    import jax
    import jax.numpy as jnp
    from pele.transition_states import FindTransitionState

    from contrastive_bounds.numerics.landscapes.hessfree import HEFSettings, hef_searcher, queue_searcher, verify_batch
    from contrastive_bounds.numerics.landscapes.hessfree.transition_states import default_slots

    spec, zmin, emin, starts, dirs = _setup(n, d, tau, searches)
    pot = spec.potential
    settings = HEFSettings(gtol=tol)
    fn = hef_searcher(pot, settings=settings)
    lanes = default_slots(searches)
    queue = queue_searcher(pot, slots=lanes, settings=settings)
    keys = jax.random.split(jax.random.key(1), searches)
    batch = (jnp.asarray(starts), jnp.asarray(dirs), keys)
    active = jnp.ones(searches, bool)
    t0 = time.perf_counter()
    jax.block_until_ready(fn(*batch))
    jax.block_until_ready(queue(*batch, active))
    compile_s = time.perf_counter() - t0
    one = queue_searcher(pot, slots=1, settings=settings)
    on = jnp.ones(1, bool)
    jax.block_until_ready(one(jnp.asarray(starts[:1]), jnp.asarray(dirs[:1]), keys[:1], on))
    single, ours_z, ours_e, counts = [], [], [], []
    for i in range(searches):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = one(jnp.asarray(starts[i:i + 1]), jnp.asarray(dirs[i:i + 1]), keys[i:i + 1], on)
            jax.block_until_ready(r)
            times.append(time.perf_counter() - t0)
        single.append(statistics.median(times))
        ours_z.append(np.asarray(r.z[0]))
        ours_e.append(float(r.value[0]))
        counts.append((int(r.gradient_evaluations[0]), int(r.hessian_products[0]), int(r.status[0])))
    batched, vmapped = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(queue(*batch, active))
        batched.append((time.perf_counter() - t0) / searches)
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*batch))
        vmapped.append((time.perf_counter() - t0) / searches)
    ppot, zero_modes = _pele_potential(pot, n, d)
    logging.disable(logging.WARNING)
    pele_t, pele_z, pele_e, pele_ok, pele_fev = [], [], [], [], []
    for i in range(searches):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = FindTransitionState(starts[i].reshape(-1).copy(), ppot, tol=tol / math.sqrt(n * d), nsteps=2000,
                                      eigenvec0=dirs[i].reshape(-1).copy(), orthogZeroEigs=zero_modes, iprint=-1,
                                      verbosity=0, index_seed=0).run()
            times.append(time.perf_counter() - t0)
        pele_t.append(statistics.median(times))
        z = res.coords.reshape(n, d)
        pele_z.append(z / np.linalg.norm(z, axis=1, keepdims=True))
        pele_e.append(float(res.energy))
        pele_ok.append(bool(res.success))
        pele_fev.append(int(res.nfev))
    certs = verify_batch(pot, np.stack(ours_z + pele_z), expect=1, gradient_tol=1.01 * tol)
    ours_cert, pele_cert = certs[:searches], certs[searches:]
    t_grad, t_hvp = _unit_costs(pot, zmin)
    floors = [g * t_grad + h * t_hvp for g, h, _ in counts]
    return {"n": n, "d": d, "minimum": emin, "compile_s": compile_s, "ours_single": statistics.median(single),
            "ours_batched": statistics.median(batched), "ours_vmapped": statistics.median(vmapped), "lanes": lanes,
            "pele": statistics.median(pele_t),
            "pele_mean": statistics.mean(pele_t), "ours_verified": sum(c.verified for c in ours_cert),
            "pele_verified": sum(c.verified for c in pele_cert), "pele_success": sum(pele_ok),
            "same": sum(abs(a - b) < 1e-8 for a, b in zip(ours_e, pele_e)), "searches": searches,
            "ours_e": ours_e, "pele_e": pele_e, "ours_counts": counts, "pele_fev": pele_fev,
            "floor": statistics.median(floors), "t_grad": t_grad, "t_hvp": t_hvp}


def _footprint(compiled) -> int:
    stats = compiled.memory_analysis()
    if stats is None:
        return -1
    return int(stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes)


def bench_scaling(n: int, d: int, tau: float, searches: int) -> dict:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes.hessfree import HEFSettings, queue_searcher, search_transition_states
    from contrastive_bounds.numerics.landscapes.hessfree.certify import verifier
    from contrastive_bounds.numerics.landscapes.hessfree.transition_states import default_slots

    spec, zmin, emin, starts, dirs = _setup(n, d, tau, searches)
    pot = spec.potential
    t0 = time.perf_counter()
    search_transition_states(pot, starts, dirs, escapes=0)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = search_transition_states(pot, starts, dirs, escapes=0)
    wall = time.perf_counter() - t0
    verified = sum(r.verified for r in out)
    zs = jax.ShapeDtypeStruct((searches, n, d), jnp.float64)
    ks = jax.eval_shape(lambda: jax.random.split(jax.random.key(0), searches))
    act = jax.ShapeDtypeStruct((searches,), jnp.bool_)
    lanes = default_slots(searches)
    mem_search = _footprint(queue_searcher(pot, slots=lanes, settings=HEFSettings()).lower(zs, zs, ks, act).compile())
    mem_verify = _footprint(verifier(pot, batched=True).lower(zs, ks).compile())  # all points at once: an upper bound
    t_grad, t_hvp = _unit_costs(pot, zmin)
    floor = sum(r.gradient_evaluations * t_grad + (r.hessian_products + r.certificate.matvecs) * t_hvp for r in out)
    return {"n": n, "d": d, "nd": n * d, "wall": wall, "compile_s": compile_s, "verified": verified,
            "searches": searches, "per_saddle": wall / verified if verified else float("inf"),
            "memory": max(mem_search, mem_verify), "dense": (n * d) ** 2 * 8, "floor": floor,
            "iterations": int(np.median([r.iterations for r in out])),
            "energies": sorted({round(r.energy, 8) for r in out if r.verified})}


def _slope(x: list[float], y: list[float]) -> float:
    ok = [(a, b) for a, b in zip(x, y) if math.isfinite(b) and b > 0]
    if len(ok) < 2:
        return float("nan")
    lx, ly = np.log([a for a, _ in ok]), np.log([b for _, b in ok])
    return float(np.polyfit(lx, ly, 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tol", type=float, default=1e-6, help="gradient 2-norm at which both searches stop (a)")
    ap.add_argument("--searches", type=int, default=4, help="starts per size (softest modes, both signs)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tau", type=float, default=0.1)
    ap.add_argument("--pele-sizes", default="64x8,128x16")
    ap.add_argument("--sizes", default="32x4,32x8,64x8,64x16,128x16,128x32")
    ap.add_argument("--skip-pele", action="store_true")
    ap.add_argument("--skip-scaling", action="store_true")
    args = ap.parse_args()

    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    print(f"machine: {_machine()}; float64; InfoNCE (decoupled), tau = {args.tau}")
    ratios = []
    if not args.skip_pele:
        print(f"\n(a) one transition-state search, ours (queue_searcher) vs pele FindTransitionState, |grad V| <= {args.tol:g}")
        print("| N·d (N, d) | ours per search | ours batched (queue), per search | ours all-lanes vmap, per search | "
              "pele per search | certified TS ours / pele (pele success) | same saddle | ours grads, HVPs (median) | "
              "pele gradient calls (median) | floor | compile |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for n, d in _sizes(args.pele_sizes):
            r = bench_pele(n, d, args.tau, args.tol, args.searches, args.repeats)
            grads = int(np.median([c[0] for c in r["ours_counts"]]))
            hvps = int(np.median([c[1] for c in r["ours_counts"]]))
            print(f"| {n * d} ({n}, {d}) | {r['ours_single'] * 1e3:.1f} ms | {r['ours_batched'] * 1e3:.1f} ms "
                  f"({r['lanes']} lanes) | {r['ours_vmapped'] * 1e3:.1f} ms | {r['pele'] * 1e3:.1f} ms | {r['ours_verified']}/{r['searches']} / {r['pele_verified']}/{r['searches']} "
                  f"({r['pele_success']}) | {r['same']}/{r['searches']} | {grads}, {hvps} | "
                  f"{int(np.median(r['pele_fev']))} | {r['floor'] * 1e3:.1f} ms | {r['compile_s']:.1f} s |")
            print(f"    energies ours {['%.8f' % e for e in r['ours_e']]}; pele {['%.8f' % e for e in r['pele_e']]}; "
                  f"gradient {r['t_grad'] * 1e6:.0f} us, HVP {r['t_hvp'] * 1e6:.0f} us")
            ratios.append(f"N·d = {n * d}: pele/ours per search {r['pele'] / r['ours_single']:.1f}x, "
                          f"batched {r['pele_mean'] / r['ours_batched']:.1f}x; ours/floor {r['ours_single'] / r['floor']:.1f}x")
    if not args.skip_scaling:
        print(f"\n(b) time per verified saddle and memory against N·d ({args.searches} searches per size, certified)")
        print("| N·d (N, d) | wall (warm) | verified | per verified saddle | median iterations | XLA footprint | "
              "dense Hessian alone | floor | compile |")
        print("|---|---|---|---|---|---|---|---|---|")
        rows = []
        for n, d in _sizes(args.sizes):
            r = bench_scaling(n, d, args.tau, args.searches)
            rows.append(r)
            print(f"| {r['nd']} ({n}, {d}) | {r['wall']:.2f} s | {r['verified']}/{r['searches']} | "
                  f"{r['per_saddle']:.2f} s | {r['iterations']} | {r['memory'] / 2**20:.2f} MiB | "
                  f"{r['dense'] / 2**20:.1f} MiB | {r['floor']:.2f} s | {r['compile_s']:.1f} s |")
        nd = [r["nd"] for r in rows]
        ratios.append(f"growth exponent of time per verified saddle: {_slope(nd, [r['per_saddle'] for r in rows]):.2f}; "
                      f"of the floor: {_slope(nd, [r['floor'] for r in rows]):.2f}; of memory: "
                      f"{_slope(nd, [r['memory'] for r in rows]):.2f} (dense Hessian: 2)")
        ratios.append("measured/floor per size: " + ", ".join(f"{r['nd']}: {r['wall'] / r['floor']:.1f}x" for r in rows))
    print("\nratios:")
    for line in ratios:
        print("  " + line)


if __name__ == "__main__":
    main()
