"""``contrastive-bounds check``: every theorem's checks on built-in scenarios and real data.

Exit codes: 0 when every asserted bound/claim holds (vacuous and inconclusive do not fail), 1 when any
is violated (or a check crashed), 2 on bad input (an --out folder that cannot be created or written
included; it is checked before any check runs) or when writing the results fails.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.markup import escape
from rich.table import Table

from contrastive_bounds.properties.cli.common import command, console, emit_json

_COLOURS = {"holds": "green", "violated": "bold red", "vacuous": "yellow", "inconclusive": "cyan"}


@contextmanager
def _write_errors(out: Path) -> Iterator[None]:
    """Turn a failed write into --out (disk full, folder removed mid-run) into a one-line ValueError,
    so the command exits 2 (bad input) instead of printing a traceback with exit code 1, the code for a
    violated bound."""
    try:
        yield
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise ValueError(f"--out={out}: writing the results failed ({exc.strerror or exc}{where})") from None


def check_cmd(
    profile: str = typer.Option("quick", "--profile", help="quick (<= 5 min on 2 cores) or thorough (<= 1 h)."),
    only: Optional[str] = typer.Option(None, "--only", help="Run only checks whose id matches (glob or substring)."),
    scenarios: Optional[Path] = typer.Option(None, "--scenarios", help="TOML file of scenarios (replaces the built-ins)."),
    out: Path = typer.Option(Path("contrastive-bounds-report"), "--out", help="Output folder."),
    resume: bool = typer.Option(False, "--resume", help="Skip checks already finished in OUT/results.json."),
    list_only: bool = typer.Option(False, "--list", help="List the checks and exit."),
    report_only: bool = typer.Option(False, "--report-only", help="Remake report.md/html and figures from OUT/results.json."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON instead of the table."),
    self_test: bool = typer.Option(False, "--self-test", help="Run the checks under the built-in injected faults and "
                                   "show which check catches each (--only then selects faults); exit 1 if one passes."),
) -> None:
    """Run the checks: bound, empirical value with interval, ratio, verdict; write results.json and reports."""
    if self_test:  # docs/self-test.md: faults substituted through properties.selftest.hook, no file edits
        from contrastive_bounds.properties.selftest.report import self_test_command

        self_test_command(only=only, out=out, as_json=as_json, profile=profile)
        return
    from contrastive_bounds.properties.checks.registry import registered_checks
    from contrastive_bounds.properties.report import fmt_value, write_report
    from contrastive_bounds.properties.runner import _write, ensure_writable_folder, run_suite
    from contrastive_bounds.properties.scenarios import builtin_scenarios, load_scenarios, select

    if profile not in ("quick", "thorough"):
        raise ValueError(f"--profile={profile!r} must be 'quick' or 'thorough'")
    if list_only:
        checks = registered_checks()
        if as_json:
            emit_json([{"id": c.id, "theorem": c.theorem, "statement": c.statement, "paper": c.paper,
                        "defaults": c.defaults[profile]} for c in checks.values()])
            return
        t = Table(title="Checks")
        for col in ("id", "theorem", "statement"):
            t.add_column(col, overflow="fold")
        for c in checks.values():
            t.add_row(c.id, c.theorem, c.statement)
        console.print(t)
        return
    if report_only:
        from contrastive_bounds.properties.runner import SuiteResult, load_results

        path = out / "results.json"
        if not path.is_file():
            raise FileNotFoundError(f"--report-only: no results.json in {out}")
        import json

        records = load_results(path)  # raises naming the file when it is not a results.json of ours
        meta = json.loads(path.read_text())
        suite = SuiteResult(records, float(meta.get("suite_alpha", 1e-3)), str(meta.get("profile", profile)))
        ensure_writable_folder(out, "--out")
        with _write_errors(out):
            paths = write_report(suite, out)
        console.print(f"report: {paths['markdown']}, {paths['html']}")
        raise typer.Exit(suite.exit_code)
    chosen = load_scenarios(scenarios, profile) if scenarios else builtin_scenarios(profile)
    chosen = select(chosen, only)
    # before any check runs: a bad --out is bad input (exit 2), not a violated bound (exit 1)
    ensure_writable_folder(out, "--out")
    if resume and (out / "results.json").exists():
        from contrastive_bounds.properties.runner import load_results

        load_results(out / "results.json")  # validate before any progress output (one-line error)

    quiet = as_json
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                        TimeElapsedColumn(), console=console, transient=True, disable=quiet)
    with progress:
        task = progress.add_task("checks", total=len(chosen))

        def on_start(sc, i, n):  # noqa: ANN001
            progress.update(task, description=f"{sc.check} ({sc.name})")

        def on_done(rec):  # noqa: ANN001
            progress.advance(task)
            if not quiet:
                v = "error" if rec.error else rec.outcome.verdict
                colour = _COLOURS.get(v, "red")
                console.print(f"[{colour}]{v:>12}[/{colour}]  {rec.check} ({rec.scenario}) {rec.seconds:.1f}s: "
                              f"{rec.outcome.summary}", highlight=False)

        with _write_errors(out):
            suite = run_suite(chosen, profile=profile, out_dir=out, resume=resume, on_start=on_start, on_done=on_done)
    with _write_errors(out):
        paths = write_report(suite, out)
        _write(out / "results.json", suite.results, suite.alpha, profile)  # now with figure names
    if as_json:
        emit_json({"exit_code": suite.exit_code, "out": str(out), "results": [r.to_dict() for r in suite.results]})
    else:
        t = Table(title=f"contrastive-bounds check ({profile})")
        show_scenario = any(r.scenario != "builtin" for r in suite.results)
        cols = ["check"] + (["scenario"] if show_scenario else []) + ["bound [band]", "empirical [interval]", "ratio", "verdict", "time"]
        for col in cols:
            t.add_column(escape(col), overflow="fold", no_wrap=col in ("check", "verdict"))
        for r in suite.results:
            o = r.outcome
            emp = fmt_value(o.empirical)
            if o.interval is not None and o.interval[0] != o.interval[1]:
                emp += f" [{fmt_value(o.interval[0])}, {fmt_value(o.interval[1])}]"
            v = "error" if r.error else o.verdict
            colour = _COLOURS.get(v, "red")
            bound = fmt_value(o.bound, o.bound_log10)
            if o.band is not None:
                bound += f" [{fmt_value(o.band[0])}, {fmt_value(o.band[1])}]"
            cells = [escape(r.check)] + ([escape(r.scenario)] if show_scenario else []) + [
                escape(bound), escape(emp), fmt_value(o.ratio) if o.ratio is not None else "-",
                f"[{colour}]{v}[/{colour}]", f"{r.seconds:.1f}s"]
            t.add_row(*cells)
        console.print(t)
        console.print(f"results: {out / 'results.json'}; report: {paths['markdown']}, {paths['html']}")
    if suite.exit_code:
        raise typer.Exit(suite.exit_code)


def register(app: typer.Typer) -> None:
    """Add ``check`` to ``app``."""
    app.command("check")(command(check_cmd))
