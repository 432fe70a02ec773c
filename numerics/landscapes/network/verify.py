"""Verification of critical points (numpy, float64), and Newton polishing of minima (A9).

* :func:`classify_batch` — the Hessian (reduced coordinates, from one jitted kernel per spec) is
  projected onto the orthogonal complement of the ``O(d)`` orbit's tangent space (an explicit
  orthonormal basis from an SVD of the generators ``(A z_i)``, rank tolerance
  ``ORBIT_RANK_RTOL·sqrt(N)``) and diagonalised; the index counts eigenvalues below
  ``−eigenvalue_tol·max(1, max|λ|)``; eigenvalues within that band are extra zero modes
  (degenerate). A transition state is *verified* only if ``|grad V|_2 <= gradient_tol``, its index is
  exactly 1 and it has no extra zero mode; a minimum only if the gradient passes, the index is 0 and
  there is no extra zero mode (else it is reported as degenerate).
* :func:`newton_polish` — Riemannian Newton steps on the orbit complement (eigen-decomposed
  Hessian, ``|λ|`` in the denominators so a step never climbs, zero band skipped, step length at
  most 0.1), from the same kernel: quadratic convergence from an L-BFGS output to ``|grad V| ~ 1e−13``
  without compiling another kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.constants import EIGENVALUE_TOL, GRADIENT_TOL
from contrastive_bounds.numerics.landscapes.network.orbits import ORBIT_RANK_RTOL, orbit_generators
from contrastive_bounds.numerics.landscapes.network.optimize import padded_size
from contrastive_bounds.numerics.landscapes.network.saddle import critical_data

__all__ = ["CriticalPoint", "classify", "classify_batch", "newton_polish", "orbit_dimension_formula"]


@dataclass(frozen=True)
class CriticalPoint:
    """A classified critical point (float64, numpy).

    Attributes:
      z: ``(N, d)`` coordinates. energy: V(z). gradient_norm: ``|grad V|_2`` (Riemannian).
      eigenvalues: Hessian eigenvalues off the symmetry modes, ascending (unit-sphere metric): all of them
        from the dense provider; a Hessian-free provider (:mod:`.curvature`) gives the lowest it computed and
        sets ``complete_spectrum`` False.
      orbit_dim: dimension of the ``O(d)`` orbit's tangent space removed (numerical rank).
      orbit_dim_formula: ``r·d − r(r+1)/2`` with ``r`` the numerical rank of ``z``.
      orbit_residual: ``max |H u|`` over the orbit's orthonormal basis ``u`` (≈ 0 at a critical point of
        an invariant potential: a large value means the declared symmetry or the point is wrong).
      index: number of negative eigenvalues. zero_modes: eigenvalues in the zero band (degeneracy).
      kind: ``"minimum"``, ``"transition state"``, ``"saddle of index k"`` or ``"not critical"``.
      verified: the acceptance rule of the module docstring holds. reason: why not, else "".
      mode: ``(N, d)`` unit eigenvector of the lowest eigenvalue (ambient coordinates).
      modes: ``(k, N, d)`` unit eigenvectors of ``eigenvalues``, ascending (ambient).
      complete_spectrum: ``eigenvalues`` is the whole spectrum off the symmetry modes.
    """

    z: np.ndarray
    energy: float
    gradient_norm: float
    eigenvalues: np.ndarray
    orbit_dim: int
    orbit_dim_formula: int
    orbit_residual: float
    index: int
    zero_modes: int
    kind: str
    verified: bool
    reason: str
    mode: np.ndarray
    modes: np.ndarray
    complete_spectrum: bool = True


def orbit_dimension_formula(z: Any, *, rtol: float = 1e-8) -> int:
    """``r·d − r(r+1)/2``: dimension of the ``O(d)`` orbit of ``z`` (N, d) of numerical rank ``r``
    (stabiliser ``O(d − r)``; docs/theorems.md A9)."""
    a = np.asarray(z, dtype=np.float64)
    s = np.linalg.svd(a, compute_uv=False)
    r = int(np.sum(s > rtol * max(1.0, float(s.max(initial=0.0)))))
    d = a.shape[1]
    return r * d - r * (r + 1) // 2


def _data_fn(spec: Any, batch: int) -> Callable:
    def build() -> Callable:
        def one(z: jax.Array) -> tuple:
            v, g_t, h_t, _, _, q = critical_data(spec.potential, z, False)
            gens = orbit_generators(z)
            return v, g_t, h_t, q.T @ gens.T, q

        return jax.jit(jax.vmap(one))

    return spec.compiled(("critical-data", batch), build)


def _arrays(spec: Any, z: np.ndarray, chunk: int) -> list[tuple]:
    """``(V, grad_t, hess_t, generators_t, q)`` per configuration from the jitted kernel (padded chunks)."""
    b = z.shape[0]
    size = padded_size(b, chunk)
    fn = _data_fn(spec, size)
    rows: list[tuple] = []
    for lo in range(0, b, size):
        part = z[lo:lo + size]
        pad = size - part.shape[0]
        if pad:
            part = np.concatenate([part, np.repeat(part[:1], pad, axis=0)])
        out = [np.asarray(x, dtype=np.float64)[: size - pad] for x in fn(jnp.asarray(part))]
        rows.extend(zip(*out))
    return rows


def _orbit_split(spec: Any, w: np.ndarray, n: int, nt: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Orthonormal bases (reduced coordinates) of the orbit's tangent space and of its complement."""
    if not spec.symmetry.orthogonal:
        return np.zeros((nt, 0)), np.eye(nt), 0
    u, s, _ = np.linalg.svd(w, full_matrices=True)
    rank = int(np.sum(s > ORBIT_RANK_RTOL * math.sqrt(n)))
    return u[:, :rank], u[:, rank:], rank


def newton_polish(spec: Any, z: Any, *, max_steps: int = 4, gtol: float = 1e-12, chunk: int = 32,
                  eigenvalue_tol: float = EIGENVALUE_TOL) -> np.ndarray:
    """Riemannian Newton steps (module docstring) on every configuration of ``z`` (B, N, d).

    Returns the polished ``(B, N, d)`` float64 configurations; a configuration stops moving once
    ``|grad V|_2 <= gtol``. Used on L-BFGS outputs (|grad V| ~ 1e−6), which it brings to ~1e−13.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.verify.newton_polish")
    z = np.array(z, dtype=np.float64)
    b, n, d = z.shape
    active = np.ones(b, dtype=bool)
    for _ in range(max_steps):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        for k, (v, g_t, h_t, w, q) in zip(idx, _arrays(spec, z[idx], chunk)):
            if not (math.isfinite(float(v)) and np.all(np.isfinite(h_t))) or np.linalg.norm(g_t) <= gtol:
                active[k] = False
                continue
            _, comp, _ = _orbit_split(spec, w, n, h_t.shape[0])
            lam, vec = np.linalg.eigh(comp.T @ h_t @ comp)
            f = vec.T @ (comp.T @ g_t)
            band = eigenvalue_tol * max(1.0, float(np.max(np.abs(lam), initial=0.0)))
            h = np.where(np.abs(lam) > band, -f / np.where(np.abs(lam) > band, np.abs(lam), 1.0), 0.0)
            step = comp @ (vec @ h)
            norm = np.linalg.norm(step)
            if norm > 0.1:
                step *= 0.1 / norm
            x = z[k] + (q @ step).reshape(n, d)
            z[k] = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return z


def classify(spec: Any, z: Any, *, gradient_tol: float = GRADIENT_TOL, eigenvalue_tol: float = EIGENVALUE_TOL,
             expect: int | None = None) -> CriticalPoint:
    """Classify one configuration (see :func:`classify_batch`).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.verify.classify")
    return classify_batch(spec, np.asarray(z)[None], gradient_tol=gradient_tol, eigenvalue_tol=eigenvalue_tol,
                          expect=expect)[0]


def classify_batch(spec: Any, z: Any, *, gradient_tol: float = GRADIENT_TOL, eigenvalue_tol: float = EIGENVALUE_TOL,
                   expect: int | None = None, chunk: int = 32) -> list[CriticalPoint]:
    """Verify critical points: gradient, Hessian off the symmetry modes, index (module docstring).

    Args:
      spec: a :class:`~.spec.LandscapeSpec`. z: ``(B, N, d)`` float64.
      gradient_tol: acceptance bound on ``|grad V|_2``. eigenvalue_tol: relative zero band.
      expect: 0 (minimum) or 1 (transition state) — what ``verified`` means; None: either.

    Returns:
      one :class:`CriticalPoint` per configuration.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.verify.classify_batch")
    z = np.asarray(z, dtype=np.float64)
    rows = _arrays(spec, z, chunk)
    return [_classify_one(spec, z[k], *rows[k], gradient_tol, eigenvalue_tol, expect) for k in range(z.shape[0])]


def _classify_one(spec: Any, z: np.ndarray, v: float, g_t: np.ndarray, h_t: np.ndarray, w: np.ndarray,
                  q: np.ndarray, gtol: float, etol: float, expect: int | None) -> CriticalPoint:
    n, d = z.shape
    orbit, comp, rank = _orbit_split(spec, w, n, h_t.shape[0])
    residual = float(np.max(np.abs(h_t @ orbit))) if rank else 0.0
    lam, vec = np.linalg.eigh(comp.T @ h_t @ comp) if comp.shape[1] else (np.zeros(0), np.zeros((0, 0)))
    gnorm = float(np.linalg.norm(g_t))
    scale = max(1.0, float(np.max(np.abs(lam), initial=0.0)))
    band = etol * scale
    index = int(np.sum(lam < -band))
    zeros = int(np.sum(np.abs(lam) <= band))
    kk = lam.size
    modes = (q @ (comp @ vec[:, :kk])).T.reshape(kk, n, d)
    mode = modes[0] if kk else np.zeros((n, d))
    finite = math.isfinite(v) and np.all(np.isfinite(h_t))
    if not finite:
        kind = "not critical"
    elif gnorm > gtol:
        kind = "not critical"
    elif index == 0:
        kind = "minimum"
    elif index == 1:
        kind = "transition state"
    else:
        kind = f"saddle of index {index}"
    reasons = []
    if not finite:
        reasons.append("non-finite energy or Hessian")
    if gnorm > gtol:
        reasons.append(f"|grad V| = {gnorm:.3g} > gradient_tol = {gtol:.3g} (not converged)")
    if expect is not None and index != expect:
        reasons.append(f"index {index} (negative eigenvalues off the symmetry modes), expected {expect}")
    if zeros:
        reasons.append(f"{zeros} zero mode(s) beyond the {rank} symmetry mode(s) (|λ| <= {band:.3g}): degenerate")
    verified = not reasons and (expect is not None or index <= 1)
    return CriticalPoint(z.copy(), float(v), gnorm, lam, rank, orbit_dimension_formula(z) if spec.symmetry.orthogonal else 0,
                         residual, index, zeros, kind, verified, "; ".join(reasons), mode, modes)
