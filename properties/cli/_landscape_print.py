"""The ``landscape`` command's tables: a network result in words (:func:`print_network`).

One row per quantity of the result, then the minima and the lowest verified transition states (60 each at most;
``--json`` has them all). A sentence the result repeats (the per-trap exploration, the closure text that is also
the status's and the stop's reason) is printed once, in its own row, and pointed to from the others.
"""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table

from contrastive_bounds.properties.cli._common import console

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)


def _via(res: Any, energy: float) -> str:
    """Words for a descent continued from near a lower critical point at ``energy`` (the path's end before the polish):
    the label of a recorded saddle within 1e-7 relative of it, else that none is that close (an index >= 2 point met
    on the way down, or a recorded one the unpolished end is farther from)."""
    near = [t.label for t in (*res.transition_states, *res.unverified)
            if abs(t.energy - energy) <= 1e-7 * max(1.0, abs(energy))]
    return (f"continued at V = {energy:.6g} from the lower saddle {near[0]}" if near else
            f"continued at V = {energy:.6g} from a lower critical point (no recorded saddle within 1e-7 of it)")


def _fmt(x: Any) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return "inf" if math.isinf(x) else f"{x:.10g}"
    return str(x)


def _per_trap_once(text: str, per_trap: str | None) -> str:
    """``text`` (a status, closure or stop reason) without the per-trap sentence that the row "explored (per trap)"
    states: a search that is not closed ends its closure text with ``; per-trap exploration: <that sentence>``."""
    return text.replace(f"; per-trap exploration: {per_trap}", "; per-trap exploration: see \"explored (per trap)\"") \
        if per_trap else text


def _closure_once(text: str, closure: str) -> str:
    """``text`` (the status or the stop reasons) with the closure text, which the row "closure" states, replaced by
    a pointer to that row (a search that is not closed gives it as its status's and its stop's reason)."""
    return text.replace(closure, 'see "closure"') if closure and len(closure) > 40 and text != closure else text


def _critical_height(res: Any) -> str:
    """The H* cell: the value with what it is over — unknown (with the note), that of a complete network, or one over
    what was found (no non-global minimum found at all says so: 0 is then no measurement of a barrier)."""
    a = res.analysis
    if res.critical_height_note:
        return f"unknown ({res.critical_height_note})"
    if res.complete:
        return _fmt(a.critical_height)
    if not a.barriers:
        return (f"{_fmt(a.critical_height)} over the minima found (open: no non-global minimum with a path to a lower "
                "one was found; the network is not complete, so a trap that no start, hop or followed mode reached "
                "may exist)")
    return _fmt(a.critical_height) + " (not from a complete network)"


def print_network(res: Any) -> None:
    """Print ``res`` (a :class:`~contrastive_bounds.numerics.landscapes.network.NetworkResult`) as the command's
    tables on the console."""
    a = res.analysis
    per_trap = res.exploration.get("per_trap")
    head = Table(title=f"transition network of {res.landscape['name']}: {res.landscape.get('description', '')}")
    head.add_column("quantity")
    head.add_column("value")
    found = res.found_by_counts()
    structured = res.effort.structured.get("note") if res.effort.structured else None
    closure = _per_trap_once(res.closure, per_trap)
    rows = [("critical height H*", _critical_height(res)),
            ("status", _closure_once(_per_trap_once(res.status, per_trap), closure)), ("closure", closure or "—"), ("Catoni's D", _fmt(a.catoni_difficulty) if a.catoni_difficulty is not None else a.catoni_note),
            ("V_min", _fmt(a.v_min)), ("global minima", ", ".join(f"m{i}" for i in a.global_minima)),
            ("minima found by", ", ".join(f"{k}: {v}" for k, v in found["minima"].items())),
            ("transition states found by", ", ".join(f"{k}: {v}" for k, v in found["transition_states"].items()) or "—"),
            ("H* is over", res.exploration.get("critical_height_over", "—")),
            ("explored (per trap)", res.exploration.get("per_trap", "—")),
            ("not explored", ", ".join(f"m{i}" for i in res.exploration.get("unexplored", [])) or "—"),
            ("closed-form minimum", res.closed_form["text"] if res.closed_form else "none known for this landscape"),
            ("curvature", res.curvature),
            ("structured starts", structured or "—"), ("search effort", res.effort_text()),
            ("stop rule (budget)", res.effort.stop_rule),
            ("stopped", _closure_once(_per_trap_once("; ".join(f"{k.replace('_', ' ')}: {v}"  # the phase in words
                                                               for k, v in res.effort.stopped_by.items()),
                                                     per_trap), closure)),
            ("disconnectivity graph", _fmt(res.disconnectivity_png))]
    if res.agreement is not None:
        rows.append(("two seeds", res.agreement["text"]))
    for k, v in rows:
        head.add_row(k, v)
    console.print(head)
    mins = Table(title=f"minima ({len(res.minima)}, up to symmetry)")
    for col in ("id", "V", "multiplicity", "barrier", "lowest eigenvalue", "verified", "found by"):
        mins.add_column(col)
    for m in res.minima[:60]:
        bar = "global" if m.id in a.global_minima else _fmt(a.barriers.get(m.id, {}).get("barrier", "unconnected"))
        mins.add_row(f"m{m.id}", _fmt(m.energy), str(m.multiplicity) if m.multiplicity else "multiplicity not computed", bar, _fmt(m.eigenvalues[0] if m.eigenvalues else None),
                     "yes" if m.verified else f"no ({m.note})", m.found_by)
    console.print(mins)
    if len(res.minima) > 60:
        console.print(f"(the first 60 of {len(res.minima)} minima shown; --json has them all)", highlight=False)
    tss = Table(title=f"verified transition states ({len(res.transition_states)}); rejected candidates: {len(res.unverified)}")
    for col in ("id", "V", "joins", "multiplicity", "negative eigenvalue", "|grad V|", "found by", "connected by"):
        tss.add_column(col)
    for t in sorted(res.transition_states, key=lambda t: t.energy)[:60]:
        via = [d.get("via") for d in t.descents if d.get("via") is not None]
        how = (t.descents[0]["method"] if t.descents else "—") + (f", {_via(res, via[0])}" if via else "")
        tss.add_row(t.label, _fmt(t.energy), " – ".join(f"m{i}" for i in t.minima),
                    str(t.multiplicity) if t.multiplicity else "not computed", _fmt(t.eigenvalue),
                    f"{t.gradient_norm:.2e}", t.found_by, how)
    console.print(tss)
    if len(res.transition_states) > 60:
        console.print(f"(the 60 lowest of {len(res.transition_states)} verified transition states shown; --json has "
                      "them all)", highlight=False)
    shown = {str(v) for _, v in rows}
    for note in res.notes:
        if note not in shown:  # a note the table states already (the closed-form minimum) is not printed twice
            console.print(f"note: {note}", markup=False, highlight=False)
