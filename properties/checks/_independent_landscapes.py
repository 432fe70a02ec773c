"""Second implementations for the landscape checks (docs/theorems.md A7, A9): InfoNCE and U0 in numpy,
and the critical height read back from a network's table of minima.

Written from the statements, without :mod:`contrastive_bounds.numerics.landscapes`:

* :func:`infonce_energy` — finite-τ InfoNCE over positive pairs on ``(S^{d−1})^N``: the mean over
  directed pairs ``(i, j)`` of ``−s_ij/τ + log Σ_{k∉{i,j}} e^{s_ik/τ}`` (coupled: ``k ≠ i``, the positive
  joins the denominator), ``s = R² z zᵀ`` for unit ``z`` on the sphere of radius ``R``;
* :func:`hardest_negative_u0` — the author's U0: the mean over directed pairs of
  ``−s_ij + max_{k∉{i,j}} s_ik`` (docs/theorems.md A7);
* :func:`tangent_gradient_norm` — the largest Riemannian gradient norm of an energy over the points of a
  configuration, by central differences along an orthonormal tangent basis (no autodiff);
* :func:`table_consistency` — H*, Catoni's D and the global energy recomputed from a row's minima
  (each with its lowest barrier to a strictly lower minimum), against the row's stored values.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from contrastive_bounds.properties._statements import compare_text

__all__ = ["default_pairs", "infonce_energy", "hardest_negative_u0", "tangent_gradient_norm", "table_consistency"]


def default_pairs(num_points: int) -> list[tuple[int, int]]:
    """``(0, 1), (2, 3), ...``: N/2 disjoint pairs (the last point of an odd N is negatives-only)."""
    return [(i, i + 1) for i in range(0, num_points - 1, 2)]


def _directed(pairs: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in pairs] + [(int(b), int(a)) for a, b in pairs]


def infonce_energy(z: Any, tau: float, pairs: Sequence[Sequence[int]] | None = None, *, coupled: bool = False,
                   radius: float = 1.0) -> float:
    """Finite-τ InfoNCE of a configuration (see the module docstring), float64.

    Args:
      z: (N, d) unit vectors (directions; rows are normalised here); tau: > 0; pairs: index pairs
        (default :func:`default_pairs`); coupled: positive in the denominator; radius: R > 0.

    Raises:
      ValueError: ``z`` not (N, d) with N >= 3, or an anchor without a negative.
    """
    u = np.asarray(z, np.float64)
    if u.ndim != 2 or u.shape[0] < 3:
        raise ValueError(f"z has shape {u.shape}; expected (N, d) with N >= 3")
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    n = u.shape[0]
    s = radius * radius * (u @ u.T) / tau
    terms = []
    for i, j in _directed(default_pairs(n) if pairs is None else pairs):
        ks = [k for k in range(n) if k != i and (coupled or k != j)]
        if not ks:
            raise ValueError(f"anchor {i} has no negative")
        row = s[i, ks]
        m = float(np.max(row))
        terms.append(-s[i, j] + m + math.log(float(np.sum(np.exp(row - m)))))
    return float(np.mean(terms))


def hardest_negative_u0(z: Any, pairs: Sequence[Sequence[int]]) -> float:
    """U0 = mean over directed pairs of ``−s_ij + max_{k∉{i,j}} s_ik`` (cosines of the rows of ``z``), float64."""
    u = np.asarray(z, np.float64)
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    s = u @ u.T
    n = u.shape[0]
    return float(np.mean([-s[i, j] + max(s[i, k] for k in range(n) if k not in (i, j)) for i, j in _directed(pairs)]))


def tangent_gradient_norm(energy: Callable[[np.ndarray], float], z: Any, step: float = 1e-5) -> float:
    """Largest norm, over the points, of the Riemannian gradient of ``energy`` at ``z`` (central differences).

    Each point moves along an orthonormal basis of its tangent space by the geodesic
    ``cos(±step) z_i + sin(±step) e``; O(step²) accurate.
    """
    u = np.asarray(z, np.float64)
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    worst = 0.0
    for i in range(u.shape[0]):
        basis = np.linalg.svd(np.eye(u.shape[1]) - np.outer(u[i], u[i]))[0][:, : u.shape[1] - 1]
        g = []
        for e in basis.T:
            plus, minus = u.copy(), u.copy()
            plus[i] = math.cos(step) * u[i] + math.sin(step) * e
            minus[i] = math.cos(step) * u[i] - math.sin(step) * e
            g.append((energy(plus) - energy(minus)) / (2 * step))
        worst = max(worst, float(np.linalg.norm(g)))
    return worst


def table_consistency(row: dict[str, Any], tie: float) -> list[str]:
    """What in a network row's table contradicts its stored H*, D, v_min or status (``[]`` when nothing).

    From the minima (``details["minima"]``: ``energy``, ``barrier`` = lowest barrier to a strictly lower
    minimum, ``global``): the global energy is the lowest energy; H* = max barrier over non-global minima
    (0 without any); D = max of barrier/(V − V_min) over them; every non-global minimum has a finite
    barrier > 0; "barrier-free" means no non-global minimum. ``tie``: absolute tolerance of energies.
    """
    minima = row.get("details", {}).get("minima", [])
    problems = []
    h = row.get("critical_height")
    if h is None or not math.isfinite(float(h)) or float(h) < -tie:
        return [f"H* = {h} is not a finite number >= 0"]
    if not minima:
        return ["the row has no table of minima"]
    v_min = min(float(m["energy"]) for m in minima)
    stored_vmin = row.get("v_min")
    if stored_vmin is not None and abs(float(stored_vmin) - v_min) > tie:
        problems.append(f"v_min = {stored_vmin} but the lowest minimum has energy {v_min}")
    non_global = [m for m in minima if not m.get("global")]
    bad_global = [m for m in minima if m.get("global") and abs(float(m["energy"]) - v_min) > tie]
    if bad_global:
        problems.append("a minimum marked global has " + compare_text("energy", float(bad_global[0]["energy"]),
                                                                         "the lowest minimum's", v_min, ".10g"))
    barriers = []
    for m in non_global:
        b = m.get("barrier")
        if b is None or not math.isfinite(float(b)) or float(b) <= 0:
            problems.append(f"the non-global minimum at energy {m['energy']} has barrier {b} (needs a finite > 0)")
        else:
            barriers.append((float(b), float(m["energy"]) - v_min))
    h_table = max((b for b, _ in barriers), default=0.0)
    if abs(h_table - float(h)) > tie:
        problems.append(f"H* = {float(h):.12g} but the largest barrier of a non-global minimum is {h_table:.12g}")
    d_stored = row.get("catoni_difficulty")
    if d_stored is not None and barriers and math.isfinite(float(d_stored)):
        d_table = max(b / gap for b, gap in barriers if gap > tie) if any(g > tie for _, g in barriers) else None
        if d_table is not None and abs(d_table - float(d_stored)) > 1e-6 * max(1.0, d_table):
            problems.append(f"D = {float(d_stored):.8g} but the table gives {d_table:.8g}")
    if bool(row.get("barrier_free")) and non_global:
        problems.append(f"marked barrier-free with {len(non_global)} non-global minima")
    return problems
