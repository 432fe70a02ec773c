"""The main job reaches the network search: the self-test's faults of the search and of the network Eyring-Kramers
prefactor (a closure that follows one sign only, index-2 saddles accepted as transition states, an inverted
saddle-copy count) each turn the quick profile's network check red, by a deterministic condition (so Holm cannot
excuse it and `contrastive-bounds check` exits 1), with the condition that names the mistake."""

from __future__ import annotations

import pytest

from contrastive_bounds.properties.selftest import run_self_test, select_faults

#: fault -> what the red check's summary must say first (the condition that failed)
EXPECTED = {
    "network.closure_one_sign": ("EXACT FAILED", "eigenvector-following searches"),
    "network.index_two_saddles": ("INDEPENDENT FAILED", "index 2 by the finite-difference Hessian"),
    "network.saddle_copies_inverted": ("INDEPENDENT FAILED", "copies per trap configuration, the recount gives 6"),
}


def test_the_network_faults_are_declared_with_the_network_check_as_witness():
    faults = select_faults("network.*")
    assert sorted(f.id for f in faults) == sorted(EXPECTED)
    assert all(f.kind == "landscape" and f.witnesses == ("A9.s2_trap_network",) for f in faults)


@pytest.mark.slow
def test_each_network_fault_turns_the_quick_network_check_red():
    """Baseline green, then each fault under the hook (caches cleared, the landscape searched again): the check is
    violated by a failed deterministic condition, and the self-test exits 0 (every fault caught by its witness).
    About 1 to 2 minutes on 2 cores (four searches of N = 6 on S²)."""
    res = run_self_test(select_faults("network.*"))
    assert res.baseline_ok and [r.verdict for r in res.baseline] == ["holds"]
    for f in res.faults:
        (run,) = f.runs
        first, words = EXPECTED[f.id]
        assert run.caught and run.deterministic and run.verdict == "violated", (f.id, run.summary)
        assert run.summary.startswith(first) and words in run.summary, (f.id, run.summary[:400])
    assert res.exit_code == 0 and not res.missed
