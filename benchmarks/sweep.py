"""Benchmark of the sweep engine (issue 15): speed-up of 2 workers over 1, scheduling overhead per task.

Run: ``.venv/bin/python benchmarks/sweep.py [--tasks 32] [--repeats 3]``.

(a) Speed-up: ``--tasks`` small ``anneal`` tasks (barrier-H, fixed T, 256 chains, 500 steps; each is
    about 1-2 s of one core, most of it compiling its kernel and the Kramers quadrature) run by
    :func:`contrastive_bounds.properties.sweeps.run_sweep` on an embedded LocalCluster of 1 and
    of 2 worker processes (one thread each), and, for reference, by a plain loop in this process
    (what a user writes without the engine). Wall times exclude the cluster start-up and a warm-up
    sweep of two tasks per worker (imports, first calls), printed together as start-up; medians of
    ``--repeats`` runs, each into a fresh output folder.
(b) Overhead: for the 1-worker runs of (a), (sweep wall time - sum of the tasks' own wall times, as
    measured inside the worker) / tasks = what the engine adds per task (submission, transfer, the
    atomic Parquet write, bookkeeping); also measured with near-empty tasks (``bound`` rows, ~10 ms).
    Reported as a percentage of a 1-second task. Goal: <= 5 %.
Ratios come last.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time

from contrastive_bounds.numerics._precision import enable_x64
from contrastive_bounds.properties.sweeps._engine import execute_task, run_sweep
from contrastive_bounds.properties.sweeps._cluster import open_client
from contrastive_bounds.properties.sweeps._spec import parse_spec


def anneal_spec(tasks: int):
    n_c = 8
    seeds = max(1, -(-tasks // n_c))
    return parse_spec({"name": "bench", "kind": "anneal", "seeds": f"0..{seeds - 1}",
                       "params": {"H": 1.0, "schedule": "fixed", "chains": 256, "t_end": 5.0, "step_size": 0.01},
                       "grid": {"c_over_h": [0.2 + 0.1 * i for i in range(n_c)]}}, label="bench")


def bound_spec(tasks: int):
    return parse_spec({"name": "bench-bound", "kind": "bound", "bound": "alignment.frobenius",
                       "params": {"batch_size": 64, "num_classes": 10, "delta": 0.05, "eta_sum": 10.0, "tau": 0.5},
                       "grid": {"steps": list(range(100, 100 + tasks))}}, label="bench-bound")


def timed_sweep(spec, workers: int, repeats: int) -> tuple[list[float], list[float], float]:
    """(sweep wall times, engine overhead per task, cluster start-up seconds) over ``repeats`` runs."""
    t0 = time.perf_counter()
    with open_client(workers=workers) as client:
        with tempfile.TemporaryDirectory() as out:  # warm-up: imports and first calls on every worker, untimed
            run_sweep(dataclasses.replace(spec, tasks=spec.tasks[:2 * workers]), os.path.join(out, "w"), client=client)
        startup = time.perf_counter() - t0
        walls, overheads = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as out:
                t = time.perf_counter()
                res = run_sweep(spec, os.path.join(out, "s"), client=client)
                wall = time.perf_counter() - t
            walls.append(wall)
            inside = sum(res.table.column("wall_time_s").to_pylist())
            overheads.append((wall * workers - inside) / len(spec.tasks))
    return walls, overheads, startup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    enable_x64()
    spec = anneal_spec(args.tasks)
    n = len(spec.tasks)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    serial = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        for task in spec.tasks:
            execute_task(task)
        serial.append(time.perf_counter() - t)
    print(f"(a) {n} anneal tasks, serial loop in this process: {statistics.median(serial):.1f} s (median of {args.repeats})")
    w1, o1, s1 = timed_sweep(spec, 1, args.repeats)
    print(f"(a) 1 worker:  {statistics.median(w1):.1f} s per sweep (cluster start-up {s1:.1f} s)")
    w2, _, s2 = timed_sweep(spec, 2, args.repeats)
    print(f"(a) 2 workers: {statistics.median(w2):.1f} s per sweep (cluster start-up {s2:.1f} s)")
    per_task = statistics.median(w1) / n
    print(f"(b) anneal tasks: {per_task:.2f} s per task on 1 worker; engine overhead {statistics.median(o1) * 1000:.1f} ms per task")
    bspec = bound_spec(max(32, args.tasks))
    _, ob, _ = timed_sweep(bspec, 1, args.repeats)
    print(f"(b) near-empty bound tasks ({len(bspec.tasks)}): engine overhead {statistics.median(ob) * 1000:.1f} ms per task")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print("ratios (medians):")
    print(f"  speed-up 2 workers / 1 worker:        {statistics.median(w1) / statistics.median(w2):.2f}x  (goal >= 1.7x)")
    print(f"  speed-up 2 workers / serial loop:     {statistics.median(serial) / statistics.median(w2):.2f}x")
    print(f"  overhead / 1-second task (anneal):    {100 * statistics.median(o1):.2f} %  (goal <= 5 %)")
    print(f"  overhead / 1-second task (bound):     {100 * statistics.median(ob):.2f} %")


if __name__ == "__main__":
    main()
