"""Critical points in JAX: Riemannian Hessian with symmetry modes removed, saddle refinement (A9).

* :func:`critical_data` — at ``z``: ``V``, the Riemannian gradient and Hessian in the reduced
  coordinates of :func:`~contrastive_bounds.numerics.tangent_basis`, and the ``O(d)``-orbit projector.
* :func:`refiner` — batched, jitted eigenvector-following refinement (``lax.while_loop``) to a
  minimum (``index=0``: every mode minimised, i.e. Newton's method with a rational-function step,
  which also leaves a saddle downhill) or to a transition state (``index=1``: the mode with the
  largest overlap with the previously followed mode is maximised, all others minimised).
  Per-mode step ``h_k = ∓2F_k/(|λ_k| + sqrt(λ_k² + 4F_k²))`` (Cerjan & Miller, J. Chem. Phys. 75,
  2800 (1981); Baker, J. Comput. Chem. 7, 385 (1986); Wales, Energy Landscapes (2003), Sec. 6.2.2):
  the Newton step near the critical point, bounded far from it, with a trust radius on the whole
  step, grown (×1.5) when the actual change of V is within a factor 2 of the quadratic model's
  prediction and halved when it is off by more than a factor 4. The orbit directions carry no step (the gradient has no component there by invariance).
Verification is in :mod:`.verify`.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.orbits import orbit_projector
from contrastive_bounds.numerics._sphere import retract, riemannian_hessian, tangent_basis
from contrastive_bounds.numerics.landscapes.network.optimize import padded_size, run_in_padded_chunks

__all__ = ["critical_data", "refiner", "refine_batch", "RefineResult"]


class RefineResult(NamedTuple):
    """Refinement of a batch (numpy, B rows each): ``z`` (B, N, d), ``energy``, ``gradient_norm`` (Riemannian,
    2-norm), ``iterations``, ``mode`` (B, N, d) the mode followed at the end (ambient coordinates)."""

    z: Any
    energy: Any
    gradient_norm: Any
    iterations: Any
    mode: Any


def critical_data(potential: Callable[[jax.Array], jax.Array], z: jax.Array, orthogonal: bool) -> tuple:
    """``(V, grad_t, hess_t, orbit_projector, orbit_rank, q)`` at ``z`` (pure JAX).

    ``grad_t = Qᵀ∇V`` and ``hess_t`` (:func:`~contrastive_bounds.numerics.riemannian_hessian`) are in the reduced
    coordinates of ``q = tangent_basis(z)``; the Euclidean Hessian comes from ``jax.hessian``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.network.saddle.critical_data")
    n, d = z.shape
    v, e = jax.value_and_grad(potential)(z)
    h = jax.hessian(potential)(z).reshape(n * d, n * d)
    q = tangent_basis(z)
    g_t = q.T @ e.reshape(-1)
    h_t = riemannian_hessian(h, z, e, q)
    p_orb, rank = orbit_projector(z, q, orthogonal)
    return v, g_t, h_t, p_orb, rank, q


def _ef_step(g_t: jax.Array, h_t: jax.Array, p_orb: jax.Array, mode: jax.Array, index: int, trust: jax.Array
             ) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Eigenvector-following step (reduced coordinates), the followed mode, and the change of V the
    quadratic model predicts for the step."""
    nt = g_t.shape[0]
    c = jnp.eye(nt, dtype=g_t.dtype) - p_orb
    scale = 1.0 + jnp.max(jnp.abs(h_t))
    hc = c @ h_t @ c + 1e6 * scale * p_orb  # orbit directions: huge eigenvalue, zero force -> no step
    lam, vec = jnp.linalg.eigh(0.5 * (hc + hc.T))
    f = vec.T @ (c @ g_t)
    h = -2.0 * f / jnp.maximum(jnp.abs(lam) + jnp.sqrt(lam * lam + 4.0 * f * f), 1e-300)
    if index == 1:
        overlap = jnp.abs(vec.T @ mode) * (lam < 1e5 * scale)
        j = jnp.argmax(overlap)
        h = h.at[j].set(-h[j])
        new_mode = vec[:, j] * jnp.sign(jnp.dot(vec[:, j], mode) + 1e-300)
    else:
        new_mode = mode
    shrink = jnp.minimum(1.0, trust / jnp.maximum(jnp.linalg.norm(h), 1e-300))
    h = h * shrink
    predicted = jnp.sum(f * h + 0.5 * jnp.where(lam < 1e5 * scale, lam, 0.0) * h * h)
    return vec @ h, new_mode, predicted


def _refine_single(potential: Callable, z0: jax.Array, mode0: jax.Array, *, orthogonal: bool, index: int,
                   max_iter: int, gtol: float, trust0: float, max_trust: float) -> tuple:
    n, d = z0.shape

    def data(z: jax.Array) -> tuple:
        return critical_data(potential, z, orthogonal)

    v, g_t, h_t, p_orb, _, q = data(z0)
    mode = q.T @ mode0.reshape(-1)
    mode = mode / jnp.maximum(jnp.linalg.norm(mode), 1e-300)
    i0 = jnp.zeros((), jnp.int32)
    state = (z0, v, g_t, h_t, p_orb, q, mode, jnp.asarray(trust0, z0.dtype), i0)

    def cond(st: tuple) -> jax.Array:
        g_t, it = st[2], st[8]
        return (it < max_iter) & (jnp.linalg.norm(g_t) > gtol) & jnp.all(jnp.isfinite(g_t))

    def body(st: tuple) -> tuple:
        z, v, g_t, h_t, p_orb, q, mode, trust, it = st
        step, mode_new, predicted = _ef_step(g_t, h_t, p_orb, mode, index, trust)
        z_new = retract(z, (q @ step).reshape(n, d))
        v2, g2, h2, p2, _, q2 = data(z_new)
        # the followed mode is carried to the new tangent space by projection onto the new basis
        mode_amb = q @ mode_new
        mode2 = q2.T @ mode_amb
        mode2 = mode2 / jnp.maximum(jnp.linalg.norm(mode2), 1e-300)
        # trust radius from the fidelity of the quadratic model (the gradient grows while climbing,
        # so it cannot be the criterion): ratio of actual to predicted change of V
        ratio = (v2 - v) / jnp.where(predicted != 0, predicted, 1.0)
        tiny = jnp.abs(predicted) <= 1e-12 * (1.0 + jnp.abs(v))
        good = tiny | ((ratio > 0.5) & (ratio < 2.0))
        bad = ~tiny & ((ratio < 0.25) | (ratio > 4.0))
        trust = jnp.where(good, jnp.minimum(1.5 * trust, max_trust), jnp.where(bad, jnp.maximum(0.5 * trust, 1e-6), trust))
        return z_new, v2, g2, h2, p2, q2, mode2, trust, it + 1

    z, v, g_t, h_t, p_orb, q, mode, _, it = jax.lax.while_loop(cond, body, state)
    return z, v, jnp.linalg.norm(g_t), it, (q @ mode).reshape(n, d)


def refiner(spec: Any, batch: int, *, index: int, max_iter: int = 200, gtol: float = 1e-11, trust: float = 0.1,
            max_trust: float = 0.3) -> Callable:
    """Jitted batched refinement to an index-``index`` critical point (0 or 1), cached per spec.

    The returned function maps ``(z (B, N, d), mode (B, N, d))`` to ``(z, V, |grad V|_2, iterations,
    mode)``; ``mode`` is the initial direction to follow (ignored for ``index=0``).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.saddle.refiner")
    if index not in (0, 1):
        raise ValueError(f"index={index} must be 0 (minimum) or 1 (transition state)")
    key = ("refine", batch, index, max_iter, float(gtol), float(trust), float(max_trust))

    def build() -> Callable:
        one = lambda z, m: _refine_single(spec.potential, z, m, orthogonal=spec.symmetry.orthogonal,  # noqa: E731
                                          index=index, max_iter=max_iter, gtol=gtol, trust0=trust, max_trust=max_trust)
        return jax.jit(jax.vmap(one))

    return spec.compiled(key, build)


def refine_batch(spec: Any, z: Any, modes: Any = None, *, index: int, chunk: int = 32, **settings: Any) -> RefineResult:
    """Refine every configuration of ``z`` (B, N, d) to an index-``index`` critical point (:class:`RefineResult`).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.saddle.refine_batch")
    z = np.asarray(z, dtype=np.float64)
    modes = np.zeros_like(z) if modes is None else np.asarray(modes, dtype=np.float64)
    size = padded_size(z.shape[0], chunk)
    return RefineResult(*run_in_padded_chunks(refiner(spec, size, index=index, **settings), (z, modes), size))
