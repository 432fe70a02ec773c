"""Transition-state rounds and network closure (docs/theorems.md A9).

With ``closure=True`` (the default) every round

1. follows, from every minimum not yet explored, *every* Hessian mode off the symmetry modes in both
   directions by eigenvector following (a kick of 0.05 along the mode, then :func:`~.saddle.refine_batch`
   uphill along it; inside a degenerate eigenspace, whose basis is arbitrary, also the pairwise sums and
   differences of its eigenvectors), refines, verifies and connects each saddle found (:mod:`.connect`:
   descents on both sides, so a new minimum on the far side enters the catalogue);
2. runs climbing-image bands (:mod:`.neb`) between every pair of minima within ``pair_distance``
   (aligned RMS chord per point; pairs whose spectral lower bound already exceeds it are skipped
   without aligning), each minimum's ``neighbours`` nearest, every pair a basin-hopping move joined,
   and — for a non-global minimum with no path to a lower one — its nearest lower minima;

and the rounds recurse on the minima each round adds. The network is *closed under single-ended
exploration* when a round finds nothing left to do: every minimum has been followed along every mode,
every saddle descended on both sides, every pair within the distance given to the band. The budget
(``max_ts_rounds`` rounds, ``max_minima`` minima, ``max_searches`` single-ended plus band searches) can
end the rounds first; the result then says plainly that closure was not reached and what ran out.

With ``closure=False`` the previous search runs instead: the ``single_ended_modes`` softest modes of
each minimum and bands to its ``neighbours`` nearest, for at most ``max_ts_rounds`` rounds (its result
is never called complete).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from contrastive_bounds.numerics.landscapes.network.connect import refine_and_connect
from contrastive_bounds.numerics.landscapes.network.graph import analyse_network
from contrastive_bounds.numerics.landscapes.network.neb import band_maxima, run_neb
from contrastive_bounds.numerics.landscapes.network.phases import retract_rows
from contrastive_bounds.numerics.landscapes.network.state import SearchState
from contrastive_bounds.numerics.landscapes.network.symmetry import align
from contrastive_bounds.numerics.landscapes.network.verify import classify_batch

__all__ = ["run_transition_states", "aligned_distance", "distance_lower_bound", "EF_KICK"]

#: displacement along a Hessian mode at the start of an eigenvector-following search (radians)
EF_KICK = 0.05
_SEARCHES_PER_BLOCK = 256  # single-ended searches between two saves


def aligned_distance(za: np.ndarray, zb: np.ndarray, symmetry) -> float:
    """RMS chord per point between ``za`` and the element of ``zb``'s orbit nearest to it found by
    :func:`~.symmetry.align` (a heuristic: an upper bound on the true distance of the orbits)."""
    b = align(za, zb, symmetry, restarts=2)
    return float(np.linalg.norm(b - za) / math.sqrt(za.shape[0]))


def distance_lower_bound(za: np.ndarray, zb: np.ndarray, symmetry) -> float:
    """A lower bound on the RMS chord per point between the orbits of ``za`` and ``zb`` under an
    ``O(d)``-invariant symmetry: ``|λ(G_a) − λ(G_b)|_2 / ((|z_a|_2 + |z_b|_2)·sqrt(N))`` with ``λ`` the
    sorted Gram spectra (Hoffman–Wielandt: ``|G_a − P G_b Pᵀ|_F >= |λ_a − λ_b|_2``, and
    ``|G_a − G_b'|_F <= (|z_a|_2 + |z_b'|_2)|z_a − z_b'|_F``). 0 without ``O(d)``."""
    if not symmetry.orthogonal:
        return 0.0
    la, lb = (np.linalg.eigvalsh(z @ z.T) for z in (za, zb))
    norm = math.sqrt(max(la[-1], 0.0)) + math.sqrt(max(lb[-1], 0.0))
    return float(np.linalg.norm(la - lb) / (max(norm, 1e-300) * math.sqrt(za.shape[0])))


def _distance(state: SearchState, i: int, j: int) -> float:
    key = (min(i, j), max(i, j))
    if key not in state.distances:
        mins = state.catalog.minima
        state.distances[key] = aligned_distance(mins[key[0]].z, mins[key[1]].z, state.spec.symmetry)
    return state.distances[key]


def _bound(state: SearchState, i: int, j: int) -> float:
    """:func:`distance_lower_bound` of minima ``i`` and ``j`` from cached Gram spectra."""
    if not state.spec.symmetry.orthogonal:
        return 0.0
    for k in (i, j):
        if k not in state.spectra:
            z = state.catalog.minima[k].z
            state.spectra[k] = np.linalg.eigvalsh(z @ z.T)
    la, lb = state.spectra[i], state.spectra[j]
    norm = math.sqrt(max(la[-1], 0.0)) + math.sqrt(max(lb[-1], 0.0))
    return float(np.linalg.norm(la - lb) / (max(norm, 1e-300) * math.sqrt(state.spec.num_points)))


def _within(state: SearchState, i: int, j: int, limit: float) -> bool:
    key = (min(i, j), max(i, j))
    if key not in state.distances and _bound(state, i, j) > limit:
        return False
    return _distance(state, i, j) <= limit


def _nearest(state: SearchState, i: int, candidates: list[int], count: int) -> list[int]:
    """The ``count`` candidates nearest to minimum ``i`` (aligned distance; the spectral lower bound
    picks which ``count + 3`` to align)."""
    if not candidates or count <= 0:
        return []
    by_bound = sorted(candidates, key=lambda j: _bound(state, i, j))
    return sorted(by_bound[: count + 3], key=lambda j: _distance(state, i, j))[:count]


def _pending_pairs(state: SearchState, within: bool) -> list[tuple[int, int]]:
    s, mins = state.settings, state.catalog.minima
    pairs = set(state.hop_pairs)
    ids = list(range(len(mins)))
    if within and s.pair_distance > 0:
        for i in ids:
            for j in range(i + 1, len(mins)):
                if (i, j) not in state.tried_pairs and _within(state, i, j, s.pair_distance):
                    pairs.add((i, j))
    for i in ids:
        for j in _nearest(state, i, [j for j in ids if j != i], s.neighbours):
            pairs.add((min(i, j), max(i, j)))
    if len(mins) > 1:
        for i in analyse_network(mins, state.catalog.transition_states).unconnected:
            lower = [j for j in ids if mins[j].energy < mins[i].energy]
            for j in _nearest(state, i, lower, max(1, s.neighbours)):
                pairs.add((min(i, j), max(i, j)))
    return sorted(p for p in pairs if p not in state.tried_pairs and p[0] != p[1])


def _budget_left(state: SearchState) -> str:
    """Empty while the budget lasts, else what ran out (in words)."""
    s, e = state.settings, state.effort
    if len(state.catalog.minima) > s.max_minima:
        return f"the budget of {s.max_minima} minima ran out ({len(state.catalog.minima)} found)"
    if e.single_ended + e.neb_runs >= s.max_searches:
        return f"the budget of {s.max_searches} single-ended and band searches ran out"
    return ""


def _explore(state: SearchState, todo: list[int], modes_limit: int | None, elapsed: Callable[[], float]) -> None:
    """Eigenvector following from each minimum of ``todo`` along its modes (all, or the softest
    ``modes_limit``), both signs; saved after each block."""
    s, cat = state.settings, state.catalog
    k = 0
    while k < len(todo):
        if _budget_left(state):
            return
        block, count = [], 0
        while k < len(todo) and (not block or count < _SEARCHES_PER_BLOCK):
            block.append(todo[k])
            k += 1
            count += 2 * max(1, state.spec.num_points * (state.spec.dim - 1))
        cps = classify_batch(state.spec, np.stack([cat.minima[i].z for i in block]), gradient_tol=s.gradient_tol,
                             eigenvalue_tol=s.eigenvalue_tol, chunk=s.chunk)
        z, modes = [], []
        for cp in cps:
            for m in _directions(cp, modes_limit):
                for sgn in (1.0, -1.0):
                    z.append(retract_rows(cp.z, sgn * EF_KICK * m))
                    modes.append(sgn * m)
        state.effort.single_ended += len(z)
        if z:
            refine_and_connect(state, np.stack(z), np.stack(modes), "eigenvector following")
        state.explored.update(block)
        state.report("transition states", state.ts_rounds + 1, s.max_ts_rounds,
                     f"{len(cat.minima)} minima, {len(state.explored)} explored, {state.effort.verified_ts} verified TSs")
        state.save(elapsed())


def _directions(cp, modes_limit: int | None) -> list[np.ndarray]:
    """The directions followed from a minimum: every eigenvector off the symmetry (or the softest
    ``modes_limit``) and, inside each degenerate eigenspace (eigenvalues equal to 1e-6 relative, where
    the eigenvectors are an arbitrary basis), the combinations ``(v_a ± v_b)/√2`` of every pair for a
    space of dimension 2 or 3, of cyclically consecutive pairs ``(a, a + 1 mod k)`` for a larger one
    (2k extra directions, so a highly symmetric minimum does not multiply the searches)."""
    lam, vecs = cp.eigenvalues, cp.modes
    if modes_limit is not None:
        return list(vecs[:modes_limit])
    out = list(vecs)
    k = 0
    while k < len(lam):
        j = k + 1
        while j < len(lam) and abs(lam[j] - lam[k]) <= 1e-6 * max(1.0, abs(lam[k])):
            j += 1
        dim = j - k
        combos = [(a, b) for a in range(k, j) for b in range(a + 1, j)] if dim <= 3 else \
            [(k + r, k + (r + 1) % dim) for r in range(dim)]
        for a, b in combos:
            out += [(vecs[a] + vecs[b]) / math.sqrt(2.0), (vecs[a] - vecs[b]) / math.sqrt(2.0)]
        k = j
    return out


def _bands(state: SearchState, pairs: list[tuple[int, int]], elapsed: Callable[[], float]) -> None:
    s = state.settings
    for lo in range(0, len(pairs), s.chunk):
        if _budget_left(state):
            return
        batch = pairs[lo:lo + s.chunk]
        mins = state.catalog.minima
        za = np.stack([mins[i].z for i, _ in batch])
        zb = np.stack([align(mins[i].z, mins[j].z, state.spec.symmetry, seed=s.seed) for i, j in batch])
        paths, energies, _, _ = run_neb(state.spec, za, zb, chunk=min(s.chunk, 8), images=s.images,
                                        iterations=s.neb_iterations, climb_after=s.neb_iterations // 5)
        state.effort.neb_runs += len(batch)
        cand_z, cand_m = [], []
        for p, e in zip(paths, energies):
            for zc, tc in sorted(band_maxima(p, e), key=lambda c: -state.spec.energy(c[0]))[:3]:
                cand_z.append(zc)
                cand_m.append(tc)
        state.tried_pairs.update(batch)
        state.effort.pairs_tried = sorted(list(p) for p in state.tried_pairs)
        refine_and_connect(state, np.array(cand_z).reshape(-1, *za.shape[1:]),
                           np.array(cand_m).reshape(-1, *za.shape[1:]), "double-ended")
        state.report("transition states", state.ts_rounds + 1, s.max_ts_rounds,
                     f"{len(state.catalog.minima)} minima, {state.effort.verified_ts} verified TSs")
        state.save(elapsed())


def _seeds(state: SearchState, elapsed: Callable[[], float]) -> None:
    seeds, state.saddle_seeds = state.saddle_seeds, []
    for label in sorted({x["found_by"] for x in seeds}):
        group = [x for x in seeds if x["found_by"] == label]
        refine_and_connect(state, np.stack([x["z"] for x in group]), np.stack([x["mode"] for x in group]), label)
    state.save(elapsed())


def _count(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


def _closure_text(state: SearchState) -> str:
    s, e, m = state.settings, state.effort, len(state.catalog.minima)
    within = sum(1 for d in state.distances.values() if d <= s.pair_distance)
    e.pairs_within_distance = within
    return (f"closed under single-ended exploration after {_count(state.ts_rounds, 'round', 'rounds')}: each of the "
            f"{_count(m, 'minimum', 'minima')} followed along every Hessian mode off the symmetry, both signs "
            f"({e.single_ended} eigenvector-following searches; {e.unconverged} of the {e.refinements} refinements "
            f"did not converge and are kept as rejected candidates), every saddle found descended on both sides "
            f"({e.descents} descents), and {_count(e.neb_runs, 'band search', 'band searches')} (every pair of minima "
            f"within aligned distance {s.pair_distance:g}: {_count(within, 'pair', 'pairs')}; nearest neighbours; hop "
            "pairs); nothing was left to explore")


def run_transition_states(state: SearchState, elapsed: Callable[[], float]) -> None:
    """Transition-state rounds: closure (default) or the previous search (module docstring)."""
    s, e = state.settings, state.effort
    if state.saddle_seeds:
        _seeds(state, elapsed)
    while True:
        todo = [m.id for m in state.catalog.minima if m.id not in state.explored]
        if not s.closure and s.single_ended_modes == 0:
            state.explored.update(todo)
            todo = []
        pairs = _pending_pairs(state, within=s.closure)
        if not todo and not pairs:
            why = ""
            break
        if state.ts_rounds >= s.max_ts_rounds:
            why = f"the round limit max_ts_rounds = {s.max_ts_rounds} was reached"
            break
        why = _budget_left(state) if s.closure else ""
        if why:
            break
        _explore(state, todo, None if s.closure else s.single_ended_modes, elapsed)
        _bands(state, pairs, elapsed)
        if state.saddle_seeds:
            _seeds(state, elapsed)
        state.ts_rounds += 1
        e.closure_rounds = state.ts_rounds
        state.save(elapsed())
    unexplored = sum(1 for m in state.catalog.minima if m.id not in state.explored)
    if not s.closure:
        e.closed = False
        e.closure = ("not attempted (closure=False: the previous search, "
                     f"{s.single_ended_modes} softest modes per minimum, {_count(state.ts_rounds, 'round', 'rounds')}"
                     + (f"; stopped: {why}" if why else "; nothing pending") + ")")
        e.stopped_by["transition_states"] = why or "nothing pending (every minimum explored, every pair tried)"
    elif why:
        e.closed = False
        e.closure = (f"not closed: {why} after {_count(state.ts_rounds, 'round', 'rounds')}; {unexplored} of "
                     f"{_count(len(state.catalog.minima), 'minimum', 'minima')} not yet followed along their modes")
        e.stopped_by["transition_states"] = e.closure
    else:
        e.closed = True
        e.closure = _closure_text(state)
        e.stopped_by["transition_states"] = "closed: nothing left to explore"
    state.phase = "done"
    state.save(elapsed())
