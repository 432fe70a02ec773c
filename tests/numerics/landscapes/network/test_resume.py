"""A search saved as it goes survives Ctrl-C: resuming keeps every minimum and transition state (A9)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

SETTINGS = dict(starts=16, hop_batch=8, max_hop_rounds=2, patience=1, chunk=8, max_ts_rounds=2)


def _interrupt_at(phase):
    def progress(name, done, total, info):
        if name == phase:
            raise KeyboardInterrupt

    return progress


@pytest.mark.slow
def test_interrupt_then_resume_keeps_every_minimum_and_transition_state(tmp_path, quadratic_spec):
    """Ctrl-C during the transition-state phase leaves a state file with the minima and the saddles found
    so far; resuming keeps each with the same id, energy and bit-identical coordinates, does not redo the
    starts, and ends with the same network as an uninterrupted search."""
    with pytest.raises(KeyboardInterrupt):
        landscape_network(quadratic_spec, out=tmp_path, progress=_interrupt_at("transition states"), **SETTINGS)
    saved = json.loads((tmp_path / "network.json").read_text())
    assert saved["phase"] == "ts" and len(saved["minima"]) == 2 and saved["transition_states"]
    res = landscape_network(quadratic_spec, out=tmp_path, resume=True, **SETTINGS)
    every = {t.id: t for t in res.transition_states + res.unverified}
    for m in saved["minima"]:
        assert res.minima[m["id"]].energy == m["energy"]
        assert np.array_equal(res.minima[m["id"]].z, np.asarray(m["z"]))
    for t in saved["transition_states"]:
        assert every[t["id"]].energy == t["energy"] and np.array_equal(every[t["id"]].z, np.asarray(t["z"]))
    assert res.effort.starts == 16
    fresh = landscape_network(quadratic_spec, **SETTINGS)
    assert res.critical_height == fresh.critical_height
    assert sorted(m.energy for m in res.minima) == sorted(m.energy for m in fresh.minima)
    assert len(res.transition_states) == len(fresh.transition_states) == 2
    assert (tmp_path / "disconnectivity.png").stat().st_size > 1000


def test_resume_refuses_other_settings_other_landscapes_and_missing_states(tmp_path, quadratic_spec):
    """Resuming with other settings or another landscape names what differs; nothing saved ->
    FileNotFoundError; resume without a folder, or an output path that cannot be a folder -> ValueError."""
    landscape_network(quadratic_spec, out=tmp_path, transition_states=False, **SETTINGS)
    with pytest.raises(ValueError, match="starts: saved 16, now 32"):
        landscape_network(quadratic_spec, out=tmp_path, resume=True, **{**SETTINGS, "starts": 32})
    with pytest.raises(ValueError, match="landscape name") as refused:
        landscape_network(infonce_spec(4, 3, 0.5), out=tmp_path, resume=True, **SETTINGS)
    assert ";" not in str(refused.value), refused.value  # the name only: the parameters differ with it
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        landscape_network(quadratic_spec, out=tmp_path / "empty", resume=True, **SETTINGS)
    with pytest.raises(ValueError, match="needs out"):
        landscape_network(quadratic_spec, resume=True, **SETTINGS)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="out="):
        landscape_network(quadratic_spec, out=blocker / "sub", **SETTINGS)


@pytest.mark.slow
def test_a_search_stopped_before_its_first_batch_resumes_by_starting_again(tmp_path, quadratic_spec):
    """Ctrl-C before the first batch of minima finished saves a state with no minimum; resuming it (what the
    interrupt message tells the user to do) starts the search afresh instead of refusing the folder, and ends
    with the network of an uninterrupted search. Another landscape in that folder is still refused."""
    from contrastive_bounds.numerics.landscapes.network.serial import EmptySavedSearch, read_state, save_store
    from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
    from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

    # what the interrupt handler saves when the first batch has not finished: the store as created
    save_store(tmp_path / "network.json", NetworkStore(quadratic_spec.to_dict(), SearchSettings(**SETTINGS),
                                                       curvature="dense"))
    assert json.loads((tmp_path / "network.json").read_text())["minima"] == []
    with pytest.raises(EmptySavedSearch, match="no minimum yet"):
        read_state(tmp_path / "network.json")
    res = landscape_network(quadratic_spec, out=tmp_path, resume=True, **SETTINGS)
    fresh = landscape_network(quadratic_spec, **SETTINGS)
    assert res.critical_height == fresh.critical_height
    assert sorted(m.energy for m in res.minima) == sorted(m.energy for m in fresh.minima)
    assert json.loads((tmp_path / "network.json").read_text())["minima"]


@pytest.mark.slow
def test_a_search_stopped_inside_a_minimums_searches_resumes_after_the_blocks_that_ran(tmp_path, monkeypatch):
    """N = 6 on S¹, τ = 0.1, searches in blocks of 4: Ctrl-C at the third block of eigenvector following leaves
    FollowedPart events for the two blocks that ran; resuming follows only the searches left, so the finished
    search has the uninterrupted one's search count, per-minimum outcome counts, saddle energies and H*."""
    import contrastive_bounds.numerics.landscapes.network.following as following

    monkeypatch.setattr(following, "SEARCHES_PER_BLOCK", 4)
    spec = infonce_spec(6, 2, 0.1)
    kw = dict(structured_starts=0, draw=False)
    reference = landscape_network(spec, **kw)
    real, calls = following.connect_candidates, []

    def stop_at_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(following, "connect_candidates", stop_at_third)
    with pytest.raises(KeyboardInterrupt):
        landscape_network(spec, out=tmp_path, **kw)
    saved = json.loads((tmp_path / "network.json").read_text())
    parts = [e for e in saved["events"] if e["event"] == "followed part"]
    assert [p["searches"] for p in parts] == [4, 4] and not any(e["event"] == "followed" for e in saved["events"])
    monkeypatch.setattr(following, "connect_candidates", real)
    resumed = landscape_network(spec, out=tmp_path, resume=True, **kw)
    assert resumed.effort.single_ended == reference.effort.single_ended
    events = json.loads((tmp_path / "network.json").read_text())["events"]
    for e in (e for e in events if e["event"] == "followed"):  # every search ran once: the parts add up to it
        assert sum(p["searches"] for p in events if p["event"] == "followed part" and p["minimum"] == e["minimum"]) \
            == e["directions"]
    strip = lambda rows: [{k: r[k] for k in ("minimum", "modes", "of", "searches", "ended_at_verified_saddle",  # noqa: E731
                                             "joined", "stalled_directions")} for r in rows]
    assert strip(resumed.exploration["explored"]) == strip(reference.exploration["explored"])
    assert sorted(round(t.energy, 9) for t in resumed.transition_states) == \
        sorted(round(t.energy, 9) for t in reference.transition_states)
    assert resumed.analysis.critical_height == pytest.approx(reference.analysis.critical_height, abs=1e-12)
