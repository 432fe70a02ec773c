"""Quantities a search did not compute are None (JSON ``null``), never a number that reads as a value: a
multiplicity under ``multiplicities=False`` (and the 0 older saved files wrote for it reads back as None), Catoni's
D of a network with no non-global minimum (with the reason), ``single_ended_modes`` under closure (which follows
every mode), and the log-determinant factor of an Eyring–Kramers prediction that was not made."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network.graph import analyse_network
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.serial import check_resume, store_from_dict
from contrastive_bounds.numerics.landscapes.network.state import PREVIOUS_SINGLE_ENDED_MODES, SearchSettings

SAVED = Path(__file__).parent / "data" / "saved"


def _minimum(i, e, multiplicity=1):
    return NetworkMinimum(i, float(e), np.zeros((1, 2)), multiplicity, 0.0, [1.0], 0, True)


def _ts(i, e, a, b):
    return TransitionState(i, float(e), np.zeros((1, 2)), 1, 0.0, -1.0, 1, [a, b], True)


def test_catoni_difficulty_of_a_network_without_non_global_minima_is_null_with_the_reason():
    """One minimum, or two tied global minima: D (a maximum over non-global minima) is None with the reason, written
    as null; a non-global minimum that is unconnected says so; a network with a barrier keeps its D = 1.5/1."""
    for mins, tss in (([_minimum(0, -1.0)], []), ([_minimum(0, -1.0), _minimum(1, -1.0)], [_ts(0, 0.5, 0, 1)])):
        a = analyse_network(mins, tss)
        assert a.catoni_difficulty is None and "every minimum is global" in a.catoni_note
        d = json.loads(json.dumps(a.to_dict()))
        assert d["catoni_difficulty"] is None and d["catoni_note"].startswith("undefined")
    lone = analyse_network([_minimum(0, -2.0), _minimum(1, -1.0)], [])
    assert lone.catoni_difficulty is None and "no non-global minimum is connected" in lone.catoni_note
    ok = analyse_network([_minimum(0, -2.0), _minimum(1, -1.0)], [_ts(0, 0.5, 0, 1)])
    assert ok.catoni_difficulty == pytest.approx(1.5) and ok.catoni_note == ""


def test_a_multiplicity_not_computed_is_null_and_an_older_files_zero_reads_as_none():
    """A record without a multiplicity writes null; a saved state whose records say 0 (what older searches wrote
    for "not computed") or null reads back None, a computed one keeps its value."""
    assert json.loads(json.dumps(_minimum(0, -1.0, None).to_dict()))["multiplicity"] is None
    data = json.loads((SAVED / "v2-infonce-n4-d2-tau0.1-done" / "network.json").read_text())
    assert [m["multiplicity"] for m in data["minima"]] == [1, 1]
    data["minima"][0]["multiplicity"] = 0
    data["minima"][1]["multiplicity"] = None
    data["transition_states"][0]["multiplicity"] = 0
    store = store_from_dict(data)
    assert [m.multiplicity for m in store.minima] == [None, None]
    assert store.transition_states[0].multiplicity is None
    rejected = data["transition_states"][3]
    assert not rejected["verified"] and rejected["multiplicity"] == 0  # the file's own "not computed"
    assert [t.multiplicity for t in store.transition_states[1:]] == [2, 4, None]


def test_single_ended_modes_is_null_under_closure_and_old_settings_still_resume():
    """Closure follows every mode: the softest-mode count is recorded as None whatever was given (so the JSON never
    shows a count that did not limit the search); without closure it is kept (default 3). A state saved with
    ``single_ended_modes: 3`` under closure reads, and resumes under today's settings."""
    assert SearchSettings().single_ended_modes is None and SearchSettings().to_dict()["single_ended_modes"] is None
    assert SearchSettings(single_ended_modes=5).single_ended_modes is None
    assert SearchSettings(closure=False).single_ended_modes == PREVIOUS_SINGLE_ENDED_MODES == 3
    assert SearchSettings(closure=False, single_ended_modes=5).single_ended_modes == 5
    assert SearchSettings().updated(closure=False).single_ended_modes == 3
    with pytest.raises(ValueError, match="single_ended_modes"):
        SearchSettings(closure=False, single_ended_modes=-1)
    data = json.loads((SAVED / "v2-infonce-n4-d2-tau0.1-done" / "network.json").read_text())
    assert data["settings"]["closure"] is True and data["settings"]["single_ended_modes"] == 3
    store = store_from_dict(data)
    assert store.settings.single_ended_modes is None
    check_resume(store, store.fingerprint, store.settings.updated(), store.curvature)
    old = json.loads((SAVED / "v1-infonce-n6-d2-tau0.1-done" / "network.json").read_text())
    assert store_from_dict(old).settings.single_ended_modes == 3  # the search without closure used it


def test_a_resume_refusal_spells_an_unset_setting_as_the_command_line_does():
    """A resume refused because the basin margin differs names the unset side ``none`` (what ``--basin-margin``
    accepts), never Python's ``None``; the set side keeps its number."""
    data = json.loads((SAVED / "v2-infonce-n4-d2-tau0.1-done" / "network.json").read_text())
    store = store_from_dict(data)
    assert store.settings.basin_margin is None
    with pytest.raises(ValueError) as err:
        check_resume(store, store.fingerprint, store.settings.updated(basin_margin=1.0), store.curvature)
    assert "basin_margin: saved none, now 1.0" in str(err.value) and "None" not in str(err.value)


def test_a_search_saved_without_multiplicities_resumes_and_keeps_its_setting(tmp_path):
    """``multiplicities`` does not block a resume (it decides only whether records carry a count): a search saved
    with ``multiplicities=False`` resumes under the default settings, keeps False, and its minima stay null; any
    other differing setting still refuses."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    spec = infonce_spec(4, 2, 0.1)
    small = dict(starts=4, structured_starts=0, max_hop_rounds=0, draw=False, transition_states=False)
    first = landscape_network(spec, out=tmp_path, multiplicities=False, **small)
    assert [m.multiplicity for m in first.minima] == [None] * len(first.minima)
    again = landscape_network(spec, out=tmp_path, resume=True, **small)
    assert again.settings["multiplicities"] is False and [m.multiplicity for m in again.minima] == [None] * len(first.minima)
    store = store_from_dict(json.loads((tmp_path / "network.json").read_text()))
    check_resume(store, store.fingerprint, store.settings.updated(multiplicities=True), store.curvature)
    with pytest.raises(ValueError, match="resume refused: the saved search differs in starts: saved 4, now 5"):
        check_resume(store, store.fingerprint, store.settings.updated(multiplicities=True, starts=5), store.curvature)
