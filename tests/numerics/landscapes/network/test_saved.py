"""Reading a saved search (numerics.landscapes.network.saved): what the search wrote comes back (labels m<id>,
energies, coordinates bit for bit, the same H*), and a missing, garbage or other-version state is refused
with a message naming what is wrong. The search is of the quadratic potential on S² (conftest): minima ±e_1
(V = 1, both global), transition states ±e_2 (V = 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network
from contrastive_bounds.numerics.landscapes.network.saved import READABLE_VERSIONS, load_saved_search, minimum_label
from contrastive_bounds.numerics.landscapes.network.store import STATE_FILE, STATE_VERSION


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
        (lambda st: st.update(version=99), r"state version 99; this reader understands version\(s\) \[1, 2\]"),
        (lambda st: st.pop("landscape"), "no landscape fingerprint"),
        (lambda st: st["minima"][0].update(z=[[2.0, 0.0, 0.0]]), "minimum 0 has coordinates"),
        (lambda st: st["minima"][0].update(energy="low"), "energy='low'"),
        (lambda st: st["transition_states"][0].update(minima=[0, 7]), "joins \\[0, 7\\], not minima"),
        (lambda st: st.update(minima=[]), "holds no minimum"),
    ]
    for k, (edit, message) in enumerate(cases):
        with pytest.raises(ValueError, match=message):
            load_saved_search(_copy(out, tmp_path / f"case{k}", edit))
    extra = _copy(out, tmp_path / "extra", lambda st: (st.update(new_top_field=1), st["minima"][0].update(new_field=2)))
    assert len(load_saved_search(extra).minima) == len(s.minima)


def test_both_state_versions_read_with_the_fields_the_reader_needs(saved_search, tmp_path):
    """Version 2 (what the search writes now: a "structured" phase, found_by, labels, distances, descents) and
    version 1 (the same records without the version-2 fields, phases without "structured") both read to the
    same minima and H*; an interrupted version-2 search in its structured-start phase reads as unfinished."""
    out, res = saved_search
    assert STATE_VERSION == 2 and json.loads((out / STATE_FILE).read_text())["version"] == 2
    v2 = load_saved_search(out)

    def to_v1(st):
        st["version"] = 1
        for key in ("distances", "descents", "structured_done"):
            st.pop(key, None)
        for m in st["minima"]:
            for key in ("found_by", "label"):
                m.pop(key, None)

    v1 = load_saved_search(_copy(out, tmp_path / "v1", to_v1))
    assert v1.version == 1 and [m.energy for m in v1.minima] == [m.energy for m in v2.minima]
    assert v1.analysis().critical_height == v2.analysis().critical_height == res.critical_height
    mid = load_saved_search(_copy(out, tmp_path / "mid", lambda st: st.update(phase="structured")))
    assert mid.phase == "structured" and not mid.finished
