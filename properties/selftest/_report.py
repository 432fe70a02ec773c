"""The output of ``contrastive-bounds check --self-test``: progress lines, the check × fault matrix, files.

:func:`self_test_command` is what the command line calls: it runs :func:`.runner.run_self_test`, prints
one progress line per check run (baseline and under each fault, so a long run is never silent; Ctrl-C
stops it within a check and keeps what finished), then the table of checks with the faults that turned
each red (its witnesses), the table of faults, and writes ``OUT/self-test.json`` (with the full matrix)
and ``OUT/self-test.md`` atomically. Exit 1 when the baseline is not green, a fault was not caught, a
declared witness stayed green or (every fault run) a check has no witness; 130 on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

from contrastive_bounds.properties.selftest._runner import CheckRun, SelfTestResult

__all__ = ["render_markdown", "self_test_command", "environment", "EXIT_INTERRUPTED"]

EXIT_INTERRUPTED = 130


def environment() -> dict[str, Any]:
    """Machine and load of this run (for the durations a report quotes)."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        load = None
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": platform.python_version(), "load_average_1_5_15": load}


def _caught_text(f: Any) -> str:
    if not f.caught:
        return "NOT CAUGHT (" + ", ".join(f"{r.check}: {r.verdict}" for r in f.runs) + ")"
    return ", ".join(f"{r.check} ({r.verdict}{', deterministic' if r.deterministic else ''})" for r in f.runs if r.caught)


def _summary(result: SelfTestResult) -> str:
    wit = result.witnessed
    n_wit = sum(1 for fs in wit.values() if fs)
    missed_w = [(f.id, c) for f in result.faults for c in f.missed_witnesses]
    text = (f"{sum(f.caught for f in result.faults)} of {len(result.faults)} faults caught; {n_wit} of {len(wit)} checks "
            f"turned red by at least one fault" + (" (every registered check)" if result.full else "")
            + f"; baseline {'green' if result.baseline_ok else 'NOT green'}; {result.seconds:.0f} s")
    if missed_w:
        text += "; declared witnesses that stayed green: " + ", ".join(f"{c} under {f}" for f, c in missed_w)
    if result.full and result.unwitnessed:
        text += "; checks NO fault turned red: " + ", ".join(result.unwitnessed)
    if result.interrupted:
        text += "; INTERRUPTED (partial)"
    return text + f"; exit code {result.exit_code}"


def render_markdown(result: SelfTestResult, env: dict[str, Any] | None = None) -> str:
    """The self-test as Markdown: a summary line, the checks with their witnesses, the faults, the matrix."""
    lines = [f"# Self-test ({result.profile} profile, seed {result.seed})", "", _summary(result) + ".", ""]
    if env:
        lines += [f"Machine: {env.get('processor')}, {env.get('cpus')} CPUs, {env.get('platform')}; load average "
                  f"(1/5/15 min) at the start {env.get('load_start')}, at the end {env.get('load_end')}.", ""]
    lines += [f"A check is red under a fault when it reports `violated` by a failed deterministic condition, or with "
              f"p <= {result.alpha_per_check:.2g} (the first Holm step of the main job), or fails with an error; a "
              "fault is caught when one of its checks is red.", "", "## Checks and the faults that turn them red", "",
              "| check | turned red by | ran, stayed green | baseline |", "|---|---|---|---|"]
    base = {r.check: r.verdict for r in result.baseline}
    wit = result.witnessed
    for c, fs in wit.items():
        green = [f"`{f.id}` {r.verdict}" for f in result.faults for r in f.runs if r.check == c and not r.caught]
        lines.append(f"| `{c}` | {', '.join(f'`{x}`' for x in fs) or '**none**'} | {', '.join(green) or '-'} | "
                     f"{base.get(c, '-')} |")
    lines += ["", "## Faults", "", "| # | fault | kind | the mistake | caught by | checks run | time |",
              "|---|---|---|---|---|---|---|"]
    for i, f in enumerate(result.faults, 1):
        ran = ", ".join(f"`{r.check}` {r.verdict}" for r in f.runs)
        lines.append(f"| F{i} | `{f.id}` | {f.kind} | {f.description.replace('|', chr(92) + '|')} | {_caught_text(f)} | {ran} | "
                     f"{f.seconds:.1f} s |")
    lines += ["", "## Matrix", "", "● red under the fault, ○ ran and stayed green, blank: not run (fault numbers as in "
              "the table above).", ""]
    cols = [f"F{i}" for i in range(1, len(result.faults) + 1)]
    lines += ["| check | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    matrix = result.matrix()
    for c in wit:
        cells = []
        for f in result.faults:
            v = matrix.get(c, {}).get(f.id)
            cells.append("" if v is None else ("●" if v.endswith("*") else "○"))
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    lines += ["", "## Baseline (no fault)", "", "| check | verdict | time |", "|---|---|---|"]
    lines += [f"| `{r.check}` | {r.verdict} | {r.seconds:.1f} s |" for r in result.baseline]
    return "\n".join(lines) + "\n"


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
    from contrastive_bounds.properties.selftest._faults import select_faults
    from contrastive_bounds.properties.selftest._runner import SelfTestInterrupted, run_self_test

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
            t.add_row(escape(f.id), f.kind, escape(f.description), f"[{colour}]{escape(_caught_text(f))}[/{colour}]",
                      f"{f.seconds:.1f}s")
        console.print(t)
        if not result.baseline_ok:
            bad = [f"{r.check} ({r.verdict})" for r in result.baseline if r.verdict == "violated" or r.error]
            console.print(f"[bold red]baseline not green[/bold red]: {escape(', '.join(bad))}: the self-test proves nothing")
        console.print(escape(_summary(result)))
        console.print(f"self-test: {out / 'self-test.md'}, {out / 'self-test.json'}")
    if result.exit_code:
        err_console.print(failure_line(result), markup=False, highlight=False)
        raise typer.Exit(result.exit_code)


def failure_line(result: SelfTestResult) -> str:
    """One line saying why the self-test exits 1: a baseline check that is red, faults no check caught, declared
    witnesses that stayed green, checks no fault turned red."""
    parts = []
    if not result.baseline_ok:
        bad = [f"{r.check} ({'crashed' if r.error else r.verdict})" for r in result.baseline
               if r.verdict == "violated" or r.error]
        parts.append("the baseline (no fault) is not green: " + ", ".join(bad))
    if result.missed:
        parts.append("faults no check caught: " + ", ".join(f.id for f in result.missed))
    missed_w = [f"{c} under {f.id}" for f in result.faults for c in f.missed_witnesses]
    if missed_w:
        parts.append("declared witnesses that stayed green: " + ", ".join(missed_w))
    if result.full and result.unwitnessed:
        parts.append("checks no fault turned red: " + ", ".join(result.unwitnessed))
    return "self-test failed: " + ("; ".join(parts) or "interrupted before every fault ran")
