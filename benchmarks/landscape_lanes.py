"""Vmapped lanes against one start at a time for the network search's while-loop kernels on a CPU.

The steepest-descent paths (``descent.flow_single``) and L-BFGS (``optimize.lbfgs_single``) are
``lax.while_loop`` kernels; vmapped over a batch, every lane runs as many iterations as the slowest
one. On a CPU that pays off only while one lane's arithmetic is too small to fill the cores; this
benchmark measures where it stops paying, which sets ``optimize.SERIAL_COORDINATES`` (the search
runs one start at a time from there).

For each N·d: 8 starts (random configurations, InfoNCE τ = 0.05), the kernel compiled for 8 rows
(one vmapped call) and for 1 row (8 calls), medians of ``--reps`` timed runs after a warm-up, and the
floor: the summed iterations of the 8 starts times the time of one gradient (``jax.value_and_grad``,
inside a compiled loop) at that size — what one start at a time would cost with no loop overhead. The ratios come last:
``vmapped/serial`` above 1 means one start at a time is faster.

Then the search's own workload: the descents from the verified saddles that eigenvector following reaches from the
cross-polytope trap at τ = 0.01 (paths of very different lengths: the lanes wait for the slowest), and the same
descents one at a time with the stall stop switched off (``stall_steps=0``: the paths held at the explicit method's
stiff limit run to ``max_steps``), the ratio against the default last.

Run: ``python benchmarks/landscape_lanes.py [--reps 3] [--sizes 6x3,...] [--saddle-sizes 16x8,32x16,64x32]``.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics import enable_x64


def _median_time(fn, reps: int) -> float:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        jax.block_until_ready(fn())
        out.append(time.perf_counter() - t)
    return float(np.median(out))


def measure(points: int, dim: int, reps: int) -> dict:
    """Times (s) of the descent paths and L-BFGS for 8 random starts, vmapped and serial, and their floors."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.descent import flow_kernel
    from contrastive_bounds.numerics.landscapes.network.optimize import minimizer

    spec = infonce_spec(points, dim, 0.05)
    z = np.random.default_rng(0).normal(size=(8, points, dim))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    vg = jax.value_and_grad(spec.potential)
    loops = 400

    @jax.jit
    def many(x: jax.Array) -> jax.Array:  # one gradient per iteration inside a compiled loop: no dispatch counted
        return jax.lax.fori_loop(0, loops, lambda i, y: y + 1e-12 * vg(y)[1], x)

    jax.block_until_ready(many(jnp.asarray(z[0])))
    grad_time = _median_time(lambda: many(jnp.asarray(z[0])), reps) / loops
    row = {"nd": points * dim}
    kernels = {"descent": lambda b: flow_kernel(spec, b, (("max_steps", 3000),)),
               "lbfgs": lambda b: minimizer(spec, b, max_iter=2000)}
    steps_at = {"descent": 3, "lbfgs": 3}
    for name, build in kernels.items():
        f8, f1 = build(8), build(1)
        res = f8(jnp.asarray(z))
        jax.block_until_ready(res)
        jax.block_until_ready(f1(jnp.asarray(z[:1])))
        row[name + "_vmapped"] = _median_time(lambda: f8(jnp.asarray(z)), reps)
        row[name + "_serial"] = _median_time(lambda: [f1(jnp.asarray(z[k:k + 1])) for k in range(8)], reps)
        iters = np.asarray(res[steps_at[name]])
        evals = 3 if name == "descent" else 1  # Bogacki–Shampine: three new gradients per step (first same as last)
        row[name + "_floor"] = float(iters.sum()) * evals * grad_time
        row[name + "_iterations"] = f"{int(iters.min())}-{int(iters.max())}"
    return row


def saddle_descents(points: int, dim: int, tau: float, reps: int) -> dict:
    """The search's own workload: the descents from the transition states that eigenvector following finds from the
    cross-polytope trap (pair k at ±e_k) along its 4 softest modes, both signs — starts whose paths differ in length
    (stiff at small τ), where vmapped lanes wait for the slowest."""
    from contrastive_bounds.numerics._sphere import retract
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.constants import DESCENT_EPSILON, MODE_KICK
    from contrastive_bounds.numerics.landscapes.network.descent import flow_kernel
    from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import HESSFREE

    spec = infonce_spec(points, dim, tau)
    trap = np.zeros((points, dim))
    for k in range(points // 2):
        trap[2 * k, k], trap[2 * k + 1, k] = 1.0, -1.0
    _, modes = HESSFREE.softest(spec, trap, 4)
    kicks = np.concatenate([[retract(trap, s * MODE_KICK * m) for m in modes] for s in (1.0, -1.0)])
    ends = HESSFREE.refine(spec, kicks, np.concatenate([modes, -modes]), index=1, chunk=8, max_iter=400)
    saddles = [c for c in HESSFREE.classify(spec, ends, expect=1, gradient_tol=1e-8, eigenvalue_tol=1e-8, chunk=8)
               if c.verified][:4]
    if not saddles:
        raise SystemExit(f"no verified saddle from the N = {points}, d = {dim} trap's softest modes")
    z = np.concatenate([[retract(c.z, s * DESCENT_EPSILON * c.mode) for c in saddles] for s in (1.0, -1.0)])
    z = np.concatenate([z, z[: 8 - len(z)]]) if len(z) < 8 else z[:8]
    f8, f1 = flow_kernel(spec, 8, ()), flow_kernel(spec, 1, ())
    off = flow_kernel(spec, 1, (("stall_steps", 0),))  # the stall stop switched off: paths run to max_steps
    res = f8(jnp.asarray(z))
    jax.block_until_ready(res)
    jax.block_until_ready(f1(jnp.asarray(z[:1])))
    steps = np.asarray(res[3])
    steps_off = np.array([int(off(jnp.asarray(z[k:k + 1]))[3][0]) for k in range(8)])
    return {"nd": points * dim, "steps": f"{int(steps.min())}-{int(steps.max())}",
            "steps_off": f"{int(steps_off.min())}-{int(steps_off.max())}",
            "vmapped": _median_time(lambda: f8(jnp.asarray(z)), reps),
            "serial": _median_time(lambda: [f1(jnp.asarray(z[k:k + 1])) for k in range(8)], reps),
            "no_stall": _median_time(lambda: [off(jnp.asarray(z[k:k + 1])) for k in range(8)], reps)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sizes", default="6x3,10x5,16x8,16x16,32x16,64x32")
    ap.add_argument("--saddle-sizes", default="16x8,32x16,64x32", help="N x d of the saddle-descent rows ('' for none)")
    args = ap.parse_args()
    enable_x64()
    rows = [measure(*map(int, s.split("x")), args.reps) for s in args.sizes.split(",") if s]
    saddles = [saddle_descents(*map(int, s.split("x")), 0.01, args.reps) for s in args.saddle_sizes.split(",") if s]
    print(f"backend: {jax.default_backend()}; 8 starts; medians of {args.reps}; seconds")
    print(f"{'N·d':>6} {'kernel':>8} {'iterations':>11} {'vmapped':>9} {'serial':>9} {'floor':>9}")
    for r in rows:
        for k in ("descent", "lbfgs"):
            print(f"{r['nd']:>6} {k:>8} {r[k + '_iterations']:>11} {r[k + '_vmapped']:>9.3f} {r[k + '_serial']:>9.3f} "
                  f"{r[k + '_floor']:>9.3f}")
    print("\ndescents from verified saddles of the cross-polytope trap, tau = 0.01 (the search's workload)")
    print(f"{'N·d':>6}  {'steps':>17} {'vmapped':>9} {'serial':>9}   {'steps, no stall stop':>20} {'serial':>9}")
    for r in saddles:
        print(f"{r['nd']:>6}  {r['steps']:>17} {r['vmapped']:>9.3f} {r['serial']:>9.3f}   {r['steps_off']:>20} "
              f"{r['no_stall']:>9.3f}")
    print("\nratios (vmapped/serial: above 1, one start at a time is faster; serial/floor: loop overhead)")
    for r in rows:
        print(f"{r['nd']:>6}  descent {r['descent_vmapped'] / r['descent_serial']:5.2f}x  "
              f"{r['descent_serial'] / r['descent_floor']:5.2f}x   lbfgs {r['lbfgs_vmapped'] / r['lbfgs_serial']:5.2f}x  "
              f"{r['lbfgs_serial'] / r['lbfgs_floor']:5.2f}x")
    for r in saddles:
        print(f"{r['nd']:>6}  saddle descents {r['vmapped'] / r['serial']:5.2f}x   without the stall stop / with it "
              f"(serial) {r['no_stall'] / r['serial']:5.2f}x")


if __name__ == "__main__":
    main()
