"""Catalogues of minima and transition states up to symmetry (deduplication, multiplicities).

:class:`Catalog` keeps the distinct critical points found so far. Identification is two-staged:
a raw minimiser output is first compared *loosely* with the known minima (energy within
``1e−6·max(1, |V|)``, Gram/coordinates within ``loose_tol``) — a match only counts a hit, nothing is
added; every other output is refined to ~1e−13 (Newton/eigenvector following), classified, and
compared *strictly* (energy within ``1e−8·max(1, |V|)`` and :func:`~.symmetry.equivalent` at
``gram_tol``) before it is added with its multiplicity. A *degenerate* minimum (zero modes beyond the
symmetry: a point of a flat family of minima) is also identified with a known degenerate minimum of the
same energy (1e-8 relative) when the path between them is flat (:func:`flat_path`: the energy along the
great-circle path between aligned representatives stays within 1e-8 relative of theirs) — one node per
family, not one per point of it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.verify import CriticalPoint
from contrastive_bounds.numerics.landscapes.network.symmetry import DEFAULT_GRAM_TOL, Symmetry, equivalent, multiplicity

__all__ = ["Catalog", "LOOSE_TOL", "flat_path"]

#: Gram/coordinate tolerance for recognising an unrefined minimiser output (|grad V| ~ 1e-6)
LOOSE_TOL = 1e-4


def _same_energy(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def flat_path(spec: Any, a: np.ndarray, b: np.ndarray, energy: float, *, samples: int = 17) -> bool:
    """Whether the great-circle path from ``a`` to the representative of ``b`` aligned to it stays within
    ``1e-8·max(1, |energy|)`` of ``energy`` (both ``(N, d)`` float64; ``spec`` a LandscapeSpec)."""
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes.network.manifold import geodesic_interpolate
    from contrastive_bounds.numerics.landscapes.network.symmetry import align

    bb = align(a, b, spec.symmetry, restarts=2)
    path = np.asarray(geodesic_interpolate(jnp.asarray(a), jnp.asarray(bb), jnp.linspace(0.0, 1.0, samples)))
    top = max(spec.energy(z) for z in path)
    return top <= energy + 1e-8 * max(1.0, abs(energy))


class Catalog:
    """Distinct minima and transition states of one search (mutable).

    Args:
      symmetry: the landscape's :class:`~.symmetry.Symmetry`. gram_tol: strict tolerance.
      flat: ``(a, b, energy) -> bool``, the flat-path test for degenerate minima (None: no merging).
    """

    def __init__(self, symmetry: Symmetry, *, gram_tol: float = DEFAULT_GRAM_TOL,
                 flat: Callable[[np.ndarray, np.ndarray, float], bool] | None = None) -> None:
        self.symmetry = symmetry
        self.flat = flat
        self.gram_tol = float(gram_tol)
        self.minima: list[NetworkMinimum] = []
        self.transition_states: list[TransitionState] = []

    # ------------------------------------------------------------------ minima
    def match_minimum(self, z: Any, energy: float, *, loose: bool) -> int | None:
        """Id of a known minimum equivalent to ``z`` (loose: unrefined output), else None."""
        rtol, tol = (1e-6, LOOSE_TOL) if loose else (1e-8, self.gram_tol)
        for m in self.minima:
            if _same_energy(m.energy, energy, rtol) and equivalent(m.z, z, self.symmetry, tol=tol):
                return m.id
        return None

    def add_minimum(self, cp: CriticalPoint, found_by: str, detail: str = "") -> tuple[int, bool]:
        """Add a refined, classified minimum unless known; returns ``(id, is_new)``."""
        known = self.match_minimum(cp.z, cp.energy, loose=False)
        if known is None and cp.zero_modes and self.flat is not None:
            known = next((m.id for m in self.minima if not m.verified and _same_energy(m.energy, cp.energy, 1e-8)
                          and self.flat(m.z, cp.z, cp.energy)), None)
        if known is not None:
            self.minima[known].hits += 1
            return known, False
        mid = len(self.minima)
        self.minima.append(NetworkMinimum(
            id=mid, energy=cp.energy, z=cp.z, multiplicity=multiplicity(cp.z, self.symmetry, tol=self.gram_tol),
            gradient_norm=cp.gradient_norm, eigenvalues=[float(x) for x in cp.eigenvalues[:6]],
            orbit_dim=cp.orbit_dim, verified=cp.verified, note=cp.reason, found_by=found_by, found_detail=detail))
        return mid, True

    # ---------------------------------------------------------- transition states
    def match_ts(self, z: Any, energy: float) -> int | None:
        """Id of a known (verified or not) transition state equivalent to ``z``, else None."""
        for t in self.transition_states:
            if _same_energy(t.energy, energy, 1e-8) and equivalent(t.z, z, self.symmetry, tol=self.gram_tol):
                return t.id
        return None

    def add_ts(self, cp: CriticalPoint, minima: list[int], verified: bool, reason: str, found_by: str,
               descents: list[dict[str, Any]] | None = None, degenerate: bool = False) -> int:
        """Record a saddle candidate (verified or not) and return its id. The multiplicity is computed for
        verified transition states only (0 for a rejected candidate: it is never used)."""
        tid = len(self.transition_states)
        mult = multiplicity(cp.z, self.symmetry, tol=self.gram_tol) if verified else 0
        self.transition_states.append(TransitionState(
            id=tid, energy=cp.energy, z=cp.z, multiplicity=mult,
            gradient_norm=cp.gradient_norm, eigenvalue=float(cp.eigenvalues[0]) if cp.eigenvalues.size else float("nan"),
            index=cp.index, minima=list(minima), verified=verified, reason=reason, found_by=found_by,
            descents=list(descents or []), degenerate=bool(degenerate)))
        return tid

    def verified_ts(self) -> list[TransitionState]:
        """The accepted transition states."""
        return [t for t in self.transition_states if t.verified]

    def unverified_ts(self) -> list[TransitionState]:
        """The rejected saddle candidates (never used for H*), with their reasons."""
        return [t for t in self.transition_states if not t.verified]

    def energies(self) -> np.ndarray:
        """Energies of the minima, in id order."""
        return np.array([m.energy for m in self.minima], dtype=np.float64)
