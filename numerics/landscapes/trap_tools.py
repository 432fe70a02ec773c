"""Tools for critical points at large N: Newton–CG polish, multiplicities and class tests without isomorphisms (A9).

* :func:`newton_polish` — Newton's method with conjugate gradients on the deflated Riemannian Hessian
  (Hessian–vector products only), to bring an L-BFGS minimum from its rounding floor to ``|grad V| ~ 1e-13``;
* :func:`multiplicity_at_scale` — configurations modulo ``O(d)`` in a symmetry orbit, exact at every N
  (:func:`~.network.symmetry.multiplicity`: bliss's automorphism group of the labelled Gram graph);
* :func:`same_gram` — equal sorted Gram entries, the class test above ``EXACT_MULTIPLICITY_MAX_POINTS`` points (a
  necessary condition; up to that size classes are decided by isomorphism tests).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.network.constants import DEFAULT_GRAM_TOL
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["newton_polish", "multiplicity_at_scale", "same_gram", "EXACT_MULTIPLICITY_MAX_POINTS"]


def newton_polish(potential: Any, z: Any, *, steps: int = 4, orthogonal: bool = True) -> tuple[np.ndarray, float]:
    """Newton's method on the deflated Riemannian Hessian with conjugate gradients (Newton–CG, Nocedal & Wright,
    Numerical Optimization, Alg. 7.1, each system solved to 1e-12): ``z ← R_z(−H⁻¹ grad V)``, ``steps`` times, from a
    point in the quadratic basin of a non-degenerate minimum (CG needs the deflated Hessian positive definite there).
    Hessian–vector products only; one compiled step per (potential, symmetry flag).

    Args:
      potential: pure JAX ``V``. z: ``(N, d)`` float64 unit rows. steps: Newton steps (>= 0). orthogonal: ``V`` is
        ``O(d)``-invariant (the rotation modes are deflated).

    Returns:
      ``(z (N, d), |grad V|_2)`` at the end.

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.trap_tools.newton_polish")
    step = _newton_step(potential, bool(orthogonal))
    x = jnp.asarray(np.asarray(z, dtype=np.float64))
    for _ in range(int(steps)):
        x = step(x)
    from contrastive_bounds.numerics.landscapes.hessfree.operators import riemannian_gradient

    return np.asarray(x), float(jnp.linalg.norm(riemannian_gradient(potential, x)[1]))


@functools.lru_cache(maxsize=16)
def _newton_step(potential: Any, orthogonal: bool) -> Any:
    from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian
    from contrastive_bounds.numerics._sphere import retract

    @jax.jit
    def step(x: jax.Array) -> jax.Array:
        op = deflated_hessian(potential, x, orthogonal)
        g = op.project(op.gradient)
        dx, _ = jax.scipy.sparse.linalg.cg(op.matvec, -g, tol=1e-12, maxiter=2000)
        return retract(x, op.project(dx))

    return step


#: up to this N :mod:`.trap_network` decides classes by isomorphism tests (:func:`~.network.symmetry.equivalent`), above
#: it by :func:`same_gram`; multiplicities are exact at every N (:func:`multiplicity_at_scale`)
EXACT_MULTIPLICITY_MAX_POINTS = 24


def multiplicity_at_scale(spec: Any, z: Any) -> int | None:
    """Configurations modulo ``O(d)`` in the symmetry orbit of ``z``: ``|Π| / |Stab_Π(z)|``, exact at every N.

    Args:
      spec: a landscape spec with a ``symmetry``. z: ``(N, d)`` float64 unit rows.
    Returns:
      :func:`~.network.symmetry.multiplicity` (both group orders from bliss's generators, checked, and their
      Schreier–Sims order: ~0.2 s at N = 64, d = 32), an int; the ``None`` of the signature is kept for callers
      that stored "not computed" before (colour refinement counted only trivial and collapsed-pair stabilisers).
    """
    from contrastive_bounds.numerics.landscapes.network.symmetry import multiplicity

    return int(multiplicity(np.asarray(z, dtype=np.float64), spec.symmetry))


def same_gram(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal sorted Gram entries within ``4·DEFAULT_GRAM_TOL`` (a necessary condition for equivalence)."""
    ga, gb = a @ a.T, b @ b.T
    iu = np.triu_indices(ga.shape[0], 1)
    return bool(np.max(np.abs(np.sort(ga[iu]) - np.sort(gb[iu]))) <= 4 * DEFAULT_GRAM_TOL)
