"""Why basin hopping stopped, in the words a saved search and the command's "stopped" row show (network.search):
one round singular, several "consecutive", the round limit named as the setting, no hopping at all said so."""

from __future__ import annotations

import pytest

from contrastive_bounds.numerics.landscapes.network.search import _hops_ended


@pytest.mark.parametrize("without_new, patience, max_rounds, text", [
    (1, 1, 2, "1 round without a new minimum (patience 1)"),
    (3, 3, 10, "3 consecutive rounds without a new minimum (patience 3)"),
    (0, 4, 2, "the round limit max_hop_rounds = 2 was reached"),
    (1, 4, 2, "the round limit max_hop_rounds = 2 was reached"),
    (0, 1, 0, "no basin hopping (max_hop_rounds = 0)"),
])
def test_the_hopping_phase_says_why_it_ended(without_new, patience, max_rounds, text):
    assert _hops_ended(without_new, patience, max_rounds) == text


def test_a_search_without_hopping_says_so(tmp_path):
    """A search run with max_hop_rounds = 0 records "no basin hopping" as the minima phase's stop, not a round limit
    of 0 "reached"."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    res = landscape_network(infonce_spec(4, 2, 0.1), starts=4, structured_starts=0, max_hop_rounds=0, draw=False,
                            transition_states=False)
    assert res.effort.stopped_by["minima"] == "no basin hopping (max_hop_rounds = 0)"
