"""How the deepest barrier found and the number of trap kinds change with N, d and τ, up to N·d ≈ 4 000.

Run (writes the JSON the findings page quotes; the time is in it):

    python benchmarks/landscape_findings.py --out docs/data/landscape-findings.json

Per landscape (decoupled InfoNCE over the pairs (0, 1), (2, 3), …; float64, CPU), the exploration of
:func:`contrastive_bounds.numerics.landscapes.trap_network.explore_trap` with ``trap="all"``:

* minima: ``--starts`` uniform random starts (seed ``--seed``), batched Riemannian L-BFGS, Newton–CG polish,
  each certified a minimum by Lanczos with residual bounds (Hessian-free); minima classes by energy (1e-8
  relative) and symmetry (graph isomorphism of the labelled Gram matrices); the closed-form simplex minimum
  added where N/2 <= d + 1;
* traps: the ``--max-traps`` highest non-global minimum classes found, each with its ``--modes`` softest modes
  followed both ways by hybrid eigenvector following, every end point certified an index-1 saddle or rejected,
  each certified saddle connected by two L-BFGS descents; a trap's barrier is its lowest certified saddle to a
  lower minimum, minus its energy.

Every number is "over the explored minima": the trap kinds are the distinct non-global minimum classes the
random starts and descents reached (a lower bound on the landscape's), the deepest barrier is the largest of
the explored traps' lowest escape barriers found (their true lowest escape barrier can only be lower or equal
if other exits exist that the followed modes missed; deeper traps may exist that no start reached). No
network here is closed; none is called complete.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

#: (N, d, τ): the table's sizes, then up to N·d = 4 096 (N/2 <= d + 1: the simplex exists; N/2 > d + 1: it does not)
GRID = [(6, 3, 0.1), (16, 3, 0.1), (16, 8, 0.1), (32, 8, 0.1), (64, 8, 0.1), (64, 16, 0.1), (64, 32, 0.1),
        (128, 16, 0.1), (128, 32, 0.1), (64, 16, 0.05), (64, 16, 0.2)]


def run(n: int, d: int, tau: float, *, starts: int, modes: int, max_traps: int, seed: int) -> dict:
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.trap_network import explore_trap

    spec = infonce_spec(n, d, tau)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        out = explore_trap(spec, folder, starts=starts, seed=seed, trap="all", modes=modes, max_traps=max_traps,
                           require_trap=False)
    seconds = time.perf_counter() - began
    minima = sorted(out.minima, key=lambda m: m["energy"])
    v_min = minima[0]["energy"]
    tie = 1e-8 * max(1.0, abs(v_min))
    barriers = [t["barrier"] for t in out.explored if t["barrier"] is not None]
    return {
        "N": n, "d": d, "tau": tau, "Nd": n * d, "simplex_exists": n // 2 <= d + 1,
        "minimum_classes": len(minima), "verified_minima": sum(m["verified"] for m in minima),
        "trap_kinds": sum(1 for m in minima if m["energy"] > v_min + tie),
        "v_min": v_min, "minima": [{k: m[k] for k in ("label", "energy", "found_by", "verified")} for m in minima],
        "explored_traps": out.explored, "deepest_barrier": max(barriers) if barriers else None,
        "traps_without_escape_found": sum(1 for t in out.explored if t["barrier"] is None),
        "searches": out.searches, "certified_saddles": out.verified, "rejected": out.rejected,
        "notes": out.notes, "seconds": seconds,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="docs/data/landscape-findings.json")
    p.add_argument("--starts", type=int, default=16)
    p.add_argument("--modes", type=int, default=2)
    p.add_argument("--max-traps", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--grid", default="", help="N:d:tau,... (default: the built-in grid)")
    a = p.parse_args()
    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    grid = GRID if not a.grid else [tuple(float(x) if i == 2 else int(x) for i, x in enumerate(c.split(":")))
                                    for c in a.grid.split(",")]
    rows = []
    began = time.perf_counter()
    for n, d, tau in grid:
        row = run(n, d, tau, starts=a.starts, modes=a.modes, max_traps=a.max_traps, seed=a.seed)
        rows.append(row)
        deep = "none found" if row["deepest_barrier"] is None else f"{row['deepest_barrier']:.6g}"
        print(f"N={n:4d} d={d:3d} tau={tau:<5g} N·d={n * d:5d}: {row['minimum_classes']} minimum classes, "
              f"{row['trap_kinds']} trap kinds, deepest barrier {deep} ({row['seconds']:.1f} s)", flush=True)
    command = "python benchmarks/landscape_findings.py " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    payload = {"command": command.strip(), "seed": a.seed, "starts": a.starts, "modes": a.modes,
               "max_traps": a.max_traps, "machine": f"{os.cpu_count()} CPU cores (shared), float64",
               "total_seconds": time.perf_counter() - began, "rows": rows,
               "statement": "over the explored minima: random-start minima plus softest-mode following of the "
                            "highest trap classes; no network is closed"}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(a.out).with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n")
    tmp.replace(a.out)
    print(f"wrote {a.out} ({payload['total_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
