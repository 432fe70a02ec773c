"""``contrastive-bounds check --self-test``: the self-test run from the command line.

:func:`self_test_command` runs :func:`contrastive_bounds.properties.selftest.run_self_test`, prints one
progress line per check run (baseline and under each fault, so a long run is never silent; Ctrl-C
stops it within a check and keeps what finished), then the table of checks with the faults that turned
each red (its witnesses), the table of faults, and writes ``OUT/self-test.json`` (with the full matrix)
and ``OUT/self-test.md`` atomically. Exit 1 when the baseline is not green, a fault was not caught, a
declared witness stayed green or (every fault run) a check has no witness; 130 on Ctrl-C. The report's
text comes from :mod:`contrastive_bounds.properties.selftest` (which imports nothing of the command line).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)


def self_test_command(*, only: str | None, out: Path, as_json: bool, profile: str) -> None:
    """Run the self-test from the command line (see the module docstring).

    Raises:
      typer.Exit: with the self-test's exit code (0: all green; 1: see the module docstring; 130: Ctrl-C).
      ValueError: a bad ``--only`` (no fault matches), ``--profile`` or ``--out``.
    """
    import typer
    from rich.markup import escape
    from rich.table import Table

    from contrastive_bounds.properties.cli._common import console, emit_json, err_console, output_folder
    from contrastive_bounds.properties._runner import atomic_write_text
    from contrastive_bounds.properties.selftest import (EXIT_INTERRUPTED, CheckRun, SelfTestInterrupted, caught_text,
                                                         environment, failure_line, render_markdown, run_self_test,
                                                         select_faults, summary_line)

    faults = select_faults(only)
    output_folder(out, "--out")
    env = environment()
    env["load_start"] = env.pop("load_average_1_5_15")
    progress_console = err_console if as_json else console

    def on_run(phase: str, run: CheckRun, i: int, total: int) -> None:
        mark = "red" if run.caught else "ok "
        where = "baseline" if phase == "baseline" else phase
        progress_console.print(f"[{i:>3}/{total}] {where}: {run.check} {run.verdict}"
                               f"{' (deterministic)' if run.deterministic else ''} {run.seconds:.1f}s {mark}",
                               markup=False, highlight=False)

    interrupted = False
    try:
        result = run_self_test(faults, profile=profile, full=only is None, on_run=on_run)
    except SelfTestInterrupted as stop:
        result, interrupted = stop.result, True
    env["load_end"] = environment()["load_average_1_5_15"]
    try:
        atomic_write_text(out / "self-test.json", json.dumps({**result.to_dict(), "environment": env}, indent=1))
        atomic_write_text(out / "self-test.md", render_markdown(result, env))
    except OSError as exc:
        raise ValueError(f"--out={out}: writing the self-test results failed ({exc.strerror or exc})") from None
    if interrupted:
        err_console.print(f"interrupted: {len(result.faults)} of {len(faults)} faults started; what finished is in "
                          f"{out / 'self-test.md'}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED)
    if as_json:
        emit_json({**result.to_dict(), "environment": env})
    else:
        t = Table(title=f"check --self-test ({profile}): checks and the faults that turn them red")
        for col in ("check", "turned red by", "baseline"):
            t.add_column(col, overflow="fold")
        base = {r.check: r.verdict for r in result.baseline}
        for c, fs in result.witnessed.items():
            t.add_row(escape(c), escape(", ".join(fs)) if fs else "[bold red]none[/bold red]", base.get(c, "-"))
        console.print(t)
        t = Table(title=f"faults: {sum(f.caught for f in result.faults)}/{len(result.faults)} caught, {result.seconds:.0f} s")
        for col in ("fault", "kind", "the mistake", "caught by", "time"):
            t.add_column(col, overflow="fold")
        for f in result.faults:
            colour = "green" if f.caught and not f.missed_witnesses else "bold red"
            t.add_row(escape(f.id), f.kind, escape(f.description), f"[{colour}]{escape(caught_text(f))}[/{colour}]",
                      f"{f.seconds:.1f}s")
        console.print(t)
        if not result.baseline_ok:
            bad = [f"{r.check} ({r.verdict})" for r in result.baseline if r.verdict == "violated" or r.error]
            console.print(f"[bold red]baseline not green[/bold red]: {escape(', '.join(bad))}: the self-test proves nothing")
        console.print(escape(summary_line(result)))
        console.print(f"self-test: {out / 'self-test.md'}, {out / 'self-test.json'}")
    if result.exit_code:
        err_console.print(failure_line(result), markup=False, highlight=False)
        raise typer.Exit(result.exit_code)
