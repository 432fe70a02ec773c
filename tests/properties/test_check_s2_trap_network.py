"""Check A9.s2_trap_network: its reference values are the page's (docs/reference-values.md C15), it holds on the
network the A8.6 row of the same landscape searched (one search in the main job), and its landscape has the two
properties it is there for: the trap only the structured starts find, the exit only following out of the trap finds."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import contrastive_bounds.properties.checks._landscape_trap_network as chk

ROOT = Path(__file__).resolve().parents[2]
LOWEST_EXIT_V = 11.496880526713  # saddle s_1 of C15


def _page_rows():
    """The C15 rows of the page's search table (6 cells: case, quantity, inputs, value, tolerance, source)."""
    out = {}
    for line in (ROOT / "docs" / "reference-values.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] == "C15":
            out[cells[1]] = (cells[3], cells[4])
    return out


def test_the_check_s_reference_values_are_the_page_s():
    """Every C15 search value on the page equals the check's constant within the page's tolerance, and the page's
    tolerances are the check's (so the page says what the check compares)."""
    rows = _page_rows()
    ref = chk.REFERENCE
    assert rows["minima_multiplicities"] == ("1, 1", "exact")
    assert [k for _, k in ref["minima"]] == [1, 1]
    assert ref["minima"][0][0] == pytest.approx(-15 + math.log(4), abs=1e-14)
    assert ref["minima"][1][0] == pytest.approx(10 + math.log(4), abs=1e-14)

    def absolute(tol):
        number, unit = tol.split()
        assert unit == "absolute"
        return float(number)

    value, tol = rows["critical_height"]
    assert float(value) == ref["critical_height"] and absolute(tol) == chk.ENERGY_ATOL
    for k, (barrier, copies) in enumerate(ref["escape_saddles"], 1):
        value, tol = rows[f"escape_barrier_{k}"]
        assert float(value) == barrier and absolute(tol) == chk.ENERGY_ATOL
        assert rows[f"escape_copies_{k}"] == (str(copies), "exact")
    for k, lp in enumerate(ref["log_prefactors"], 1):
        value, tol = rows[f"log_prefactor_{k}"]
        assert float(value) == lp and absolute(tol) == chk.PREFACTOR_ATOL
    assert ref["critical_height"] == ref["escape_saddles"][0][0]


def test_the_check_refuses_bad_parameters():
    """A user scenario with 0 random starts or a negative search seed is refused, naming the parameter."""
    from contrastive_bounds.properties.checks._framework import defined_checks

    spec = defined_checks()["A9.s2_trap_network"]  # registered by importing its module (above)
    with pytest.raises(ValueError, match="starts"):
        spec.validate({"starts": 0, "search_seed": 0})
    with pytest.raises(ValueError, match="search_seed"):
        spec.validate({"starts": 128, "search_seed": -1})


@pytest.mark.slow
def test_the_check_holds_on_the_network_of_the_a86_row():
    """Quick defaults: every condition holds (5 reference, 2 independent, 1 exact); the network is the very object
    the A8.6_dimension row of N = 6, d = 3, tau = 0.1 gets, so the main job searches this landscape once."""
    from contrastive_bounds.properties.checks._ablation_rows import ablation_tasks
    from contrastive_bounds.properties.checks._landscape_rows import row_network
    from contrastive_bounds.properties.checks._registry import registered_checks

    spec = registered_checks()["A9.s2_trap_network"]
    out = spec.fn(dict(spec.defaults["quick"]), 0)
    assert out.verdict == "holds", out.summary
    assert [c.kind for c in out.conditions].count("reference") == 5 and len(out.conditions) == 8
    assert not out.failed_conditions and out.empirical == pytest.approx(chk.REFERENCE["critical_height"], abs=1e-9)
    assert "found by structured start" in out.summary
    assert {r["critical point"] for r in out.table} >= {"m0", "m1"} and all(r["index (differences)"] in (0, 1) for r in out.table)
    (params, seed), = [(p, s) for p, s in ablation_tasks("quick")
                       if (p["ablation"], p["num_points"], p["dim"], p["tau"]) == ("dimension", 6, 3, 0.1)]
    assert chk.network_of(spec.defaults["quick"])[1] is row_network(params, seed)[1]


def _skip_following(at):
    """A substitution of the closure's following step that leaves out the minima ``at(minimum)`` selects (logged as
    followed along 0 directions, so the closure still ends)."""
    from contrastive_bounds.numerics.landscapes.network.events import Followed
    from contrastive_bounds.properties.selftest import Substitution

    def make(original):
        def follow_modes(spec, settings, store, rng, minima, **kwargs):
            keep = [i for i in minima if not at(store.minima[i])]
            events = original(spec, settings, store, rng, keep, **kwargs) if keep else []
            store.log(*(Followed(int(i), 0) for i in minima if at(store.minima[i])))
            return events
        return follow_modes

    return Substitution("contrastive_bounds.numerics.landscapes.network.following:follow_modes", make)


@pytest.mark.slow
def test_the_trap_needs_the_structured_starts_and_its_exit_needs_following_out_of_the_trap():
    """With the check's settings: structured starts off, the trap is missed (one minimum, barrier-free within the
    search); eigenvector following from the trap left out (the global minimum still followed, the band between the two
    still run), the lowest exit (V = 11.4968805) is missed and H* comes out 0.13212, the higher exit's barrier."""
    from contrastive_bounds.numerics.landscapes.network import SearchSettings, landscape_network
    from contrastive_bounds.properties.selftest import substituted

    spec, res = chk.network_of(chk._QUICK)
    settings = SearchSettings(**res.settings)
    assert any(abs(t.energy - LOWEST_EXIT_V) < 1e-9 for t in res.transition_states)
    no_templates = landscape_network(spec, settings.updated(structured_starts=0), draw=False)
    assert [round(m.energy, 9) for m in no_templates.minima] == [round(chk.REFERENCE["minima"][0][0], 9)]
    assert no_templates.status == "barrier-free within this search"
    with substituted(_skip_following(lambda m: m.energy > 0)):
        no_trap_side = landscape_network(spec, settings, draw=False)
    assert len(no_trap_side.minima) == 2 and no_trap_side.effort.neb_runs >= 1
    assert not any(abs(t.energy - LOWEST_EXIT_V) < 1e-6 for t in no_trap_side.transition_states)
    assert no_trap_side.critical_height == pytest.approx(chk.REFERENCE["escape_saddles"][1][0], abs=1e-9)
    assert re.match(r"closed under single-ended exploration", no_trap_side.closure)
