"""Commands ``list``, ``bound`` and ``claims``: the theorems as objects, from the shell."""

from __future__ import annotations

import math
from typing import Any, Optional

import sympy as sp
import typer
from rich.table import Table

from contrastive_bounds.theory import registry
from contrastive_bounds.theory.bound import Bound

from contrastive_bounds.properties.cli.common import CLIError, command, console, emit_json, parse_assignments


def parse_exact(name: str, text: str) -> Any:
    """Parse a number exactly: integers as int, decimals/scientific as sympy Rational; nan/inf as float.

    Raises:
      CLIError: ``text`` is not a number (the message names ``name``).
    """
    t = text.strip()
    low = t.lower().lstrip("+-")
    if low in ("nan", "inf", "infinity"):
        return float(t)
    try:
        if t.lstrip("+-").isdigit():
            return int(t)
        q = sp.Rational(t)
        return q
    except (TypeError, ValueError, SyntaxError):
        raise CLIError(f"{name}={text!r} is not a number") from None


def _short(source: Any) -> str:
    return ", ".join(x for x in (f"arXiv:{source.arxiv}" if source.arxiv else source.paper, source.where) if x)


def _fmt_log10(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.6g}"


def list_cmd(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Every bound and claim with its source."""
    bounds = registry.bounds()
    claims = registry.claims()
    if as_json:
        emit_json({"bounds": [b.describe() for b in bounds],
                   "claims": [{"name": c.name, "statement": c.statement, "expected": c.expected,
                               "tags": list(c.tags), "source": c.source.to_dict()} for c in claims]})
        return
    t = Table(title="Bounds", show_lines=False)
    for col in ("name", "bounds", "parameters", "source"):
        t.add_column(col, overflow="fold")
    for b in bounds:
        params = ", ".join(p.name for p in b.params)
        alts = "; ".join(rp.description.split(":")[0] for rp in b.reparametrisations)
        t.add_row(b.name, b.title, params + (f" (or {alts})" if alts else ""), _short(b.source))
    console.print(t)
    t = Table(title="Claims")
    for col in ("name", "toolkit asserts", "statement", "source"):
        t.add_column(col, overflow="fold")
    for c in claims:
        t.add_row(c.name, "true" if c.expected == "holds" else "FALSE", c.statement, _short(c.source))
    console.print(t)


def bound_cmd(
    name: str = typer.Argument(..., help="Bound name, e.g. alignment.frobenius (see `list`)."),
    assignments: Optional[list[str]] = typer.Argument(None, help="Parameters as key=value."),
    digits: int = typer.Option(30, "--digits", help="Significant digits for mpmath evaluation (>= 5)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Evaluate a bound at one point (exact input, mpmath at --digits; never overflows)."""
    obj = registry.get(name)
    if not isinstance(obj, Bound):
        raise CLIError(f"{name!r} is a claim, not a bound; use `contrastive-bounds claims`")
    raw = parse_assignments(assignments)
    values = {k: parse_exact(k, v) for k, v in raw.items()}
    res = obj.evaluate(digits=digits, **values)
    if as_json:
        d = res.to_dict()
        emit_json(d)
        return
    console.print(f"[bold]{obj.name}[/bold]: {obj.title}")
    if res.vacuous:
        console.print(f"[yellow]vacuous[/yellow]: {res.reason}")
    else:
        if res.log10 is None and res.log10_exact is None:  # a factor could not be determined (see reason)
            console.print(f"[yellow]undetermined[/yellow]: {res.reason}")
        else:
            shown = f"{res.value:.10g}" if res.value is not None else "(beyond float64)"
            log_shown = (f"{res.log10:.12g}" if res.log10 is not None
                         else f"{res.log10_exact} (beyond float64 even in log space)")
            console.print(f"value = {shown}   log10 = {log_shown}")
            console.print(f"exact ({digits} digits) = {res.to_dict()['exact']}")
        if res.uninformative:
            console.print(f"[yellow]{res.reason}[/yellow]")
        t = Table(title="factors (log10)")
        t.add_column("factor")
        t.add_column("log10", justify="right")
        for k, v in res.factors.items():
            exact = res.factors_exact.get(k)
            t.add_row(k, _fmt_log10(v) if v is not None or exact is None else f"{exact} (beyond float64)")
        console.print(t)
        dominant = res.dominant_factor()
        if dominant is not None:
            console.print(f"dominant factor: {dominant}")
    console.print(f"source: {res.source.cite()}")
    if res.source.reading:
        console.print(f"reading: {res.source.reading}")


def claims_cmd(
    certify: bool = typer.Option(False, "--certify", help="Certify with python-flint interval arithmetic."),
    only: Optional[str] = typer.Option(None, "--only", help="Only claims whose name contains this text."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """A verdict for every claim; exit 1 if any verdict contradicts what the toolkit asserts."""
    rows = []
    for c in registry.claims():
        if only and only not in c.name:
            continue
        v = c.run(certify)
        rows.append((c, v))
    if only and not rows:
        raise CLIError(f"--only={only!r} matches no claim")
    bad = [c.name for c, v in rows if not c.agrees(v)]
    if as_json:
        emit_json({"claims": [{"name": c.name, "statement": c.statement, "expected": c.expected,
                               "verdict": v.to_dict(), "agrees": c.agrees(v), "source": c.source.cite()}
                              for c, v in rows], "disagreements": bad})
    else:
        t = Table(title="Claims" + (" (certified where possible)" if certify else ""))
        for col in ("name", "asserts", "verdict", "evidence"):
            t.add_column(col, overflow="fold")
        for c, v in rows:
            colour = {"proved": "green", "certified": "green", "supported": "cyan", "refuted": "red"}[v.status]
            mark = "" if c.agrees(v) else " [bold red](DISAGREES)[/bold red]"
            ev = v.evidence + (f" counterexample: {v.counterexample}" if v.counterexample else "")
            t.add_row(c.name, "true" if c.expected == "holds" else "false", f"[{colour}]{v.status}[/{colour}]{mark}", ev)
        console.print(t)
    if bad:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``list``, ``bound`` and ``claims`` to ``app``."""
    app.command("list")(command(list_cmd))
    app.command("bound")(command(bound_cmd))
    app.command("claims")(command(claims_cmd))


