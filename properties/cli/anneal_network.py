"""``anneal`` on a landscape spec from the minima of a saved search (docs/theorems.md A4, A5, A9): parse, call, print.

``contrastive-bounds anneal [LANDSCAPE options] --search FOLDER --start trap|global|uniform|m<id> --schedule ...``
runs the library's experiment on a saved network
(:mod:`contrastive_bounds.numerics.network_experiment`: :func:`~contrastive_bounds.numerics.network_experiment.plan_anneal`
decides the start minimum, the global set, the step size and the trap, re-verifying every saved energy;
:func:`~contrastive_bounds.numerics.network_experiment.run_anneal` runs the chains and puts the theory beside
them) and prints its result (``to_dict()``, plus the command-line form of the landscape, the run's cost and the
command's own wall time ``total_time_s``, which holds the library's ``run_time_s``, which holds
``simulation_time_s`` and ``quench_time_s``). What is refused is refused by the library; this module renames its arguments to the
options (``start`` -> ``--start``, ``t_end`` -> ``--time``, ...) and checks what it can before JAX is imported:
the folder, the start label, ``--delta``, ``--step-size`` against ``--time``, and landscape options that differ
from the saved search's.

The landscape: the options given (the ``landscape`` command's, :mod:`.landscape_options`), which must be
those of the saved search (else refused, naming each option that differs), or, with ``--search`` alone,
the saved one rebuilt from its fingerprint.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from contrastive_bounds.numerics.landscapes.network.saved import SavedEnergyMismatch, load_saved_search
from contrastive_bounds.numerics.network_experiment import START_CHOICES, LandscapeMismatch, \
    check_landscape, start_minimum, whole_steps
from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.properties.cli._common import CLIError, console, emit_json, err_console
from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions, option_for_field, \
    options_from_fingerprint

__all__ = ["anneal_network", "command_seconds", "verdict_text"]

#: the library's argument names as ``anneal`` spells them
OPTIONS = {"start": "--start", "delta": "--delta", "step_size": "--step-size", "t_end": "--time", "chains": "--chains",
           "seed": "--seed", "integrator": "--integrator"}
_NAMES = re.compile(r"(?<![\w-])(start|delta|step_size|t_end|chains|seed|integrator)(?==)")


def anneal_error(exc: Exception) -> CLIError:
    """The library's refusal with its argument names as ``anneal``'s options (``t_end=1.0`` -> ``--time=1.0``): the
    same refusal, in the command's words."""
    text = str(exc).replace("t_end / step_size", "--time / --step-size")
    return CLIError(_NAMES.sub(lambda m: OPTIONS[m.group(1)], text))


def command_seconds(started: float) -> float:
    """This command's own wall time. When this process was started to run it (``contrastive-bounds ...`` or
    ``python -m contrastive_bounds.properties ...``), since the process started where the system says (Linux:
    interpreter start and imports included, as ``time`` would measure it); otherwise (called in-process, e.g. by
    a test) or where the system does not say, since ``started`` (a ``time.perf_counter()`` taken when the
    command began)."""
    if Path(sys.argv[0]).name not in ("contrastive-bounds", "__main__.py"):
        return time.perf_counter() - started
    try:
        with open("/proc/self/stat") as fh:
            ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            return max(0.0, float(fh.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - started


def _search(folder: Path) -> Any:
    try:
        return load_saved_search(folder)
    except (FileNotFoundError, ValueError) as err:
        msg = str(err)
        raise CLIError("--search=" + msg.removeprefix("folder=") if msg.startswith("folder=")
                       else f"--search={str(folder)!r}: {msg}") from None


def _saved_text(saved: Any) -> str:
    try:
        return options_from_fingerprint(saved.landscape).command_line()
    except ValueError:
        return str(saved.landscape.get("name"))


def _mismatch(saved: Any, given: LandscapeOptions, err: LandscapeMismatch) -> CLIError:
    shown = "; ".join(f"{option_for_field(k, given.name)}: saved {a!r}, given {b!r}" for k, a, b in err.differences[:4])
    return CLIError(f"--search={str(saved.folder)!r} holds a search of `{_saved_text(saved)}`, not of the landscape given "
                    f"({shown}); drop the landscape options to anneal the saved landscape, or give the folder of a "
                    "search of this one")


def _precheck(given: LandscapeOptions | None, saved: Any, start: str, delta: float | None, step_size: float | None,
              t_end: float) -> None:
    """What can be refused before JAX is imported (the library's rules, in the command's words)."""
    try:
        if start not in START_CHOICES:
            start_minimum(saved, start)
        if delta is not None:
            check_real("delta", delta, 0.0, math.inf)
        if step_size is not None:
            whole_steps(t_end, step_size)
    except ValueError as err:
        raise anneal_error(err) from None
    if given is not None:
        fields = given.recipe().fields()
        if fields is not None:
            try:
                check_landscape(saved, fields, probe=False)
            except LandscapeMismatch as err:
                raise _mismatch(saved, given, err) from None


def anneal_network(given: LandscapeOptions | None, search: Path | None, sched: Any, *, chains: int,
                   t_end: float, step_size: float | None, seed: int, delta: float | None, start: str, integrator: str,
                   quench: bool, progress: bool, checkpoint: str | None, resume: bool, yes: bool, as_json: bool,
                   started: float) -> None:
    """Run ``anneal`` on a landscape spec from a saved search (module docstring); arguments as the command's,
    validated there except those the library checks here (``--search``, ``--start``, ``--delta``, ``--step-size``).

    Raises:
      CLIError / ValueError: bad input, naming the option. typer.Exit(130): Ctrl-C (the state saved).
    """
    if search is None:
        if given is None:
            raise CLIError("LANDSCAPE is missing: give a landscape (double-well, infonce --points 4 ..., a Fourier "
                           "file) or --search FOLDER (a saved landscape search) to anneal its landscape")
        given.recipe()  # its sizes and parameters first: the advice below must not repeat a refused value
        raise CLIError(f"--search FOLDER is needed for {given.name}: V_min (the global set), H* and the minima to start "
                       f"from come from a saved landscape search; run `contrastive-bounds landscape "
                       f"{given.command_line()} --out FOLDER` first")
    saved = _search(search)
    _precheck(given, saved, start, delta, step_size, t_end)
    from contrastive_bounds.numerics.langevin import SimulationInterrupted, deferred_interrupts
    from contrastive_bounds.numerics.network_experiment import plan_anneal, run_anneal

    from contrastive_bounds.numerics.network_experiment import trace_record_every
    from contrastive_bounds.properties.cli._anneal_run import announce_checkpoint, announce_cost, guard_cost, \
        report_interrupt, resume_command

    try:
        spec = saved.spec() if given is None else given.spec()
    except CLIError:
        raise
    except ValueError as err:
        raise CLIError(f"--search={str(saved.folder)!r}: {err}") from None
    try:
        plan = plan_anneal(saved, sched, spec=spec, chains=chains, t_end=t_end, step_size=step_size, seed=seed,
                           delta=delta, start=start, integrator=integrator)
    except LandscapeMismatch as err:
        raise _mismatch(saved, given, err) from None
    except SavedEnergyMismatch as err:
        raise CLIError(f"--search={str(saved.folder)!r}: {err}") from None
    except ValueError as err:
        raise anneal_error(err) from None
    every = trace_record_every(plan.num_steps)
    cost, too_big = guard_cost(chains, plan.num_steps, spec.num_points, spec.dim, yes, every)
    with deferred_interrupts() as flag:
        announce_cost(cost, too_big)
        announce_checkpoint(checkpoint, chains, spec.num_points, spec.dim, plan.num_steps // every)
        try:
            result = run_anneal(plan, quench=quench, progress=progress, checkpoint=checkpoint, resume=resume,
                                should_stop=lambda: flag.raised)
        except SimulationInterrupted as stop:
            report_interrupt(stop, time_scale=float(spec.radius) ** 2)
            raise typer.Exit(130) from None
        except KeyboardInterrupt:
            flag.raised = False
            where = (f"it is saved in {checkpoint}; resume with: {resume_command(checkpoint)}" if checkpoint else
                     "nothing was saved (--checkpoint FILE keeps a run's state); rerun, or add --no-quench")
            print(f"interrupted during the final quench, after the simulation had finished; {where}",
                  file=sys.stderr, flush=True)
            raise typer.Exit(130) from None
    out = result.to_dict()
    out.update(landscape_options=_saved_text(saved) if given is None else given.command_line(),
               cost={"chain_steps": cost.chain_steps, "memory_bytes": cost.memory_bytes},
               total_time_s=command_seconds(started))
    for text in out["warnings"]:
        err_console.print(f"note: {text}", markup=False, highlight=False)
    if as_json:
        emit_json(out)
    else:
        _table(out)


def _ci(x: dict[str, Any] | None) -> str:
    return "n/a" if x is None else f"{x['fraction']:.4f} [{x['ci95'][0]:.4f}, {x['ci95'][1]:.4f}]"


def probability_text(p: float) -> str:
    """A probability for the table: four decimals from 1e-3 up, three significant digits below (an Eyring–Kramers
    prediction of 8.4e-24 is not "0.0000"); exactly 0 is "0"."""
    return "0" if p == 0 else (f"{p:.4f}" if p >= 1e-3 else f"{p:.3g}")


def verdict_text(theory: dict[str, Any], known: bool = True) -> str:
    """The HKS verdict of ``anneal --search``'s ``theory`` object in words, never a Python literal
    (:attr:`~contrastive_bounds.theory.ConvergenceVerdict.summary`, e.g. "converges in probability — logarithmic,
    c_T above H*"); with ``known`` False (H* is only what the search shows, a lower bound) a schedule at or above it
    is "not decided", with why."""
    from contrastive_bounds.theory import ConvergenceVerdict

    verdict = ConvergenceVerdict(theory["converges"], theory["reason"], theory["regime"])
    if not known and verdict.regime in ("slow-enough", "boundary"):
        return "not decided: c_T at or above the H* found, which is only a lower bound"
    return verdict.summary


def _table(out: dict[str, Any]) -> None:
    """The human-readable report of :func:`anneal_network`."""
    s, th, k = out["search"], out["theory"], out["theory"]["kramers"]
    start = out["start_minimum"]
    title = (f"anneal {out['landscape_options']} from {out['start']}"
             + (f" ({start['label']}, V = {start['energy']:.6g})" if start and out["start"] != start["label"] else "")
             + f" ({out['schedule']}), {out['chains']} chains to t = {out['time']:g}, h = {out['step_size']:.4g}, "
               f"float64, noise {out['noise_generator']}, {out['devices']} device{'s' if out['devices'] > 1 else ''}")
    table = Table(title=title)
    for col in ("quantity", "simulation (95% CI)", "theory"):
        table.add_column(col)
    table.add_row("H* (network)", f"{s['critical_height']:.6g}: {s['status']}",
                  verdict_text(th, s['critical_height_complete']))
    table.add_row("global set", f"V < V_min + {out['delta']:.4g} = {out['level']:.6g}", f"V_min = {out['v_min']:.10g}")
    table.add_row("success (in it at T_END)", _ci(out["success"]), "")
    table.add_row("reached it by T_END", _ci(out["reached"]), "")
    band = "" if k is None else (f"Eyring-Kramers: {probability_text(k['predicted'])}" if k["predicted"] is not None else "no prediction")
    if k is not None and k["lo"] is not None:
        band += f" (band {probability_text(k['lo'])}-{probability_text(k['hi'])})"
    elif k is not None and k["predicted"] is not None:
        band += (" (no band: outside the law's regime, see below)" if k["reason"].startswith("outside the law's regime")
                 else " (no band, see below)")
    direct = k is None or k["direct_to_global"]
    table.add_row("trapped (never reached)", _ci(out["trapped"]), band if direct else "")
    table.add_row("in start basin at T_END", _ci(out["in_start_basin"]), "" if direct else f"never left: {band}")
    table.add_row("in a global basin at T_END", _ci(out["in_global_basin"]), "")
    ht = out["hitting_time"]
    if ht["mean_over_hits"] is not None:
        table.add_row("first hitting time (hits)", f"mean {ht['mean_over_hits']:.4g} [{ht['ci95'][0]:.4g}, "
                      f"{ht['ci95'][1]:.4g}], median {ht['median']:.4g}", f"censored: {ht['censored']}")
    e = out["energies"]
    table.add_row("V at T_END", f"mean {e['final']['mean']:.6g}, min {e['final']['min']:.6g}, max {e['final']['max']:.6g}",
                  "" if e["start"] is None else f"start V = {e['start']:.6g}")
    console.print(table)
    if out["final_basins"]:
        console.print("final basins: " + ", ".join(f"{name} {n}" for name, n in out["final_basins"].items()),
                      highlight=False)
    console.print(th["reason"], highlight=False)
    if k is not None and k["reason"]:
        console.print(f"Eyring-Kramers: {k['reason']}", highlight=False, markup=False)
    from contrastive_bounds.properties.cli._anneal_run import time_line

    console.print(time_line([("simulation", out["simulation_time_s"]), ("quench", out["quench_time_s"])],
                            out["total_time_s"], "start-up, loading and planning, the Eyring-Kramers prediction, the "
                            "verdict"), highlight=False)
