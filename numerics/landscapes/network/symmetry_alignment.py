"""Aligning a configuration to a reference modulo a declared :class:`~.symmetry.Symmetry` (A9): a heuristic.

:func:`align` picks the element of an orbit under ``z ↦ P z Rᵀ`` nearest to a reference configuration,
alternating Kabsch rotations (orthogonal Procrustes, reflections allowed) with Hungarian assignments of points,
or of pairs when the positive pairs are disjoint. The double-ended searches use it only to start paths between
nearby representatives; equivalence is never decided by it (:func:`~.symmetry.equivalent` does that, exactly).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry

__all__ = ["align"]


def _kabsch(ref: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """``moving @ R`` with ``R ∈ O(d)`` minimising ``|moving R − ref|_F`` (reflections allowed)."""
    u, _, vt = np.linalg.svd(moving.T @ ref)
    return moving @ (u @ vt)


def _matching_units(sym: Symmetry, n: int) -> list[tuple[int, ...]] | None:
    """Pairs and unpaired points when the pairs are disjoint (a matching); else None."""
    seen: set[int] = set()
    for i, j in sym.pairs:
        if i in seen or j in seen:
            return None
        seen.update((i, j))
    return [tuple(p) for p in sym.pairs] + [(i,) for i in range(n) if i not in seen]


def _assign(ref: np.ndarray, moving: np.ndarray, sym: Symmetry) -> np.ndarray:
    """``moving`` relabelled by an allowed permutation that brings it near ``ref`` (Hungarian)."""
    from scipy.optimize import linear_sum_assignment

    n = ref.shape[0]
    if sym.permutations == "all":
        cost = np.sum((ref[:, None, :] - moving[None, :, :]) ** 2, axis=-1)
        r, c = linear_sum_assignment(cost)
        out = np.empty_like(moving)
        out[r] = moving[c]
        return out
    units = _matching_units(sym, n) if sym.permutations == "pairs" else None
    if not units:
        return moving
    out = moving.copy()
    for size in (1, 2):
        us = [u for u in units if len(u) == size]
        if len(us) < 1:
            continue
        cost = np.zeros((len(us), len(us)))
        orient = np.zeros((len(us), len(us)), dtype=bool)
        for a, ua in enumerate(us):
            for b, ub in enumerate(us):
                direct = np.sum((ref[list(ua)] - moving[list(ub)]) ** 2)
                swapped = np.sum((ref[list(ua)] - moving[list(ub[::-1])]) ** 2) if size == 2 else math.inf
                cost[a, b] = min(direct, swapped)
                orient[a, b] = swapped < direct
        r, c = linear_sum_assignment(cost)
        for a, b in zip(r, c):
            src = list(us[b][::-1]) if orient[a, b] else list(us[b])
            out[list(us[a])] = moving[src]
    return out


def align(reference: Any, moving: Any, sym: Symmetry, *, seed: int = 0, restarts: int = 8) -> np.ndarray:
    """The element of ``moving``'s orbit under ``sym`` nearest to ``reference`` (a heuristic).

    Alternates Kabsch rotations and Hungarian relabellings (of points, or of pairs for disjoint
    pairs) from the identity and ``restarts`` random orthogonal starts; returns the best found.
    Without a symmetry, ``moving`` unchanged. Used to start double-ended paths between nearby
    representatives; correctness never depends on it.
    """
    ref = np.asarray(reference, dtype=np.float64)
    mov = np.asarray(moving, dtype=np.float64)
    if not sym.orthogonal and sym.permutations == "none":
        return mov.copy()
    if not sym.orthogonal:
        return _assign(ref, mov, sym)
    rng = np.random.default_rng(seed)
    d = ref.shape[1]
    best, best_dist = mov.copy(), math.inf
    starts = [np.eye(d)] + [np.linalg.qr(rng.normal(size=(d, d)))[0] for _ in range(restarts if sym.permutations != "none" else 0)]
    for r0 in starts:
        cur = mov @ r0
        for _ in range(20):
            cur = _kabsch(ref, _assign(ref, cur, sym))
        dist = float(np.sum((cur - ref) ** 2))
        if dist < best_dist - 1e-14:
            best, best_dist = cur, dist
    return best
