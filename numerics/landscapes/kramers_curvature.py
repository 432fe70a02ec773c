"""What the Eyring–Kramers prefactor needs at one critical point, dense or Hessian-free by size (A5, A9).

:func:`point_curvature` gives the verdict (index, degeneracy), ``log|det′H|``, ``tr′H``, the orbit's volume
density and, on request, the stiffest eigenvalue at a minimum or an index-1 saddle, by the path
:func:`curvature_path` picks: the dense reference (:func:`~.network.verify.classify`, every eigenvalue; the
orbit density by :func:`orbit_volume_density`, the SVD of the generator fields) up to
``N·d = HESSIAN_FREE_ABOVE``, the Hessian-free tools above (:func:`~.hessfree.verify_batch` certificates,
:func:`~.hessfree.logdet.log_determinant`, :func:`~.hessfree.logdet.log_orbit_volume_density`,
:func:`~.hessfree.logdet.stiffest_eigenvalue_bound`: no ``(N·d)²`` array). :mod:`.network_kramers` assembles the
prefactor from these.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["HESSIAN_FREE_ABOVE", "RADEMACHER_ABOVE", "RADEMACHER_PROBES", "PointCurvature", "curvature_path",
           "point_curvature", "orbit_volume_density", "HarmonicDeparture", "harmonic_departure"]

_RANK_RTOL = 1e-8
#: ``N·d`` above which the trap data and the annealing's stiffest eigenvalue are computed Hessian-free
#: (no ``(N·d)²`` array); at or below it the dense reference is used.
HESSIAN_FREE_ABOVE = 400


def orbit_volume_density(z: Any) -> tuple[float, int, int]:
    """``(ω, rank, orbit_dim)`` of the ``O(d)`` orbit through ``z`` ``(N, d)``.

    ``ω`` = product of the non-zero singular values of the generator fields ``(A_ab z_i)_i``
    (``a < b``), divided by 2 when the rank of ``z`` is ``d − 1`` (the reflection across the span fixes
    ``z``: the two components of the orbit coincide). Ratios ``ω_s/ω_x`` are the orbit-volume factor of
    the Eyring–Kramers prefactor modulo symmetry (module docstring). For ``d = 2`` and rank 2,
    ``ω = sqrt(N)`` for every configuration.
    """
    a = np.asarray(z, dtype=np.float64)
    n, d = a.shape
    sv = np.linalg.svd(a, compute_uv=False)
    rank = int(np.sum(sv > _RANK_RTOL * max(1.0, float(sv.max(initial=0.0)))))
    rows = []
    for i in range(d):
        for j in range(i + 1, d):
            f = np.zeros_like(a)
            f[:, i], f[:, j] = a[:, j], -a[:, i]
            rows.append(f.reshape(-1))
    g = np.linalg.svd(np.stack(rows), compute_uv=False) if rows else np.zeros(0)
    keep = g[g > _RANK_RTOL * math.sqrt(n)]
    omega = float(np.prod(keep)) / (2.0 if rank == d - 1 else 1.0)
    return omega, rank, int(keep.size)


@dataclass(frozen=True)
class PointCurvature:
    """What the prefactor needs at one critical point (from :func:`point_curvature`).

    Attributes:
      verified, index, reason: the verdict (dense :func:`~.network.verify.classify` or a Hessian-free certificate).
      eigenvalues: off the symmetry modes, ascending (all of them dense; the lowest few Hessian-free).
      log_abs_det, trace: ``log|det′H|`` and ``tr′H`` (NaN when not verified); error: the log-determinant's stated
      error (0 dense). stiffest: ``max|λ|`` (NaN when not asked for). log_omega, rank, orbit_dim: the orbit's volume
      density (log), rank and dimension. curvature: ``"dense"`` or ``"hessfree"``.
    """

    verified: bool
    index: int
    reason: str
    eigenvalues: tuple[float, ...]
    log_abs_det: float
    trace: float
    error: float
    stiffest: float
    log_omega: float
    rank: int
    orbit_dim: int
    curvature: str
    log_det: Any = None


#: ``N·d`` above which the Hessian-free log-determinants use Rademacher probes (``RADEMACHER_PROBES``, paired between
#: the trap and each saddle) instead of the exact sum over the coordinate vectors
RADEMACHER_ABOVE = 1024
RADEMACHER_PROBES = 256


def curvature_path(num_points: int, dim: int, curvature: str | None = None) -> str:
    """``"dense"`` or ``"hessfree"``: ``curvature`` when given, else dense up to ``N·d = HESSIAN_FREE_ABOVE``.

    Raises:
      ValueError: ``curvature`` not None, ``"dense"`` or ``"hessfree"``.
    """
    if curvature is None:
        return "dense" if num_points * dim <= HESSIAN_FREE_ABOVE else "hessfree"
    if curvature not in ("dense", "hessfree"):
        raise ValueError(f"curvature={curvature!r} must be None (by size), 'dense' or 'hessfree'")
    return curvature


def point_curvature(spec: Any, z: Any, *, expect: int, curvature: str | None = None, stiffest: bool = False,
                    seed: int = 0) -> PointCurvature:
    """Verdict, ``log|det′H|``, ``tr′H``, orbit density (and optionally ``max|λ|``) at a critical point ``z``
    ``(N, d)`` of ``spec`` expected to have index ``expect`` (0 or 1), by the path of :func:`curvature_path`
    (module docstring). float64.

    Raises:
      ValueError: a bad ``curvature``. X64DisabledError: JAX's x64 mode is off.
    """
    from contrastive_bounds.numerics._precision import require_x64

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.kramers_curvature.point_curvature")
    a = np.asarray(z, dtype=np.float64)
    n, d = a.shape
    path = curvature_path(n, d, curvature)
    if path == "dense":
        from contrastive_bounds.numerics.landscapes.network.verify import classify

        cp = classify(spec, a)
        lam = np.asarray(cp.eigenvalues, dtype=np.float64)
        omega, rank, odim = orbit_volume_density(a)
        ok = bool(cp.verified)
        return PointCurvature(ok, int(cp.index), cp.reason, tuple(float(x) for x in lam),
                              float(np.sum(np.log(np.clip(np.abs(lam), 1e-300, None)))) if ok else math.nan,
                              float(np.sum(lam)) if ok else math.nan, 0.0,
                              float(np.max(np.abs(lam))) if lam.size else 0.0, math.log(omega) if omega > 0 else -math.inf,
                              rank, odim, path)
    from contrastive_bounds.numerics.landscapes.hessfree import verify_batch
    from contrastive_bounds.numerics.landscapes.hessfree.logdet import log_determinant, log_orbit_volume_density
    from contrastive_bounds.numerics.landscapes.hessfree.logdet import stiffest_eigenvalue_bound

    orth = bool(getattr(spec.symmetry, "orthogonal", False))
    (cert,) = verify_batch(spec.potential, a[None], expect=None, orthogonal=orth, seed=seed,
                           check=_verifier(spec.potential, orth))
    ok = bool(cert.verified)
    method = "rademacher" if n * d > RADEMACHER_ABOVE else "basis"
    ld = log_determinant(spec.potential, a, lock=4, orthogonal=orth, seed=seed, method=method,
                         probes=RADEMACHER_PROBES) if ok else None
    log_omega, rank, odim = log_orbit_volume_density(a) if orth else (0.0, d, 0)
    stiff = stiffest_eigenvalue_bound(spec.potential, a, orthogonal=orth, seed=seed) if stiffest else math.nan
    return PointCurvature(ok, int(cert.index), cert.reason, tuple(float(x) for x in cert.eigenvalues),
                          ld.log_abs_det if ld else math.nan, ld.trace if ld else math.nan, ld.error if ld else 0.0,
                          stiff, log_omega, rank, odim, path, ld)


@functools.lru_cache(maxsize=16)
def _verifier(potential: Any, orthogonal: bool) -> Any:
    from contrastive_bounds.numerics.landscapes.hessfree.certify import verifier

    return verifier(potential, orthogonal=orthogonal)




@dataclass(frozen=True)
class HarmonicDeparture:
    """How far the potential at a critical point is from its quadratic model at temperature ``T`` (from
    :func:`harmonic_departure`).

    Attributes:
      departure: ``max |(V(exp_z(±k·σ·u)) − V(z)) / (k²·T/2) − 1|`` over the stable modes ``u`` (unit tangent
        eigenvectors with ``λ > 0``; ``σ = sqrt(T/λ)`` the mode's thermal width, ``k`` = ``widths``): 0 for an exactly
        quadratic potential. eigenvalue: ``λ`` of the mode where it is largest; width: its ``σ`` (radians).
      temperature: ``T``; widths: ``k``.
    """

    departure: float
    eigenvalue: float
    width: float
    temperature: float
    widths: float


def harmonic_departure(spec: Any, z: Any, temperature: float, *, widths: float = 2.0) -> HarmonicDeparture:
    """The departure of ``spec.potential`` from its quadratic model along the stable Hessian modes of the critical
    point ``z`` ``(N, d)``, ``k = widths`` thermal widths out (the premise of the Laplace integrals behind the
    Eyring–Kramers prefactor: the Boltzmann weight near the trap and across each saddle is Gaussian).

    Each stable mode ``u`` (eigenvector of the Riemannian Hessian with ``λ > 0``, rotation modes excluded by
    ``λ > 1e-6·max|λ|``) is followed along the product-sphere geodesic ``z_i cos(t|u_i|) + u_i/|u_i| sin(t|u_i|)``
    to ``t = ±k·sqrt(T/λ)``, where the quadratic model predicts ``V − V(z) = k²T/2``. Dense reference: it forms the
    ``(N·d)²`` Hessian, for ``N·d <= HESSIAN_FREE_ABOVE`` only. float64.

    Args:
      spec: a landscape spec (``potential``, ``num_points``, ``dim``). z: a critical point ``(N, d)``, unit rows.
      temperature: ``T > 0`` (units of V). widths: ``k > 0``.

    Raises:
      ValueError: bad ``temperature`` or ``widths``; ``N·d > HESSIAN_FREE_ABOVE``. X64DisabledError: x64 off.

    Source: Laplace's method (Bovier, Gayrard & Klein, J. Eur. Math. Soc. 6 (2004) §3: the prefactor is the ratio of
    the Gaussian integrals at the saddle and the minimum, exact to ``1 + O(T)`` only where the cubic and quartic terms
    are small over a thermal width).
    """
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics._precision import require_x64
    from contrastive_bounds.numerics._sphere import riemannian_hessian, tangent_basis
    from contrastive_bounds.theory._domains import check_real

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.kramers_curvature.harmonic_departure")
    t = check_real("temperature", temperature, 0.0, math.inf)
    k = check_real("widths", widths, 0.0, math.inf)
    a = np.asarray(z, dtype=np.float64)
    n, d = a.shape
    if n * d > HESSIAN_FREE_ABOVE:
        raise ValueError(f"N·d = {n * d} > {HESSIAN_FREE_ABOVE}: harmonic_departure forms the dense (N·d)² Hessian")
    za = jnp.asarray(a)
    hess = jax.hessian(lambda x: spec.potential(x.reshape(n, d)))(za.reshape(-1))
    q = tangent_basis(za)
    lam, vec = np.linalg.eigh(np.asarray(riemannian_hessian(hess, za, jax.grad(spec.potential)(za), q)))
    keep = lam > 1e-6 * max(1.0, float(np.max(np.abs(lam))))
    lam, u = lam[keep], (np.asarray(q) @ vec[:, keep]).T.reshape(-1, n, d)
    if lam.size == 0:
        return HarmonicDeparture(0.0, math.nan, math.nan, t, k)
    sigma = np.sqrt(t / lam)
    norm = np.linalg.norm(u, axis=2, keepdims=True)
    unit = np.where(norm > 0, u / np.maximum(norm, 1e-300), 0.0)
    steps = np.concatenate([k * sigma, -k * sigma])[:, None, None]
    uu, nn = np.concatenate([unit, unit]), np.concatenate([norm, norm])
    pts = np.cos(steps * nn) * a[None] + np.sin(steps * nn) * uu
    rise = np.asarray(jax.vmap(spec.potential)(jnp.asarray(pts))) - float(spec.potential(za))
    dep = np.abs(rise / (0.5 * k * k * t) - 1.0)
    worst = int(np.argmax(dep)) % lam.size
    return HarmonicDeparture(float(np.max(dep)), float(lam[worst]), float(sigma[worst]), t, k)
