"""Spherical codes: K well-spread unit vectors in R^d, the cluster sites of structured starts (A9).

A *spherical code* here is a configuration of K distinct unit vectors. The structured starts of
:mod:`.structured` place the clusters of an InfoNCE configuration (collapsed pairs, ends of split
pairs, groups of negatives-only points) on the vertices of such codes. The library, for every K in a
range and every dimension ``d' <= d`` (a code of dimension ``d'`` is embedded in the first ``d'``
coordinates, so configurations confined to a great circle or a great sphere are starts too):

* :func:`polygon` — the regular K-gon (``d' = 2``; K = 2 is an antipodal pair), the optimal code on S¹;
* :func:`simplex` — the regular simplex, K <= d + 1 points with all inner products ``−1/(K − 1)``;
* :func:`cross_polytope` — ``±e_i``, 2d' points (square, octahedron, ...);
* :func:`cube` — ``(±1, …, ±1)/sqrt(d')``, 2^{d'} points (d' >= 3);
* :func:`icosahedron` — 12 points on S² (golden-ratio coordinates);
* :func:`riesz_code` — the lowest minimum found of the Riesz s-energy ``Σ_{i<j} |x_i − x_j|^{−s}``
  (s = 1: the Thomson problem, Wales & Ulker, Phys. Rev. B 74, 212101 (2006); a large s approaches the
  Tammes problem of the largest smallest distance, Saff & Kuijlaars, Math. Intelligencer 19 (1997)),
  from :data:`RIESZ_STARTS` random starts with a fixed seed (scipy L-BFGS-B on ``E(x/|x|)``, analytic
  gradient): best *found*, reproducible, not a proof of optimality.

:func:`code_library` returns the distinct codes (up to rotation, reflection and relabelling) with
``k_min <= K <= k_max`` in ``S^{d−1}``, each once.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["SphericalCode", "polygon", "simplex", "cross_polytope", "cube", "icosahedron", "riesz_code",
           "code_library", "RIESZ_STARTS", "TAMMES_EXPONENT"]

#: random starts of every Riesz-energy minimisation (fixed seed: the library is reproducible)
RIESZ_STARTS = 6
#: Riesz exponent of the Tammes proxy (large s: the energy is dominated by the smallest distances)
TAMMES_EXPONENT = 12.0
_CODE_SEED = 20250611
_CODE_TOL = 1e-5  # Gram tolerance for "the same code" (Riesz minima are refined to ~1e-9)


@dataclass(frozen=True, eq=False)
class SphericalCode:
    """K unit vectors in R^dim (rows of ``points``, float64) with a name.

    Attributes:
      name: what it is, e.g. ``"octahedron (cross-polytope, d=3)"``. points: ``(K, dim)``.
    """

    name: str
    points: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """K, the number of vertices."""
        return int(self.points.shape[0])

    @property
    def dim(self) -> int:
        """The ambient dimension of ``points``."""
        return int(self.points.shape[1])

    def embedded(self, dim: int) -> np.ndarray:
        """The vertices in R^dim (zero-padded coordinates), ``(K, dim)``; dim >= self.dim."""
        out = np.zeros((self.size, dim))
        out[:, : self.dim] = self.points
        return out


def polygon(k: int) -> SphericalCode:
    """The regular k-gon on S¹ (k >= 2; k = 2: an antipodal pair)."""
    k = check_int("k", k, 2, None)
    t = 2 * np.pi * np.arange(k) / k
    return SphericalCode(f"regular {k}-gon (d=2)", np.stack([np.cos(t), np.sin(t)], axis=1))


def simplex(k: int) -> SphericalCode:
    """The regular simplex of k >= 2 vertices in R^{k−1} (inner products ``−1/(k − 1)``)."""
    k = check_int("k", k, 2, None)
    e = np.eye(k) - 1.0 / k  # centred basis vectors span a (k−1)-dimensional subspace
    u, _, _ = np.linalg.svd(e)
    x = e @ u[:, : k - 1]
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return SphericalCode(f"regular simplex, {k} vertices (d={k - 1})", x)


def cross_polytope(d: int) -> SphericalCode:
    """``±e_i`` in R^d: 2d points (d = 2 square, d = 3 octahedron)."""
    d = check_int("d", d, 1, None)
    eye = np.eye(d)
    return SphericalCode(f"cross-polytope, {2 * d} vertices (d={d})", np.concatenate([eye, -eye]))


def cube(d: int) -> SphericalCode:
    """The hypercube ``(±1, …, ±1)/sqrt(d)``: 2^d points (d >= 2)."""
    d = check_int("d", d, 2, 12)
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * d, indexing="ij")).reshape(d, -1).T
    return SphericalCode(f"cube, {2 ** d} vertices (d={d})", signs / math.sqrt(d))


def icosahedron() -> SphericalCode:
    """The 12 vertices ``(0, ±1, ±φ)`` and cyclic permutations, normalised."""
    phi = (1 + math.sqrt(5)) / 2
    pts = []
    for a in (-1.0, 1.0):
        for b in (-phi, phi):
            pts += [(0.0, a, b), (a, b, 0.0), (b, 0.0, a)]
    x = np.array(pts)
    return SphericalCode("icosahedron, 12 vertices (d=3)", x / np.linalg.norm(x, axis=1, keepdims=True))


def _riesz_energy_grad(x: np.ndarray, k: int, d: int, s: float) -> tuple[float, np.ndarray]:
    x = x.reshape(k, d)
    r = np.linalg.norm(x, axis=1, keepdims=True)
    u = x / r
    diff = u[:, None, :] - u[None, :, :]
    dist = np.sqrt(np.sum(diff * diff, axis=-1) + np.eye(k))
    inv = dist ** (-s) * (1 - np.eye(k))
    energy = 0.5 * float(np.sum(inv))
    du = -s * np.sum((inv / dist ** 2)[:, :, None] * diff, axis=1)  # dE/du_i
    dx = (du - np.sum(du * u, axis=1, keepdims=True) * u) / r
    return energy, dx.reshape(-1)


@functools.lru_cache(maxsize=256)
def riesz_code(k: int, d: int, s: float = 1.0) -> SphericalCode:
    """The lowest minimum found of the Riesz s-energy of k points on ``S^{d−1}`` (module docstring).

    Args:
      k: points, 2 <= k <= 64. d: dimension, 2 <= d <= 16. s: Riesz exponent > 0 (1: Thomson).

    Raises:
      ValueError: naming ``k``, ``d`` or ``s`` out of range.
    """
    from scipy.optimize import minimize

    k = check_int("k", k, 2, 64)
    d = check_int("d", d, 2, 16)
    s = check_real("s", s, 0.0, 64.0)
    rng = np.random.default_rng([_CODE_SEED, k, d, int(round(1000 * s))])
    best, best_e = None, math.inf
    for _ in range(RIESZ_STARTS):
        x0 = rng.normal(size=(k, d))
        res = minimize(_riesz_energy_grad, x0.reshape(-1), args=(k, d, s), jac=True, method="L-BFGS-B",
                       options={"maxiter": 5000, "gtol": 1e-11, "ftol": 1e-15})
        if best is None or res.fun < best_e - 1e-12 * max(1.0, abs(best_e)):
            best, best_e = res.x.reshape(k, d), float(res.fun)
    x = best / np.linalg.norm(best, axis=1, keepdims=True)
    label = "Thomson" if s == 1.0 else f"Riesz s={s:g} (Tammes proxy)"
    return SphericalCode(f"{label} minimum, {k} points (d={d}, E = {best_e:.9g})", x)


def _same_code(a: SphericalCode, b: SphericalCode) -> bool:
    from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, equivalent

    if a.size != b.size:
        return False
    dim = max(a.dim, b.dim)
    return equivalent(a.embedded(dim), b.embedded(dim), Symmetry.all_points(), tol=_CODE_TOL)


@functools.lru_cache(maxsize=64)
def code_library(k_min: int, k_max: int, dim: int, *, riesz: bool = True) -> tuple[SphericalCode, ...]:
    """The distinct codes with ``k_min <= K <= k_max`` vertices in ``S^{dim−1}`` (module docstring).

    For every K: the K-gon; the simplex (K <= dim + 1); the cross-polytope (K = 2d', d' <= dim); the
    cube (K = 2^{d'}, 3 <= d' <= dim); the icosahedron (K = 12, dim >= 3); and, for ``3 <= d' <= dim``
    with K > d' + 1 (``riesz=True``), the Thomson and Tammes-proxy minima found. Codes equal up to
    O(dim) and relabelling are listed once (the first name is kept). Ordered by K, then as listed.

    Raises:
      ValueError: ``k_min < 2``, ``k_max < k_min`` or ``dim < 2`` (named).
    """
    k_min = check_int("k_min", k_min, 2, 64)
    k_max = check_int("k_max", k_max, k_min, 64)
    dim = check_int("dim", dim, 2, 16)
    out: list[SphericalCode] = []
    for k in range(k_min, k_max + 1):
        cands = [polygon(k)]
        if k <= dim + 1:
            cands.append(simplex(k))
        if k % 2 == 0 and 2 <= k // 2 <= dim:
            cands.append(cross_polytope(k // 2))
        dc = int(round(math.log2(k)))
        if 2 ** dc == k and 3 <= dc <= dim:
            cands.append(cube(dc))
        if k == 12 and dim >= 3:
            cands.append(icosahedron())
        if riesz:
            for dd in range(3, dim + 1):
                if k > dd + 1:
                    cands += [riesz_code(k, dd, 1.0), riesz_code(k, dd, TAMMES_EXPONENT)]
        for c in cands:
            if c.dim <= dim and not any(_same_code(c, o) for o in out if o.size == k):
                out.append(c)
    return tuple(out)
