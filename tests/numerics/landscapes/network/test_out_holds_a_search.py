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
