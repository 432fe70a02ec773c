"""Identifying critical points up to symmetry before they enter the store (deduplication, multiplicities).

Identification is two-staged: a raw minimiser output is first compared *loosely* with the known minima
(energy within ``LOOSE_ENERGY_RTOL·max(1, |V|)``, Gram/coordinates within ``LOOSE_TOL``) — a match only
counts a hit, nothing is added; every other output is refined to ~1e−13 (Newton/eigenvector following),
classified, and compared *strictly* (energy within ``STRICT_ENERGY_RTOL·max(1, |V|)`` and
:func:`~.symmetry.equivalent` at ``gram_tol``) before it is added with its multiplicity. A *degenerate*
minimum (zero modes beyond the symmetry: a point of a flat family of minima) is also identified with a
known degenerate minimum of the same energy when the path between them is flat (:func:`flat_path`: the
energy along the great-circle path between aligned representatives stays within
``STRICT_ENERGY_RTOL`` relative of theirs) — one node per family, not one per point of it. Constants:
:mod:`.constants`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.constants import (
    FLAT_PATH_SAMPLES,
    LOOSE_ENERGY_RTOL,
    LOOSE_TOL,
    STRICT_ENERGY_RTOL,
)
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, equivalent, multiplicity

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["same_energy", "flat_path", "match_minimum", "record_minimum", "match_transition_state",
           "transition_state_record"]


def same_energy(a: float, b: float, rtol: float) -> bool:
    """``|a − b| <= rtol·max(1, |a|, |b|)``."""
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def flat_path(spec: LandscapeSpec, a: np.ndarray, b: np.ndarray, energy: float, *, samples: int = FLAT_PATH_SAMPLES) -> bool:
    """Whether the great-circle path from ``a`` to the representative of ``b`` aligned to it stays within
    ``STRICT_ENERGY_RTOL·max(1, |energy|)`` of ``energy`` (both ``(N, d)`` float64; ``spec`` a LandscapeSpec)."""
    import jax.numpy as jnp

    from contrastive_bounds.numerics.landscapes.network.symmetry import align
    from contrastive_bounds.numerics._sphere import geodesic_interpolate

    bb = align(a, b, spec.symmetry, restarts=2)
    path = np.asarray(geodesic_interpolate(jnp.asarray(a), jnp.asarray(bb), jnp.linspace(0.0, 1.0, samples)))
    top = max(spec.energy(z) for z in path)
    return top <= energy + STRICT_ENERGY_RTOL * max(1.0, abs(energy))


def match_minimum(minima: Sequence[NetworkMinimum], symmetry: Symmetry, z: Any, energy: float, *, loose: bool,
                  gram_tol: float) -> int | None:
    """Id of a known minimum equivalent to ``z`` (``loose``: an unrefined minimiser output), else None."""
    rtol, tol = (LOOSE_ENERGY_RTOL, LOOSE_TOL) if loose else (STRICT_ENERGY_RTOL, gram_tol)
    for m in minima:
        if same_energy(m.energy, energy, rtol) and equivalent(m.z, z, symmetry, tol=tol):
            return m.id
    return None


def _multiplicity(store: NetworkStore, spec: LandscapeSpec, z: Any) -> int | None:
    """The multiplicity of ``z`` (:func:`~.symmetry.multiplicity`), or None ("not computed") when the search's
    ``multiplicities`` setting is off."""
    if not store.settings.multiplicities:
        return None
    return multiplicity(z, spec.symmetry, tol=store.settings.gram_tol)


def record_minimum(store: NetworkStore, spec: LandscapeSpec, cp: Any, found_by: str, detail: str = "") -> tuple[int, bool]:
    """Enter a refined, classified minimum (a :class:`~.verify.CriticalPoint`) into ``store`` unless it is
    known (then it counts a hit); returns ``(id, is_new)``. Degenerate minima on a flat path to a known
    degenerate one of the same energy are the same node."""
    tol = store.settings.gram_tol
    known = match_minimum(store.minima, spec.symmetry, cp.z, cp.energy, loose=False, gram_tol=tol)
    if known is None and cp.zero_modes:
        known = next((m.id for m in store.minima if not m.verified and same_energy(m.energy, cp.energy, STRICT_ENERGY_RTOL)
                      and flat_path(spec, m.z, cp.z, cp.energy)), None)
    if known is not None:
        store.hit(found_by, [known])
        return known, False
    record = NetworkMinimum(
        id=len(store.minima), energy=cp.energy, z=cp.z, multiplicity=_multiplicity(store, spec, cp.z),
        gradient_norm=cp.gradient_norm, eigenvalues=[float(x) for x in cp.eigenvalues[:6]], orbit_dim=cp.orbit_dim,
        verified=cp.verified, note=cp.reason)
    return store.add_minimum(record, found_by, detail), True


def match_transition_state(store: NetworkStore, symmetry: Symmetry, z: Any, energy: float) -> int | None:
    """Id of a known transition state or rejected candidate equivalent to ``z``, else None."""
    for t in store.transition_states:
        if same_energy(t.energy, energy, STRICT_ENERGY_RTOL) and equivalent(t.z, z, symmetry,
                                                                           tol=store.settings.gram_tol):
            return t.id
    return None


def transition_state_record(store: NetworkStore, spec: LandscapeSpec, cp: Any, minima: Sequence[int], verified: bool,
                            reason: str, descents: Sequence[dict[str, Any]] = (), degenerate: bool = False
                            ) -> TransitionState:
    """The record of a saddle candidate (not yet in the store). The multiplicity is computed for verified
    transition states only (None for a rejected candidate: it is never used)."""
    mult = _multiplicity(store, spec, cp.z) if verified else None
    return TransitionState(
        id=-1, energy=cp.energy, z=cp.z, multiplicity=mult, gradient_norm=cp.gradient_norm,
        eigenvalue=float(cp.eigenvalues[0]) if cp.eigenvalues.size else float("nan"), index=cp.index,
        minima=list(minima), verified=verified, reason=reason, descents=list(descents), degenerate=bool(degenerate))
