"""The minima phases of a search: random starts, structured starts, basin hopping (A9).

Each function advances a :class:`~.state.SearchState` by whole batches and saves it after each
(so Ctrl-C loses at most the batch in flight). All heavy work is in the jitted, vmapped kernels of
:mod:`.optimize` (L-BFGS) and :mod:`.verify` (Newton polish, classification); the Python loops here
run over batches only. The transition-state rounds are in :mod:`.closure`.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from contrastive_bounds.numerics.landscapes.network.optimize import NON_FINITE, minimize_batch
from contrastive_bounds.numerics.landscapes.network.state import SearchState
from contrastive_bounds.numerics.landscapes.network.structured import structured_starts
from contrastive_bounds.numerics.landscapes.network.verify import CriticalPoint, classify_batch, newton_polish

__all__ = ["run_starts", "run_structured", "run_hops", "absorb_minimisations", "uniform_starts", "retract_rows", "clock"]

_KICK_OFF_SADDLE = 0.05  # displacement along the lowest mode when a minimisation ended on a saddle


def uniform_starts(rng: np.random.Generator, count: int, n: int, d: int) -> np.ndarray:
    """``count`` independent uniform points of ``(S^{d−1})^n`` (normalised Gaussians), float64."""
    g = rng.normal(size=(count, n, d))
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def retract_rows(z: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``(z + v)`` with every row normalised (numpy)."""
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
                    state.saddle_seeds.append({"z": cp.z, "mode": cp.mode, "found_by": found_by})
                if cp.index >= 1:
                    stuck.append((k, cp))
        if stuck and retries > 0:
            kicked = np.stack([retract_rows(cp.z, _KICK_OFF_SADDLE * cp.mode) for _, cp in stuck])
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
        absorb_minimisations(state, res.z, res.energy, res.status, "random start")
        state.effort.starts += count
        state.effort.minimisations += count
        state.starts_done += count
        state.report("starts", state.starts_done, s.starts, f"{len(state.catalog.minima)} minima")
        state.save(elapsed())
    state.phase = "structured"
    state.save(elapsed())


def run_structured(state: SearchState, elapsed: Callable[[], float]) -> None:
    """Minimise the structured starts (:mod:`.structured`) in chunks (saved after each); then seed the walkers.

    The templates are a deterministic function of the landscape and the settings, so a resumed search
    rebuilds the same list and continues after the ones already minimised.
    """
    s, spec = state.settings, state.spec
    starts, info = structured_starts(spec, budget=s.structured_starts, max_excess=s.structured_excess,
                                     copies=s.structured_copies, noise=s.structured_noise, seed=s.seed)
    state.effort.structured = info.to_dict()
    total = len(starts)
    block = 8 * s.chunk
    while state.structured_done < total:
        lo = state.structured_done
        z0 = starts[lo:lo + block]
        res = minimize_batch(spec, z0, chunk=s.chunk)
        absorb_minimisations(state, res.z, res.energy, res.status, "structured start")
        state.effort.structured_starts += len(z0)
        state.effort.minimisations += len(z0)
        state.structured_done += len(z0)
        state.report("structured starts", state.structured_done, total, f"{len(state.catalog.minima)} minima")
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
        z0 = retract_rows(z, _tangent_noise(rng, z, 1.0) * scale[:, None, None])
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


def clock(start: float | None = None) -> Callable[[], float]:
    """Seconds since ``start`` (now if None) as a callable."""
    t0 = time.perf_counter() if start is None else start
    return lambda: time.perf_counter() - t0
