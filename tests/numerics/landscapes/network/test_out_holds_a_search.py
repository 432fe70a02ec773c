"""``landscape_network(out=...)`` never silently replaces or reuses a search saved in ``out``: without ``resume`` it
is refused with a ValueError naming ``out`` and ``resume`` (as the command's ``--out`` without ``--resume``), before
any work; the saved file is left as it was."""

from __future__ import annotations

import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network
from contrastive_bounds.numerics.landscapes.network.serial import STATE_FILE, save_store
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore


def test_an_out_holding_a_search_needs_resume(tmp_path, quadratic_spec):
    """A state file in ``out`` and no ``resume``: ValueError naming out= and resume=True; the file is untouched."""
    save_store(tmp_path / STATE_FILE, NetworkStore(quadratic_spec.to_dict(), SearchSettings(starts=4), curvature="dense"))
    before = (tmp_path / STATE_FILE).read_bytes()
    with pytest.raises(ValueError, match=r"out='.*' already holds a saved search .*resume=True"):
        landscape_network(quadratic_spec, out=tmp_path, starts=4, draw=False,
                          progress=lambda *a: pytest.fail("the search started"))
    assert (tmp_path / STATE_FILE).read_bytes() == before


@pytest.mark.parametrize("out", ["", "   "])
def test_an_empty_out_is_refused_before_any_work(out, tmp_path, monkeypatch, quadratic_spec):
    """``out=''`` (or blank) would save into the working folder: ValueError naming out, nothing written."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"out='\s*' is empty"):
        landscape_network(quadratic_spec, out=out, starts=4, draw=False,
                          progress=lambda *a: pytest.fail("the search started"))
    assert list(tmp_path.iterdir()) == []


def test_an_out_with_a_missing_parent_is_refused_as_on_the_command_line(tmp_path, quadratic_spec):
    """Only the last folder of ``out`` is created (as ``--out``): a missing parent is a ValueError naming out and
    the parent, and nothing is created."""
    with pytest.raises(ValueError, match=r"out='.*b': its parent folder '.*a' does not exist"):
        landscape_network(quadratic_spec, out=tmp_path / "missing" / "a" / "b", starts=4, draw=False,
                          progress=lambda *a: pytest.fail("the search started"))
    assert not (tmp_path / "missing").exists()
