"""Batched Riemannian L-BFGS on ``(S^{d−1})^N`` in JAX (minima search; docs/theorems.md A9).

One start is minimised by :func:`lbfgs_single`, written with ``lax.while_loop`` (no Python loop
over iterations); :func:`minimizer` vmaps it over a batch of starts and jits it once per
landscape, batch size and settings. Batches are padded to a fixed size by :func:`minimize_batch`
so a search compiles once per (N, d). On a CPU from ``SERIAL_COORDINATES`` coordinates N·d up, the
while-loop kernels (this one and the steepest-descent paths) run one start at a time
(:func:`batch_size`): the vmapped lanes of a while loop each run as many iterations as the slowest
lane, and at that size one lane's arithmetic already fills the cores (benchmarks/landscape_lanes.py).

Algorithm (Huang, Gallivan & Absil, SIAM J. Optim. 25 (2015); Absil–Mahony–Sepulchre 2008, Ch. 4):
the two-loop recursion on the last ``memory`` pairs ``(s_k, y_k)``, all kept in the current tangent
space by transport-by-projection each iteration; a pair is stored only when ``s·y > 1e−12 |s||y|``
(cautious update); a non-descent direction resets the memory to steepest descent; the step is
capped so no point moves more than ``max_step`` (radians, before retraction) and shortened by
Armijo backtracking (``c1 = 1e−4``, halving, at most 40 times) along the retraction
``z ↦ normalize(z + αp)``. Stops when the Riemannian gradient's 2-norm (over all N·d coordinates)
is at most ``gtol``, after ``max_iter`` iterations, or when no step decreases V (line search
failure), or after 10 accepted steps in a row without a strict decrease of V (the rounding floor of
V: an energy-based line search cannot push ``|grad V|`` below about ``sqrt(eps·|V|·λ_max)``; such
points are then polished by Newton's method, which needs no energy decrease).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent, retract
from contrastive_bounds.numerics.landscapes.network.parallel import on_devices

__all__ = ["LBFGSResult", "lbfgs_single", "minimizer", "minimize_batch", "padded_size", "batch_size",
           "run_in_padded_chunks", "SERIAL_COORDINATES",
           "CONVERGED", "MAX_ITER", "LINE_SEARCH_FAILED", "NON_FINITE", "STALLED"]

RUNNING, CONVERGED, MAX_ITER, LINE_SEARCH_FAILED, NON_FINITE, STALLED = 0, 1, 2, 3, 4, 5
_STALL_LIMIT = 10  # accepted steps in a row without a strict decrease of V: the rounding floor
#: N·d from which a CPU runs the while-loop kernels one start at a time (module docstring)
SERIAL_COORDINATES = 512


class LBFGSResult(NamedTuple):
    """Result of a batch: ``z`` (B, N, d), ``energy`` (B,), ``gradient_norm`` (B,), ``iterations`` (B,),
    ``status`` (B,) int: 1 converged, 2 max_iter, 3 line search failed, 4 non-finite, 5 stalled at the
    rounding floor of V (numpy arrays)."""

    z: Any
    energy: Any
    gradient_norm: Any
    iterations: Any
    status: Any


def _vdot(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.sum(a * b)


def _two_loop(g: jax.Array, s: jax.Array, y: jax.Array, rho: jax.Array, nh: jax.Array, k: jax.Array,
              gamma0: jax.Array) -> jax.Array:
    """L-BFGS two-loop recursion over a ring buffer of ``m`` pairs (newest at slot ``(k−1) mod m``)."""
    m = s.shape[0]

    def first(j: int, carry: tuple) -> tuple:
        q, alphas = carry
        i = (k - 1 - j) % m
        a = jnp.where(j < nh, rho[i] * _vdot(s[i], q), 0.0)
        return q - a * y[i], alphas.at[j].set(a)

    q, alphas = jax.lax.fori_loop(0, m, first, (g, jnp.zeros(m, g.dtype)))
    newest = (k - 1) % m
    yy = _vdot(y[newest], y[newest])
    gamma = jnp.where(nh > 0, _vdot(s[newest], y[newest]) / jnp.where(yy > 0, yy, 1.0), gamma0)

    def second(jj: int, r: jax.Array) -> jax.Array:
        j = m - 1 - jj
        i = (k - 1 - j) % m
        b = rho[i] * _vdot(y[i], r)
        return r + jnp.where(j < nh, alphas[j] - b, 0.0) * s[i]

    return jax.lax.fori_loop(0, m, second, gamma * q)


def lbfgs_single(value_and_grad: Callable[[jax.Array], tuple[jax.Array, jax.Array]], z0: jax.Array, *,
                 memory: int = 8, max_iter: int = 2000, gtol: float = 1e-6, max_step: float = 0.3
                 ) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
    """Minimise ``V`` from one start ``z0`` (N, d) by Riemannian L-BFGS (pure JAX, vmap-able).

    Args:
      value_and_grad: ``z -> (V, ∇V)`` (Euclidean gradient). z0: unit rows, float64.
      memory: pairs kept (>= 1). max_iter: iterations (>= 1). gtol: stop when ``|grad V|_2 <= gtol``.
      max_step: largest move of one point per iteration (radians-ish, > 0).

    Returns:
      ``(z, V(z), |grad V(z)|_2, iterations, status)`` with status as in :class:`LBFGSResult`.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(z0, what="contrastive_bounds.numerics.landscapes.network.optimize.lbfgs_single")
    dt = z0.dtype
    v0, e0 = value_and_grad(z0)
    g0 = project_tangent(z0, e0)
    zeros = jnp.zeros((memory,) + z0.shape, dt)
    status0 = jnp.where(jnp.isfinite(v0) & jnp.all(jnp.isfinite(g0)), RUNNING, NON_FINITE)
    i0 = jnp.zeros((), jnp.int32)
    state = (z0, v0, g0, zeros, zeros, jnp.zeros(memory, dt), i0, i0, i0, status0, i0)

    def cond(st: tuple) -> jax.Array:
        z, v, g, *_rest, it, status, _stall = st
        return (status == RUNNING) & (it < max_iter) & (jnp.sqrt(_vdot(g, g)) > gtol)

    def body(st: tuple) -> tuple:
        z, v, g, s_h, y_h, rho, k, nh, it, status, stall = st
        gn = jnp.sqrt(_vdot(g, g))
        gamma0 = 0.1 / jnp.maximum(gn, 1e-300)
        p = project_tangent(z, -_two_loop(g, s_h, y_h, rho, nh, k, gamma0))
        gp = _vdot(g, p)
        bad = ~(gp < 0) | ~jnp.isfinite(gp)
        p = jnp.where(bad, -gamma0 * g, p)
        gp = jnp.where(bad, -gamma0 * gn * gn, gp)
        nh = jnp.where(bad, 0, nh)
        row = jnp.max(jnp.linalg.norm(p, axis=-1))
        alpha0 = jnp.minimum(1.0, max_step / jnp.maximum(row, 1e-300))

        def trial(alpha: jax.Array) -> tuple:
            zt = retract(z, alpha * p)
            vt, et = value_and_grad(zt)
            ok = jnp.isfinite(vt) & jnp.all(jnp.isfinite(et)) & (vt <= v + 1e-4 * alpha * gp)
            return zt, vt, et, ok

        def ls_cond(c: tuple) -> jax.Array:
            return (~c[4]) & (c[5] < 40)

        def ls_body(c: tuple) -> tuple:
            alpha = 0.5 * c[0]
            return (alpha, *trial(alpha), c[5] + 1)

        alpha, zt, vt, et, ok, _ = jax.lax.while_loop(ls_cond, ls_body, (alpha0, *trial(alpha0), jnp.ones((), jnp.int32)))
        gt = project_tangent(zt, et)
        s_new = project_tangent(zt, alpha * p)
        y_new = gt - project_tangent(zt, g)
        s_h = project_tangent(zt[None], s_h)
        y_h = project_tangent(zt[None], y_h)
        sy = _vdot(s_new, y_new)
        store = ok & (sy > 1e-12 * jnp.sqrt(_vdot(s_new, s_new) * _vdot(y_new, y_new)))
        slot = k % memory
        s_h = jnp.where(store, s_h.at[slot].set(s_new), s_h)
        y_h = jnp.where(store, y_h.at[slot].set(y_new), y_h)
        rho = jnp.where(store, rho.at[slot].set(1.0 / jnp.where(sy != 0, sy, 1.0)), rho)
        k = k + store.astype(jnp.int32)
        nh = jnp.minimum(nh + store.astype(jnp.int32), memory)
        stall = jnp.where(ok & (vt < v), 0, stall + 1)
        status = jnp.where(ok, jnp.where(stall >= _STALL_LIMIT, STALLED, status), LINE_SEARCH_FAILED)
        z = jnp.where(ok, zt, z)
        v = jnp.where(ok, vt, v)
        g = jnp.where(ok, gt, g)
        return z, v, g, s_h, y_h, rho, k, nh, it + 1, status, stall

    z, v, g, *_rest, it, status, _stall = jax.lax.while_loop(cond, body, state)
    gn = jnp.sqrt(_vdot(g, g))
    status = jnp.where(status != RUNNING, status, jnp.where(gn <= gtol, CONVERGED, MAX_ITER))
    return z, v, gn, it, status


def minimizer(spec: Any, batch: int, *, memory: int = 8, max_iter: int = 2000, gtol: float = 1e-6,
              max_step: float = 0.3) -> Callable[[jax.Array], tuple]:
    """The jitted batched minimiser of a :class:`~.spec.LandscapeSpec` for ``batch`` starts (cached).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.optimize.minimizer")
    key = ("lbfgs", batch, memory, max_iter, float(gtol), float(max_step))

    def build() -> Callable:
        vg = jax.value_and_grad(spec.potential)
        one = lambda z: lbfgs_single(vg, z, memory=memory, max_iter=max_iter, gtol=gtol, max_step=max_step)  # noqa: E731
        return jax.jit(jax.vmap(one))

    return spec.compiled(key, build)


def padded_size(n: int, chunk: int) -> int:
    """Batch size used for ``n`` items: 8 when ``n <= 8``, else ``chunk`` (at least 8) — two compiled
    sizes per kernel at most, since compiling costs more than padding on small problems."""
    return 8 if n <= 8 else max(int(chunk), 8)


def batch_size(spec: Any, n: int, chunk: int) -> int:
    """Rows per call of a vmapped while-loop kernel for ``n`` starts on ``spec``'s landscape: 1 on a CPU
    from ``SERIAL_COORDINATES`` coordinates N·d up (module docstring), else :func:`padded_size`."""
    if jax.default_backend() == "cpu" and int(spec.num_points) * int(spec.dim) >= SERIAL_COORDINATES:
        return 1
    return padded_size(n, chunk)


def run_in_padded_chunks(fn: Any, arrays: tuple[np.ndarray, ...], size: int) -> tuple[np.ndarray, ...]:
    """``fn(*chunk)`` over the leading axis of ``arrays`` in chunks of exactly ``size`` rows.

    The last chunk is padded by repeating its first row (those results are dropped), so ``fn`` — compiled
    for ``size`` rows — compiles once (per device: with ``size == 1``, the large sizes, the chunks run concurrently
    on the CPU's devices, :func:`~.parallel.on_devices`). Returns the concatenated outputs of ``fn`` as numpy arrays, one per
    output, each with ``len(arrays[0])`` rows.
    """
    b = arrays[0].shape[0]
    starts = list(range(0, b, size))

    def chunk(i: int, device: Any) -> list[np.ndarray]:
        lo = starts[i]
        parts = [a[lo:lo + size] for a in arrays]
        pad = size - parts[0].shape[0]
        if pad:
            parts = [np.concatenate([p, np.repeat(p[:1], pad, axis=0)]) for p in parts]
        res = fn(*(jax.device_put(tuple(parts), device) if device is not None else (jnp.asarray(p) for p in parts)))
        return [np.asarray(x)[: size - pad] for x in res]

    # one start at a time (the large sizes, batch_size 1): the chunks spread over the CPU's devices (.parallel)
    outs = on_devices(chunk, len(starts)) if size == 1 else [chunk(i, None) for i in range(len(starts))]
    return tuple(np.concatenate([o[i] for o in outs]) for i in range(len(outs[0])))


def minimize_batch(spec: Any, z0: Any, *, chunk: int = 64, **settings: Any) -> LBFGSResult:
    """Minimise every start of ``z0`` (B, N, d) in padded chunks of at most ``chunk``; numpy results.

    Padding repeats the first start (its result is dropped), so each chunk size compiles once.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.optimize.minimize_batch")
    z0 = np.asarray(z0, dtype=np.float64)
    size = batch_size(spec, z0.shape[0], chunk)
    return LBFGSResult(*run_in_padded_chunks(minimizer(spec, size, **settings), (z0,), size))
