"""``contrastive-bounds align theorem1 LOG``: Theorem 1 and its proof links along a user's training log (B4).

LOG is an ``.npz`` archive or a folder of ``NAME.npy`` files in the format of
:data:`contrastive_bounds.numerics.alignment.LOG_ARRAYS` (docs/alignment-numerics.md,
"Theorem 1 on your own training log"). Exit 0 when every evaluated link and the bound hold at every
record, 1 when one fails (the log is not similarity descent with these constants, or the batch
event failed), 2 for malformed input (one line naming the array or option).
"""

from __future__ import annotations

import math
import re
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.properties.cli._common import EXIT_VIOLATED, CLIError, command, console, emit_json, err_console
from contrastive_bounds.properties._statements import relation_log10

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

_OPTIONS = {"log": "LOG", "tau": "--tau", "delta": "--delta", "step_size": "--eta", "response": "--response"}


def _cli_message(msg: str) -> str:
    return re.sub(r"(?<![\w-])(?<!'s )(log|tau|delta|step_size|response)=", lambda m: f"{_OPTIONS[m.group(1)]}=", msg)


def _fmt(log10_value: float | None) -> str:
    """A non-negative quantity from its log10: ``0``, a plain number, ``10^k`` beyond float64, ``inf`` (vacuous)."""
    if log10_value is None:
        return "n/a"
    if log10_value == -math.inf:
        return "0"
    if log10_value == math.inf:
        return "inf (vacuous)"
    return f"{10.0 ** log10_value:.4g}" if log10_value < 300 else f"10^{log10_value:.2f}" if log10_value < 1e6 else f"10^({log10_value:.6g})"


def _l10(x: float | None) -> float | None:
    if x is None:
        return None
    return math.log10(x) if x > 0 else -math.inf


def _holds(s: dict, key: str) -> str:
    """``True``/``False``, or why there is no verdict (vacuous, or not evaluated)."""
    v = s["holds"][key]
    if v is not None:
        return str(v)
    return "n/a (vacuous)" if s["status"] == "vacuous" else "n/a (not evaluated)"


def _shown_rows(k1: int, rows: int) -> list[int]:
    """First, last and evenly spaced records between them (at most ``rows``)."""
    if k1 <= rows:
        return list(range(k1))
    return sorted({round(i * (k1 - 1) / (rows - 1)) for i in range(rows)})


def theorem1(
    log: str = typer.Argument(..., help="Training log: an .npz archive or a folder of NAME.npy files with sigma_cl, "
                              "sigma_nscl (or embeddings_cl, embeddings_nscl), step_sizes, labels, batches or "
                              "batch_size, tau, ... (format: docs/alignment-numerics.md)."),
    tau: Optional[float] = typer.Option(None, help="Temperature tau > 0, when the log holds none."),
    delta: Optional[float] = typer.Option(None, help="Failure probability in (0, 1), when the log holds none "
                                          "(default 0.05)."),
    eta: Optional[float] = typer.Option(None, help="A constant step size, when the log holds no step_sizes."),
    response: Optional[float] = typer.Option(None, help="kappa > 0 for a log of learning_rates (eta_t = kappa * lr_t), "
                                             "when the log holds none."),
    rows: int = typer.Option(12, help="Records shown in the table (first, last, evenly spaced); --json gives all."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output (every record)."),
) -> None:
    """Theorem 1 and its proof links (L1, L2, L3) at every step of your own training log, with the slack budget."""
    from contrastive_bounds.numerics.alignment._theorem1_log_io import read_theorem1_log
    from contrastive_bounds.numerics.alignment._theorem1_trajectory import evaluate_theorem1_log

    if not 2 <= rows <= 10_000:
        raise CLIError(f"--rows={rows} must be in [2, 10000]")
    try:
        lg = read_theorem1_log(log, tau=tau, delta=delta, step_size=eta, response=response)
        res = evaluate_theorem1_log(lg)
    except ValueError as exc:
        raise CLIError(_cli_message(str(exc))) from None
    s = res.summary()
    failed = [k for k, v in s["holds"].items() if v is False]
    if json_out:
        emit_json(s)
    else:
        _print(s, rows)
    if failed:
        err_console.print(failure_line(s, failed), markup=False, highlight=False)
        raise typer.Exit(EXIT_VIOLATED)


#: What each key of the summary's ``holds`` is, in a sentence's words.
LINK_WORDS = {"theorem1": "Theorem 1's bound", "triangle": "the triangle inequality", "L1": "link L1",
              "L2": "link L2", "L3": "link L3", "L1_step": "link L1 per step (the mismatch under its L1 bound)",
              "L2_step": "link L2 per step (from the measured d_t)"}


def failure_line(s: dict, failed: list[str]) -> str:
    """One line naming each failed link, the first step where it fails, and the two numbers compared there
    (the measured quantity against the bound, the sign computed from them)."""
    per, parts = s["per_record"], []
    order = [k for k in ("L1_step", "L2_step", "triangle", "L1", "L2", "L3", "theorem1") if k in failed]
    for key in order + [k for k in failed if k not in order]:
        step = s["first_violation"].get(key)
        text = LINK_WORDS.get(key, key)
        if step is not None and step in per["step"]:
            k = per["step"].index(step)
            if key == "L1_step":
                measured, name, bound = per.get("mismatch", [None] * (k + 1))[k], "mismatch", per.get("l1_log10")
            elif key == "L2_step":
                measured, name, bound = per["distance"][k], "d_t", per.get("l2_step_log10")
            else:
                measured, name, bound = per["distance"][k], "d_t", per.get(f"{key}_log10")
            b = None if bound is None else bound[k]
            if measured is not None and measured > 0 and b is not None and math.isfinite(b):
                m_text, sign, b_text = relation_log10(math.log10(measured), b)
                text += f" fails at step {step} ({name} = {m_text} {sign} bound {b_text})"
            else:
                text += f" fails at step {step}"
        parts.append(text)
    return "theorem1 failed: " + "; ".join(parts) + " (the log is not similarity descent with these constants)"


def _print(s: dict, rows: int) -> None:
    per = s["per_record"]
    chain = [k for k in ("triangle", "L1", "L2", "L3", "theorem1") if k in s["bounds_log10"]]
    table = Table(title=f"Theorem 1 along {s['source']}: {s['records']} records over T={s['steps']} steps "
                        f"(m={s['m']}, B={s['batch_size']}, tau={s['tau']:g}, {s['input']})")
    cols = ["step", "S_t", "d_t", "mismatch", "L1 bound", "L2 step"] + [f"bound {k}" for k in chain] + ["status"]
    for col in cols:
        table.add_column(col, justify="right")
    for k in _shown_rows(s["records"], rows):
        mis = per.get("mismatch", [None] * s["records"])[k]
        l1 = per.get("l1_log10", [None] * s["records"])[k]
        table.add_row(str(per["step"][k]), f"{per['eta_sum'][k]:.4g}", _fmt(_l10(per["distance"][k])), _fmt(_l10(mis)),
                      _fmt(l1), _fmt(per["l2_step_log10"][k]), *[_fmt(per[f"{c}_log10"][k]) for c in chain],
                      per["status"][k])
    console.print(table)
    budget = Table(title="at T: each link's bound on d_T, the slack it adds (log10 over the previous), and whether it "
                         "holds at every record")
    for col in ("quantity", "value", "log10", "slack (log10)", "holds", "first failing step"):
        budget.add_column(col)
    d_l10 = s["d_T_log10"]
    budget.add_row("measured d_T", _fmt(d_l10), f"{d_l10:.4f}" if d_l10 is not None else "n/a (d_T = 0)", "", "", "")
    for link in chain:
        lv, sl = s["bounds_log10"][link], s["slack_log10"][link]
        first = s["first_violation"].get(link)
        budget.add_row(f"bound {link}", _fmt(lv), f"{lv:.4f}" if math.isfinite(lv) else _fmt(lv),
                       f"{sl:.4f}" if sl is not None and math.isfinite(sl) else "n/a", _holds(s, link),
                       "" if first is None else str(first))
    for key, what in (("L1_step", "L1 per step (mismatch <= L1 bound)"), ("L2_step", "L2 per step (from measured d_t)")):
        first = s["first_violation"].get(key)
        budget.add_row(what, "", "", "", _holds(s, key), "" if first is None else str(first))
    console.print(budget)
    reason = f" ({s['reason']})" if s["reason"] else ""
    console.print(f"Delta = {_fmt(s['delta_log10'])} (pi_max = {s['pi_max']:.4g}, epsilon = {s['epsilon']:.4g}, "
                  f"delta = {s['delta']:g}); S = {s['eta_sum']:.6g}; status at T: {s['status']}{reason}")
    if s["first_uninformative_step"] is not None and s["status"] not in ("vacuous",):
        console.print(f"the bound exceeds the trivial {s['trivial_note']} = {s['trivial_bound']:.4g} from step "
                      f"{s['first_uninformative_step']} on: it says nothing there")
    if s["l1_evaluated"]:
        console.print(f"batch event (same-class fraction <= pi_max + epsilon at every step): {s['batch_event']} "
                      f"(largest fraction {s['max_same_fraction']:.4g}; "
                      f"{'the log' if s['batches_source'] == 'batches' else 'the toolkit sampler'}'s batches)")
    else:
        console.print(f"L1, the summed links and the batch event are not evaluated: {s['l1_reason']}")
    for note in s["notes"]:
        console.print(f"note: {note}")


def register(app: typer.Typer) -> None:
    """Add ``theorem1`` to the ``align`` sub-app."""
    app.command("theorem1")(command(theorem1))
