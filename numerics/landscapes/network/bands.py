"""The double-ended step: climbing-image bands between pairs of minima, and which pairs get one (A9).

* :func:`pending_pairs` — the pairs a closure round gives to the band: every pair within ``pair_distance``
  (aligned RMS chord per point; pairs whose spectral lower bound already exceeds it are skipped without
  aligning), each minimum's ``neighbours`` nearest, every pair a basin-hopping move joined, and — for a
  non-global minimum with no path to a lower one — its nearest lower minima; pairs already tried excluded.
* :func:`band_batch` — one batch (``chunk`` pairs) of bands (:func:`~.neb.run_neb`, the far end aligned to
  the near one by :func:`~.symmetry.align`), the highest ``BAND_CANDIDATES`` interior maxima of each band
  handed to the connection step as candidates.
* :func:`aligned_distance`, :func:`distance_lower_bound` — the distance of two minima's orbits (an upper
  bound by alignment) and its Hoffman–Wielandt lower bound from the Gram spectra.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.constants import BAND_CANDIDATES
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import BandRun, Event
from contrastive_bounds.numerics.landscapes.network.records import Candidate
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, align

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["band_batch", "pending_pairs", "aligned_distance", "distance_lower_bound", "gram_spectrum",
           "spectral_bound"]


def aligned_distance(za: np.ndarray, zb: np.ndarray, symmetry: Symmetry) -> float:
    """RMS chord per point between ``za`` and the element of ``zb``'s orbit nearest to it found by
    :func:`~.symmetry.align` (a heuristic: an upper bound on the true distance of the orbits)."""
    b = align(za, zb, symmetry, restarts=2)
    return float(np.linalg.norm(b - za) / math.sqrt(za.shape[0]))


def gram_spectrum(z: np.ndarray) -> np.ndarray:
    """Ascending eigenvalues of the Gram matrix ``z zᵀ`` of a configuration ``(N, d)``."""
    return np.linalg.eigvalsh(z @ z.T)


def spectral_bound(la: np.ndarray, lb: np.ndarray, num_points: int) -> float:
    """``|λ_a − λ_b|_2 / ((|z_a|_2 + |z_b|_2)·sqrt(N))`` from the sorted Gram spectra ``λ`` (``|z|_2 = sqrt(λ_max)``):
    the lower bound of :func:`distance_lower_bound` (Hoffman–Wielandt: ``|G_a − P G_b Pᵀ|_F >= |λ_a − λ_b|_2``,
    and ``|G_a − G_b'|_F <= (|z_a|_2 + |z_b'|_2)|z_a − z_b'|_F``)."""
    norm = math.sqrt(max(la[-1], 0.0)) + math.sqrt(max(lb[-1], 0.0))
    return float(np.linalg.norm(la - lb) / (max(norm, 1e-300) * math.sqrt(num_points)))


def distance_lower_bound(za: np.ndarray, zb: np.ndarray, symmetry: Symmetry) -> float:
    """A lower bound on the RMS chord per point between the orbits of ``za`` and ``zb`` under an
    ``O(d)``-invariant symmetry (:func:`spectral_bound`); 0 without ``O(d)``."""
    if not symmetry.orthogonal:
        return 0.0
    return spectral_bound(gram_spectrum(za), gram_spectrum(zb), za.shape[0])


class _Distances:
    """Aligned distances (cached in the store: they are saved) and Gram spectra (cached here) of minima pairs."""

    def __init__(self, spec: LandscapeSpec, store: NetworkStore) -> None:
        self.spec, self.store, self.spectra = spec, store, {}

    def exact(self, i: int, j: int) -> float:
        key = (min(i, j), max(i, j))
        if key not in self.store.distances:
            mins = self.store.minima
            self.store.distances[key] = aligned_distance(mins[key[0]].z, mins[key[1]].z, self.spec.symmetry)
        return self.store.distances[key]

    def bound(self, i: int, j: int) -> float:
        if not self.spec.symmetry.orthogonal:
            return 0.0
        for k in (i, j):
            if k not in self.spectra:
                self.spectra[k] = gram_spectrum(self.store.minima[k].z)
        return spectral_bound(self.spectra[i], self.spectra[j], self.spec.num_points)

    def within(self, i: int, j: int, limit: float) -> bool:
        key = (min(i, j), max(i, j))
        if key not in self.store.distances and self.bound(i, j) > limit:
            return False
        return self.exact(i, j) <= limit

    def nearest(self, i: int, candidates: list[int], count: int) -> list[int]:
        """The ``count`` candidates nearest to minimum ``i`` (aligned distance; the spectral lower bound picks
        which ``count + 3`` to align)."""
        if not candidates or count <= 0:
            return []
        by_bound = sorted(candidates, key=lambda j: self.bound(i, j))
        return sorted(by_bound[: count + 3], key=lambda j: self.exact(i, j))[:count]


def pending_pairs(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, *, within: bool) -> list[tuple[int, int]]:
    """The pairs of minima the next closure round gives to the band (module docstring; ``within``: include
    every pair within ``pair_distance``)."""
    from contrastive_bounds.numerics.landscapes.network.graph import analyse_network

    s, mins, dist = settings, store.minima, _Distances(spec, store)
    pairs = set(store.hop_pairs)
    ids = list(range(len(mins)))
    if within and s.pair_distance > 0:
        for i in ids:
            for j in range(i + 1, len(mins)):
                if (i, j) not in store.tried_pairs and dist.within(i, j, s.pair_distance):
                    pairs.add((i, j))
    for i in ids:
        for j in dist.nearest(i, [j for j in ids if j != i], s.neighbours):
            pairs.add((min(i, j), max(i, j)))
    if len(mins) > 1:
        for i in analyse_network(mins, store.transition_states).unconnected:
            lower = [j for j in ids if mins[j].energy < mins[i].energy]
            for j in dist.nearest(i, lower, max(1, s.neighbours)):
                pairs.add((min(i, j), max(i, j)))
    return sorted(p for p in pairs if p not in store.tried_pairs and p[0] != p[1])


def band_batch(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom,
               pairs: Sequence[tuple[int, int]], *, curvature: Curvature = DENSE) -> list[Event]:
    """Bands between the minima ``pairs`` (one batch), their highest interior maxima connected as candidates."""
    from contrastive_bounds.numerics.landscapes.network.neb import band_maxima, run_neb

    first = len(store.events)
    s, mins = settings, store.minima
    za = np.stack([mins[i].z for i, _ in pairs])
    zb = np.stack([align(mins[i].z, mins[j].z, spec.symmetry, seed=rng.seed) for i, j in pairs])
    paths, energies, _, _ = run_neb(spec, za, zb, chunk=min(s.chunk, 8), images=s.images, iterations=s.neb_iterations,
                                    climb_after=s.neb_iterations // 5)
    cands = []
    for p, e in zip(paths, energies):
        for zc, tc in sorted(band_maxima(p, e), key=lambda c: -spec.energy(c[0]))[:BAND_CANDIDATES]:
            cands.append(Candidate(np.asarray(zc), np.asarray(tc), "double-ended"))
    store.log(*(BandRun((int(i), int(j))) for i, j in pairs))
    connect_candidates(spec, settings, store, rng, cands, curvature=curvature)
    return store.since(first)
