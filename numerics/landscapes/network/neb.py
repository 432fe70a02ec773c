"""Climbing-image nudged elastic band on ``(S^{d−1})^N``, batched over pairs of minima (A9).

Images ``x_0 … x_{M−1}`` (``x_0``, ``x_{M−1}`` the fixed end minima) start on the per-point great
circles between the ends (:func:`~contrastive_bounds.numerics.geodesic_interpolate`). Every iteration, for every
interior image (all images of all pairs in one vmapped evaluation):

* tangent ``τ_k``: the improved (energy-weighted) tangent of Henkelman & Jónsson, J. Chem. Phys.
  113, 9978 (2000), built from neighbour differences projected onto ``T_{x_k}M``, normalised;
* force ``F_k = −(grad V − (grad V·τ)τ) + κ(|x_{k+1} − x_k| − |x_k − x_{k−1}|)τ``, with neighbour
  differences projected onto the tangent space *and off the O(d) orbit* (:func:`~.orbits.remove_orbit`)
  for rotation-invariant potentials, so images neither slide along orbits nor space themselves along
  them (the molecular-NEB practice of removing overall rotation);
  after ``climb_after`` iterations the highest image climbs: ``F = −grad V + 2(grad V·τ)τ``
  (Henkelman, Uberuaga & Jónsson, J. Chem. Phys. 113, 9901 (2000));
* FIRE update (Bitzek et al., PRL 97, 170201 (2006)) with each image's move capped at
  ``max_move``, then the retraction, the velocity transported by projection.

The spring constant is ``κ = spring · median_k |grad V(x_k)| / (path length/(M−1))`` on the
initial path (scale-free), and the FIRE time step starts at ``sqrt(0.1·segment/max|F|)``.
The band only locates saddle candidates: every interior local maximum of the final band's
energies is refined by :func:`~.saddle.refiner` and verified by :func:`~.saddle.classify_batch`.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.orbits import remove_orbit
from contrastive_bounds.numerics._sphere import geodesic_interpolate, project_tangent, retract
from contrastive_bounds.numerics.landscapes.network.optimize import padded_size, run_in_padded_chunks

__all__ = ["neb_single", "neb_runner", "run_neb", "band_maxima"]


def _norm(x: jax.Array) -> jax.Array:
    return jnp.sqrt(jnp.sum(x * x, axis=(-2, -1)))


def _vdot(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.sum(a * b, axis=(-2, -1))


def neb_single(value_and_grad: Callable, za: jax.Array, zb: jax.Array, *, orthogonal: bool = False,
               images: int = 16, iterations: int = 1500,
               climb_after: int = 300, spring: float = 1.0, max_move: float = 0.05, ftol: float = 1e-4,
               dt_max_factor: float = 1.0) -> tuple:
    """One climbing-image NEB between ``za`` and ``zb`` (N, d); pure JAX, vmap-able.

    Returns ``(path (M, N, d), energies (M,), max force over interior images, iterations)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(za, zb, what="contrastive_bounds.numerics.landscapes.network.neb.neb_single")
    m = images
    vg = jax.vmap(value_and_grad)
    strip = jax.vmap(remove_orbit) if orthogonal else (lambda x, v: v)
    t = jnp.linspace(0.0, 1.0, m, dtype=za.dtype)
    x0 = geodesic_interpolate(za, zb, t)

    def forces(x: jax.Array, climb: jax.Array, kappa: jax.Array) -> tuple:
        e, eg = vg(x)
        g = project_tangent(x, eg)
        xi, xp, xm = x[1:-1], x[2:], x[:-2]
        ei, ep, em = e[1:-1], e[2:], e[:-2]
        dp = strip(xi, project_tangent(xi, xp - xi))
        dm = strip(xi, project_tangent(xi, xi - xm))
        dmax = jnp.maximum(jnp.abs(ep - ei), jnp.abs(em - ei))[:, None, None]
        dmin = jnp.minimum(jnp.abs(ep - ei), jnp.abs(em - ei))[:, None, None]
        mixed = jnp.where((ep > em)[:, None, None], dp * dmax + dm * dmin, dp * dmin + dm * dmax)
        up = ((ep > ei) & (ei > em))[:, None, None]
        down = ((ep < ei) & (ei < em))[:, None, None]
        tau = jnp.where(up, dp, jnp.where(down, dm, mixed))
        tau = tau / jnp.maximum(_norm(tau), 1e-300)[:, None, None]
        gi = g[1:-1]
        gpar = _vdot(gi, tau)[:, None, None]
        spring_f = kappa * (_norm(dp) - _norm(dm))[:, None, None] * tau
        f = -(gi - gpar * tau) + spring_f
        top = jnp.argmax(ei)
        is_top = (jnp.arange(m - 2) == top)[:, None, None] & climb
        f = jnp.where(is_top, -gi + 2.0 * gpar * tau, f)
        f = jnp.concatenate([jnp.zeros_like(x[:1]), f, jnp.zeros_like(x[:1])])
        return f, e

    e0, eg0 = vg(x0)
    seg = jnp.maximum(jnp.sum(_norm(x0[1:] - x0[:-1])) / (m - 1), 1e-6)
    kappa = spring * jnp.median(_norm(project_tangent(x0, eg0))) / seg
    f0, _ = forces(x0, jnp.asarray(False), kappa)
    dt0 = jnp.sqrt(0.1 * seg / jnp.maximum(jnp.max(_norm(f0)), 1e-12))
    state = (x0, jnp.zeros_like(x0), dt0, jnp.asarray(0.1, za.dtype), jnp.zeros((), jnp.int32), f0,
             jnp.zeros((), jnp.int32))

    def cond(st: tuple) -> jax.Array:
        it, f = st[6], st[5]
        return (it < iterations) & ((it <= climb_after) | (jnp.max(_norm(f)) > ftol))

    def body(st: tuple) -> tuple:
        x, vel, dt, alpha, npos, f, it = st
        power = jnp.sum(f * vel)
        fn = jnp.sqrt(jnp.sum(f * f))
        vn = jnp.sqrt(jnp.sum(vel * vel))
        vel = (1.0 - alpha) * vel + alpha * vn * f / jnp.maximum(fn, 1e-300)
        positive = power > 0
        npos = jnp.where(positive, npos + 1, 0)
        grow = positive & (npos > 5)
        dt = jnp.where(grow, jnp.minimum(1.1 * dt, dt_max_factor * dt0), jnp.where(positive, dt, 0.5 * dt))
        alpha = jnp.where(grow, 0.99 * alpha, jnp.where(positive, alpha, 0.1))
        vel = jnp.where(positive, vel, 0.0) + dt * f
        dx = dt * vel
        move = _norm(dx)[:, None, None]
        dx = dx * jnp.minimum(1.0, max_move / jnp.maximum(move, 1e-300))
        x_new = retract(x, strip(x, project_tangent(x, dx)))
        vel = project_tangent(x_new, vel)
        f_new, _ = forces(x_new, it + 1 >= climb_after, kappa)
        return x_new, vel, dt, alpha, npos, f_new, it + 1

    x, _, _, _, _, f, it = jax.lax.while_loop(cond, body, state)
    e, _ = vg(x)
    return x, e, jnp.max(_norm(f)), it


def neb_runner(spec: Any, batch: int, **settings: Any) -> Callable:
    """Jitted NEB over a batch of endpoint pairs ``(za (B, N, d), zb (B, N, d))`` (cached per spec).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.neb.neb_runner")
    key = ("neb", batch, tuple(sorted(settings.items())))

    def build() -> Callable:
        vg = jax.value_and_grad(spec.potential)
        orth = spec.symmetry.orthogonal
        return jax.jit(jax.vmap(lambda a, b: neb_single(vg, a, b, orthogonal=orth, **settings)))

    return spec.compiled(key, build)


def run_neb(spec: Any, za: Any, zb: Any, *, chunk: int = 16, **settings: Any) -> tuple:
    """NEB for every pair (numpy in and out, padded chunks): ``(paths, energies, max_force, iterations)``.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.neb.run_neb")
    za = np.asarray(za, dtype=np.float64)
    zb = np.asarray(zb, dtype=np.float64)
    size = padded_size(za.shape[0], chunk)
    return run_in_padded_chunks(neb_runner(spec, size, **settings), (za, zb), size)


def band_maxima(path: np.ndarray, energies: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Interior local maxima of a band's energies: ``[(z_k, tangent_k)]`` (tangent: central difference,
    projected onto ``T_{z_k}M``, normalised) — the saddle candidates handed to refinement."""
    out = []
    for k in range(1, len(energies) - 1):
        if energies[k] >= energies[k - 1] and energies[k] >= energies[k + 1]:
            t = path[k + 1] - path[k - 1]
            t = t - np.sum(t * path[k], axis=-1, keepdims=True) * path[k]
            nrm = np.linalg.norm(t)
            out.append((path[k], t / nrm if nrm > 0 else t))
    return out
