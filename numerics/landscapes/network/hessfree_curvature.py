"""The Hessian-free curvature provider of the network search: :class:`HessianFreeCurvature` (``"hessfree"``).

It implements the :class:`~.curvature.Curvature` interface with the tools of
:mod:`contrastive_bounds.numerics.landscapes.hessfree`, never forming an ``(N·d)²`` array:

* **classify** — :func:`~..hessfree.certify.verifier`: the ``CLASSIFY_MODES`` lowest eigenpairs of the
  deflated Riemannian Hessian by thick-restart Lanczos (two independent runs, the second with the first's
  negative modes locked out, merged by Rayleigh–Ritz), their residual bounds and the gradient norm; the
  certificate's rule (an interval instead of an exact eigenvalue) decides the index. The
  :class:`~.verify.CriticalPoint` carries those lowest eigenpairs only (``complete_spectrum=False``); the
  number of modes off the symmetry, ``N·(d−1) − orbit_dim``, is known, so what was followed is stated
  against it (:mod:`.following`).
* **polish** — Riemannian truncated Newton–CG (Steihaug): per step, conjugate gradients on
  ``Hess V·s = −grad V`` in the tangent space off the ``O(d)`` orbit, stopped at negative curvature
  (the step then stays a descent direction) or at relative residual ``min(0.5, sqrt|grad V|)``
  (Nocedal & Wright, Numerical Optimization, Alg. 7.2: superlinear local convergence), the step capped at
  0.1 rad and retracted; the dense provider's Newton polish does the same with an eigendecomposition.
* **refine** — hybrid eigenvector following (:mod:`..hessfree.eigenvector_following`) in the refilled
  lanes of :func:`~..hessfree.batched.queue_searcher` (index 1); index 0 is the Newton–CG polish.
* **stiffest** — Lanczos on ``−Hess V`` (the largest eigenvalue) and on ``Hess V`` (the lowest): the larger
  ``|λ|``.

Compiled functions are cached per spec (``LandscapeSpec.compiled``), so each ``(N, d)`` compiles once. On
CPU every configuration runs through one compiled single-point function (a vmapped Lanczos costs about
twice the points run one by one there: ``hessfree.certify.verifier``).
"""

from __future__ import annotations

import math
import zlib
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.batched import queue_searcher
from contrastive_bounds.numerics.landscapes.network.parallel import on_devices
from contrastive_bounds.numerics.landscapes.hessfree.certify import Certificate, verifier, verify_batch
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import BELOW_FLOOR, HEFSettings
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian, softest_modes
from contrastive_bounds.numerics.landscapes.network.verify import CriticalPoint, orbit_dimension_formula
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import retract
from contrastive_bounds.numerics.landscapes.network.optimize import padded_size

__all__ = ["HessianFreeCurvature", "HESSFREE", "newton_cg_polisher", "CLASSIFY_MODES", "POLISH_CG_ITERATIONS",
           "modes_off_symmetry"]

#: lowest eigenpairs a classification computes (per Lanczos run; two runs are merged)
CLASSIFY_MODES = 4
#: conjugate-gradient iterations at most per Newton–CG step
POLISH_CG_ITERATIONS = 200
#: largest Newton step (Frobenius norm over all N·d coordinates, radians), as the dense polish
MAX_NEWTON_STEP = 0.1


def _lanes() -> int:
    """Lanes of the search queue: one on CPU (vmapped branches cost both sides there), 64 on an accelerator."""
    return 1 if jax.default_backend() == "cpu" else 64


def modes_off_symmetry(num_points: int, dim: int, orbit_dim: int) -> int:
    """``N·(d−1) − orbit_dim``: the Hessian modes of a configuration off the symmetry modes (the tangent space of
    ``(S^{d−1})^N`` less the ``O(d)`` orbit's)."""
    return int(num_points) * (int(dim) - 1) - int(orbit_dim)


def _critical_point(z: np.ndarray, cert: Certificate, symmetric: bool) -> CriticalPoint:
    """A :class:`~.verify.CriticalPoint` from a certificate (lowest eigenpairs only)."""
    lam = np.asarray(cert.eigenvalues, dtype=np.float64)
    unresolved = ~(cert.upper < -cert.band) & ~(cert.lower > cert.band)
    gradient_ok = cert.kind != "not critical"
    kind = "not critical" if not gradient_ok else {0: "minimum", 1: "transition state"}.get(
        cert.index, f"saddle of index {cert.index}")
    modes = np.asarray(cert.modes, dtype=np.float64)
    if modes.ndim != 3 or modes.shape[0] == 0:
        modes = np.zeros((0, *z.shape))
    mode = modes[0] if modes.shape[0] else np.zeros(z.shape)
    return CriticalPoint(np.array(z, dtype=np.float64), float(cert.energy), float(cert.gradient_norm), lam,
                         int(cert.orbit_dim), orbit_dimension_formula(z) if symmetric else 0,
                         float(cert.orbit_residual), int(cert.index), int(np.sum(unresolved)), kind, bool(cert.verified),
                         cert.reason, mode, modes, complete_spectrum=False)


def _truncated_cg(matvec: Callable, g: jax.Array, tol: jax.Array, max_iter: int) -> jax.Array:
    """Steihaug's truncated CG for ``H s = −g`` (pure JAX): stops at negative curvature (returning the last
    iterate, or ``−g`` if that is the first direction) or when ``|r| <= tol``."""
    dot = lambda a, b: jnp.sum(a * b)  # noqa: E731

    def cond(c: tuple) -> jax.Array:
        _, r, _, it, stop = c
        return (it < max_iter) & ~stop & (jnp.sqrt(dot(r, r)) > tol)

    def body(c: tuple) -> tuple:
        s, r, p, it, _ = c
        hp = matvec(p)
        curv = dot(p, hp)
        negative = curv <= 1e-14 * dot(p, p)
        alpha = dot(r, r) / jnp.where(negative, 1.0, curv)
        s_new = s + alpha * p
        r_new = r - alpha * hp
        beta = dot(r_new, r_new) / jnp.maximum(dot(r, r), 1e-300)
        first = it == 0
        s_out = jnp.where(negative, jnp.where(first, -g, s), s_new)
        return s_out, jnp.where(negative, r, r_new), r_new + beta * p, it + 1, negative

    r0 = -g
    s, _, _, _, _ = jax.lax.while_loop(cond, body, (jnp.zeros_like(g), r0, r0, jnp.asarray(0), jnp.asarray(False)))
    return s


def newton_cg_polisher(potential: Callable, orthogonal: bool, max_steps: int, gtol: float) -> Callable:
    """Jitted ``z (N, d) -> z`` (float64, unit rows): Newton–CG steps (module docstring) until ``|grad V|_2 <= gtol``
    or ``max_steps`` steps; ``potential`` pure JAX, ``orthogonal``: V is O(d)-invariant (the orbit is deflated).

    Raises:
      X64DisabledError: JAX's x64 mode is off (the polisher computes in float64; under ``jit`` a float64 input
        would otherwise be cast to float32 silently)."""
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.hessfree_curvature.newton_cg_polisher")

    def one(z: jax.Array) -> jax.Array:
        def cond(c: tuple) -> jax.Array:
            _, gnorm, it = c
            return (it < max_steps) & (gnorm > gtol) & jnp.isfinite(gnorm)

        def body(c: tuple) -> tuple:
            z, _, it = c
            op = deflated_hessian(potential, z, orthogonal)
            g = op.project(op.gradient)
            gn = jnp.linalg.norm(g)
            s = op.project(_truncated_cg(op.matvec, g, jnp.minimum(0.5, jnp.sqrt(gn)) * gn, POLISH_CG_ITERATIONS))
            norm = jnp.linalg.norm(s)
            s = s * jnp.minimum(1.0, MAX_NEWTON_STEP / jnp.maximum(norm, 1e-300))
            z_new = retract(z, s)
            op2 = deflated_hessian(potential, z_new, orthogonal)
            return z_new, jnp.linalg.norm(op2.gradient), it + 1

        gn0 = jnp.linalg.norm(deflated_hessian(potential, z, orthogonal).gradient)
        z_out, _, _ = jax.lax.while_loop(cond, body, (z, gn0, jnp.asarray(0)))
        return z_out

    return jax.jit(one)


class HessianFreeCurvature:
    """Curvature from Hessian–vector products only (module docstring); name ``"hessfree"``.

    Args:
      classify_modes: lowest eigenpairs per Lanczos run of a classification (>= 2).
      seed: PRNG seed of the Lanczos starts (fixed: a resumed search classifies exactly as an uninterrupted one).
    """

    name = "hessfree"

    def __init__(self, classify_modes: int = CLASSIFY_MODES, seed: int = 0) -> None:
        if int(classify_modes) < 2:
            raise ValueError(f"classify_modes={classify_modes!r} must be an integer >= 2")
        self.classify_modes = int(classify_modes)
        self.seed = int(seed)

    # ------------------------------------------------------------------------------ compiled functions
    def _check(self, spec: Any) -> Callable:
        k = self.classify_modes
        return spec.compiled(("hessfree-verify", k), lambda: verifier(spec.potential, orthogonal=spec.symmetry.orthogonal,
                                                                      k=k, krylov_dim=max(32, 2 * k + 8)))

    def _polisher(self, spec: Any, max_steps: int, gtol: float) -> Callable:
        return spec.compiled(("hessfree-newton-cg", int(max_steps), float(gtol)),
                             lambda: newton_cg_polisher(spec.potential, spec.symmetry.orthogonal, int(max_steps), float(gtol)))

    def _modes(self, spec: Any, k: int) -> Callable:
        def build() -> Callable:
            return jax.jit(lambda z, key: softest_modes(spec.potential, z, key, k=k, orthogonal=spec.symmetry.orthogonal,
                                                        krylov_dim=max(32, 2 * k + 8), max_restarts=60))

        return spec.compiled(("hessfree-modes", int(k)), build)

    def _searcher(self, spec: Any, max_iter: int) -> Callable:
        settings = HEFSettings(max_iter=int(max_iter))
        return spec.compiled(("hessfree-hef", int(max_iter)),
                             lambda: queue_searcher(spec.potential, slots=_lanes(),
                                                    orthogonal=spec.symmetry.orthogonal, settings=settings))

    # ------------------------------------------------------------------------------ the interface
    def classify(self, spec: Any, z: np.ndarray, *, expect: int | None, gradient_tol: float, eigenvalue_tol: float,
                 chunk: int) -> list[CriticalPoint]:
        """Certify each configuration of ``z`` ``(B, N, d)`` from its lowest eigenpairs (module docstring)."""
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.HessianFreeCurvature.classify")
        z = np.asarray(z, dtype=np.float64)
        if z.shape[0] == 0:
            return []
        certs = verify_batch(spec.potential, z, expect=expect, orthogonal=spec.symmetry.orthogonal, seed=self.seed,
                             gradient_tol=gradient_tol, eigenvalue_tol=eigenvalue_tol, check=self._check(spec))
        return [_critical_point(z[b], c, spec.symmetry.orthogonal) for b, c in enumerate(certs)]

    def polish(self, spec: Any, z: np.ndarray, *, chunk: int, eigenvalue_tol: float, max_steps: int = 4) -> np.ndarray:
        """Newton–CG polish of every configuration (``|grad V|`` to ~1e-12; a step never climbs)."""
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.HessianFreeCurvature.polish")
        z = np.array(z, dtype=np.float64)
        fn = self._polisher(spec, max(int(max_steps), 1) * 2, 1e-12)
        for b in range(z.shape[0]):
            out = np.asarray(fn(jnp.asarray(z[b])), dtype=np.float64)
            if np.all(np.isfinite(out)):
                z[b] = out
        return z

    def refine(self, spec: Any, z: np.ndarray, modes: np.ndarray, *, index: int, chunk: int,
               max_iter: int, floors: np.ndarray | None = None, below: list[bool] | None = None) -> np.ndarray:
        """Index 1: hybrid eigenvector following from ``z`` along ``modes`` (its end points; each search's PRNG key
        is a function of its start and mode, so its end does not depend on the rest of the call); index 0: the
        polish. ``floors`` ``(B,)`` (units of ``V``; ``-inf``: none) end a search once its ``V`` falls below its
        floor (it left the basin of the minimum it started from,
        :mod:`~contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following`); ``below``, when given, is
        filled with one flag per search: it ended there."""
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.HessianFreeCurvature.refine")
        z = np.asarray(z, dtype=np.float64)
        if index not in (0, 1):
            raise ValueError(f"index={index} must be 0 (minimum) or 1 (transition state)")
        if z.shape[0] == 0:
            return z.copy()
        if index == 0:
            return self.polish(spec, z, chunk=chunk, eigenvalue_tol=0.0, max_steps=max(4, max_iter // 10))
        fn = self._searcher(spec, max(int(max_iter), 400))
        b = z.shape[0]
        modes = np.asarray(modes, dtype=np.float64)
        floors = np.full(b, -np.inf) if floors is None else np.asarray(floors, dtype=np.float64).reshape(b)
        ended_below = np.zeros(b, dtype=bool)
        # each search's key is a function of its start (not of its place in the call), so a start ends the same way
        # in any block — a resumed search repeats an uninterrupted one
        base = jax.random.key(self.seed + 7919)
        data = jnp.asarray([zlib.crc32(z[k].tobytes() + modes[k].tobytes()) & 0x7FFFFFFF for k in range(b)], jnp.uint32)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(base, data)
        # queues of one padded length (one compilation per device; padding rows are inactive), one per CPU device at a
        # time, concurrently (:mod:`.parallel`): a Ctrl-C waits for one round of queues at most, not for the whole
        # block; a search's end does not depend on its queue or device
        size = padded_size(b, max(int(chunk), _lanes()))
        out = np.empty_like(z)
        starts = list(range(0, b, size))

        def queue(i: int, device: Any) -> tuple[np.ndarray, np.ndarray]:
            lo = starts[i]
            n = min(size, b - lo)
            pad = lambda a: np.concatenate([a[lo:lo + n], np.repeat(a[lo:lo + 1], size - n, axis=0)])  # noqa: E731
            args = (pad(z), pad(modes), jnp.concatenate([keys[lo:lo + n], jnp.repeat(keys[lo:lo + 1], size - n, axis=0)]),
                    np.arange(size) < n, pad(floors))
            res = fn(*(jax.device_put(args, device) if device is not None else tuple(jnp.asarray(a) for a in args)))
            return np.asarray(res.z, dtype=np.float64)[:n], np.asarray(res.status)[:n] == BELOW_FLOOR

        for lo, (zs, low) in zip(starts, on_devices(queue, len(starts))):
            out[lo:lo + len(zs)], ended_below[lo:lo + len(zs)] = zs, low
        if below is not None:
            below[:] = ended_below.tolist()
        return out

    def softest(self, spec: Any, z: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` softest eigenpairs off the symmetry at one configuration ``(N, d)``: ``(eigenvalues (k',),
        modes (k', N, d))``, ascending, ``k' <= k`` (the valid ones)."""
        sp = self._modes(spec, int(k))(jnp.asarray(np.asarray(z, dtype=np.float64)), jax.random.key(self.seed + 2))
        valid = np.asarray(sp.valid)
        return np.asarray(sp.eigenvalues, dtype=np.float64)[valid], np.asarray(sp.modes, dtype=np.float64)[valid]

    def stiffest(self, spec: Any, z: np.ndarray) -> float:
        """``max |λ|`` off the symmetry: Lanczos at the top (on ``−Hess V``) and at the bottom."""
        z = jnp.asarray(np.asarray(z, dtype=np.float64))
        key = jax.random.key(self.seed + 3)
        orth = spec.symmetry.orthogonal
        fn = spec.compiled(("hessfree-stiffest",), lambda: jax.jit(lambda x, k: (
            softest_modes(lambda y: -spec.potential(y), x, k, k=1, orthogonal=orth).eigenvalues[0],
            softest_modes(spec.potential, x, k, k=1, orthogonal=orth).eigenvalues[0])))
        top, bottom = fn(z, key)
        vals = [abs(float(v)) for v in (top, bottom) if math.isfinite(float(v))]
        return max(vals) if vals else 0.0


#: the Hessian-free provider with its defaults (stateless apart from its settings: one instance serves every search)
HESSFREE = HessianFreeCurvature()
