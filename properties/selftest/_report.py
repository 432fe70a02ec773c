"""What a self-test says: the Markdown report (the check × fault matrix), the summary and failure lines.

The command that prints them (``contrastive-bounds check --self-test``) is the command line's
(:mod:`contrastive_bounds.properties.cli`); this module imports nothing of it. Exit codes of a
self-test run: 1 when the baseline is not green, a fault was not caught, a declared witness stayed
green or (every fault run) a check has no witness; :data:`EXIT_INTERRUPTED` (130) on Ctrl-C.
"""

from __future__ import annotations

import os
import platform
from typing import Any

from contrastive_bounds.properties.selftest._runner import CheckRun, SelfTestResult

__all__ = ["render_markdown", "environment", "failure_line", "caught_text", "summary_line", "EXIT_INTERRUPTED"]

EXIT_INTERRUPTED = 130


def environment() -> dict[str, Any]:
    """Machine and load of this run (for the durations a report quotes)."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        load = None
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": platform.python_version(), "load_average_1_5_15": load}


def caught_text(f: Any) -> str:
    if not f.caught:
        return "NOT CAUGHT (" + ", ".join(f"{r.check}: {r.verdict}" for r in f.runs) + ")"
    return ", ".join(f"{r.check} ({r.verdict}{', deterministic' if r.deterministic else ''})" for r in f.runs if r.caught)


def summary_line(result: SelfTestResult) -> str:
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
    lines = [f"# Self-test ({result.profile} profile, seed {result.seed})", "", summary_line(result) + ".", ""]
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
        lines.append(f"| F{i} | `{f.id}` | {f.kind} | {f.description.replace('|', chr(92) + '|')} | {caught_text(f)} | {ran} | "
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
