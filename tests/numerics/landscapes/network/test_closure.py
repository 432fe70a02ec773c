"""Default searches reach closure and find the traps random starts miss; budgets that run out are said.

Independent reference: the trap and its escape saddle of N = 6, d = 3, τ = 0.1 are re-verified with a numpy
InfoNCE loss and a finite-difference Riemannian Hessian in exponential-map coordinates (no JAX, no code of
the search).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network
from contrastive_bounds.numerics.landscapes.network.records import FOUND_BY
from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent


def _loss(z, tau, pairs):
    s = z @ z.T / tau
    total = 0.0
    for i, j in pairs:
        for a, p in ((i, j), (j, i)):
            row = np.array([s[a, k] for k in range(len(z)) if k not in (a, p)])
            total += -s[a, p] + row.max() + math.log(np.sum(np.exp(row - row.max())))
    return total / (2 * len(pairs))


def _fd_gradient_and_spectrum(f, z, h=1e-4):
    """Gradient and Hessian eigenvalues of ``f`` at ``z`` in exponential-map coordinates (central differences)."""
    n, d = z.shape
    basis = [np.linalg.qr(np.column_stack([x, np.eye(d)]))[0][:, 1:] for x in z]

    def at(u):
        u = u.reshape(n, d - 1)
        out = np.empty_like(z)
        for i in range(n):
            v = basis[i] @ u[i]
            t = np.linalg.norm(v)
            out[i] = z[i] * math.cos(t) + (v * math.sin(t) / t if t > 0 else 0.0)
        return f(out)

    m = n * (d - 1)
    e = np.eye(m) * h
    grad = np.array([(at(e[a]) - at(-e[a])) / (2 * h) for a in range(m)])
    hess = np.array([[(at(e[a] + e[b]) - at(e[a] - e[b]) - at(e[b] - e[a]) + at(-e[a] - e[b])) / (4 * h * h)
                      for b in range(m)] for a in range(m)])
    return grad, np.linalg.eigvalsh(0.5 * (hess + hess.T))


@pytest.mark.slow
def test_six_points_on_s2_find_the_split_pair_trap_with_the_defaults(default_search):
    """N = 6, d = 3, τ = 0.1 with default settings: the trap with all three pairs split antipodally along three
    orthogonal axes (V = 1/τ + ln 4) is found, the network is closed and complete, and H* > 0 is the trap's
    barrier. Numpy recomputation: the trap has gradient ~0 and a positive Hessian off the 3 rotation modes;
    the escape saddle has gradient ~0 and exactly one negative eigenvalue; H* = V(saddle) − V(trap)."""
    tau, pairs = 0.1, [(0, 1), (2, 3), (4, 5)]
    res = default_search(6, 3, tau, 0)
    assert res.status == "complete" and res.closed and res.complete
    assert res.closure.startswith("closed under single-ended exploration")
    e = np.eye(3)
    split = np.array([e[0], -e[0], e[1], -e[1], e[2], -e[2]])
    (trap,) = [m for m in res.minima if equivalent(m.z, split, res_spec_symmetry(res))]
    assert trap.energy == pytest.approx(1 / tau + math.log(4), abs=1e-10)
    info = res.analysis.barriers[trap.id]
    assert res.critical_height == info["barrier"] > 0.05
    f = lambda z: _loss(z, tau, pairs)  # noqa: E731
    g, lam = _fd_gradient_and_spectrum(f, trap.z)
    assert np.max(np.abs(g)) < 1e-6 and np.sum(np.abs(lam) < 1e-3) == 3 and np.sum(lam < -1e-3) == 0
    (ts,) = [t for t in res.transition_states if t.id == info["ts"]]
    g, lam = _fd_gradient_and_spectrum(f, ts.z)
    assert np.max(np.abs(g)) < 1e-6 and np.sum(lam < -1e-3) == 1
    assert f(ts.z) - f(trap.z) == pytest.approx(res.critical_height, abs=1e-9)
    assert {m.found_by for m in res.minima} <= set(FOUND_BY) and {t.found_by for t in res.transition_states} <= set(FOUND_BY)


def res_spec_symmetry(res):
    from contrastive_bounds.numerics.landscapes.network import Symmetry

    return Symmetry.infonce([tuple(p) for p in res.landscape["params"]["pairs"]])


def _classes(res):
    return [(round(m.energy, 8), m.multiplicity) for m in sorted(res.minima, key=lambda m: m.energy)]


@pytest.mark.parametrize("n, d, tau", [(4, 2, 0.1), (6, 2, 0.1), (6, 3, 0.1)])
@pytest.mark.slow
def test_two_seeds_give_the_same_minima_classes_and_critical_height(n, d, tau, default_search):
    """Small rows of the docs table: seeds 0 and 1 (default settings) give the same minima (energies to 1e-8,
    multiplicities, configurations equivalent under the symmetry), the same H* to 1e-9, both closed."""
    spec = infonce_spec(n, d, tau)
    a, b = (default_search(n, d, tau, s) for s in (0, 1))
    assert a.closed and b.closed and a.status == b.status
    assert _classes(a) == _classes(b)
    for ma, mb in zip(sorted(a.minima, key=lambda m: m.energy), sorted(b.minima, key=lambda m: m.energy)):
        assert equivalent(ma.z, mb.z, spec.symmetry)
    assert a.critical_height == pytest.approx(b.critical_height, abs=1e-9)


def test_a_budget_that_runs_out_is_said_and_never_called_complete():
    """max_minima = 1 on a landscape with two minima: 'open: closure not reached (the budget of 1 minima ran
    out ...)'; closure=False: 'open: closure not attempted'. Neither says complete or barrier-free."""
    spec = infonce_spec(4, 2, 0.1)
    small = landscape_network(spec, max_minima=1, structured_starts=20)
    assert small.status.startswith("open: closure not reached") and "budget of 1 minima ran out" in small.status
    assert not small.closed and small.closure.startswith("not closed")
    old = landscape_network(spec, closure=False, structured_starts=0)
    assert old.status.startswith("open: closure not attempted") and old.closure.startswith("not attempted")
    for res in (small, old):
        assert "complete" not in res.status.replace("incomplete", "") and "barrier-free" not in res.status
        assert not res.complete and res.to_dict()["critical_height_complete"] is False


def test_a_lone_unverified_minimum_is_open_never_barrier_free():
    """At tau = 1e300 InfoNCE is numerically flat (infonce_spec refuses such a tau; the potential is given as a
    user potential here): the one minimum the search keeps is degenerate (zero modes beyond the symmetry), so
    nothing is known of barriers and the status must say open, not barrier-free."""
    from contrastive_bounds.numerics.landscapes._infonce import infonce_potential
    from contrastive_bounds.numerics.landscapes.network import Symmetry, user_spec

    pairs = [(0, 1), (2, 3)]
    flat = user_spec(infonce_potential(4, pairs, 1e300), 4, 2, symmetry=Symmetry.infonce(pairs), name="flat-infonce")
    res = landscape_network(flat, starts=16, structured_starts=0, max_hop_rounds=0, draw=False)
    assert len(res.minima) == 1 and not res.minima[0].verified
    assert res.status.startswith("open: the only minimum found is not verified"), res.status


def test_per_trap_closure_reads_how_the_searches_ended():
    """The per-trap rule on Followed events alone (no search run): every mode followed plainly is closed even where
    directions stalled or no saddle joined (single-ended closure counts attempts; the outcomes are stated in the
    text); a minimum followed modulo its stabiliser is a sample, never closed, and keeps the network open; a log
    without outcomes (before state version 6) is judged by its modes; fewer modes than off the symmetry is partial."""
    from contrastive_bounds.numerics.landscapes.network.closure import partial_traps, per_trap_text, sampled_traps, \
        trap_closed
    from contrastive_bounds.numerics.landscapes.network.events import Followed
    from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
    from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

    store = NetworkStore({}, SearchSettings())
    store.log(Followed(0, 18, 9, 9, 0, "", 10, 10, 4), Followed(1, 18, 9, 9, 0, "", 0, 0, 9),
              Followed(2, 6, 9, 9, 1, "8 automorphisms", 5, 4, 1), Followed(3, 18, 9, 9),
              Followed(4, 8, 4, 9, 0, "", 8, 8, 0), Followed(5, 6, 3, 3, 0, "", 6, 6, 0, 10),
              Followed(6, 36, 9, 9, 0, "", 20, 20, 5))
    assert [trap_closed(store, i) for i in range(7)] == [True, True, False, True, False, False, True]
    assert partial_traps(store) == [4, 5] and sampled_traps(store) == [2]
    text = per_trap_text(store)
    assert "m0 along all 9 modes, both signs (18 searches: 10 ended at a verified saddle, 10 joined to m0, 4 of 9 " \
           "directions with none; per-trap closed)" in text
    assert "m1 along all 9 modes, both signs (18 searches: 0 ended at a verified saddle, 0 joined to m1, 9 of 9 " \
           "directions with none; per-trap closed)" in text
    assert "m2 along directions whose stabiliser images span its 9 modes, both signs (6 searches: 5 ended at a " \
           "verified saddle, 4 joined to m2, 1 of 3 directions with none; sampled modulo symmetry, not per-trap " \
           "closed (8 automorphisms))" in text
    assert "m3 along all 9 modes, both signs (18 searches; per-trap closed)" in text
    assert "m4 along its 4 softest of 9 modes, both signs (8 searches: 8 ended at a verified saddle, 8 joined to m4; " \
           "per-trap closure partial)" in text
    assert "m5 along all 3 modes, both signs, but not their combinations inside degenerate eigenspaces (6 searches: 6 " \
           "ended at a verified saddle, 6 joined to m5; its directions call for 10: max_searches ran out; " \
           "per-trap closure partial)" in text
    assert "m6 along all 9 modes, both signs (36 searches along 18 directions (the 9 modes and 9 pair combinations " \
           "inside their degenerate eigenspaces): 20 ended at a verified saddle, 20 joined to m6, 5 of 18 directions " \
           "with none; per-trap closed)" in text


@pytest.mark.slow
def test_max_searches_caps_the_eigenvector_following_it_starts():
    """max_searches = 6 on N = 4, d = 2 (3 modes off the symmetry per minimum, 6 searches each): at most 6
    single-ended searches run, the status says the budget ran out, and no minimum is claimed per-trap closed beyond
    what ran (the outcomes of the searches that ran add up to them); the trap found but not connected leaves H*
    not computed (JSON null with the reason)."""
    res = landscape_network(infonce_spec(4, 2, 0.1), max_searches=4, structured_starts=0, draw=False)
    assert res.effort.single_ended <= 4 and res.effort.single_ended + res.effort.neb_runs <= 4
    assert res.status.startswith("open: closure not reached") and "budget of 4 single-ended" in res.status
    rows = res.exploration["explored"]
    assert sum(r["searches"] for r in rows) == res.effort.single_ended
    assert all(not r["per_trap_closed"] and r["modes"] < r["of"] for r in rows)
    assert all(0 <= r["joined"] <= r["ended_at_verified_saddle"] <= r["searches"] for r in rows)
    # the trap m1 is found but not connected: H* over no connected minimum is not computed, so null, never 0
    out = res.to_dict()
    assert res.analysis.unconnected == [1] and out["critical_height"] is None and res.critical_height == 0.0
    assert out["critical_height_note"] == "not computed: the non-global minimum found has no verified path to a lower one"


@pytest.mark.slow
def test_the_recorded_search_outcomes_replay_from_the_refinement_kernel(default_search):
    """Replay of the following step against its kernel, N = 6, d = 3, τ = 0.1: each explored minimum's starts
    ``z ± MODE_KICK·v`` are refined again by the dense provider's refinement and classified; the starts that
    converge to an index-1 saddle equivalent to one of the network's verified transition states bracket the row's
    ``ended_at_verified_saddle`` from below (the step also kicks index-2 end points once more, which the replay does
    not: those bracket it from above), and ``joined`` counts the matched saddles that join the minimum."""
    from contrastive_bounds.numerics._sphere import retract
    from contrastive_bounds.numerics.landscapes.network.constants import MODE_KICK, REFINE_MAX_ITERATIONS
    from contrastive_bounds.numerics.landscapes.network.curvature import DENSE
    from contrastive_bounds.numerics.landscapes.network.following import directions
    from contrastive_bounds.numerics.landscapes.network.minima import classify_with
    from contrastive_bounds.numerics.landscapes.network.state import SearchSettings

    res = default_search(6, 3, 0.1, 0)
    spec, settings = infonce_spec(6, 3, 0.1), SearchSettings(**res.settings)
    for row in res.exploration["explored"]:
        m = res.minima[row["minimum"]]
        cp = classify_with(DENSE, spec, settings, m.z[None], None)[0]
        dirs = np.stack([s * v for v in directions(cp) for s in (1.0, -1.0)])
        assert len(dirs) == row["searches"]
        z = retract(np.broadcast_to(m.z, dirs.shape), MODE_KICK * dirs)
        out = classify_with(DENSE, spec, settings, DENSE.refine(spec, z, dirs, index=1, chunk=settings.chunk,
                                                                max_iter=REFINE_MAX_ITERATIONS), 1)
        matched, high = [], 0
        for c in out:
            if not c.gradient_norm <= settings.gradient_tol:
                continue
            high += c.index >= 2
            hit = [t for t in res.transition_states if c.index == 1 and abs(t.energy - c.energy) <= 1e-9 *
                   max(1.0, abs(t.energy)) and equivalent(t.z, c.z, spec.symmetry, tol=settings.gram_tol)]
            matched += hit[:1]
        assert len(matched) <= row["ended_at_verified_saddle"] <= len(matched) + high
        assert sum(m.id in t.minima for t in matched) <= row["joined"] <= sum(m.id in t.minima for t in matched) + high


def test_trap_modes_that_cut_no_mode_follow_the_pairs_as_every_mode_does():
    """``trap_modes`` >= a minimum's modes is per-trap closure only with the same searches as ``trap_modes = 0``: every
    mode and the pairs inside its degenerate eigenspaces, both signs (N = 4, d = 2, τ = 0.1: 3 modes, 10 searches a
    minimum); fewer modes than that is partial, and the network is then not complete."""
    from contrastive_bounds.numerics.landscapes.network import SearchSettings

    spec = infonce_spec(4, 2, 0.1)
    every, eight, one = (landscape_network(spec, SearchSettings(trap_modes=k), draw=False) for k in (0, 8, 1))
    rows = lambda r: [(x["minimum"], x["modes"], x["of"], x["searches"], x["per_trap_closed"])  # noqa: E731
                      for x in r.exploration["explored"]]
    assert rows(every) == rows(eight) and all(x[3] == 10 and x[4] for x in rows(every))
    assert eight.status == every.status and every.status.startswith("complete")
    assert all(x[1] == 1 and x[3] == 2 and not x[4] for x in rows(one)) and not one.status.startswith("complete")
