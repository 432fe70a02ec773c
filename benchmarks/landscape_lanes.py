"""Vmapped lanes against one start at a time for the network search's while-loop kernels on a CPU.

The steepest-descent paths (``descent.flow_single``) and L-BFGS (``optimize.lbfgs_single``) are
``lax.while_loop`` kernels; vmapped over a batch, every lane runs as many iterations as the slowest
one. On a CPU that pays off only while one lane's arithmetic is too small to fill the cores; this
benchmark measures where it stops paying, which sets ``optimize.SERIAL_COORDINATES`` (the search
runs one start at a time from there).

For each N·d: 8 starts (random configurations, InfoNCE τ = 0.05), the kernel compiled for 8 rows
(one vmapped call) and for 1 row (8 calls), medians of ``--reps`` timed runs after a warm-up, and the
floor: the summed iterations of the 8 starts times the time of one gradient (``jax.value_and_grad``,
jitted) at that size — what one start at a time would cost with no loop overhead. The ratios come last:
``vmapped/serial`` above 1 means one start at a time is faster.

Run: ``python benchmarks/landscape_lanes.py [--reps 3] [--sizes 6x3,10x5,16x8,16x16,32x16,64x32]``.
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
    from contrastive_bounds.numerics.landscapes.network.descent import _flow_fn
    from contrastive_bounds.numerics.landscapes.network.optimize import minimizer

    spec = infonce_spec(points, dim, 0.05)
    z = np.random.default_rng(0).normal(size=(8, points, dim))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    vg = jax.jit(jax.value_and_grad(spec.potential))
    grad_time = _median_time(lambda: vg(jnp.asarray(z[0])), max(reps, 50))
    row = {"nd": points * dim}
    kernels = {"descent": lambda b: _flow_fn(spec, b, (("max_steps", 3000),)),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sizes", default="6x3,10x5,16x8,16x16,32x16,64x32")
    args = ap.parse_args()
    enable_x64()
    rows = [measure(*map(int, s.split("x")), args.reps) for s in args.sizes.split(",")]
    print(f"backend: {jax.default_backend()}; 8 starts; medians of {args.reps}; seconds")
    print(f"{'N·d':>6} {'kernel':>8} {'iterations':>11} {'vmapped':>9} {'serial':>9} {'floor':>9}")
    for r in rows:
        for k in ("descent", "lbfgs"):
            print(f"{r['nd']:>6} {k:>8} {r[k + '_iterations']:>11} {r[k + '_vmapped']:>9.3f} {r[k + '_serial']:>9.3f} "
                  f"{r[k + '_floor']:>9.3f}")
    print("\nratios (vmapped/serial: above 1, one start at a time is faster; serial/floor: loop overhead)")
    for r in rows:
        print(f"{r['nd']:>6}  descent {r['descent_vmapped'] / r['descent_serial']:5.2f}x  "
              f"{r['descent_serial'] / r['descent_floor']:5.2f}x   lbfgs {r['lbfgs_vmapped'] / r['lbfgs_serial']:5.2f}x  "
              f"{r['lbfgs_serial'] / r['lbfgs_floor']:5.2f}x")


if __name__ == "__main__":
    main()
