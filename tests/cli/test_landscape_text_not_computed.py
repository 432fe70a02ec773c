"""The ``landscape`` text says what was not computed: a multiplicity the search skipped is "multiplicity not
computed" (not a number; a transition state's "not computed" in its row's multiplicity column), and Catoni's D of a network with no non-global minimum is "undefined" with the reason
(not 0). The result printed is a saved search (tests/numerics/landscapes/network/data/saved) read back."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console

import contrastive_bounds.properties.cli._landscape_print as landscape_cli
from contrastive_bounds.numerics.landscapes.network.graph import analyse_network
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search

SAVED = Path(__file__).parents[1] / "numerics" / "landscapes" / "network" / "data" / "saved" / "v2-infonce-n4-d2-tau0.1-done"


def _text(res, monkeypatch) -> str:
    out = Console(record=True, width=400)
    monkeypatch.setattr(landscape_cli, "console", out)
    landscape_cli.print_network(res)
    return out.export_text()


def test_the_text_names_what_was_not_computed(monkeypatch):
    """A minimum without a multiplicity prints "multiplicity not computed"; one minimum alone gives Catoni's D
    "undefined: every minimum is global ..." (no number); the saved search itself prints its D and multiplicities."""
    res = load_saved_search(SAVED).result()
    text = _text(res, monkeypatch)
    assert "not computed" not in text and f"{res.catoni_difficulty:.10g}" in text
    for t in res.transition_states:  # each saddle's multiplicity in its row, beside the minima it joins
        row = next(line for line in text.splitlines() if line.startswith(f"│ {t.label} "))
        cells = [c.strip() for c in row.split("│")]
        assert cells[3] == " – ".join(f"m{i}" for i in t.minima) and cells[4] == str(t.multiplicity), row
    lone = [dataclasses.replace(res.minima[0], multiplicity=None)]
    alone = dataclasses.replace(res, minima=lone, transition_states=[], analysis=analyse_network(lone, []))
    text = _text(alone, monkeypatch)
    assert "multiplicity not computed" in text
    row = next(line for line in text.splitlines() if "Catoni's D" in line)
    assert "undefined: every minimum is global" in row and not any(ch.isdigit() for ch in row.split("D", 1)[1])
    lone_ts = [dataclasses.replace(res.transition_states[0], multiplicity=None)]
    text = _text(dataclasses.replace(res, transition_states=lone_ts), monkeypatch)
    row = next(line for line in text.splitlines() if line.startswith("│ ts0 "))
    assert "not computed" in row, row


def test_the_closure_text_is_printed_once_and_pointed_to_from_the_status_and_stop_rows(monkeypatch):
    """A search that is not closed gives its closure text as the status's and the stop's reason: the "closure" row
    prints it, the "status" and "stopped" rows say 'see "closure"' in its place (once, not three times)."""
    res = load_saved_search(SAVED).result()
    closure = "not closed: the budget of max_explored = 1 explored minima was used (1 of 2 minima left unexplored)"
    effort = dataclasses.replace(res.effort, closed=False, closure=closure,
                                 stopped_by={"minima": "no basin hopping (max_hop_rounds = 0)", "transition_states": closure})
    open_ = dataclasses.replace(res, status=f"open: closure not reached ({closure})", effort=effort)
    text = _text(open_, monkeypatch)
    assert text.count(closure) == 1, text
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.splitlines() if line.count("│") >= 3}
    assert rows["closure"] == closure
    assert rows["status"] == 'open: closure not reached (see "closure")'
    assert rows["stopped"] == 'minima: no basin hopping (max_hop_rounds = 0); transition states: see "closure"'


def test_a_zero_critical_height_without_any_trap_found_says_why_it_is_zero(monkeypatch):
    """An open search that found no non-global minimum prints H* = 0 with the reason (no trap found, the network not
    complete), not a bare 0 that reads as a measured barrier-free landscape."""
    res = load_saved_search(SAVED).result()
    lone = [res.minima[0]]
    effort = dataclasses.replace(res.effort, closed=False, closure="not closed: stopped early")
    alone = dataclasses.replace(res, minima=lone, transition_states=[], analysis=analyse_network(lone, []),
                                status="open: closure not reached", effort=effort)
    row = next(line for line in _text(alone, monkeypatch).splitlines() if "critical height H*" in line)
    assert "0 over the minima found (open: no non-global minimum with a path to a lower one was found; the network is " \
           "not complete" in row
