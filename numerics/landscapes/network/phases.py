"""The work of a search: random starts, basin hopping, transition-state rounds (A9).

Each function advances a :class:`~.state.SearchState` by whole batches and saves it after each
(so Ctrl-C loses at most the batch in flight). All heavy work is in the jitted, vmapped kernels of
:mod:`.optimize` (L-BFGS), :mod:`.saddle` (refinement) and :mod:`.neb` (bands); the Python loops
here run over batches and rounds only.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from contrastive_bounds.numerics.landscapes.network.graph import analyse_network
from contrastive_bounds.numerics.landscapes.network.neb import band_maxima, run_neb
from contrastive_bounds.numerics.landscapes.network.optimize import NON_FINITE, minimize_batch
from contrastive_bounds.numerics.landscapes.network.saddle import refine_batch
from contrastive_bounds.numerics.landscapes.network.verify import CriticalPoint, classify_batch, newton_polish
from contrastive_bounds.numerics.landscapes.network.state import SearchState
from contrastive_bounds.numerics.landscapes.network.symmetry import align, equivalent

__all__ = ["run_starts", "run_hops", "run_transition_states", "absorb_minimisations", "uniform_starts", "clock"]

_DESCENT_STEP = 0.02  # displacement along ± the negative eigenvector before descending from a TS
_EF_KICK = 0.05  # initial displacement along a soft mode for single-ended searches
_KICK_OFF_SADDLE = 0.05  # displacement along the lowest mode when a minimisation ended on a saddle


def uniform_starts(rng: np.random.Generator, count: int, n: int, d: int) -> np.ndarray:
    """``count`` independent uniform points of ``(S^{d−1})^n`` (normalised Gaussians), float64."""
    g = rng.normal(size=(count, n, d))
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def _retract(z: np.ndarray, v: np.ndarray) -> np.ndarray:
    w = z + v
    return w / np.linalg.norm(w, axis=-1, keepdims=True)


def _tangent_noise(rng: np.random.Generator, z: np.ndarray, scale: float) -> np.ndarray:
    d = z.shape[-1]
    xi = rng.normal(size=z.shape) * scale / math.sqrt(max(d - 1, 1))
    return xi - np.sum(xi * z, axis=-1, keepdims=True) * z


def _classify(state: SearchState, z: np.ndarray, expect: int) -> list[CriticalPoint]:
    s = state.settings
    return classify_batch(state.spec, z, gradient_tol=s.gradient_tol, eigenvalue_tol=s.eigenvalue_tol, expect=expect,
                          chunk=s.chunk)


def absorb_minimisations(state: SearchState, z: np.ndarray, energy: np.ndarray, status: np.ndarray,
                         found_by: str, retries: int = 2) -> list[int | None]:
    """Identify minimiser outputs with known minima, refine and add the new ones.

    An output that polishes to a saddle (a minimisation that stalled in a flat region) is pushed off
    along its lowest Hessian mode and minimised again, up to ``retries`` times; index-1 saddles met on
    the way become seeds of transition-state refinement.

    Returns the minimum id of each output (None: non-finite, or still on a saddle after the retries).
    """
    cat = state.catalog
    ids: list[int | None] = [None] * len(z)
    todo = []
    for k in range(len(z)):
        if status[k] == NON_FINITE or not math.isfinite(float(energy[k])):
            state.effort.non_finite += 1
            continue
        known = cat.match_minimum(z[k], float(energy[k]), loose=True)
        if known is not None:
            cat.minima[known].hits += 1
            ids[k] = known
        else:
            todo.append(k)
    if todo:
        zr = newton_polish(state.spec, z[todo], chunk=state.settings.chunk)
        stuck = []
        for k, cp in zip(todo, _classify(state, zr, 0)):
            if cp.index == 0 and cp.gradient_norm <= state.settings.gradient_tol:
                ids[k], _ = cat.add_minimum(cp, found_by)
            else:
                state.effort.saddle_stops += 1
                if cp.index == 1 and cp.gradient_norm <= state.settings.gradient_tol:
                    state.saddle_seeds.append({"z": cp.z, "mode": cp.mode})
                if cp.index >= 1:
                    stuck.append((k, cp))
        if stuck and retries > 0:
            kicked = np.stack([_retract(cp.z, _KICK_OFF_SADDLE * cp.mode) for _, cp in stuck])
            res = minimize_batch(state.spec, kicked, chunk=state.settings.chunk)
            state.effort.minimisations += len(kicked)
            again = absorb_minimisations(state, res.z, res.energy, res.status, found_by, retries - 1)
            for (k, _), mid in zip(stuck, again):
                ids[k] = mid
    return ids


def run_starts(state: SearchState, elapsed: Callable[[], float]) -> None:
    """Minimise the remaining random starts in chunks (saved after each)."""
    s, spec = state.settings, state.spec
    while state.starts_done < s.starts:
        k = state.starts_done // s.chunk
        count = min(s.chunk, s.starts - state.starts_done)
        z0 = uniform_starts(np.random.default_rng([s.seed, 0, k]), count, spec.num_points, spec.dim)
        res = minimize_batch(spec, z0, chunk=s.chunk)
        absorb_minimisations(state, res.z, res.energy, res.status, "start")
        state.effort.starts += count
        state.effort.minimisations += count
        state.starts_done += count
        state.report("starts", state.starts_done, s.starts, f"{len(state.catalog.minima)} minima")
        state.save(elapsed())
    if not state.walkers and state.catalog.minima:
        order = np.argsort(state.catalog.energies(), kind="stable")
        for w in range(s.hop_batch):
            m = state.catalog.minima[int(order[w % len(order)])]
            state.walkers.append({"z": m.z.copy(), "energy": m.energy, "minimum": m.id})
    state.phase = "hops"
    state.save(elapsed())


def run_hops(state: SearchState, elapsed: Callable[[], float]) -> None:
    """Basin hopping until ``patience`` rounds in a row find nothing new (or ``max_hop_rounds``)."""
    s, spec = state.settings, state.spec
    while state.effort.hop_rounds < s.max_hop_rounds and state.effort.rounds_without_new < s.patience and state.walkers:
        rng = np.random.default_rng([s.seed, 1, state.effort.hop_rounds])
        z = np.stack([w["z"] for w in state.walkers])
        # kick sizes spread over walkers (0.5, 1, 2, 4 × hop_step/2): small kicks explore the neighbourhood,
        # large ones reach distant funnels
        scale = s.hop_step * 2.0 ** (np.arange(len(z)) % 4 - 1.0)
        z0 = _retract(z, _tangent_noise(rng, z, 1.0) * scale[:, None, None])
        before = len(state.catalog.minima)
        res = minimize_batch(spec, z0, chunk=s.chunk)
        ids = absorb_minimisations(state, res.z, res.energy, res.status, "hop")
        for w, mid in zip(state.walkers, ids):
            if mid is None:
                continue
            if mid != w["minimum"]:
                state.hop_pairs.add((min(mid, w["minimum"]), max(mid, w["minimum"])))
            e_new = state.catalog.minima[mid].energy
            if e_new <= w["energy"] or rng.random() < math.exp(-(e_new - w["energy"]) / s.hop_temperature):
                w.update(z=state.catalog.minima[mid].z.copy(), energy=e_new, minimum=mid)
        state.effort.hop_rounds += 1
        state.effort.hops += len(z0)
        state.effort.minimisations += len(z0)
        found = len(state.catalog.minima) > before
        state.effort.rounds_without_new = 0 if found else state.effort.rounds_without_new + 1
        state.report("hops", state.effort.hop_rounds, s.max_hop_rounds, f"{len(state.catalog.minima)} minima")
        state.save(elapsed())
    state.effort.stopped_by["minima"] = (
        f"{state.effort.rounds_without_new} consecutive rounds without a new minimum (patience {s.patience})"
        if state.effort.rounds_without_new >= s.patience else f"round limit {s.max_hop_rounds} reached")
    state.phase = "ts"
    state.save(elapsed())


# ----------------------------------------------------------------------------- transition states
def _connect(state: SearchState, cps: list[CriticalPoint], found_by: str) -> None:
    """Descend from each index-1 candidate along ± its negative mode; record it (verified or not)."""
    cat = state.catalog
    fresh = []
    for cp in cps:
        if cat.match_ts(cp.z, cp.energy) is not None:
            state.effort.duplicate_ts += 1
        else:
            fresh.append(cp)
    uniq: list[CriticalPoint] = []
    for cp in fresh:  # duplicates within the batch
        if not any(abs(u.energy - cp.energy) <= 1e-8 * max(1.0, abs(cp.energy)) and
                   _equiv(state, u.z, cp.z) for u in uniq):
            uniq.append(cp)
        else:
            state.effort.duplicate_ts += 1
    good = [cp for cp in uniq if cp.verified]
    for cp in uniq:
        if not cp.verified:
            cat.add_ts(cp, [], False, cp.reason, found_by)
            state.effort.unverified_ts += 1
    if not good:
        return
    starts = np.concatenate([np.stack([_retract(cp.z, sgn * _DESCENT_STEP * cp.mode) for cp in good]) for sgn in (1, -1)])
    res = minimize_batch(state.spec, starts, chunk=state.settings.chunk)
    state.effort.minimisations += len(starts)
    ids = absorb_minimisations(state, res.z, res.energy, res.status, "descent")
    for k, cp in enumerate(good):
        a, b = ids[k], ids[k + len(good)]
        if a is None or b is None:
            cat.add_ts(cp, [], False, "a descent along ± the negative eigenvector did not end at a minimum", found_by)
            state.effort.unverified_ts += 1
            continue
        ea, eb = cat.minima[a].energy, cat.minima[b].energy
        if max(ea, eb) >= cp.energy:
            cat.add_ts(cp, [a, b], False, "a descent ended at a minimum not below the saddle", found_by)
            state.effort.unverified_ts += 1
            continue
        cat.add_ts(cp, sorted([a, b]), True, "", found_by)
        state.effort.verified_ts += 1


def _equiv(state: SearchState, a: np.ndarray, b: np.ndarray) -> bool:
    return equivalent(a, b, state.spec.symmetry, tol=state.settings.gram_tol)


def _refine_and_connect(state: SearchState, z: np.ndarray, modes: np.ndarray, found_by: str) -> None:
    """Refine candidates to index-1 saddles and connect them; a candidate that converged to a saddle of
    higher index is kicked once along its second-lowest mode and refined again (following its lowest)."""
    if len(z) == 0:
        return
    zr, *_ = refine_batch(state.spec, z, modes, index=1, chunk=state.settings.chunk, max_iter=300)
    state.effort.refinements += len(z)
    cps = _classify(state, zr, 1)
    high = [cp for cp in cps if cp.index >= 2 and cp.gradient_norm <= state.settings.gradient_tol and len(cp.modes) > 1]
    if high:
        zk = np.stack([_retract(cp.z, _EF_KICK * cp.modes[1]) for cp in high])
        zr2, *_ = refine_batch(state.spec, zk, np.stack([cp.modes[0] for cp in high]), index=1,
                               chunk=state.settings.chunk, max_iter=300)
        state.effort.refinements += len(high)
        retried = {id(cp): new for cp, new in zip(high, _classify(state, zr2, 1))}
        cps = [retried.get(id(cp), cp) if retried.get(id(cp), cp).index == 1 else cp for cp in cps]
    _connect(state, cps, found_by)


def _single_ended(state: SearchState, elapsed: Callable[[], float]) -> None:
    s = state.settings
    todo = [m for m in state.catalog.minima if m.id not in state.explored]
    if not todo or s.single_ended_modes == 0:
        state.explored.update(m.id for m in todo)
        return
    cps = _classify(state, np.stack([m.z for m in todo]), 0)
    z, modes = [], []
    for cp in cps:
        lam_count = min(s.single_ended_modes, len(cp.modes))
        for k in range(lam_count):
            mode = _mode_vector(state, cp, k)
            for sgn in (1.0, -1.0):
                z.append(_retract(cp.z, sgn * _EF_KICK * mode))
                modes.append(sgn * mode)
    state.effort.single_ended += len(z)
    if z:
        _refine_and_connect(state, np.stack(z), np.stack(modes), "single-ended")
    state.explored.update(m.id for m in todo)
    state.save(elapsed())


def _mode_vector(state: SearchState, cp: CriticalPoint, k: int) -> np.ndarray:
    """The ``k``-th softest Hessian mode off the symmetry directions, ambient ``(N, d)``, unit norm."""
    return cp.modes[k]


def _pairs_to_try(state: SearchState) -> list[tuple[int, int]]:
    s, cat = state.settings, state.catalog
    mins = cat.minima
    pairs = set(state.hop_pairs)
    if s.neighbours and len(mins) > 1:
        dist = _aligned_distances(state)
        for i in range(len(mins)):
            for j in np.argsort(dist[i], kind="stable")[1:s.neighbours + 1]:
                pairs.add((min(i, int(j)), max(i, int(j))))
        if len(mins) > 1:  # minima not yet connected to a lower one: pair with the nearest lower minima
            analysis = analyse_network(mins, cat.transition_states)
            for i in analysis.unconnected:
                lower = [j for j in np.argsort(dist[i], kind="stable") if mins[int(j)].energy < mins[i].energy]
                for j in lower[: max(1, s.neighbours)]:
                    pairs.add((min(i, int(j)), max(i, int(j))))
    return sorted(p for p in pairs if p not in state.tried_pairs and p[0] != p[1])


def _aligned_distances(state: SearchState) -> np.ndarray:
    mins = state.catalog.minima
    m = len(mins)
    dist = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            b = align(mins[i].z, mins[j].z, state.spec.symmetry, restarts=2)
            dist[i, j] = dist[j, i] = float(np.linalg.norm(b - mins[i].z))
    return dist


def run_transition_states(state: SearchState, elapsed: Callable[[], float]) -> None:
    """Rounds of single-ended searches, bands between pairs and refinement, until nothing is pending."""
    s = state.settings
    if state.saddle_seeds:
        seeds, state.saddle_seeds = state.saddle_seeds, []
        _refine_and_connect(state, np.stack([x["z"] for x in seeds]), np.stack([x["mode"] for x in seeds]), "start")
        state.save(elapsed())
    while state.ts_rounds < s.max_ts_rounds:
        _single_ended(state, elapsed)
        pairs = _pairs_to_try(state)
        if not pairs and all(m.id in state.explored for m in state.catalog.minima):
            state.effort.stopped_by["transition_states"] = "nothing pending (every minimum explored, every pair tried)"
            break
        for lo in range(0, len(pairs), s.chunk):
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
            _refine_and_connect(state, np.array(cand_z).reshape(-1, *za.shape[1:]),
                                np.array(cand_m).reshape(-1, *za.shape[1:]), "neb")
            state.report("transition states", state.ts_rounds + 1, s.max_ts_rounds,
                         f"{len(state.catalog.minima)} minima, {state.effort.verified_ts} verified TSs")
            state.save(elapsed())
        state.ts_rounds += 1
        state.save(elapsed())
    else:
        state.effort.stopped_by["transition_states"] = f"round limit {s.max_ts_rounds} reached"
    state.phase = "done"
    state.save(elapsed())


def clock(start: float | None = None) -> Callable[[], float]:
    """Seconds since ``start`` (now if None) as a callable."""
    t0 = time.perf_counter() if start is None else start
    return lambda: time.perf_counter() - t0
