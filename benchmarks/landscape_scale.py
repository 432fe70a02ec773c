"""Landscape networks at scale (issue 28): the default command at N = 64, d = 32, and the dense path beside it.

Run: ``.venv/bin/python benchmarks/landscape_scale.py [--skip-128] [--trap] [--closure] [--closure-64] [--out FOLDER]``

(a) The default command ``contrastive-bounds landscape infonce --points 64 --dim 32 --tau 0.1`` (N·d = 2 048,
    above ``HESSFREE_THRESHOLD``: the Hessian-free provider and the budgeted settings of
    ``SearchSettings.at_scale``), run in a subprocess with ``--json`` as a user would, timed from the shell
    (start-up, compilation and the search). Printed: whether the closed-form global minimum (collapsed pairs
    on the regular simplex, N/2 <= d + 1) was found, the minima found, which were explored and how far
    (per-trap closure: every mode both ways, or the stated softest subset), every transition state verified
    or rejected with its reason, H* with its status ("open": a value over the explored minima), the load
    average of the machine before and after.
(b) With ``--trap``: the same command at τ = 0.01, where the trap of the table's N = 2d rows (every pair split antipodally on the
    cross-polytope; a minimum at N = 64, d = 32 only for τ <= ~0.01: index 8 at τ = 0.02 and 0.1) exists.
(c) ``--points 128 --dim 32 --tau 0.1`` (N/2 > d + 1: no closed form; the families on the cross-polytope) with the
    same stated budget.
(e) With ``--closure``: per-trap closure at N·d = 512, ``--points 32 --dim 16 --tau 0.01 --starts 1 --hop-rounds 0
    --max-explored 1 --trap-modes 0`` (the cross-polytope trap followed along every mode and every pair inside its
    degenerate eigenspaces, both signs, Hessian-free): the size where a plain per-trap-closed barrier fits the
    15-minute budget on 2 cores; run twice, with the default basin floor (searches stop 1 below the trap:
    ``SearchSettings.basin_margin``) and with ``--basin-margin none`` (every search to its end, as before the
    floor), the barriers compared and the ratio of the wall times printed.
(f) With ``--closure-64``: the same per-trap closure at N = 64, d = 32, τ = 0.01 (N·d = 2 048: the 1 488 modes and
    2 976 pairs of the cross-polytope trap, both signs, 8 928 searches), with the floor only (without it: hours).
(d) The dense path where it still runs: one classification (Hessian, eigendecomposition, the dense reference)
    of the N = 64, d = 32 simplex minimum, dense against Hessian-free (both compiled first, medians of 3), and
    the budgeted search at N = 16, d = 8 (N·d = 128) with either provider.

Ratios last. Timings on a shared 2-core machine: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run_command(points: int, dim: int, tau: float, out: Path, *extra: str) -> tuple[float, dict, str, str]:
    """The default command (plus ``extra`` options) with ``--json``; (seconds, its JSON, load before, load after)."""
    exe = shutil.which("contrastive-bounds") or str(Path(sys.executable).parent / "contrastive-bounds")
    cmd = [exe, "landscape", "infonce", "--points", str(points), "--dim", str(dim), "--tau", str(tau), "--out",
           str(out), "--json", *extra]
    before = _load()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return seconds, json.loads(proc.stdout), before, _load()


def report(name: str, seconds: float, res: dict, before: str, after: str) -> None:
    ex = res["exploration"]
    cf = res["closed_form"]
    glob = set(res["global_minima"])
    traps = [m for m in res["minima"] if not m["global"]]
    print(f"\n== {name}: {seconds:.0f} s wall (load average before {before}, after {after}); curvature "
          f"{res['curvature']}")
    print(f"   closed-form minimum: {cf['text'] if cf else 'none known (N/2 > d + 1)'}")
    print(f"   minima: {len(res['minima'])} ({len(traps)} non-global), global {sorted(glob)}; V: "
          + ", ".join(f"m{m['id']} {m['energy']:.10g}" + (f" (barrier {m['barrier']:.6g})" if m["barrier"] is not None
                                                          else "") for m in res["minima"][:8]))
    print(f"   explored: {ex['per_trap']}")
    closed = [r for r in ex["explored"] if r["per_trap_closed"]]
    print(f"   per-trap closed: {len(closed)} of {len(ex['explored'])} explored; not explored: {ex['unexplored']}")
    tss = res["transition_states"]
    print(f"   transition states: {len(tss)} verified (all verified: "
          f"{all(t['verified'] for t in tss)}), {len(res['unverified_saddles'])} rejected candidates"
          + (": " + "; ".join(sorted({u['reason'][:90] for u in res['unverified_saddles']}))[:400]
             if res["unverified_saddles"] else ""))
    h = res["critical_height"]
    print(f"   H* = {'unknown' if h is None else format(h, '.10g')}; status: {res['status'][:300]}")
    print(f"   {ex['critical_height_over']}")
    print(f"   effort: {res['effort_text']}")


def dense_against_hessfree(reps: int = 3) -> tuple[float, float, float, float]:
    """(dense s, hessfree s) per classification of the N = 64, d = 32 simplex minimum, medians; and the budgeted
    search at N = 16, d = 8 with each provider (s)."""
    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    import numpy as np

    from contrastive_bounds.numerics.landscapes.hessfree import infonce_simplex_minimum
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network
    from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, HESSFREE
    from contrastive_bounds.numerics.landscapes.network.state import SearchSettings

    spec = infonce_spec(64, 32, 0.1)
    z, _ = infonce_simplex_minimum(64, 32, 0.1)
    kw = dict(expect=0, gradient_tol=1e-8, eigenvalue_tol=1e-8, chunk=8)
    out = []
    for prov in (DENSE, HESSFREE):
        prov.classify(spec, z[None], **kw)  # compile
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            cp = prov.classify(spec, z[None], **kw)[0]
            times.append(time.perf_counter() - t0)
        assert cp.verified and cp.kind == "minimum", (prov.name, cp.reason)
        out.append(statistics.median(times))
    small = infonce_spec(16, 8, 0.1)
    searches = []
    for name in ("dense", "hessfree"):
        t0 = time.perf_counter()
        res = landscape_network(small, SearchSettings.at_scale(), curvature=name, draw=False)
        searches.append(time.perf_counter() - t0)
        print(f"   N = 16, d = 8 budgeted search, {name}: {searches[-1]:.1f} s, {len(res.minima)} minima, "
              f"H* {res.critical_height:.10g}, {len(res.transition_states)} verified TSs")
    return out[0], out[1], searches[0], searches[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-128", action="store_true")
    ap.add_argument("--trap", action="store_true", help="also the τ = 0.01 run (its steepest-descent paths are stiff: "
                    "slow)")
    ap.add_argument("--closure", action="store_true", help="also per-trap closure at N = 32, d = 16, tau = 0.01 "
                    "(every mode of the cross-polytope trap, ~10 min)")
    ap.add_argument("--closure-64", action="store_true", help="also per-trap closure at N = 64, d = 32, tau = 0.01 "
                    "(8 928 searches, about 11 min on 2 cores)")
    ap.add_argument("--out", type=Path, default=None, help="keep the searches' folders here (default: a temp folder)")
    args = ap.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="landscape-scale-"))
    print(f"machine: {os.cpu_count()} CPUs, load average {_load()}; python {sys.version.split()[0]}")
    runs = [("default command, N = 64, d = 32, tau = 0.1", 64, 32, 0.1, ())]
    if args.trap:
        runs.append(("default command, N = 64, d = 32, tau = 0.01", 64, 32, 0.01, ()))
    if not args.skip_128:
        runs.append(("default command, N = 128, d = 32, tau = 0.1", 128, 32, 0.1, ()))
    closure = ("--starts", "1", "--hop-rounds", "0", "--max-explored", "1", "--trap-modes", "0")
    if args.closure:
        runs.append(("per-trap closure, N = 32, d = 16, tau = 0.01", 32, 16, 0.01, closure))
        runs.append(("per-trap closure without the basin floor, N = 32, d = 16, tau = 0.01", 32, 16, 0.01,
                     closure + ("--basin-margin", "none")))
    if args.closure_64:
        runs.append(("per-trap closure, N = 64, d = 32, tau = 0.01", 64, 32, 0.01, closure))
    times, barriers = {}, {}
    for name, n, d, tau, extra in runs:
        key = (n, d, tau, "none" in extra, bool(extra))
        seconds, res, before, after = run_command(n, d, tau, root / f"N{n}-d{d}-tau{tau}-{len(times)}", *extra)
        report(name, seconds, res, before, after)
        times[key] = seconds
        barriers[key] = [r.get("barrier") for r in (res.get("exploration") or {}).get("explored", [])]
    print("\n== the dense path beside it")
    dense, hf, s_dense, s_hf = dense_against_hessfree()
    print(f"   one classification of the N = 64, d = 32 simplex minimum: dense {dense:.2f} s (a 2048 x 2048 float64 "
          f"Hessian, 32 MiB, and eigh), Hessian-free {hf:.2f} s (medians of 3, compiled)")
    print("\n== ratios")
    default = (64, 32, 0.1, False, False)
    print(f"   N = 64, d = 32, tau = 0.1 default command: {times[default] / 60:.1f} min against the 15 min goal "
          f"(ratio {times[default] / 900:.2f})")
    if args.closure:
        floored, free = (32, 16, 0.01, False, True), (32, 16, 0.01, True, True)
        print(f"   N = 32, d = 16, tau = 0.01 per-trap closure: {times[floored] / 60:.1f} min against the 15 min "
              f"goal (ratio {times[floored] / 900:.2f})")
        print(f"   the same without the basin floor / with it: {times[free] / times[floored]:.2f} (barriers "
              f"{barriers[free]} and {barriers[floored]})")
    if args.closure_64:
        key = (64, 32, 0.01, False, True)
        print(f"   N = 64, d = 32, tau = 0.01 per-trap closure: {times[key] / 60:.1f} min against the 15 min goal "
              f"(ratio {times[key] / 900:.2f}; barrier {barriers[key]})")
    print(f"   classification at N·d = 2048, dense / Hessian-free: {dense / hf:.2f}")
    print(f"   budgeted search at N·d = 128, dense / Hessian-free: {s_dense / s_hf:.2f}")


if __name__ == "__main__":
    main()
