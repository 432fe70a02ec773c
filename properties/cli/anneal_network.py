"""``anneal`` on a landscape spec from the minima of a saved search (docs/theorems.md A4, A5, A9).

``contrastive-bounds anneal [LANDSCAPE options] --search FOLDER --start trap|global|uniform|m<id> --schedule ...``:
the chains run on the landscape's potential (float64, :func:`~contrastive_bounds.numerics.langevin.network_runs.schedule_sample`:
the compiled driver, chains vmapped, steps in ``lax.scan`` chunks), from the minimum named (under independent
random rotations where the potential is O(d)-invariant), and the report gives

* the global set ``{V < V_min + δ}``, ``V_min`` the search's lowest minimum, ``δ`` stated (default: half the
  gap to the next minimum, so the set holds no other minimum found);
* the fractions that reached it (ever), that are in it at T_END, that never reached it (trapped), and, by
  minimising each final state, that ended in the start minimum's basin (and in which basin the others
  ended, a minimum the search never found included) — Clopper–Pearson 95 % intervals;
* the first hitting times of the global set, the energies (start, final, a trace of the mean);
* the theory: the HKS verdict for the network's H* and, started in a non-global minimum, the
  Eyring–Kramers probability of never escaping it, with the band of check ``A4.infonce_landscape``.

The landscape: the options given (the ``landscape`` command's, :mod:`.landscape_options`), which must be
those of the saved search (else refused, naming each option that differs), or, with ``--search`` alone,
the saved one rebuilt from its fingerprint.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.table import Table

from contrastive_bounds.numerics.langevin import SimulationInterrupted, StepSizeWarning, default_record_every, \
    deferred_interrupts
from contrastive_bounds.numerics.langevin.network_anneal import NOT_CONVERGED, UNKNOWN_MINIMUM, final_basins, \
    global_set_margin, minimum_trap, network_starts, stiffest_eigenvalue, trap_prediction, uniform_starts
from contrastive_bounds.numerics.langevin.network_runs import schedule_sample
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search, minimum_label
from contrastive_bounds.numerics.stats import clopper_pearson, hitting_time_summary
from contrastive_bounds.theory.domains import check_real

from contrastive_bounds.properties.cli.anneal_run import announce_cost, guard_cost, report_interrupt, resume_command, \
    step_count
from contrastive_bounds.properties.cli.common import CLIError, console, emit_json, err_console
from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions, option_for_field, \
    options_from_fingerprint, spec_from_fingerprint

__all__ = ["anneal_network", "STEP_SCALE", "DEFAULT_STEP_SIZE"]

#: Default step: at most ``STEP_SCALE·R²/λ_max`` (λ_max the stiffest Hessian eigenvalue at the start minimum).
STEP_SCALE = 0.2
#: The default step where the stiffness allows it (the S¹ path's default).
DEFAULT_STEP_SIZE = 0.02
_WARN_STEP = 0.5  # h·λ_max/R² above this is warned about


def _search(folder: Path) -> Any:
    try:
        return load_saved_search(folder)
    except (FileNotFoundError, ValueError) as err:
        msg = str(err)
        raise CLIError("--search=" + msg.removeprefix("folder=") if msg.startswith("folder=")
                       else f"--search={str(folder)!r}: {msg}") from None


def _spec(given: LandscapeOptions | None, saved: Any) -> tuple[Any, str]:
    """The spec and its command-line form; refuses a landscape other than the saved one."""
    try:
        saved_text = options_from_fingerprint(saved.landscape).command_line()
    except ValueError:
        saved_text = str(saved.landscape.get("name"))
    if given is None:
        try:
            return spec_from_fingerprint(saved.landscape)[0], saved_text
        except ValueError as err:
            raise CLIError(f"--search={str(saved.folder)!r}: {err}") from None
    spec = given.spec()
    diffs = saved.differences(spec.fingerprint())
    if len(diffs) > 1:  # other options give other probe values: name the options only
        diffs = [x for x in diffs if x[0] != "probe"]
    if diffs:
        shown = "; ".join(f"{option_for_field(k, given.name)}: saved {a!r}, given {b!r}" for k, a, b in diffs[:4])
        raise CLIError(f"--search={str(saved.folder)!r} holds a search of `{saved_text}`, not of the landscape given "
                       f"({shown}); drop the landscape options to anneal the saved landscape, or give the folder of a "
                       "search of this one")
    return spec, given.command_line()


def check_saved_energies(spec: Any, saved: Any, *, rtol: float = 1e-8) -> None:
    """Every saved minimum's and verified transition state's energy is the potential at its saved coordinates
    (``|V(z) - energy| <= rtol·max(1, |energy|)``); an edited or foreign file is refused, naming the record.

    Raises:
      CLIError: the first record whose energy differs (exit 2 on the command line).
    """
    records = [("minimum", minimum_label(m.id), m.energy, m.z) for m in saved.minima]
    records += [("transition state", f"ts{t.id}", t.energy, t.z) for t in saved.transition_states if t.verified]
    for kind, label, energy, z in records:
        v = float(spec.energy(z))
        if not abs(v - energy) <= rtol * max(1.0, abs(energy)):
            raise CLIError(f"--search={str(saved.folder)!r}: {kind} {label} is saved with energy {energy!r}, but the "
                           f"landscape at its saved coordinates is {v!r}: the file was edited or belongs to another "
                           "landscape; run the search again")


def _status(saved: Any, analysis: Any) -> str:
    if not saved.closed:
        text = ("open: the saved search was not closed under single-ended exploration (version-1 search, or "
                "closure not reached): H* is the largest barrier among the minima found")
    elif len(saved.minima) == 1:
        text = ("barrier-free within this search" if saved.minima[0].verified else
                "open: the only minimum found is not verified")
    elif not analysis.complete:
        text = (f"open: {len(analysis.unconnected)} non-global minimum/minima not connected to a lower one "
                "within this search")
    else:
        text = "complete"
    return text if saved.finished else f"{text} (the search stopped in its {saved.phase!r} phase: resume it)"


def _start_minimum(start: str, saved: Any, analysis: Any, status: str) -> Any:
    if start == "uniform":
        return None
    if start == "global":
        return saved.minimum(analysis.global_minima[0])
    if start == "trap":
        if not analysis.barriers:
            raise CLIError(f"--start=trap: the search in --search has no non-global minimum with a barrier ({status}); "
                           "start at global, uniform or a minimum m<id>")
        return saved.minimum(max(analysis.barriers, key=lambda k: (analysis.barriers[k]["barrier"], -k)))
    try:
        return saved.minimum(start)
    except ValueError:
        raise CLIError(f"--start={start!r} is not trap, uniform, global or a minimum of --search (its minima: "
                       f"{', '.join(saved.labels[:20])})") from None


def _fraction(k: int, n: int, meaning: str) -> dict[str, Any]:
    ci = clopper_pearson(int(k), int(n), 0.95)
    return {"fraction": ci.estimate, "ci95": [ci.lo, ci.hi], "count": int(k), "method": ci.method, "meaning": meaning}


def anneal_network(given: LandscapeOptions | None, search: Path | None, sched: Any, *, chains: int,
                   t_end: float, step_size: float | None, seed: int, delta: float | None, start: str, integrator: str,
                   quench: bool, progress: bool, checkpoint: str | None, resume: bool, yes: bool, as_json: bool,
                   started: float) -> None:
    """Run ``anneal`` on a landscape spec from a saved search (module docstring); arguments as the command's,
    validated there except those checked here (``--search``, ``--start``, ``--delta``, ``--step-size``).

    Raises:
      CLIError / ValueError: bad input, naming the option. typer.Exit(130): Ctrl-C (the state saved).
    """
    from contrastive_bounds.properties.checks.landscape_schedule import KRAMERS_ERROR_PER_T_OVER_H, MIN_BARRIER_OVER_T

    if search is None:
        if given is None:
            raise CLIError("LANDSCAPE is missing: give a landscape (double-well, infonce --points 4 ..., a Fourier "
                           "file) or --search FOLDER (a saved landscape search) to anneal its landscape")
        raise CLIError(f"--search FOLDER is needed for {given.name}: V_min (the global set), H* and the minima to start "
                       f"from come from a saved landscape search; run `contrastive-bounds landscape "
                       f"{given.command_line()} --out FOLDER` first")
    saved = _search(search)
    if start not in ("trap", "uniform", "global"):
        _start_minimum(start, saved, None, "")  # a bad label is refused before the potential is compiled
    spec, landscape_text = _spec(given, saved)
    check_saved_energies(spec, saved)
    analysis = saved.analysis()
    status = _status(saved, analysis)
    first = _start_minimum(start, saved, analysis, status)
    v_min, r2 = float(analysis.v_min), float(spec.radius) ** 2
    energies = [m.energy for m in saved.minima]
    d = global_set_margin(energies, v_min) if delta is None else check_real("--delta", delta, 0.0, math.inf)
    level = v_min + d
    notes = []
    inside = [minimum_label(m.id) for m in saved.minima if m.id not in analysis.global_minima and m.energy < level]
    if first is not None and first.id not in analysis.global_minima and first.energy < level:
        raise CLIError(f"--delta={d!r} puts the start minimum {minimum_label(first.id)} (V = {first.energy:.10g}) inside "
                       f"the global set V < V_min + delta = {level:.10g}; use --delta < {first.energy - v_min:.6g}")
    if inside:
        notes.append(f"the global set V < {level:.6g} holds the non-global minima {', '.join(inside)} (--delta is "
                     "larger than their gap to V_min)")
    trap = minimum_trap(saved, spec, first.id, analysis) if first is not None else None
    if first is not None and first.id in analysis.unconnected:
        notes.append(f"the start minimum {minimum_label(first.id)} has no path to a lower minimum in the saved network: "
                     "no barrier and no Eyring-Kramers prediction (the search is incomplete there)")
    stiff_z = first.z if first is not None else saved.minimum(analysis.global_minima[0]).z
    lam_max = trap.stiffest if trap is not None else stiffest_eigenvalue(spec, stiff_z)
    cap = STEP_SCALE * r2 / lam_max if lam_max > 0 else DEFAULT_STEP_SIZE
    if step_size is None:
        n_steps = max(1, math.ceil(t_end / min(DEFAULT_STEP_SIZE, cap) - 1e-9))
        h = t_end / n_steps
    else:
        h, n_steps = float(step_size), step_count(t_end, step_size)
        if h * lam_max / r2 > _WARN_STEP:
            notes.append(f"--step-size={h:g}: h·lambda_max/R² = {h * lam_max / r2:.3g} at the "
                         f"{'start' if first is not None else 'global'} minimum (lambda_max = {lam_max:.4g}): the Euler "
                         f"step's bias is not small; {STEP_SCALE * r2 / lam_max:.3g} or less is advised")
    cost, too_big = guard_cost(chains, n_steps, spec.num_points, spec.dim, yes)
    starts = uniform_starts(spec, chains, seed) if first is None else network_starts(spec, first.z, chains, seed)
    labels = None
    with deferred_interrupts() as flag, warnings.catch_warnings(record=True) as caught:
        announce_cost(cost, too_big)
        warnings.simplefilter("always", StepSizeWarning)
        try:
            run = schedule_sample(spec, starts, sched, t_end=n_steps * h, step_size=h, seed=seed, level=level,
                                  integrator=integrator, record_every=default_record_every(n_steps), progress=progress,
                                  checkpoint=checkpoint, resume=resume)
        except SimulationInterrupted as stop:
            report_interrupt(stop, time_scale=r2)
            raise typer.Exit(130) from None
        if quench:
            try:
                labels, _ = final_basins(spec, run.positions, saved.minima, should_stop=lambda: flag.raised)
            except KeyboardInterrupt:
                flag.raised = False
                where = (f"it is saved in {checkpoint}; resume with: {resume_command(checkpoint)}" if checkpoint else
                         "nothing was saved (--checkpoint FILE keeps a run's state); rerun, or add --no-quench")
                print(f"interrupted during the final quench, after the simulation had finished; {where}",
                      file=sys.stderr, flush=True)
                raise typer.Exit(130) from None
    notes += [str(w.message) for w in caught if issubclass(w.category, StepSizeWarning)]
    for w in caught:
        if not issubclass(w.category, StepSizeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    pred = None
    if trap is not None:
        pred = trap_prediction(trap, sched, t_end=run.t_end, step_size=h, radius=spec.radius,
                               error_per_t_over_h=KRAMERS_ERROR_PER_T_OVER_H, min_barrier_over_t=MIN_BARRIER_OVER_T,
                               integrator=integrator)
    h_star = float(analysis.critical_height)
    verdict = sched.converges(h_star)
    known = analysis.complete and saved.finished and status in ("complete", "barrier-free within this search")
    converges = verdict.converges if known or verdict.converges is False else None
    reason = (f"{verdict.reason} [H* = {h_star:.6g} of the saved search: {status}]" if known else
              f"{verdict.reason} — but H* = {h_star:.6g} is only what this search shows ({status}): the true H* may be "
              "larger")
    out = _output(run=run, saved=saved, analysis=analysis, first=first, trap=trap, pred=pred, labels=labels, spec=spec,
                  landscape_text=landscape_text, status=status, h_star=h_star, known=known, v_min=v_min, sched=sched,
                  seed=seed, start=start, integrator=integrator, cost=cost, d=d, level=level, converges=converges,
                  regime=verdict.regime, reason=reason, notes=notes, started=started)
    for text in notes:
        err_console.print(f"note: {text}", markup=False, highlight=False)
    if as_json:
        emit_json(out)
    else:
        _table(out)


def _output(**v: Any) -> dict[str, Any]:
    """The JSON report of :func:`anneal_network` (its run, search, start, prediction and settings by name)."""
    run, saved, analysis, first, trap, pred, labels = (v[k] for k in ("run", "saved", "analysis", "first", "trap", "pred",
                                                                      "labels"))
    chains, level = run.chains, v["level"]
    hits = hitting_time_summary(run.hit_time, run.t_end, 0.95)
    trace = run.energy_trace
    basins = None
    if labels is not None:
        names = {m.id: minimum_label(m.id) for m in saved.minima}
        basins = {names[i]: int(np.sum(labels == i)) for i in names if np.any(labels == i)}
        for code, name in ((UNKNOWN_MINIMUM, "a minimum the search did not find"), (NOT_CONVERGED, "not converged")):
            if np.any(labels == code):
                basins[name] = int(np.sum(labels == code))
        if np.any(labels == UNKNOWN_MINIMUM):
            v["notes"].append(f"{int(np.sum(labels == UNKNOWN_MINIMUM))} chain(s) ended in a minimum the search did not "
                              "find: the saved network is not complete")
    start = None if first is None else {
        "label": minimum_label(first.id), "energy": first.energy, "global": first.id in analysis.global_minima,
        "barrier": analysis.barriers.get(first.id, {}).get("barrier"),
        "rotated": bool(v["spec"].symmetry.orthogonal)}
    kramers = None if pred is None else {**pred.to_dict(), "meaning": (
        "probability of never reaching the global set (every escape saddle leads to a global minimum)"
        if pred.direct_to_global else f"probability of never leaving {minimum_label(first.id)} (an escape saddle leads "
                                      "to an intermediate minimum: compare with 'in start basin', which also counts returns)"),
        "barriers": list(trap.barriers), "escape_saddles": [minimum_label(s.target) + f" via t{s.ts}" for s in trap.saddles]}
    return {
        "landscape": v["spec"].name, "landscape_description": v["spec"].description,
        "landscape_options": v["landscape_text"], "radius": v["spec"].radius,
        "search": {"folder": str(saved.folder), "phase": saved.phase, "status": v["status"],
                   "critical_height": v["h_star"], "critical_height_complete": v["known"], "v_min": v["v_min"],
                   "global_minima": [minimum_label(i) for i in analysis.global_minima],
                   "minima": [{"label": minimum_label(m.id), "energy": m.energy, "multiplicity": m.multiplicity,
                               "barrier": analysis.barriers.get(m.id, {}).get("barrier"),
                               "global": m.id in analysis.global_minima} for m in saved.minima[:60]]},
        "critical_height": v["h_star"], "v_min": v["v_min"], "schedule": v["sched"].describe(), "chains": chains,
        "time": run.t_end, "step_size": run.step_size, "num_steps": run.num_steps, "seed": v["seed"],
        "start": v["start"], "start_minimum": start, "integrator": v["integrator"], "dtype": "float64",
        "noise_generator": run.prng_impl, "devices": run.devices,
        "cost": {"chain_steps": v["cost"].chain_steps, "memory_bytes": v["cost"].memory_bytes},
        "delta": v["d"], "level": level,
        "success": _fraction(run.below_at_end, chains, "V(Z_T) < V_min + delta at T_END"),
        "reached": _fraction(run.reached, chains, "reached V < V_min + delta by T_END"),
        "trapped": _fraction(run.trapped, chains, "never reached V < V_min + delta by T_END"),
        "in_start_basin": None if labels is None or first is None else _fraction(
            int(np.sum(labels == first.id)), chains, f"Z_T quenches to the start minimum {minimum_label(first.id)}"),
        "in_global_basin": None if labels is None else _fraction(
            int(np.sum(np.isin(labels, analysis.global_minima))), chains, "Z_T quenches to a global minimum"),
        "final_basins": basins,
        "hitting_time": {"mean_over_hits": hits.mean.mean if hits.mean else None,
                         "ci95": [hits.mean.lo, hits.mean.hi] if hits.mean else None,
                         "median": hits.median, "censored": hits.censored},
        "energies": {"start": None if first is None else first.energy,
                     "final": {"mean": float(np.mean(run.final_potential)), "median": float(np.median(run.final_potential)),
                               "min": float(np.min(run.final_potential)), "max": float(np.max(run.final_potential))},
                     "lowest_seen": float(np.min(run.running_min)),
                     "trace": {"times": run.record_times.tolist(), "mean": np.mean(trace, axis=1).tolist(),
                               "min": np.min(trace, axis=1).tolist()}},
        "theory": {"converges": v["converges"], "regime": v["regime"], "reason": v["reason"],
                   "kramers_trap_probability": None if pred is None else pred.predicted,
                   "kramers_trap_band": None if pred is None or pred.lo is None else [pred.lo, pred.hi],
                   "kramers": kramers},
        "wall_time_s": run.wall_time, "total_time_s": time.perf_counter() - v["started"], "warnings": v["notes"],
    }


def _ci(x: dict[str, Any] | None) -> str:
    return "n/a" if x is None else f"{x['fraction']:.4f} [{x['ci95'][0]:.4f}, {x['ci95'][1]:.4f}]"


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
    conv = "unknown" if th["converges"] is None else str(th["converges"])
    table.add_row("H* (network)", f"{s['critical_height']:.6g}: {s['status']}", f"converges: {conv} ({th['regime']})")
    table.add_row("global set", f"V < V_min + {out['delta']:.4g} = {out['level']:.6g}", f"V_min = {out['v_min']:.10g}")
    table.add_row("success (in it at T_END)", _ci(out["success"]), "")
    table.add_row("reached it by T_END", _ci(out["reached"]), "")
    band = "" if k is None else (f"Eyring-Kramers: {k['predicted']:.4f}" if k["predicted"] is not None else "no prediction")
    if k is not None and k["lo"] is not None:
        band += f" (band {k['lo']:.4f}-{k['hi']:.4f})"
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
    console.print(f"simulation {out['wall_time_s']:.1f} s, whole command {out['total_time_s']:.1f} s", highlight=False)
