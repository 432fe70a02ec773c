"""``contrastive-bounds check``: every theorem's checks on built-in scenarios and real data.

Exit codes: 0 when nothing is violated (uninformative, vacuous and inconclusive do not fail), 1 when
a check is violated or crashed (with ``--strict`` also when one is uninformative, vacuous or
inconclusive: every verdict but ``holds``), 2 on bad input (an --out folder that cannot be created or
written included; it is checked before any check runs), a refused ``--resume``, a partial run into a
folder holding more records (it would replace them: ``--resume`` merges), or when writing the results
fails; 130 on Ctrl-C (the finished records are saved and the command to resume is printed).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.markup import escape
from rich.table import Table

from contrastive_bounds.properties.cli._common import (command, console, emit_json, err_console, folder_option,
                                                     output_folder)

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

EXIT_INTERRUPTED = 130


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
    out_text: str = typer.Option("contrastive-bounds-report", "--out", metavar="<path>", help="Output folder."),
    resume: bool = typer.Option(False, "--resume", help="Skip checks already finished in OUT/results.json."),
    list_only: bool = typer.Option(False, "--list", help="List the checks and exit."),
    report_only: bool = typer.Option(False, "--report-only", help="Remake report.md/html and figures from OUT/results.json."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON instead of the table."),
    self_test: bool = typer.Option(False, "--self-test", help="Run the checks under the built-in injected faults and "
                                   "show which check catches each (--only then selects faults); exit 1 if one passes."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 also when a check is uninformative, vacuous or "
                                "inconclusive (every verdict but holds)."),
) -> None:
    """Run the checks: bound, empirical value with interval, ratio, verdict; write results.json and reports."""
    out = folder_option(out_text, "--out")
    if not list_only:  # an existing file or an unwritable place: refused at once, before the checks are loaded
        output_folder(out, "--out", create=False)
    if self_test:  # docs/self-test.md: faults substituted through properties.selftest.hook, no file edits
        from contrastive_bounds.properties.cli._self_test import self_test_command

        self_test_command(only=only, out=out, as_json=as_json, profile=profile)
        return
    from contrastive_bounds.properties.checks._registry import registered_checks
    from contrastive_bounds.properties._report import VERDICT_COLOURS, fmt_value, headline, verdict_of, write_report
    from contrastive_bounds.properties._runner import (SuiteInterrupted, load_suite,
                                                      records_a_fresh_run_would_drop, resumable_records, run_suite,
                                                      write_results)
    from contrastive_bounds.properties._scenarios import builtin_scenarios, load_scenarios, select

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
        path = out / "results.json"
        if not path.is_file():
            raise FileNotFoundError(f"--report-only: no results.json in {out}")
        suite = load_suite(path)  # raises naming the file when it is not a results.json of ours
        suite.strict = strict
        output_folder(out, "--out")
        with _write_errors(out):
            paths = write_report(suite, out)
            write_results(path, suite)  # figure names as drawn now
        console.print(f"report: {paths['markdown']}, {paths['html']}")
        _say_why_failed(suite)
        raise typer.Exit(suite.exit_code)
    chosen = load_scenarios(scenarios, profile) if scenarios else builtin_scenarios(profile)
    chosen = select(chosen, only)
    # before any check runs: a bad --out is bad input (exit 2), not a violated bound (exit 1)
    output_folder(out, "--out")
    earlier = out / "results.json"
    if resume:
        resumable_records(earlier, profile)  # refuse before any progress output (one line, exit 2)
    elif earlier.exists():
        try:
            dropped = records_a_fresh_run_would_drop(earlier, chosen)
        except ValueError as exc:
            raise ValueError(f"--out={out}: {exc}; write to another --out, or remove that file") from None
        if dropped:  # a partial run never silently replaces a fuller results file
            raise ValueError(f"--out={out} holds {len(dropped)} record(s) of an earlier run that this run does not "
                             f"select ({', '.join(dropped[:6])}{', ...' if len(dropped) > 6 else ''}); it would replace "
                             "them: add --resume to merge this run into them, or write to another --out")
        if not as_json:
            err_console.print(f"note: replacing {earlier} of an earlier run of the same checks (--resume reuses its "
                              "finished records)", markup=False, highlight=False)

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
                v = verdict_of(rec)
                colour = VERDICT_COLOURS.get(v, "red")
                console.print(f"[{colour}]{v:>13}[/{colour}]  {escape(rec.check)} ({escape(rec.scenario)}) "
                              f"{rec.seconds:.1f}s: {escape(rec.outcome.summary)}", highlight=False)

        try:
            with _write_errors(out):
                suite = run_suite(chosen, profile=profile, out_dir=out, resume=resume, strict=strict,
                                  on_start=on_start, on_done=on_done)
        except SuiteInterrupted as stop:
            progress.stop()
            kept = f"their records are saved in {stop.path}" if Path(stop.path).exists() else "nothing was saved yet"
            err_console.print(f"interrupted: {stop.finished} of {stop.total} checks finished; {kept}. Resume with: "
                              f"{_resume_command(profile, only, scenarios, out, strict)}", markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    with _write_errors(out):
        paths = write_report(suite, out)
        write_results(out / "results.json", suite)  # now with figure names
    if as_json:
        emit_json({"exit_code": suite.exit_code, "out": str(out), "headline": headline(suite), "reused": suite.reused,
                   "kept": suite.kept,
                   "rerun": suite.rerun, "results": [r.to_dict() for r in suite.results]})
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
            v = verdict_of(r)
            colour = VERDICT_COLOURS.get(v, "red")
            bound = fmt_value(o.bound, o.bound_log10)
            if o.band is not None:
                bound += f" [{fmt_value(o.band[0])}, {fmt_value(o.band[1])}]"
            cells = [escape(r.check)] + ([escape(r.scenario)] if show_scenario else []) + [
                escape(bound), escape(emp), fmt_value(o.ratio) if o.ratio is not None else "-",
                f"[{colour}]{v}[/{colour}]", f"{r.seconds:.1f}s"]
            t.add_row(*cells)
        console.print(t)
        for label, names in (("reused (finished before, unchanged)", suite.reused),
                             ("kept (not selected by this run)", suite.kept),
                             ("re-run (parameters or seed changed, or crashed before)", suite.rerun)):
            if names:
                console.print(f"resume: {label}: {', '.join(names)}", markup=False, highlight=False)
        console.print(headline(suite), markup=False, highlight=False)
        console.print(f"results: {out / 'results.json'}; report: {paths['markdown']}, {paths['html']}")
    if suite.exit_code:
        _say_why_failed(suite)
        raise typer.Exit(suite.exit_code)


def _say_why_failed(suite: Any) -> None:
    """One line on stderr naming the records that make the exit code 1 and their verdicts."""
    if not suite.exit_code:
        return
    named = ", ".join(f"{r.check} ({'crashed' if r.error else r.outcome.verdict})" for r in suite.failed)
    rule = " (--strict: uninformative, vacuous and inconclusive fail too)" if suite.strict else ""
    err_console.print(f"check failed{rule}: {named}", markup=False, highlight=False)


def _resume_command(profile: str, only: Optional[str], scenarios: Optional[Path], out: Path, strict: bool) -> str:
    """The command line that resumes this run (same selection, profile and folder)."""
    import shlex

    words = ["contrastive-bounds", "check", "--profile", profile]
    if scenarios is not None:
        words += ["--scenarios", str(scenarios)]
    if only:
        words += ["--only", only]
    if strict:
        words.append("--strict")
    return shlex.join(words + ["--out", str(out), "--resume"])


def register(app: typer.Typer) -> None:
    """Add ``check`` to ``app``."""
    app.command("check")(command(check_cmd))
