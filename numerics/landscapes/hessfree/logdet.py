"""Log-determinants and traces of the deflated Riemannian Hessian without a Hessian matrix (A5, A9).

The Eyring–Kramers prefactor needs ``log det′H(x)`` at a minimum and ``log |det′H(s)|`` at an index-1 saddle
(``det′``: over the modes off the symmetry orbit), and the Euler bias of the annealing chains needs the
traces ``tr′H``. Here they come from Hessian–vector products only (:mod:`.spectrum`), as
``log |det′H| = Σ_{i<k} log|λ_i| + tr log(H|_C)``:

* the ``k`` softest eigenpairs ``(λ_i, y_i)`` by thick-restart Lanczos (:func:`~.spectrum.softest_modes`,
  explicit residuals): at a saddle the negative eigenvalue is taken from there, never from the quadrature;
* ``tr f(H|_C)`` on the complement ``C`` of those modes (positive definite at a minimum and at an index-1
  saddle; its condition number ``κ = λ_max/λ_{k+1}`` is that of ``H`` with its soft end cut off) by Lanczos
  quadrature (Golub & Meurant, Matrices, Moments and Quadrature, 2010, Ch. 6-7): ``vᵀf(A)v ≈ |v|²Σ_j w_j f(θ_j)``
  with the Ritz values ``θ_j`` and squared first components ``w_j`` of ``m`` Lanczos steps (full
  reorthogonalisation) from ``v``, for ``f = log`` and ``f = id`` (exact for the trace: ``m >= 1``);
* the probes ``v = P_C e``: either every coordinate vector ``e_i`` of ``R^{N·d}`` (``method="basis"``: then
  ``Σ_i e_iᵀ P_C f(A) P_C e_i = tr f(A|_C)`` exactly, only the quadrature errs; ``N·d`` Lanczos runs) or
  i.i.d. Rademacher vectors (``method="rademacher"``: stochastic Lanczos quadrature, Ubaru, Chen & Saad,
  SIAM J. Matrix Anal. Appl. 38 (2017) 1075; unbiased up to the quadrature, with a CLT confidence interval
  over the probes).

Stated errors (:class:`LogDeterminant`): ``quadrature_bound``, the Gauss-quadrature bound of Ubaru, Chen &
Saad (2017, Thm 4.2 with Cor. 4.5's constants for ``log``) per unit probe, ``K·ρ^{−2m}``, ``ρ = (√κ+1)/(√κ−1)``,
``K = 5κ·log(2(κ+1))/(2√(2κ+1))``, times ``Σ|v|²`` — rigorous given ``κ`` (``λ_{k+1}`` from the Lanczos
lower bound); ``quadrature_change``, the change of the estimate from ``3m/4`` to ``m`` steps (what the bound
says in practice); ``stderr``, the standard error over probes (0 for ``"basis"``). Memory: a chunk of
probes times ``(m + 1)·N·d`` numbers; no ``(N·d)²`` array.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian, locked_operator, softest_modes
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["LogDeterminant", "log_determinant", "paired_difference", "stiffest_eigenvalue_bound", "orbit_volume_density", "log_orbit_volume_density",
           "quadrature_bound", "lanczos_quadrature"]

_BREAKDOWN_RTOL = 1e-10
Potential = Callable[[jax.Array], jax.Array]


def lanczos_quadrature(matvec: Callable, project: Callable, v: jax.Array, steps: int) -> tuple[jax.Array, jax.Array]:
    """``(T (steps, steps), |v|²)``: the Lanczos tridiagonal matrix of ``matvec`` from ``project(v)``, full
    reorthogonalisation (Gram–Schmidt twice); after a breakdown (an invariant subspace: the quadrature is then
    exact) the remaining rows are zero. Pure JAX (vmap over ``v``).

    The Gauss rule of ``m <= steps`` nodes is ``eigh(T[:m, :m])``: nodes ``θ``, weights ``|v|²·s_{0j}²``
    (Golub & Meurant 2010, Thm 6.2). Raises X64DisabledError: JAX's x64 mode is off and ``v`` is float64.
    """
    require_x64(v, what="contrastive_bounds.numerics.landscapes.hessfree.logdet.lanczos_quadrature")
    v = project(v)
    nv2 = jnp.sum(v * v)
    q0 = v / jnp.sqrt(jnp.maximum(nv2, 1e-300))
    basis = jnp.zeros((steps + 1,) + v.shape, v.dtype).at[0].set(q0)

    def body(j: jax.Array, carry: tuple) -> tuple:
        basis, alpha, beta, alive = carry
        w = project(matvec(basis[j]))
        a = jnp.sum(basis[j] * w)
        for _ in range(2):
            w = w - jnp.tensordot(jnp.tensordot(basis, w, axes=((1, 2), (0, 1))), basis, axes=(0, 0))
        w = project(w)
        b = jnp.linalg.norm(w)
        ok = alive & (b > _BREAKDOWN_RTOL * jnp.maximum(jnp.abs(a), 1e-300))
        alpha = alpha.at[j].set(jnp.where(alive, a, 0.0))
        beta = beta.at[j].set(jnp.where(ok, b, 0.0))
        basis = basis.at[j + 1].set(jnp.where(ok, w / jnp.maximum(b, 1e-300), 0.0))
        return basis, alpha, beta, ok

    init = (basis, jnp.zeros(steps, v.dtype), jnp.zeros(steps, v.dtype), nv2 > 0)
    _, alpha, beta, _ = jax.lax.fori_loop(0, steps, body, init)
    t = jnp.diag(alpha) + jnp.diag(beta[:-1], 1) + jnp.diag(beta[:-1], -1)
    return t, nv2


def _gauss(t: jax.Array, nv2: jax.Array, m: int) -> tuple[jax.Array, jax.Array]:
    """``(Σ w log|θ|, Σ w θ)`` of the ``m``-node rule (zero-weight nodes, e.g. after a breakdown, skipped)."""
    theta, s = jnp.linalg.eigh(t[:m, :m])
    w = nv2 * s[0] ** 2
    live = w > 1e-300
    logs = jnp.log(jnp.where(live, jnp.abs(theta), 1.0))
    return jnp.sum(jnp.where(live, w * logs, 0.0)), jnp.sum(w * theta)


@functools.lru_cache(maxsize=16)
def _kernel(potential: Potential, orthogonal: bool, steps: int) -> Callable:
    m_low = max(1, (3 * steps) // 4)

    def run(z: jax.Array, lock: jax.Array, probes: jax.Array) -> tuple:
        op = locked_operator(deflated_hessian(potential, z, orthogonal), lock)

        def one(v: jax.Array) -> tuple:
            t, nv2 = lanczos_quadrature(op.matvec, op.project, v, steps)
            lg, tr = _gauss(t, nv2, steps)
            lg_low, _ = _gauss(t, nv2, m_low)
            return lg, lg_low, tr, nv2

        return jax.vmap(one)(probes)

    return jax.jit(run)


@functools.lru_cache(maxsize=16)
def _modes(potential: Potential, orthogonal: bool, k: int) -> Callable:
    return jax.jit(lambda z, key: softest_modes(potential, z, key, k=k, orthogonal=orthogonal, krylov_dim=max(32, k + 8),
                                                max_restarts=60, tol=1e-11))


def quadrature_bound(kappa: float, steps: int) -> float:
    """Ubaru, Chen & Saad (2017) Thm 4.2 / Cor. 4.5 bound on ``|vᵀlog(A)v − Q_m|`` per unit ``|v|²`` for a
    positive definite ``A`` with condition number ``kappa`` (>= 1) and ``steps`` = m Gauss nodes:
    ``K·ρ^{−2m}``, ``ρ = (√κ+1)/(√κ−1)``, ``K = 5κ·log(2(κ+1))/(2√(2κ+1))`` (``inf`` for a non-finite κ)."""
    if not math.isfinite(kappa) or kappa < 1:
        return math.inf
    if math.sqrt(kappa) - 1 <= 0:
        return 0.0
    rho = (math.sqrt(kappa) + 1) / (math.sqrt(kappa) - 1)
    big_k = 5 * kappa * math.log(2 * (kappa + 1)) / (2 * math.sqrt(2 * kappa + 1))
    return big_k * math.exp(-2 * steps * math.log(rho))


@dataclass(frozen=True)
class LogDeterminant:
    """``log|det′H|`` and ``tr′H`` at a critical point, Hessian-free (module docstring).

    Attributes:
      log_abs_det: the estimate of ``Σ log|λ|`` over the modes off the symmetry orbit. trace: ``Σ λ``.
      stderr: standard error over probes (0 for ``method="basis"``; then the sum is exact up to the quadrature).
      quadrature_bound: Ubaru–Chen–Saad bound on the quadrature error of the complement (units of log det).
      quadrature_change: ``|estimate(m) − estimate(3m/4)|`` of the complement.
      locked: ``(k,)`` the softest eigenvalues taken from Lanczos (ascending; the negative one at a saddle).
      locked_residuals: their residual norms. lambda_max: largest Ritz value seen. kappa: condition number of
        the complement (``λ_max / lower bound of λ_{k+1}``). dimension: modes off the orbit (``N(d−1) − orbit``).
      negative: eigenvalues below zero among the locked ones. method, probes, steps: how it was computed.
      matvecs: Hessian–vector products used. seconds: wall time.
      samples: per-probe estimates of the complement's ``tr log`` (``"rademacher"``; empty for ``"basis"``): two
        points computed with the same seed share their probes, so the difference of their samples estimates the
        difference of log-determinants with a much smaller spread than either (:func:`paired_difference`).
    """

    log_abs_det: float
    trace: float
    stderr: float
    quadrature_bound: float
    quadrature_change: float
    locked: tuple[float, ...]
    locked_residuals: tuple[float, ...]
    lambda_max: float
    kappa: float
    dimension: int
    negative: int
    method: str
    probes: int
    steps: int
    matvecs: int
    seconds: float
    samples: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    @property
    def error(self) -> float:
        """The stated error of :attr:`log_abs_det`: ``1.96·stderr + min(quadrature_bound, 2·quadrature_change)`` — a
        95% CLT half-width over the probes plus the quadrature's error (the rigorous bound where it is the smaller;
        else twice the change from ``3m/4`` to ``m`` steps, an estimate: Gauss quadrature converges geometrically)."""
        return 1.96 * self.stderr + min(self.quadrature_bound, 2.0 * self.quadrature_change)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        out = {k: v for k, v in self.__dict__.items() if k != "samples"}
        out["locked"], out["locked_residuals"] = list(self.locked), list(self.locked_residuals)
        out["error"] = self.error
        return out


def log_determinant(potential: Potential, z: Any, *, lock: int = 4, method: str = "basis", probes: int = 256,
                    steps: int = 32, chunk: int = 128, orthogonal: bool = True, seed: int = 0) -> LogDeterminant:
    """``log|det′H(z)|`` and ``tr′H(z)`` of the deflated Riemannian Hessian at a critical point (module docstring).

    Args:
      potential: pure JAX ``V``, ``(N, d) -> ()``. z: ``(N, d)`` float64 unit rows (a minimum or an index-1 saddle:
        the complement of the locked modes must be positive definite). lock: softest modes taken from Lanczos
        (>= 1; at a saddle the first is the negative one). method: ``"basis"`` (exact sum over the ``N·d``
        coordinate vectors) or ``"rademacher"`` (``probes`` random sign vectors). probes: >= 2 (rademacher).
      steps: Lanczos steps per probe, >= 4. chunk: probes vmapped at once, >= 1. orthogonal: ``V`` is
      ``O(d)``-invariant. seed: PRNG seed (Lanczos starts, Rademacher probes; the same seed at two points
      gives the same probes: their difference has correlated errors).

    Returns:
      :class:`LogDeterminant` (float64).

    Raises:
      ValueError: a bad ``method``, ``lock``, ``probes``, ``steps`` or ``chunk`` (named); a complement that is not
        positive definite (more negative eigenvalues than locked modes, or a zero mode beyond the symmetry).
      X64DisabledError: JAX's x64 mode is off.
    """
    import time

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.hessfree.log_determinant")
    if method not in ("basis", "rademacher"):
        raise ValueError(f"method={method!r} must be 'basis' or 'rademacher'")
    for name, val, lo in (("lock", lock, 1), ("probes", probes, 2), ("steps", steps, 4), ("chunk", chunk, 1)):
        if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val < lo:
            raise ValueError(f"{name}={val!r} must be an integer >= {lo}")
    began = time.perf_counter()
    a = jnp.asarray(np.asarray(z, dtype=np.float64))
    n, d = a.shape
    key = jax.random.key(seed)
    sp = _modes(potential, bool(orthogonal), int(lock) + 1)(a, key)
    valid = np.asarray(sp.valid)
    theta = np.asarray(sp.eigenvalues, dtype=np.float64)[valid]
    res = np.asarray(sp.residual_norms, dtype=np.float64)[valid]
    dim = n * (d - 1) - int(sp.orbit_dim)
    k = min(int(lock), theta.size)
    locked, locked_res = theta[:k], res[:k]
    if theta.size > k and not theta[k] - res[k] > 0:
        raise ValueError(f"the Hessian has a non-positive eigenvalue beyond the {k} locked modes (θ = {theta[k]:.3g} ± "
                         f"{res[k]:.2g}): its complement is not positive definite; lock more modes or check the point")
    if np.any(np.abs(locked) <= locked_res):
        raise ValueError(f"a locked eigenvalue is not resolved away from zero ({locked.tolist()} ± {locked_res.tolist()}):"
                         " log|det| diverges (a zero mode beyond the symmetry)")
    lock_vecs = jnp.asarray(np.asarray(sp.modes)[:k])
    top = float(sp.top)
    base_log = float(np.sum(np.log(np.abs(locked))))
    base_tr = float(np.sum(locked))
    if dim <= k:
        return LogDeterminant(base_log, base_tr, 0.0, 0.0, 0.0, tuple(locked.tolist()), tuple(locked_res.tolist()), top,
                              1.0, dim, int(np.sum(locked < 0)), method, 0, int(steps), int(sp.matvecs),
                              time.perf_counter() - began)
    fn = _kernel(potential, bool(orthogonal), int(steps))
    if method == "basis":
        total = n * d
        make = lambda lo, hi: jnp.eye(total, dtype=jnp.float64)[lo:hi].reshape(hi - lo, n, d)  # noqa: E731
    else:
        total = int(probes)
        signs = jax.random.rademacher(jax.random.fold_in(key, 7), (total, n, d), dtype=jnp.float64)
        make = lambda lo, hi: signs[lo:hi]  # noqa: E731
    lg, lg_low, tr = [], [], []
    for lo in range(0, total, int(chunk)):
        hi = min(total, lo + int(chunk))
        block = make(lo, hi)
        if hi - lo < chunk:  # one compiled size: pad with zero probes (weight 0)
            block = jnp.concatenate([block, jnp.zeros((chunk - (hi - lo), n, d))])
        out = fn(a, lock_vecs, block)
        lg.append(np.asarray(out[0])[: hi - lo])
        lg_low.append(np.asarray(out[1])[: hi - lo])
        tr.append(np.asarray(out[2])[: hi - lo])
    lg_a, low_a, tr_a = np.concatenate(lg), np.concatenate(lg_low), np.concatenate(tr)
    if method == "basis":
        est, est_low, est_tr, se = float(np.sum(lg_a)), float(np.sum(low_a)), float(np.sum(tr_a)), 0.0
    else:
        est, est_low, est_tr = float(np.mean(lg_a)), float(np.mean(low_a)), float(np.mean(tr_a))  # E[rᵀP f P r] = tr
        se = float(np.std(lg_a, ddof=1) / math.sqrt(total))
    mass = float(dim - k)
    lower_next = float(theta[k] - res[k]) if theta.size > k else float(theta[-1])
    kappa = max(1.0, top / lower_next) if lower_next > 0 else math.inf
    bound = quadrature_bound(kappa, int(steps)) * mass
    matvecs = int(sp.matvecs) + total * int(steps)
    return LogDeterminant(base_log + est, base_tr + est_tr, se, bound, abs(est - est_low), tuple(locked.tolist()),
                          tuple(locked_res.tolist()), top, kappa, dim, int(np.sum(locked < 0)), method,
                          total, int(steps), matvecs, time.perf_counter() - began,
                          lg_a.copy() if method == "rademacher" else np.zeros(0))


def paired_difference(a: LogDeterminant, b: LogDeterminant) -> tuple[float, float]:
    """``(log|det′H_a| − log|det′H_b|, stated error)``.

    With Rademacher probes shared by both (the same ``seed``, the same shape): the mean of the per-probe differences
    plus the locked parts, error ``1.96·(standard error of the differences) + both quadrature errors`` (common random
    numbers: the spread of the difference, not of either estimate). Otherwise the difference of the two estimates with
    the sum of their errors.

    Raises:
      ValueError: samples of different lengths (different probe counts).
    """
    quad = min(a.quadrature_bound, 2 * a.quadrature_change) + min(b.quadrature_bound, 2 * b.quadrature_change)
    if a.samples.size and b.samples.size:
        if a.samples.size != b.samples.size:
            raise ValueError(f"samples of {a.samples.size} and {b.samples.size} probes: not paired")
        diff = a.samples - b.samples
        se = float(np.std(diff, ddof=1) / math.sqrt(diff.size))
        return a.log_abs_det - b.log_abs_det, 1.96 * se + quad
    return a.log_abs_det - b.log_abs_det, a.error + b.error


@functools.lru_cache(maxsize=16)
def _extremes(potential: Potential, orthogonal: bool) -> Callable:
    from contrastive_bounds.numerics.landscapes.hessfree.lanczos import lanczos_lowest

    def run(z: jax.Array, key: jax.Array) -> tuple:
        op = deflated_hessian(potential, z, orthogonal)
        k1, k2, k3 = jax.random.split(key, 3)
        v0 = jax.random.normal(k1, z.shape, z.dtype)
        low = lanczos_lowest(op.matvec, op.project, v0, k2, k=1, krylov_dim=24, max_restarts=40, tol=1e-8)
        high = lanczos_lowest(lambda u: -op.matvec(u), op.project, v0, k3, k=1, krylov_dim=24, max_restarts=40,
                              tol=1e-8)
        return low.eigenvalues[0], low.residual_norms[0], -high.eigenvalues[0], high.residual_norms[0]

    return jax.jit(run)


def stiffest_eigenvalue_bound(potential: Potential, z: Any, *, orthogonal: bool = True, seed: int = 0) -> float:
    """An upper bound on the largest ``|λ|`` of the deflated Riemannian Hessian at ``z`` ``(N, d)`` float64,
    Hessian-free: Lanczos on ``H`` and on ``−H`` (one eigenpair each, relative tolerance 1e-8),
    ``max(|λ_min|, |λ_max|)`` plus the larger residual norm (a bound under the Krylov assumption of
    :mod:`.certify`; above the true value by at most about 1e-6 relative). Units of V (unit-sphere metric): the
    Euler step's stability number is ``h·λ``. The step-size rule of ``anneal --search`` takes it through
    :func:`~contrastive_bounds.numerics.langevin.network_anneal.stiffest_eigenvalue`, which switches between
    this bound (large ``N·d``) and the dense spectrum; named ``stiffest_eigenvalue`` here before (a deprecated
    alias until the next release).

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.hessfree.logdet.stiffest_eigenvalue_bound")
    lo, rlo, hi, rhi = (float(x) for x in _extremes(potential, bool(orthogonal))(
        jnp.asarray(np.asarray(z, dtype=np.float64)), jax.random.key(seed)))
    return max(abs(lo), abs(hi)) + max(rlo, rhi)


def orbit_volume_density(z: Any, rank_rtol: float = 1e-8) -> tuple[float, int, int]:
    """``(ω, rank, orbit_dim)`` of the ``O(d)`` orbit through ``z`` ``(N, d)`` in ``O(N d² + d³)``.

    The generator fields ``(A_ab z_i)_i`` of an orthonormal basis of ``so(d)`` have singular values
    ``sqrt(σ_a + σ_b)`` (``a < b``, ``σ`` the eigenvalues of ``zᵀz``; :mod:`.deflation`), so ``ω`` = the product
    of those above ``rank_rtol·sqrt(N)``, halved at rank ``d − 1`` — the value of the dense
    :func:`~contrastive_bounds.numerics.landscapes.network_kramers.orbit_volume_density` (which takes the SVD of
    the ``d(d−1)/2 × N·d`` generator matrix), returned as a float (``inf`` or 0 when it over/underflows: use
    :func:`log_orbit_volume_density` then).
    """
    lw, rank, odim = log_orbit_volume_density(z, rank_rtol)
    return math.exp(lw) if lw < 700 else math.inf, rank, odim


def log_orbit_volume_density(z: Any, rank_rtol: float = 1e-8) -> tuple[float, int, int]:
    """``(log ω, rank, orbit_dim)``: :func:`orbit_volume_density` on a log scale (no overflow at large ``d``)."""
    a = np.asarray(z, dtype=np.float64)
    n, d = a.shape
    sv = np.linalg.svd(a, compute_uv=False)
    rank = int(np.sum(sv > rank_rtol * max(1.0, float(sv.max(initial=0.0)))))
    _, w = np.linalg.eigh(a.T @ a)
    sigma = np.sum((a @ w) ** 2, axis=0)
    iu = np.triu_indices(d, 1)
    g = np.sqrt(sigma[iu[0]] + sigma[iu[1]])
    keep = g[g > rank_rtol * math.sqrt(n)]
    return float(np.sum(np.log(keep))) - (math.log(2.0) if rank == d - 1 else 0.0), rank, int(keep.size)


def __getattr__(name: str) -> Any:
    """``stiffest_eigenvalue``: the former name of :func:`stiffest_eigenvalue_bound` (DeprecationWarning)."""
    if name == "stiffest_eigenvalue":
        import warnings

        warnings.warn("contrastive_bounds.numerics.landscapes.hessfree.logdet.stiffest_eigenvalue is deprecated and "
                      "will be removed in the next minor release (0.2.0): use stiffest_eigenvalue_bound (an upper "
                      "bound by Lanczos), not numerics.langevin.network_anneal.stiffest_eigenvalue",
                      DeprecationWarning, stacklevel=2)
        return stiffest_eigenvalue_bound
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
