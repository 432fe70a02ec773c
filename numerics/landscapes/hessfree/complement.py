"""Minimisation in the complement of a mode: the transverse half of hybrid eigenvector following (A9).

:func:`complement_minimize` takes up to ``steps`` Riemannian L-BFGS steps on ``(S^{d−1})^N`` with every
direction kept tangent and orthogonal to a unit mode ``v`` (the followed eigenvector): the energy is
minimised in the space transverse to ``v`` while the uphill step along ``v`` is taken elsewhere
(:mod:`.eigenvector_following`). As pele's ``_TransverseWalker`` and OPTIM's BFGSTS do, the memory
``(s, y)`` persists across calls (a :class:`ComplementMemory`), carried to each new point by projection
onto its tangent space and off the mode (transport by projection: Absil–Mahony–Sepulchre 2008, Sec. 8.1;
Huang, Gallivan & Absil, SIAM J. Optim. 25 (2015)).

Step rule: two-loop recursion (Nocedal & Wright, Numerical Optimization, Alg. 7.4) with the
Barzilai–Borwein scaling ``sᵀy/yᵀy``; a non-descent direction resets the memory to steepest descent;
the step is capped at ``max_step`` (2-norm over all ``N·d`` coordinates) and halved until the Armijo
condition holds up to the rounding floor of ``V`` (``1e−13·(1 + |V|)``, so the last digits of a
converging search are not refused for noise), at most ``backtracks`` times; a failed line search ends the
call with the memory reset. A pair is stored only when ``sᵀy > 1e−12|s||y|`` (cautious update). Pure JAX
in ``lax.while_loop``; no Hessian.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent, retract

__all__ = ["ComplementMemory", "empty_memory", "complement_minimize"]

_ARMIJO = 1e-4
_ROUNDING = 1e-13


class ComplementMemory(NamedTuple):
    """L-BFGS memory: ``s``, ``y`` ``(m, N, d)`` ring buffers, ``rho`` ``(m,)`` = ``1/sᵀy``, ``count`` stored."""

    s: jax.Array
    y: jax.Array
    rho: jax.Array
    count: jax.Array


def empty_memory(memory: int, shape: tuple[int, int], dtype: jnp.dtype) -> ComplementMemory:
    """An empty memory of ``memory`` pairs for configurations of ``shape`` ``(N, d)`` (pure JAX).

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``dtype`` is float64.
    """
    require_x64(dtype, what="contrastive_bounds.numerics.landscapes.hessfree.complement.empty_memory")
    return ComplementMemory(jnp.zeros((memory, *shape), dtype), jnp.zeros((memory, *shape), dtype),
                            jnp.zeros((memory,), dtype), jnp.zeros((), jnp.int32))


def _off(z: jax.Array, v: jax.Array, u: jax.Array) -> jax.Array:
    ut = project_tangent(z, u)
    return ut - jnp.sum(ut * v) * v


def _carry(mem: ComplementMemory, z: jax.Array, v: jax.Array) -> ComplementMemory:
    s = jax.vmap(lambda a: _off(z, v, a))(mem.s)
    y = jax.vmap(lambda a: _off(z, v, a))(mem.y)
    sy = jnp.sum(s * y, axis=(1, 2))
    ok = (jnp.arange(mem.rho.shape[0]) < mem.count) & (sy > 0)
    return ComplementMemory(s, y, jnp.where(ok, 1.0 / jnp.where(ok, sy, 1.0), 0.0), mem.count)


def _two_loop(g: jax.Array, mem: ComplementMemory) -> jax.Array:
    m = mem.rho.shape[0]
    used = jnp.minimum(mem.count, m)
    newest = (mem.count - 1) % m

    def first(j: int, carry: tuple) -> tuple:
        q, alpha = carry
        idx = (newest - j) % m
        on = (j < used) & (mem.rho[idx] > 0)
        a = jnp.where(on, mem.rho[idx] * jnp.sum(mem.s[idx] * q), 0.0)
        return q - a * mem.y[idx], alpha.at[idx].set(a)

    q, alpha = jax.lax.fori_loop(0, m, first, (g, jnp.zeros(m, g.dtype)))
    yy = jnp.sum(mem.y[newest] * mem.y[newest])
    gamma = jnp.where((used > 0) & (yy > 0) & (mem.rho[newest] > 0),
                      1.0 / jnp.maximum(mem.rho[newest] * yy, 1e-300), 1.0)
    r = gamma * q

    def second(jj: int, r: jax.Array) -> jax.Array:
        j = m - 1 - jj
        idx = (newest - j) % m
        on = (j < used) & (mem.rho[idx] > 0)
        b = mem.rho[idx] * jnp.sum(mem.y[idx] * r)
        return r + jnp.where(on, alpha[idx] - b, 0.0) * mem.s[idx]

    return jax.lax.fori_loop(0, m, second, r)


def complement_minimize(value_and_grad: Callable, z: jax.Array, value: jax.Array, grad: jax.Array, v: jax.Array,
                        memory: ComplementMemory, *, steps: jax.Array, gtol: float, max_step: float,
                        max_travel: jax.Array | float = jnp.inf, backtracks: int = 8) -> tuple:
    """Up to ``steps`` transverse L-BFGS steps from ``z`` (module docstring).

    Args:
      value_and_grad: ``z -> (V, Riemannian gradient)``, pure JAX. z: ``(N, d)``; value, grad: at ``z``.
      v: ``(N, d)`` unit tangent mode at ``z`` (kept fixed; moved to each new point by projection).
      memory: :class:`ComplementMemory` from the previous call (or :func:`empty_memory`).
      steps: int scalar (may be traced). gtol: stop when the transverse gradient's 2-norm is at most this.
      max_step: cap on a step's 2-norm. max_travel: the call ends once the steps' 2-norms add up to this
        (may be traced). backtracks: halvings of the line search at most.

    Returns:
      ``(z, value, grad, v, memory, evaluations)``: the new point, its value and Riemannian gradient, the
      mode carried there (unit), the memory, and the gradient evaluations used (int32).

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z`` is float64.
    """
    require_x64(z, what="contrastive_bounds.numerics.landscapes.hessfree.complement.complement_minimize")
    m = memory.rho.shape[0]

    def cond(st: tuple) -> jax.Array:
        z, value, grad, v, mem, j, evals, stop, travel = st
        return (j < steps) & ~stop & (travel < max_travel)

    def body(st: tuple) -> tuple:
        z, value, grad, v, mem, j, evals, _, travel = st
        gp = _off(z, v, grad)
        p = _off(z, v, -_two_loop(gp, mem))
        slope = jnp.sum(p * gp)
        descent = slope < 0
        p = jnp.where(descent, p, -gp)
        mem = jax.tree_util.tree_map(lambda a: jnp.where(descent, a, jnp.zeros_like(a)), mem)
        pn = jnp.linalg.norm(p)
        p = p * jnp.minimum(1.0, jnp.minimum(max_step, max_travel - travel) / jnp.maximum(pn, 1e-300))
        slope = jnp.sum(p * gp)
        floor = _ROUNDING * (1.0 + jnp.abs(value))

        def ls_cond(c: tuple) -> jax.Array:
            alpha, zt, vt, gt, ok, tries = c
            return ~ok & (tries <= backtracks)

        def ls_body(c: tuple) -> tuple:
            alpha, _, _, _, _, tries = c
            a = jnp.where(tries == 0, 1.0, 0.5 * alpha)
            zt = retract(z, a * p)
            vt, gt = value_and_grad(zt)
            ok = jnp.isfinite(vt) & (vt <= value + _ARMIJO * a * slope + floor)
            return a, zt, vt, gt, ok, tries + 1

        alpha, zt, vt, gt, ok, tries = jax.lax.while_loop(
            ls_cond, ls_body, (jnp.ones((), z.dtype), z, value, grad, jnp.asarray(False), jnp.asarray(0, jnp.int32)))
        v_new = project_tangent(zt, v)
        v_new = v_new / jnp.maximum(jnp.linalg.norm(v_new), 1e-300)
        mem = _carry(mem, zt, v_new)
        s = _off(zt, v_new, alpha * p)
        y = _off(zt, v_new, gt) - _off(zt, v_new, gp)
        sy = jnp.sum(s * y)
        store = ok & (sy > 1e-12 * jnp.linalg.norm(s) * jnp.linalg.norm(y))
        slot = mem.count % m
        mem = ComplementMemory(jnp.where(store, mem.s.at[slot].set(s), mem.s),
                               jnp.where(store, mem.y.at[slot].set(y), mem.y),
                               jnp.where(store, mem.rho.at[slot].set(1.0 / jnp.where(store, sy, 1.0)), mem.rho),
                               mem.count + store.astype(jnp.int32))
        mem = jax.tree_util.tree_map(lambda a, b: jnp.where(ok, a, b), mem, empty_memory(m, z.shape, z.dtype))
        z2 = jnp.where(ok, zt, z)
        v2 = jnp.where(ok, v_new, v)
        stop = ~ok | (jnp.linalg.norm(_off(zt, v_new, gt)) <= gtol)
        return (z2, jnp.where(ok, vt, value), jnp.where(ok, gt, grad), v2, mem, j + 1, evals + tries, stop,
                travel + jnp.where(ok, alpha * jnp.linalg.norm(p), 0.0))

    gp0 = _off(z, v, grad)
    state = (z, value, grad, v, memory, jnp.asarray(0, jnp.int32), jnp.asarray(0, jnp.int32),
             jnp.linalg.norm(gp0) <= gtol, jnp.zeros((), z.dtype))
    z, value, grad, v, mem, _, evals, _, _ = jax.lax.while_loop(cond, body, state)
    return z, value, grad, v, mem, evals
