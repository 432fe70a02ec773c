"""The eigenvector-following step: from minima, uphill along their Hessian modes, to transition states (A9).

:func:`follow_modes` takes a block of minima, asks the curvature provider for the modes of each
(:mod:`.curvature`), starts a search at ``z ± MODE_KICK·v`` for every direction ``v`` of
:func:`directions` and hands the starts to the connection step (:func:`~.connect.connect_candidates`:
refinement uphill along ``v`` by eigenvector following, verification, descents), then logs each minimum
as explored (:class:`~.events.Followed`). Signature as every step: ``(spec, settings, store, rng, *, ...)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.constants import DEGENERATE_EIGENSPACE_RTOL, MODE_KICK
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import Event, Followed
from contrastive_bounds.numerics.landscapes.network.minima import classify_with
from contrastive_bounds.numerics.landscapes.network.records import Candidate
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
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


def follow_modes(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, minima: Sequence[int],
                 *, limit: int | None = None, curvature: Curvature = DENSE) -> list[Event]:
    """Eigenvector following from each minimum of ``minima`` along its :func:`directions` (all, or the softest
    ``limit`` modes when the closure is off), both signs."""
    first = len(store.events)
    cps = classify_with(curvature, spec, settings, np.stack([store.minima[i].z for i in minima]), None)
    z, modes, counts = [], [], []
    for cp in cps:
        dirs = directions(cp, limit)
        for m in dirs:
            for sgn in (1.0, -1.0):
                z.append(retract(cp.z, sgn * MODE_KICK * m))
                modes.append(sgn * m)
        counts.append(2 * len(dirs))
    if z:
        connect_candidates(spec, settings, store, rng, [Candidate(a, b, "eigenvector following")
                                                        for a, b in zip(z, modes)], curvature=curvature)
    store.log(*(Followed(int(i), c) for i, c in zip(minima, counts)))
    return store.since(first)
