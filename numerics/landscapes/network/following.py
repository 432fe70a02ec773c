"""The eigenvector-following step: from minima, uphill along their Hessian modes, to transition states (A9).

:func:`follow_modes` takes a block of minima, asks the curvature provider for the modes of each
(:mod:`.curvature`), starts a search at ``z ± MODE_KICK·v`` for every direction ``v`` of
:func:`directions` and hands the starts to the connection step (:func:`~.connect.connect_candidates`:
refinement uphill along ``v`` by eigenvector following, verification, descents), then logs each minimum
as explored (:class:`~.events.Followed`). Signature as every step: ``(spec, settings, store, rng, *, ...)``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.constants import DEGENERATE_EIGENSPACE_RTOL, MODE_KICK, \
    SEARCHES_PER_BLOCK
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import Event, Followed, FollowedPart
from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import modes_off_symmetry
from contrastive_bounds.numerics.landscapes.network.minima import classify_with
from contrastive_bounds.numerics.landscapes.network.records import Candidate
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.symmetric_modes import symmetric_directions
from contrastive_bounds.numerics._sphere import retract

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["follow_modes", "directions"]


def directions(cp: Any, limit: int | None = None) -> list[np.ndarray]:
    """The directions followed from a minimum ``cp`` (a classified critical point): every eigenvector of
    ``cp.modes`` (or the softest ``limit``) and, inside each degenerate eigenspace (eigenvalues equal to
    ``DEGENERATE_EIGENSPACE_RTOL`` relative, where the eigenvectors are an arbitrary basis), the
    combinations ``(v_a ± v_b)/√2`` of every pair for a space of dimension 2 or 3, of cyclically
    consecutive pairs ``(a, a + 1 mod k)`` for a larger one (2k extra directions, so a highly symmetric
    minimum does not multiply the searches)."""
    lam, vecs = cp.eigenvalues, cp.modes
    if limit is not None:
        return list(vecs[:limit])
    out = list(vecs)
    k = 0
    while k < len(lam):
        j = k + 1
        while j < len(lam) and abs(lam[j] - lam[k]) <= DEGENERATE_EIGENSPACE_RTOL * max(1.0, abs(lam[k])):
            j += 1
        dim = j - k
        combos = [(a, b) for a in range(k, j) for b in range(a + 1, j)] if dim <= 3 else \
            [(k + r, k + (r + 1) % dim) for r in range(dim)]
        for a, b in combos:
            out += [(vecs[a] + vecs[b]) / math.sqrt(2.0), (vecs[a] - vecs[b]) / math.sqrt(2.0)]
        k = j
    return out


def _part(store: NetworkStore, i: int, ends: list[int | None]) -> FollowedPart:
    """The :class:`~.events.FollowedPart` of minimum ``i``'s searches in one block (``ends``: both signs of each
    direction in turn; the verified transition state each reached, or None)."""
    ended = [t for t in ends if t is not None]
    joined = sum(1 for t in ended if i in store.transition_states[t].minima)
    stalled = sum(1 for a in range(0, len(ends) - 1, 2) if ends[a] is None and ends[a + 1] is None)
    return FollowedPart(i, len(ends), len(ended), joined, stalled)


def follow_modes(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, minima: Sequence[int],
                 *, limit: int | None = None, curvature: Curvature = DENSE, budget: int | None = None,
                 after_block: Callable[[], None] = lambda: None) -> list[Event]:
    """Eigenvector following from each minimum of ``minima`` along its :func:`directions` (all, or the softest
    ``limit`` modes when the closure is off, or the softest ``settings.trap_modes`` when that is set), both signs.
    A provider that classifies with the lowest eigenpairs only (``complete_spectrum`` False) is asked for the
    modes to follow (``curvature.softest``). Each minimum's :class:`~.events.Followed` records how many modes
    were followed of the ``N·(d−1) − orbit_dim`` off the symmetry and how its searches ended: how many at a
    verified transition state, how many of those joined to the minimum, and how many directions had no search
    ending at one (:func:`~.closure.trap_closed` reads per-trap closure from these).

    The searches run in blocks of ``SEARCHES_PER_BLOCK``; after each, every minimum in it gets a
    :class:`~.events.FollowedPart` event and ``after_block`` is called (the search saves), so a search stopped
    inside a minimum's searches resumes after the pairs that ran (the directions are recomputed the same way).

    ``budget`` (searches left in ``max_searches``) caps the searches of the call: the minimum where it runs out
    is followed along its first directions only (recorded as partial), the minima after it are not followed
    (they stay unexplored).

    With ``settings.symmetric_modes`` a minimum with a nontrivial stabiliser is followed along the Ritz vectors of
    :func:`~.symmetric_modes.symmetric_directions` instead (their stabiliser images span every mode) when that
    reduction applies, needs fewer directions than the modes and fits the budget; its event then records the ``of``
    modes as spanned, the representatives and the stabiliser's evidence. The refiners are not equivariant inside a
    degenerate eigenspace, so this is a smaller sample of starts than plain following, never per-trap closure
    (:func:`~.closure.sampled_traps`). A reduction that does not apply is recorded with its reason, and the minimum
    is followed plainly (``trap_modes`` then bounds the modes as before)."""
    first = len(store.events)
    cps = classify_with(curvature, spec, settings, np.stack([store.minima[i].z for i in minima]), None)
    limit = settings.trap_modes or limit
    left = math.inf if budget is None else max(0, int(budget))
    z, modes, owner, counts, followed, reduced, done, plans = [], [], [], [], [], [], [], []
    for i, cp in zip(minima, cps):
        if left < 2:
            break
        total = modes_off_symmetry(spec.num_points, spec.dim, cp.orbit_dim)
        sym = symmetric_directions(spec, cp.z, tol=settings.gram_tol, plain=total) if settings.symmetric_modes else None
        if sym is not None and sym.exact and 2 * len(sym.directions) > left:
            sym = SimpleNamespace(exact=False, reason=f"its {2 * len(sym.directions)} searches exceed the "
                                  f"{int(left)} left in max_searches")
        if sym is not None and sym.exact:
            dirs = list(sym.directions)
        elif not cp.complete_spectrum and hasattr(curvature, "softest"):  # lowest eigenpairs only: ask for more
            lam, vecs = curvature.softest(spec, cp.z, min(limit or total, total))
            cp = SimpleNamespace(z=cp.z, eigenvalues=lam, modes=vecs)
            dirs = directions(cp, None)
        elif not cp.complete_spectrum:  # a provider without ``softest``: the modes it classified with
            lam, vecs = cp.eigenvalues[:limit] if limit else cp.eigenvalues, cp.modes[:limit] if limit else cp.modes
            cp = SimpleNamespace(z=cp.z, eigenvalues=lam, modes=vecs)
            dirs = directions(cp, None)
        else:  # trap_modes that cut no mode: every mode with the pairs, as trap_modes = 0 (per-trap closure)
            dirs = directions(cp, None if settings.trap_modes and limit >= len(cp.modes) else limit)
        skip = store.tally.progress.get(int(i), (0, 0, 0, 0))[0]  # searches that ran before a stop (whole pairs)
        planned = len(dirs)
        dirs = dirs[:int(min(len(dirs), (left + skip) // 2))]  # eigenvectors come first: a cut keeps the softest
        left -= 2 * len(dirs) - skip
        for m in dirs[skip // 2:]:
            for sgn in (1.0, -1.0):
                z.append(retract(cp.z, sgn * MODE_KICK * m))
                modes.append(sgn * m)
                owner.append(int(i))
        counts.append(2 * len(dirs))
        done.append(int(i))
        if sym is not None and sym.exact:
            followed.append((total, total))
            reduced.append((sym.representatives, sym.describe()))
        else:
            k = min(len(cp.modes), limit) if limit else len(cp.modes)
            followed.append((min(k, len(dirs)), total))
            reduced.append((0, f"modulo symmetry not applied: {sym.reason}" if sym is not None else ""))
        plans.append(2 * planned)
    for lo in range(0, len(z), SEARCHES_PER_BLOCK):  # a minimum's thousands of searches enter the log in parts
        ends: list[int | None] = []
        hi = min(lo + SEARCHES_PER_BLOCK, len(z))
        connect_candidates(spec, settings, store, rng, [Candidate(a, b, "eigenvector following") for a, b in
                                                        zip(z[lo:hi], modes[lo:hi])], curvature=curvature, outcomes=ends,
                           floors=None if settings.basin_margin is None else
                           [store.minima[o].energy - settings.basin_margin for o in owner[lo:hi]])
        ends += [None] * (hi - lo - len(ends))
        store.log(*(_part(store, i, [e for e, o in zip(ends, owner[lo:hi]) if o == i])
                    for i in dict.fromkeys(owner[lo:hi])))
        after_block()
    events = []
    for i, c, (k, of), (r, text), plan in zip(done, counts, followed, reduced, plans):
        _, ended, joined, stalled = store.tally.progress.get(i, (0, 0, 0, 0))
        events.append(Followed(i, c, k, of, r, text, ended, joined, stalled, plan))
    store.log(*events)
    return store.since(first)
