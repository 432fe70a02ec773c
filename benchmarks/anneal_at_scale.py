"""Annealing from a per-trap-closed trap at N·d = 2 048 against its Eyring–Kramers prediction (issue: Paper A at scale).

Run (after the per-trap-closed search of docs/landscape-findings.md, which saves FOLDER/network.json):

    contrastive-bounds landscape infonce --points 64 --dim 32 --tau 0.01 --starts 1 --hop-rounds 0 \\
        --max-explored 1 --trap-modes 0 --out FOLDER
    python benchmarks/anneal_at_scale.py --search FOLDER --out docs/data/anneal-closed-trap.json

What it does, with the library calls ``contrastive-bounds anneal --search`` makes
(:mod:`contrastive_bounds.numerics.network_experiment`):

1. one plan (:func:`plan_anneal`): the saved energies re-verified, the trap's Eyring–Kramers data — every verified
   escape saddle of the start minimum with its multiplicity ratio, negative eigenvalue, orbit-volume ratio and
   Hessian-free log-determinant difference (paired Rademacher probes, their stated error in the band) — and the
   step size (``STEP_SCALE/λ_max`` at the trap unless ``--step-size``);
2. the constants ``c`` of ``T(t) = c/log(t + 2)``: ``2·ΔV`` (above the trap's barrier ΔV) and, below it, the ``c``
   whose predicted probability of never escaping by ``--time`` is ``--targets`` (found by bisection on the
   prediction, which costs nothing once the plan exists) — so that the runs below the barrier are informative
   (neither 0 nor 1 predicted);
3. a scan of ``--scan`` multiples of the ``c`` predicted to leave half the chains trapped, and the ``c`` at which
   the observed trapped fraction crosses 1/2 against it (the prediction's sensitivity: at N·d = 2 048 the summed
   prefactor is ~e^{100+}, so the whole band of c in which the prediction goes from 1 to 0 is a few per cent wide);
4. for each ``c`` the same ``--chains`` chains (float64, Euler–Maruyama, compiled chunks) from the trap rotated at
   random, each final state quenched to its network basin; trapped fraction (never reached ``V < V_min + δ``) and
   the fraction quenching back to the trap, with Clopper–Pearson 95 % intervals, beside the prediction and its band.

The JSON written holds everything printed plus the plan's seconds. Ctrl-C stops it: the runs done are written and it
exits 130.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from pathlib import Path


def _prediction(plan, c: float):
    from contrastive_bounds.numerics.langevin.network_anneal import KRAMERS_ERROR_PER_T_OVER_H, MIN_BARRIER_OVER_T, \
        trap_prediction
    from contrastive_bounds.theory import make_schedule

    return trap_prediction(plan.trap, make_schedule("temperature", c=c, t0=2.0), t_end=plan.t_end,
                           step_size=plan.step_size, radius=plan.spec.radius, spec=None,
                           error_per_t_over_h=KRAMERS_ERROR_PER_T_OVER_H, min_barrier_over_t=MIN_BARRIER_OVER_T)


def constant_for(plan, target: float, lo: float, hi: float) -> float:
    """The ``c`` in ``[lo, hi]`` whose predicted never-escape probability is ``target`` (it falls as c grows)."""
    a, b = math.log(lo), math.log(hi)
    for _ in range(60):
        mid = 0.5 * (a + b)
        p = _prediction(plan, math.exp(mid)).predicted
        a, b = (mid, b) if p > target else (a, mid)
    return math.exp(0.5 * (a + b))


def _use_trap_cache(cache: Path, search: Path) -> None:
    """Plan with the trap kept in ``cache`` when it was computed from this very search file; else compute it (as
    ``plan_anneal`` does) and keep it there. The trap depends only on the saved search (and the curvature path)."""
    import hashlib
    import pickle

    import contrastive_bounds.numerics.langevin.network_anneal as network_anneal

    state = search / "network.json" if search.is_dir() else search
    digest = hashlib.sha256(state.read_bytes()).hexdigest()
    compute = network_anneal.minimum_trap
    if cache.is_file():
        kept = pickle.loads(cache.read_bytes())
        if kept.get("sha256") == digest:
            network_anneal.minimum_trap = lambda saved, spec, minimum_id, analysis=None: (
                kept["traps"][minimum_id] if minimum_id in kept["traps"] else compute(saved, spec, minimum_id, analysis))
            return

    def keep(saved, spec, minimum_id, analysis=None):  # noqa: ANN001, ANN202 - minimum_trap's signature
        trap = compute(saved, spec, minimum_id, analysis)
        cache.write_bytes(pickle.dumps({"sha256": digest, "traps": {minimum_id: trap}}))
        return trap

    network_anneal.minimum_trap = keep


def _observed_half(rows: list, chains: int) -> float | None:
    """The c at which the observed trapped fraction crosses 1/2 (log-linear between the two runs around it), None
    where no pair of runs brackets it."""
    pts = sorted((r["c"], r["trapped"] / chains) for r in rows)
    for (c0, f0), (c1, f1) in zip(pts, pts[1:]):
        if f0 >= 0.5 >= f1 and f0 > f1:
            w = (f0 - 0.5) / (f0 - f1)
            return math.exp(math.log(c0) + w * (math.log(c1) - math.log(c0)))
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--search", type=Path, required=True, help="the per-trap-closed search's --out folder")
    ap.add_argument("--out", type=Path, required=True, help="the JSON file written")
    ap.add_argument("--chains", type=int, default=128)
    ap.add_argument("--time", type=float, default=10.0, help="t_end of every run")
    ap.add_argument("--step-size", type=float, default=None)
    ap.add_argument("--targets", type=float, nargs="*", default=[0.8, 0.3],
                    help="predicted never-escape probabilities of the runs below the barrier")
    ap.add_argument("--scan", type=float, nargs="*", default=[0.9, 0.95, 1.05, 1.1, 1.2, 1.35, 1.5, 2.0, 3.0],
                    help="also runs at these multiples of the c predicted to leave half the chains trapped")
    ap.add_argument("--trap-cache", type=Path, default=None,
                    help="keep the planned trap (its Eyring-Kramers data, minutes to compute) in this pickle and reuse "
                         "it on the next run of the same search (checked against the search file's SHA-256)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from contrastive_bounds.numerics import clopper_pearson, enable_x64

    enable_x64()
    from contrastive_bounds.numerics.landscapes.network import load_saved_search
    from contrastive_bounds.numerics.network_experiment import plan_anneal, run_anneal
    from contrastive_bounds.theory import make_schedule

    began = time.perf_counter()
    try:
        saved = load_saved_search(args.search)
        if args.trap_cache is not None:
            _use_trap_cache(args.trap_cache, args.search)
        plan = plan_anneal(saved, make_schedule("temperature", c=1.0, t0=2.0), chains=args.chains, t_end=args.time,
                           step_size=args.step_size, seed=args.seed, start="trap")
        if not all(0.0 < t < 1.0 for t in args.targets) or not all(k > 0 for k in args.scan):
            raise ValueError("--targets must lie in (0, 1) and --scan multiples must be > 0")
    except (ValueError, FileNotFoundError) as exc:  # the library's refusals name the argument
        text = str(exc)
        for name, option in (("chains=", "--chains="), ("t_end=", "--time="), ("step_size=", "--step-size="),
                             ("seed=", "--seed=")):
            text = text.replace(name, option) if text.startswith(name) else text
        print(f"error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted while planning: nothing was run or written", file=sys.stderr)
        return 130
    plan_seconds = time.perf_counter() - began
    trap = plan.trap
    if trap is None or not trap.non_degenerate:
        print(f"no Eyring-Kramers prediction: {None if trap is None else trap.prefactor_reason}", file=sys.stderr)
        return 1
    barrier = min(trap.barriers)
    print(f"plan: {plan_seconds:.0f} s; trap {plan.first.label} V = {trap.energy:.10g}, lowest barrier {barrier:.10g}, "
          f"{len(trap.saddles)} escape saddles, h = {plan.step_size:.4g} (h·λ_max = {plan.step_size * plan.stiffest:.3g}), "
          f"{plan.num_steps} steps, {plan.chains} chains", flush=True)
    half = constant_for(plan, 0.5, barrier * 1e-4, barrier)
    constants = [("above", 2.0 * barrier)] + [
        (f"below, predicted {t:g}", constant_for(plan, t, barrier * 1e-4, barrier)) for t in args.targets] + [
        (f"{k:g} x the c predicted to trap half", k * half) for k in args.scan]
    rows = []
    record = {"search": str(args.search), "trap": plan.first.label, "trap_energy": trap.energy, "barrier": barrier,
              "escape_saddles": len(trap.saddles), "log_prefactors": list(trap.log_prefactors),
              "barriers": list(trap.barriers), "step_size": plan.step_size, "lambda_max": plan.stiffest,
              "num_steps": plan.num_steps, "chains": plan.chains, "t_end": plan.t_end, "seed": args.seed,
              "plan_seconds": plan_seconds, "notes": list(plan.notes), "c_predicted_half": half, "runs": rows}
    try:
        for label, c in constants:
            schedule = make_schedule("temperature", c=c, t0=2.0)
            t0 = time.perf_counter()
            res = run_anneal(dataclasses.replace(plan, schedule=schedule)).to_dict()
            seconds = time.perf_counter() - t0
            kr = res["theory"]["kramers"] or {}
            trapped = res["trapped"]["count"]
            back = (res["in_start_basin"] or {}).get("count")
            row = {"c": c, "relation": label, "c_over_barrier": c / barrier,
                   "barrier_over_T0": barrier / schedule.temperature(0.0),
                   "trapped": trapped, "trapped_ci95": [(ci := clopper_pearson(trapped, plan.chains, 0.95)).lo, ci.hi],
                   "in_trap_basin": back, "predicted": res["theory"]["kramers_trap_probability"],
                   "ln_expected_escapes": kr.get("log_expected_escapes"),
                   "band": res["theory"]["kramers_trap_band"], "band_reason": kr.get("reason"),
                   "final_basins": res["final_basins"], "seconds": seconds}
            rows.append(row)
            print(json.dumps(row), flush=True)
    except KeyboardInterrupt:
        interrupted = True
    else:
        interrupted = False
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    tmp.replace(args.out)
    observed = _observed_half(rows, plan.chains)
    record["c_observed_half"] = observed
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    tmp.replace(args.out)
    if interrupted:  # the runs done are in the file; leave at once (JAX's teardown after an interrupt can crash)
        print(f"interrupted: the {len(rows)} run(s) done are written to {args.out}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(130)
    print(f"\nc leaving half the chains trapped: predicted {half:.5g}, "
          + ("observed: not bracketed by the runs (no two runs on either side of half trapped)" if observed is None
             else f"observed {observed:.5g} (ratio {observed / half:.4g})"))
    print("\n| c | run | c/ΔV | ΔV/T(0) | trapped (95% CI) | Eyring–Kramers | ln predicted escapes | band |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: r["c"]):
        lo, hi = r["trapped_ci95"]
        band = "none" if r["band"] is None else f"{r['band'][0]:.3g}–{r['band'][1]:.3g}"
        ln_n = "—" if r["ln_expected_escapes"] is None else f"{r['ln_expected_escapes']:.1f}"
        print(f"| {r['c']:.4g} | {r['relation']} | {r['c_over_barrier']:.3g} | {r['barrier_over_T0']:.3g} | "
              f"{r['trapped'] / plan.chains:.3f} [{lo:.3f}, {hi:.3f}] | {r['predicted']:.3g} | {ln_n} | {band} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
