"""Transition states by Hessian-free hybrid eigenvector following, batched (A9).

One search (:func:`hef_single`) repeats, inside one ``lax.while_loop``:

1. **Mode.** The two lowest eigenpairs of the deflated Riemannian Hessian at ``z``
   (:func:`~.spectrum.deflated_hessian`) by a short thick-restart Lanczos warm-started from the previous
   mode (:func:`~.lanczos.lanczos_lowest`, ``mode_krylov`` vectors, ``mode_restarts`` restarts); the
   followed mode ``(θ, v)`` is the lowest, or the second when both are negative and it overlaps more with
   the previous mode (mode tracking, as in the dense ``network.saddle`` refiner), its sign aligned with
   the previous mode. If ``|grad V| <= gtol`` and ``θ < 0`` the search has converged.
2. **Uphill step** along ``v``: ``h = 2F/(|θ| + sqrt(θ² + 4F²))`` with ``F = grad V·v`` (the
   eigenvector-following step of Cerjan & Miller, J. Chem. Phys. 75, 2800 (1981), as in Wales, J. Chem.
   Phys. 101, 3750 (1994) and pele's ``FindTransitionState``), capped at the trust radius ``max_up``;
   while ``θ >= 0`` (still in the convex region around the minimum) the full ``max_up`` in the direction
   of ``F``. The trust radius is multiplied by 1.1 (at most ``max_uphill``) when the component of the
   gradient along ``v`` changed as the quadratic model predicts (``min|1 − (±F' − F)/(hθ)| <=
   trust_ratio``, OPTIM's EPER rule) and divided by 1.1 (at least ``min_uphill``) otherwise.
3. **Transverse minimisation**: ``tangent_steps`` L-BFGS steps in the complement of ``v``
   (:func:`~.complement.complement_minimize`), ``tangent_steps_converged`` once the mode has settled
   (overlap with the previous mode above 0.999), the memory kept across iterations, and at most
   ``travel_factor·max(|h|, trust radius)`` of transverse displacement per iteration (so the transverse
   walk cannot carry the search far off the ridge it is climbing: on InfoNCE the complement of the soft
   mode often holds the way down to a deeper basin).

Defaults: steps of a few hundredths of a radian (2-norm over all ``N·d`` coordinates), chosen on the
small InfoNCE networks (N = 4, 6 at τ = 0.1, where transverse steps of 0.2 slid into other basins) and
tuned at N·d = 512 and 2 048 (eight searches each: a Lanczos basis of 8 with 2 restarts and an uphill
trust radius from 0.05 up to 0.2 took the fewest products; ``benchmarks/hessfree.py``).

Every step is retracted to the product of spheres (``z ↦ normalize(z + u)``). A search ends converged,
at ``max_iter``, on a non-finite value, or when the lowest eigenvalue stayed ``>= 0`` for
``max_positive`` iterations, or (with a finite ``floor``, :func:`hef_init`) when ``V`` falls below the floor: a
search started off a minimum ``m`` with the floor ``V(m) − margin`` has then left the basin of ``m`` (every point of
that basin lies at or above ``V(m)``, steepest descent never climbing), and it cannot end at a transition state of
``m`` (which lies above ``V(m)``) without climbing back more than ``margin``. Whether the point is an index-1 saddle is decided afterwards, by the
certificate of :mod:`.certify`, never by the loop. As BlackJAX kernels: :func:`hef_init` makes the state,
:func:`hef_step` is one iteration (pure, vmappable), :func:`hef_single` loops it, :func:`hef_searcher` jits
``vmap(hef_single)`` over a batch of starts (finished members wait, masked, until the slowest ends;
:mod:`.batched` refills lanes instead).
Reference: Munro & Wales, Phys. Rev. B 59, 3969 (1999) (hybrid EF); Kumeda, Munro & Wales, Chem. Phys.
Lett. 341, 185 (2001) (Lanczos-based, Hessian-free); Wales, Energy Landscapes (2003), Sec. 6.2.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics.landscapes.hessfree.complement import complement_minimize, empty_memory
from contrastive_bounds.numerics.landscapes.hessfree.lanczos import lanczos_lowest
from contrastive_bounds.numerics.landscapes.hessfree.operators import riemannian_gradient
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent, retract

__all__ = ["HEFSettings", "HEFResult", "HEFState", "hef_init", "hef_step", "hef_result", "hef_single", "hef_searcher",
           "RUNNING", "CONVERGED", "MAX_ITER", "NON_FINITE", "NO_NEGATIVE_MODE", "BELOW_FLOOR", "STATUS_TEXT"]

RUNNING, CONVERGED, MAX_ITER, NON_FINITE, NO_NEGATIVE_MODE, BELOW_FLOOR = 0, 1, 2, 3, 4, 5
#: words for the status codes of :class:`HEFResult`
STATUS_TEXT = {RUNNING: "running", CONVERGED: "converged", MAX_ITER: "max_iter reached",
               NON_FINITE: "non-finite energy or gradient",
               NO_NEGATIVE_MODE: "the lowest eigenvalue stayed non-negative (no saddle found uphill)",
               BELOW_FLOOR: "fell below its floor (left the basin of the minimum it started from)"}


class HEFSettings(NamedTuple):
    """Settings of a search (hashable: one compiled loop per settings).

    Attributes:
      max_iter: iterations at most. gtol: convergence on ``|grad V|_2`` (Riemannian, all ``N·d`` coordinates).
      mode_krylov: Lanczos basis of the mode update (>= 4). mode_restarts: its restarts at most.
      mode_tol: its relative tolerance. tangent_steps, tangent_steps_converged: transverse L-BFGS steps per
      iteration before and after the mode settles. memory: L-BFGS pairs. max_uphill, uphill_initial,
      min_uphill: the uphill trust radius (2-norm) bounds and start. max_tangent_step: cap on a transverse
      step. trust_ratio: EPER threshold. travel_factor: cap on an iteration's transverse displacement in
      units of the uphill step. max_positive: iterations with ``θ >= 0`` before giving up.
    """

    max_iter: int = 400
    gtol: float = 1e-9
    mode_krylov: int = 8
    mode_restarts: int = 2
    mode_tol: float = 1e-4
    tangent_steps: int = 3
    tangent_steps_converged: int = 30
    memory: int = 6
    max_uphill: float = 0.2
    uphill_initial: float = 0.05
    min_uphill: float = 0.01
    max_tangent_step: float = 0.05
    trust_ratio: float = 2.0
    travel_factor: float = 1.0
    max_positive: int = 100


class HEFResult(NamedTuple):
    """End of a search (JAX arrays; a leading batch axis from :func:`hef_searcher`).

    Attributes:
      z: ``(N, d)`` final point. value: ``V(z)``. gradient_norm: ``|grad V(z)|_2``.
      mode: ``(N, d)`` last followed mode. mode_eigenvalue: its Rayleigh quotient ``θ`` (last estimate).
      iterations: outer iterations. status: a code of :data:`STATUS_TEXT`.
      gradient_evaluations, hessian_products: work done (int32).
    """

    z: jax.Array
    value: jax.Array
    gradient_norm: jax.Array
    mode: jax.Array
    mode_eigenvalue: jax.Array
    iterations: jax.Array
    status: jax.Array
    gradient_evaluations: jax.Array
    hessian_products: jax.Array


def _unit(u: jax.Array) -> jax.Array:
    return u / jnp.maximum(jnp.linalg.norm(u), 1e-300)


class HEFState(NamedTuple):
    """State of one search between iterations (pure JAX; from :func:`hef_init`, advanced by :func:`hef_step`).

    Attributes:
      z, value, grad: point, ``V`` and Riemannian gradient. v: followed unit mode. theta: its last
      eigenvalue estimate. up: uphill trust radius. mem: the transverse L-BFGS memory. it: iterations done.
      status: a code of :data:`STATUS_TEXT`. positive: consecutive iterations with ``θ >= 0``. evals, hvps:
      gradient evaluations and Hessian–vector products so far. key: PRNG key. floor: the search ends (status
      ``BELOW_FLOOR``) once ``V`` falls below it (``-inf``: never).
    """

    z: jax.Array
    value: jax.Array
    grad: jax.Array
    v: jax.Array
    theta: jax.Array
    up: jax.Array
    mem: Any
    it: jax.Array
    status: jax.Array
    positive: jax.Array
    evals: jax.Array
    hvps: jax.Array
    key: jax.Array
    floor: jax.Array


def hef_init(potential: Callable[[jax.Array], jax.Array], z0: jax.Array, mode0: jax.Array, key: jax.Array, *,
             settings: HEFSettings = HEFSettings(), floor: Any = -jnp.inf) -> HEFState:
    """The state before the first iteration at ``z0`` with the initial direction ``mode0`` (projected, unit).

    ``floor`` (units of ``V``, scalar; ``-inf`` by default: no floor): the search ends with status ``BELOW_FLOOR``
    once ``V`` falls below it (module docstring: ``V(m) − margin`` for a search started off the minimum ``m``).

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z0`` is float64.
    """
    require_x64(z0, mode0, what="contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following.hef_init")
    dtype = z0.dtype
    value0, grad0 = riemannian_gradient(potential, z0)
    i32 = lambda x: jnp.asarray(x, jnp.int32)  # noqa: E731
    return HEFState(z0, value0, grad0, _unit(project_tangent(z0, mode0)), jnp.asarray(0.0, dtype),
                    jnp.asarray(settings.uphill_initial, dtype), empty_memory(settings.memory, z0.shape, dtype), i32(0),
                    i32(RUNNING), i32(0), i32(1), i32(0), key, jnp.asarray(floor, dtype))


def hef_step(potential: Callable[[jax.Array], jax.Array], st: HEFState, *, orthogonal: bool = True,
             settings: HEFSettings = HEFSettings()) -> HEFState:
    """One iteration (mode, uphill step, transverse minimisation; module docstring); a state whose status is
    not running is returned unchanged.

    Raises:
      X64DisabledError: JAX's x64 mode is off and the state is float64.
    """
    require_x64(st.z, what="contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following.hef_step")
    s = settings
    value_and_grad = lambda z: riemannian_gradient(potential, z)  # noqa: E731
    z, v, dtype = st.z, st.v, st.z.dtype
    key, k_mode, k_noise = jax.random.split(st.key, 3)
    op = deflated_hessian(potential, z, orthogonal)
    noise = op.project(jax.random.normal(k_noise, z.shape, dtype))
    start = _unit(op.project(v)) + 1e-3 * _unit(noise)
    lz = lanczos_lowest(op.matvec, op.project, start, k_mode, k=2, krylov_dim=s.mode_krylov,
                        max_restarts=s.mode_restarts, tol=s.mode_tol, converge=1, residuals=False)
    # follow the negative-curvature Ritz vector that overlaps most with the previous mode (the lowest
    # one unless the two lowest are both negative): a near-degenerate pair must not swap the mode
    overlaps = jnp.abs(jnp.sum(lz.eigenvectors * v[None], axis=(1, 2)))
    pick = jnp.where((lz.eigenvalues[1] < 0) & lz.valid[1] & (overlaps[1] > overlaps[0]), 1, 0)
    theta = lz.eigenvalues[pick]
    w = lz.eigenvectors[pick]
    overlap = jnp.sum(w * v)
    w = jnp.where(overlap < 0, -w, w)
    grad, value = op.gradient, op.value
    gnorm = jnp.linalg.norm(grad)
    finite = jnp.isfinite(value) & jnp.isfinite(gnorm) & jnp.isfinite(theta)
    done = (gnorm <= s.gtol) & (theta < 0)
    # uphill step along the mode
    f = jnp.sum(grad * w)
    h_ef = 2.0 * f / jnp.maximum(jnp.abs(theta) + jnp.sqrt(theta * theta + 4.0 * f * f), 1e-300)
    sign = jnp.where(f >= 0, 1.0, -1.0)
    h = jnp.where(theta < 0, jnp.clip(h_ef, -st.up, st.up), sign * s.max_uphill)
    z1 = retract(z, h * w)
    value1, grad1 = value_and_grad(z1)
    w1 = _unit(project_tangent(z1, w))
    f1 = jnp.sum(grad1 * w1)
    denom = jnp.where(h * theta != 0, h * theta, 1.0)
    eper = jnp.minimum(jnp.abs(1.0 - (f1 - f) / denom), jnp.abs(1.0 - (-f1 - f) / denom))
    grow = jnp.minimum(st.up * 1.1, s.max_uphill)
    shrink = jnp.maximum(st.up / 1.1, s.min_uphill)
    up = jnp.where(theta < 0, jnp.where(eper > s.trust_ratio, shrink, grow), st.up)
    # transverse minimisation
    steps = jnp.where(jnp.abs(overlap) > 0.999, s.tangent_steps_converged, s.tangent_steps)
    z2, value2, grad2, w2, mem, evals = complement_minimize(
        value_and_grad, z1, value1, grad1, w1, st.mem, steps=steps, gtol=s.gtol / 2.0,
        max_step=s.max_tangent_step, max_travel=s.travel_factor * jnp.maximum(jnp.abs(h), up))
    it = st.it + 1
    positive = jnp.where(theta >= 0, st.positive + 1, 0)
    status = jnp.where(~finite, NON_FINITE, jnp.where(done, CONVERGED, jnp.where(value2 < st.floor, BELOW_FLOOR, jnp.where(
        positive > s.max_positive, NO_NEGATIVE_MODE, jnp.where(it >= s.max_iter, MAX_ITER, RUNNING)))))
    moved = finite & ~done  # the last step of a search stopped by max_iter is kept (its V, gradient are known)
    keep = lambda a, b: jnp.where(moved, a, b)  # noqa: E731
    new = HEFState(keep(z2, z), keep(value2, value), keep(grad2, grad), keep(w2, w), theta, up,
                   jax.tree_util.tree_map(keep, mem, st.mem), it, status.astype(jnp.int32),
                   positive.astype(jnp.int32), st.evals + 2 + evals, st.hvps + lz.matvecs, key, st.floor)
    running = st.status == RUNNING
    return jax.tree_util.tree_map(lambda a, b: jnp.where(running, a, b), new, st)


def hef_result(st: HEFState) -> HEFResult:
    """The :class:`HEFResult` of a state (pure JAX).

    Raises:
      X64DisabledError: JAX's x64 mode is off and the state is float64.
    """
    require_x64(st.z, what="contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following.hef_result")
    return HEFResult(st.z, st.value, jnp.linalg.norm(st.grad), st.v, st.theta, st.it, st.status, st.evals, st.hvps)


def hef_single(potential: Callable[[jax.Array], jax.Array], z0: jax.Array, mode0: jax.Array, key: jax.Array, *,
               orthogonal: bool = True, settings: HEFSettings = HEFSettings(), floor: Any = -jnp.inf) -> HEFResult:
    """One hybrid eigenvector-following search from ``z0`` along ``mode0`` (module docstring).

    Args:
      potential: pure JAX ``V``, ``(N, d) -> ()``. z0: ``(N, d)`` unit rows, float64 (e.g. a minimum kicked
        along a soft mode). mode0: ``(N, d)`` initial direction (projected, normalised). key: PRNG key.
      orthogonal: ``V`` is ``O(d)``-invariant (the rotation modes are deflated). settings: :class:`HEFSettings`.
      floor: units of ``V`` (``-inf``: none); the search ends once ``V`` falls below it (:func:`hef_init`).

    Returns:
      :class:`HEFResult`.

    Raises:
      X64DisabledError: JAX's x64 mode is off and ``z0`` is float64.
    """
    require_x64(z0, mode0, what="contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following.hef_single")
    state = hef_init(potential, z0, mode0, key, settings=settings, floor=floor)
    state = jax.lax.while_loop(lambda st: st.status == RUNNING,
                               lambda st: hef_step(potential, st, orthogonal=orthogonal, settings=settings), state)
    return hef_result(state)


def hef_searcher(potential: Callable[[jax.Array], jax.Array], *, orthogonal: bool = True,
                 settings: HEFSettings = HEFSettings()) -> Callable[..., HEFResult]:
    """``jit(vmap(hef_single))``: ``(z0 (B, N, d), mode0 (B, N, d), keys (B,)) -> HEFResult`` (batched).

    Build it once per potential and settings and reuse it: each batch size compiles once.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 searches).
    """
    require_x64(jnp.float64, what="contrastive_bounds.numerics.landscapes.hessfree.hef_searcher")

    def one(z0: jax.Array, mode0: jax.Array, key: Any) -> HEFResult:
        return hef_single(potential, z0, mode0, key, orthogonal=orthogonal, settings=settings)

    return jax.jit(jax.vmap(one))
