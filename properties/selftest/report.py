"""The table of ``contrastive-bounds check --self-test``: terminal, ``self-test.md`` and ``self-test.json``.

:func:`self_test_command` is what the command line calls: it runs :func:`.runner.run_self_test`,
prints one row per fault (kind, the mistake, which checks caught it with their verdicts, time),
writes ``OUT/self-test.json`` and ``OUT/self-test.md`` atomically and exits 1 when a fault was not
caught or the baseline was not green.
"""

from __future__ import annotations

import json
from pathlib import Path

from contrastive_bounds.properties.selftest.runner import SelfTestResult

__all__ = ["render_markdown", "self_test_command"]


def _caught_text(f) -> str:  # noqa: ANN001
    if not f.caught:
        return "NOT CAUGHT (" + ", ".join(f"{r.check}: {r.verdict}" for r in f.runs) + ")"
    return ", ".join(f"{r.check} ({r.verdict})" for r in f.runs if r.caught)


def render_markdown(result: SelfTestResult) -> str:
    """The self-test as Markdown: a summary line, the fault table, the baseline."""
    lines = [f"# Self-test ({result.profile} profile, seed {result.seed})", "",
             f"{sum(f.caught for f in result.faults)} of {len(result.faults)} built-in faults caught; baseline "
             f"{'green' if result.baseline_ok else 'NOT green'}; {result.seconds:.0f} s. A fault is caught when a check "
             f"reports `violated` with p <= {result.alpha_per_check:.2g} (the first Holm step of the main job) or fails.",
             "", "| fault | kind | the mistake | caught by | checks run | time |", "|---|---|---|---|---|---|"]
    for f in result.faults:
        ran = ", ".join(f"`{r.check}` {r.verdict}" for r in f.runs)
        lines.append(f"| `{f.id}` | {f.kind} | {f.description} | {_caught_text(f)} | {ran} | {f.seconds:.1f} s |")
    lines += ["", "Baseline (no fault):", "", "| check | verdict | time |", "|---|---|---|"]
    lines += [f"| `{r.check}` | {r.verdict} | {r.seconds:.1f} s |" for r in result.baseline]
    return "\n".join(lines) + "\n"


def self_test_command(*, only: str | None, out: Path, as_json: bool, profile: str) -> None:
    """Run the self-test from the command line (see the module docstring).

    Raises:
      typer.Exit: with the self-test's exit code (0: every fault caught, baseline green; 1 otherwise).
      ValueError: a bad ``--only`` (no fault matches), ``--profile`` or ``--out``.
    """
    import typer
    from rich.markup import escape
    from rich.table import Table

    from contrastive_bounds.properties.cli.common import console, emit_json
    from contrastive_bounds.properties.runner import atomic_write_text, ensure_writable_folder
    from contrastive_bounds.properties.selftest.faults import select_faults
    from contrastive_bounds.properties.selftest.runner import run_self_test

    faults = select_faults(only)
    ensure_writable_folder(out, "--out")
    if as_json:
        result = run_self_test(faults, profile=profile)
    else:
        with console.status("self-test") as status:
            result = run_self_test(faults, profile=profile, on_progress=lambda m: status.update(f"self-test: {escape(m)}"))
    try:
        atomic_write_text(out / "self-test.json", json.dumps(result.to_dict(), indent=1))
        atomic_write_text(out / "self-test.md", render_markdown(result))
    except OSError as exc:
        raise ValueError(f"--out={out}: writing the self-test results failed ({exc.strerror or exc})") from None
    if as_json:
        emit_json(result.to_dict())
    else:
        t = Table(title=f"contrastive-bounds check --self-test ({profile}): {sum(f.caught for f in result.faults)}/"
                        f"{len(result.faults)} faults caught, {result.seconds:.0f} s")
        for col in ("fault", "kind", "the mistake", "caught by", "time"):
            t.add_column(col, overflow="fold")
        for f in result.faults:
            colour = "green" if f.caught else "bold red"
            t.add_row(escape(f.id), f.kind, escape(f.description), f"[{colour}]{escape(_caught_text(f))}[/{colour}]",
                      f"{f.seconds:.1f}s")
        console.print(t)
        if not result.baseline_ok:
            bad = [f"{r.check} ({r.verdict})" for r in result.baseline if r.verdict == "violated" or r.error]
            console.print(f"[bold red]baseline not green[/bold red]: {', '.join(bad)}: the self-test proves nothing")
        console.print(f"self-test: {out / 'self-test.md'}, {out / 'self-test.json'}")
    if result.exit_code:
        raise typer.Exit(result.exit_code)
