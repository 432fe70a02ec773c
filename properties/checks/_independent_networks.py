"""Second implementations for the network checks (docs/theorems.md A5, A9): spectra, multiplicities, orbit
volumes and the Eyring–Kramers prefactor modulo symmetry, written from the statements.

Nothing here imports :mod:`contrastive_bounds.numerics`; energies come from a plain numpy function
(e.g. :func:`~._independent_landscapes.infonce_energy`):

* :func:`tangent_derivatives` — the Riemannian gradient and Hessian of an energy on ``(S^{d−1})^N`` by central
  differences of ``f ∘ exp`` in exponential-map coordinates (each point moved along a great circle), with one
  Richardson step; at any point the second derivative of ``f ∘ exp`` at 0 is the Riemannian Hessian;
* :func:`critical_spectrum` — that Hessian restricted to the complement of the ``O(d)`` orbit's tangent
  space (spanned by the generator fields ``(A z_i)_i``, ``A`` antisymmetric), its eigenvalues, index and
  extra zero modes (docs/theorems.md A9);
* :func:`pair_permutations`, :func:`multiplicity_by_gram` — the configurations modulo ``O(d)`` in the
  symmetry orbit of ``z``: the number of distinct Gram matrices ``z_σ z_σᵀ`` over the permutations ``σ``
  that map the positive pairs to positive pairs (two configurations have the same Gram matrix exactly when
  an element of ``O(d)`` maps one onto the other);
* :func:`orbit_volume` — the orbit's volume density ``ω`` in closed form: the generator fields' Gram matrix
  has the eigenvalues ``μ_a + μ_b`` (``a < b``, ``μ`` the eigenvalues of ``zᵀz``), so
  ``ω = Π sqrt(μ_a + μ_b)`` over the non-zero ones, halved at rank ``d − 1`` (a reflection fixes ``z``);
* :func:`eyring_kramers_log_prefactor` — ``log(n_s·|λ₁(s)|/(2π)·sqrt(det′H(x)/|det′H(s)|)·ω_s/ω_x)``
  (Bovier, Gayrard & Klein, J. Eur. Math. Soc. 6 (2004) Thm 3.2, orbits in place of points);
* :func:`following_directions` — how many directions the documented closure follows from a minimum with
  this spectrum (docs/landscape-networks.md, "Closure"): every mode, and inside a degenerate eigenspace of
  dimension ``k`` the sums and differences of every pair (``k ≤ 3``) or of the ``k`` cyclically
  consecutive pairs (``k > 3``); each in both signs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["tangent_bases", "tangent_derivatives", "CriticalSpectrum", "critical_spectrum", "pair_permutations",
           "multiplicity_by_gram", "orbit_volume", "eyring_kramers_log_prefactor", "following_directions"]

Energy = Callable[[np.ndarray], float]


def _unit_rows(z: Any) -> np.ndarray:
    u = np.asarray(z, np.float64)
    if u.ndim != 2 or u.shape[1] < 2:
        raise ValueError(f"z has shape {u.shape}; expected (N, d) with d >= 2")
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def tangent_bases(z: Any) -> np.ndarray:
    """``(N, d, d−1)``: an orthonormal basis of the tangent space at each row of ``z`` (SVD of ``I − z_i z_iᵀ``)."""
    u = _unit_rows(z)
    d = u.shape[1]
    return np.stack([np.linalg.svd(np.eye(d) - np.outer(x, x))[0][:, : d - 1] for x in u])


def _moved(u: np.ndarray, bases: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """``exp_z`` of the tangent vector with coordinates ``coords`` ``(N·(d−1),)``: every point along its great circle."""
    n, d = u.shape
    v = np.einsum("nij,nj->ni", bases, coords.reshape(n, d - 1))
    t = np.linalg.norm(v, axis=1, keepdims=True)
    safe = np.where(t > 0, t, 1.0)
    return np.cos(t) * u + np.where(t > 0, np.sin(t) / safe, 1.0) * v


def _derivatives(energy: Energy, u: np.ndarray, bases: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    m = u.shape[0] * (u.shape[1] - 1)
    e = np.eye(m) * h
    f = lambda c: energy(_moved(u, bases, c))  # noqa: E731
    f0 = f(np.zeros(m))
    plus, minus = [f(e[a]) for a in range(m)], [f(-e[a]) for a in range(m)]
    grad = np.array([(p - q) / (2 * h) for p, q in zip(plus, minus)])
    hess = np.empty((m, m))
    for a in range(m):
        hess[a, a] = (plus[a] - 2 * f0 + minus[a]) / (h * h)
        for b in range(a + 1, m):
            hess[a, b] = hess[b, a] = (f(e[a] + e[b]) - f(e[a] - e[b]) - f(e[b] - e[a]) + f(-e[a] - e[b])) / (4 * h * h)
    return grad, hess


def tangent_derivatives(energy: Energy, z: Any, step: float = 2e-3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Riemannian gradient ``(N(d−1),)`` and Hessian ``(N(d−1), N(d−1))`` of ``energy`` at ``z`` ``(N, d)`` in the
    exponential-map coordinates of :func:`tangent_bases` (returned third), float64.

    Central differences at ``step`` and ``step/2`` combined by one Richardson step (error ``O(step⁴)``; the
    rounding floor is about ``1e-16·|V|/step²``).

    Raises:
      ValueError: ``z`` not ``(N, d)`` with ``d >= 2``, or ``step`` not in (0, 0.1].
    """
    if not 0.0 < step <= 0.1:
        raise ValueError(f"step={step!r} must be in (0, 0.1]")
    u = _unit_rows(z)
    bases = tangent_bases(u)
    g1, h1 = _derivatives(energy, u, bases, step)
    g2, h2 = _derivatives(energy, u, bases, step / 2)
    return (4 * g2 - g1) / 3, (4 * h2 - h1) / 3, bases


def _orbit_directions(u: np.ndarray, bases: np.ndarray) -> np.ndarray:
    """``(d(d−1)/2, N(d−1))``: the generator fields ``(E_ab z_i)_i`` in exponential-map coordinates."""
    n, d = u.shape
    rows = []
    for a, b in itertools.combinations(range(d), 2):
        gen = np.zeros((d, d))
        gen[a, b], gen[b, a] = 1.0, -1.0
        rows.append(np.einsum("nij,ni->nj", bases, u @ gen.T).reshape(-1))
    return np.stack(rows)


@dataclass(frozen=True)
class CriticalSpectrum:
    """A configuration classified by the finite-difference Hessian off its ``O(d)`` orbit.

    Attributes:
      gradient_norm: ``|grad V|_2`` (Riemannian, all points). eigenvalues: ascending, off the orbit directions.
      orbit_dim: dimension of the orbit's tangent space (numerical rank of the generator fields).
      orbit_dim_formula: ``r·d − r(r+1)/2`` with ``r`` the rank of ``z`` (docs/theorems.md A9).
      index: eigenvalues below ``−zero_rtol·max(1, max|λ|)``. zero_modes: eigenvalues inside that band.
    """

    gradient_norm: float
    eigenvalues: np.ndarray
    orbit_dim: int
    orbit_dim_formula: int
    index: int
    zero_modes: int


def critical_spectrum(energy: Energy, z: Any, *, step: float = 2e-3, zero_rtol: float = 1e-5) -> CriticalSpectrum:
    """:class:`CriticalSpectrum` of ``z`` (see :func:`tangent_derivatives`; ``zero_rtol``: the relative zero band,
    wide enough for the finite differences' error, about 1e-8 relative at the default step).

    Raises:
      ValueError: as :func:`tangent_derivatives`; ``zero_rtol`` not in (0, 1).
    """
    if not 0.0 < zero_rtol < 1.0:
        raise ValueError(f"zero_rtol={zero_rtol!r} must be in (0, 1)")
    u = _unit_rows(z)
    n, d = u.shape
    grad, hess, bases = tangent_derivatives(energy, u, step)
    w = _orbit_directions(u, bases)
    left, s, _ = np.linalg.svd(w.T, full_matrices=True)
    k = int(np.sum(s > 1e-8 * math.sqrt(n)))
    comp = left[:, k:]
    lam = np.linalg.eigvalsh(comp.T @ (0.5 * (hess + hess.T)) @ comp)
    band = zero_rtol * max(1.0, float(np.max(np.abs(lam), initial=0.0)))
    sv = np.linalg.svd(u, compute_uv=False)
    r = int(np.sum(sv > 1e-8 * max(1.0, float(sv.max()))))
    return CriticalSpectrum(float(np.linalg.norm(grad)), lam, k, r * d - r * (r + 1) // 2, int(np.sum(lam < -band)),
                            int(np.sum(np.abs(lam) <= band)))


def pair_permutations(num_points: int, pairs: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Every permutation ``σ`` of ``range(num_points)`` that maps the set of positive pairs (unordered) onto
    itself (for N/2 disjoint pairs: ``(N/2)!·2^{N/2}`` of them), by enumeration of all ``N!``.

    Raises:
      ValueError: ``num_points`` not in [2, 9] (the enumeration is for small N), or a pair out of range.
    """
    if not 2 <= int(num_points) <= 9:
        raise ValueError(f"num_points={num_points!r} must be in [2, 9] for the enumeration")
    edges = {frozenset((int(a), int(b))) for a, b in pairs}
    if any(not all(0 <= i < num_points for i in e) or len(e) != 2 for e in edges):
        raise ValueError(f"pairs={pairs!r} must be pairs of distinct indices in [0, {num_points})")
    return [p for p in itertools.permutations(range(num_points))
            if {frozenset((p[a], p[b])) for a, b in (tuple(e) for e in edges)} == edges]


def multiplicity_by_gram(z: Any, permutations: Sequence[Sequence[int]], tol: float = 1e-6) -> int:
    """Distinct Gram matrices ``z_σ z_σᵀ`` (entries equal to ``tol``) over ``permutations``: the copies of ``z``
    modulo ``O(d)`` in its orbit under the permutations."""
    u = _unit_rows(z)
    grams: list[np.ndarray] = []
    for p in permutations:
        g = u[list(p)] @ u[list(p)].T
        if not any(np.max(np.abs(g - h)) <= tol for h in grams):
            grams.append(g)
    return len(grams)


def orbit_volume(z: Any, rank_rtol: float = 1e-8) -> tuple[float, int]:
    """``(ω, rank)`` of the ``O(d)`` orbit through ``z`` in closed form (module docstring)."""
    u = _unit_rows(z)
    d = u.shape[1]
    mu = np.clip(np.linalg.eigvalsh(u.T @ u), 0.0, None)
    scale = max(1.0, float(mu.max()))
    rank = int(np.sum(mu > rank_rtol * scale))
    sums = [mu[a] + mu[b] for a, b in itertools.combinations(range(d), 2)]
    omega = math.prod(math.sqrt(s) for s in sums if s > rank_rtol * scale)
    return omega / (2.0 if rank == d - 1 else 1.0), rank


def eyring_kramers_log_prefactor(copies: float, saddle_eigenvalues: Sequence[float], trap_eigenvalues: Sequence[float],
                                 saddle_omega: float, trap_omega: float) -> float:
    """``log(n_s·|λ₁(s)|/(2π)·sqrt(det′H(x)/|det′H(s)|)·ω_s/ω_x)``: the log rate prefactor of one escape saddle
    (``copies`` = ``n_s``; eigenvalues off the orbit directions, the saddle's lowest negative).

    Raises:
      ValueError: ``copies`` or an ``ω`` not > 0, a trap eigenvalue not > 0, or a saddle spectrum without
        exactly one negative eigenvalue.
    """
    lam_s, lam_x = np.sort(np.asarray(saddle_eigenvalues, np.float64)), np.asarray(trap_eigenvalues, np.float64)
    if not (copies > 0 and saddle_omega > 0 and trap_omega > 0):
        raise ValueError(f"copies={copies!r}, saddle_omega={saddle_omega!r}, trap_omega={trap_omega!r} must be > 0")
    if np.any(lam_x <= 0) or int(np.sum(lam_s < 0)) != 1 or np.any(lam_s == 0):
        raise ValueError("the trap needs positive eigenvalues and the saddle exactly one negative one (none zero)")
    return (math.log(copies) + math.log(-float(lam_s[0])) - math.log(2 * math.pi)
            + 0.5 * (float(np.sum(np.log(lam_x))) - float(np.sum(np.log(np.abs(lam_s)))))
            + math.log(saddle_omega) - math.log(trap_omega))


def following_directions(eigenvalues: Sequence[float], rtol: float = 1e-5) -> int:
    """Directions the documented closure follows from a minimum with these eigenvalues (module docstring; each
    is followed in both signs, so twice as many searches). Eigenvalues within ``rtol`` (relative) of the first of
    a run of sorted values form one degenerate eigenspace."""
    lam = np.sort(np.asarray(eigenvalues, np.float64))
    count, k = int(lam.size), 0
    while k < lam.size:
        j = k + 1
        while j < lam.size and abs(lam[j] - lam[k]) <= rtol * max(1.0, abs(lam[k])):
            j += 1
        dim = j - k
        count += dim * (dim - 1) if dim <= 3 else 2 * dim
        k = j
    return count
