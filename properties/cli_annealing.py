"""Commands ``barrier``, ``schedule`` and ``kramers`` (annealing theory, THEOREMS.md A2–A5)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from contrastive_bounds.numerics.barriers import circle_barrier, sphere_barrier, torus_barrier
from contrastive_bounds.numerics.escape import circle_escape_times
from contrastive_bounds.numerics.landscapes import Landscape, get_landscape, list_landscapes, load_fourier
from contrastive_bounds.theory.annealing import LOG_FORMS, make_schedule
from contrastive_bounds.theory.domains import check_real

from .cli_common import command, console, emit_json, parse_assignments, parse_number


def _landscape(name: str, params: list[str] | None) -> Landscape:
    """A built-in landscape (with key=value params) or a Fourier file (.json/.toml)."""
    kv = {k: parse_number(k, v) for k, v in parse_assignments(params).items()}
    if name in list_landscapes():
        return get_landscape(name, **kv)
    path = Path(name)
    if path.suffix.lower() in (".json", ".toml") or path.exists():
        if kv:
            raise ValueError(f"parameters {sorted(kv)} are not accepted for a Fourier file")
        return load_fourier(path)
    raise ValueError(f"landscape={name!r} is neither a built-in ({', '.join(list_landscapes())}) nor a Fourier file")


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return "inf" if math.isinf(x) else f"{x:.10g}"
    return str(x)


def barrier(
    landscape: str = typer.Argument(..., help="built-in name or a Fourier file (.json/.toml)"),
    params: Optional[list[str]] = typer.Argument(None, help="landscape parameters key=value (e.g. H=5)"),
    resolution: Optional[int] = typer.Option(None, "--resolution", help="grid points per circle (S¹: 4096, tori: 64) or mesh vertices (S²: 20000)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Critical height H* by sublevel-set persistence, with minima, saddles and the error bound."""
    land = _landscape(landscape, params)
    if (land.num_points, land.dim) == (1, 2):
        res = circle_barrier(land, resolution=resolution or 4096)
    elif (land.num_points, land.dim) == (1, 3):
        res = sphere_barrier(land, num_vertices=resolution or 20000)
    elif land.dim == 2 and land.num_points <= 3:
        res = torus_barrier(land, resolution=resolution or 64)
    else:
        raise ValueError(
            f"landscape={land.name!r} lives on (S^{land.dim - 1})^{land.num_points}: no grid method; use "
            "numerics.barriers.sampled_minima and string_method_barrier (estimates)"
        )
    out = {"landscape": land.name, **res.to_dict()}
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"critical height of {land.name}")
    table.add_column("quantity")
    table.add_column("value")
    for key in ("critical_height", "error_bound", "grid_critical_height", "grid_error_bound", "cross_check",
                "v_min", "resolution", "method"):
        table.add_row(key, _fmt(out[key]))
    console.print(table)
    mins = Table(title="minima")
    mins.add_column("location")
    mins.add_column("V")
    mins.add_column("depth")
    for m in res.minima[:50]:
        loc = m.get("theta", m.get("vertex"))
        mins.add_row(_fmt(loc), _fmt(m["value"]), _fmt(m["depth"]))
    console.print(mins)


def schedule(
    form: str = typer.Argument(..., help="fixed, temperature, inverse-temperature, author, noise, generator, linear, exponential, polynomial, sqrt"),
    params: Optional[list[str]] = typer.Argument(None, help="c=VALUE [t0=VALUE] and other parameters"),
    critical_height: float = typer.Option(..., "--critical-height", help="H* of the landscape (>= 0)"),
    t_start: Optional[float] = typer.Option(None, "--t-start", help="validate T(t) > 0 and finite from here (C12)"),
    t_end: Optional[float] = typer.Option(None, "--t-end", help="... to here"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """A schedule in every convention, with the asymptotic verdict and its reason."""
    h = check_real("critical_height", critical_height, 0.0, math.inf, lo_closed=True)
    kv = {k: float(parse_number(k, v)) for k, v in parse_assignments(params).items()}
    sched = make_schedule(form, **kv)
    if t_start is not None or t_end is not None:
        a = 0.0 if t_start is None else t_start
        sched.validate_range(a, a if t_end is None else t_end)
    main = sched.converges(h)
    try:
        sched.validate_range(0.0, 0.0)
        at_zero = None
    except ValueError as exc:  # reported, never clamped (C12)
        at_zero = str(exc)
    conventions = []
    if form in LOG_FORMS:
        for other in LOG_FORMS:
            try:
                conv = sched.to_convention(other)
                v = conv.converges(h)
                conventions.append({"form": other, "params": dict(conv.params), "describe": conv.describe(),
                                    "hks_constant": conv.hks_constant(), "converges": v.converges, "regime": v.regime})
            except ValueError as exc:
                conventions.append({"form": other, "params": None, "describe": str(exc),
                                    "hks_constant": sched.hks_constant(), "converges": main.converges, "regime": main.regime})
    out = {
        "form": form, "params": dict(sched.params), "describe": sched.describe(), "hks_constant": sched.hks_constant(),
        "critical_height": h, "converges": main.converges, "regime": main.regime, "reason": main.reason,
        "conventions": conventions, "invalid_at_t0": at_zero,
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
                                "converges": main.converges}]:
        table.add_row(row["form"], row["describe"], _fmt(row["hks_constant"]), str(row["converges"]))
    console.print(table)
    console.print(f"verdict: {main.converges} ({main.regime}): {main.reason}")
    if at_zero:
        console.print(f"warning: not valid at t = 0: {at_zero}")


def kramers(
    landscape: str = typer.Argument(..., help="S¹ built-in name or a Fourier file"),
    params: Optional[list[str]] = typer.Argument(None, help="landscape parameters key=value"),
    temperature: float = typer.Option(..., "--temperature", help="T > 0"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Kramers time vs exact mean first-passage time for each non-global minimum of an S¹ landscape."""
    land = _landscape(landscape, params)
    t = check_real("temperature", temperature, 0.0, math.inf)
    recs = circle_escape_times(land, t)
    out = {"landscape": land.name, "temperature": t, "critical_height": land.critical_height,
           "minima": [r.to_dict() for r in recs]}
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"escape times of {land.name} at T = {t:g} (natural logs; SDE time units)")
    for col in ("θ", "V", "ΔV", "log Kramers", "log exact", "exact/Kramers"):
        table.add_column(col)
    for r in recs:
        table.add_row(*(_fmt(x) for x in (r.theta, r.value, r.barrier, r.log_kramers, r.log_exact, r.ratio)))
    console.print(table)
    if not recs:
        console.print("every local minimum is global: nothing to escape from")


def register(app: typer.Typer) -> None:
    """Add ``barrier``, ``schedule`` and ``kramers`` to ``app``."""
    app.command("barrier")(command(barrier))
    app.command("schedule")(command(schedule))
    app.command("kramers")(command(kramers))
