"""The ``landscape`` text states the per-trap exploration once, in its row "explored (per trap)". A search that is
not closed ends its closure text with ``; per-trap exploration: <the per-trap sentence>`` (network.closure), and the
status and the "stopped" row repeat that closure text: the same per-trap sentence was printed three or four times.
The result printed is a saved search read back, with the closure text of a search stopped by ``--trap-modes``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console

import contrastive_bounds.properties.cli._landscape_print as landscape_cli
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search

SAVED = Path(__file__).parents[1] / "numerics" / "landscapes" / "network" / "data" / "saved" / "v2-infonce-n4-d2-tau0.1-done"


def test_the_per_trap_sentence_is_printed_once(monkeypatch):
    """The closure row of a search that is not closed points to "explored (per trap)" instead of repeating its
    sentence, the rest of its text kept; the status and "stopped" rows point to the closure row."""
    res = load_saved_search(SAVED).result()
    per_trap = ("m0 along its 1 softest of 2 modes, both signs (2 searches: 2 ended at a verified saddle, 2 joined to "
                "m0; per-trap closure partial); m1 along its 1 softest of 2 modes, both signs (2 searches: 1 ended at a "
                "verified saddle, 1 joined to m0; per-trap closure partial)")
    closure = ("not closed: only the softest modes of the explored minima were followed (trap_modes) after 1 round; "
               f"each of the 2 minima followed; per-trap exploration: {per_trap}")
    effort = dataclasses.replace(res.effort, closed=False, closure=closure,
                                 stopped_by={**res.effort.stopped_by, "transition_states": closure})
    stopped = dataclasses.replace(res, effort=effort, status=f"open: closure not reached ({closure})",
                                  exploration={**res.exploration, "per_trap": per_trap})
    out = Console(record=True, width=1000)
    monkeypatch.setattr(landscape_cli, "console", out)
    landscape_cli.print_network(stopped)
    text = out.export_text()
    rows = {cells[1].strip(): cells[2] for cells in (line.split("│") for line in text.splitlines()) if len(cells) > 3}
    assert text.count(per_trap) == 1 and per_trap in rows["explored (per trap)"]
    assert ("each of the 2 minima followed; per-trap exploration: see \"explored (per trap)\"" in rows["closure"])
    for row in ("status", "stopped"):  # and the closure text itself once: these rows point to it
        assert 'see "closure"' in rows[row] and "trap_modes" not in rows[row], rows[row]
