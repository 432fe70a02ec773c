"""Lowest eigenpairs of a symmetric operator on ``(N, d)`` arrays: thick-restart Lanczos (A9).

:func:`lanczos_lowest` finds the ``k`` lowest eigenpairs of a symmetric linear map ``A`` restricted to
the range of an orthogonal projector ``D`` (here: the Riemannian Hessian on the tangent space with the
symmetry modes deflated), from products ``A v`` only. Algorithm: Lanczos with full
reorthogonalisation (classical Gram–Schmidt, twice: "twice is enough", Giraud et al., Numer. Math.
101 (2005)) and thick restart (Wu & Simon, SIAM J. Matrix Anal. Appl. 22 (2000)): each cycle extends
the basis to ``krylov_dim`` vectors, the projected matrix ``T = VᵀAV`` (filled column by column from
``Vᵀ(A v_j)``, so the arrowhead block after a restart needs no special case) is diagonalised, and the
``keep`` lowest Ritz vectors plus the last Lanczos vector start the next cycle. The cycles stop when
the Lanczos residual estimates ``|β s_{m,i}|`` of the ``k`` wanted pairs are at most
``tol·max(1, max|θ|)``, or after ``max_restarts`` restarts.

Breakdown (``A v_j`` within ``1e−8`` of the span of the basis: a nearly invariant subspace) continues from
a random vector orthogonalised against the basis (``T`` stays exact, being computed from explicit
products; every new vector is projected again, so rounding outside the range is not amplified); when nothing is left (the deflated space has fewer dimensions than
the basis, small problems), the remaining slots are marked dead and their Ritz values excluded, so a
small problem's whole spectrum comes out exactly. The returned residual norms ``|A y − θ y|`` are
recomputed explicitly from ``k`` more products (not the recurrence's estimate), for the certificates
of :mod:`.certify`.

Everything is in one ``lax.while_loop`` (cycles) around ``lax.fori_loop`` (Lanczos steps): pure JAX,
jit/vmap-able. Memory: the basis, ``(krylov_dim + 1)·N·d`` numbers, and ``krylov_dim²``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64

__all__ = ["LanczosResult", "lanczos_lowest", "lanczos_matvecs"]

_BREAKDOWN_RTOL = 1e-8   # |w| after orthogonalisation below this fraction of |A v|: (nearly) invariant subspace
_EXHAUSTED_RTOL = 1e-8   # a random vector keeps less than this fraction after orthogonalisation: no room left

Operator = Callable[[jax.Array], jax.Array]


class LanczosResult(NamedTuple):
    """Lowest Ritz pairs of :func:`lanczos_lowest` (JAX arrays; a leading batch axis under vmap).

    Attributes:
      eigenvalues: ``(k,)`` Ritz values, ascending (each an upper bound on the eigenvalue of that rank).
      eigenvectors: ``(k, N, d)`` orthonormal Ritz vectors in the range of the projector.
      residual_norms: ``(k,)`` explicit ``|A y − θ y|_2`` (the Lanczos estimates when called with
        ``residuals=False``).
      valid: ``(k,)`` bool: the deflated space has at least ``i + 1`` dimensions (else the pair is padding).
      top: the largest Ritz value of the last cycle (a lower bound on ``λ_max``; a scale for tolerances).
      matvecs: products with ``A`` used (int32). restarts: restarts done (int32).
      converged: every valid wanted pair's Lanczos estimate met the tolerance.
    """

    eigenvalues: jax.Array
    eigenvectors: jax.Array
    residual_norms: jax.Array
    valid: jax.Array
    top: jax.Array
    matvecs: jax.Array
    restarts: jax.Array
    converged: jax.Array


def _keep(k: int, krylov_dim: int) -> int:
    return min(krylov_dim - 2, max(k + 1, krylov_dim // 2))


def lanczos_matvecs(k: int, krylov_dim: int, restarts: int, residuals: bool = True) -> int:
    """Products with ``A`` used by :func:`lanczos_lowest` after ``restarts`` restarts (for budgets)."""
    return krylov_dim + restarts * (krylov_dim - _keep(k, krylov_dim)) + (k if residuals else 0)


def _dot(basis: jax.Array, w: jax.Array) -> jax.Array:
    return jnp.tensordot(basis, w, axes=((1, 2), (0, 1)))


def _combine(coef: jax.Array, basis: jax.Array) -> jax.Array:
    return jnp.tensordot(coef, basis, axes=(0, 0))


def _orthogonalise(basis: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
    h = _dot(basis, w)
    w = w - _combine(h, basis)
    h2 = _dot(basis, w)
    return w - _combine(h2, basis), h + h2


def lanczos_lowest(matvec: Operator, project: Operator, v0: jax.Array, key: jax.Array, *, k: int,
                   krylov_dim: int = 24, max_restarts: int = 30, tol: float = 1e-10, converge: int | None = None,
                   residuals: bool = True) -> LanczosResult:
    """The ``k`` lowest eigenpairs of ``A`` on the range of the projector ``D`` (module docstring).

    Args:
      matvec: ``v -> A v`` for ``v`` of shape ``(N, d)``, linear and symmetric on the range of ``project``.
      project: ``v -> D v``, an orthogonal projector (applied to every new vector and product).
      v0: ``(N, d)`` start vector (projected; a random start if it has no component in the range).
      key: a JAX PRNG key (random vectors after a breakdown or a zero start).
      k: eigenpairs wanted, ``1 <= k <= krylov_dim − 3``. krylov_dim: basis size per cycle (static).
      max_restarts: restarts at most (static bound of the loop). tol: relative tolerance on the
        Lanczos residual estimates (the explicit residuals are returned for the certificate).
      converge: how many of the lowest pairs must meet ``tol`` (default ``k``; eigenvector following
        converges the followed mode only). residuals: compute the explicit residual norms (``k`` more
        products); False returns the Lanczos estimates ``|β s_{m,i}|`` instead (for inner loops).

    Returns:
      :class:`LanczosResult`. Source: Wu & Simon (2000); Parlett, The Symmetric Eigenvalue Problem (1998),
      Ch. 13.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``v0`` is float64.
      ValueError: ``k`` or ``krylov_dim`` out of range (named).
    """
    require_x64(v0, what="contrastive_bounds.numerics.landscapes.hessfree.lanczos.lanczos_lowest")
    m = int(krylov_dim)
    if not 1 <= int(k) <= m - 3:
        raise ValueError(f"k={k} must be in [1, krylov_dim − 3 = {m - 3}] (krylov_dim={krylov_dim})")
    k = int(k)
    kc = k if converge is None else int(converge)
    if not 1 <= kc <= k:
        raise ValueError(f"converge={converge} must be in [1, k = {k}]")
    p = _keep(k, m)
    dtype = v0.dtype
    shape = v0.shape

    def random_unit(j: jax.Array, basis: jax.Array) -> tuple[jax.Array, jax.Array]:
        r = project(jax.random.normal(jax.random.fold_in(key, j), shape, dtype))
        r0 = jnp.linalg.norm(r)
        r = project(_orthogonalise(basis, r)[0])
        rn = jnp.linalg.norm(r)
        ok = rn > _EXHAUSTED_RTOL * jnp.maximum(r0, 1e-300)
        return jnp.where(ok, r / jnp.maximum(rn, 1e-300), 0.0), ok

    start = project(v0)
    s0 = jnp.linalg.norm(start)
    basis0 = jnp.zeros((m + 1, *shape), dtype)
    rnd, rnd_ok = random_unit(jnp.asarray(-1), basis0)
    has_start = s0 > 1e-300
    first = jnp.where(has_start, start / jnp.maximum(s0, 1e-300), rnd)
    basis0 = basis0.at[0].set(first)
    live0 = jnp.zeros(m + 1, bool).at[0].set(has_start | rnd_ok)

    def step(j: jax.Array, carry: tuple) -> tuple:
        basis, t, live, beta, salt = carry
        v = basis[j]
        av = project(matvec(v))
        w, h = _orthogonalise(basis, av)
        w = project(w)  # rounding outside the range would be amplified by the normalisation near breakdown
        col = jnp.where(jnp.arange(m) <= j, h[:m], 0.0)
        t = t.at[:, j].set(col).at[j, :].set(col)
        bw = jnp.linalg.norm(w)
        broke = bw <= _BREAKDOWN_RTOL * jnp.maximum(jnp.linalg.norm(av), 1e-300)
        # a random restart vector only on breakdown (a real branch outside vmap; both sides under vmap)
        nxt, rnd_ok = jax.lax.cond(broke, lambda: random_unit(salt * (m + 1) + j, basis),
                                   lambda: (w / jnp.maximum(bw, 1e-300), jnp.asarray(True)))
        alive = live[j] & (~broke | rnd_ok)
        basis = basis.at[j + 1].set(jnp.where(alive, nxt, 0.0))
        live = live.at[j + 1].set(alive)
        return basis, t, live, jnp.where(broke, 0.0, bw).astype(dtype), salt

    def ritz(t: jax.Array, live: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        lv = live[:m]
        both = lv[:, None] & lv[None, :]
        big = 2.0 * (1.0 + m * jnp.max(jnp.abs(t)))
        teff = jnp.where(both, t, 0.0) + jnp.diag(jnp.where(lv, 0.0, big))
        theta, s = jnp.linalg.eigh(0.5 * (teff + teff.T))
        return theta, s, jnp.sum(lv)

    def cycle(state: tuple) -> tuple:
        basis, t, live, j0, restarts, _, _, _ = state
        basis, t, live, beta, _ = jax.lax.fori_loop(j0, m, step, (basis, t, live, jnp.zeros((), dtype), restarts))
        theta, s, nlive = ritz(t, live)
        scale = jnp.maximum(1.0, jnp.max(jnp.abs(jnp.where(jnp.arange(m) < nlive, theta, 0.0))))
        est = jnp.abs(beta * s[m - 1, :kc])
        converged = jnp.all((est <= tol * scale) | (jnp.arange(kc) >= nlive))
        # restart: the p lowest Ritz vectors, then the last Lanczos vector
        kept = _combine(s[:, :p], basis[:m])
        new_basis = jnp.zeros_like(basis).at[:p].set(kept).at[p].set(basis[m])
        new_t = jnp.zeros_like(t).at[jnp.arange(p), jnp.arange(p)].set(theta[:p])
        new_live = jnp.zeros_like(live).at[:p].set(jnp.arange(p) < nlive).at[p].set(live[m])
        done = converged | (restarts >= max_restarts)
        out_basis = jnp.where(done, basis, new_basis)
        out_t = jnp.where(done, t, new_t)
        out_live = jnp.where(done, live, new_live)
        return (out_basis, out_t, out_live, jnp.asarray(p), restarts + jnp.where(done, 0, 1), converged, done, beta)

    state = (basis0, jnp.zeros((m, m), dtype), live0, jnp.asarray(0), jnp.asarray(0), jnp.asarray(False),
             jnp.asarray(False), jnp.zeros((), dtype))
    basis, t, live, _, restarts, converged, _, beta = jax.lax.while_loop(lambda st: ~st[6], cycle, state)
    theta, s, nlive = ritz(t, live)
    vecs = _combine(s[:, :k], basis[:m])
    vecs = jax.vmap(project)(vecs)
    norms = jnp.linalg.norm(vecs.reshape(k, -1), axis=1)
    vecs = vecs / jnp.maximum(norms, 1e-300)[:, None, None]
    lam = theta[:k]
    if residuals:
        av = jax.vmap(lambda y: project(matvec(y)))(vecs)
        res = jnp.linalg.norm((av - lam[:, None, None] * vecs).reshape(k, -1), axis=1)
    else:
        res = jnp.abs(beta * s[m - 1, :k])
    valid = jnp.arange(k) < nlive
    top = jnp.max(jnp.where(jnp.arange(m) < nlive, theta, -jnp.inf))
    matvecs = (m + restarts * (m - p) + (k if residuals else 0)).astype(jnp.int32)
    return LanczosResult(jnp.where(valid, lam, jnp.inf), vecs * valid[:, None, None], jnp.where(valid, res, 0.0),
                         valid, top, matvecs, restarts.astype(jnp.int32), converged)
