"""Searches saved by earlier versions of the search still read, report and resume (state versions 1 and 2).

The fixtures in data/saved/ were written by the code of those versions (data/saved/README.md): decoupled
InfoNCE N = 6, d = 2, tau = 0.1 by version 1 (the search before structured starts and closure) and
N = 4, d = 2, tau = 0.1 by version 2, each finished and stopped by Ctrl-C. Reading migrates them to the
current store: records, counts (as events) and progress come back; resuming continues the search.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network.tally import Tally
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search
from contrastive_bounds.numerics.landscapes.network.serial import STATE_FILE, STATE_VERSION, store_from_dict, \
    store_to_dict

DATA = Path(__file__).parent / "data" / "saved"
V1_H = 0.18808512030645952  # H* the version-1 search reported (docs table: 0.18809)
V2_H = 0.2819042504460647  # H* the version-2 search reported (docs table: 0.28190)


def _copy(name, tmp_path):
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def _saved_json(name):
    return json.loads((DATA / name / STATE_FILE).read_text())


def test_a_finished_version_1_search_reads_with_its_records_counts_and_an_honest_status():
    """Version 1: both minima (energies, hits, coordinates bit for bit), its transition states, its effort counts
    (96 random starts, its hops and searches) and H* come back; its settings are the previous search's (closure
    off), so its status is open (closure not attempted), never complete."""
    raw = _saved_json("v1-infonce-n6-d2-tau0.1-done")
    s = load_saved_search(DATA / "v1-infonce-n6-d2-tau0.1-done")
    assert s.version == 1 and s.finished and s.phase == "done" and not s.closed
    assert [m.energy for m in s.minima] == [m["energy"] for m in raw["minima"]]
    assert [m.hits for m in s.minima] == [m["hits"] for m in raw["minima"]]
    assert all(np.array_equal(m.z, np.asarray(r["z"])) for m, r in zip(s.minima, raw["minima"]))
    assert len(s.transition_states) == len(raw["transition_states"])
    for key in ("starts", "hops", "hop_rounds", "single_ended", "neb_runs", "verified_ts", "minimisations"):
        assert s.effort[key] == raw["effort"][key], key
    assert s.settings["closure"] is False and s.settings["structured_starts"] == 0 and s.settings["starts"] == 96
    assert s.analysis().critical_height == pytest.approx(V1_H, abs=1e-12)
    assert s.status() == "open: closure not attempted (closure=False)"
    assert s.effort["closure"].startswith("not attempted (a version-1 search")


def test_a_finished_version_2_search_reads_and_reports_as_it_did():
    """Version 2: every saved effort count, what found each minimum and transition state, hits, H* and the
    status come back exactly; the migrated store saves as version 3 and reads back to the same fold."""
    raw = _saved_json("v2-infonce-n4-d2-tau0.1-done")
    s = load_saved_search(DATA / "v2-infonce-n4-d2-tau0.1-done")
    assert s.version == 2 and s.finished and s.closed and s.status() == "complete"
    for key, value in raw["effort"].items():
        if key not in ("seconds", "stop_rule"):
            assert s.effort[key] == value, key
    assert [(m.found_by, m.hits) for m in s.minima] == [(m["found_by"], m["hits"]) for m in raw["minima"]]
    assert [t.found_by for t in s.transition_states] == [t["found_by"] for t in raw["transition_states"]]
    assert s.analysis().critical_height == V2_H
    again = store_from_dict(json.loads(json.dumps(store_to_dict(s.store))))
    assert store_to_dict(again)["version"] == STATE_VERSION
    assert again.effort().to_dict() == s.store.effort().to_dict()
    assert Tally.from_events(again.events).counts == s.store.tally.counts


@pytest.mark.slow
def test_version_2_searches_resume_to_the_network_they_would_have_found(tmp_path):
    """The finished version-2 search resumes to its report at once (no new work); the one stopped at its first
    transition-state batch resumes to closure with the same minima classes and H* (1e-9), keeping every saved
    minimum's id and coordinates, and is saved as version 3."""
    done = load_saved_search(_copy("v2-infonce-n4-d2-tau0.1-done", tmp_path))
    before = done.effort
    res = done.resume(draw=False)
    assert res.status == "complete" and res.critical_height == V2_H
    assert {k: v for k, v in res.effort.to_dict().items() if k != "seconds"} == \
        {k: v for k, v in before.items() if k != "seconds"}
    folder = _copy("v2-infonce-n4-d2-tau0.1-ts", tmp_path)
    raw = _saved_json("v2-infonce-n4-d2-tau0.1-ts")
    stopped = load_saved_search(folder)
    assert stopped.phase == "ts" and not stopped.finished and "resume it" in stopped.status()
    res = stopped.resume(draw=False)
    assert res.status == "complete" and res.critical_height == pytest.approx(V2_H, abs=1e-9)
    assert sorted((round(m.energy, 8), m.multiplicity) for m in res.minima) == \
        sorted((round(m.energy, 8), m.multiplicity) for m in done.minima)
    for m in raw["minima"]:
        assert np.array_equal(res.minima[m["id"]].z, np.asarray(m["z"])) and res.minima[m["id"]].energy == m["energy"]
    assert res.effort.starts == raw["effort"]["starts"] and res.effort.structured_starts == raw["effort"]["structured_starts"]
    assert json.loads((folder / STATE_FILE).read_text())["version"] == STATE_VERSION


@pytest.mark.slow
def test_a_version_1_search_stopped_while_hopping_resumes_as_the_search_it_was(tmp_path):
    """The version-1 search stopped during basin hopping resumes with the previous search's settings (no
    closure): its saved starts are not redone, it finds the network the finished version-1 search found
    (same minima classes, H* to 1e-9), and its status says closure was not attempted."""
    finished = load_saved_search(DATA / "v1-infonce-n6-d2-tau0.1-done")
    stopped = load_saved_search(_copy("v1-infonce-n6-d2-tau0.1-hops", tmp_path))
    assert stopped.phase == "hops" and stopped.effort["starts"] == 96
    res = stopped.resume(draw=False)
    assert res.effort.starts == 96 and res.status == "open: closure not attempted (closure=False)"
    assert sorted((round(m.energy, 8), m.multiplicity) for m in res.minima) == \
        sorted((round(m.energy, 8), m.multiplicity) for m in finished.minima)
    assert res.critical_height == pytest.approx(V1_H, abs=1e-9)
