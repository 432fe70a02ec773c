"""The minima steps of a search: a batch of random starts, a block of structured starts, a basin-hopping round.

Each step is a function ``(spec, settings, store, rng, *, curvature) -> events``: it does one batch of work
(the search saves the store after each, so Ctrl-C loses at most the batch in flight), records what it
found in the store and returns the events it logged (:mod:`.events`). The heavy work is in the jitted,
vmapped kernels of :mod:`.optimize` (L-BFGS) and of the curvature provider (:mod:`.curvature`: Newton
polish, classification); the Python loops here run over the outputs of a batch only.

:func:`absorb_minimisations` is the path of every minimiser output into the store (shared with the
quasi-Newton connection of :mod:`.connect`): a loose match with a known minimum is a hit; anything else
is polished, classified and entered, and an output that polished to a saddle (a minimisation that stalled
in a flat region) is pushed off along its lowest mode (``MODE_KICK``) and minimised again — an index-1
one is also kept as a candidate for transition-state refinement.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from contrastive_bounds.numerics.landscapes.network.catalog import match_minimum, record_minimum
from contrastive_bounds.numerics.landscapes.network.constants import (
    MODE_KICK,
    SADDLE_PUSH_OFF_RETRIES,
    STRUCTURED_BLOCK_CHUNKS,
)
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import (
    Event,
    HopJoined,
    HopRound,
    Minimised,
    NonFinite,
    SaddleStop,
    StructuredPlan,
)
from contrastive_bounds.numerics.landscapes.network.optimize import NON_FINITE, minimize_batch
from contrastive_bounds.numerics.landscapes.network.records import Candidate, Walker
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics._sphere import project_tangent, retract, uniform

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["random_start_batch", "structured_start_block", "start_walkers", "hop_round", "absorb_minimisations",
           "structured_plan", "classify_with"]

#: random-number streams of :class:`~.state.SearchRandom`
STARTS_STREAM, HOPS_STREAM = 0, 1


def classify_with(curvature: Curvature, spec: LandscapeSpec, settings: SearchSettings, z: np.ndarray, expect: int | None
                  ) -> list[Any]:
    """Classify ``z`` (B, N, d) with the search's tolerances (the one classification helper of the steps)."""
    return curvature.classify(spec, z, expect=expect, gradient_tol=settings.gradient_tol,
                              eigenvalue_tol=settings.eigenvalue_tol, chunk=settings.chunk)


def absorb_minimisations(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, z: np.ndarray, energy: np.ndarray,
                         status: np.ndarray, source: str, *, curvature: Curvature = DENSE,
                         retries: int = SADDLE_PUSH_OFF_RETRIES) -> list[int | None]:
    """Enter minimiser outputs (``z`` (B, N, d), their energies and L-BFGS statuses) into the store (module
    docstring). Returns the minimum id of each output (None: non-finite, or still on a saddle after the
    push-offs)."""
    ids: list[int | None] = [None] * len(z)
    todo, hits, bad = [], [], 0
    for k in range(len(z)):
        if status[k] == NON_FINITE or not math.isfinite(float(energy[k])):
            bad += 1
            continue
        known = match_minimum(store.minima, spec.symmetry, z[k], float(energy[k]), loose=True,
                              gram_tol=settings.gram_tol)
        if known is not None:
            hits.append(known)
            ids[k] = known
        else:
            todo.append(k)
    if bad:
        store.log(NonFinite(source, bad))
    store.hit(source, hits)
    if not todo:
        return ids
    zr = curvature.polish(spec, z[todo], chunk=settings.chunk, eigenvalue_tol=settings.eigenvalue_tol)
    stuck = []
    for k, cp in zip(todo, classify_with(curvature, spec, settings, zr, 0)):
        converged = cp.gradient_norm <= settings.gradient_tol
        if cp.index == 0 and converged:
            ids[k], _ = record_minimum(store, spec, cp, source)
            continue
        store.log(SaddleStop(source, int(cp.index)))
        if cp.index == 1 and converged:
            store.pending.append(Candidate(cp.z, cp.mode, source))
        if cp.index >= 1:
            stuck.append((k, cp))
    if stuck and retries > 0:
        kicked = retract(np.stack([cp.z for _, cp in stuck]), MODE_KICK * np.stack([cp.mode for _, cp in stuck]))
        res = minimize_batch(spec, kicked, chunk=settings.chunk)
        store.log(Minimised("push-off", len(kicked)))
        again = absorb_minimisations(spec, settings, store, res.z, res.energy, res.status, source, curvature=curvature,
                                     retries=retries - 1)
        for (k, _), mid in zip(stuck, again):
            ids[k] = mid
    return ids


def random_start_batch(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, *,
                       curvature: Curvature = DENSE) -> list[Event]:
    """Minimise the next batch (at most ``chunk``) of the ``starts`` uniform random starts; batch ``k`` draws
    from stream ``(seed, 0, k)``."""
    first = len(store.events)
    done = store.tally.starts_done
    count = min(settings.chunk, settings.starts - done)
    if count <= 0:
        return []
    z0 = uniform(rng.generator(STARTS_STREAM, done // settings.chunk), (count, spec.num_points, spec.dim))
    res = minimize_batch(spec, z0, chunk=settings.chunk)
    absorb_minimisations(spec, settings, store, res.z, res.energy, res.status, "random start", curvature=curvature)
    store.log(Minimised("random start", count))
    return store.since(first)


def structured_plan(spec: LandscapeSpec, settings: SearchSettings) -> tuple[np.ndarray, dict[str, Any]]:
    """The perturbed structured starts of the landscape and what they are (:func:`~.structured.structured_starts`, or
    :func:`~.families.family_starts` for ``structured_rule="families"``),
    built once per spec and settings (a deterministic function of both: a resumed search rebuilds the same list)."""
    from contrastive_bounds.numerics.landscapes.network.structured import structured_starts

    key = ("structured", settings.structured_rule, settings.structured_starts, settings.structured_excess,
           settings.structured_copies, settings.structured_noise, settings.seed)

    def build() -> tuple[np.ndarray, dict[str, Any]]:
        if settings.structured_rule == "families":
            from contrastive_bounds.numerics.landscapes.network.families import family_starts as make
        else:
            make = structured_starts
        starts, info = make(spec, budget=settings.structured_starts, max_excess=settings.structured_excess,
                            copies=settings.structured_copies, noise=settings.structured_noise, seed=settings.seed)
        return starts, info.to_dict()

    return spec.compiled(key, build)


def structured_start_block(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, *,
                           curvature: Curvature = DENSE) -> list[Event]:
    """Minimise the next block (``STRUCTURED_BLOCK_CHUNKS·chunk``) of the structured starts (:func:`structured_plan`);
    the plan itself is logged once (:class:`~.events.StructuredPlan`)."""
    first = len(store.events)
    starts, info = structured_plan(spec, settings)
    if store.tally.structured != info:
        store.log(StructuredPlan(info))
    lo = store.tally.structured_done
    z0 = starts[lo:lo + STRUCTURED_BLOCK_CHUNKS * settings.chunk]
    if len(z0):
        res = minimize_batch(spec, z0, chunk=settings.chunk)
        absorb_minimisations(spec, settings, store, res.z, res.energy, res.status, "structured start",
                             curvature=curvature)
        store.log(Minimised("structured start", len(z0)))
    return store.since(first)


def start_walkers(settings: SearchSettings, store: NetworkStore) -> None:
    """Seat the ``hop_batch`` walkers on the minima found, lowest first (cycling), unless they are seated."""
    if store.walkers or not store.minima:
        return
    order = np.argsort(store.energies(), kind="stable")
    for w in range(settings.hop_batch):
        m = store.minima[int(order[w % len(order)])]
        store.walkers.append(Walker(m.z.copy(), m.energy, m.id))


def hop_round(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, *,
              curvature: Curvature = DENSE) -> list[Event]:
    """One basin-hopping round: every walker is kicked by a random tangent vector of RMS size
    ``hop_step·2^((k mod 4) − 1)`` per point (walker k: small kicks explore the neighbourhood, large ones reach
    distant funnels), minimised, and moves to the minimum reached by the Metropolis rule at
    ``hop_temperature``; round ``r`` draws from stream ``(seed, 1, r)``."""
    first = len(store.events)
    g = rng.generator(HOPS_STREAM, store.tally.counts["hop_rounds"])
    z = np.stack([w.z for w in store.walkers])
    scale = settings.hop_step * 2.0 ** (np.arange(len(z)) % 4 - 1.0)
    noise = g.normal(size=z.shape) * 1.0 / math.sqrt(max(spec.dim - 1, 1))
    z0 = retract(z, project_tangent(z, noise) * scale[:, None, None])
    before = len(store.minima)
    res = minimize_batch(spec, z0, chunk=settings.chunk)
    ids = absorb_minimisations(spec, settings, store, res.z, res.energy, res.status, "hop", curvature=curvature)
    for w, mid in zip(store.walkers, ids):
        if mid is None:
            continue
        if mid != w.minimum:
            store.log(HopJoined((min(mid, w.minimum), max(mid, w.minimum))))
        e_new = store.minima[mid].energy
        if e_new <= w.energy or g.random() < math.exp(-(e_new - w.energy) / settings.hop_temperature):
            w.z, w.energy, w.minimum = store.minima[mid].z.copy(), e_new, mid
    store.log(Minimised("hop", len(z0)), HopRound(len(z0), len(store.minima) > before))
    return store.since(first)
