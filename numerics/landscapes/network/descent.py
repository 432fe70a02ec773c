"""Steepest-descent paths from transition states: which minima a saddle really joins (A9).

A transition state joins the two minima its steepest-descent path ``dz/dt = −grad V(z)`` reaches from
``z_TS ± ε·v`` (``v`` the eigenvector of the negative Hessian eigenvalue). A quasi-Newton minimiser
started there takes long, line-searched steps and may cross a ridge into another basin (L-BFGS from
``z_TS ± 0.02 v`` does so on N = 10, d = 3, τ = 0.05 InfoNCE: tests). So the path is integrated:

* :func:`flow_single` — the gradient flow on ``(S^{d−1})^N`` by the embedded Bogacki–Shampine 3(2)
  pair (Bogacki & Shampine, Appl. Math. Lett. 2 (1989) 321; first-same-as-last), the vector field
  ``−P(ẑ)∇V(ẑ)`` of the normalised rows ``ẑ``, every accepted step projected back onto the spheres
  (Hairer, Lubich & Wanner, Geometric Numerical Integration, Sec. IV.4); local error per step
  ``<= atol + rtol`` (RMS over coordinates), step growth ``<= 5×``, and no point moves more than
  ``max_move`` radians in one step. It stops when ``|grad V|_2 <= min(gtol, 0.01·|grad V(start)|)``
  (gtol default 1e-4: an explicit
  integrator under error control cannot push the gradient of a stiff basin much below
  ``λ_max·(atol + rtol)``; Newton finishes the job, see :func:`settle`) (status 1), after
  ``max_steps`` accepted or rejected steps (2: the end is then accepted only if :func:`settle` finds it
  inside a basin), or on a non-finite value (4), or *stalled* (3) — ``|grad V|_2 <= gtol`` and, over the last
  ``stall_steps`` steps, ``V`` fell by at most ``1e-12·max(1, |V|)`` and ``|grad V|`` stayed within 1 % — the
  explicit method's stiff limit: once the step size has grown to the stability edge of the stiffest mode, error
  control holds that mode's component at a constant amplitude (``|R(hλ)| ≈ 1``) and the path oscillates without
  descending (at the N = 64, d = 32, τ = 0.01 cross-polytope trap ``|grad V|`` stays 2.66e-5, ``V`` constant to
  1e-9, for 29 500 of 30 000 steps, where ``min(gtol, gtol_rel·|grad V(start)|)`` asked for 1.6e-5). A stalled end,
  like one out of steps, is accepted only if :func:`settle` finds it inside a basin. Pure JAX
  (``lax.while_loop``), vmapped and jitted once per landscape and batch size (:func:`descend_batch`).
* :func:`settle` — Newton polish of the path's end point and the check that it *stays in the
  basin the path reached*: the Hessian at the end point is positive definite off the symmetry modes
  (no eigenvalue below the zero band), and the polish moves the point by at most
  ``2·|grad V|/λ_min + 1e-9`` (the Newton–Kantorovich radius of the quadratic model there; a degenerate
  end point, λ_min in the zero band — a point of a flat family of minima — is accepted only if the polish
  moves it by less than ``1e-3`` and leaves ``|grad V| <= 100·gradient_tol``).
  A side that fails is reported with the reason and the transition state is not used for H*.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.records import Settled
from contrastive_bounds.numerics._sphere import project_tangent, retract
from contrastive_bounds.numerics.landscapes.network.optimize import batch_size, run_in_padded_chunks

__all__ = ["flow_single", "flow_kernel", "descend_batch", "settle", "FlowResult", "POLISH_STEPS", "FLOW_CONVERGED", "FLOW_MAX_STEPS",
           "FLOW_STALLED", "FLOW_NON_FINITE", "STALL_STEPS", "STALL_VTOL", "STALL_GTOL"]

FLOW_RUNNING, FLOW_CONVERGED, FLOW_MAX_STEPS, FLOW_STALLED, FLOW_NON_FINITE = 0, 1, 2, 3, 4
#: steps without descent (``V`` down by at most ``STALL_VTOL·max(1, |V|)``, ``|grad V|`` within ``STALL_GTOL``
#: relative) after which a path below ``gtol`` is stalled (:func:`flow_single`)
STALL_STEPS, STALL_VTOL, STALL_GTOL = 200, 1e-12, 1e-2
#: Newton steps (each at most 0.1 rad) that finish a path: a soft basin (λ_min ~ 1e-3) can leave the path's
#: end a few tenths of a radian from its minimum
POLISH_STEPS = 30


class FlowResult(NamedTuple):
    """Steepest-descent paths of a batch (numpy, B rows each): end points ``z`` (B, N, d), ``energy``,
    ``gradient_norm``, ``steps``, ``status`` (1 converged, 2 out of steps, 3 stalled, 4 non-finite), ``path_length``
    (radians), ``time`` (the flow's time)."""

    z: Any
    energy: Any
    gradient_norm: Any
    steps: Any
    status: Any
    path_length: Any
    time: Any


def flow_single(value_and_grad: Callable, z0: jax.Array, *, rtol: float = 1e-8, atol: float = 1e-8,
                gtol: float = 1e-4, gtol_rel: float = 1e-2, max_steps: int = 30_000, max_move: float = 0.02,
                h0: float = 1e-3, stall_steps: int = STALL_STEPS) -> tuple:
    """Integrate ``dz/dt = −grad V`` from ``z0`` (N, d) to ``|grad V|_2 <= min(gtol, gtol_rel·|grad V(z0)|)``
    (module docstring; the relative part keeps a path from a soft saddle, whose start already has a small
    gradient, from stopping where it began).

    Returns ``(z, V, |grad V|_2, steps, status, path_length, time)``: status 1 converged, 2 out of steps,
    3 stalled (the explicit method's stiff limit below ``gtol``, module docstring; ``stall_steps = 0`` switches the
    test off), 4 non-finite; path_length: the summed Frobenius lengths of the accepted steps (radians).

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(z0, what="contrastive_bounds.numerics.landscapes.network.descent.flow_single")
    dt = z0.dtype

    def field(base: jax.Array, inc: jax.Array) -> tuple[jax.Array, jax.Array]:
        yn = retract(base, inc)  # the rows of base + inc, normalised
        v, e = value_and_grad(yn)
        return v, -project_tangent(yn, e)

    v0, f0 = field(z0, jnp.zeros_like(z0))
    finite0 = jnp.isfinite(v0) & jnp.all(jnp.isfinite(f0))
    zero = jnp.zeros((), dt)
    g_stop = jnp.minimum(gtol, gtol_rel * jnp.sqrt(jnp.sum(f0 * f0)))
    gn0 = jnp.sqrt(jnp.sum(f0 * f0))
    state = (z0, v0, f0, jnp.asarray(h0, dt), zero, zero, jnp.zeros((), jnp.int32),
             jnp.where(finite0, FLOW_RUNNING, FLOW_NON_FINITE), jnp.stack([v0, gn0, zero, gn0]))

    def cond(st: tuple) -> jax.Array:
        return (st[7] == FLOW_RUNNING) & (st[6] < max_steps) & (st[8][3] > g_stop)

    def stalled(v: jax.Array, k: jax.Array, steps: jax.Array, ref: jax.Array) -> tuple:
        """The stall reference ``[V, |grad V|, step, current |grad V|]`` (one float64 vector: fewer scalar operations
        per step), its first three moved on when the path descends or its gradient changes; and whether the path has
        stalled."""
        gn = jnp.sqrt(jnp.sum(k * k))
        moved = (ref[0] - v > STALL_VTOL * jnp.maximum(1.0, jnp.abs(ref[0]))) | (jnp.abs(gn - ref[1]) > STALL_GTOL * ref[1])
        here = jnp.stack([v, gn, steps.astype(ref.dtype), gn])
        ref = jnp.where(moved, here, ref.at[3].set(gn))
        return ref, (stall_steps > 0) & (gn <= gtol) & (gn > g_stop) & (here[2] - ref[2] >= stall_steps)

    def body(st: tuple) -> tuple:
        z, v, k1, h, t, length, steps, status, ref = st
        _, k2 = field(z, 0.5 * h * k1)
        _, k3 = field(z, 0.75 * h * k2)
        inc = h * (2.0 / 9.0 * k1 + 1.0 / 3.0 * k2 + 4.0 / 9.0 * k3)
        y = z + inc
        v4, k4 = field(z, inc)
        err = h * (-5.0 / 72.0 * k1 + 1.0 / 12.0 * k2 + 1.0 / 9.0 * k3 - 0.125 * k4)
        errn = jnp.sqrt(jnp.mean(err * err)) / (atol + rtol)
        move = jnp.max(jnp.linalg.norm(y - z, axis=-1))
        finite = jnp.isfinite(v4) & jnp.all(jnp.isfinite(k4)) & jnp.isfinite(errn)
        accept = finite & (errn <= 1.0) & (move <= max_move)
        grow = jnp.clip(0.9 * jnp.maximum(errn, 1e-10) ** (-1.0 / 3.0), 0.2, 5.0)
        h_new = jnp.where(finite, h * grow, 0.25 * h)
        h_new = jnp.where(move > max_move, jnp.minimum(h_new, 0.5 * h * max_move / jnp.maximum(move, 1e-300)), h_new)
        z_new = jnp.where(accept, retract(z, inc), z)
        step_len = jnp.sqrt(jnp.sum((z_new - z) ** 2))
        status = jnp.where(h_new < 1e-14, FLOW_NON_FINITE, status)
        v_new, k_new = jnp.where(accept, v4, v), jnp.where(accept, k4, k1)
        ref, stuck = stalled(v_new, k_new, steps + 1, ref)
        status = jnp.where((status == FLOW_RUNNING) & stuck, FLOW_STALLED, status)
        return (z_new, v_new, k_new, h_new, t + jnp.where(accept, h, 0.0), length + step_len, steps + 1, status, ref)

    z, v, f, _, t, length, steps, status, _ = jax.lax.while_loop(cond, body, state)
    gn = jnp.sqrt(jnp.sum(f * f))
    status = jnp.where(status != FLOW_RUNNING, status, jnp.where(gn <= g_stop, FLOW_CONVERGED, FLOW_MAX_STEPS))
    return z, v, gn, steps, status, length, t


def flow_kernel(spec: Any, batch: int, settings: tuple = ()) -> Callable:
    """The jitted ``vmap`` of :func:`flow_single` over ``batch`` starts of ``spec``'s landscape (cached per batch
    size and settings): ``(batch, N, d)`` float64 starts in, the tuple of :func:`flow_single`'s outputs with a leading
    batch axis out. ``settings``: ``((name, value), ...)`` keyword arguments of :func:`flow_single`, sorted.

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.descent.flow_kernel")

    def build() -> Callable:
        vg = jax.value_and_grad(spec.potential)
        kw = dict(settings)
        return jax.jit(jax.vmap(lambda z: flow_single(vg, z, **kw)))

    return spec.compiled(("flow", batch, settings), build)


def descend_batch(spec: Any, z0: Any, *, chunk: int = 64, **settings: Any) -> FlowResult:
    """Integrate the steepest-descent path from every start of ``z0`` (B, N, d), padded chunks (:class:`FlowResult`;
    one start at a time on a CPU at large N·d: :func:`~.optimize.batch_size`).

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.descent.descend_batch")
    z0 = np.asarray(z0, dtype=np.float64)
    size = batch_size(spec, z0.shape[0], chunk)
    key = tuple(sorted((k, float(v) if isinstance(v, float) else v) for k, v in settings.items()))
    return FlowResult(*run_in_padded_chunks(flow_kernel(spec, size, key), (z0,), size))


def settle(spec: Any, z_end: np.ndarray, *, eigenvalue_tol: float, gradient_tol: float, chunk: int = 32,
           curvature: Any = None) -> list[Settled]:
    """Polish each path end point to its minimum and check it stayed in the basin (module docstring).

    Returns one :class:`~.records.Settled` per end point: the polished point classified, the reason (``""``
    when it is a minimum reached without leaving the basin, else why not) and the end point itself
    classified (which tells whether the path stalled near a saddle). ``curvature``: the provider
    (:mod:`.curvature`; default dense).
    """
    from contrastive_bounds.numerics.landscapes.network.curvature import curvature_provider

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.descent.settle")
    hess = curvature_provider(curvature)
    z_end = np.asarray(z_end, dtype=np.float64)
    if z_end.shape[0] == 0:
        return []
    kw = dict(gradient_tol=gradient_tol, eigenvalue_tol=eigenvalue_tol, chunk=chunk)
    before = hess.classify(spec, z_end, expect=0, **kw)
    polished = hess.polish(spec, z_end, chunk=chunk, eigenvalue_tol=eigenvalue_tol, max_steps=POLISH_STEPS)
    after = hess.classify(spec, polished, expect=0, **kw)
    out = []
    for b, a in zip(before, after):
        out.append(Settled(a, _basin_reason(a, b, eigenvalue_tol, gradient_tol), b))
    return out


def _basin_reason(a: Any, b: Any, eigenvalue_tol: float, gradient_tol: float) -> str:
    """Why the polished point ``a`` of the path end ``b`` is not a minimum of the basin the path reached ("")."""
    moved = float(np.linalg.norm(a.z - b.z))
    band = eigenvalue_tol * max(1.0, float(np.max(np.abs(b.eigenvalues), initial=0.0)))
    lam_min = float(b.eigenvalues[0]) if b.eigenvalues.size else 0.0
    degenerate = a.index == 0 and a.zero_modes > 0 and a.gradient_norm <= 100 * gradient_tol
    if a.index != 0 or (a.gradient_norm > gradient_tol and not degenerate):
        return f"the path's end point polished to {a.kind} (|grad V| = {a.gradient_norm:.2g}), not a minimum"
    if lam_min < -band:
        return f"the path ended where the Hessian has a negative eigenvalue ({lam_min:.3g}): not inside a basin"
    if lam_min <= band:  # a flat family of minima: Newton converges slowly along it
        return "" if moved < 1e-3 and a.gradient_norm <= 100 * gradient_tol else (
            f"the path ended at a degenerate point and the polish moved it by {moved:.2g} (> 1e-3) or left "
            f"|grad V| = {a.gradient_norm:.2g}")
    radius = 2.0 * b.gradient_norm / lam_min + 1e-9
    return "" if moved <= radius else (f"the polish moved the path's end point by {moved:.2g}, beyond the "
                                       f"Newton radius {radius:.2g} of its basin")
