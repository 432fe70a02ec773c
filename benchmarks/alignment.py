"""Benchmarks of the alignment numerics (issue 5): similarity-descent throughput and linear CKA.

Run: ``.venv/bin/python benchmarks/alignment.py [--repeats 3] [--steps 200] [--gram-n 20000]``.

1. Similarity descent, B = 256, at m = 1024 and m = 8192 (float64): steps/s of the jitted
   ``lax.scan`` chunk (batches pre-drawn, compile and the copies of Sigma_0 excluded) against a vectorised numpy
   implementation of the same step (same gather / closed-form gradient / clip / scatter /
   incremental d^2), timed in the same run. Targets: ratio m=8192 / m=1024 time <= 1.5 (O(B^2)),
   JAX >= 10x numpy. A float32 line at m = 1024 (both implementations in float32) is extra.
2. Linear CKA: feature form at n = 100 000, d = 64 (no n x n matrix), and feature vs Gram form at
   the largest n that fits (20 000 when memory allows). Target >= 50x at n = 20 000.
Medians of repeats; the summary is printed last.
3. The data-movement floor of a descent step (needs a C compiler; skipped with a message
   otherwise): the C loop of benchmarks/README.md ("Why the targets are out of reach"), built at run
   time with the system compiler (``cc -O3 -march=native``) into a temporary folder: one thread,
   the same 2B x 2B blocks of both m x m float64 Sigmas at sorted row/column addresses, gathered and
   written back with no arithmetic but one add (so the compiler cannot drop the stores), both as
   separate gather/scatter passes and fused row by row; the faster is the floor. Printed beside the
   JAX step at m = 8192, ratio last (goal: JAX within 1.5x of the floor).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np


def _median_time(fn, repeats: int, setup=None) -> float:
    """Median wall time of ``fn()`` (or ``fn(setup())``: the setup is not timed)."""
    times = []
    for _ in range(repeats):
        arg = setup() if setup is not None else None
        t0 = time.perf_counter()
        fn() if setup is None else fn(arg)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def numpy_step(sig_cl, sig_nscl, d2, batch, labels, tau, eta):
    """The same step in vectorised numpy (first-view anchors, decoupled, no duplicates), in place."""
    n = sig_cl.shape[0] // 2
    b = len(batch)
    rows = np.concatenate([batch, batch + n])
    ix = np.ix_(rows, rows)
    lab = labels[batch]
    pos_idx = np.arange(b)
    col_pos = np.concatenate([pos_idx, pos_idx])
    other = batch[:, None] != batch[col_pos][None, :]
    masks = (other, lab[:, None] != lab[col_pos][None, :])
    olds, news = [], []
    for sig, mask in zip((sig_cl, sig_nscl), masks):
        s = sig[ix]
        x = np.where(mask, s[:b] / tau, -np.inf)
        q = np.exp(x - x.max(axis=1, keepdims=True))
        q /= q.sum(axis=1, keepdims=True)
        g = np.zeros_like(s)
        g[:b] = q / (tau * b)
        g[pos_idx, b + pos_idx] -= 1.0 / (tau * b)
        new = np.clip(s - eta * g, -1.0, 1.0)
        sig[ix] = new
        olds.append(s)
        news.append(new)
    d2 += np.sum((news[0] - news[1]) ** 2 - (olds[0] - olds[1]) ** 2)
    return d2


def bench_descent(m: int, batch_size: int, steps: int, repeats: int, dtype=np.float64) -> dict:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._descent import DescentState
    from contrastive_bounds.numerics.alignment._descent_run import chunk_batches, run_descent_chunk

    n = m // 2
    rng = np.random.default_rng(0)
    labels = (np.arange(n) % 10).astype(np.int32)
    sigma0 = np.clip(rng.uniform(-0.2, 0.2, (m, m)), -1, 1).astype(dtype)
    np.fill_diagonal(sigma0, 1.0)
    lab_j = jnp.asarray(labels)
    batches = chunk_batches(jax.random.key(0), lab_j, 0, count=steps, batch_size=batch_size, replace=False,
                             stratified=False, num_classes=10)
    tau, eta = jnp.asarray(0.5, dtype), jnp.asarray(1.0, dtype)

    def fresh_state():  # not timed: two device copies of Sigma_0 (the chunk donates its state)
        return jax.block_until_ready(DescentState(jnp.array(sigma0), jnp.array(sigma0), jnp.zeros((), dtype)))

    def run_jax(st):  # timed: the jitted lax.scan over `steps` steps only
        st, rec = run_descent_chunk(st, batches, lab_j, tau, eta, anchors="first", coupled=False, symmetrize=False,
                             unique=True)
        jax.block_until_ready(rec.distance)

    run_jax(fresh_state())  # compile
    t_jax = _median_time(run_jax, repeats, setup=fresh_state)
    np_steps = max(steps // 10, 5)
    bnp = np.asarray(batches)[:np_steps]

    def run_np(arrays):
        a, b_ = arrays
        d2 = 0.0
        for t in range(np_steps):
            d2 = numpy_step(a, b_, d2, bnp[t], labels, dtype(0.5), dtype(1.0))

    t_np = _median_time(run_np, repeats, setup=lambda: (sigma0.copy(), sigma0.copy()))
    return {"m": m, "B": batch_size, "dtype": np.dtype(dtype).name, "jax_steps_per_s": steps / t_jax,
            "numpy_steps_per_s": np_steps / t_np}


def bench_cka(gram_n: int, repeats: int) -> dict:
    from contrastive_bounds.numerics.alignment._cka import linear_cka

    rng = np.random.default_rng(0)
    x = rng.standard_normal((100_000, 64))
    y = x @ rng.standard_normal((64, 64)) + rng.standard_normal((100_000, 64))
    t_big = _median_time(lambda: linear_cka(x, y, debiased=False, method="features"), repeats)
    xs, ys = x[:gram_n], y[:gram_n]
    t_feat = _median_time(lambda: linear_cka(xs, ys, debiased=False, method="features"), repeats)
    t_gram = _median_time(lambda: linear_cka(xs, ys, debiased=False, method="gram"), max(1, repeats // 2))
    return {"n_big": 100_000, "features_s_big": t_big, "gram_n": gram_n, "features_s": t_feat, "gram_s": t_gram}


FLOOR_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long rs = 88172645463325252ULL;
static unsigned long long next(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static int cmp(const void *a, const void *b) { long x = *(const long *)a, y = *(const long *)b; return (x > y) - (x < y); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int dcmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

/* usage: floor M B STEPS REPEATS ZERO -> two lines "separate <ms>" and "fused <ms>" (median ms per step) */
int main(int argc, char **argv) {
    long m = atol(argv[1]), b = atol(argv[2]), steps = atol(argv[3]), reps = atol(argv[4]);
    double zero = atof(argv[5]);  /* 0.0 at run time: the stores cannot be proven redundant */
    long n = m / 2, k = 2 * b;
    double *s1 = malloc(sizeof(double) * m * m), *s2 = malloc(sizeof(double) * m * m);
    double *g1 = malloc(sizeof(double) * k * k), *g2 = malloc(sizeof(double) * k * k);
    long *rows = malloc(sizeof(long) * steps * k), *pick = malloc(sizeof(long) * n);
    for (long i = 0; i < m * m; i++) { s1[i] = (double)(next() % 1000) / 1000.0; s2[i] = s1[i]; }
    for (long t = 0; t < steps; t++) {  /* B distinct of n (first view) + their second views, sorted */
        for (long i = 0; i < n; i++) pick[i] = i;
        for (long i = 0; i < b; i++) { long j = i + (long)(next() % (unsigned long long)(n - i)); long x = pick[i]; pick[i] = pick[j]; pick[j] = x; }
        for (long i = 0; i < b; i++) { rows[t * k + i] = pick[i]; rows[t * k + b + i] = pick[i] + n; }
        qsort(rows + t * k, k, sizeof(long), cmp);
    }
    double *sep = malloc(sizeof(double) * reps), *fus = malloc(sizeof(double) * reps);
    for (long r = 0; r < reps; r++) {
        double t0 = now();
        for (long t = 0; t < steps; t++) {
            const long *ix = rows + t * k;
            for (long i = 0; i < k; i++) for (long j = 0; j < k; j++) { g1[i * k + j] = s1[ix[i] * m + ix[j]]; }
            for (long i = 0; i < k; i++) for (long j = 0; j < k; j++) { g2[i * k + j] = s2[ix[i] * m + ix[j]]; }
            for (long i = 0; i < k; i++) for (long j = 0; j < k; j++) { s1[ix[i] * m + ix[j]] = g1[i * k + j] + zero; }
            for (long i = 0; i < k; i++) for (long j = 0; j < k; j++) { s2[ix[i] * m + ix[j]] = g2[i * k + j] + zero; }
        }
        double t1 = now();
        for (long t = 0; t < steps; t++) {
            const long *ix = rows + t * k;
            for (long i = 0; i < k; i++) {
                double *r1 = s1 + ix[i] * m, *r2 = s2 + ix[i] * m, *h1 = g1 + i * k, *h2 = g2 + i * k;
                for (long j = 0; j < k; j++) { h1[j] = r1[ix[j]]; h2[j] = r2[ix[j]]; }
                for (long j = 0; j < k; j++) { r1[ix[j]] = h1[j] + zero; r2[ix[j]] = h2[j] + zero; }
            }
        }
        double t2 = now();
        sep[r] = 1e3 * (t1 - t0) / steps; fus[r] = 1e3 * (t2 - t1) / steps;
    }
    qsort(sep, reps, sizeof(double), dcmp); qsort(fus, reps, sizeof(double), dcmp);
    double check = 0; for (long i = 0; i < m; i++) check += s1[i * m + i] + s2[i];
    printf("separate %.6f\nfused %.6f\ncheck %.3f\n", sep[reps / 2], fus[reps / 2], check);
    return 0;
}
"""


def data_movement_floor(m: int, batch_size: int, steps: int, repeats: int) -> dict | str:
    """Median ms per step of the C floor (separate passes, fused rows), or a message why it did not run."""
    cc = next((c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c and shutil.which(c)), None)
    if cc is None:
        return "no C compiler found (cc, gcc, clang; or set CC): data-movement floor skipped"
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "floor.c"), os.path.join(tmp, "floor")
        with open(src, "w") as fh:
            fh.write(FLOOR_C)
        flags = ["-O3", "-march=native"]
        build = subprocess.run([cc, *flags, src, "-o", exe], capture_output=True, text=True)
        if build.returncode:
            build = subprocess.run([cc, "-O3", src, "-o", exe], capture_output=True, text=True)
            flags = ["-O3"]
        if build.returncode:
            return f"{cc} could not build the floor loop ({build.stderr.strip().splitlines()[-1:]}): skipped"
        out = subprocess.run([exe, str(m), str(batch_size), str(steps), str(repeats), "0.0"], capture_output=True,
                             text=True, check=True).stdout
    vals = dict(line.split() for line in out.splitlines())
    return {"compiler": f"{cc} {' '.join(flags)}", "separate_ms": float(vals["separate"]), "fused_ms": float(vals["fused"]),
            "floor_ms": min(float(vals["separate"]), float(vals["fused"]))}


def _mem_available_gb() -> float:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--gram-n", type=int, default=20_000)
    args = parser.parse_args()

    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    gram_n = args.gram_n
    if _mem_available_gb() < 16 * (gram_n / 20_000) ** 2:  # four n x n float64 arrays + margin
        gram_n = 10_000
    small = bench_descent(1024, args.batch_size, args.steps, args.repeats)
    large = bench_descent(8192, args.batch_size, args.steps, args.repeats)
    small32 = bench_descent(1024, args.batch_size, args.steps, args.repeats, dtype=np.float32)
    cka = bench_cka(gram_n, args.repeats)
    floor = data_movement_floor(8192, args.batch_size, max(20, args.steps // 4), max(3, args.repeats))

    import jax

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"jax {jax.__version__} on {jax.devices()[0].platform}, numpy {np.__version__}; float64 unless marked; "
          f"medians of {args.repeats} repeats")
    for r in (small, large, small32):
        print(f"similarity descent {r['dtype']} m={r['m']:5d} B={r['B']}: JAX {r['jax_steps_per_s']:9.1f} steps/s, "
              f"numpy {r['numpy_steps_per_s']:8.1f} steps/s, JAX/numpy = {r['jax_steps_per_s'] / r['numpy_steps_per_s']:.1f}x")
    ratio = small["jax_steps_per_s"] / large["jax_steps_per_s"]
    print(f"time per step m=8192 / m=1024: {ratio:.2f} (target <= 1.5)")
    print(f"linear CKA features n=100000 d=64: {cka['features_s_big'] * 1e3:.1f} ms")
    print(f"linear CKA n={cka['gram_n']}: features {cka['features_s'] * 1e3:.1f} ms, Gram {cka['gram_s'] * 1e3:.0f} ms, "
          f"speed-up {cka['gram_s'] / cka['features_s']:.0f}x (target >= 50x at n = 20000)")
    jax_ms = 1e3 / large["jax_steps_per_s"]
    if isinstance(floor, str):
        print(f"data-movement floor at m=8192: {floor}")
    else:
        print(f"data-movement floor at m=8192, B={args.batch_size} (C, {floor['compiler']}, one thread, both Sigmas): "
              f"separate passes {floor['separate_ms']:.2f} ms/step, fused rows {floor['fused_ms']:.2f} ms/step")
        print(f"JAX step at m=8192: {jax_ms:.2f} ms/step; JAX / floor = {jax_ms / floor['floor_ms']:.2f}x (goal <= 1.5x: "
              f"{'met' if jax_ms / floor['floor_ms'] <= 1.5 else 'not met'})")


if __name__ == "__main__":
    main()
