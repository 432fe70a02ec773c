"""H* on a transition network: union-find sweep vs an independent threshold-component computation (A9)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contrastive_bounds.numerics.landscapes.network.graph import analyse_network, merge_tree
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState


def _minimum(i, e):
    return NetworkMinimum(i, float(e), np.zeros((1, 2)), 1, 0.0, [1.0], 0, True)


def _ts(i, e, a, b, verified=True):
    return TransitionState(i, float(e), np.zeros((1, 2)), 1, 0.0, -1.0, 1, [a, b], verified)


def _threshold_barriers(energies, edges):
    """Independent H*: at each TS level (increasing), connected components of the edges at or below it;
    a minimum's barrier is the first level at which its component holds a strictly lower minimum."""
    out = {}
    levels = sorted({e for e, _, _ in edges})
    for i, ei in enumerate(energies):
        out[i] = math.inf
        for lev in levels:
            g = nx.Graph()
            g.add_nodes_from(range(len(energies)))
            g.add_edges_from((a, b) for e, a, b in edges if e <= lev)
            if any(energies[j] < ei for j in nx.node_connected_component(g, i)):
                out[i] = lev - ei
                break
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_union_find_equals_threshold_components(data):
    """On random networks (distinct energies, TSs above both ends) H* and every barrier equal the
    threshold-component construction, and the bottleneck-Dijkstra cross-check agrees."""
    m = data.draw(st.integers(2, 8))
    energies = data.draw(st.lists(st.integers(-1000, 1000), min_size=m, max_size=m, unique=True))
    energies = [e / 100 for e in energies]
    k = data.draw(st.integers(m - 1, 3 * m))
    edges = []
    for t in range(k):
        a, b = data.draw(st.integers(0, m - 1)), data.draw(st.integers(0, m - 1))
        e = max(energies[a], energies[b]) + data.draw(st.integers(1, 500)) / 100 + t * 1e-6
        edges.append((e, a, b))
    mins = [_minimum(i, e) for i, e in enumerate(energies)]
    tss = [_ts(t, e, a, b) for t, (e, a, b) in enumerate(edges)]
    res = analyse_network(mins, tss)
    expected = _threshold_barriers(energies, edges)
    glob = int(np.argmin(energies))
    assert res.global_minima == [glob]
    for i in range(m):
        if i == glob:
            continue
        if math.isinf(expected[i]):
            assert i in res.unconnected
        else:
            assert res.barriers[i]["barrier"] == pytest.approx(expected[i], abs=1e-12)
    finite = [v for i, v in expected.items() if i != glob and math.isfinite(v)]
    assert res.critical_height == pytest.approx(max(finite, default=0.0), abs=1e-12)
    assert res.cross_check == pytest.approx(res.critical_height, abs=1e-12)
    assert res.complete == (not any(math.isinf(v) for i, v in expected.items() if i != glob))


def test_unverified_ts_are_never_used_and_unconnected_minima_make_h_incomplete():
    """An unverified low saddle does not lower a barrier; a minimum with no path to a lower one is listed
    as unconnected, H* is reported incomplete with a warning; Catoni's D = max barrier/(V − V_min)."""
    mins = [_minimum(0, -2.0), _minimum(1, -1.0), _minimum(2, -0.5)]
    tss = [_ts(0, 0.5, 0, 1), _ts(1, -0.9, 0, 1, verified=False)]
    res = analyse_network(mins, tss)
    assert res.barriers[1]["barrier"] == pytest.approx(1.5) and res.barriers[1]["target"] == 0
    assert res.barriers[1]["ts"] == 0
    assert res.unconnected == [2] and not res.complete and res.warnings
    assert res.critical_height == pytest.approx(1.5)
    assert res.catoni_difficulty == pytest.approx(1.5 / 1.0)


def test_tied_minima_are_not_depths_and_the_merge_tree_joins_everything():
    """Two equal global minima joined by a TS: no barrier counted for either (ties are not depths); a
    third, higher minimum gets its barrier; the merge tree has one root spanning the three leaves."""
    mins = [_minimum(0, -1.0), _minimum(1, -1.0), _minimum(2, 0.0)]
    tss = [_ts(0, 1.0, 0, 1), _ts(1, 0.4, 1, 2)]
    res = analyse_network(mins, tss)
    assert res.global_minima == [0, 1]
    assert res.critical_height == pytest.approx(0.4)
    tree = merge_tree(mins, tss)
    roots = [n for n in tree if n["root"]]
    assert len(roots) == 1 and roots[0]["energy"] == 1.0
    assert sum(n["kind"] == "leaf" for n in tree) == 3
