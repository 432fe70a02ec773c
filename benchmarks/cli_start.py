"""Start-up time of the command line (issue 17): ``contrastive-bounds --help``, ``bound``, ``list``, ``claims``.

Each command runs 10 times in a fresh interpreter (as the console script does); the median wall
time and the median CPU time (user + system of the child, robust on a shared machine) are printed.
The baseline is what the command line did before commands were loaded lazily: the same command
after importing every command module (JAX, gudhi, the landscapes ...). Goal: median wall <= 1 s
for ``--help`` and ``bound``. Ratios (baseline / lazy) are printed last.

Run: ``python benchmarks/cli_start.py [--repeats 10]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

LAZY = "from contrastive_bounds.properties.cli._app import main; import sys; sys.argv = ['contrastive-bounds', *{args!r}]; main()"
EAGER = ("import contrastive_bounds.properties.cli._theory, contrastive_bounds.properties.cli._annealing, "
         "contrastive_bounds.properties.cli._anneal, contrastive_bounds.properties.cli._align, "
         "contrastive_bounds.properties.cli._check\n"
         "from contrastive_bounds.numerics._precision import enable_x64; enable_x64()\n" + LAZY)

COMMANDS = {
    "--help": ["--help"],
    "bound": ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100", "delta=0.05",
              "steps=1000", "eta_sum=10"],
    "list": ["list"],
    "claims --only (one claim)": ["claims", "--only", "alignment.frobenius_decreasing_in_tau"],
}
GOAL_S = {"--help": 1.0, "bound": 1.0}


def _time(code: str, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``python -c code`` over ``repeats`` fresh interpreters."""
    walls, cpus = [], []
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{code!r} failed: {proc.stderr[-2000:]}")
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"median of {args.repeats} fresh interpreters each")
    rows = []
    for name, argv in COMMANDS.items():
        lazy = _time(LAZY.format(args=argv), args.repeats)
        eager = _time(EAGER.format(args=argv), args.repeats)
        rows.append((name, lazy, eager))
        goal = GOAL_S.get(name)
        verdict = "" if goal is None else (f"  goal <= {goal:g} s: {'met' if lazy[0] <= goal else 'NOT met'}")
        print(f"{name:<34} lazy wall {lazy[0]:.3f} s (cpu {lazy[1]:.3f} s)   eager wall {eager[0]:.3f} s "
              f"(cpu {eager[1]:.3f} s){verdict}")
    print("ratios (eager / lazy, wall; cpu):")
    for name, lazy, eager in rows:
        print(f"  {name:<32} {eager[0] / lazy[0]:.1f}x; {eager[1] / lazy[1]:.1f}x")


if __name__ == "__main__":
    main()
