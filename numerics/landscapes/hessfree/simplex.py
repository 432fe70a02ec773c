"""The closed-form global minimum of InfoNCE with collapsed pairs on a regular simplex (A7, A9).

For ``N = 2P`` points in ``P`` disjoint positive pairs covering every point (the default pairs
``(0, 1), (2, 3), …`` with N even) and ``P <= d + 1``, put both points of pair ``k`` at the vertex ``u_k``
of a regular simplex centred at the origin: ``u_k·u_l = −1/(P − 1)`` for ``k != l``. Each anchor then has
``s = 1`` with its positive and ``s = −1/(P − 1)`` with each of its ``N − 2 = 2(P − 1)`` negatives, so

* decoupled InfoNCE: ``V* = −P/((P − 1)τ) + log(2(P − 1))``;
* coupled InfoNCE: ``V* = log(1 + 2(P − 1)·exp(−P/((P − 1)τ)))``.

Both are the global minimum value. Proof (the Jensen argument behind the simplex results of Graf,
Hofer, Niethammer & Kwitt, "Dissecting Supervised Contrastive Learning", ICML 2021, and Lu &
Steinerberger, "Neural collapse under cross-entropy loss", Appl. Comput. Harmon. Anal. 59 (2022)),
decoupled: ``logsumexp`` over the ``N − 2`` negatives is at least ``log(N − 2)`` plus their mean
similarity ``/τ``; summed over anchors the negatives' similarities are
``|Σ_i z_i|² − N − Σ_i s_{i,p(i)} >= −N − Σ_i s_{i,p(i)}``, and ``s_{i,p(i)} <= 1``, so
``V >= log(N − 2) − N/((N − 2)τ)``, which the simplex attains (``N/(N − 2) = P/(P − 1)``). Coupled: the
per-anchor loss ``log(1 + Σ_k exp((s_ik − s_ip)/τ))`` is at least ``log(1 + (N − 2)·exp(a_i))`` with
``a_i`` the mean negative similarity minus ``s_ip``, over ``τ`` (Jensen), convex and increasing in
``a_i``, so the mean over anchors is at least the value at the mean ``a``, which the same bound
``mean a >= −N/((N − 2)τ)`` ends. Equality needs collapsed pairs, ``Σ z_i = 0`` and equal negative
similarities per anchor: exactly the centred regular simplex (up to ``O(d)``).
"""

from __future__ import annotations

import math

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["simplex_vertices", "infonce_simplex_energy", "infonce_simplex_minimum"]


def simplex_vertices(count: int, dim: int) -> np.ndarray:
    """``count`` unit vectors in ``R^dim`` with pairwise inner products ``−1/(count − 1)``, centred.

    Args:
      count: vertices, integer in ``[2, dim + 1]``. dim: integer >= 1.

    Returns:
      ``(count, dim)`` float64 (numpy): the centred standard simplex of ``R^count`` written in an
      orthonormal basis of its ``count − 1``-dimensional span, padded with zeros.

    Raises:
      ValueError: ``dim < 1`` or ``count`` outside ``[2, dim + 1]`` (named).
    """
    d = check_int("dim", dim, 1, None)
    p = check_int("count", count, 2, d + 1)
    centred = np.eye(p) - 1.0 / p
    u, s, _ = np.linalg.svd(centred)
    coords = u[:, : p - 1] * s[: p - 1]  # rows: the vertices in an orthonormal basis of the span
    coords /= np.linalg.norm(coords, axis=1, keepdims=True)
    out = np.zeros((p, d))
    out[:, : p - 1] = coords
    return out


def _pairs(num_points: int, dim: int) -> int:
    n = check_int("num_points", num_points, 4, None)
    if n % 2:
        raise ValueError(f"num_points={num_points} must be even: the closed form needs disjoint pairs covering "
                         "every point (an unpaired point is a negative only and breaks the bound's equality)")
    p = n // 2
    d = check_int("dim", dim, 2, None)
    if p > d + 1:
        raise ValueError(f"num_points={num_points} gives P = {p} pairs > dim + 1 = {d + 1}: no regular simplex of "
                         f"{p} vertices on S^{d - 1} (the closed form needs N/2 <= d + 1)")
    return p


def infonce_simplex_energy(num_points: int, dim: int, tau: float, *, coupled: bool = False) -> float:
    """The global minimum value of InfoNCE over the default pairs (module docstring).

    Args:
      num_points: N, even, >= 4, with ``N/2 <= dim + 1``. dim: d >= 2. tau: temperature > 0.
      coupled: the positive also in the denominator.

    Returns:
      ``V*`` as a float (float64 arithmetic, ``log1p`` for the coupled form).

    Raises:
      ValueError: N odd or < 4, ``N/2 > d + 1``, d < 2, or ``tau`` not positive (named).
    """
    p = _pairs(num_points, dim)
    t = check_real("tau", tau, 0.0, math.inf)
    if coupled:
        return math.log1p(2.0 * (p - 1) * math.exp(-p / ((p - 1) * t)))
    return -p / ((p - 1) * t) + math.log(2.0 * (p - 1))


def infonce_simplex_minimum(num_points: int, dim: int, tau: float, *, coupled: bool = False
                            ) -> tuple[np.ndarray, float]:
    """The minimising configuration and its energy: points ``2k`` and ``2k + 1`` at simplex vertex ``k``.

    Args:
      as :func:`infonce_simplex_energy`.

    Returns:
      ``(z, V*)``: ``z`` of shape ``(N, d)``, float64 unit rows (numpy), for the pairs
      ``(0, 1), (2, 3), …`` of ``network.spec.default_pairs``.

    Raises:
      ValueError: as :func:`infonce_simplex_energy`.
    """
    energy = infonce_simplex_energy(num_points, dim, tau, coupled=coupled)
    p = num_points // 2
    return np.repeat(simplex_vertices(p, dim), 2, axis=0), energy
