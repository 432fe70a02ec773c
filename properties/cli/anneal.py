"""Command ``anneal``: simulate annealed Langevin chains and put the theory's prediction beside them.

``contrastive-bounds anneal LANDSCAPE --schedule FORM c=VALUE [t0=..] [--chains N --time T_END
--step-size H --seed S --delta D --start trap|uniform|global] [--checkpoint FILE [--resume]]
[--yes] [--json]`` runs the simulator of :mod:`contrastive_bounds.numerics.langevin` (float64, its
default configuration: ``jax.random.normal`` noise, chains split over the local devices) and reports

* the success fraction P(V(Z_T) < V_min + delta) with a Clopper–Pearson interval (95 %);
* the hitting time of {V < V_min + delta}: fraction reached (the complement is the trapped fraction),
  mean and median;
* the theory: the schedule's asymptotic verdict (``Schedule.converges(H*)``, docs/theorems.md A4) and,
  for S¹ landscapes started in their deepest trap, the Kramers probability of never escaping by
  T_END, exp(−∫ dt/τ(T(t))) (docs/theorems.md A5; an Eyring–Kramers approximation, accurate when
  T(t) ≪ barrier over most of the run);
* how it ran: the noise generator, the device count and the cost (chain-steps, memory).

Cost: a run beyond :data:`MAX_CHAIN_STEPS` chain-steps or half the machine's memory is refused
unless ``--yes``; a big one prints its cost on stderr first. Ctrl-C stops the run within seconds,
saves its state (to ``--checkpoint``, else to ``anneal-interrupted-<id>.ckpt.npz`` here) and prints
the command that resumes it; exit code 130.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import sys
import time
import warnings
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.numerics.langevin import SimulationInterrupted, StepSizeWarning, default_record_every, \
    deferred_interrupts, estimate_run_cost
from contrastive_bounds.numerics.langevin.experiments import circle_trap, kramers_trap_band, run_schedule
from contrastive_bounds.numerics.landscapes.registry import resolve_landscape
from contrastive_bounds.numerics.stats import clopper_pearson, hitting_time_summary
from contrastive_bounds.theory.annealing import make_schedule
from contrastive_bounds.theory.domains import check_int, check_seed, check_real

from contrastive_bounds.properties.cli.common import command, console, emit_json, parse_assignments, parse_number

START_MODES = ("trap", "uniform", "global")
ANNEAL_LANDSCAPES = ("barrier-H", "double-well", "triple-well", "vmf", "infonce-toy", "infonce-toy-soft")
"""Built-in landscapes with a known global minimum value (success = V < V_min + delta needs it);
``fourier`` takes its coefficients from a file. Kept equal to the registry by a test."""
MAX_CHAIN_STEPS = 2 * 10**10
"""Runs beyond this many chain-steps (chains × steps; about 2-4 minutes per 10^10 on a 2-core CPU in
float64 on S¹, far longer elsewhere) need ``--yes``."""
BIG_CHAIN_STEPS = 10**9
"""Runs from this many chain-steps (or 1 GiB of memory) print their cost on stderr before starting."""


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _resume_command(checkpoint: str) -> str:
    """The command line of this process with ``--checkpoint FILE --resume`` (replacing any given)."""
    argv = list(sys.argv[1:])
    if "anneal" not in argv:
        return f"contrastive-bounds anneal <the same arguments> --checkpoint {shlex.quote(checkpoint)} --resume"
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--checkpoint":
            skip = True
            continue
        if a.startswith("--checkpoint=") or a == "--resume":
            continue
        kept.append(a)
    return shlex.join(["contrastive-bounds", *kept, "--checkpoint", checkpoint, "--resume"])


def anneal(
    landscape: str = typer.Argument(..., help=f"built-in name with a known global minimum ({', '.join(ANNEAL_LANDSCAPES)}) "
                                                  "or an S¹ Fourier file (.json/.toml, as for barrier and kramers)"),
    params: Optional[list[str]] = typer.Argument(None, help="schedule parameters key=value, e.g. c=2.0 t0=2"),
    schedule: str = typer.Option(..., "--schedule", help="schedule form (temperature, inverse-temperature, author, ...)"),
    landscape_params: Optional[list[str]] = typer.Option(None, "--param", help="landscape parameter key=value (repeatable), e.g. H=5"),
    chains: int = typer.Option(1024, "--chains", help="number of independent chains"),
    time_end: float = typer.Option(1000.0, "--time", help="continuous end time T_END (the run covers [0, T_END])"),
    step_size: float = typer.Option(0.02, "--step-size", help="step size h (continuous time per step)"),
    seed: int = typer.Option(0, "--seed", help="random seed, in [0, 2^32 - 1]"),
    delta: Optional[float] = typer.Option(None, "--delta", help="success: V < V_min + delta (default: half the gap to the next minimum, else 0.1)"),
    start: str = typer.Option("trap", "--start", help="initial state: trap (deepest non-global S¹ minimum), uniform, global"),
    integrator: str = typer.Option("euler", "--integrator", help="euler (projected Euler-Maruyama) or geodesic"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="progress bar (not with --json)"),
    checkpoint: Optional[str] = typer.Option(None, "--checkpoint", help="save the run's state to this .npz file "
                                             "(every 30 s, at the end, and on Ctrl-C)"),
    resume: bool = typer.Option(False, "--resume", help="continue the run saved in --checkpoint (same arguments)"),
    yes: bool = typer.Option(False, "--yes", help=f"run even beyond {MAX_CHAIN_STEPS:.0e} chain-steps or half "
                                                  "the machine's memory"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Run annealed Langevin chains; report the success fraction and hitting times beside the theory."""
    started = time.perf_counter()
    land = resolve_landscape(landscape, **{k: parse_number(k, v) for k, v in parse_assignments(landscape_params).items()})
    sched = make_schedule(schedule, **{k: parse_number(k, v) for k, v in parse_assignments(params).items()})
    chains = check_int("chains", chains, 1, 10_000_000)
    seed = check_seed(seed)
    t_end = check_real("time", time_end, 0.0, math.inf)
    h_opt = check_real("step-size", step_size, 0.0, math.inf)
    ratio = t_end / h_opt
    if not math.isfinite(ratio) or ratio > 2**31 - 2:
        shown = f"{ratio:.0f}" if ratio < 1e15 else f"{ratio:.3g}"
        raise ValueError(f"--time / --step-size = {shown} steps is outside its domain: at most {2**31 - 2} steps; "
                         "use a shorter --time or a larger --step-size")
    n_steps = round(ratio)
    if n_steps < 1 or abs(n_steps * h_opt - t_end) > 1e-9 * max(1.0, t_end):
        raise ValueError(f"--time={t_end!r} must be a positive whole multiple of --step-size={h_opt!r}")
    if n_steps > 2**31 - 2:
        raise ValueError(f"--time / --step-size = {n_steps:.3g} steps is outside its domain: at most {2**31 - 2} steps; "
                         "use a shorter --time or a larger --step-size")
    if start not in START_MODES:
        raise ValueError(f"start={start!r} is not one of {START_MODES}")
    if start == "trap" and circle_trap(land) is None:
        raise ValueError(f"--start=trap needs an S¹ landscape with a non-global minimum; {land.name!r} has none known; "
                         "use --start uniform")
    try:
        sched.validate_range(0.0, t_end)
    except ValueError as err:  # say which range: anneal always starts at t = 0 (e.g. the generator form can't)
        raise ValueError(f"--schedule {schedule} on anneal's range [0, --time={t_end:g}]: {err}") from None
    if resume and checkpoint is None:
        raise ValueError("--resume needs --checkpoint FILE (the file to continue from)")
    if resume and not Path(checkpoint).exists():
        raise ValueError(f"--checkpoint={checkpoint!r} does not exist: nothing to resume (check the path, or drop "
                         "--resume to start a new run)")
    if checkpoint is not None and not resume and Path(checkpoint).exists():
        raise ValueError(f"--checkpoint={checkpoint!r} already holds a saved run; add --resume to continue it, or "
                         "choose another path (delete the file to start afresh)")
    cost = estimate_run_cost(chains, n_steps, land.num_points, land.dim, 8, n_steps // default_record_every(n_steps))
    memory = _physical_memory()
    too_big = [why for why in (
        f"{cost.chain_steps:.3g} chain-steps > the limit {MAX_CHAIN_STEPS:.0e}" if cost.chain_steps > MAX_CHAIN_STEPS else "",
        f"about {cost.memory_bytes / 2**30:.3g} GiB > half the machine's memory ({memory / 2**31:.3g} GiB)"
        if memory and cost.memory_bytes > memory / 2 else "") if why]
    if too_big and not yes:
        raise ValueError(f"this run is too big ({'; '.join(too_big)}); fewer --chains or a shorter --time, or --yes to run it")
    with deferred_interrupts(), warnings.catch_warnings(record=True) as caught:
        # Ctrl-C from here on stops the run at a chunk boundary with its state saved; simulate's
        # step-size warning goes in the output
        if too_big or cost.chain_steps >= BIG_CHAIN_STEPS or cost.memory_bytes >= 2**30:
            print(f"cost: {cost.describe()}; Ctrl-C stops the run within seconds and saves it", file=sys.stderr,
                  flush=True)
        warnings.simplefilter("always", StepSizeWarning)
        try:
            run = run_schedule(land, sched, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start=start,
                               delta=delta, integrator=integrator, progress=progress and not as_json,
                               checkpoint=checkpoint, resume=resume)
        except SimulationInterrupted as stop:
            _report_interrupt(stop)
            raise typer.Exit(130) from None
    notes = [str(w.message) for w in caught if issubclass(w.category, StepSizeWarning)]
    for w in caught:
        if not issubclass(w.category, StepSizeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    trap = circle_trap(land)
    success = clopper_pearson(run.success, chains, 0.95)
    hits = hitting_time_summary(run.hit_time, run.t_end, 0.95)
    trapped = clopper_pearson(run.trapped, chains, 0.95)
    h_star = land.critical_height
    verdict = sched.converges(h_star) if h_star is not None else None
    band = kramers_trap_band(land, sched, trap, 0.0, t_end, run.step_size) if (start == "trap" and trap) else None
    predicted_trap = band.predicted if band is not None else None
    h, num_steps, delta = run.step_size, run.num_steps, run.delta
    out = {
        "landscape": land.name,
        "critical_height": h_star,
        "v_min": land.v_min,
        "schedule": sched.describe(),
        "chains": chains,
        "time": t_end,
        "step_size": h,
        "num_steps": num_steps,
        "seed": seed,
        "start": start,
        "integrator": integrator,
        "dtype": "float64",
        "noise_generator": run.prng_impl,
        "devices": run.devices,
        "cost": {"chain_steps": cost.chain_steps, "memory_bytes": cost.memory_bytes},
        "delta": delta,
        "success": {"fraction": success.estimate, "ci95": [success.lo, success.hi], "method": success.method},
        "trapped": {"fraction": trapped.estimate, "ci95": [trapped.lo, trapped.hi],
                    "meaning": "never reached V < V_min + delta by T_END"},
        "hitting_time": {"mean_over_hits": hits.mean.mean if hits.mean else None,
                         "ci95": [hits.mean.lo, hits.mean.hi] if hits.mean else None,
                         "median": hits.median, "censored": hits.censored},
        "theory": {
            "converges": None if verdict is None else verdict.converges,
            "regime": None if verdict is None else verdict.regime,
            "reason": "H* unknown for this landscape" if verdict is None else verdict.reason,
            "kramers_trap_probability": predicted_trap,
            "kramers_trap_band": None if band is None else [band.lo, band.hi],
        },
        "wall_time_s": run.wall_time,
        "total_time_s": time.perf_counter() - started,
        "warnings": notes,
    }
    for text in notes:
        print(f"warning: {text}", file=sys.stderr)
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"anneal {land.name} ({sched.describe()}), {chains} chains to t = {t_end:g}, h = {h:g}, float64, "
                        f"noise {run.prng_impl}, {run.devices} device{'s' if run.devices > 1 else ''}")
    table.add_column("quantity")
    table.add_column("simulation (95% CI)")
    table.add_column("theory")
    conv = "unknown (H* not known)" if verdict is None else f"{verdict.converges} ({verdict.regime})"
    table.add_row("H*", "", "unknown" if h_star is None else f"{h_star:.6g}")
    table.add_row(f"success P(V < {run.level:.4g})", f"{success.estimate:.4f} [{success.lo:.4f}, {success.hi:.4f}]", f"converges: {conv}")
    table.add_row("trapped (never reached)", f"{trapped.estimate:.4f} [{trapped.lo:.4f}, {trapped.hi:.4f}]",
                  "n/a" if band is None else f"Kramers: {predicted_trap:.4f} (band {band.lo:.4f}-{band.hi:.4f})")
    if hits.mean is not None:
        table.add_row("hitting time (hits)", f"mean {hits.mean.mean:.4g} [{hits.mean.lo:.4g}, {hits.mean.hi:.4g}], median {hits.median:.4g}", "")
    console.print(table)
    if verdict is not None:
        console.print(verdict.reason, highlight=False)
    console.print(f"start: {start}; simulation {run.wall_time:.1f} s, whole command (with the theory column) "
                  f"{time.perf_counter() - started:.1f} s", highlight=False)


def _report_interrupt(stop: SimulationInterrupted) -> None:
    """Ctrl-C: make sure the state is saved, say where, and print the command that resumes."""
    res = stop.result
    path = stop.checkpoint
    if path is None:
        ident = hashlib.sha256(json.dumps(res.config, sort_keys=True).encode()).hexdigest()[:12]
        try:
            path = stop.save(f"anneal-interrupted-{ident}.ckpt.npz")
        except (ValueError, OSError) as err:
            print(f"interrupted at step {res.steps_done:,} of {res.num_steps:,} (t = {res.t_end:g}); the state could not "
                  f"be saved ({err}); nothing to resume", file=sys.stderr)
            return
    print(f"interrupted at step {res.steps_done:,} of {res.num_steps:,} (t = {res.t_end:g}); state saved to {path}\n"
          f"resume with: {_resume_command(str(path))}", file=sys.stderr, flush=True)


def register(app: typer.Typer) -> None:
    """Add the ``anneal`` command to app."""
    app.command("anneal")(command(anneal))
