"""Command ``anneal``: simulate annealed Langevin chains and put the theory's prediction beside them.

``contrastive-bounds anneal [LANDSCAPE] --schedule FORM c=VALUE [t0=..] [landscape options] [--search FOLDER]
[--chains N --time T_END --step-size H --seed S --delta D --start trap|uniform|global|m<id>]
[--checkpoint FILE [--resume]] [--yes] [--json]`` runs the simulator of
:mod:`contrastive_bounds.numerics.langevin` (float64, its default configuration: ``jax.random.normal``
noise, chains split over the local devices) and reports

* the success fraction P(V(Z_T) < V_min + delta) with a Clopper–Pearson interval (95 %);
* the hitting time of {V < V_min + delta}: fraction reached (the complement is the trapped fraction),
  mean and median;
* the theory: the schedule's asymptotic verdict (``Schedule.converges(H*)``, docs/theorems.md A4) and,
  for S¹ landscapes started in their deepest trap, the Kramers probability of never escaping by
  T_END, exp(−∫ dt/τ(T(t))) (docs/theorems.md A5; an Eyring–Kramers approximation, accurate when
  T(t) ≪ barrier over most of the run);
* how it ran: the noise generator, the device count and the cost (chain-steps, memory).

Two kinds of landscape. A built-in with a known global minimum or an S¹ Fourier file, alone, runs here
(the S¹ fast paths, the exact S¹ trap). Any landscape the ``landscape`` command accepts — ``infonce``
and ``thomson`` with ``--points/--dim/--tau/--pairs/--coupled/--radius``, built-ins with ``--param
key=value``, Fourier files — together with ``--search FOLDER`` (a saved ``landscape`` search) runs in
:mod:`.anneal_network`: starts at the search's minima, V_min and H* from its network, the
Eyring–Kramers band of the start minimum, the final basins. With ``--search`` and no LANDSCAPE the
landscape is the saved one.

Cost: a run beyond :data:`MAX_CHAIN_STEPS` chain-steps or half the machine's memory is refused
unless ``--yes``; a big one prints its cost on stderr first. Ctrl-C stops the run within seconds,
saves its state (to ``--checkpoint``, else to ``anneal-interrupted-<id>.ckpt.npz`` here) and prints
the command that resumes it; exit code 130.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.numerics.stats import clopper_pearson, hitting_time_summary
from contrastive_bounds.theory.annealing import make_schedule
from contrastive_bounds.theory.domains import check_int, check_seed, check_real

from contrastive_bounds.properties.cli.anneal_run import (  # noqa: F401 - MAX_CHAIN_STEPS, BIG_CHAIN_STEPS: re-exported
    BIG_CHAIN_STEPS,
    MAX_CHAIN_STEPS,
    announce_cost,
    guard_cost,
    report_interrupt,
    step_count,
)
from contrastive_bounds.properties.cli.common import CLIError, command, console, emit_json, parse_assignments, \
    parse_number
from contrastive_bounds.properties.cli.landscape_options import NETWORK_ONLY, LandscapeOptions

START_MODES = ("trap", "uniform", "global")
ANNEAL_LANDSCAPES = ("barrier-H", "double-well", "triple-well", "vmf", "infonce-toy", "infonce-toy-soft")
"""Built-in landscapes with a known global minimum value (success = V < V_min + delta needs it);
``fourier`` takes its coefficients from a file. Kept equal to the registry by a test."""
DEFAULT_STEP_SIZE = 0.02
"""``--step-size`` when not given (landscapes with ``--search`` may take a smaller one, see :mod:`.anneal_network`)."""


def anneal(
    landscape: Optional[str] = typer.Argument(
        None, help=f"a built-in with a known global minimum ({', '.join(ANNEAL_LANDSCAPES)}), an S¹ Fourier file "
                   "(.json/.toml), or with --search any landscape the landscape command accepts (infonce, thomson, "
                   "...); omitted with --search: the saved landscape"),
    params: Optional[list[str]] = typer.Argument(None, help="schedule parameters key=value, e.g. c=2.0 t0=2"),
    schedule: str = typer.Option(..., "--schedule", help="schedule form (temperature, inverse-temperature, author, "
                                 "fixed, ...)"),
    landscape_params: Optional[list[str]] = typer.Option(None, "--param", help="landscape parameter key=value "
                                                         "(repeatable), e.g. H=5"),
    points: Optional[int] = typer.Option(None, "--points", help="N: infonce (>= 3, default 8), thomson (>= 2, default 12)"),
    dim: Optional[int] = typer.Option(None, "--dim", help="ambient dimension d >= 2 of infonce, thomson (default 3)"),
    tau: Optional[float] = typer.Option(None, "--tau", help="InfoNCE temperature in [1e-4, 1e4] (default 0.5)"),
    pairs: Optional[str] = typer.Option(None, "--pairs", help="InfoNCE positive pairs i-j,k-l (default 0-1,2-3,...)"),
    coupled: bool = typer.Option(False, "--coupled", help="InfoNCE with the positive in the denominator"),
    radius: float = typer.Option(1.0, "--radius", help="sphere radius R > 0 (with --search or infonce/thomson)"),
    search: Optional[Path] = typer.Option(None, "--search", help="a saved landscape search (the --out folder of "
                                          "`contrastive-bounds landscape`): minima to start from, V_min and H*"),
    chains: int = typer.Option(1024, "--chains", help="number of independent chains"),
    time_end: float = typer.Option(1000.0, "--time", help="continuous end time T_END (the run covers [0, T_END])"),
    step_size: Optional[float] = typer.Option(None, "--step-size", help=f"step size h (continuous time per step; "
                                              f"default {DEFAULT_STEP_SIZE}, with --search at most 0.2/lambda_max of "
                                              "the start minimum)"),
    seed: int = typer.Option(0, "--seed", help="random seed, in [0, 2^32 - 1]"),
    delta: Optional[float] = typer.Option(None, "--delta", help="success: V < V_min + delta (default: half the gap to "
                                          "the next minimum, else 0.1)"),
    start: str = typer.Option("trap", "--start", help="initial state: trap (the deepest non-global minimum), uniform, "
                              "global, or a minimum m<id> of --search"),
    integrator: str = typer.Option("euler", "--integrator", help="euler (projected Euler-Maruyama) or geodesic"),
    quench: bool = typer.Option(True, "--quench/--no-quench", help="with --search: minimise each final state to "
                                "name the basin it ended in"),
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
    params = list(params or [])
    if landscape is not None and "=" in landscape and not Path(landscape).exists():
        params.insert(0, landscape)  # no LANDSCAPE (the saved one): the first word is a schedule parameter
        landscape = None
    sched = make_schedule(schedule, **{k: parse_number(k, v) for k, v in parse_assignments(params).items()})
    chains = check_int("chains", chains, 1, 10_000_000)
    seed = check_seed(seed)
    t_end = check_real("time", time_end, 0.0, math.inf)
    if step_size is not None:
        check_real("step-size", step_size, 0.0, math.inf)
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
    if search is not None or landscape is None or landscape in NETWORK_ONLY:
        from contrastive_bounds.properties.cli.anneal_network import anneal_network

        given = None if landscape is None else LandscapeOptions(landscape, tuple(landscape_params or ()), points, dim,
                                                                tau, pairs, coupled, radius)
        if given is None and (any(x is not None for x in (points, dim, tau, pairs)) or coupled or radius != 1.0
                              or landscape_params):
            raise CLIError("--points, --dim, --tau, --pairs, --coupled, --radius and --param describe a LANDSCAPE; "
                           "give its name too (or none of them, to anneal the landscape saved in --search)")
        anneal_network(given, search, sched, chains=chains, t_end=t_end, step_size=step_size,
                       seed=seed, delta=delta, start=start, integrator=integrator, quench=quench,
                       progress=progress and not as_json, checkpoint=checkpoint, resume=resume, yes=yes,
                       as_json=as_json, started=started)
        return
    from contrastive_bounds.numerics.langevin import SimulationInterrupted, StepSizeWarning, deferred_interrupts
    from contrastive_bounds.numerics.langevin.experiments import circle_trap, kramers_trap_band, run_schedule
    from contrastive_bounds.numerics.landscapes.registry import resolve_landscape

    extra = [opt for opt, given in (("--points", points), ("--dim", dim), ("--tau", tau), ("--pairs", pairs))
             if given is not None] + (["--coupled"] if coupled else []) + (["--radius"] if radius != 1.0 else [])
    if extra:
        raise CLIError(f"{', '.join(extra)} apply to infonce and thomson, or to any landscape with --search FOLDER "
                       f"(a saved landscape search); {landscape!r} alone takes --param key=value")
    land = resolve_landscape(landscape, **{k: parse_number(k, v) for k, v in parse_assignments(landscape_params).items()})
    step_size = DEFAULT_STEP_SIZE if step_size is None else step_size
    n_steps = step_count(t_end, step_size)
    if start not in START_MODES:
        raise ValueError(f"start={start!r} is not one of {START_MODES} (a minimum m<id> needs --search FOLDER)")
    if start == "trap" and circle_trap(land) is None:
        raise ValueError(f"--start=trap needs an S¹ landscape with a non-global minimum; {land.name!r} has none known; "
                         "use --start uniform, or --search FOLDER (a saved landscape search) to start at its minima")
    cost, too_big = guard_cost(chains, n_steps, land.num_points, land.dim, yes)
    with deferred_interrupts(), warnings.catch_warnings(record=True) as caught:
        # Ctrl-C from here on stops the run at a chunk boundary with its state saved; simulate's
        # step-size warning goes in the output
        announce_cost(cost, too_big)
        warnings.simplefilter("always", StepSizeWarning)
        try:
            run = run_schedule(land, sched, chains=chains, t_end=t_end, step_size=step_size, seed=seed, start=start,
                               delta=delta, integrator=integrator, progress=progress and not as_json,
                               checkpoint=checkpoint, resume=resume)
        except SimulationInterrupted as stop:
            report_interrupt(stop)
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


def register(app: typer.Typer) -> None:
    """Add the ``anneal`` command to app."""
    app.command("anneal")(command(anneal))
