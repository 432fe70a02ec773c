"""Commands ``barrier``, ``schedule`` and ``kramers`` (annealing theory, docs/theorems.md A2–A5)."""

from __future__ import annotations

import math
from typing import Any, Optional

import typer
from rich.table import Table

from contrastive_bounds.numerics.landscapes._barriers import landscape_barrier
from contrastive_bounds.numerics.landscapes._escape import circle_escape_times
from contrastive_bounds.numerics.landscapes._landscape import Landscape
from contrastive_bounds.numerics.landscapes._registry import list_landscapes, resolve_landscape
from contrastive_bounds.theory._schedule_forms import LOG_FORMS
from contrastive_bounds.theory._schedules import ConvergenceVerdict, make_schedule
from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.properties.cli._common import command, console, emit_json, parse_assignments, parse_number
from contrastive_bounds.properties._statements import compare_text

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)


def _landscape(name: str, params: list[str] | None) -> Landscape:
    """A built-in landscape (with key=value params) or a Fourier file (.json/.toml)."""
    kv = {k: parse_number(k, v) for k, v in parse_assignments(params).items()}
    return resolve_landscape(name, **kv)


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return "inf" if math.isinf(x) else f"{x:.10g}"
    return str(x)


def barrier(
    landscape: str = typer.Argument(..., metavar="LANDSCAPE", help=f"built-in name ({', '.join(list_landscapes())}) or a Fourier file (.json/.toml)"),
    params: Optional[list[str]] = typer.Argument(None, metavar="KEY=VALUE", help="landscape parameters key=value (e.g. H=5)"),
    resolution: Optional[int] = typer.Option(None, "--resolution", help="grid points per circle (S¹: 16..1e7, default 4096; tori: 8..4096 with at most 4e6 points, default 64) or mesh vertices (S²: 12..1e6, default 20000)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Critical height H* by sublevel-set persistence, with minima, saddles and the error bound."""
    land = _landscape(landscape, params)
    res = landscape_barrier(land, resolution=resolution)
    out = {"landscape": land.name, **res.to_dict()}
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"critical height of {land.name}")
    table.add_column("quantity")
    table.add_column("value")
    for key in ("critical_height", "error_bound", "grid_critical_height", "grid_error_bound", "cross_check",
                "v_min", "resolution", "method"):
        table.add_row(key, "—" if out[key] is None else _fmt(out[key]))
    console.print(table)
    mins = Table(title="minima")
    mins.add_column("location")
    mins.add_column("V")
    mins.add_column("depth")
    for m in res.minima[:50]:
        loc = m.get("theta", m.get("vertex"))
        mins.add_row(_fmt(loc), _fmt(m["value"]), "global" if not math.isfinite(m["depth"]) else _fmt(m["depth"]))
    console.print(mins)
    for note in res.warnings:
        console.print(f"warning: {note}", markup=False, highlight=False)


def schedule(
    form: str = typer.Argument(..., metavar="FORM", help="fixed, temperature, inverse-temperature, author, noise, generator, linear, exponential, polynomial, sqrt"),
    params: Optional[list[str]] = typer.Argument(None, metavar="KEY=VALUE", help="c=VALUE, optionally t0=VALUE, and the form's other parameters"),
    critical_height: float = typer.Option(..., "--critical-height", help="H* of the landscape (>= 0)"),
    t_start: float = typer.Option(0.0, "--t-start", help="T(t) must be finite and > 0 from here to --t-end, else exit 2 (C12)"),
    t_end: Optional[float] = typer.Option(None, "--t-end", help="end of that range (default: t-start)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """A schedule in every convention, with the asymptotic verdict and its reason.

    The schedule must be valid (T finite and > 0) on [--t-start, --t-end], by default at t = 0;
    otherwise the command exits 2 naming the parameter (e.g. t0) and its allowed range (C12).
    """
    h = check_real("critical_height", critical_height, 0.0, math.inf, lo_closed=True)
    kv = {k: float(parse_number(k, v)) for k, v in parse_assignments(params).items()}
    sched = make_schedule(form, **kv)
    a = check_real("t_start", t_start, 0.0, math.inf, lo_closed=True)
    b = a if t_end is None else t_end
    sched.validate_range(a, b)  # never clamped: an invalid range is an error, as for `anneal`
    main = sched.converges(h)
    conventions = []
    if form in LOG_FORMS:
        for other in LOG_FORMS:
            try:
                conv = sched.to_convention(other)
                v = conv.converges(h)
                conventions.append({"form": other, "params": dict(conv.params), "describe": conv.describe(),
                                    "hks_constant": conv.hks_constant(), "converges": v.converges, "regime": v.regime})
            except ValueError:  # only the generator convention (t0 = 1) can refuse
                conventions.append({"form": other, "params": None, "describe": None,
                                    "note": f"not expressible: the generator convention fixes t0 = 1 (this schedule "
                                            f"has t0 = {_fmt(sched.params.get('t0', 1.0))}); same c_T",
                                    "hks_constant": sched.hks_constant(), "converges": main.converges, "regime": main.regime})
    out = {
        "form": form, "params": dict(sched.params), "describe": sched.describe(), "hks_constant": sched.hks_constant(),
        "critical_height": h, "converges": main.converges, "regime": main.regime, "reason": main.reason,
        "conventions": conventions, "valid_on": [a, b],
    }
    if as_json:
        emit_json(out)
        return
    console.print(sched.describe())
    table = Table(title=f"H* = {h:g}")
    table.add_column("convention")
    table.add_column("schedule")
    table.add_column("c_T")
    table.add_column("converges")
    for row in conventions or [{"form": form, "describe": sched.describe(), "hks_constant": sched.hks_constant(),
                                "converges": main.converges, "regime": main.regime}]:
        verdict = ConvergenceVerdict(row["converges"], "", row["regime"])
        table.add_row(row["form"], row["describe"] or f"— ({row['note']})", _fmt(row["hks_constant"]),
                      verdict.outcome_text)
    console.print(table)
    console.print(f"verdict: {main.summary}", markup=False, highlight=False)
    console.print(main.reason, markup=False, highlight=False)
    console.print(_valid_range_text(sched, a, b), markup=False, highlight=False)


def _valid_range_text(sched: Any, a: float, b: float) -> str:
    """What ``validate_range(a, b)`` established: the temperature at ``t = a`` when the range is one point
    (the default), else that T is finite and > 0 on the whole closed interval."""
    if a == b:
        return f"T({a:g}) = {float(sched.temperature(a)):.10g} (finite and > 0; check a range with --t-end)"
    return f"T(t) finite and > 0 for every t in [{a:g}, {b:g}]"


def kramers(
    landscape: str = typer.Argument(..., metavar="LANDSCAPE", help="S¹ built-in name or a Fourier file"),
    params: Optional[list[str]] = typer.Argument(None, metavar="KEY=VALUE", help="landscape parameters key=value"),
    temperature: float = typer.Option(..., "--temperature", help="T > 0 (at least the landscape's smallest supported T, given when too small)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Kramers time vs exact mean first-passage time for each non-global minimum of an S¹ landscape."""
    land = _landscape(landscape, params)
    t = check_real("temperature", temperature, 0.0, math.inf)
    recs = circle_escape_times(land, t)
    notes = [_regime_note(r, t) for r in recs if r.regime != "asymptotic"]
    out = {"landscape": land.name, "temperature": t, "critical_height": land.critical_height,
           "minima": [r.to_dict() for r in recs], "warnings": notes}
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"escape times of {land.name} at T = {t:g} (natural logs; SDE time units)")
    for col in ("θ", "V", "ΔV", "log Kramers", "log exact", "exact/Kramers", "regime"):
        table.add_column(col)
    for r in recs:
        table.add_row(*(_fmt(x) for x in (r.theta, r.value, r.barrier, r.log_kramers, r.log_exact, r.ratio, r.regime)))
    console.print(table)
    for note in notes:
        console.print(f"warning: {note}", markup=False, highlight=False)
    if not recs:
        console.print("every local minimum is global: nothing to escape from")


def _regime_note(r: Any, t: float) -> str:
    if r.regime == "outside":
        return (f"minimum at θ = {r.theta:.6g}: {compare_text('T =', t, 'ΔV =', r.barrier, '.6g', weak=True)}, outside "
                "the Kramers regime (an asymptotic law for T << ΔV); use the exact time")
    return (f"minimum at θ = {r.theta:.6g}: {compare_text('ΔV/T =', r.barrier / t, '', 10.0, '.3g')}, marginal for the "
            "Kramers law (corrections O(T/ΔV)); the exact time is the reference")


def register(app: typer.Typer) -> None:
    """Add ``barrier``, ``schedule`` and ``kramers`` to ``app``."""
    app.command("barrier")(command(barrier))
    app.command("schedule")(command(schedule))
    app.command("kramers")(command(kramers))
