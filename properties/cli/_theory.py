"""Commands ``list``, ``bound`` and ``claims``: the theorems as objects, from the shell.

``bound NAME --help`` lists every parameter NAME accepts (domain, meaning, units, role), like
``list`` and the unknown-parameter message; ``bound NAME ... --solve PARAM`` answers with the range
of PARAM over which the bound is non-vacuous and informative, its ends certified with python-flint.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator, Optional

import click
import sympy as sp
import typer
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand

import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._bound import Bound

from contrastive_bounds.properties.cli._common import (EXIT_VIOLATED, CLIError, command, console, emit_json, err_console,
                                                     parse_assignments)


MAX_MAGNITUDE = 1000
"""Exact inputs on the command line lie within ``10^-1000 <= |x| <= 10^1000`` with at most 1000
significant digits: mpmath's evaluation takes seconds there and minutes beyond (the exponent of
``exp(S/(2 tau^2 B))`` itself has as many digits as S), and Python refuses to print integers of more
than 4300 digits."""


def _check_magnitude(name: str, t: str) -> None:
    """CLIError naming ``name`` when the decimal number (or fraction) ``t`` is beyond :data:`MAX_MAGNITUDE`.

    Read with ``decimal`` (the exponent is not expanded), so ``1e999999`` is refused at once.
    """
    from decimal import Decimal, InvalidOperation

    shown = t if len(t) <= 24 else f"{t[:12]}...({len(t)} characters)"
    for part in t.lstrip("+-").split("/", 1):
        try:
            d = Decimal(part)
        except (InvalidOperation, ValueError):
            return  # not a plain decimal: sympy reports it
        if not d.is_finite() or d == 0:
            continue
        digits = len(d.as_tuple().digits)
        if abs(d.adjusted()) > MAX_MAGNITUDE or digits > MAX_MAGNITUDE:
            what = (f"|{name}| is about 10^{d.adjusted()}" if abs(d.adjusted()) > MAX_MAGNITUDE
                    else f"{digits} significant digits")
            raise CLIError(f"{name}={shown}: {what}; bound takes numbers with 10^-{MAX_MAGNITUDE} <= |x| <= "  # sign-ok: a range
                           f"10^{MAX_MAGNITUDE} and at most {MAX_MAGNITUDE} significant digits (beyond, mpmath's "
                           "evaluation takes minutes)")


def parse_exact(name: str, text: str) -> Any:
    """Parse a number exactly: integers as int, decimals/scientific as sympy Rational; nan/inf as float.

    Raises:
      CLIError: ``text`` is not a number, or is beyond :data:`MAX_MAGNITUDE` (the message names ``name``).
    """
    t = text.strip()
    low = t.lower().lstrip("+-")
    if low in ("nan", "inf", "infinity"):
        return float(t)
    _check_magnitude(name, t)
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


def bound_help_text(name: str) -> str:
    """The parameter section ``bound NAME --help`` appends for the bound ``name`` (plain text)."""
    try:
        obj = registry.get(name)
    except KeyError as err:
        return f"\n{err.args[0]}\n"
    if not isinstance(obj, Bound):
        return f"\n{name!r} is a claim, not a bound; use `contrastive-bounds claims`\n"
    lines = [f"\n{obj.name} ({obj.kind}): {obj.title}", "Parameters (give each as key=value):"]
    lines += [f"  {line}" for line in obj.parameter_help()]
    if obj.trivial is not None:
        needs = ", ".join(p.name for p in obj.trivial[1]) or "nothing more"
        lines.append(f"Informativeness is judged against the trivial bound {obj.trivial[2]} (needs {needs}).")
    for v in obj.vacuity:
        lines.append(f"Vacuous where {v.reason}")
    lines.append(f"--solve accepts any of: {', '.join(a.param.name for a in obj.accepted())}")
    lines.append(f"Source: {obj.source.cite()}")
    return "\n".join(lines) + "\n"


class BoundCommand(TyperCommand):
    """``bound``: with a bound's NAME before ``--help``, the help ends with NAME's parameters."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if any(a in ("--help", "-h") for a in args):
            names = [a for a in args if not a.startswith("-") and "=" not in a]
            if names:
                ctx.meta["contrastive_bounds.bound_name"] = names[0]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        name = ctx.meta.get("contrastive_bounds.bound_name")
        if name:
            formatter.write(bound_help_text(name))


def list_cmd(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """Every bound and claim with its source; every parameter a bound accepts, with domain and meaning."""
    bounds = registry.bounds()
    claims = registry.claims()
    if as_json:
        emit_json({"bounds": [b.describe() for b in bounds],
                   "claims": [{"name": c.name, "statement": c.statement, "expected": c.expected,
                               "tags": list(c.tags), "source": c.source.to_dict()} for c in claims]})
        return
    console.print("[bold]Bounds[/bold] (every parameter each accepts: domain, meaning, \\[units])")
    for b in bounds:
        kind = {"upper": "upper bound", "lower": "lower bound", "estimate": "estimate"}[b.kind]
        console.print(f"[bold]{b.name}[/bold] ({kind}): {escape(b.title)}", soft_wrap=True, highlight=False)
        for line in b.parameter_help():
            console.print(f"    {line}", soft_wrap=True, markup=False, highlight=False)
        console.print(f"    source: {_short(b.source)}", soft_wrap=True, markup=False, highlight=False)
    t = Table(title="Claims")
    for col in ("name", "toolkit asserts", "statement", "source"):
        t.add_column(col, overflow="fold")
    for c in claims:
        t.add_row(c.name, "true" if c.expected == "holds" else "FALSE", c.statement, _short(c.source))
    console.print(t)


def _print_value(obj: Bound, res: Any, digits: int) -> None:
    console.print(f"[bold]{escape(str(obj.name))}[/bold]: {escape(obj.title)}")
    if res.vacuous:
        console.print(f"[yellow]vacuous[/yellow]: {escape(res.reason)}")
    else:
        if res.log10 is None and res.log10_exact is None:  # a factor could not be determined (see reason)
            console.print(f"[yellow]undetermined[/yellow]: {escape(res.reason)}")
        else:
            shown = f"{res.value:.10g}" if res.value is not None else "(beyond float64)"
            log_shown = (f"{res.log10:.12g}" if res.log10 is not None
                         else f"{res.log10_exact} (beyond float64 even in log space)")
            console.print(f"value = {escape(str(shown))}   log10 = {escape(str(log_shown))}")
            if res.log10 is not None:
                console.print(f"exact ({digits} digits) = {escape(str(res.to_dict()['exact']))}")
            else:  # the decimal exponent alone would have hundreds of digits
                console.print(f"exact ({digits} digits) = 10^({escape(str(res.log10_exact))})")
        if res.uninformative:
            console.print(f"[yellow]{escape(str(res.reason))}[/yellow]")
        elif res.uninformative is None:
            console.print(f"[yellow]{escape(str(res.informativeness_note))}[/yellow]")
        elif res.informativeness == "informative":
            console.print(f"[green]{escape(str(res.informativeness_note))}[/green]")
        for note in res.notes:
            console.print(f"[yellow]note[/yellow]: {escape(str(note))}")
        t = Table(title="factors (log10)")
        t.add_column("factor")
        t.add_column("log10", justify="right")
        for k, v in res.factors.items():
            exact = res.factors_exact.get(k)
            t.add_row(k, _fmt_log10(v) if v is not None or exact is None else f"{exact} (beyond float64)")
        console.print(t)
        dominant = res.dominant_factor()
        if dominant is not None:
            console.print(f"dominant factor: {escape(str(dominant))}")
    console.print(f"source: {escape(str(res.source.cite()))}")
    if res.source.reading:
        console.print(f"reading: {escape(str(res.source.reading))}")


def _print_solution(obj: Bound, sol: Any) -> None:
    what = "inside its regime" if obj.kind == "estimate" else (
        "non-vacuous and informative" if sol.informativeness_judged and obj.trivial is not None else "non-vacuous")
    console.print(f"[bold]{escape(str(obj.name))}[/bold]: {escape(obj.title)}")
    if sol.status == "refused":
        console.print(f"[red]refused[/red]: {escape(str(sol.reason))}")
    elif sol.status == "empty":
        console.print(f"[yellow]no {escape(str(sol.param))}[/yellow] makes it {escape(str(what))}: {escape(str(sol.reason))}")
    else:
        console.print(f"{escape(str(what))} for [bold]{escape(str(sol.describe()))}[/bold]" + (" (the whole window)" if sol.status == "whole window" else ""))
        for lo, hi in sol.intervals:
            for side, e in (("lower", lo), ("upper", hi)):
                if e.kind in ("root", "integer"):
                    enc = e.lower if e.lower == e.upper else f"[{e.lower}, {e.upper}]"
                    console.print(f"  {escape(str(side))} end {escape(str(sol.param))} = {escape(str(enc))}  ({escape(str(e.kind))}; limited by: {escape(str(e.condition))})")
                    console.print(f"    certified: {escape(str(e.evidence))}")
    for c in sol.conditions:
        mono = f"; {c.monotone} in {sol.param} (arb)" if c.monotone else ""
        console.print(f"  condition: {escape(str(c.meaning))}{escape(str(mono))}")
    for note in sol.notes:
        console.print(f"  [dim]{escape(str(note))}[/dim]")


from contrastive_bounds.theory._bound import EVALUATE_MAX_DIGITS as MAX_DIGITS  # noqa: E402

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)
"""Largest ``--digits`` of ``bound`` (evaluation): mpmath at a thousand digits takes about a second a
bound; far beyond, a run takes minutes and the exact value exceeds Python's int-to-text limit."""
MAX_SOLVE_DIGITS = 60
"""Largest ``--digits`` with ``--solve`` (digits of each certified end)."""


def bound_cmd(
    name: str = typer.Argument(..., metavar="NAME", help="Bound name, e.g. alignment.frobenius (see `list`); "
                                         "`bound NAME --help` lists NAME's parameters."),
    assignments: Optional[list[str]] = typer.Argument(None, metavar="KEY=VALUE", help="Parameters as key=value."),
    digits: int = typer.Option(30, "--digits", help=f"Significant digits for mpmath evaluation, in [5, {MAX_DIGITS}]; "
                                                   f"with --solve, digits of each certified end, in [5, "
                                                   f"{MAX_SOLVE_DIGITS}]."),
    solve: Optional[str] = typer.Option(None, "--solve", help="Give the range of this parameter over which the "
                                        "bound is non-vacuous and informative, ends certified by interval "
                                        "arithmetic (python-flint); the other parameters fixed."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Evaluate a bound at one point (exact input, mpmath at --digits; never overflows), or solve it for one parameter."""
    if solve is not None and not 5 <= digits <= MAX_SOLVE_DIGITS:  # before any work
        raise CLIError(f"--digits={digits} with --solve must be in [5, {MAX_SOLVE_DIGITS}] (digits of each certified end)")
    if solve is None and not 5 <= digits <= MAX_DIGITS:
        raise CLIError(f"--digits={digits} is outside its domain: integers in [5, {MAX_DIGITS}] (significant digits "
                       "of the mpmath evaluation)")
    obj = registry.get(name)
    if not isinstance(obj, Bound):
        raise CLIError(f"{name!r} is a claim, not a bound; use `contrastive-bounds claims`")
    raw = parse_assignments(assignments)
    values = {k: parse_exact(k, v) for k, v in raw.items()}
    if solve is not None:
        with _as_typed(raw, values):
            sol = obj.solve(solve.strip().replace("-", "_"), digits=digits, **values)
        if as_json:
            emit_json(sol.to_dict())
        else:
            _print_solution(obj, sol)
        return
    with _as_typed(raw, values):
        res = obj.evaluate(digits=digits, **values)
    if as_json:
        emit_json(res.to_dict())
        return
    _print_value(obj, res, digits)


@contextmanager
def _as_typed(raw: dict[str, str], values: dict[str, Any]) -> Iterator[None]:
    """A library message naming a value as the exact number it was parsed into (``batch_size=5/2 must be an
    integer``) names it as the user typed it (``batch_size=2.5 must be an integer``)."""
    try:
        yield
    except ValueError as exc:
        message = str(exc)
        for key, text in raw.items():
            exact = str(values.get(key))
            if exact != text.strip():
                message = re.sub(rf"(?<![\w.]){re.escape(key)}={re.escape(exact)}(?![\w/.])", f"{key}={text.strip()}",
                                 message)
        if message == str(exc):
            raise
        raise CLIError(message) from None


def claims_cmd(
    certify: bool = typer.Option(False, "--certify", help="Certify with python-flint interval arithmetic."),
    only: Optional[str] = typer.Option(None, "--only", help="Only claims whose name contains this text."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """A verdict for every claim; exit 1 if any verdict contradicts what the toolkit asserts.

    With --certify, a certification that gave up also exits 1: a claim the toolkit asserts must then be
    proved or certified."""
    rows = []
    for c in registry.claims():
        if only and only not in c.name:
            continue
        v = c.run(certify)
        rows.append((c, v))
    if only and not rows:
        raise CLIError(f"--only={only!r} matches no claim")
    from contrastive_bounds.properties.checks._claims import accepted_statuses

    # with --certify, a claim the toolkit asserts must be proved or certified: a "supported" is a failed certification
    agrees = {c.name: v.status in accepted_statuses(c.expected, certify) for c, v in rows}
    bad = [c.name for c, v in rows if not agrees[c.name]]
    if as_json:
        emit_json({"claims": [{"name": c.name, "statement": c.statement, "expected": c.expected,
                               "verdict": v.to_dict(), "agrees": agrees[c.name], "source": c.source.cite()}
                              for c, v in rows], "disagreements": bad})
    else:
        t = Table(title="Claims" + (" (certified where possible)" if certify else ""))
        for col in ("name", "asserts", "verdict", "evidence"):
            t.add_column(col, overflow="fold")
        for c, v in rows:
            colour = {"proved": "green", "certified": "green", "supported": "cyan", "refuted": "red"}[v.status]
            why = " (certification gave up)" if certify and v.status == "supported" and c.agrees(v) else ""
            mark = "" if agrees[c.name] else f" [bold red](DISAGREES{why})[/bold red]"
            ev = v.evidence + (f" counterexample: {v.counterexample}" if v.counterexample else "")
            t.add_row(c.name, "true" if c.expected == "holds" else "false", f"[{colour}]{v.status}[/{colour}]{mark}", ev)
        console.print(t)
    if bad:
        named = "; ".join(f"{c.name} (the toolkit asserts it {'holds' if c.expected == 'holds' else 'is false'}; "
                          f"verdict {v.status})" for c, v in rows if not agrees[c.name])
        err_console.print(f"claims failed: {len(bad)} verdict{'s' if len(bad) > 1 else ''} contradict"
                          f"{'' if len(bad) > 1 else 's'} what the toolkit asserts: {named}", markup=False,
                          highlight=False)
        raise typer.Exit(EXIT_VIOLATED)


def register(app: typer.Typer) -> None:
    """Add ``list``, ``bound`` and ``claims`` to ``app``."""
    app.command("list")(command(list_cmd))
    app.command("bound", cls=BoundCommand)(command(bound_cmd))
    app.command("claims")(command(claims_cmd))
