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

The command parses its options into the library's configuration (:class:`~contrastive_bounds.numerics.langevin.AnnealConfig`
and :class:`~contrastive_bounds.numerics.langevin.DriverOptions`), runs
:func:`~contrastive_bounds.numerics.langevin.anneal` and prints its report. Bad options (other than
the landscape's) are refused before JAX is imported: the modules imported here import nothing from JAX.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from contrastive_bounds.numerics.langevin._annealing import DEFAULT_STEP_SIZE, START_MODES, AnnealConfig
from contrastive_bounds.numerics.langevin._config import DriverOptions, check_checkpoint_path
from contrastive_bounds.theory._schedules import make_schedule
from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.properties.cli._anneal_run import (
    MAX_CHAIN_STEPS,
    announce_checkpoint,
    announce_cost,
    guard_cost,
    report_interrupt,
    step_count,
    time_line,
)
from contrastive_bounds.properties.cli._common import CLIError, command, console, emit_json, parse_assignments, \
    parse_number

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

ANNEAL_LANDSCAPES = ("barrier-H", "double-well", "triple-well", "vmf", "infonce-toy", "infonce-toy-soft")
"""Built-in landscapes with a known global minimum value (success = V < V_min + delta needs it);
``fourier`` takes its coefficients from a file. Kept equal to the registry by a test."""


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
    points: Optional[int] = typer.Option(None, "--points", help="N: infonce (in [3, 1000000], default 8), thomson (in [2, 1000000], default 12)"),
    dim: Optional[int] = typer.Option(None, "--dim", help="ambient dimension d in [2, 16384] of infonce, thomson (default 3)"),
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
    start: str = typer.Option("trap", "--start", help="initial state: trap (the non-global minimum with the largest "
                              "barrier to a lower minimum, that barrier being H*; with --search the lowest id among "
                              "equals), uniform, global, or a minimum m<id> of --search"),
    integrator: str = typer.Option("euler", "--integrator", help="euler (projected Euler-Maruyama) or geodesic"),
    quench: bool = typer.Option(True, "--quench/--no-quench", help="with --search: minimise each final state to "
                                "name the basin it ended in"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="progress bar (not with --json)"),
    checkpoint: Optional[str] = typer.Option(None, "--checkpoint", help="save the run's state to this .npz file "
                                             "in an existing folder (every 30 s, at the end, and on Ctrl-C; its "
                                             "expected size is printed first when it is 100 MiB or more)"),
    resume: bool = typer.Option(False, "--resume", help="continue the run saved in --checkpoint (same arguments)"),
    yes: bool = typer.Option(False, "--yes", help=f"run even beyond {MAX_CHAIN_STEPS:.0e} chain-steps or half "
                                                  "the machine's memory"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Run annealed Langevin chains; report the success fraction and hitting times beside the theory."""
    started = time.perf_counter()
    landscape, params = _landscape_word(landscape, params)
    sched = make_schedule(schedule, **{k: parse_number(k, v) for k, v in parse_assignments(params).items()})
    circle = search is None and landscape is not None and _circle_path(landscape)
    config = _config(sched, schedule, circle, chains=chains, t_end=time_end, step_size=step_size, seed=seed,
                     start=start, delta=delta, integrator=integrator)
    options = _driver_options(checkpoint, resume, progress and not as_json)
    from contrastive_bounds.numerics.landscapes.network.rebuild import NETWORK_ONLY
    from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions

    if not circle and (search is not None or landscape is None or landscape in NETWORK_ONLY):
        from contrastive_bounds.properties.cli.anneal_network import anneal_network

        given = None if landscape is None else LandscapeOptions(landscape, tuple(landscape_params or ()), points, dim,
                                                                tau, pairs, coupled, radius)
        if given is None and (any(x is not None for x in (points, dim, tau, pairs)) or coupled or radius != 1.0
                              or landscape_params):
            raise CLIError("--points, --dim, --tau, --pairs, --coupled, --radius and --param describe a LANDSCAPE; "
                           "give its name too (or none of them, to anneal the landscape saved in --search)")
        anneal_network(given, search, sched, chains=config.chains, t_end=config.t_end, step_size=config.step_size,
                       seed=config.seed, delta=config.delta, start=config.start, integrator=config.integrator,
                       quench=quench, progress=options.progress, checkpoint=checkpoint, resume=resume, yes=yes,
                       as_json=as_json, started=started)
        return

    extra = [opt for opt, given in (("--points", points), ("--dim", dim), ("--tau", tau), ("--pairs", pairs))
             if given is not None] + (["--coupled"] if coupled else []) + (["--radius"] if radius != 1.0 else [])
    if extra:
        raise CLIError(f"{', '.join(extra)} apply to infonce and thomson, or to any landscape with --search FOLDER "
                       f"(a saved landscape search); {landscape!r} alone takes --param key=value")
    _check_circle_options(config.start, config.t_end, config.step_size)
    land = _landscape(landscape, landscape_params, config)
    report, cost, notes = _run(land, config, options, yes)
    for text in notes:
        print(f"warning: {text}", file=sys.stderr)
    out = _output(report, land, cost, notes, started)
    if as_json:
        emit_json(out)
    else:
        _table(report, land, started)


def _landscape_word(landscape: str | None, params: list[str] | None) -> tuple[str | None, list[str]]:
    """LANDSCAPE and the schedule's key=value words: with no LANDSCAPE (the saved one) the first word is a
    schedule parameter."""
    params = list(params or [])
    if landscape is not None and "=" in landscape and not Path(landscape).exists():
        params.insert(0, landscape)
        landscape = None
    return landscape, params


def _config(sched: Any, form: str, circle: bool, *, t_end: float, **fields: Any) -> AnnealConfig:
    """The experiment's :class:`AnnealConfig`, in the command's terms: a schedule invalid on anneal's range
    [0, --time] is refused naming --schedule (anneal always starts at t = 0: e.g. the generator form cannot);
    on a landscape that runs here (``circle``) also what it needs without --search."""
    t_end = check_real("time", t_end, 0.0, math.inf)
    try:
        sched.validate_range(0.0, t_end)
    except ValueError as err:
        raise ValueError(f"--schedule {form} on anneal's range [0, --time={t_end:g}]: {err}") from None
    if fields["step_size"] is not None:
        step_count(t_end, check_real("step-size", fields["step_size"], 0.0, math.inf))
    if circle:
        _check_circle_options(fields["start"], t_end, fields["step_size"])
    return AnnealConfig(sched, t_end=t_end, **fields)


def _driver_options(checkpoint: str | None, resume: bool, progress: bool) -> DriverOptions:
    """--checkpoint and --resume, checked before any work: a folder, a name not ending in .npz, a folder that does not
    exist, a path under a file or an unwritable place is refused (also with --resume), a saved run needs --resume, and --resume needs a saved run."""
    if resume and checkpoint is None:
        raise ValueError("--resume needs --checkpoint FILE (the file to continue from)")
    if checkpoint is not None:
        if resume and not Path(checkpoint).exists():  # (before check_checkpoint_path creates its folder)
            raise ValueError(f"--checkpoint={checkpoint!r} does not exist: nothing to resume (check the path, or drop "
                             "--resume to start a new run)")
        _check_checkpoint_name(checkpoint)
        path = check_checkpoint_path(checkpoint)
        if not resume and path.exists():
            raise ValueError(f"--checkpoint={checkpoint!r} already holds a saved run; add --resume to continue it, or "
                             "choose another path (delete the file to start afresh)")
    return DriverOptions(progress=progress, checkpoint=checkpoint, resume=resume)


def _check_checkpoint_name(checkpoint: str) -> None:
    """A --checkpoint that is not a folder must end in .npz (the state is a numpy archive, as ``align simulate
    --checkpoint``'s) and lie in a folder that exists (the run does not create folders for it)."""
    if not checkpoint.strip():
        raise CLIError(f"--checkpoint={checkpoint!r} is empty: it must be the path of a .npz file in an existing folder, "
                       "e.g. 'run.npz'")
    path = Path(checkpoint)
    if path.is_dir():
        return  # check_checkpoint_path names it as a folder
    if not path.name.lower().endswith(".npz"):
        raise CLIError(f"--checkpoint={checkpoint!r} must end in .npz (the run's state is a numpy .npz archive), "
                       f"e.g. {str(path.with_name(path.name + '.npz'))!r}")
    if not path.parent.exists():
        raise CLIError(f"--checkpoint={checkpoint!r}: its folder {str(path.parent)!r} does not exist (create it first)")


def _circle_path(landscape: str) -> bool:
    """Whether LANDSCAPE alone runs here (a built-in with a known global minimum, or a Fourier file) rather than
    from a saved search; known without importing the landscapes."""
    path = Path(landscape)
    return landscape in ANNEAL_LANDSCAPES or (path.suffix.lower() in (".json", ".toml") and path.is_file())


def _check_circle_options(start: str, t_end: float, step_size: float | None) -> None:
    """What anneal needs without --search: a start mode of its own, and --time a whole multiple of the step."""
    if start not in START_MODES:
        raise ValueError(f"start={start!r} is not one of {START_MODES} (a minimum m<id> needs --search FOLDER)")
    step_count(t_end, DEFAULT_STEP_SIZE if step_size is None else step_size)


def _landscape(name: str, params: list[str] | None, config: AnnealConfig) -> Any:
    """The landscape LANDSCAPE (with --param) and, for --start trap, its trap."""
    from contrastive_bounds.numerics.landscapes._registry import resolve_landscape
    from contrastive_bounds.numerics.langevin._experiments import circle_trap

    land = resolve_landscape(name, **{k: parse_number(k, v) for k, v in parse_assignments(params).items()})
    if config.start == "trap" and circle_trap(land) is None:
        raise ValueError(f"--start=trap needs an S¹ landscape with a non-global minimum; {land.name!r} has none known; "
                         "use --start uniform, or --search FOLDER (a saved landscape search) to start at its minima")
    return land


def _run(land: Any, config: AnnealConfig, options: DriverOptions, yes: bool) -> tuple[Any, Any, list[str]]:
    """Run the experiment (its cost refused beyond the limit unless --yes, announced when big); Ctrl-C from the
    cost line on stops the run at a chunk boundary with its state saved (exit 130). Returns the report, the cost
    and the step-size warnings, which go in the output."""
    from contrastive_bounds.numerics.langevin import SimulationInterrupted, StepSizeWarning, anneal as run_anneal, \
        deferred_interrupts

    n_steps = config.steps()[1]
    cost, too_big = guard_cost(config.chains, n_steps, land.num_points, land.dim, yes)
    with deferred_interrupts(), warnings.catch_warnings(record=True) as caught:
        announce_cost(cost, too_big)
        from contrastive_bounds.numerics.langevin import default_record_every

        announce_checkpoint(options.checkpoint, config.chains, land.num_points, land.dim,
                            n_steps // default_record_every(n_steps))
        warnings.simplefilter("always", StepSizeWarning)
        try:
            report = run_anneal(land, config, options)
        except SimulationInterrupted as stop:
            report_interrupt(stop)
            raise typer.Exit(130) from None
    notes = [str(w.message) for w in caught if issubclass(w.category, StepSizeWarning)]
    for w in caught:
        if not issubclass(w.category, StepSizeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return report, cost, notes


def _output(report: Any, land: Any, cost: Any, notes: list[str], started: float) -> dict[str, Any]:
    """The --json report."""
    config, run, success, trapped, hits, verdict, band = (report.config, report.run, report.success, report.trapped,
                                                          report.hitting_time, report.verdict, report.band)
    return {
        "landscape": land.name,
        "critical_height": land.critical_height,
        "v_min": land.v_min,
        "schedule": config.schedule.describe(),
        "chains": config.chains,
        "time": config.t_end,
        "step_size": run.step_size,
        "num_steps": run.num_steps,
        "seed": config.seed,
        "start": config.start,
        "integrator": config.integrator,
        "dtype": "float64",
        "noise_generator": run.prng_impl,
        "devices": run.devices,
        "cost": {"chain_steps": cost.chain_steps, "memory_bytes": cost.memory_bytes},
        "delta": run.delta,
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
            "kramers_trap_probability": None if band is None else band.predicted,
            "kramers_trap_band": None if band is None else [band.lo, band.hi],
        },
        "simulation_time_s": run.wall_time,
        "total_time_s": time.perf_counter() - started,
        "warnings": notes,
    }


def _table(report: Any, land: Any, started: float) -> None:
    """The report as a table, the verdict's reason and the times."""
    config, run, success, trapped, hits, verdict, band = (report.config, report.run, report.success, report.trapped,
                                                          report.hitting_time, report.verdict, report.band)
    h_star = land.critical_height
    table = Table(title=f"anneal {land.name} ({config.schedule.describe()}), {config.chains} chains to t = "
                        f"{config.t_end:g}, h = {run.step_size:g}, float64, noise {run.prng_impl}, {run.devices} "
                        f"device{'s' if run.devices > 1 else ''}")
    table.add_column("quantity")
    table.add_column("simulation (95% CI)")
    table.add_column("theory")
    conv = "not decided: H* not known" if verdict is None else verdict.summary
    table.add_row("H*", "", "unknown" if h_star is None else f"{h_star:.6g}")
    table.add_row(f"success P(V < {run.level:.4g})", f"{success.estimate:.4f} [{success.lo:.4f}, {success.hi:.4f}]",
                  conv)
    table.add_row("trapped (never reached)", f"{trapped.estimate:.4f} [{trapped.lo:.4f}, {trapped.hi:.4f}]",
                  "n/a" if band is None else f"Kramers: {band.predicted:.4f} (band {band.lo:.4f}-{band.hi:.4f})")
    if hits.mean is not None:
        table.add_row("hitting time (hits)", f"mean {hits.mean.mean:.4g} [{hits.mean.lo:.4g}, {hits.mean.hi:.4g}], "
                                             f"median {hits.median:.4g}", "")
    console.print(table)
    if verdict is not None:
        console.print(verdict.reason, highlight=False)
    console.print(f"start: {config.start}; " + time_line([("simulation", run.wall_time)], time.perf_counter() - started,
                                                          "the landscape, the verdict and the Kramers band"),
                  highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``anneal`` command to app."""
    app.command("anneal")(command(anneal, aliases={"form": "schedule"}))  # make_schedule names it form=
