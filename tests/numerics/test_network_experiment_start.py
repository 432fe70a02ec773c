"""``anneal --search --start trap``: which minimum the trap is (numerics.network_experiment.start_minimum): the
largest barrier, not the lowest energy (tests/cli/test_anneal.py checks the help text and docs say so)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from contrastive_bounds.numerics.network_experiment import start_minimum


class _Saved:
    """A saved search of four minima: m0 global (V = -3); m1 lowest of the others (V = -2.5) behind a barrier 0.1;
    m2 (V = -1) and m3 (V = -0.5) both behind the largest barrier 0.7."""

    labels = ["m0", "m1", "m2", "m3"]

    def analysis(self):
        return SimpleNamespace(global_minima=[0], barriers={1: {"barrier": 0.1}, 3: {"barrier": 0.7},
                                                            2: {"barrier": 0.7}})

    def minimum(self, key):
        index = int(str(key).lstrip("m"))
        if not 0 <= index < 4:
            raise ValueError(key)
        return SimpleNamespace(label=f"m{index}", energy=(-3.0, -2.5, -1.0, -0.5)[index])


def test_the_trap_is_the_largest_barrier_not_the_lowest_energy():
    """The trap is the non-global minimum of largest barrier (m2 and m3 tie at 0.7: the lowest id, m2), not the
    lowest-energy non-global minimum m1; global is m0; a label is itself."""
    saved = _Saved()
    assert start_minimum(saved, "trap").label == "m2"
    assert start_minimum(saved, "global").label == "m0"
    assert start_minimum(saved, "m1").label == "m1"
    assert start_minimum(saved, "uniform") is None
    with pytest.raises(ValueError, match="start='m9'"):
        start_minimum(saved, "m9")

