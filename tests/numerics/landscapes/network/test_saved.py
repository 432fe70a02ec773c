"""Reading a saved search (numerics.landscapes.network.saved): what the search wrote comes back (labels m<id>,
energies, coordinates bit for bit, the same H*), and a missing, garbage or other-version state is refused
with a message naming what is wrong. The search is of the quadratic potential on S² (conftest): minima ±e_1
(V = 1, both global), transition states ±e_2 (V = 2). Searches saved by earlier versions (state versions 1
and 2, written by the code of those versions: data/saved/) are test_saved_versions.py's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network
from contrastive_bounds.numerics.landscapes.network.records import minimum_label
from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search
from contrastive_bounds.numerics.landscapes.network.serial import READABLE_VERSIONS, STATE_FILE, STATE_VERSION


@pytest.fixture(scope="module")
def saved_search(quadratic_spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("quadratic")
    res = landscape_network(quadratic_spec, out=out, starts=16, max_hop_rounds=1, patience=1, draw=False)
    return out, res


def _copy(folder, target, edit):
    """A copy of the saved state in ``target`` after ``edit(state)``."""
    state = json.loads((folder / STATE_FILE).read_text())
    edit(state)
    target.mkdir(parents=True)
    (target / STATE_FILE).write_text(json.dumps(state))
    return target


@pytest.mark.slow
def test_what_the_search_wrote_reads_back(saved_search, quadratic_spec):
    """Fingerprint, phase, minima (ids, energies, coordinates bit for bit) and transition states as the search
    holds them; its analysis gives the search's H* and global minima; the state file's path is accepted too."""
    out, res = saved_search
    s = load_saved_search(out)
    assert s.version == STATE_VERSION in READABLE_VERSIONS and s.finished and s.phase == "done"
    assert {k: v for k, v in s.landscape.items() if k != "description"} == quadratic_spec.fingerprint()
    again, first = s.result().to_dict(), res.to_dict()
    for d in (again, first):  # the wall time saved is the one of the last save, not the result's
        d["effort"].pop("seconds"), d.pop("effort_text"), d.pop("disconnectivity_png")
    assert s.status() == res.status and again == first
    assert [m.id for m in s.minima] == [m.id for m in res.minima] and s.labels == [f"m{m.id}" for m in res.minima]
    for a, b in zip(s.minima, res.minima):
        assert a.energy == b.energy and np.array_equal(a.z, b.z) and a.multiplicity == b.multiplicity
    assert sorted(m.energy for m in s.minima) == pytest.approx([1.0, 1.0], abs=1e-12)
    assert {t.id for t in s.verified_transition_states()} == {t.id for t in res.transition_states}
    a = s.analysis()
    assert a.critical_height == res.critical_height and a.global_minima == res.global_minima
    assert s.minimum("m1") is s.minimum(1) is s.minimum("1") and minimum_label(1) == "m1"
    assert load_saved_search(out / STATE_FILE).folder == out
    assert s.differences(quadratic_spec.fingerprint()) == []
    other = {**quadratic_spec.fingerprint(), "dim": 4, "params": {"a": 1}}
    assert s.differences(other) == [("dim", 3, 4), ("params.a", None, 1)]


def test_unknown_labels_missing_and_garbage_states_are_refused_naming_what_is_wrong(saved_search, tmp_path):
    """An unknown label lists the known ones; no folder / no state file -> FileNotFoundError naming folder;
    not JSON, a JSON list, another version, no fingerprint, coordinates off the sphere, a transition state
    joining an unknown minimum -> ValueError naming it. Fields the reader does not know are ignored."""
    out, _ = saved_search
    s = load_saved_search(out)
    with pytest.raises(ValueError, match=r"label='m9'.*its minima are m0, m1"):
        s.minimum("m9")
    with pytest.raises(FileNotFoundError, match="folder=.*does not exist"):
        load_saved_search(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=f"no {STATE_FILE}"):
        load_saved_search(tmp_path / "empty")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / STATE_FILE).write_bytes(b"\x00\xffnot json")
    with pytest.raises(ValueError, match="not a readable saved search: not JSON"):
        load_saved_search(tmp_path / "junk")
    (tmp_path / "junk" / STATE_FILE).write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a JSON object"):
        load_saved_search(tmp_path / "junk")
    cases = [
        (lambda st: st.update(version=99), r"state version 99; this reader understands version\(s\) \[1, 2, 3, 4, 5, 6\]"),
        (lambda st: st.pop("landscape"), "no landscape fingerprint"),
        (lambda st: st["minima"][0].update(z=[[2.0, 0.0, 0.0]]), "minimum 0 has coordinates"),
        (lambda st: st["minima"][0].update(energy="low"), "energy='low'"),
        (lambda st: st["transition_states"][0].update(minima=[0, 7]), "joins \\[0, 7\\], not minima"),
        (lambda st: st.update(minima=[]), "holds no minimum"),
        (lambda st: st["events"].append({"event": "no such event"}), "unknown event 'no such event'"),
        (lambda st: st.update(phase="hops"), "its events end in phase 'done', its phase field says 'hops'"),
    ]
    for k, (edit, message) in enumerate(cases):
        with pytest.raises(ValueError, match=message):
            load_saved_search(_copy(out, tmp_path / f"case{k}", edit))
    extra = _copy(out, tmp_path / "extra", lambda st: (st.update(new_top_field=1), st["minima"][0].update(new_field=2)))
    assert len(load_saved_search(extra).minima) == len(s.minima)


def test_labels_of_transition_states_are_ts_and_older_t_labels_still_read(saved_search):
    """Every transition state is labelled ts<id> in the state file and the result; t<id> (older output) and the
    bare id find the same record; an unknown label names the known ones."""
    out, res = saved_search
    s = load_saved_search(out)
    state = json.loads((out / STATE_FILE).read_text())
    assert [t["label"] for t in state["transition_states"]] == [f"ts{t['id']}" for t in state["transition_states"]]
    assert all(t["label"].startswith("ts") for t in res.to_dict()["transition_states"])
    t0 = s.transition_states[0]
    assert s.transition_state("ts0") is s.transition_state("t0") is s.transition_state(0) is t0
    with pytest.raises(ValueError, match=r"label='ts99' is not a transition state.*its transition states are ts0"):
        s.transition_state("ts99")
