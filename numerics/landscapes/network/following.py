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
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.constants import DEGENERATE_EIGENSPACE_RTOL, MODE_KICK
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import Event, Followed
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


def follow_modes(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, minima: Sequence[int],
                 *, limit: int | None = None, curvature: Curvature = DENSE) -> list[Event]:
    """Eigenvector following from each minimum of ``minima`` along its :func:`directions` (all, or the softest
    ``limit`` modes when the closure is off, or the softest ``settings.trap_modes`` when that is set), both signs.
    A provider that classifies with the lowest eigenpairs only (``complete_spectrum`` False) is asked for the
    modes to follow (``curvature.softest``). Each minimum's :class:`~.events.Followed` records how many modes
    were followed of the ``N·(d−1) − orbit_dim`` off the symmetry (equal: per-trap closure).

    With ``settings.symmetric_modes`` a minimum with a nontrivial stabiliser is followed along the Ritz vectors of
    :func:`~.symmetric_modes.symmetric_directions` instead (every mode modulo the stabiliser: exact up to symmetry by
    equivariance) when that reduction applies and needs fewer directions than the modes; its event then records all
    ``of`` modes as covered, the representatives and the stabiliser's evidence — provided at least one of those
    searches ended in a verified transition state joined to the minimum (otherwise none is claimed: 0 of ``of``, with
    the reason; the rule does not check every direction's search one by one). A reduction that does not apply is
    recorded with its reason, and the minimum is followed plainly (``trap_modes`` then bounds the modes as before)."""
    first = len(store.events)
    cps = classify_with(curvature, spec, settings, np.stack([store.minima[i].z for i in minima]), None)
    limit = settings.trap_modes or limit
    z, modes, counts, followed, reduced = [], [], [], [], []
    for cp in cps:
        total = modes_off_symmetry(spec.num_points, spec.dim, cp.orbit_dim)
        sym = symmetric_directions(spec, cp.z, tol=settings.gram_tol, plain=total) if settings.symmetric_modes else None
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
        else:
            dirs = directions(cp, limit)
        for m in dirs:
            for sgn in (1.0, -1.0):
                z.append(retract(cp.z, sgn * MODE_KICK * m))
                modes.append(sgn * m)
        counts.append(2 * len(dirs))
        if sym is not None and sym.exact:
            followed.append((total, total))
            reduced.append((sym.representatives, sym.describe()))
        else:
            followed.append((min(len(cp.modes), limit) if limit else len(cp.modes), total))
            reduced.append((0, f"modulo symmetry not applied: {sym.reason}" if sym is not None else ""))
    if z:
        connect_candidates(spec, settings, store, rng, [Candidate(a, b, "eigenvector following")
                                                        for a, b in zip(z, modes)], curvature=curvature)
    for k, (i, (r, text)) in enumerate(zip(minima, reduced)):
        if r and not any(t.verified and int(i) in t.minima for t in store.transition_states):
            # every search of the representatives failed (rejected or unconverged): the orbits they stand for are
            # not explored, so the modes are not claimed as covered
            followed[k] = (0, followed[k][1])
            reduced[k] = (r, f"{text}; no search along its {counts[k]} directions ended in a verified transition "
                             f"state joined to m{int(i)}: per-trap closure not claimed")
    store.log(*(Followed(int(i), c, k, of, r, text)
                for i, c, (k, of), (r, text) in zip(minima, counts, followed, reduced)))
    return store.since(first)
